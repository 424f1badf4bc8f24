#!/bin/bash
# run.sh: build the QEMU with our models (cached by build.sh) and run the
# model-level qtest suite.  Output is TAP; exit status 0 = all passed,
# 1 = a test failed, 2 = the build or the harness failed.
#
#   tools/lab/qemu/tests/run.sh [-v]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

qemu=$("$here/../build.sh" | tail -n1) || {
	echo "Bail out! tools/lab/qemu/build.sh failed" >&2
	exit 2
}
[ -x "$qemu" ] || { echo "Bail out! build.sh printed '$qemu', not a binary" >&2; exit 2; }
command -v python3 >/dev/null || { echo "Bail out! python3 not found; apt-get install python3" >&2; exit 2; }
exec python3 "$here/qtest_dbb_igc.py" --qemu "$qemu" "$@"
