#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The dbbatch core in a running kernel: the in-kernel test module's KTAP
# (fake queues that count their own tail writes), the debugfs counters
# against what that module did, and a clean unload with no warning or
# taint beyond an out-of-tree module's.

DIR=$(dirname "$(readlink -f "$0")")
. "$DIR/ktap.sh"

STATS=/sys/kernel/debug/dbbatch/stats
# Taint flags an out-of-tree, unsigned module may add: O (4096), E (8192).
TAINT_OK=$((4096 | 8192))

[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
modinfo dbbatch >/dev/null 2>&1 || ktap_skip_all "dbbatch module not installed"
grep -qs " /sys/kernel/debug " /proc/mounts || mount -t debugfs none /sys/kernel/debug

# total_of COLUMN: the total row's value of a stats column
total_of()
{
	awk -v col="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i }
		$1 == "total" { print $c }' "$STATS"
}

ktap_header 28
dmesg_start=$(dmesg | wc -l)

modprobe dbbatch
ktap_result $? "core_module_loads"

[ -r "$STATS" ] && head -n1 "$STATS" | grep -q "rings_saved"
ktap_result $? "debugfs_stats_present"

before_left=$(total_of left_open)
before_refused=$(total_of refused_opens)
before_bad=$(total_of bad_calls)

modprobe test_dbbatch
load=$?
# The module's own KTAP, one line per case, as our results.
cases=$(dmesg | tail -n +"$((dmesg_start + 1))" |
	sed -n 's/^\[[^]]*\] //; /^\(not \)\?ok [0-9]* [a-z_]*$/p')
n=0
while read -r line; do
	[ -n "$line" ] || continue
	n=$((n + 1))
	name=${line##* }
	case "$line" in
	ok*) ktap_result 0 "test_dbbatch.$name" ;;
	*) ktap_result 1 "test_dbbatch.$name" ;;
	esac
done <<< "$cases"
# Every case the module's plan line announced reported a result.
plan=$(dmesg | tail -n +"$((dmesg_start + 1))" |
	sed -n 's/^\[[^]]*\] //; s/^1\.\.\([0-9]*\)$/\1/p' | tail -n 1)
[ "$load" -eq 0 ] && [ "${plan:-0}" -eq 26 ] && [ "$n" -eq "$plan" ]
ktap_result $? "test_dbbatch_loads_and_reports_all_cases" "load=$load plan=$plan cases=$n"

# The module left three batches open on purpose (one inside another, one
# orphaned by a close from another CPU, one made an orphan at the top of a
# full stack), opened four where an open must be refused (one of them a
# pass's delivery outside a NAPI poll) and made four bad calls (three
# foreign closes, an LLTX queue): the counters must say so, no more.
left=$(($(total_of left_open) - before_left))
refused=$(($(total_of refused_opens) - before_refused))
bad=$(($(total_of bad_calls) - before_bad))
[ "$left" -eq 3 ] && [ "$refused" -eq 4 ] && [ "$bad" -eq 4 ]
ktap_result $? "counters_match_test_module" "left_open=$left refused_opens=$refused bad_calls=$bad"

# The per-CPU rows add up to the total in every raw column (a hold that
# crosses CPUs makes per-CPU rings_saved meaningless, so not that one).
awk 'NR == 1 { for (i = 2; i <= NF; i++) if ($i == "rings_saved") skip = i; next }
	$1 == "total" { for (i = 2; i <= NF; i++) if (i != skip && t[i] != $i) bad = 1; next }
	{ for (i = 2; i <= NF; i++) t[i] += $i }
	END { exit bad }' "$STATS"
ktap_result $? "percpu_rows_sum_to_total"

# A failed load leaves no test_dbbatch behind; dbbatch must always go.
{ ! grep -q "^test_dbbatch " /proc/modules || rmmod test_dbbatch; } && rmmod dbbatch
ktap_result $? "modules_unload"

# The deliberate left-open case reports itself with pr_err, not a WARN.
unexpected=$(dmesg | tail -n +"$((dmesg_start + 1))" |
	grep -cE "WARNING:|BUG:|Oops|Call Trace")
[ "$unexpected" -eq 0 ]
ktap_result $? "no_kernel_warnings" "$unexpected warning lines"

tainted=$(cat /proc/sys/kernel/tainted)
[ $((tainted & ~TAINT_OK)) -eq 0 ]
ktap_result $? "no_taint_beyond_out_of_tree" "tainted=$tainted"

ktap_finish
