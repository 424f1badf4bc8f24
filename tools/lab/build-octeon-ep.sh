#!/bin/bash
# build-octeon-ep.sh KERNEL
#
# Build the unmodified upstream Marvell octeon_ep driver (Debian does not:
# CONFIG_OCTEON_EP is unset in its configs) as an external module for
# KERNEL (6.1, 6.12, 6.12-rt or a full release such as 6.1.0-57-amd64),
# from that kernel's own Debian source package (linux-source-6.1 for 6.1,
# linux-source-6.12 for 6.12), and print the path of octeon_ep.ko as the
# last line of stdout:
#
#   ko=$(tools/lab/build-octeon-ep.sh 6.12 | tail -n1)
#
# Result: $CACHE/octeon_ep/<kver>/<source version>/ with octeon_ep.ko,
# build.log (warnings in it are upstream's and fail nothing) and info
# (versions, vermagic, the make command, the build time).  A cached entry
# makes this a no-op that returns in well under a second.  A new entry is
# assembled in a temp dir and renamed into place, so an interrupted build
# never leaves an entry a later run would trust; a lock serialises
# concurrent runs.
#
# The module is checked before it is cached: vermagic equal to that of
# Debian's own modules of the kernel, the PCI alias 177d:b200, and every
# module it depends on found in Debian's kernel image (modprobe
# --show-depends in $CACHE/kernels/<kver>, as labvm.py resolves them).
#
# Sources come from tools/lab/setup.sh ($CACHE/src/<package>/); run as
# root, this runs setup.sh itself when they are missing or stale.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ $# -eq 1 ] || die "usage: tools/lab/build-octeon-ep.sh 6.1|6.12"
ODIR=$CACHE/octeon_ep

# lab_kernel_release asks apt-cache, which takes 1.7 s where apt keeps no
# binary cache (Debian's docker images); the answer changes only with the
# package lists or the installed packages, so a note of it stays good while
# it is newer than both.
release_of() { # 6.1|6.12|6.12-rt|RELEASE
	local memo=$ODIR/.release-$1 r
	case "$1" in
	6.1 | 6.12 | 6.12-rt) ;;
	*) lab_kernel_release "$1"; return ;;
	esac
	if [ -s "$memo" ] && [ "$memo" -nt /var/lib/apt/lists ] && [ "$memo" -nt /var/lib/dpkg/status ]; then
		cat "$memo"
		return
	fi
	r=$(lab_kernel_release "$1")
	{ mkdir -p "$ODIR" && echo "$r" >"$memo.$$" && mv "$memo.$$" "$memo"; } 2>/dev/null ||
		rm -f "$memo.$$"
	echo "$r"
}
kver=$(release_of "$1")
pkg=$(lab_src_pkg "$kver")

src_version() { dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true; }

# The cache key: the source package's version and the kernel release.
ver=$(src_version)
entry=$ODIR/$kver/$ver
if [ -n "$ver" ] && [ -f "$entry/octeon_ep.ko" ]; then
	echo "$entry/octeon_ep.ko"
	exit 0
fi

mkdir -p "$ODIR" 2>/dev/null || die "cannot create $ODIR; run as root once or set DBBATCH_CACHE"
exec 9>"$ODIR/.lock"
flock 9

# The driver's sources, extracted by setup.sh from the installed package;
# its stamp starts with the version it was extracted from.
src=$(lab_src_dir "$pkg")
drv=$src/$LAB_OCTEP_PART
sources_ok() {
	ver=$(src_version)
	[ -n "$ver" ] && [ -f "$drv/Makefile" ] &&
		[ "$(cut -d' ' -f1 "$src/.lab-stamp" 2>/dev/null)" = "$ver" ]
}
if ! sources_ok; then
	[ "$(id -u)" = 0 ] ||
		die "no octeon_ep sources of the installed $pkg in $src; run tools/lab/setup.sh (as root)"
	log "octeon_ep sources of $pkg missing or stale in $src; running tools/lab/setup.sh"
	"$LAB_DIR/setup.sh" >&2 || die "tools/lab/setup.sh failed"
	sources_ok || die "tools/lab/setup.sh left no $drv matching $pkg $ver"
fi

entry=$ODIR/$kver/$ver
# Somebody else may have built it while we waited for the lock.
if [ -f "$entry/octeon_ep.ko" ]; then
	echo "$entry/octeon_ep.ko"
	exit 0
fi

lab_need_headers "$kver"
lab_need_kernel_image "$kver"
need_cmd make make
need_cmd gcc gcc
need_cmd modinfo kmod
need_cmd modprobe kmod

kdir=/lib/modules/$kver/build
kimg=$(lab_kernel_dir "$kver")
hpkg=linux-headers-$kver
hver=$(dpkg-query -W -f='${Version}' "$hpkg" 2>/dev/null || echo unknown)
# Debian builds both from one source upload; a mismatch means one of them
# was upgraded without the other.  The driver still comes from the named
# source version (it is the cache key) and the checks below still apply.
[ "$hver" = "$ver" ] ||
	log "note: $pkg is $ver but $hpkg is $hver; building $pkg $ver's octeon_ep against $kver"

tmp=$(mktemp -d "$ODIR/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -a "$drv" "$tmp/src"
mkdir "$tmp/entry"
blog=$tmp/entry/build.log
makecmd=(make -C "$kdir" M="$tmp/src" CONFIG_OCTEON_EP=m -j"${LAB_JOBS:-2}" modules)
log "building upstream octeon_ep from $pkg $ver for $kver"
start=$(date +%s.%N)
rc=0
"${makecmd[@]}" >"$blog" 2>&1 || rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)

# A failed build leaves its log next to the entries, for the message.
fail() {
	mkdir -p "$ODIR/$kver"
	cp "$blog" "$ODIR/$kver/failed-build.log"
	die "octeon_ep for $kver: $*; log: $ODIR/$kver/failed-build.log"
}
if [ "$rc" -ne 0 ] || grep -q 'undefined!' "$blog"; then
	tail -n 30 "$blog" >&2
	fail "build failed (make exit $rc)"
fi
ko=$tmp/src/octeon_ep.ko
[ -f "$ko" ] || fail "make produced no octeon_ep.ko"

# vermagic: the release first, then the whole string equal to that of a
# module Debian built for this kernel (SMP preempt mod_unload modversions).
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$kver" ] || fail "vermagic '$vermagic' is not for $kver"
ref=$(find "$kimg/lib/modules/$kver/kernel" -name '*.ko*' -print -quit)
[ -n "$ref" ] || fail "no module in $kimg/lib/modules/$kver/kernel to compare vermagic with"
refmagic=$(modinfo -F vermagic "$ref")
[ "$vermagic" = "$refmagic" ] || fail "vermagic '$vermagic' differs from Debian's '$refmagic' (${ref##*/})"

modinfo -F alias "$ko" | grep -qi '^pci:v0000177Dd0000B200sv' ||
	fail "no PCI alias for 177d:b200 (modinfo -F alias)"

# Every dependency must come from Debian's kernel image.
depends=$(modinfo -F depends "$ko")
for d in ${depends//,/ }; do
	modprobe -d "$kimg" -S "$kver" --show-depends "$d" >/dev/null 2>&1 ||
		fail "depends on $d, which Debian's $kver image ($kimg) does not have"
done

cp "$ko" "$tmp/entry/"
cat >"$tmp/entry/info" <<EOF
driver: upstream octeon_ep ($LAB_OCTEP_PART), unmodified
source: $pkg $ver
headers: $hpkg $hver
kernel: $kver
vermagic: $vermagic
sha256: $(sha256sum "$ko" | cut -d' ' -f1)
depends: ${depends:-(none)}
make: ${makecmd[*]/#M=*/M=<a copy of $drv>}
build seconds: $secs
built: $(date -u +%FT%TZ)
EOF
mkdir -p "$ODIR/$kver"
rm -rf "$entry" # only ever an entry someone took the module out of
mv -T "$tmp/entry" "$entry"
rm -f "$ODIR/$kver/failed-build.log"
log "built octeon_ep for $kver in ${secs%.*} s ($(grep -c 'warning:' "$entry/build.log" || true) warning lines, upstream's); depends: ${depends:-none}"
echo "$entry/octeon_ep.ko"
