#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh KERNEL_RELEASE: add, build and install the DKMS package for
# one kernel in private trees (--sourcetree/--dkmstree/--installtree), so
# the check neither needs nor touches the system's /usr/src, /var/lib/dkms
# or /lib/modules.
set -euo pipefail

kver=${1:?usage: dkms-check.sh KERNEL_RELEASE}
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v dkms >/dev/null ||
	{ echo "dkms-check: dkms not found; apt-get install dkms" >&2; exit 2; }
[ -d "/lib/modules/$kver/build" ] ||
	{ echo "dkms-check: no headers for $kver; apt-get install linux-headers-$kver" >&2; exit 2; }

name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$repo/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/$name-$ver" "$tmp/dkms" "$tmp/install/$kver"
# What a source package would ship: the tracked files.
git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$tmp/src/$name-$ver")
# Files not yet committed still belong to the check of a work tree.
git -C "$repo" ls-files -z --others --exclude-standard |
	(cd "$repo" && xargs -0 -r cp --parents -t "$tmp/src/$name-$ver")

opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms" --installtree "$tmp/install")
dkms add -m "$name" -v "$ver" "${opts[@]}" >"$tmp/log" 2>&1 &&
	dkms build -m "$name" -v "$ver" -k "$kver" "${opts[@]}" >>"$tmp/log" 2>&1 &&
	dkms install -m "$name" -v "$ver" -k "$kver" --no-depmod "${opts[@]}" >>"$tmp/log" 2>&1 || {
	cat "$tmp/log" "$tmp/dkms/$name/$ver/build/make.log" 2>/dev/null | tail -n 40 >&2
	echo "dkms-check: $name $ver failed for $kver" >&2
	exit 1
}
found=$(find "$tmp/install" -name '*.ko*' | wc -l)
want=$(grep -c '^BUILT_MODULE_NAME' "$repo/dkms.conf")
if [ "$found" -ne "$want" ]; then
	echo "dkms-check: $kver: installed $found modules, dkms.conf names $want" >&2
	exit 1
fi
echo "dkms-check: $name $ver builds and installs for $kver ($found modules)"
