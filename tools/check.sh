#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test of the project, from a fresh Debian 12 machine.
# Installs what it needs (tools/lab/setup.sh), then runs: the user-space
# unit tests and a bounded fuzz run of the pure policy, the lab library's
# own tests, checkpatch --strict on our kernel C, W=1 C=1 module builds,
# upstream octeon_ep's build and a DKMS build for each Debian kernel, our
# QEMU with the models and their qtests, the core's kselftests in a guest
# of each kernel, then every host-driven test of
# tools/testing/selftests/net/dbbatch/ as its LAB_CHECK says.  Ends with
# one line "N passed, N failed"; exits non-zero if anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
logs=$repo/build/check
mkdir -p "$logs"
FUZZ_SECONDS=${FUZZ_SECONDS:-45}
KERNELS=${KERNELS:-"6.1 6.12"}
# PREEMPT_RT: the core's kselftests and the tests whose LAB_CHECK names
# "rt" (igc_batch's lab test, threaded NAPI); KERNELS_RT= skips them
KERNELS_RT=${KERNELS_RT-"6.12-rt"}

. "$repo/tools/lib/check-lib.sh"
# Guest tests at once (tools/lab/selftests.py run --jobs)
CHECK_JOBS=${CHECK_JOBS:-2}

check_start
section "setup"
if ! tools/lab/setup.sh >"$logs/setup.log" 2>&1; then
	tail -n 5 "$logs/setup.log"
	echo "check: setup failed; see $logs/setup.log"
	echo "0 passed, 1 failed"
	exit 2
fi
. tools/lab/lib/common.sh
# An unknown kernel is a usage error, found before anything runs.
declare -A KVER
for k in $KERNELS $KERNELS_RT; do
	KVER[$k]=$(lab_kernel_release "$k") || exit 2
done
# What the rest should take: the host part as this machine last took it
# (or a first guess), the guest tests from their last times here
# (tools/lab/selftests.py expect)
host_times=$CACHE/check-host-seconds
host_s=$(cat "$host_times" 2>/dev/null) || host_s=600
guest_s=$(python3 tools/lab/selftests.py expect --kernels "$KERNELS" \
	--rt "$KERNELS_RT" --jobs "$CHECK_JOBS") || guest_s=0
echo "check: expected about $(duration $((host_s + guest_s))) from here" \
	"(host part $(duration "$host_s"), guest tests $(duration "$guest_s"))"
host_t0=$SECONDS

section "unit tests (user space)"
make -s -C tests/unit run >"$logs/unit.log" 2>&1
unit_rc=$?
count_tap "$logs/unit.log" unit
[ "$unit_rc" -eq 0 ] || grep -q '^not ok' "$logs/unit.log" ||
	result fail "unit: build or run ($logs/unit.log)"

section "lab traffic generator and sink (host, loopback)"
make -s -C tools/lab/traffic test >"$logs/traffic.log" 2>&1
traffic_rc=$?
count_tap "$logs/traffic.log" traffic
[ "$traffic_rc" -eq 0 ] || grep -q '^not ok' "$logs/traffic.log" ||
	result fail "traffic: build or run ($logs/traffic.log)"

# The fuzzers (one core) and nic-switch's test (mostly waiting) run
# beside the host-only tests and checkpatch, which use one core.
section "lab harness (host); fuzz (${FUZZ_SECONDS}s a target, libFuzzer + ASan/UBSan) beside it"
meanwhile fuzz make -s -C tests/unit fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
# nic-switch.sh (moving ports between upstream drivers and ours) on a
# fake sysfs
meanwhile nic_switch bash tools/lab/tests/test_nic_switch.sh
tap_run labvm "lab harness" python3 tools/lab/tests/test_labvm.py
tap_run pcie_model "PCIe and cycles models" python3 tools/lab/tests/test_pcie.py
tap_run insn_profile "instruction profile and fit" python3 tools/lab/tests/test_insnprof.py
# rows.py, traffic.py, router.options() and guest/router.sh (fake tools)
tap_run lab_rows "lab rows and provisioning" python3 tools/lab/tests/test_rows.py
# how this script counts a TAP log and lists a failure with its figures
tap_run check_lib "check counting" bash tools/lab/tests/test_check_lib.sh
# how make check shares the host between guest tests (tools/lab/jobs.py)
tap_run jobs "guest test scheduling" python3 tools/lab/tests/test_jobs.py

section "checkpatch --strict"
checkpatch=$CACHE/src/linux-source-6.1/scripts/checkpatch.pl
while read -r f; do
	step "checkpatch: $f" perl "$checkpatch" --strict --no-tree --quiet -f "$f"
done < <(git ls-files '*.c' '*.h' ':!tests/unit' ':!tools/lab')

wait_for fuzz
rc_count fuzz "fuzz: policy for ${FUZZ_SECONDS}s"
wait_for nic_switch
tap_count_run nic_switch "nic-switch"

for k in $KERNELS; do
	kver=${KVER[$k]}
	section "$kver: build (W=1 C=1), upstream octeon_ep, DKMS"
	step "build W=1 C=1: $kver" tools/lab/build-modules.sh "$kver" "$repo/build/modules/$kver"
	# Upstream's own driver, the peer of octep_fix (cached once built)
	step "octeon_ep (upstream) builds: $kver" tools/lab/build-octeon-ep.sh "$kver"
	step "dkms: $kver" tools/dkms-check.sh "$kver"
done

section "QEMU with the models (dbb-igc, dbb-octep): QEMU's checkpatch, qtest"
qemu_ok=
if step "qemu: build QEMU 7.2 with dbb-igc and dbb-octep" tools/lab/qemu/build.sh; then
	qemu_ok=1
	# The model follows QEMU's coding style, checked by QEMU's own script.
	qcheckpatch=$CACHE/qemu/work/src/scripts/checkpatch.pl
	for f in tools/lab/qemu/dbb_*.[ch]; do
		step "qemu checkpatch: $f" perl "$qcheckpatch" --no-tree -q -f "$f"
	done
	tap_run qtest qtest tools/lab/qemu/tests/run.sh
fi

section "kselftests in QEMU guests"
for k in $KERNELS; do
	kselftest "$k" "$logs/kselftest-$k.log" build/lab/
done
# PREEMPT_RT: our modules built W=1 C=1 and the core's kselftests (its
# host-driven tests run in the directory's plan below)
for k in $KERNELS_RT; do
	kver=${KVER[$k]}
	section "$kver (PREEMPT_RT): build (W=1 C=1), kselftests"
	step "build W=1 C=1: $kver" tools/lab/build-modules.sh "$kver" \
		"$repo/build/modules/$kver" &&
		kselftest "$k" "$logs/kselftest-$k.log" build/lab/
done

# Every host-driven test of tools/testing/selftests/net/dbbatch/, as its
# LAB_CHECK says (tools/lab/selftests.py): the models' conformance with
# the upstream drivers, forwarding, igc_batch's and octep_fix's lab tests,
# the kernel's drivers/net selftests, register parity, make report's
# smoke run.  Each guest counts its checks against the models' ground
# truth.
# Two at a time where they can share the host (a guest is one host
# thread), alone where their checks judge rates or time from the host
# (LAB_CHECK's "alone"); a line as each starts and ends.
if [ -n "$qemu_ok" ]; then
	args=(--kernels "$KERNELS" --rt "$KERNELS_RT")
	if plan=$(python3 tools/lab/selftests.py plan "${args[@]}"); then
		host_s=$((SECONDS - host_t0))
		echo "$host_s" >"$host_times" 2>/dev/null
		section "host-driven selftests, $CHECK_JOBS at a time"
		python3 tools/lab/selftests.py run "${args[@]}" \
			--jobs "$CHECK_JOBS" --logs "$logs"
		while IFS=$'\t' read -r log label header _ <&3; do
			[ -n "$log" ] || continue
			echo "== $header"
			tap_count_run "$log" "$label"
		done 3<<<"$plan"
	else
		result fail "selftests plan (tools/lab/selftests.py)"
	fi
else
	result fail "host-driven selftests: not run, QEMU did not build"
fi

section_end
echo "check: $(duration $((SECONDS - check_t0))) in all"
echo
if [ "$failed" -ne 0 ]; then
	echo "Failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
