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
		[ -z "${3:-}" ] || echo "      $3"
	fi
}

# step NAME CMD...: one test whose log goes to $logs/NAME.log (NAME with
# anything but letters, digits, ".", "_" and "-" made "_"); returns
# non-zero when it failed
step()
{
	local name=$1 base=${1//[^A-Za-z0-9._-]/_}
	shift
	"$@" >"$logs/$base.log" 2>&1
	echo $? >"$logs/$base.rc"
	rc_count "$base" "$name"
}

# rc_count BASE NAME: one result, NAME, from $logs/BASE.rc (an exit
# status); a failure shows the end of $logs/BASE.log.  Returns non-zero
# when it failed.
rc_count()
{
	local rc
	rc=$(cat "$logs/$1.rc" 2>/dev/null) || rc=
	if [ "$rc" = 0 ]; then
		result ok "$2"
	else
		result fail "$2"
		tail -n 25 "$logs/$1.log" 2>/dev/null | sed 's/^/    /'
		return 1
	fi
}

# meanwhile BASE CMD...: start CMD in the background, its output to
# $logs/BASE.log and its exit status to $logs/BASE.rc, beside steps that
# leave a core idle; `wait_for BASE`, then count it (rc_count,
# tap_count_run).
declare -A meanwhile_pid
meanwhile()
{
	local base=$1
	shift
	("$@" >"$logs/$base.log" 2>&1; echo $? >"$logs/$base.rc") &
	meanwhile_pid[$base]=$!
}

wait_for()
{
	wait "${meanwhile_pid[$1]}"
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

# tap_run NAME PREFIX CMD...: run a TAP-printing test into $logs/NAME.log
# and count it (tap_count_run)
tap_run()
{
	local name=$1 prefix=$2
	shift 2
	"$@" >"$logs/$name.log" 2>&1
	echo $? >"$logs/$name.rc"
	tap_count_run "$name" "$prefix"
}

# tap_count_run NAME PREFIX: count $logs/NAME.log, a test's TAP output,
# and $logs/NAME.rc, its exit status: each of its lines counts, and a
# non-zero exit (or none recorded) without a failed line is one failure
# of the harness.
tap_count_run()
{
	local log="$logs/$1.log" rc
	rc=$(cat "$logs/$1.rc" 2>/dev/null) || rc=
	[ -e "$log" ] && count_tap "$log" "$2"
	[ "$rc" = 0 ] || grep -aq '^not ok' "$log" 2>/dev/null ||
		result fail "$2: harness exit ${rc:-unknown: not run} ($log)"
}

# section NAME: a line "== [elapsed] NAME", after a line giving the time
# the section before it took; section_end closes the last one.  The
# elapsed time counts from check_start.
check_start()
{
	check_t0=$SECONDS
	section_name=
}

section_end()
{
	[ -n "${section_name:-}" ] || return 0
	printf -- '-- %s: %s\n' "$section_name" \
		"$(duration $((SECONDS - section_t0)))"
	section_name=
}

section()
{
	section_end
	section_name=$1
	section_t0=$SECONDS
	printf '== [%s] %s\n' "$(duration $((SECONDS - ${check_t0:-0})))" "$1"
}

# duration SECONDS: "12 min 05 s"
duration()
{
	printf '%d min %02d s' $(($1 / 60)) $(($1 % 60))
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
