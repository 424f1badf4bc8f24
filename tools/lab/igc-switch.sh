#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# igc-switch.sh: move Intel I225/I226 ports between the upstream igc driver
# and igc_batch, while both are installed (they bind the same PCI IDs).
#
#   igc-switch.sh [-n] to-batch PORT...   unbind from igc, bind igc_batch
#   igc-switch.sh [-n] to-igc PORT...     the way back
#   igc-switch.sh [-n] persist batch|igc  at boot: igc_batch (blacklist igc)
#                                          or igc again (drop the blacklist)
#   igc-switch.sh status                  every I225/I226 port and its driver
#
# PORT is an interface name (eth1), a PCI address (0000:03:00.0 or 03:00.0)
# or "all" (every I225/I226 port).  -n prints what would be done.
#
# A switch is per port and lasts until reboot: the port's driver_override
# names the driver, so a module reload or a PCI rescan does not hand it back
# to the other one; switching again rewrites it.  The interface goes away
# and comes back under the new driver (its name may change; its addresses
# and routes are gone, as after any driver reload).  "persist" works per
# machine: a modprobe.d blacklist keeps igc from binding at boot; rebuild
# the initramfs afterwards if igc is in it (update-initramfs -u).
set -euo pipefail

PROG=${0##*/}
CONF=/etc/modprobe.d/igc-switch.conf
SYS=${IGC_SWITCH_SYSFS:-/sys}
DRY=

# The PCI device IDs (vendor 8086) both drivers bind.
IDS="15f2 15f3 15f8 3100 3101 5502 0d9f 15fd 125b 125c 125d 3102 5503 125f 15f7 125e"

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage() {
	sed -n 's/^#   //p' "$0" | sed -n '1,6p' >&2
	exit 2
}

run() {
	if [ -n "$DRY" ]; then
		echo "would: $*"
	else
		"$@"
	fi
}

# write VALUE FILE, or say so under -n
put() {
	if [ -n "$DRY" ]; then
		echo "would: echo '$1' > $2"
	else
		printf '%s\n' "$1" >"$2"
	fi
}

is_igc_port() {
	local d=$SYS/bus/pci/devices/$1 id
	[ -r "$d/vendor" ] && [ "$(cat "$d/vendor")" = 0x8086 ] || return 1
	id=$(cat "$d/device")
	case " $IDS " in *" ${id#0x} "*) return 0 ;; esac
	return 1
}

all_ports() {
	local d
	for d in "$SYS"/bus/pci/devices/*; do
		is_igc_port "${d##*/}" && echo "${d##*/}"
	done
	return 0
}

# resolve PORT -> full PCI address
resolve() {
	local p=$1 bdf
	if [ -e "$SYS/class/net/$p/device" ]; then
		bdf=$(basename "$(readlink -f "$SYS/class/net/$p/device")")
	elif [ -e "$SYS/bus/pci/devices/$p" ]; then
		bdf=$p
	elif [ -e "$SYS/bus/pci/devices/0000:$p" ]; then
		bdf=0000:$p
	else
		die "$p: no such interface or PCI device"
	fi
	is_igc_port "$bdf" || die "$p ($bdf) is not an Intel I225/I226 port"
	echo "$bdf"
}

driver_of() {
	local l=$SYS/bus/pci/devices/$1/driver
	if [ -e "$l" ]; then basename "$(readlink -f "$l")"; else echo none; fi
}

ifaces_of() {
	local n out=
	for n in "$SYS"/bus/pci/devices/"$1"/net/*; do
		[ -e "$n" ] && out+="${n##*/} "
	done
	echo "${out:--}"
}

# switch BDF DRIVER
switch() {
	local bdf=$1 want=$2 have
	have=$(driver_of "$bdf")
	if [ "$have" = "$want" ]; then
		echo "$bdf: already on $want ($(ifaces_of "$bdf"))"
		put "$want" "$SYS/bus/pci/devices/$bdf/driver_override"
		return 0
	fi
	# Load the driver first so that the port is never left without one
	# because its module is missing.
	if [ ! -d "$SYS/bus/pci/drivers/$want" ]; then
		run modprobe "$want" || die "cannot load $want"
	fi
	put "$want" "$SYS/bus/pci/devices/$bdf/driver_override"
	if [ "$have" != none ]; then
		put "$bdf" "$SYS/bus/pci/devices/$bdf/driver/unbind"
	fi
	put "$bdf" "$SYS/bus/pci/drivers_probe"
	[ -n "$DRY" ] && return 0
	have=$(driver_of "$bdf")
	[ "$have" = "$want" ] || die "$bdf: $want did not bind (now: $have); see dmesg"
	# The netdev shows up right after probe; give udev a moment to rename.
	sleep 0.5
	echo "$bdf: now on $want ($(ifaces_of "$bdf"))"
}

persist() {
	case "$1" in
	batch)
		if [ -n "$DRY" ]; then
			echo "would: write $CONF (blacklist igc)"
		else
			mkdir -p "${CONF%/*}"
			cat >"$CONF" <<-EOF
				# Written by igc-switch.sh: Intel I225/I226 ports use
				# igc_batch; igc does not bind them at boot.  Undo with
				# "igc-switch.sh persist igc".
				blacklist igc
			EOF
			echo "wrote $CONF"
		fi
		;;
	igc)
		if [ -e "$CONF" ]; then
			run rm -f "$CONF"
			echo "removed $CONF"
		else
			echo "$CONF not present: igc is not blacklisted by this tool"
		fi
		;;
	*) usage ;;
	esac
	echo "if igc is in your initramfs, run update-initramfs -u for this to apply at boot"
}

status() {
	local bdf found=
	printf '%-14s %-6s %-10s %-10s %s\n' PCI ID DRIVER OVERRIDE IFACES
	for bdf in $(all_ports); do
		found=1
		printf '%-14s %-6s %-10s %-10s %s\n' "$bdf" \
			"$(sed 's/^0x//' "$SYS/bus/pci/devices/$bdf/device")" \
			"$(driver_of "$bdf")" \
			"$(cat "$SYS/bus/pci/devices/$bdf/driver_override" 2>/dev/null || echo '?')" \
			"$(ifaces_of "$bdf")"
	done
	[ -n "$found" ] || echo "(no Intel I225/I226 port)"
	[ ! -e "$CONF" ] || echo "at boot: igc blacklisted ($CONF)"
}

[ "${1:-}" = -n ] && { DRY=1; shift; }
[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
status)
	status
	;;
persist)
	[ $# -eq 1 ] || usage
	[ -n "$DRY" ] || [ "$(id -u)" = 0 ] || die "must be root"
	persist "$1"
	;;
to-batch | to-igc)
	[ $# -ge 1 ] || usage
	[ -n "$DRY" ] || [ "$(id -u)" = 0 ] || die "must be root"
	want=igc_batch
	[ "$cmd" = to-igc ] && want=igc
	ports=()
	for p in "$@"; do
		if [ "$p" = all ]; then
			mapfile -t -O "${#ports[@]}" ports < <(all_ports)
		else
			ports+=("$(resolve "$p")")
		fi
	done
	[ ${#ports[@]} -gt 0 ] || die "no Intel I225/I226 port found"
	for bdf in "${ports[@]}"; do
		switch "$bdf" "$want"
	done
	;;
*)
	usage
	;;
esac
