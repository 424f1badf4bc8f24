#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-igc-batch.sh [KERNEL...] - the side-by-side forwarding benchmark:
# upstream igc and igc_batch's three doorbell settings, on the same
# emulated I226 (dbb-igc) and the same kernel, each run ONE guest boot with
# every configuration in it (router.py unloads and loads the driver between
# them).  NOT a test: it prints numbers and keeps every run's files.
#
# Configurations (CONFIGS, in this order by default):
#   igc         Debian's upstream igc.ko (the baseline of every ratio)
#   off         igc_batch db_skip_empty=0 tx_db_batched=0 (rings as igc)
#   skip-empty  igc_batch db_skip_empty=1 tx_db_batched=0
#   batched     igc_batch db_skip_empty=1 tx_db_batched=1
#
# Runs per kernel (default 6.1 6.12), RUNS (default "wall nobql"):
#   wall   multi-threaded TCG, stack forwarding then XDP_REDIRECT, BQL on;
#          each a load ramp until 2 steps in a row lose more than 1 %;
#   nobql  the same for stack forwarding only, port B's byte queue limits
#          out of the way (--bql off): at saturation BQL stops the queue and
#          the qdisc then bulk-dequeues with xmit_more, which lowers
#          upstream igc's doorbell count; without it upstream rings 1.000;
#   insn   (not by default) stack and XDP on single-threaded TCG with the
#          guest instruction counter: instructions per forwarded frame.
# Every ramp starts at 2k and 20k pps: the fixed-rate rows (below
# saturation) of the summary.  Port A's RSS is the same for every
# configuration (router.py --rss same: UDP ports hashed, round-robin
# table): the drivers' indirection tables differ by default, and with UDP
# hashed on addresses only (both defaults) dbb-gen's bursts land whole on
# one queue, which halves interrupts, polls and XDP doorbells per frame.
#
# Per step (router.py): forwarded rate, loss, port B's TX tail (TDT) writes
# and no-op TDT writes per forwarded frame (the model's ground truth), guest
# CPU busy.  The summary (bench-summary.py --side-by-side): per kernel, run,
# mode and configuration the saturation rate (highest forwarded rate with
# loss <= 1 %), TDT writes per frame at 2k, 20k and at saturation, no-op
# writes per frame, CPU busy at 20k, and the ratios to upstream igc of the
# same boot; $OUT/summary.txt, and $OUT/summary.rst, the table to paste
# into Documentation/networking/device_drivers/ethernet/intel/igc_batch.rst.
#
# Every number is EMULATED (QEMU TCG on a shared 2-core VM): compare the
# configurations of one run, never with hardware figures.
#
# Environment:
#   OUT           run files (default build/bench/<date>-batch)
#   CONFIGS       subset/order of "igc off skip-empty batched"
#   RUNS          "wall nobql" (any of wall, nobql, insn)
#   STACK_STEPS   stack ramp (default 2k,20k,30k,35k,40k,45k,50k,55k,60k,70k,80k)
#   XDP_STEPS     XDP ramp (default 2k,20k,40k,60k,70k,80k,90k,100k,120k)
#   STEPS         one ramp for both modes (overrides the two above)
#   STEP_SECONDS  seconds per step (default 3)
#   MODULES       directory with dbbatch.ko and igc_batch.ko for the kernel;
#                 "%k" in it is replaced by the kernel argument (e.g.
#                 MODULES=/tmp/bench-ko-%k); default: built once per kernel
#                 with build-modules.sh into $OUT/modules/<kernel>, in a
#                 private build tree ($CACHE/bench-build)
#   FIXED, CPU_AT the summary's fixed rates (2k,20k) and CPU-busy rate (20k)
#   ROUTER_ARGS   more router.py options, shell-quoted
#
#   tools/lab/bench-igc-batch.sh                      # both kernels
#   MODULES=/tmp/bench-ko-%k tools/lab/bench-igc-batch.sh 6.1
#   CONFIGS="igc batched" RUNS=wall STEPS=5k,20k STEP_SECONDS=2 \
#       tools/lab/bench-igc-batch.sh 6.1              # a quick look
#   tools/lab/bench-summary.py --side-by-side [--rst] OUT 6.1 6.12
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
OUT=${OUT:-$repo/build/bench/$(date +%Y%m%d-%H%M%S)-batch}
read -r -a configs <<<"${CONFIGS:-igc off skip-empty batched}"
read -r -a runs <<<"${RUNS:-wall nobql}"
STACK_STEPS=${STEPS:-${STACK_STEPS:-2k,20k,30k,35k,40k,45k,50k,55k,60k,70k,80k}}
XDP_STEPS=${STEPS:-${XDP_STEPS:-2k,20k,40k,60k,70k,80k,90k,100k,120k}}
STEP_SECONDS=${STEP_SECONDS:-3}
FIXED=${FIXED:-2k,20k}
CPU_AT=${CPU_AT:-20k}

die() {
	echo "bench-igc-batch: $*" >&2
	exit 2
}

[ ${#configs[@]} -gt 0 ] || die "CONFIGS is empty"
cfg_args=()
need_ko=
for c in "${configs[@]}"; do
	case $c in
	igc) cfg_args+=(--driver igc --label "igc (upstream)") ;;
	off) cfg_args+=(--driver igc_batch --driver-params 'db_skip_empty=0 tx_db_batched=0' --label "igc_batch off") ;;
	skip-empty) cfg_args+=(--driver igc_batch --driver-params 'db_skip_empty=1 tx_db_batched=0' --label "igc_batch skip-empty") ;;
	batched) cfg_args+=(--driver igc_batch --driver-params 'db_skip_empty=1 tx_db_batched=1' --label "igc_batch batched") ;;
	*) die "unknown configuration '$c' in CONFIGS (igc off skip-empty batched)" ;;
	esac
	[ "$c" = igc ] || need_ko=1
done
for r in "${runs[@]}"; do
	case $r in
	wall | nobql | insn) ;;
	*) die "unknown run '$r' in RUNS (wall nobql insn)" ;;
	esac
done
# Rates need both host cores: multi-threaded TCG (a boot may die of its
# int3 text-patching fault: labvm.py DEFAULT_ACCEL; ROUTER_ARGS can say
# --accel tcg,thread=single).
extra_args=(--accel tcg,thread=multi)
[ -z "${ROUTER_ARGS:-}" ] || eval "extra_args+=($ROUTER_ARGS)"

mkdir -p "$OUT"
exec > >(tee -a "$OUT/bench.log") 2>&1
qemu=$("$here/qemu/build.sh" | tail -n1)
t_all=$(date +%s)

echo "== bench-igc-batch: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), host kernel $(uname -r)"
echo "   EMULATED: QEMU TCG guests on the dbb-igc model; every number compares configurations of one boot"
echo "   kernels: ${kernels[*]}; configurations: ${configs[*]}; runs: ${runs[*]}"
echo "   stack ramp $STACK_STEPS, XDP ramp $XDP_STEPS, $STEP_SECONDS s a step; out: $OUT"

# modules_for K: the directory of our *.ko for kernel K.
modules_for() {
	local k=$1 dir
	if [ -n "${MODULES:-}" ]; then
		dir=${MODULES//%k/$k}
		[ -e "$dir/igc_batch.ko" ] || die "MODULES: no igc_batch.ko in $dir"
	else
		dir=$OUT/modules/$k
		# A private build tree: build-modules.sh wipes $CACHE/build/<kver>,
		# which another lab run may be using.
		DBBATCH_CACHE=${DBBATCH_CACHE:-/var/cache/dbbatch}/bench-build \
			"$here/build-modules.sh" "$k" "$dir" >&2 ||
			die "module build for $k failed: see $dir/build.log"
	fi
	echo "$dir"
}

failed=0
for k in "${kernels[@]}"; do
	mod_args=()
	if [ -n "$need_ko" ]; then
		mod_args=(--modules "$(modules_for "$k")")
		echo "== $k: modules from ${mod_args[1]}"
	fi
	for run in "${runs[@]}"; do
		case $run in
		wall) args=(--mode "stack,xdp" --mode-steps "stack=$STACK_STEPS" --mode-steps "xdp=$XDP_STEPS") ;;
		insn) args=(--mode "stack,xdp" --mode-steps "stack=$STACK_STEPS" --mode-steps "xdp=$XDP_STEPS" --insn) ;;
		nobql) args=(--mode stack --steps "$STACK_STEPS" --bql off) ;;
		esac
		args+=(--step-seconds "$STEP_SECONDS" --until-loss 1 --loss-steps 2 --rss same)
		echo "== $k $run: load $(cut -d' ' -f1-3 /proc/loadavg): router.py ${args[*]} ${mod_args[*]} ${extra_args[*]} (${#configs[@]} configurations)"
		t0=$(date +%s)
		if ! python3 "$here/router.py" --kernel "$k" --qemu "$qemu" "${args[@]}" \
			"${mod_args[@]}" "${cfg_args[@]}" "${extra_args[@]}" \
			--out "$OUT/$k-$run" 2>&1 | grep -v '^# /' | tee "$OUT/$k-$run.txt"; then
			echo "   router.py failed: see $OUT/$k-$run.txt and $OUT/$k-$run/"
			failed=$((failed + 1))
		fi
		echo "   ($(($(date +%s) - t0)) s; load $(cut -d' ' -f1-3 /proc/loadavg))"
	done
done

sum=(python3 "$here/bench-summary.py" --side-by-side --fixed "$FIXED" --cpu-at "$CPU_AT" "$OUT" "${kernels[@]}")
"${sum[@]}" | tee "$OUT/summary.txt" || failed=$((failed + 1))
"${sum[@]}" --rst >"$OUT/summary.rst" || failed=$((failed + 1))
echo "== RST table for igc_batch.rst (\"Side by side\"): $OUT/summary.rst"
cat "$OUT/summary.rst"
echo "== bench-igc-batch done in $(($(date +%s) - t_all)) s, $failed failure(s); files in $OUT"
[ "$failed" -eq 0 ]
