#!/bin/bash
# run.sh: build the QEMU with our models (cached by build.sh) and run the
# model-level qtest suites: dbb-igc's (qtest_dbb_igc.py), then dbb-octep's
# (qtest_dbb_octep.py).  Output is one TAP stream (the suites' tests
# numbered on); exit status 0 = all passed, 1 = a test failed, 2 = the
# build or a harness failed.
#
#   tools/lab/qemu/tests/run.sh [-v] [igc|octep]...   (default: both)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

opts=()
suites=()
for a in "$@"; do
	case "$a" in
	igc | octep) suites+=("$a") ;;
	*) opts+=("$a") ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || suites=(igc octep)

qemu=$("$here/../build.sh" | tail -n1) || {
	echo "Bail out! tools/lab/qemu/build.sh failed" >&2
	exit 2
}
[ -x "$qemu" ] || { echo "Bail out! build.sh printed '$qemu', not a binary" >&2; exit 2; }
command -v python3 >/dev/null || { echo "Bail out! python3 not found; apt-get install python3" >&2; exit 2; }

echo "TAP version 13"
n=0
rc=0
for s in "${suites[@]}"; do
	out=$(mktemp)
	st=$(mktemp)
	# Each suite prints its own TAP; number its tests on from the last.
	{
		r=0
		python3 "$here/qtest_dbb_$s.py" --qemu "$qemu" ${opts[@]+"${opts[@]}"} 2>&1 || r=$?
		echo "$r" >"$st"
	} | awk -v n="$n" -v out="$out" '
			/^TAP version/ || /^1\.\.[0-9]+$/ { next }
			/^(not )?ok [0-9]+ / {
				n++
				sub(/ok [0-9]+ /, "ok " n " ")
			}
			{ print; fflush() }
			END { print n > out }'
	r=$(cat "$st")
	n=$(cat "$out")
	rm -f "$out" "$st"
	if [ "$r" -ge 2 ]; then
		rc=2
	elif [ "$r" -eq 1 ] && [ "$rc" -eq 0 ]; then
		rc=1
	fi
done
echo "1..$n"
exit "$rc"
