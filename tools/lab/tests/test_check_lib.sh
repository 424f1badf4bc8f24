#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_check_lib.sh: how make check counts a TAP log (tools/lib/
# check-lib.sh's count_tap): one result per "ok N"/"not ok N" line, and a
# failure carries the diagnostics right after it into the list that ends
# make check's output, the part a CI excerpt keeps; a run's log with its
# exit status (tap_count_run); durations as printed.  Host only; prints
# TAP, exits 0 only when every case passed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$(cd "$HERE/../../lib" && pwd)/check-lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
bad=0

check() # name cmd...: one case, passed when CMD succeeds
{
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		bad=$((bad + 1))
	fi
}

tab=$(printf '\t')
cat >"$T/a.log" <<LOG
TAP version 13
# a guest boots
ok 1 first
#   10 frames
not ok 2 second with${tab}a tab
#   0.2546 TX tail writes per forwarded packet
#   model A rx_frames 40008
# three
# four
# five: not kept
not ok 3 third
some output that is no diagnostic
# a line after it: not the failure's
ok 4 fourth # SKIP no guest
1..4
LOG

# in a subshell of its own: check-lib.sh's counters start at 0
# shellcheck source=../../lib/check-lib.sh disable=SC2034,SC2154
out=$(logs=$T; . "$LIB"; count_tap "$T/a.log" pre >"$T/out"
      echo "$passed $failed"; printf '%s\n' "${failures[@]}" >"$T/failures")

check "two passed (a skip counts as passed), two failed" \
	test "$out" = "2 2"
check "each result line once, named with its prefix" \
	test "$(grep -c '^\(not \)\?ok - pre: ' "$T/out")" = 4
check "a failure's first four diagnostics follow it, joined" \
	grep -qxF '      0.2546 TX tail writes per forwarded packet | model A rx_frames 40008 | three | four' "$T/out"
check "the fifth diagnostic is not kept" \
	test "$(grep -c five "$T/out")" = 0
check "a tab in a name reads as a space" \
	grep -qxF 'not ok - pre: 2 second with a tab' "$T/out"
check "the failure list carries the diagnostics under the name" \
	grep -qxF '      0.2546 TX tail writes per forwarded packet | model A rx_frames 40008 | three | four' "$T/failures"
check "no diagnostics for a failure without them, nor taken past other output" \
	test "$(grep -c 'a line after\|some output' "$T/failures")" = 0

# tap_count_run: a run's log and exit status, written by another
# program (tools/lab/selftests.py run)
count_run() # name rc|-: "passed failed" of tap_count_run on $T/NAME.log
{
	rm -f "$T/$1.rc"
	[ "$2" = - ] || echo "$2" >"$T/$1.rc"
	# shellcheck disable=SC2034,SC2154
	(logs=$T; . "$LIB"; tap_count_run "$1" pre >/dev/null
	 echo "$passed $failed")
}
printf 'TAP version 13\nok 1 x\n1..1\n' >"$T/good.log"
check "a run that exited 0: its lines count, nothing more" \
	test "$(count_run good 0)" = "1 0"
check "a run that exited non-zero without a failed line: one failure more" \
	test "$(count_run good 3)" = "1 1"
check "a run with no exit status recorded (never ended): one failure more" \
	test "$(count_run good -)" = "1 1"
check "a run that exited non-zero with a failed line: only its lines" \
	test "$(count_run a 1)" = "2 2"
check "a run with no log at all: one failure" \
	test "$(count_run none -)" = "0 1"
# shellcheck disable=SC1090
check "duration: minutes and zero-padded seconds" \
	test "$(. "$LIB"; duration 3725)" = "62 min 05 s"

echo "1..$n"
[ "$bad" -eq 0 ]
