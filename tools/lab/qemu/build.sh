#!/bin/bash
# build.sh: build QEMU 7.2 (Debian's source package) with our device models
# (dbb-igc, dbb-octep) compiled in, and print the path of the binary as the
# last line of stdout.
#
#   tools/lab/qemu/build.sh            build if needed, print the binary path
#   LAB_QEMU=$(tools/lab/qemu/build.sh | tail -n1)
#
# Result: $CACHE/qemu/<hash>/qemu-system-x86_64 (+ libinsn.so next to it),
# where <hash> is a sha256 over this script, the model sources
# (tools/lab/qemu/dbb_*.[ch]) and our fixes to QEMU (patches/*.diff).  A cached entry makes this a no-op that
# returns in well under a second.  A new entry is assembled in a temp dir
# and renamed into place, so an interrupted build never leaves a half-built
# entry that a later run would trust.
#
# The build itself runs in $CACHE/qemu/work (unpacked tarball + build dir,
# reused across model changes so that a model edit recompiles a few files
# instead of QEMU's 1441 steps; it is recreated from scratch whenever it was
# not configured completely).  A lock serialises concurrent runs.
#
# Run it as root the first time (apt-get for the deb-src entry, the source
# package and the build dependencies); later runs need no root.
#
# At run time the BIOS comes from Debian's packages:
#   qemu-system-x86_64 -L /usr/share/seabios -L /usr/share/qemu ...
#
# DBBATCH_CACHE (default /var/cache/dbbatch) moves the cache.
# DBB_QEMU_JOBS (default 2) is ninja's -j.
set -euo pipefail

die() {
	echo "qemu-build: $*" >&2
	exit 2
}
log() { echo "qemu-build: $*" >&2; }

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/cache-prune.sh
. "$HERE/../lib/cache-prune.sh"
CACHE=${DBBATCH_CACHE:-/var/cache/dbbatch}
QDIR=$CACHE/qemu
JOBS=${DBB_QEMU_JOBS:-2}

# Our model sources: everything named dbb_*.c / dbb_*.h next to this script
# (globs sorted the same way everywhere).
export LC_ALL=C
shopt -s nullglob
MODEL_C=("$HERE"/dbb_*.c)
MODEL_H=("$HERE"/dbb_*.h)
# Fixes to QEMU 7.2 itself the lab needs (each says why at its top)
PATCHES=("$HERE"/patches/*.diff)
shopt -u nullglob
[ ${#MODEL_C[@]} -gt 0 ] || die "no model sources (dbb_*.c) in $HERE"

hash=$({
	cat "$HERE/build.sh"
	for f in "${MODEL_C[@]}" "${MODEL_H[@]}" "${PATCHES[@]}"; do
		echo "== ${f##*/}"
		cat "$f"
	done
} | sha256sum | cut -c1-16)
entry=$QDIR/$hash
if [ -x "$entry/qemu-system-x86_64" ] && [ -e "$entry/libinsn.so" ]; then
	touch "$entry" 2>/dev/null || true	# in use: not pruned below
	echo "$entry/qemu-system-x86_64"
	exit 0
fi

mkdir -p "$QDIR" 2>/dev/null || die "cannot create $QDIR; run as root once or set DBBATCH_CACHE"
exec 9>"$QDIR/.lock"
flock 9
# Somebody else may have built it while we waited for the lock.
if [ -x "$entry/qemu-system-x86_64" ] && [ -e "$entry/libinsn.so" ]; then
	echo "$entry/qemu-system-x86_64"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
is_root() { [ "$(id -u)" = 0 ]; }

# --- build dependencies ---------------------------------------------------
DEPS=(ninja-build meson gcc make pkg-config flex bison bzip2 xz-utils
	libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev python3-venv)
missing=()
for p in "${DEPS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	is_root || die "missing build dependencies; run: apt-get install -y --no-install-recommends ${missing[*]}"
	log "installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
			apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } ||
		die "apt-get install ${missing[*]} failed; check /etc/apt/sources.list*"
fi

# --- the source package ---------------------------------------------------
# Add a deb-src twin of Debian's main deb entry unless one exists already.
add_deb_src() {
	local d=/etc/apt/sources.list.d out
	grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list "$d"/ && return 0
	is_root || die "no deb-src entry in /etc/apt; run this once as root (it adds one to $d)"
	if [ -e "$d/debian.sources" ]; then
		# The deb822 stanza of Debian's main archive, with Types swapped.
		out=$d/dbbatch-deb-src.sources
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
			/URIs:[^\n]*debian\/?($|\n| )/ && !done { sub(/Types:[^\n]*/, "Types: deb-src"); print; done = 1 }' \
			"$d/debian.sources" >"$out.tmp"
	else
		out=$d/dbbatch-deb-src.list
		sed -n 's/^deb \(.*debian\/\? .*main.*\)$/deb-src \1/p' /etc/apt/sources.list 2>/dev/null |
			head -n1 >"$out.tmp"
	fi
	[ -s "$out.tmp" ] || { rm -f "$out.tmp"; die "cannot derive a deb-src entry from /etc/apt; add one for Debian's main archive"; }
	mv "$out.tmp" "$out"
	log "added $out; running apt-get update"
	apt-get update -q >/dev/null 2>&1 || die "apt-get update failed after adding $out"
}

# add_kconfig SRC: one Kconfig symbol per model in hw/net/Kconfig (idempotent)
add_kconfig() {
	local model
	for model in IGC OCTEP; do
		grep -qx "config DBB_$model" "$1/hw/net/Kconfig" ||
			printf '\nconfig DBB_%s\n    bool\n    default y if PCI_DEVICES\n    depends on PCI_EXPRESS && MSI_NONBROKEN\n' \
				"$model" >>"$1/hw/net/Kconfig"
	done
}

mkdir -p "$QDIR/src"
orig=$(ls "$QDIR"/src/qemu_7.2*.orig.tar.xz 2>/dev/null | head -n1 || true)
if [ -z "$orig" ]; then
	add_deb_src
	log "downloading Debian's qemu source package"
	dl=$(mktemp -d "$QDIR/src/.dl.XXXXXX")
	chmod 777 "$dl" # apt drops privileges to _apt for downloads
	(cd "$dl" && apt-get source -q --download-only qemu >/dev/null 2>&1) ||
		{ apt-get update -q >/dev/null 2>&1 && (cd "$dl" && apt-get source -q --download-only qemu >/dev/null 2>&1); } ||
		{ rm -rf "$dl"; die "apt-get source --download-only qemu failed; check the deb-src entry and apt-get update"; }
	f=$(ls "$dl"/qemu_7.2*.orig.tar.xz 2>/dev/null | head -n1 || true)
	[ -n "$f" ] || { rm -rf "$dl"; die "the qemu source package is not 7.2 (got: $(ls "$dl")); this build expects bookworm's QEMU 7.2"; }
	mv "$dl"/* "$QDIR/src/"
	rm -rf "$dl"
	orig=$(ls "$QDIR"/src/qemu_7.2*.orig.tar.xz | head -n1)
fi

# --- the work tree ----------------------------------------------------------
CONFIG_ARGS=(--target-list=x86_64-softmmu --without-default-features --enable-kvm
	--disable-docs --enable-fdt=system --disable-install-blobs --enable-plugins)
work=$QDIR/work
stamp="$(basename "$orig") ${CONFIG_ARGS[*]} v2"
if [ "$(cat "$work/.configured" 2>/dev/null || true)" != "$stamp" ]; then
	log "unpacking $(basename "$orig") and configuring (first build: ~5 min on 2 idle cores)"
	rm -rf "$work"
	mkdir -p "$work"
	tar -xf "$orig" -C "$work" || die "cannot unpack $orig"
	mv "$work"/qemu-7.2* "$work/src"
	src=$work/src
	# The dfsg tarball has no firmware blobs: do not unpack edk2 ones.
	sed -i 's/^\( *unpack_edk2_blobs = \)bzip2\.found()/\1false/' "$src/meson.build"
	grep -q 'unpack_edk2_blobs = bzip2' "$src/meson.build" && die "could not disable unpack_edk2_blobs in meson.build"
	add_kconfig "$src"
	# The file list line is (re)written below from the model sources.
	printf '\n# dbbatch models\n' >>"$src/hw/net/meson.build"
	mkdir -p "$work/build"
	(cd "$work/build" && nice -n 10 ../src/configure "${CONFIG_ARGS[@]}" >"$work/configure.log" 2>&1) ||
		die "configure failed; see $work/configure.log (missing -dev package?)"
	echo "$stamp" >"$work/.configured"
fi
src=$work/src

# A work tree configured before a model existed gets its symbol here;
# meson re-reads Kconfig on the next ninja run.
add_kconfig "$src"

# Our fixes to QEMU, each applied once (a work tree is reused).
for p in "${PATCHES[@]}"; do
	if (cd "$src" && patch -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1); then
		continue
	fi
	(cd "$src" && patch -p1 -N -s <"$p") || die "cannot apply ${p##*/} to QEMU's source"
	log "applied ${p##*/}"
done

# Copy the model in (only files that changed, to keep ninja incremental)
# and list its .c files in hw/net/meson.build.  dbb_truth.c (the ground
# truth both models share) is listed with each, as QEMU lists its shared
# net_tx_pkt.c: the source set takes a file once.
for f in "${MODEL_C[@]}" "${MODEL_H[@]}"; do
	cmp -s "$f" "$src/hw/net/$(basename "$f")" || cp "$f" "$src/hw/net/"
done
# model_files PREFIX: the model's .c files as a meson list body ('a.c', ...)
model_files() {
	local f
	for f in "${MODEL_C[@]}"; do
		case "${f##*/}" in "$1"*) printf "'%s', " "${f##*/}" ;; esac
	done
}
lines=("softmmu_ss.add(when: 'CONFIG_DBB_IGC', if_true: files($(model_files dbb_igc)$(model_files dbb_truth)'net_tx_pkt.c', 'net_rx_pkt.c'))"
	"softmmu_ss.add(when: 'CONFIG_DBB_OCTEP', if_true: files($({ model_files dbb_octep; model_files dbb_truth; } | sed 's/, $//')))")
for line in "${lines[@]}"; do
	if ! grep -qxF "$line" "$src/hw/net/meson.build"; then
		sym=${line#*when: \'}
		sym=${sym%%\'*}
		sed -i "/$sym'/d" "$src/hw/net/meson.build"
		echo "$line" >>"$src/hw/net/meson.build"
	fi
done

log "building (ninja -j$JOBS; log in $work/build.log)"
start=$(date +%s)
(cd "$work/build" && nice -n 10 ninja -j"$JOBS" qemu-system-x86_64 tests/plugin/libinsn.so >"$work/build.log" 2>&1) || {
	grep -E 'error|Error' "$work/build.log" | head -n 5 >&2 || true
	die "build failed; see $work/build.log"
}
log "built in $(($(date +%s) - start)) s"
# QEMU's release tarball builds without -Werror; hold our own files to it.
if grep -A3 -E 'hw/net/dbb_[a-z_]*\.[ch]:[0-9]+:[0-9]+: (warning|error)' "$work/build.log" >&2; then
	touch "$src"/hw/net/dbb_*.c # recompile (and warn) again next time
	die "our model compiles with warnings (above); fix them"
fi
for dev in dbb-igc dbb-octep; do
	"$work/build/qemu-system-x86_64" -device help 2>/dev/null | grep -q "\"$dev\"" ||
		die "the built QEMU has no $dev device (Kconfig?); see $work/build.log"
done

tmp=$(mktemp -d "$QDIR/.new.XXXXXX")
cp "$work/build/qemu-system-x86_64" "$work/build/tests/plugin/libinsn.so" "$tmp/" ||
	{ rm -rf "$tmp"; die "cannot copy the build into $tmp (disk full?)"; }
echo "$hash" >"$tmp/hash"
chmod 755 "$tmp"
rm -rf "$entry"
mv "$tmp" "$entry"

# The five newest entries stay, and any used in the last day.
lab_prune_cache "$QDIR" 5

echo "$entry/qemu-system-x86_64"
