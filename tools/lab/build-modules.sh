#!/bin/bash
# build-modules.sh KERNEL OUTDIR
#
# Build the repo's modules out of tree against Debian's headers for KERNEL
# (6.1, 6.12, 6.12-rt or a full release such as 6.1.0-57-amd64; for
# 6.12-debug against the build tree of build-debug-kernel.sh) with W=1 and sparse
# (C=1), and copy every *.ko into OUTDIR.  Fails on any compiler, modpost or
# sparse warning or error: the log is kept as OUTDIR/build.log.
#
# The tree is copied to $CACHE/build/<kver>/src so the two kernels never
# share object files, and the build is always from scratch: kbuild only
# prints warnings for files it recompiles, so an incremental build would
# hide the warnings of unchanged files.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ $# -eq 2 ] || die "usage: tools/lab/build-modules.sh 6.1|6.12|6.12-rt|6.12-debug OUTDIR"
kver=$(lab_kernel_release "$1")
out=$2
lab_need_headers "$kver"
need_cmd make make
need_cmd gcc gcc
need_cmd sparse sparse

kdir=/lib/modules/$kver/build
bdir=$CACHE/build/$kver
src=$bdir/src
mkdir -p "$bdir"
# One build at a time in this tree: a second one would wipe it under the
# first (seen: "cannot find test_dbbatch.mod" when two lab runs built 6.1).
exec 9>"$bdir/.lock"
if ! flock -n 9; then
	log "waiting for another module build for $kver ($bdir)"
	flock 9
fi
rm -rf "$src"
mkdir -p "$src" "$out"

# Copy the sources: what git tracks plus new files it does not ignore (so
# uncommitted work is built too); without git, every file.  Build output
# left in the repo by an in-tree build is dropped either way.
list_sources() {
	if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$REPO" ls-files -z --cached --others --exclude-standard
	else
		(cd "$REPO" && find . -name .git -prune -o -type f -printf '%P\0')
	fi | grep -zvE '(^|/)(build/|\.tmp_)|\.(o|ko|a|mod|mod\.c|cmd|symvers)$|(^|/)modules\.order$' || true
}
list_sources | (cd "$REPO" && tar --null --no-recursion -T - -cf -) | tar -xf - -C "$src"

log="$bdir/build.log"
echo "lab: building modules for $kver in $src"
rc=0
make -C "$kdir" M="$src" W=1 C=1 -j"${LAB_JOBS:-2}" modules >"$log" 2>&1 || rc=$?
cp "$log" "$out/build.log"

# Any warning or error line fails the build: gcc's "file:l:c: warning:",
# sparse's (which does not fail make even for "error:"), and modpost's
# "WARNING: modpost: ...".
if grep -Eiq '(warning|error):' "$log" || [ $rc -ne 0 ]; then
	grep -Ei -B2 -A3 '(warning|error):' "$log" | head -n 60 >&2 || tail -n 30 "$log" >&2
	die "module build for $kver failed (make exit $rc, $(grep -Eic '(warning|error):' "$log") warning/error lines); full log: $out/build.log"
fi

mapfile -t kos < <(find "$src" -name '*.ko' | sort)
[ ${#kos[@]} -gt 0 ] || die "module build for $kver produced no .ko; see $out/build.log (is the top-level Makefile a Kbuild file?)"
rm -f "$out"/*.ko
cp "${kos[@]}" "$out/"
echo "lab: built for $kver: $(cd "$out" && echo *.ko)"
