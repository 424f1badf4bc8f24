# SPDX-License-Identifier: GPL-2.0
#
# The pieces `make check` (tools/check.sh) and `make check-debug`
# (tools/check-debug.sh) count their results with.  Source it after
# setting $logs (the directory of the per-step logs).

passed=0
failed=0
failures=()

result() # ok|fail name
{
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		failures+=("$2")
		echo "not ok - $2"
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

# count_tap LOG PREFIX: every "ok N name"/"not ok N name" line is one test
count_tap()
{
	local line
	while read -r line; do
		case "$line" in
		"not ok "*) result fail "$2: ${line#not ok }" ;;
		"ok "*) result ok "$2: ${line#ok }" ;;
		esac
	done < <(grep -aE '^(not )?ok [0-9]+ ' "$1")
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
