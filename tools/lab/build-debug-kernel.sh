#!/bin/bash
# build-debug-kernel.sh
#
# Build the lab's debug kernel, short name 6.12-debug: Debian's own 6.12
# (the linux-source-6.12 package, Debian's patches applied) with Debian's
# config of the lab's 6.12 kernel plus the checkers that catch the bugs
# issue 12 is about, and cache it like the lab's other kernels:
#
#   $CACHE/kernels/<release>/vmlinuz -> boot/vmlinuz-<release>
#   $CACHE/kernels/<release>/boot/{config,System.map}-<release>
#   $CACHE/kernels/<release>/lib/modules/<release>/...  (depmod'ed)
#   $CACHE/kernels/<release>/dbb-debug-info   (source, choices, build time)
#   $CACHE/debug-kernel/<release>/linux       the build tree (KDIR; keeps
#                                              vmlinux for decoding splats)
#   /lib/modules/<release>/build -> that tree (what build-modules.sh uses)
#
# <release> is <upstream version of linux-source-6.12>-dbb-debug, e.g.
# 6.12.117-dbb-debug (lab_kernel_release 6.12-debug).  A cached kernel
# makes this a no-op (it only re-creates a missing build symlink); the
# kernel entry is assembled in a temp dir and renamed into place, so an
# interrupted run never leaves an entry a later run would trust.  The build
# tree itself cannot move (kbuild bakes its path in): an interrupted build
# is resumed by the next run while its stamp (source version, Debian
# config, this script's choices) still matches, and started over otherwise.
# A lock serialises concurrent runs.  Run as root; not run by setup.sh
# (see README.md for how long the first build takes).
#
# Added to Debian's config (see DEBUG_ON below):
#   KASAN generic, inline, with vmalloc; KFENCE sampling on (Debian builds
#   it but leaves the sample interval 0, i.e. off); PROVE_LOCKING (lockdep,
#   which brings PROVE_RCU); DEBUG_ATOMIC_SLEEP; DEBUG_PREEMPT
#   (smp_processor_id() in preemptible code: our frames are per CPU);
#   DEBUG_NET; NET_DEV_REFCNT_TRACKER / NET_NS_REFCNT_TRACKER (who holds a
#   netdev reference at unregister: rmmod cycles); DEBUG_OBJECTS for timers,
#   work, RCU heads and freed memory (the cheap ones; the percpu-counter one
#   is not worth its cost here); UBSAN bounds and shift checks;
#   CONFIGFS_FS and NETCONSOLE_DYNAMIC (netconsole's targets, made by
#   tools/lab/netpoll0.py); FAULT_INJECTION with FAILSLAB, FAIL_PAGE_ALLOC, FAIL_FUNCTION (the
#   kernel's ALLOW_ERROR_INJECTION points), the debugfs knobs and the
#   stack-trace filter (require-start/end: aim failslab at one module's
#   callers);
#   DEBUG_KMEMLEAK, on at boot: the issue's "no leak" over load/unload
#   cycles is a kmemleak question; the guest runs a scan when its command
#   ends (tools/lab/guest/init) and check-debug fails on a report.  Its cost
#   (tracking every allocation, a scan of 1 GB under TCG) is paid only by
#   this kernel; the periodic scan thread is left on but the explicit scan
#   is what the lab reads.
# Taken away from Debian's config:
#   module signing (MODULE_SIG, the trusted/revocation key files Debian's
#   build has and the source package lacks): the guest loads our unsigned
#   modules, and no signature means no taint; and with it the lockdown
#   LSM, which selects MODULE_SIG (Debian's guest never locks down: it is
#   LOCK_DOWN_KERNEL_FORCE_NONE without EFI secure boot);
#   every module the lab's guests do not load (KEEP_MODULES below, fed to
#   `make localmodconfig` as a fake lsmod): Debian builds some 4000, which
#   under KASAN+lockdep would take most of a day on two cores.  What is
#   built in stays as Debian has it.
# Kept although it costs build time:
#   DEBUG_INFO (DWARF, toolchain default) because DEBUG_INFO_BTF needs it
#   (BTF refuses DEBUG_INFO_REDUCED and SPLIT), and BTF is needed:
#   xdp-bench (the forwarding acceptance's XDP mode) and bpftool are CO-RE
#   programs that read /sys/kernel/btf/vmlinux.  The installed modules are
#   stripped (INSTALL_MOD_STRIP=1), as Debian's are.
#
# The build runs under `nice -n 19` with make -j${LAB_JOBS:-2} so QEMU
# guests sharing the machine stay responsive.  Its wall time is printed and
# recorded in dbb-debug-info.
#
# Prints the kernel entry's directory as the last line of stdout.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# The whole script in one block, read by bash before it runs: editing this
# file during the hour a build takes must not change what the running
# build executes next.
{

[ $# -eq 0 ] || die "usage: tools/lab/build-debug-kernel.sh (no arguments)"

pkg=$LAB_SRC612_PKG
rel=$(lab_debug_release)
entry=$(lab_kernel_dir "$rel")
DDIR=$CACHE/debug-kernel
tree=$DDIR/$rel/linux

link_build() {
	[ "$(readlink "/lib/modules/$rel/build" 2>/dev/null)" = "$tree" ] && return
	mkdir -p "/lib/modules/$rel"
	ln -sfn "$tree" "/lib/modules/$rel/build"
}

if [ -e "$entry/vmlinuz" ] && [ -f "$tree/Makefile" ]; then
	[ -e "/lib/modules/$rel/build/Makefile" ] || link_build
	echo "$entry"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "the debug kernel is built as root (it links /lib/modules/$rel/build); run as root"

# Modules the lab's guests load (router.py KMODS, the kselftests, the
# extras and netconsole tests), and a few the issue's later steps need
# (nf_tables/nf_conntrack/flowtable for a firewalling router, veth, dummy,
# bridge, vlan).  XDP, BPF and page_pool are built in already.
KEEP_MODULES="igc netconsole pktgen veth dummy tun bridge 8021q
	nf_tables nf_conntrack nf_nat nf_defrag_ipv4 nf_defrag_ipv6
	nft_ct nft_chain_nat nft_nat nft_masq nf_flow_table nf_flow_table_inet
	nft_flow_offload nft_reject nft_reject_inet nft_limit nft_counter"

# scripts/config arguments applied after localmodconfig, then olddefconfig.
DEBUG_ON=(
	-e KASAN -e KASAN_GENERIC -e KASAN_INLINE -d KASAN_OUTLINE -e KASAN_VMALLOC
	-e KFENCE --set-val KFENCE_SAMPLE_INTERVAL 100
	-e DEBUG_KERNEL -e PROVE_LOCKING -e PROVE_RCU -e DEBUG_ATOMIC_SLEEP
	-e DEBUG_PREEMPT
	--set-val LOCKDEP_BITS 16 --set-val LOCKDEP_CHAINS_BITS 17
	--set-val LOCKDEP_STACK_TRACE_BITS 20
	-e DEBUG_NET -e NET_DEV_REFCNT_TRACKER -e NET_NS_REFCNT_TRACKER
	-e DEBUG_OBJECTS -e DEBUG_OBJECTS_FREE -e DEBUG_OBJECTS_TIMERS
	-e DEBUG_OBJECTS_WORK -e DEBUG_OBJECTS_RCU_HEAD
	--set-val DEBUG_OBJECTS_ENABLE_DEFAULT 1
	-e UBSAN -e UBSAN_BOUNDS -e UBSAN_SHIFT -d UBSAN_TRAP
	-e FAULT_INJECTION -e FAILSLAB -e FAIL_PAGE_ALLOC -e FAIL_FUNCTION
	-e FUNCTION_ERROR_INJECTION
	-e FAULT_INJECTION_DEBUG_FS -e FAULT_INJECTION_STACKTRACE_FILTER
	-e DEBUG_KMEMLEAK -d DEBUG_KMEMLEAK_DEFAULT_OFF
	-e CONFIGFS_FS -e NETCONSOLE_DYNAMIC
	--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 64000
	-d SECURITY_LOCKDOWN_LSM -d SECURITY_LOCKDOWN_LSM_EARLY
	-d MODULE_SIG -d MODULE_SIG_ALL -d MODULE_SIG_FORCE
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	-d SYSTEM_REVOCATION_LIST
	--set-str LOCALVERSION "-dbb-debug" -d LOCALVERSION_AUTO
)
# What must hold in the final .config (olddefconfig drops what it cannot
# satisfy silently; this says so instead).
MUST=(KASAN KASAN_GENERIC KASAN_INLINE KFENCE PROVE_LOCKING PROVE_RCU
	DEBUG_ATOMIC_SLEEP DEBUG_NET DEBUG_OBJECTS FAULT_INJECTION FAILSLAB
	FAIL_PAGE_ALLOC FAULT_INJECTION_DEBUG_FS DEBUG_KMEMLEAK DEBUG_INFO_BTF
	BPF_SYSCALL XDP_SOCKETS NET_DEV_REFCNT_TRACKER CONFIGFS_FS
	NETCONSOLE_DYNAMIC)
MUST_MOD=(IGC NETCONSOLE NET_PKTGEN VETH NF_TABLES NF_CONNTRACK)
MUST_OFF=(MODULE_SIG)

# The kernel's build dependencies (setup.sh installs the rest: gcc, make,
# bc, kmod, xz-utils, linux-source-6.12); pahole makes the BTF, libelf is
# objtool's.
missing=()
for p in flex bison pahole libelf-dev libssl-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed (apt-get update first?)"
fi
for c in make:make gcc:gcc bc:bc flex:flex bison:bison pahole:pahole perl:perl xz:xz-utils depmod:kmod; do
	need_cmd "${c%%:*}" "${c#*:}"
done

tarball=/usr/src/$pkg.tar.xz
[ -f "$tarball" ] || die "$tarball missing; apt-get install $pkg (or run tools/lab/setup.sh)"
srcver=$(dpkg-query -W -f='${Version}' "$pkg")

# Debian's config of the lab's own 6.12 kernel.
base=$(lab_kernel_release 6.12)
dconfig=$(lab_kernel_dir "$base")/boot/config-$base
[ -f "$dconfig" ] || dconfig=/boot/config-$base
[ -f "$dconfig" ] || die "no Debian config for $base ($(lab_kernel_dir "$base")/boot or /boot); run tools/lab/setup.sh"

mkdir -p "$DDIR"
exec 9>"$DDIR/.lock"
if ! flock -n 9; then
	log "another debug kernel build holds $DDIR/.lock; waiting for it"
	flock 9
fi
# Somebody else may have built it while we waited.
if [ -e "$entry/vmlinuz" ] && [ -f "$tree/Makefile" ]; then
	link_build
	echo "$entry"
	exit 0
fi

# The stamp: what decides the .config (not this script's other lines, so
# editing them does not throw a half-done build away).
stamp="$srcver $({ cat "$dconfig"; echo "$KEEP_MODULES"; printf '%s\n' "${DEBUG_ON[@]}"; } | sha256sum | cut -c1-16)"
if [ "$(cat "$tree/.dbb-stamp" 2>/dev/null)" != "$stamp" ]; then
	log "extracting $tarball into $tree"
	rm -rf "${DDIR:?}/${rel:?}"
	mkdir -p "$DDIR/$rel"
	tmp=$(mktemp -d "$DDIR/$rel/.tmp.XXXXXX")
	nice -n 19 tar -xJf "$tarball" -C "$tmp"
	mv -T "$tmp/$pkg" "$tree"
	rmdir "$tmp"

	log "configuring: Debian's $base config, modules trimmed to the lab's, debug options"
	cp "$dconfig" "$tree/.config"
	lsmod=$DDIR/$rel/lsmod.keep
	{
		echo "Module Size Used by"
		for m in $KEEP_MODULES; do echo "$m 0 0"; done
	} >"$lsmod"
	# localmodconfig answers new questions with defaults; it also warns
	# about modules it cannot find (none expected).
	make -C "$tree" -s LSMOD="$lsmod" localmodconfig </dev/null >"$DDIR/$rel/config.log" 2>&1 || {
		tail -n 20 "$DDIR/$rel/config.log" >&2
		die "make localmodconfig failed; log: $DDIR/$rel/config.log"
	}
	"$tree/scripts/config" --file "$tree/.config" "${DEBUG_ON[@]}"
	make -C "$tree" -s olddefconfig >>"$DDIR/$rel/config.log" 2>&1
	# Twice: options enabled by the first pass may unlock others.
	"$tree/scripts/config" --file "$tree/.config" "${DEBUG_ON[@]}"
	make -C "$tree" -s olddefconfig >>"$DDIR/$rel/config.log" 2>&1
	echo "$stamp" >"$tree/.dbb-stamp"
else
	log "resuming the build in $tree"
fi

bad=()
for o in "${MUST[@]}"; do grep -q "^CONFIG_$o=y" "$tree/.config" || bad+=("$o!=y"); done
for o in "${MUST_MOD[@]}"; do grep -Eq "^CONFIG_$o=(m|y)" "$tree/.config" || bad+=("$o missing"); done
for o in "${MUST_OFF[@]}"; do ! grep -q "^CONFIG_$o=y" "$tree/.config" || bad+=("$o=y"); done
[ ${#bad[@]} -eq 0 ] || die "the debug config lost options: ${bad[*]} (see $tree/.config)"
nmods=$(grep -c '=m$' "$tree/.config" || true)

blog=$DDIR/$rel/build.log
jobs=${LAB_JOBS:-2}
log "building $rel ($nmods modules; nice -n 19, make -j$jobs; log: $blog)"
start=$(date +%s)
rc=0
nice -n 19 make -C "$tree" -j"$jobs" all >>"$blog" 2>&1 || rc=$?
secs=$(($(date +%s) - start))
if [ $rc -ne 0 ]; then
	grep -E -m 20 -B2 -A3 'error|Error ' "$blog" >&2 || tail -n 30 "$blog" >&2
	die "debug kernel build failed after $secs s (make exit $rc); log: $blog; re-run to resume"
fi
krel=$(cat "$tree/include/config/kernel.release")
[ "$krel" = "$rel" ] || die "the tree built release $krel, expected $rel (LOCALVERSION?)"
# Wall time of every make run that built this tree (a resumed build adds up).
echo "$secs" >>"$DDIR/$rel/build-seconds"
total=$(paste -sd+ "$DDIR/$rel/build-seconds" | bc)

log "installing into $entry"
mkdir -p "$CACHE/kernels"
tmp=$(mktemp -d "$CACHE/kernels/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
nice -n 19 make -C "$tree" -s INSTALL_MOD_PATH="$tmp" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install >>"$blog" 2>&1 ||
	die "modules_install failed; log: $blog"
rm -f "$tmp/lib/modules/$rel/build" "$tmp/lib/modules/$rel/source"
mkdir -p "$tmp/boot"
cp "$tree/arch/x86/boot/bzImage" "$tmp/boot/vmlinuz-$rel"
cp "$tree/System.map" "$tmp/boot/System.map-$rel"
cp "$tree/.config" "$tmp/boot/config-$rel"
ln -s "boot/vmlinuz-$rel" "$tmp/vmlinuz"
depmod -b "$tmp" "$rel"
cat >"$tmp/dbb-debug-info" <<EOF
kernel: $rel (tools/lab/build-debug-kernel.sh; short name 6.12-debug)
source: $pkg $srcver
config: Debian's $base ($dconfig), modules trimmed by localmodconfig to:
  $(tr -s " \t\n" " " <<<"$KEEP_MODULES")
  ($nmods modules), plus: ${DEBUG_ON[*]}
build tree: $tree (/lib/modules/$rel/build)
make: nice -n 19 make -j$jobs all
build seconds: $total (wall, $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))
built: $(date -u +%FT%TZ)
EOF
chmod 755 "$tmp"
rm -rf "$entry"
mv -T "$tmp" "$entry"
trap - EXIT
link_build
log "built $rel in $total s ($((total / 60)) min) on $(nproc) CPUs; entry $entry"
echo "$entry"
exit 0
}
