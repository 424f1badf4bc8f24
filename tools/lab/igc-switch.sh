#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# igc-switch.sh: the older name of nic-switch.sh's Intel I225/I226 family
# (igc <-> igc_batch), kept so that existing commands keep working.  It runs
# nic-switch.sh -f igc (found next to this script, else in PATH):
#
#   igc-switch.sh [-n] to-batch PORT...   = nic-switch.sh to-ours PORT...
#   igc-switch.sh [-n] to-igc PORT...     = nic-switch.sh to-upstream PORT...
#   igc-switch.sh [-n] persist batch|igc  = nic-switch.sh persist ours|upstream igc
#   igc-switch.sh status                  = nic-switch.sh -f igc status
#
# "all" is every I225/I226 port; other ports are refused.  IGC_SWITCH_SYSFS,
# if set, is passed on as NIC_SWITCH_SYSFS.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
if [ -x "$here/nic-switch.sh" ]; then
	ns=$here/nic-switch.sh
elif ! ns=$(command -v nic-switch.sh); then
	echo "${0##*/}: nic-switch.sh, which does the work, is neither in $here nor in PATH: install tools/lab/nic-switch.sh beside this script" >&2
	exit 1
fi
[ -z "${IGC_SWITCH_SYSFS:-}" ] || export NIC_SWITCH_SYSFS=$IGC_SWITCH_SYSFS

opts=(-f igc)
[ "${1:-}" = -n ] && { opts+=(-n); shift; }
case "${1:-}:$#" in
to-batch:1 | to-igc:1) ;;
to-batch:* | to-igc:*)
	cmd=to-ours
	[ "$1" = to-igc ] && cmd=to-upstream
	shift
	exec "$ns" "${opts[@]}" "$cmd" "$@"
	;;
persist:2)
	case "$2" in
	batch) exec "$ns" "${opts[@]}" persist ours igc ;;
	igc) exec "$ns" "${opts[@]}" persist upstream igc ;;
	esac
	;;
status:1) exec "$ns" "${opts[@]}" status ;;
esac
sed -n 's/^#   \(igc-switch.sh [^=]*[^ =]\) *=.*/usage: \1/p' "$0" >&2
exit 2
