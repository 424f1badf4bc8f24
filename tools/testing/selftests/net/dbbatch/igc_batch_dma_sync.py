#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""igc_batch_dma_sync.py: igc_batch syncs its receive pages exactly where the
DMA layer needs it.

    tools/testing/selftests/net/dbbatch/igc_batch_dma_sync.py \
        [--kernel 6.1|6.12 ...] [--modules-6.1 DIR] [--modules-6.12 DIR]

Before 6.10 the page_pool and dma_sync_*() call into the DMA layer for
every frame even where that does nothing; igc_batch asks once per port
(igcb_rx_dma_sync()) and leaves the syncs out where they do nothing.  The
router of tools/lab/router.py with igc_batch batched on both ports, per
kernel three boots:

  1. plain (coherent, direct mapping): the driver leaves the syncs out on a
     kernel without dma_dev_need_sync() (6.1; debugfs dma_sync N), keeps
     them on one with it (6.12: the kernel skips them itself; Y);
  2. swiotlb=force (every page bounced: the CPU sees a frame only through
     the sync): dma_sync Y;
  3. an emulated IOMMU, strict: dma_sync Y;

in each, stack forwarding and XDP_REDIRECT are lossless, in order, with
nothing duplicated (a skipped sync under bounce buffering forwards stale
frames), and the kernel log is clean.  KTAP on stdout; exit 0 when every
check passed.
"""

import sys

from lablib import labvm, router, rows  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 30, "kernels": "each", "label": "igc_batch dma sync",
              "minutes": 1.5,
              "args": ["--modules-{k}", "{mods}"]}]

RATE = 2000
COUNT = 2000
# Rings small enough that every page of both ports fits in swiotlb's
# default 64 MiB of bounce buffers (router.py's 4096 would fill it).
RINGS = 512
CFG = router.Config("igc_batch", "db_skip_empty=1 tx_db_batched=1")
# (name, router options, whether the driver may leave the syncs out)
BOOTS = [("plain", {}, True),
         ("swiotlb=force", {"append": "swiotlb=force"}, False),
         ("strict IOMMU", {"viommu": True}, False)]


def kernel_skips(short):
    """From 6.10 (dma_dev_need_sync()) the kernel skips needless syncs
    itself."""
    return tuple(int(x) for x in short.split("-")[0].split(".")) >= (6, 10)


def dma_sync(r, dev):
    """igc_batch's debugfs dma_sync of port DEV: "Y", "N" or what came."""
    _, out = r.guest("cat /sys/kernel/debug/igc_batch/$(basename $(readlink "
                     "/sys/class/net/%s/device))/dma_sync" % dev, check=False)
    return out.strip()


def one_boot(t, short, a, qemu, name, opts, may_skip):
    out = labvm.run_dir(a.keep, "%s-%s" % (short, name.split("=")[0].split()[
        -1]), "dbb-dmasync.")
    ra = router.options(short, configs=[CFG], qemu=qemu, smp=a.smp,
                        rmem=a.rmem, flows=router.TEST_FLOWS, rings=RINGS,
                        gen_args=router.TEST_GEN_ARGS, out=out,
                        modules=labvm.modules_for(a, short) or None, **opts)
    r = router.Router(ra, ra.configs, router.our_modules(ra, ra.configs))
    with labvm.lock("DBB_GUEST_LOCK", "/tmp/dbb-guest.lock", "a guest boot"):
        with router.booted(t, r, name):
            r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null; "
                    "true\n", check=False)
            lo = r.load(CFG)
            if not t.check("%s: igc_batch binds both ports" % name,
                           "igc_batch" in lo, lo):
                return out
            want = "N" if may_skip and not kernel_skips(short) else "Y"
            got = [dma_sync(r, r.ifa), dma_sync(r, r.ifb)]
            t.check("%s: debugfs dma_sync %s on both ports" % (name, want),
                    got == [want, want], "A %s, B %s" % tuple(got))
            for mode in ("stack", "xdp"):
                r.mode_setup(mode)
                row = r.step(CFG, mode, RATE, COUNT)
                r.mode_teardown(mode)
                t.check("%s: %s forwarding lossless, in order, nothing "
                        "stale or duplicated" % (name, mode),
                        rows.lossless(row, COUNT),
                        rows.lossless_misses(row, COUNT))
            t.check("%s: kernel log clean, no taint but O and E, no guest "
                    "error in a model" % name,
                    *r.clean(router.TAINT_OOT_UNSIGNED))
    return out


def checks(t, short, a, qemu):
    return [t.boot(lambda b=b: one_boot(t, short, a, qemu, *b))
            for b in BOOTS]


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    labvm.modules_args(ap)
    ap.add_argument("--keep", help="keep each boot's run directory in DIR")
    ap.add_argument("--smp", type=int, default=2)
    a = ap.parse_args()
    qemu = labvm.qemu_binary(a.qemu)
    return labvm.run_per_kernel(a, lambda t, short: checks(t, short, a, qemu))


if __name__ == "__main__":
    sys.exit(main())
