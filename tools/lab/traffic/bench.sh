#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh direct|qemu STEPS [SECONDS] - the tools' own ceiling.
#
#   direct: dbb-gen -> dbb-sink straight over loopback.
#   qemu:   dbb-gen -> QEMU -> dbb-sink, through a guest-less QEMU whose two
#           "-netdev dgram" ports are joined by a hub (-M none, no CPU runs):
#           the cost of QEMU's dgram backend alone, an upper bound for any
#           guest behind it.
#
# STEPS: comma-separated rates in frames/s (k/M ok), each SECONDS long
# (default 5).  Prints the generator's and the sink's JSON lines, then one
# table row per step.  Runs the CPUs flat out for the whole ramp: keep it
# short on a shared machine.
#
# Environment: O (binaries, default build/ here), GEN_CPU / SINK_CPU (CPU to
# pin each to, default 0 / 1, "" = unpinned), FLOWS (99328), SIZE (64),
# GEN_ARGS / SINK_ARGS (more options), QEMU (qemu-system-x86_64),
# PORT (first of four UDP ports on 127.0.0.1, default 23000).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
O=${O:-$here/build}
mode=${1:?usage: bench.sh direct|qemu STEPS [SECONDS]}
steps=${2:?usage: bench.sh direct|qemu STEPS [SECONDS]}
secs=${3:-5}
port=${PORT:-23000}
make -s -C "$here" O="$O" >&2

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || :; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pin() { if [ -n "$1" ]; then echo "--cpu $1"; fi; }
case "$mode" in
direct)
	to=$port sink_port=$port
	;;
qemu)
	# port: QEMU in (gen sends here), port+1: QEMU's "remote" for the
	# input port (nothing listens), port+2: QEMU out, port+3: the sink.
	to=$port sink_port=$((port + 3))
	"${QEMU:-qemu-system-x86_64}" -M none -nodefaults -display none \
		-monitor none -serial none \
		-netdev "dgram,id=in,local.type=inet,local.host=127.0.0.1,local.port=$port,remote.type=inet,remote.host=127.0.0.1,remote.port=$((port + 1))" \
		-netdev "dgram,id=out,local.type=inet,local.host=127.0.0.1,local.port=$((port + 2)),remote.type=inet,remote.host=127.0.0.1,remote.port=$((port + 3))" \
		-netdev hubport,id=hin,hubid=0,netdev=in \
		-netdev hubport,id=hout,hubid=0,netdev=out 2>"$tmp/qemu.err" &
	pids+=($!)
	sleep 0.5
	kill -0 "${pids[0]}" || { cat "$tmp/qemu.err" >&2; exit 2; }
	;;
*)
	echo "bench.sh: mode is direct or qemu" >&2
	exit 2
	;;
esac

# shellcheck disable=SC2046,SC2086
"$O/dbb-sink" --bind "127.0.0.1:$sink_port" --json --quiet --idle-ms 2000 \
	--ready-file "$tmp/ready" $(pin "${SINK_CPU-1}") ${SINK_ARGS:-} >"$tmp/sink" &
sink=$!
pids+=("$sink")
for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.02; done
# shellcheck disable=SC2046,SC2086
"$O/dbb-gen" --to "127.0.0.1:$to" --json --quiet --flows "${FLOWS:-99328}" \
	--size "${SIZE:-64}" --steps "$steps" --step-seconds "$secs" \
	--step-gap-ms 500 $(pin "${GEN_CPU-0}") ${GEN_ARGS:-} >"$tmp/gen"
wait "$sink"
cat "$tmp/gen" "$tmp/sink"

awk '
function get(line, key,   m) {
	if (match(line, "\"" key "\":-?[0-9.]+")) {
		m = substr(line, RSTART, RLENGTH)
		sub(/.*:/, "", m)
		return m
	}
	return "?"
}
/"tool":"dbb-gen","type":"step"/ {
	s = get($0, "step"); tgt[s] = get($0, "target_pps"); gpps[s] = get($0, "pps")
	rbe[s] = get($0, "host_udp_rcvbuf_errors")
}
/"tool":"dbb-sink","type":"step"/ {
	s = get($0, "step"); sent[s] = get($0, "sent"); rx[s] = get($0, "received")
	lost[s] = get($0, "lost"); rpps[s] = get($0, "rx_pps")
	p50[s] = get($0, "p50"); p99[s] = get($0, "p99"); if (s + 1 > n) n = s + 1
}
/"tool":"dbb-sink","type":"total"/ { drops = get($0, "sink_socket_drops") }
END {
	printf "%-5s %10s %10s %10s %10s %10s %8s %10s %10s %10s\n", "step", "target",
	       "gen_pps", "sent", "received", "lost", "loss%", "host_rcvbuf", "p50_us", "p99_us"
	for (s = 0; s < n; s++)
		printf "%-5d %10s %10.0f %10s %10s %10s %8.4f %10s %10.1f %10.1f\n", s, tgt[s],
		       gpps[s], sent[s], rx[s], lost[s],
		       (sent[s] > 0 ? 100 * lost[s] / sent[s] : 0), rbe[s], p50[s] / 1000, p99[s] / 1000
	printf "sink socket drops (whole run): %s\n", drops
}' "$tmp/gen" "$tmp/sink"
