# shellcheck shell=bash disable=SC2034  # variables are for the sourcing scripts
# Shared helpers for the dbbatch VM lab.  Sourced, never run.
#
# Every failure the lab can diagnose ends in die(): one line saying what is
# wrong and what to do, exit status 2 (1 is left for "tests failed").

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# LAB_REPO points the lab at another tree (used to test the lab itself).
REPO=${LAB_REPO:-$(cd "$LAB_DIR/../.." && pwd)}

# Downloads, unpacked kernels and build trees live outside the repo so that a
# fresh clone (CI) reuses them and `git clean` does not throw them away.
CACHE=${DBBATCH_CACHE:-/var/cache/dbbatch}

# QEMU binary; a later issue swaps in our own build.
LAB_QEMU=${LAB_QEMU:-qemu-system-x86_64}

# The kernels we support, as the names the user types: LAB_KERNELS by
# default everywhere; the PREEMPT_RT flavour of 6.12 where asked for by
# name (make check runs the core's tests and igc_batch's on it).
LAB_KERNELS="6.1 6.12"
LAB_KERNELS_RT="6.12-rt"
# Debian's 6.12 rebuilt with KASAN, lockdep and friends
# (build-debug-kernel.sh; hours to build, so never built by setup.sh:
# `make debug-kernel` or `make check-debug`).
# Not in LAB_KERNELS_ALL, which are the kernels setup.sh fetches.
LAB_KERNELS_DEBUG="6.12-debug"
LAB_KERNELS_ALL="$LAB_KERNELS $LAB_KERNELS_RT"

# Upstream octeon_ep, which Debian does not build (CONFIG_OCTEON_EP unset):
# build-octeon-ep.sh builds it per kernel from that kernel's own sources.
LAB_OCTEP_PART=drivers/net/ethernet/marvell/octeon_ep

# The one kernel source tarball we take the kselftest skeleton from, and the
# parts of it the lab (and the project: checkpatch, igc, net/core, octeon_ep)
# needs.
LAB_SRC_PKG=linux-source-6.1
LAB_SRC_PARTS=(
	scripts
	tools/scripts
	tools/build
	tools/testing/selftests/Makefile
	tools/testing/selftests/lib.mk
	tools/testing/selftests/run_kselftest.sh
	'tools/testing/selftests/kselftest*'
	tools/testing/selftests/net
	net/core
	Documentation/process
	drivers/net/ethernet/intel/igc
	"$LAB_OCTEP_PART"
)

# The 6.12 sources: only octeon_ep, so that 6.12's driver is 6.12's.
LAB_SRC612_PKG=linux-source-6.12
LAB_SRC612_PARTS=(
	"$LAB_OCTEP_PART"
)

die() {
	echo "lab: $*" >&2
	exit 2
}

log() {
	echo "lab: $*" >&2
}

# need_cmd CMD PACKAGE: fail early, naming the Debian package to install.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; apt-get install $2 (or run tools/lab/setup.sh)"
}

# The Debian meta packages that track each supported kernel.  The 6.1 kernel
# is bookworm's default (linux-image-amd64); 6.12 comes from the
# linux-image-6.12-amd64 meta package.
lab_meta_pkg() { # image|headers VERSION
	case "$2" in
	6.1) echo "linux-$1-amd64" ;;
	6.12) echo "linux-$1-6.12-amd64" ;;
	6.12-rt) echo "linux-$1-6.12-rt-amd64" ;;
	*) die "unknown kernel '$2'; supported: $LAB_KERNELS_ALL" ;;
	esac
}

# lab_debug_release -> e.g. 6.12.117-dbb-debug: the debug kernel built from
# the installed linux-source-6.12 (the upstream part of its version).
lab_debug_release() {
	local v
	v=$(dpkg-query -W -f='${Version}' "$LAB_SRC612_PKG" 2>/dev/null) ||
		die "$LAB_SRC612_PKG is not installed; run tools/lab/setup.sh"
	echo "${v%%-*}-dbb-debug"
}

# lab_kernel_release 6.1|6.12 -> e.g. 6.1.0-57-amd64.  Resolved from the meta
# package so a Debian ABI bump needs no edit here.  Also accepts a release
# that is already resolved (6.1.0-57-amd64), so scripts can pass either.
lab_kernel_release() {
	local v=$1 meta dep
	case "$v" in
	6.1 | 6.12 | 6.12-rt) ;;
	6.12-debug) lab_debug_release; return ;;
	6.*-amd64 | 6.*-dbb-debug) echo "$v"; return ;;
	*) die "unknown kernel '$v'; supported: $LAB_KERNELS_ALL $LAB_KERNELS_DEBUG" ;;
	esac
	meta=$(lab_meta_pkg image "$v")
	# apt-cache prints "  Depends: linux-image-6.1.0-57-amd64".
	dep=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(6\.[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
	[ -n "$dep" ] ||
		die "cannot resolve kernel $v from package $meta; run apt-get update (or tools/lab/setup.sh)"
	echo "$dep"
}

# lab_short_version 6.1.0-57-amd64 -> 6.1 (for messages and output dirs).
lab_short_version() {
	case "$1" in
	6.1 | 6.1.*) echo 6.1 ;;
	6.12-rt | 6.12.*-rt-amd64) echo 6.12-rt ;;
	6.12-debug | 6.12.*-dbb-debug) echo 6.12-debug ;;
	6.12 | 6.12.*) echo 6.12 ;;
	*) echo "$1" ;;
	esac
}

# Headers give /lib/modules/<kver>/build; the package is named after kver.
lab_need_headers() { # KVER
	case "$1" in
	*-dbb-debug)
		[ -e "/lib/modules/$1/build/Makefile" ] ||
			die "no build tree for the debug kernel $1 (/lib/modules/$1/build); run tools/lab/build-debug-kernel.sh (make debug-kernel)"
		return ;;
	esac
	[ -e "/lib/modules/$1/build/Makefile" ] ||
		die "no kernel headers for $1 (/lib/modules/$1/build); apt-get install linux-headers-$1 (or run tools/lab/setup.sh)"
}

# Where setup.sh unpacked Debian's kernel image for the guest.
lab_kernel_dir() { echo "$CACHE/kernels/$1"; }

lab_need_kernel_image() { # KVER
	case "$1" in
	*-dbb-debug)
		[ -e "$(lab_kernel_dir "$1")/vmlinuz" ] ||
			die "no debug kernel $1 in $(lab_kernel_dir "$1"); run tools/lab/build-debug-kernel.sh (make debug-kernel)"
		return ;;
	esac
	[ -e "$(lab_kernel_dir "$1")/vmlinuz" ] ||
		die "no unpacked kernel image for $1 in $(lab_kernel_dir "$1"); run tools/lab/setup.sh"
}

# lab_src_dir [PACKAGE]: where setup.sh extracted parts of a linux-source
# package (default: linux-source-6.1).
lab_src_dir() { echo "$CACHE/src/${1:-$LAB_SRC_PKG}"; }

# lab_src_pkg 6.1|6.12|6.12-rt|RELEASE: the linux-source package of that
# kernel's own version.
lab_src_pkg() {
	case "$(lab_short_version "$1")" in
	6.1) echo "$LAB_SRC_PKG" ;;
	6.12 | 6.12-rt | 6.12-debug) echo "$LAB_SRC612_PKG" ;;
	*) die "no linux-source package known for kernel '$1'; supported: $LAB_KERNELS_ALL $LAB_KERNELS_DEBUG" ;;
	esac
}
