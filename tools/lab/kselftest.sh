#!/bin/bash
# kselftest.sh [6.1|6.12|6.12-rt|6.12-debug|all]   (default: all = 6.1 6.12)
#
# The one command: for each kernel, build our modules against Debian's
# headers (W=1, sparse), install our kselftests the way the kernel does,
# pack both into an initramfs, boot Debian's own kernel image in QEMU, and
# count the KTAP results.  Outputs per kernel in ${LAB_OUT:-$REPO/build/lab}/<kver>/:
#   results.txt (ttyS1: test output only), console.log (ttyS0: kernel log
#   too), build.log, run.log (this script's log of the boot), modules/*.ko
#
# Exit 0 only if every kernel built cleanly and ran at least one test with
# none failing.  Needs tools/lab/setup.sh to have run once.
set -euo pipefail
user_qemu=${LAB_QEMU:-}
. "$(dirname "$0")/lib/common.sh"

# Guests run on the lab's QEMU build (tools/lab/qemu/build.sh), the one
# the Python lab uses, unless LAB_QEMU names another: Debian's QEMU 7.2
# garbles EFLAGS after CMPXCHG16B (patches/tcg-i386-cmpxchg-cc-op.diff),
# and the KASAN debug kernel died of it at boot in 4 of 4 tries.
if [ -z "$user_qemu" ]; then
	LAB_QEMU=$("$LAB_DIR/qemu/build.sh" | tail -n 1) ||
		die "cannot build the lab's QEMU (tools/lab/qemu/build.sh)"
	export LAB_QEMU
fi

which=${1:-all}
case "$which" in
all) versions=$LAB_KERNELS ;;
*) lab_kernel_release "$which" >/dev/null; versions=$which ;;
esac
[ $# -le 1 ] || die "usage: tools/lab/kselftest.sh [6.1|6.12|6.12-rt|6.12-debug|all]"

OUT=${LAB_OUT:-$REPO/build/lab}
tests=$REPO/tools/testing/selftests/net/dbbatch
[ -f "$tests/Makefile" ] || die "no selftests at $tests (Makefile missing)"
need_cmd make make
need_cmd rsync rsync # lib.mk installs tests with it
ksrc=$(lab_src_dir)
[ -f "$ksrc/tools/testing/selftests/lib.mk" ] || die "kselftest skeleton missing in $ksrc; run tools/lab/setup.sh"

# --- kselftest install (userspace: the same for every kernel) -------------
# A minimal kernel-shaped tree: the skeleton from linux-source plus our
# tests as net/dbbatch, installed by the kernel's own kselftest Makefile
# (which generates run_kselftest.sh's kselftest-list.txt).
ks=$CACHE/build/kselftest
rm -rf "$ks"
st=$ks/tree/tools/testing/selftests
mkdir -p "$st/net" "$ks/tree/scripts"
cp "$ksrc/scripts/subarch.include" "$ks/tree/scripts/"
(cd "$ksrc/tools/testing/selftests" && cp -a Makefile lib.mk run_kselftest.sh kselftest* "$st/")
[ ! -f "$ksrc/tools/testing/selftests/net/lib.sh" ] || cp "$ksrc/tools/testing/selftests/net/lib.sh" "$st/net/"
cp -a "$tests" "$st/net/dbbatch"
make -C "$st" TARGETS=net/dbbatch INSTALL_PATH="$ks/install" install >"$ks/install.log" 2>&1 || {
	tail -n 20 "$ks/install.log" >&2
	die "kselftest install failed; full log: $ks/install.log"
}
grep -q '^net/dbbatch:' "$ks/install/kselftest-list.txt" ||
	die "kselftest install lists no net/dbbatch test (TEST_PROGS empty?); see $ks/install.log"

# --- per kernel -----------------------------------------------------------
declare -A counts notes
rc_all=0 tp=0 tf=0 ts=0
for v in $versions; do
	kver=$(lab_kernel_release "$v")
	lab_need_headers "$kver"
	lab_need_kernel_image "$kver"
	out=$OUT/$kver
	rm -rf "$out"
	mkdir -p "$out"
	echo "==== lab: kernel $v ($kver)"

	guest_rc=0 count_rc=0 boot=
	if "$LAB_DIR/build-modules.sh" "$kver" "$out/modules"; then
		mv "$out/modules/build.log" "$out/"
		initrd=$CACHE/build/$kver/initramfs.cpio.gz
		"$LAB_DIR/initramfs.sh" "$kver" "$out/modules" "$ks/install" "$initrd"
		"$LAB_DIR/run-guest.sh" "$kver" "$initrd" "$out/results.txt" "$out/console.log" \
			${LAB_APPEND:+--append "$LAB_APPEND"} 2>&1 | tee "$out/run.log" || guest_rc=$?
		boot=$(sed -n 's/^lab: .* boot time: \([0-9.]*\) s.*/\1/p' "$out/run.log")
		counts[$v]=$("$LAB_DIR/ktap-count.sh" "$v" "$out/results.txt") || count_rc=$?
		notes[$v]="$kver: boot ${boot:-?} s, guest exit $guest_rc"
	else
		mv "$out/modules/build.log" "$out/" 2>/dev/null || true
		counts[$v]="$v: 0 passed, 0 failed, 0 skipped"
		notes[$v]="$kver: module build FAILED, see $out/build.log"
		guest_rc=2
	fi

	# Totals; a kernel that failed outside any test (build, timeout, oops,
	# taint) counts as one failure so the total never reads clean.
	read -r _ p _ f _ s _ <<<"${counts[$v]//,/}" # "6.1: P passed, F failed, S skipped"
	if [ $guest_rc -ne 0 ] || [ $count_rc -ne 0 ]; then
		rc_all=1
		notes[$v]+=" -> FAILED ($out/)"
		[ "$f" -gt 0 ] || f=1
	fi
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	echo "==== ${notes[$v]}"
	echo "==== ${counts[$v]}"
done

echo "==== lab summary (outputs in $OUT)"
for v in $versions; do echo "${notes[$v]}"; done
for v in $versions; do echo "${counts[$v]}"; done
echo "lab: $tp passed, $tf failed, $ts skipped"
exit $rc_all
