#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""igc_batch_endurance.py: load, forward, reconfigure, flap and unload many
times, then a long forwarding soak, in one lab router boot per kernel.

    tools/testing/selftests/net/dbbatch/igc_batch_endurance.py \
        [--kernel 6.1|6.12 ...] [--cycles N] [--soak-frames N] \
        [--modules DIR] [--keep DIR]

A cycle, with igc_batch on both ports (batching on): modprobe; stack
forwarding of CYCLE_COUNT frames with no loss (generator == sink == the
model's counts); then, under background traffic, ethtool -L on A (2 or 4
queues, alternating) and -G on B (1024 or 2048 descriptors), a link flap
of B from the model (QMP set_link), and rmmod.  After the cycles the free
pages (no driver loaded) must be back within MEM_MARGIN_PAGES of before
the first.  The soak forwards --soak-frames frames at SOAK_RATE: every
frame the sink did not get must be one the lab can attribute (QEMU's
input socket, the model's RX drops for want of descriptors or with
receive off, the sink's socket); anything else fails.  Last, the kernel
log is clean (a watchdog rescue of an unpublished tail counts as dirty).

make check runs a short version (the defaults); issue-sized runs:
--cycles 100 --soak-frames 10000000.  KTAP on stdout and one summary line
per kernel ("# endurance KVER: ...").  Every rate here is EMULATED.
"""

import sys
import time

from lablib import labvm, router, rows

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 30, "kernels": "each",
              "label": "igc_batch endurance",
              "minutes": 1.5, "args": ["--modules", "{mods}"]}]


CONFIG = router.Config("igc_batch", "db_skip_empty=1 tx_db_batched=1",
                       label="batched")
CYCLE_RATE, CYCLE_COUNT = 4000, 4000
SOAK_RATE = 30000
# Both ports' rings are at most 2 x 4 x 2048 pages: a leak of a ring's
# pages per cycle would show within a few cycles.
MEM_MARGIN_PAGES = 2048
TAINT_OK = router.TAINT_OOT_UNSIGNED


def ev(row, count):
    m = row["model"]
    return ("sent %d forwarded %d lost %d; model A rx_frames %d rx_dropped "
            "%d rx_off_drops %d, B tx_frames %d; QEMU input drops %s, sink "
            "socket drops %s; not lossless: %s" % (
                row["sent"], row["forwarded"], row["lost"], m["A_rx_frames"],
                m["A_rx_dropped"], m["A_rx_off_drops"], m["B_tx_frames"],
                row["host_qemu_in_drops"], row["sink_socket_drops"],
                rows.lossless_misses(row, count) or "-"))


def changes_under_traffic(r, i):
    """ethtool -L/-G, a link flap and rmmod, with traffic running."""
    queues, ring = (2, 1024) if i % 2 else (4, 2048)
    gen = r.gen_background(CYCLE_RATE, CYCLE_RATE * 10)
    try:
        rc, out = r.guest("""
A=%s B=%s
ethtool -L $A combined %d || exit 50
ethtool -G $B rx %d tx %d || exit 51
carrier $A 1 30 && carrier $B 1 30 || exit 52
""" % (r.ifa, r.ifb, queues, ring, ring), check=False)
        r.set_link("nicB", False)
        rc2, o2 = r.guest("carrier %s 0 10 || exit 53\n" % r.ifb, check=False)
        r.set_link("nicB", True)
        rc3, o3 = r.guest("""
carrier %s 1 30 || exit 54
rmmod igc_batch 2>&1 || exit 55
""" % r.ifb, timeout=120, check=False)
    finally:
        gen.wait(timeout=60)
    ok = rc == 0 and rc2 == 0 and rc3 == 0
    return ok, "%s%s%s" % (out, o2, o3)


def cycles(t, r, n):
    free0 = r.free_pages()
    failed = []
    start = time.time()
    for i in range(n):
        try:
            r.load(CONFIG)
            r.mode_setup("stack")
            row = r.step(CONFIG, "stack", CYCLE_RATE, CYCLE_COUNT)
            ok, out = changes_under_traffic(r, i)
            if not (rows.lossless(row, CYCLE_COUNT) and ok):
                failed.append("cycle %d: %s\n%s" % (i + 1, ev(row, CYCLE_COUNT), out))
        except RuntimeError as e:
            failed.append("cycle %d: %s" % (i + 1, e))
        if len(failed) > 3:
            break
    free1 = r.free_pages()
    t.check("cycles: load, lossless forwarding, ethtool -L/-G, link flap "
            "and rmmod under traffic, every cycle", not failed,
            "%d cycles in %.0f s, %d failed\n%s" % (
                n, time.time() - start, len(failed), "\n".join(failed[:3])))
    t.check("cycles: free pages back within the margin after the last "
            "rmmod", free0 > 0 and free1 >= free0 - MEM_MARGIN_PAGES,
            "free pages before %d, after %d (margin %d)"
            % (free0, free1, MEM_MARGIN_PAGES))
    return len(failed), free1 - free0


def soak(t, r, frames):
    r.load(CONFIG)
    r.mode_setup("stack")
    row = r.step(CONFIG, "stack", SOAK_RATE, frames)
    m = row["model"]
    attributed = (m["A_rx_dropped"] + m["A_rx_off_drops"] +
                  (row["host_qemu_in_drops"] or 0) +
                  (row["sink_socket_drops"] or 0))
    unattributed = row["lost"] - attributed
    t.check("soak: every frame the sink missed is one the lab attributes "
            "(QEMU input, model RX drops, sink socket)",
            row["sent"] == frames and unattributed <= 0 and
            row["reordered"] == 0, ev(row, frames) + "; unattributed %d"
            % unattributed)
    r.mode_teardown("stack")
    return row["sent"], unattributed


def checks(t, short, a, qemu):
    out = labvm.run_dir(a.keep, short, "dbb-endurance.")
    ra = router.options(short, rmem=a.rmem, qemu=qemu, smp=a.smp,
                        flows=router.TEST_FLOWS,
                        gen_args=router.TEST_GEN_ARGS, out=out,
                        modules=a.modules or None)
    r = router.Router(ra, [CONFIG], router.our_modules(ra, [CONFIG]))
    with router.booted(t, r):
        nfail, dfree = cycles(t, r, a.cycles)
        sent, unattr = soak(t, r, a.soak_frames)
        clean, ev = r.clean(TAINT_OK)
        t.check("kernel log clean (no warning, oops, lockup or watchdog "
                "rescue), taint only O and E, no guest programming error",
                clean, ev)
        print("# endurance %s: cycles %d/%d ok, free pages %+d, soak %d "
              "frames, %d unattributed lost, log %s"
              % (t.kver, a.cycles - nfail, a.cycles, dfree, sent, unattr,
                 "clean" if clean else "NOT clean"), flush=True)
    return ra.out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--modules", help="our *.ko (default: built)")
    ap.add_argument("--cycles", type=int, default=4)
    ap.add_argument("--soak-frames", type=int, default=300000)
    return labvm.one_boot_test(ap, checks)


if __name__ == "__main__":
    sys.exit(main())
