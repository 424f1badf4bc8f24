#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dbbatch-into-tree.sh KERNEL_SOURCE: put dbbatch into a kernel source tree,
# files at the same paths as here, and hook them into Kconfig and the
# Makefiles.  Running it again changes nothing.  Then: make menuconfig
# (Networking support -> dbbatch), or scripts/config -m DBBATCH.
set -euo pipefail

ksrc=${1:?usage: dbbatch-into-tree.sh KERNEL_SOURCE}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ksrc/Kbuild" ] && [ -f "$ksrc/net/Kconfig" ] ||
	{ echo "dbbatch-into-tree: $ksrc is not a kernel source tree" >&2; exit 2; }

# append_once FILE LINE
append_once()
{
	grep -qxF "$2" "$1" || printf '%s\n' "$2" >>"$1"
}

install -m 0644 -t "$ksrc/include/net" "$repo"/include/net/dbbatch*.h
install -m 0644 -t "$ksrc/net/core" "$repo/net/core/dbbatch.c"
install -m 0644 -t "$ksrc/lib" "$repo/lib/test_dbbatch.c"
install -m 0644 "$repo/Kconfig" "$ksrc/net/Kconfig.dbbatch"

append_once "$ksrc/net/Kconfig" 'source "net/Kconfig.dbbatch"'
append_once "$ksrc/net/core/Makefile" 'obj-$(CONFIG_DBBATCH) += dbbatch.o'
append_once "$ksrc/lib/Makefile" 'obj-$(CONFIG_TEST_DBBATCH) += test_dbbatch.o'
# In a tree the feature tests of our out-of-tree Makefile are not run:
# the tree is one kernel version, so test it here once.
if grep -q netdev_xmit_set_more "$ksrc/include/linux/netdevice.h"; then
	append_once "$ksrc/lib/Makefile" 'CFLAGS_test_dbbatch.o += -DDBB_HAVE_XMIT_SET_MORE'
fi
echo "dbbatch-into-tree: installed into $ksrc; enable CONFIG_DBBATCH"
