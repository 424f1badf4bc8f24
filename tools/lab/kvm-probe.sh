#!/bin/bash
# kvm-probe.sh [KERNEL]: can this machine run the lab guest under KVM?
#
# Prints "yes" (exit 0) or "no" (exit 1).  /dev/kvm existing is not enough:
# on some machines a VM can be created but the guest hangs in early boot.
# So we boot the lab kernel (default 6.1) with a tiny busybox initramfs
# under KVM, bounded by a timeout, and say yes only if the guest's /init
# wrote its marker on the serial port.
#
# The verdict is cached in $CACHE/kvm-probe, keyed by machine id and host
# kernel (whether KVM works is the host's business, not the QEMU build's:
# the lab runs Debian's QEMU and ours); delete that file (or
# LAB_KVM_REPROBE=1) to probe again.  LAB_KVM_PROBE_TIMEOUT (default 60 s) bounds the probe boot.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

kver=$(lab_kernel_release "${1:-6.1}")
lab_need_kernel_image "$kver"
need_cmd "$LAB_QEMU" qemu-system-x86
need_cmd cpio cpio
need_cmd busybox busybox-static

cachefile=$CACHE/kvm-probe
key="$(cat /etc/machine-id 2>/dev/null || hostname) $(uname -r)"

verdict() { # yes|no REASON: record, print, exit 0 for yes, 1 for no
	mkdir -p "$CACHE"
	printf '%s\t%s\t%s\n' "$1" "$key" "$2" >"$cachefile"
	echo "$1"
	[ "$1" = yes ] && exit 0
	exit 1
}

if [ -z "${LAB_KVM_REPROBE:-}" ] && [ -r "$cachefile" ]; then
	IFS=$'\t' read -r v k _ <"$cachefile" || true
	if [ "$k" = "$key" ]; then
		echo "$v"
		[ "$v" = yes ] && exit 0
		exit 1
	fi
fi

if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	verdict no "no usable /dev/kvm"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lab-kvm-probe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/bin" "$tmp/root/dev"
cp /bin/busybox "$tmp/root/bin/busybox"
mknod -m 600 "$tmp/root/dev/console" c 5 1
cat >"$tmp/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
echo LAB-KVM-PROBE-REACHED-INIT >/dev/ttyS0
/bin/busybox poweroff -f
EOF
chmod 755 "$tmp/root/init"
(cd "$tmp/root" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$tmp/initrd"
[ "$(stat -c %s "$tmp/initrd")" -gt 100000 ] || die "probe initramfs is empty; check cpio (apt-get install cpio)"

t=${LAB_KVM_PROBE_TIMEOUT:-60}
log "probing KVM: booting $kver under KVM (at most ${t}s, once per machine)"
rc=0
timeout -k 5 "$t" "$LAB_QEMU" -L /usr/share/seabios -L /usr/share/qemu \
	-accel kvm -cpu host -m 256 -smp 1 -nic none -nographic -monitor none -no-reboot \
	-serial "file:$tmp/console.log" \
	-kernel "$(lab_kernel_dir "$kver")/vmlinuz" -initrd "$tmp/initrd" \
	-append "console=ttyS0 panic=-1" </dev/null >"$tmp/qemu.out" 2>&1 || rc=$?

if grep -q LAB-KVM-PROBE-REACHED-INIT "$tmp/console.log" 2>/dev/null; then
	verdict yes "guest reached /init"
elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	verdict no "KVM guest hung: no /init within ${t}s"
else
	verdict no "qemu -accel kvm failed (exit $rc): $(head -n1 "$tmp/qemu.out")"
fi
