# SPDX-License-Identifier: GPL-2.0
#
# The pieces `make check` (tools/check.sh) and `make check-debug`
# (tools/check-debug.sh) count their results with.  Source it after
# setting $logs (the directory of the per-step logs).

passed=0
failed=0
failures=()

result() # ok|fail name [diagnostics]
{
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		# the list at the end is what a CI excerpt keeps: with the
		# figures a failure was judged on, it can be understood there
		failures+=("$2${3:+
      $3}")
		echo "not ok - $2"
		[ -z "$3" ] || echo "      $3"
	fi
}

# step NAME CMD...: one test whose log goes to $logs/NAME.log; returns
# non-zero when it failed
step()
{
	local name=$1 log="$logs/${1//[^A-Za-z0-9._-]/_}.log"
	shift
	if "$@" >"$log" 2>&1; then
		result ok "$name"
	else
		result fail "$name"
		tail -n 25 "$log" | sed 's/^/    /'
		return 1
	fi
}

# tap_results LOG: each "ok N name"/"not ok N name" line of a TAP log, a
# tab, and the first 4 diagnostic ("#") lines right after it joined by
# " | ", cut at 800 characters
tap_results()
{
	awk '
	function flush() {
		if (res != "")
			print res "\t" substr(diag, 1, 800)
		res = ""; diag = ""; nd = 0
	}
	/^(not )?ok [0-9]+ / { flush(); res = $0; gsub(/\t/, " ", res); next }
	res != "" && /^#/ && nd < 4 {
		d = $0; sub(/^#[ \t]*/, "", d); gsub(/\t/, " ", d)
		diag = diag (nd++ ? " | " : "") d; next
	}
	{ if (res != "") { nd = 4 } }
	END { flush() }' "$1"
}

# count_tap LOG PREFIX: every "ok N name"/"not ok N name" line is one
# test; a failure carries its diagnostics
count_tap()
{
	local line diag
	while IFS=$'\t' read -r line diag; do
		case "$line" in
		"not ok "*) result fail "$2: ${line#not ok }" "$diag" ;;
		"ok "*) result ok "$2: ${line#ok }" ;;
		esac
	done < <(tap_results "$1")
}

# tap_run NAME PREFIX CMD...: run a TAP-printing test into $logs/NAME.log;
# each of its lines counts, and a non-zero exit without a failed line is
# one failure of the harness.
tap_run()
{
	local log="$logs/$1.log" prefix=$2 rc
	shift 2
	"$@" >"$log" 2>&1
	rc=$?
	count_tap "$log" "$prefix"
	[ "$rc" -eq 0 ] || grep -aq '^not ok' "$log" ||
		result fail "$prefix: harness exit $rc ($log)"
}

# kselftest K LOG WHERE: the core's kselftests in a guest of kernel K
# (tools/lab/kselftest.py), its output to LOG; every guest test case
# counts ("lab: P passed, F failed, S skipped"), a failed run without a
# failed case is one failure; WHERE: its outputs, for the failure list.
kselftest()
{
	local k=$1 log=$2 lab_rc p f
	python3 tools/lab/kselftest.py "$k" 2>&1 | tee "$log"
	lab_rc=${PIPESTATUS[0]}
	read -r p f < <(sed -n 's/^lab: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' \
		"$log" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	[ "${f:-0}" -eq 0 ] || failures+=("kselftest on $k: $f failed ($3)")
	if [ "$lab_rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		result fail "kselftest on $k: lab exit status $lab_rc"
	fi
}
