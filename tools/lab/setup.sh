#!/bin/bash
# Prepare this Debian 12 machine for the dbbatch VM lab.  Idempotent: a
# second run only checks and returns in a few seconds.
#
#  1. apt-installs the host tools (QEMU, busybox, sparse, the guest's tools)
#     and the kernel headers of both supported kernels;
#  2. fetches Debian's kernel images with `apt-get download` (never installs
#     them on the host: our host kernel is not theirs) and unpacks them into
#     $CACHE/kernels/<kver>/ for the guest;
#  3. extracts the parts of linux-source-6.1 the lab and project need
#     (kselftest skeleton, scripts/, net/core, igc, octeon_ep) and
#     linux-source-6.12's octeon_ep into $CACHE/src/<package>/.
#
# Everything lands in a temp dir first and is renamed into place at the end,
# so an interrupted run never leaves something half-unpacked that a later
# run would trust.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ "$(id -u)" = 0 ] || die "setup needs root (apt-get install); run it as root or with sudo"

export DEBIAN_FRONTEND=noninteractive

# Refresh the package lists at most once per run, and only when something
# needs them (a lookup or a download failed): a stale or empty list is the
# usual cause on a fresh machine.  After refreshing we start over, because
# the meta packages may now point at a newer kernel ABI.
refresh_and_restart() {
	[ -z "${LAB_APT_UPDATED:-}" ] || die "$1; check the apt sources (apt-get update failed to help)"
	log "$1; running apt-get update and starting over"
	apt-get update -q >/dev/null || die "apt-get update failed; check /etc/apt/sources.list*"
	LAB_APT_UPDATED=1 exec "$0"
}

# Tools on the host and copied into the guest.  gcc/make build the modules,
# sparse is C=1, cpio+busybox-static make the initramfs, the rest runs in
# the guest (its binaries and libraries are copied from the host);
# python3-matplotlib draws make report's plots (tools/lab/report.py),
# nftables and conntrack are its stateful firewall in the guest
# (router.py --conntrack; Debian leaves the host's nftables.service
# disabled);
# python3-yaml, socat, iputils-ping, jq and netsniff-ng (mausezahn) are for
# the kernel's drivers/net selftests
# (tools/testing/selftests/net/dbbatch/kernel_drivers_net.py).
PKGS=(
	qemu-system-x86 qemu-system-data seabios
	busybox-static cpio kmod xz-utils bc
	make gcc git rsync sparse clang libclang-rt-14-dev dkms python3
	iproute2 ethtool bpftool xdp-tools libxdp1 iperf3
	python3-matplotlib nftables conntrack python3-yaml socat iputils-ping jq netsniff-ng
	"$LAB_SRC_PKG" "$LAB_SRC612_PKG"
)

# --- 1. kernel releases and headers --------------------------------------
declare -A KVER
for v in $LAB_KERNELS_ALL; do
	# lab_kernel_release dies on failure; catch that here to refresh lists.
	KVER[$v]=$( (lab_kernel_release "$v") 2>/dev/null) ||
		refresh_and_restart "cannot resolve kernel $v from $(lab_meta_pkg image "$v")"
	PKGS+=("linux-headers-${KVER[$v]}")
done

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		refresh_and_restart "apt-get install ${missing[*]} failed"
fi

mkdir -p "$CACHE/debs" "$CACHE/kernels" "$CACHE/src" "$CACHE/build"

# --- 2. kernel images for the guest ----------------------------------------
for v in $LAB_KERNELS_ALL; do
	kver=${KVER[$v]}
	dest=$(lab_kernel_dir "$kver")
	[ -e "$dest/vmlinuz" ] && continue

	pkg=linux-image-$kver
	deb=$(find "$CACHE/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
	if [ -z "$deb" ]; then
		log "downloading $pkg"
		dl=$(mktemp -d "$CACHE/debs/.dl.XXXXXX")
		# apt drops privileges to _apt for downloads; let it write here.
		chmod 777 "$dl"
		(cd "$dl" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
			rm -rf "$dl"
			refresh_and_restart "apt-get download $pkg failed"
		}
		mv "$dl"/*.deb "$CACHE/debs/"
		rm -rf "$dl"
		deb=$(find "$CACHE/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
	fi

	log "unpacking $(basename "$deb")"
	tmp=$(mktemp -d "$CACHE/kernels/.tmp.XXXXXX")
	dpkg-deb -x "$deb" "$tmp"
	[ -f "$tmp/boot/vmlinuz-$kver" ] || { rm -rf "$tmp"; die "$deb has no boot/vmlinuz-$kver; delete it and re-run tools/lab/setup.sh"; }
	ln -s "boot/vmlinuz-$kver" "$tmp/vmlinuz"
	# Debian generates modules.dep in postinst; we need it to pick guest
	# modules with their dependencies.
	depmod -b "$tmp" "$kver"
	chmod 755 "$tmp"
	mv -T "$tmp" "$dest"
done

# --- 3. kernel source parts -------------------------------------------------
# extract_src PACKAGE PART...: the PARTs of /usr/src/PACKAGE.tar.xz into
# $CACHE/src/PACKAGE/.  The stamp names the source version and the parts
# list, so a new Debian upload or a longer parts list re-extracts.
extract_src() {
	local pkg=$1 src tarball stamp tmp
	shift
	src=$(lab_src_dir "$pkg")
	tarball=/usr/src/$pkg.tar.xz
	stamp="$(dpkg-query -W -f='${Version}' "$pkg") $*"
	[ "$(cat "$src/.lab-stamp" 2>/dev/null)" != "$stamp" ] || return 0
	[ -f "$tarball" ] || die "$tarball missing; apt-get install --reinstall $pkg"
	log "extracting parts of $tarball (about 15 s)"
	tmp=$(mktemp -d "$CACHE/src/.tmp.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --wildcards "${@/#/$pkg/}"
	echo "$stamp" >"$tmp/$pkg/.lab-stamp"
	# Swap in the new tree; the old one (possibly partial) goes away.
	[ ! -e "$src" ] || mv -T "$src" "$tmp/old"
	mv -T "$tmp/$pkg" "$src"
	rm -rf "$tmp"
}
extract_src "$LAB_SRC_PKG" "${LAB_SRC_PARTS[@]}"
extract_src "$LAB_SRC612_PKG" "${LAB_SRC612_PARTS[@]}"

for v in $LAB_KERNELS_ALL; do
	echo "lab: kernel $v = ${KVER[$v]} ($(lab_kernel_dir "${KVER[$v]}"))"
done
echo "lab: setup done; cache in $CACHE"
