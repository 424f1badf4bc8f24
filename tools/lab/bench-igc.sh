#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-igc.sh [KERNEL...] - the lab's forwarding benchmark, upstream igc
# on dbb-igc: the first row of the side-by-side table.  NOT a test: it
# prints numbers (and keeps every run's files under $OUT).
#
#   1. the host tools' ceiling: tools/lab/traffic/bench.sh direct (dbb-gen
#      -> dbb-sink over loopback), and bench.sh qemu (through a guest-less
#      QEMU's two dgram ports) with net.core.rmem_default raised as
#      router.py raises it;
#   2. per kernel (default: 6.1 6.12), three boots of tools/lab/router.py,
#      each a load ramp until loss (2 steps in a row above 1 %):
#        wall:  stack, then XDP_REDIRECT; multi-threaded TCG: guest boot
#               time, forwarding rate at saturation, TDT writes per
#               forwarded frame there;
#        insn:  the same on single-threaded TCG with the dbb_insn.so plugin
#               (and QEMU's libinsn.so to cross-check the total at exit):
#               guest instructions per forwarded frame per step;
#        nobql: stack only, insn, byte queue limits out of the way;
#   3. a summary table (also $OUT/summary.txt).
#
# Every number is EMULATED (QEMU TCG on a shared 2-core VM): compare
# configurations measured the same way, never with hardware figures.
#
# Environment: OUT (default build/bench/<date>), STEPS (the ramp, default
# 10k,20k,30k,40k,50k,60k,80k,100k,120k,150k,200k), STEP_SECONDS (3),
# ROUTER_ARGS (more router.py options, shell-quoted, e.g. "--modules DIR
# --driver igc --driver igc_batch --driver-params 'tx_db_batched=1'" for
# more rows), SKIP_CEILING=1 (skip step 1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
OUT=${OUT:-$repo/build/bench/$(date +%Y%m%d-%H%M%S)}
STEPS=${STEPS:-10k,20k,30k,40k,50k,60k,80k,100k,120k,150k,200k}
STEP_SECONDS=${STEP_SECONDS:-3}
mkdir -p "$OUT"
qemu=$("$here/qemu/build.sh" | tail -n1)
t_all=$(date +%s)

echo "== bench-igc: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), host kernel $(uname -r)"
echo "   out: $OUT"

if [ -z "${SKIP_CEILING:-}" ]; then
	echo "== host tools' ceiling: traffic/bench.sh direct 300k,600k,1.2M 3"
	"$here/traffic/bench.sh" direct 300k,600k,1.2M 3 2>&1 | grep -v '^{' | tee "$OUT/ceiling-direct.txt"
	echo "== through a guest-less QEMU (dgram -> hub -> dgram), rmem_default 4 MiB: bench.sh qemu 50k,100k,150k 3"
	saved=$(cat /proc/sys/net/core/rmem_default)
	trap 'echo "$saved" >/proc/sys/net/core/rmem_default' EXIT
	echo $((4 << 20)) >/proc/sys/net/core/rmem_default
	# bench.sh starts QEMU, then the tools; QEMU's sockets take the raised
	# default, the sink sets its own buffer.
	QEMU=$qemu "$here/traffic/bench.sh" qemu 50k,100k,150k 3 2>&1 | grep -v '^{' | tee "$OUT/ceiling-qemu.txt"
	echo "$saved" >/proc/sys/net/core/rmem_default
	trap - EXIT
fi

# Runs per kernel: "wall" (multi-threaded TCG: rates), "insn"
# (single-threaded TCG + instruction counter), "nobql" (insn, stack only,
# byte queue limits out of the way: the doorbell count without the qdisc's
# BQL-driven bulk dequeue).
# Rates need both host cores: multi-threaded TCG (a boot may die of its
# int3 text-patching fault: labvm.py DEFAULT_ACCEL; ROUTER_ARGS can say
# --accel tcg,thread=single).
extra_args=(--accel tcg,thread=multi)
[ -z "${ROUTER_ARGS:-}" ] || eval "extra_args+=($ROUTER_ARGS)"
for k in "${kernels[@]}"; do
	for kind in wall insn nobql; do
		case $kind in
		wall) args=(--mode "stack,xdp") ;;
		insn) args=(--mode "stack,xdp" --insn --libinsn-check) ;;
		nobql) args=(--mode stack --insn --bql off) ;;
		esac
		echo "== $k $kind: router.py ${args[*]} --steps $STEPS --step-seconds $STEP_SECONDS --until-loss 1 --loss-steps 2 ${extra_args[*]}"
		t0=$(date +%s)
		python3 "$here/router.py" --kernel "$k" --qemu "$qemu" "${args[@]}" \
			--steps "$STEPS" --step-seconds "$STEP_SECONDS" \
			--until-loss 1 --loss-steps 2 "${extra_args[@]}" \
			--out "$OUT/$k-$kind" 2>&1 |
			grep -v '^# /' | tee "$OUT/$k-$kind.txt" ||
			echo "   router.py failed: see $OUT/$k-$kind.txt and $OUT/$k-$kind/"
		echo "   ($(($(date +%s) - t0)) s)"
	done
done

python3 "$here/bench-summary.py" "$OUT" "${kernels[@]}" | tee "$OUT/summary.txt"
echo "== bench-igc done in $(($(date +%s) - t_all)) s; files in $OUT"
