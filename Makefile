# SPDX-License-Identifier: GPL-2.0
#
# Kbuild for an out-of-tree build (make KDIR=/lib/modules/<release>/build),
# and the project's own targets (check, unit, fuzz, clean) around it.
#

ifneq ($(KERNELRELEASE),)

# Out of tree no .config names our symbols: build every module.
CONFIG_DBBATCH ?= m
CONFIG_TEST_DBBATCH ?= m
CONFIG_IGC_BATCH ?= m
CONFIG_OCTEP_FIX ?= m

# <net/dbbatch.h> is ours; in a kernel tree it sits in include/net/.
subdir-ccflags-y += -I$(abspath $(KBUILD_EXTMOD))/include
ccflags-y += -I$(abspath $(KBUILD_EXTMOD))/include

# Feature tests rather than version checks: Debian backports move APIs.
dbb_have = $(if $(shell grep -s -l '$(1)' $(srctree)/include/$(2)),-D$(3))
ccflags-y += $(call dbb_have,netdev_xmit_set_more,linux/netdevice.h,DBB_HAVE_XMIT_SET_MORE)
# PREEMPT_RT_NEEDS_BH_LOCK (6.17 on) makes the RT per-CPU BH lock optional;
# no header names it, so the kernel's version says it (net/core/dbbatch.c).
ccflags-y += $(if $(shell [ $(VERSION) -gt 6 ] || [ $(VERSION) -eq 6 -a $(PATCHLEVEL) -ge 17 ] && echo y),-DDBB_RT_BH_LOCK_OPTIONAL)

obj-$(CONFIG_DBBATCH) += dbbatch.o
dbbatch-y := net/core/dbbatch.o

obj-$(CONFIG_TEST_DBBATCH) += test_dbbatch.o
test_dbbatch-y := lib/test_dbbatch.o

# Drivers on dbbatch: their own directories and Makefiles.
obj-$(CONFIG_IGC_BATCH) += drivers/net/ethernet/intel/igc_batch/
obj-$(CONFIG_OCTEP_FIX) += drivers/net/ethernet/marvell/octep_fix/

else

KDIR ?= /lib/modules/$(shell uname -r)/build
SRC := $(CURDIR)

.PHONY: all modules report lab check check-debug debug-kernel unit fuzz clean

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(SRC) modules

unit:
	$(MAKE) -C tests/unit run

fuzz:
	$(MAKE) -C tests/unit fuzz

# The main job: the router comparison (tools/lab/report.py) on the lab's
# default kernel, about 20 minutes on two cores; writes build/report/
# (index.html, plots, report.json, report-table.rst) and
# Documentation/lab/report-table.rst.  REPORT_ARGS: more options, e.g.
# REPORT_ARGS='--kernel 6.1 --kernel 6.12 --full' (report.py --help).
report:
	tools/lab/setup.sh
	/usr/bin/python3 tools/lab/report.py $(REPORT_ARGS)

# The core's kselftests in a QEMU guest of each Debian 12 kernel.
lab:
	tools/lab/setup.sh
	python3 tools/lab/kselftest.py all

check:
	tools/check.sh

# Debian's 6.12 with KASAN, lockdep & co. (tools/lab/build-debug-kernel.sh):
# built once per machine and cached; 52 min on two cores.
debug-kernel:
	tools/lab/build-debug-kernel.sh

# Our modules and the core kselftests on that kernel; fails on any KASAN,
# lockdep, RCU, DEBUG_NET, sleep-in-atomic or kmemleak report.  Builds the
# kernel first if it is not cached.
check-debug:
	tools/check-debug.sh

clean:
	$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null || true
	$(MAKE) -C tests/unit clean
	rm -rf build

endif
