#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dbbatch-into-tree.sh KERNEL_SOURCE: put dbbatch into a kernel source tree,
# files at the same paths as here, and hook them into Kconfig and the
# Makefiles.  Running it again changes nothing.  Then: make menuconfig
# (Networking support -> dbbatch; Device Drivers -> Network device support
# -> Ethernet driver support -> Intel devices -> igc_batch), or
# scripts/config -m DBBATCH -m IGC_BATCH.
set -euo pipefail

ksrc=${1:?usage: dbbatch-into-tree.sh KERNEL_SOURCE}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ksrc/Kbuild" ] && [ -f "$ksrc/net/Kconfig" ] ||
	{ echo "dbbatch-into-tree: $ksrc is not a kernel source tree" >&2; exit 2; }
intel=$ksrc/drivers/net/ethernet/intel
[ -f "$intel/Kconfig" ] && [ -f "$intel/Makefile" ] ||
	{ echo "dbbatch-into-tree: $intel has no Kconfig/Makefile" >&2; exit 2; }

# append_once FILE LINE
append_once()
{
	grep -qxF "$2" "$1" || printf '%s\n' "$2" >>"$1"
}

install -m 0644 -t "$ksrc/include/net" "$repo"/include/net/dbbatch*.h
install -m 0644 -t "$ksrc/net/core" "$repo/net/core/dbbatch.c"
install -m 0644 -t "$ksrc/lib" "$repo/lib/test_dbbatch.c"

# kconfig_part SYMBOL yes|no: our Kconfig with only (yes) or without (no)
# the "config SYMBOL" entry.  A driver's entry goes next to its vendor's.
kconfig_part()
{
	awk -v sym="$1" -v only="$2" '
		/^(menu)?config / { in_sym = ($2 == sym) }
		(only == "yes") == in_sym { print }' "$repo/Kconfig"
}

kconfig_part IGC_BATCH no >"$ksrc/net/Kconfig.dbbatch"

# igc_batch: its directory, its Kconfig entry in the Intel menu
igcb=drivers/net/ethernet/intel/igc_batch
mkdir -p "$ksrc/$igcb"
install -m 0644 -t "$ksrc/$igcb" "$repo/$igcb"/*.[ch] "$repo/$igcb/Makefile"
{
	echo '# SPDX-License-Identifier: GPL-2.0'
	echo '# From dbbatch'"'"'s Kconfig, by scripts/dbbatch-into-tree.sh'
	kconfig_part IGC_BATCH yes
} >"$ksrc/$igcb/Kconfig"
mkdir -p "$ksrc/Documentation/networking/device_drivers/ethernet/intel"
install -m 0644 "$repo/Documentation/networking/device_drivers/ethernet/intel/igc_batch.rst" \
	"$ksrc/Documentation/networking/device_drivers/ethernet/intel/"
append_once "$intel/Makefile" 'obj-$(CONFIG_IGC_BATCH) += igc_batch/'
src_line="source \"$igcb/Kconfig\""
if ! grep -qxF "$src_line" "$intel/Kconfig"; then
	if grep -q '^endif # NET_VENDOR_INTEL' "$intel/Kconfig"; then
		sed -i "/^endif # NET_VENDOR_INTEL/i $src_line\\n" "$intel/Kconfig"
	else
		printf '%s\n' "$src_line" >>"$intel/Kconfig"
	fi
fi

append_once "$ksrc/net/Kconfig" 'source "net/Kconfig.dbbatch"'
append_once "$ksrc/net/core/Makefile" 'obj-$(CONFIG_DBBATCH) += dbbatch.o'
append_once "$ksrc/lib/Makefile" 'obj-$(CONFIG_TEST_DBBATCH) += test_dbbatch.o'
# In a tree the feature tests of our out-of-tree Makefile are not run:
# the tree is one kernel version, so test it here once.
if grep -q netdev_xmit_set_more "$ksrc/include/linux/netdevice.h"; then
	append_once "$ksrc/lib/Makefile" 'CFLAGS_test_dbbatch.o += -DDBB_HAVE_XMIT_SET_MORE'
fi
echo "dbbatch-into-tree: installed into $ksrc; enable CONFIG_DBBATCH and CONFIG_IGC_BATCH"
