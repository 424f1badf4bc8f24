# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by the lab's cached builds (tools/lab/qemu/build.sh).
#
# lab_prune_cache DIR KEEP: remove stale build entries of DIR (each a
# directory named by its hash, holding a "hash" file): never the KEEP
# newest, and of the older ones only those unused for a day (another
# tree's run, e.g. make check-debug in a clone, may still start guests
# from one; every cache hit touches its entry).  Returns 0: what is kept
# is not a failure.
lab_prune_cache() {
	local dir=$1 keep=$2 old

	{ ls -1dt "$dir"/[0-9a-f]*/ 2>/dev/null || true; } |
		tail -n +$((keep + 1)) |
		while read -r old; do
			if [ -e "$old/hash" ] &&
				[ -n "$(find "$old" -maxdepth 0 -mmin +1440)" ]; then
				rm -rf "$old" || true
			fi
		done
	return 0
}
