#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test.sh - dbb-gen -> dbb-sink over loopback (no QEMU), small counts, exact
# assertions.  Prints "ok N name" / "not ok N name", then "N passed, N failed";
# exits 1 if a test failed, 2 if the tools do not build.  Under 30 s.
#
# O=DIR: where the binaries are built (default: build/ beside this script).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
O=${O:-$here/build}
make -s -C "$here" O="$O" >&2 || { echo "not ok 1 build"; echo "0 passed, 1 failed"; exit 2; }
gen=$O/dbb-gen sink=$O/dbb-sink
tmp=$(mktemp -d)
sink_pid=
cleanup() {
	[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0 passed=0 failed=0
port=$((30000 + RANDOM % 20000))

check() # name cond-result(0/1) [detail]
{
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1${3:+: $3}"
	fi
}

# jget FILE TYPE KEY [STEP]: a number from the JSON lines of FILE
jget()
{
	local sel="\"type\":\"$2\""
	[ $# -ge 4 ] && sel="$sel,\"step\":$4,"
	grep -F "$sel" "$1" | head -n 1 | sed -n "s/.*\"$3\":\(-\{0,1\}[0-9.]*\).*/\1/p"
}

# expect_eq NAME FILE TYPE KEY VALUE [STEP]
expect_eq()
{
	local v
	v=$(jget "$2" "$3" "$4" ${6:+"$6"})
	[ "$v" = "$5" ]
	check "$1" $? "$4 is '${v}', want $5"
}

# run NAME SINK-ARGS -- GEN-ARGS: sink in the background, then the generator;
# JSON in $tmp/NAME.sink and $tmp/NAME.gen
run()
{
	local name=$1 sargs=() gargs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	gargs=("$@")
	port=$((port + 1))
	rm -f "$tmp/ready"
	"$sink" --bind "127.0.0.1:$port" --json --quiet --ready-file "$tmp/ready" \
		--start-timeout-ms 10000 "${sargs[@]}" >"$tmp/$name.sink" 2>"$tmp/$name.sink.err" &
	sink_pid=$!
	for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.02; done
	"$gen" --to "127.0.0.1:$port" --json --quiet "${gargs[@]}" >"$tmp/$name.gen" 2>"$tmp/$name.gen.err"
	gen_rc=$?
	wait "$sink_pid"
	sink_rc=$?
	sink_pid=
}

# 1. paced, 10,000 frames over 1,000 flows at 20 kpps: everything arrives once, in order
run paced --idle-ms 300 -- --flows 1000 --count 10000 --pps 20000
[ "$gen_rc" -eq 0 ] && [ "$sink_rc" -eq 0 ]
check "paced: both tools exit 0" $? "gen $gen_rc sink $sink_rc"
expect_eq "paced: generator sent 10000" "$tmp/paced.gen" step sent 10000 0
expect_eq "paced: sink received 10000" "$tmp/paced.sink" total received 10000
expect_eq "paced: marker says 10000 sent" "$tmp/paced.sink" step sent 10000 0
expect_eq "paced: zero loss" "$tmp/paced.sink" total lost 0
expect_eq "paced: zero reordering" "$tmp/paced.sink" total reordered 0
expect_eq "paced: zero duplicates" "$tmp/paced.sink" total dup 0
expect_eq "paced: no flow gaps" "$tmp/paced.sink" total flow_gaps_open 0
expect_eq "paced: 1000 flows seen" "$tmp/paced.sink" total flows 1000
expect_eq "paced: no invalid frames" "$tmp/paced.sink" total invalid 0
expect_eq "paced: IP checksums valid" "$tmp/paced.sink" total bad_ip_csum 0
expect_eq "paced: all 8 markers arrived" "$tmp/paced.sink" total markers 8
expect_eq "paced: last global seq 9999" "$tmp/paced.sink" total max_seq 9999
rate=$(jget "$tmp/paced.gen" step pps 0)
awk -v r="$rate" 'BEGIN { exit !(r > 19000 && r < 21000) }'
check "paced: rate within 5 % of 20000 pps" $? "rate $rate"

# 2. three rate steps with a count each, per-step accounting, no UDP GSO
run steps --idle-ms 300 -- --flows 1000 --steps 10000,20000,40000 --count 3000 --gso 0
for s in 0 1 2; do
	expect_eq "steps: step $s sent 3000" "$tmp/steps.sink" step sent 3000 $s
	expect_eq "steps: step $s received 3000" "$tmp/steps.sink" step received 3000 $s
	expect_eq "steps: step $s lost 0" "$tmp/steps.sink" step lost 0 $s
done
expect_eq "steps: --step-seconds gives count = rate * seconds" /dev/stdin step offered 2500 0 \
	< <("$gen" --to 127.0.0.1:9 --json --quiet --markers 0 --pps 50000 --step-seconds 0.05 --flows 10)

# 3. deliberate loss: the generator skips every 101st frame, the sink must
# count exactly that many lost.  A skipped frame is a per-flow gap when a
# later frame of its flow arrives; awk works out how many that makes.
gaps=$(awk 'BEGIN { F = 1000; C = 10000; D = 101
	for (g = 0; g < C; g++) if ((g + 1) % D == 0) {
		for (h = g + F; h < C; h += F) if ((h + 1) % D) { n++; break }
	}
	print n + 0 }')
run drop --idle-ms 300 -- --flows 1000 --count 10000 --pps 50000 --drop-every 101
expect_eq "drop: generator skipped 99" "$tmp/drop.gen" step test_dropped 99 0
expect_eq "drop: generator sent 9901" "$tmp/drop.gen" step sent 9901 0
expect_eq "drop: sink counts sent 10000 (marker)" "$tmp/drop.sink" step sent 10000 0
expect_eq "drop: sink received 9901" "$tmp/drop.sink" total received 9901
expect_eq "drop: sink lost exactly 99" "$tmp/drop.sink" step lost 99 0
expect_eq "drop: $gaps per-flow gaps" "$tmp/drop.sink" total flow_gaps_open "$gaps"
expect_eq "drop: no reordering" "$tmp/drop.sink" total reordered 0

# 4. deliberate reordering and duplicates on one flow, 64-frame bursts
run reorder --idle-ms 300 -- --flows 1 --count 5000 --pps 50000 --burst 64 --swap-every 10 --dup-every 33
swapped=$(jget "$tmp/reorder.gen" step test_swapped 0)
duped=$(jget "$tmp/reorder.gen" step test_duplicated 0)
[ "${swapped:-0}" -gt 0 ] && [ "${duped:-0}" -gt 0 ]
check "reorder: generator swapped and duplicated frames" $? "swapped $swapped dup $duped"
expect_eq "reorder: sink reordered == swapped" "$tmp/reorder.sink" total reordered "$swapped"
expect_eq "reorder: sink dup == duplicated" "$tmp/reorder.sink" total dup "$duped"
expect_eq "reorder: zero loss" "$tmp/reorder.sink" total lost 0
expect_eq "reorder: no gaps left" "$tmp/reorder.sink" total flow_gaps_open 0

# 5. as fast as possible, UDP checksums, 128-byte frames, --expect stops the sink
run fast --idle-ms 5000 --expect 20000 -- --flows 99328 --count 20000 --pps 0 --udp-csum --size 128
secs=$(jget "$tmp/fast.sink" total seconds)
expect_eq "fast: sink received 20000" "$tmp/fast.sink" total received 20000
expect_eq "fast: zero loss against --expect" "$tmp/fast.sink" total lost 0
expect_eq "fast: UDP checksums valid" "$tmp/fast.sink" total bad_udp_csum 0
expect_eq "fast: IP checksums valid" "$tmp/fast.sink" total bad_ip_csum 0
expect_eq "fast: no sink socket drops" "$tmp/fast.sink" total sink_socket_drops 0
awk -v s="$secs" 'BEGIN { exit !(s < 4) }'
check "fast: --expect stopped the sink before --idle-ms" $? "seconds $secs"

# 6. no markers: loss against --expect, sent unknown per step
run nomark --idle-ms 300 --expect 5000 -- --flows 100 --count 5000 --pps 50000 --markers 0 --drop-every 1000
expect_eq "no markers: lost 5 against --expect" "$tmp/nomark.sink" total lost 5
expect_eq "no markers: step sent unknown" "$tmp/nomark.sink" step sent -1 0

# 7. the simple IMIX: every frame valid for the sink, and the sizes 7:4:1
# of 64, 594 and 1518 bytes on the wire (datagrams 4 bytes shorter), the
# IPv4 and UDP lengths matching each datagram; the 8 markers are 64 bytes
run imix --idle-ms 300 -- --flows 100 --count 1200 --pps 50000 --size imix --udp-csum
expect_eq "imix: sink received 1200" "$tmp/imix.sink" total received 1200
expect_eq "imix: no invalid frames" "$tmp/imix.sink" total invalid 0
expect_eq "imix: IP checksums valid" "$tmp/imix.sink" total bad_ip_csum 0
expect_eq "imix: UDP checksums valid" "$tmp/imix.sink" total bad_udp_csum 0
port=$((port + 1))
python3 - "$port" "$tmp/ready.imix" >"$tmp/imix.sizes" <<'PY' &
import collections
import socket
import sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# The 1,208 datagrams are 430 KB, sent at 50 kpps: a default 208 KB
# buffer overflows whenever this reader is not scheduled (as dbb-sink's
# own --rcvbuf, the force variant as root, else what rmem_max allows).
try:
    s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)     # SO_RCVBUFFORCE
except OSError:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(1.0)
open(sys.argv[2], "w").close()
sizes, bad = collections.Counter(), 0
try:
    while True:
        d = s.recv(65536)
        sizes[len(d)] += 1
        ip_len = int.from_bytes(d[16:18], "big")
        udp_len = int.from_bytes(d[38:40], "big")
        bad += ip_len != len(d) - 14 or udp_len != len(d) - 34
except socket.timeout:
    pass
print(" ".join("%d:%d" % kv for kv in sorted(sizes.items())), "bad:%d" % bad)
PY
sink_pid=$!
for _ in $(seq 100); do [ -e "$tmp/ready.imix" ] && break; sleep 0.02; done
"$gen" --to "127.0.0.1:$port" --quiet --flows 100 --count 1200 --pps 50000 --size imix
wait "$sink_pid"
sink_pid=
sizes=$(cat "$tmp/imix.sizes")
[ "$sizes" = "60:708 590:400 1514:100 bad:0" ]
check "imix: 708 x 60, 400 x 590, 100 x 1514-byte datagrams, lengths right" $? "$sizes"

# 8. loopback only, signals
"$gen" --to 10.0.0.1:9 --count 1 --pps 0 >/dev/null 2>&1
[ $? -eq 2 ]
check "generator refuses a non-loopback destination" $?
"$sink" --bind 0.0.0.0:9 >/dev/null 2>&1
[ $? -eq 2 ]
check "sink refuses a non-loopback address" $?
port=$((port + 1))
rm -f "$tmp/ready"
"$sink" --bind "127.0.0.1:$port" --json --quiet --ready-file "$tmp/ready" >"$tmp/sig.sink" &
sink_pid=$!
for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.02; done
kill -TERM "$sink_pid"
wait "$sink_pid"
rc=$?
sink_pid=
[ "$rc" -eq 0 ] && grep -q '"type":"total"' "$tmp/sig.sink"
check "sink prints its summary on SIGTERM" $?

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
