#!/bin/bash
# run-guest.sh KERNEL INITRD RESULTS-FILE CONSOLE-LOG [--timeout S] [--append 'CMDLINE']
#
# Boot Debian's kernel (unpacked by setup.sh) with INITRD in QEMU, one guest,
# no network.  ttyS0 (console and kernel log) goes to CONSOLE-LOG, ttyS1 (the
# results channel written by guest/init) to RESULTS-FILE.
#
# Exit 0 only if the results end with "LAB-EXIT 0" and the kernel stayed
# healthy: no Oops, BUG:, WARNING:, panic, and no taint but O (out-of-tree
# module) and E (unsigned module).  Oopses do not panic the guest (the rest
# of the tests still run), they are found here in the console log.
# Exit 1 on a test failure, a sick kernel or a timeout; 2 on a lab error.
#
# LAB_ACCEL=auto (default: KVM only if kvm-probe.sh says it works), tcg, kvm.
# LAB_TIMEOUT (default 300 s) unless --timeout is given.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

usage="usage: tools/lab/run-guest.sh 6.1|6.12 INITRD RESULTS CONSOLE-LOG [--timeout S] [--append 'CMDLINE']"
[ $# -ge 4 ] || die "$usage"
kver=$(lab_kernel_release "$1")
initrd=$2 results=$3 console=$4
shift 4
tmo=${LAB_TIMEOUT:-300} append=
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) tmo=${2:?}; shift 2 ;;
	--append) append=${2?}; shift 2 ;;
	*) die "$usage" ;;
	esac
done
lab_need_kernel_image "$kver"
need_cmd "$LAB_QEMU" qemu-system-x86
[ -s "$initrd" ] || die "initramfs $initrd missing or empty; build it with tools/lab/initramfs.sh"

case "${LAB_ACCEL:-auto}" in
tcg) accel=(-accel tcg,thread=single) ;; # labvm.py DEFAULT_ACCEL: why
kvm) accel=(-accel kvm -cpu host) ;;
auto)
	if "$LAB_DIR/kvm-probe.sh" "$kver" >/dev/null; then
		accel=(-accel kvm -cpu host)
	else
		accel=(-accel tcg,thread=single)
	fi
	;;
*) die "LAB_ACCEL=${LAB_ACCEL} is not one of auto, tcg, kvm" ;;
esac

mkdir -p "$(dirname "$results")" "$(dirname "$console")"
rm -f "$results" "$console"
: >"$results"

echo "lab: booting $kver (${accel[1]}, timeout ${tmo}s)"
# Seconds since $start, to 0.1 s.
since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
start=$(date +%s.%N)
# -L: Debian's split BIOS packages (seabios, qemu-system-data); harmless for
# a QEMU that has its own blobs.  -monitor none: the serial ports are files,
# nothing may read our stdin.
timeout -k 5 "$tmo" "$LAB_QEMU" -L /usr/share/seabios -L /usr/share/qemu \
	"${accel[@]}" -m 1024 -smp 2 -nic none -nographic -monitor none -no-reboot \
	-serial "file:$console" -serial "file:$results" \
	-kernel "$(lab_kernel_dir "$kver")/vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 $append" </dev/null >"$console.qemu" 2>&1 &
qpid=$!

# Boot time: from QEMU's start to the first byte on the results channel
# (init's LAB-START line).
boot=
while kill -0 $qpid 2>/dev/null; do
	if [ -z "$boot" ] && [ -s "$results" ]; then
		boot=$(since "$start")
		echo "lab: $kver boot time: $boot s (QEMU start to /init)"
	fi
	sleep 0.2
done
rc=0
wait $qpid || rc=$?
echo "lab: $kver guest ran $(since "$start") s"
cat "$console.qemu" >>"$console"
rm -f "$console.qemu"

# fail MESSAGE [PATTERN]: report, show 40 lines of the console log (from
# the first line matching PATTERN, else the last ones), exit 1.
fail() {
	echo "lab: guest $kver: $1" >&2
	if [ -n "${2:-}" ]; then
		echo "---- $console, from the first problem ----" >&2
		grep -aE -m1 -A39 "$2" "$console" >&2 || true
	else
		echo "---- last 40 lines of $console ----" >&2
		tail -n 40 "$console" >&2
	fi
	echo "----" >&2
	exit 1
}

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	fail "timed out after ${tmo}s; console log: $console"
fi

# Kernel health, from the console log.  Taint flags sit between "Tainted: "
# and the release (which starts with a digit).
sick='Oops|BUG:|WARNING:|Kernel panic|general protection fault'
bad=$(grep -aE -m1 "$sick" "$console" || true)
[ -z "$bad" ] || fail "kernel problem in console log $console: $bad" "$sick"
flags=$(grep -ao 'Tainted: [A-Z ]* [0-9]' "$console" | sed 's/^Tainted: //; s/ [0-9]$//' | tr -d ' GOE\n' || true)
[ -z "$flags" ] || fail "kernel tainted with flags '$flags'; console log: $console" 'Tainted: '

# Same question from the guest itself: any taint bit but O (4096), E (8192)?
taint=$(tr -d '\r' <"$results" | sed -n 's/^LAB-TAINT \([0-9]*\)$/\1/p' | tail -n1)
[ -z "$taint" ] || [ $((taint & ~(4096 | 8192))) -eq 0 ] ||
	fail "kernel tainted ($taint = $(printf '%#x' "$taint")); see Documentation/admin-guide/tainted-kernels.rst; console log: $console"

last=$(tr -d '\r' <"$results" | grep -a . | tail -n1 || true)
case "$last" in
"LAB-EXIT 0") exit 0 ;;
"LAB-EXIT "*) echo "lab: guest $kver: tests exited with status ${last#LAB-EXIT }; results: $results" >&2; exit 1 ;;
*) fail "no LAB-EXIT line (qemu exit $rc; guest crashed or init failed); results: $results; console log: $console" ;;
esac
