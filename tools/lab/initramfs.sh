#!/bin/bash
# initramfs.sh KERNEL MODULES-DIR KSELFTEST-INSTALL-DIR OUT.cpio.gz
#
# Build the guest's whole root filesystem as an initramfs: busybox-static for
# the basics, the host's own bash, kmod, iproute2, ethtool, bpftool,
# xdp-tools, iperf3 and coreutils' timeout (kselftest's runner needs its
# --foreground, which busybox lacks) with every library they load, our *.ko
# from MODULES-DIR under /lib/modules/<kver>/extra, the kselftest install as
# /kselftest, and tools/lab/guest/init as /init.
#
# LAB_GUEST_MODULES="igc ..." adds Debian modules (with their dependencies)
# from the unpacked kernel image; modules our .ko depend on are added anyway.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ $# -eq 4 ] || die "usage: tools/lab/initramfs.sh 6.1|6.12|6.12-rt|6.12-debug MODULES-DIR KSELFTEST-DIR OUT.cpio.gz"
kver=$(lab_kernel_release "$1")
moddir=$2 ksdir=$3 out=$4
lab_need_kernel_image "$kver"
need_cmd cpio cpio
need_cmd busybox busybox-static
need_cmd kmod kmod
[ -d "$moddir" ] || die "modules dir $moddir does not exist; run tools/lab/build-modules.sh first"
[ -x "$ksdir/run_kselftest.sh" ] || die "$ksdir/run_kselftest.sh missing; install the kselftests first (tools/lab/kselftest.sh does)"

kimage=$(lab_kernel_dir "$kver")/lib/modules/$kver
root=$(mktemp -d "${TMPDIR:-/tmp}/lab-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

# A usr-merged layout like the host's, so a binary or library copied to its
# host path (/lib/..., /usr/lib/...) lands in one place.
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,tmp,run,root,etc,mnt}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
# The kernel opens /dev/console for init before anything is mounted.
mknod -m 600 "$root/dev/console" c 5 1
mknod -m 666 "$root/dev/null" c 1 3

# copy_file PATH: copy a host file (following symlinks) to the same path.
copy_file() {
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}

# copy_libs PATH: every shared library ldd says PATH needs, including the
# dynamic loader (the one line of ldd without "=>").
copy_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		[ -e "$root$lib" ] || copy_file "$lib"
	done
}
# copy_bin PATH: the binary and its libraries.
copy_bin() {
	[ -x "$1" ] || die "$1 not found; run tools/lab/setup.sh"
	copy_file "$1"
	copy_libs "$1"
}

# Host tools for the guest, each with the package that provides it.
TOOLS=(bash:bash kmod:kmod ip:iproute2 ethtool:ethtool bpftool:bpftool
	xdp-bench:xdp-tools xdp-loader:xdp-tools xdpdump:xdp-tools
	xdp-monitor:xdp-tools xdp-trafficgen:xdp-tools iperf3:iperf3
	timeout:coreutils)
for t in "${TOOLS[@]}"; do
	need_cmd "${t%%:*}" "${t#*:}"
	copy_bin "$(command -v "${t%%:*}")"
done
for m in modprobe insmod rmmod depmod lsmod modinfo; do ln -s /usr/bin/kmod "$root/usr/sbin/$m"; done
# /bin/sh is bash, not busybox ash: Debian's static busybox prefers its own
# applets to the PATH, so under ash `ip` or `timeout` would silently be
# busybox's and not the real iproute2 or coreutils tools copied here.
ln -s bash "$root/usr/bin/sh"

# BPF objects libxdp loads at run time (the XDP dispatcher, xsk programs).
bpfdir=/usr/lib/x86_64-linux-gnu/bpf
[ -d "$bpfdir" ] || die "$bpfdir missing; apt-get install libxdp1"
mkdir -p "$root$bpfdir" && cp -a "$bpfdir/." "$root$bpfdir/"
[ ! -d /etc/iproute2 ] || cp -a /etc/iproute2 "$root/etc/"

# busybox for everything else; it never replaces a real tool copied above.
cp /bin/busybox "$root/usr/bin/busybox"
busybox --list-full | while read -r applet; do
	[ -e "$root/$applet" ] || [ -L "$root/$applet" ] || ln -s /usr/bin/busybox "$root/$applet"
done

printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"

# --- modules ------------------------------------------------------------
gmods=$root/lib/modules/$kver
mkdir -p "$gmods/extra"
# depmod needs these to tell built-in modules from missing ones.
cp "$kimage"/modules.builtin* "$kimage"/modules.order "$gmods/"

# add_kmods NAME...: copy Debian modules and everything they depend on, as
# listed by modprobe against the unpacked image's modules.dep.
add_kmods() {
	local name line ko
	for name in "$@"; do
		modprobe -d "$(lab_kernel_dir "$kver")" -S "$kver" --show-depends "$name" >"$root/.deps" 2>&1 ||
			die "module $name not found in Debian's $kver image ($(head -n1 "$root/.deps"))"
		while read -r line; do
			case "$line" in insmod\ *) ;; *) continue ;; esac
			ko=${line#insmod }
			ko=${ko%% *}
			mkdir -p "$gmods/$(dirname "${ko#"$kimage"/}")"
			cp "$ko" "$gmods/${ko#"$kimage"/}"
		done <"$root/.deps"
		rm -f "$root/.deps"
	done
}

shopt -s nullglob
ours=("$moddir"/*.ko)
[ ${#ours[@]} -gt 0 ] || die "no *.ko in $moddir; run tools/lab/build-modules.sh first"
cp "${ours[@]}" "$gmods/extra/"
# Debian modules our modules need, and any the caller asked for.
ourdeps=$(for ko in "${ours[@]}"; do modinfo -F depends "$ko"; done | tr ',' ' ')
ournames=" $(for ko in "${ours[@]}"; do basename "$ko" .ko; done | tr '\n' ' ') "
need=()
for d in $ourdeps ${LAB_GUEST_MODULES:-}; do
	[[ $ournames == *" $d "* ]] || need+=("$d")
done
[ ${#need[@]} -eq 0 ] || add_kmods "${need[@]}"
depmod -b "$root" "$kver"

# --- tests and init ------------------------------------------------------
cp -a "$ksdir" "$root/kselftest"
# Test programs built from C need their libraries as well.
while IFS= read -r -d '' f; do
	[ "$(head -c4 "$f" | tr -d '\177')" != ELF ] || copy_libs "$f"
done < <(find "$ksdir" -type f -perm -u+x -print0)
install -m 755 "$LAB_DIR/guest/init" "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"

# A missing or broken cpio gives a tiny archive that boots into nothing:
# check that /init and busybox made it in and the size is plausible.
size=$(stat -c %s "$out.tmp")
listing=$(gzip -dc "$out.tmp" | cpio -t --quiet 2>/dev/null)
if ! grep -qx init <<<"$listing" || ! grep -qx usr/bin/busybox <<<"$listing" || [ "$size" -lt 1000000 ]; then
	rm -f "$out.tmp"
	die "initramfs $out is broken ($size bytes, no /init or busybox); check that cpio works (apt-get install cpio)"
fi
mv "$out.tmp" "$out"
echo "lab: initramfs $out ($((size / 1024)) KiB, $(wc -l <<<"$listing") entries)"
