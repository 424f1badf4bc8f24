#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: the project's code on the lab's debug kernel
# (6.12-debug: Debian's 6.12 with KASAN, lockdep/PROVE_RCU, DEBUG_ATOMIC_SLEEP,
# DEBUG_NET, KFENCE, DEBUG_OBJECTS, UBSAN, kmemleak, fault injection; see
# tools/lab/build-debug-kernel.sh), where the bar is zero reports.
#
#  1. tools/lab/setup.sh, then the debug kernel: built if absent (about
#     52 min on two cores the first time; a no-op once cached);
#  2. our modules against its build tree, W=1 C=1, no warning allowed
#     (tools/lab/build-modules.sh 6.12-debug);
#  3. the core kselftests in a guest of it (tools/lab/kselftest.py
#     6.12-debug, the code path make check uses for 6.1 and 6.12); the
#     guest's /init ends with a kmemleak scan;
#  4. the guest's console log scanned: one result per kind of report
#     (KASAN, KFENCE, lockdep, RCU, sleep in atomic, UBSAN, ODEBUG, kmemleak,
#     any other WARNING, e.g. DEBUG_NET's, and any other BUG/Oops); each
#     report found is printed whole and kept in build/check-debug/splats.txt.
#  5. tools/testing/selftests/net/dbbatch/kernel_faults.py: failslab and fail_page_alloc
#     aimed at igc_batch and at octep_fix while they forward and change
#     their rings (the lab generator's traffic), then lossless forwarding
#     and kmemleak, the consoles scanned as in 4;
#  6. with CHECK_DEBUG_LAB=1, also the drivers' host-driven lab tests
#     (igc_batch_lab.py, octep_fix_lab.py: traffic through the models) on
#     the debug kernel, their checks counted and each guest console
#     scanned as in 4.  Off by default: slow under TCG.
#
# Ends with "N passed, N failed"; exits non-zero if anything failed.
# LAB_TIMEOUT (default here 1800 s) bounds each guest: a KASAN+lockdep
# kernel under TCG boots and runs several times slower than Debian's.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
logs=$repo/build/check-debug
rm -rf "$logs"
mkdir -p "$logs"
export LAB_TIMEOUT=${LAB_TIMEOUT:-1800}
export LAB_OUT=$logs/lab
K=6.12-debug

. "$repo/tools/lib/check-lib.sh"

finish()
{
	echo
	if [ "$failed" -ne 0 ]; then
		echo "Failed:"
		printf '  %s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

echo "== setup and the debug kernel"
step "setup" tools/lab/setup.sh || finish
start=$(date +%s)
step "debug kernel $K built (or cached)" tools/lab/build-debug-kernel.sh || finish
[ $(($(date +%s) - start)) -lt 60 ] ||
	echo "    (built in $(($(date +%s) - start)) s; see $logs/debug_kernel_*.log)"
. tools/lab/lib/common.sh
kver=$(lab_kernel_release "$K") || finish
info=$(lab_kernel_dir "$kver")/dbb-debug-info
[ ! -f "$info" ] || sed -n 's/^build seconds: /    kernel build time: /p' "$info"

echo "== $kver: build (W=1 C=1)"
mods=$repo/build/modules/$kver
step "build W=1 C=1: $kver" tools/lab/build-modules.sh "$kver" "$mods" || finish

echo "== kselftests in a guest of $kver"
kselftest "$K" "$logs/kselftest.log" "$LAB_OUT/$kver/"

# --- the console scan -------------------------------------------------
# KIND|ERE pairs; a line counts for the first kind it matches, so the
# catch-alls (WARNING, BUG) come last.
KINDS=(
	"KASAN|BUG: KASAN:"
	"KFENCE|BUG: KFENCE:"
	"lockdep|possible circular locking|WARNING: possible|inconsistent lock state|possible recursive locking|bad unlock balance|held lock freed|lock held when returning|BUG: MAX_LOCKDEP|DEBUG_LOCKS_WARN_ON|BUG: lock held|BUG: key .* has not been registered"
	"RCU|suspicious RCU usage|rcu: INFO: .* detected stalls|rcu_.* detected stalls"
	"sleep in atomic|BUG: sleeping function called from invalid context|BUG: scheduling while atomic|BUG: using smp_processor_id\(\) in preemptible|BUG: using __this_cpu_.* in preemptible"
	"UBSAN|UBSAN:"
	"ODEBUG|ODEBUG:"
	"kmemleak|unreferenced object 0x|new suspected memory leak"
	"refcount|refcount_t:|unregister_netdevice: waiting for"
	"WARNING (DEBUG_NET and others)|WARNING:"
	"BUG/Oops|BUG:|Oops|general protection fault|Kernel panic"
)

# splat CONSOLE LINE: the report starting at LINE, up to its end marker
# (---[ end trace ]--- or KASAN's ===== line), at most 80 lines
splat()
{
	sed -n "$2,$(($2 + 80))p" "$1" | sed '/^\[.*\] ---\[ end trace\|^\[.*\] ====*$/q'
}

# scan CONSOLE WHAT [lab]: one result per kind; the splats to splats.txt
scan()
{
	local console=$1 what=$2 kind ere line n all=() i
	if [ ! -s "$console" ]; then
		result fail "$what: no console log ($console)"
		return
	fi
	# The guest must have run the debug kernel with its checkers on (a
	# lab router guest has no final kmemleak scan: mode "lab"; it boots
	# with loglevel=5, so the banner is only in the dmesg.txt it keeps).
	local logs_of=("$console")
	[ ! -f "${console%/*}/dmesg.txt" ] || logs_of+=("${console%/*}/dmesg.txt")
	if ! cat "${logs_of[@]}" | grep -aq 'KernelAddressSanitizer initialized'; then
		result fail "$what: no KASAN banner in ${logs_of[*]}"
	elif [ "${3:-}" = lab ]; then
		result ok "$what: ran with KASAN"
	elif grep -aq 'lab: kmemleak: [0-9]* suspected leaks' "$console"; then
		result ok "$what: ran with KASAN and a final kmemleak scan"
	else
		result fail "$what: no final kmemleak scan in $console"
	fi
	for i in "${!KINDS[@]}"; do
		kind=${KINDS[$i]%%|*}
		ere=${KINDS[$i]#*|}
		# lines of this kind not already claimed by an earlier kind
		mapfile -t hits < <(grep -anE "$ere" "$console" | while IFS= read -r line; do
			n=${line%%:*}
			[[ " ${all[*]} " == *" $n "* ]] || echo "$line"
		done)
		for line in "${hits[@]}"; do all+=("${line%%:*}"); done
		if [ ${#hits[@]} -eq 0 ]; then
			result ok "$what: no $kind report"
			continue
		fi
		result fail "$what: $kind: ${#hits[@]} report line(s), first: ${hits[0]#*:}"
		for line in "${hits[@]}"; do
			n=${line%%:*}
			{
				echo "==== $what: $kind, $console line $n"
				splat "$console" "$n"
			} >>"$logs/splats.txt"
		done
		splat "$console" "${hits[0]%%:*}" | head -n 40 | sed 's/^/    /'
	done
}

echo "== reports in the console log"
scan "$LAB_OUT/$kver/console.log" "kselftest guest"

# The kernel's fault injection (failslab, fail_page_alloc) aimed at each
# driver's allocations while it forwards and changes its rings; kmemleak
# after.  Its consoles are scanned like the others.
echo "== failslab and fail_page_alloc in igc_batch and octep_fix on $kver"
tap_run kernel_faults "kernel faults" \
	python3 tools/testing/selftests/net/dbbatch/kernel_faults.py --kernel "$K" \
	--modules-6.12-debug "$mods" --keep "$logs/kernel_faults"
while read -r console; do
	scan "$console" "${console#"$logs"/}" lab
done < <(find "$logs/kernel_faults" -name console.log 2>/dev/null | sort)

if [ -n "${CHECK_DEBUG_LAB:-}" ]; then
	# The drivers under traffic: each test's checks count, and every
	# guest console it kept is scanned like the kselftest guest's.
	echo "== igc_batch and octep_fix lab tests on $kver (traffic, ground truth)"
	tap_run igc_batch_lab "igc_batch lab" \
		python3 tools/testing/selftests/net/dbbatch/igc_batch_lab.py \
		--kernel "$K" --modules "$mods" --keep "$logs/igc_batch_lab"
	tap_run octep_fix_lab "octep_fix lab" \
		python3 tools/testing/selftests/net/dbbatch/octep_fix_lab.py --kernel "$K" \
		--modules-6.12-debug "$mods" --keep "$logs/octep_fix_lab"
	while read -r console; do
		scan "$console" "${console#"$logs"/}" lab
	done < <(find "$logs/igc_batch_lab" "$logs/octep_fix_lab" -name console.log 2>/dev/null | sort)
fi

[ ! -s "$logs/splats.txt" ] || echo "reports, whole: $logs/splats.txt"
finish
