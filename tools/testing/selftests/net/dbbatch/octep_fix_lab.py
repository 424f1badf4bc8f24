#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""octep_fix_lab.py: octep_fix on the dbb-octep model, driven from the lab.

    tools/testing/selftests/net/dbbatch/octep_fix_lab.py \
        [--kernel 6.1|6.12 ...] --modules-6.1 DIR
        --modules-6.12 DIR [--only router|loop|mixed ...] [--keep DIR]
        [--qemu PATH]

Our Octeon CN9K driver (drivers/net/ethernet/marvell/octep_fix/) in the
lab router (tools/lab/router.py): dbb-gen -> port A -> the guest -> port
B -> dbb-sink, both ports dbb-octep.  Every doorbell and credit figure is
the model's ground truth; the driver's ethtool -S counters are checked
against it.  EMULATED (QEMU TCG): thresholds are ratios of counts.

Router boot, both ports at the stock watermark 0x100:
  bad oq_wmark refused at load with a message; probe; the grant at open
  is exactly ring + wmark - 16 on every ring;
  doorbells: one input doorbell write per forwarded packet with batching
  off at a low rate, at most 0.05 batched at a saturating rate, the
  output (credit) doorbell the same, zero writes that announce nothing,
  ethtool -S == model; XDP_REDIRECT forwarding;
  a full ring (servicing held by the quiesce knob, one flow): the block
  uses every buffer of the ring and refuses the rest, nothing lost
  otherwise, nothing read out of order; the page's test (numbered
  datagrams, three holds of 100 ms): no datagram behind a higher one,
  oq_lapped 0, no resync;
  a gap the block passed over (the model's rx-skip): stepped over once,
  the ring invariant kept, lossless after it; receive pages failing
  while forwarding: counted, the rings fill back up, lossless; an
  output interrupt lost (irq-lose): one watchdog stall, lossless; frames
  written and never counted (cnts-lose): taken by the watchdog's look,
  rx uncounted == the model's;
  a ring starved on purpose (credit ceiling under the watermark) delivers
  nothing, and has credit again within 0.25 s of the ceiling restored;
  watermark 0x400 on the model and the driver: the same full-ring
  figures, no stall (upstream stops after 16 frames there);
  mismatch, driver 0x100 on 0x400 firmware: only ring - 0x300 buffers
  used, nothing lost or reordered, the refusals in fw_rx_fifo_drops, and
  dmesg says the firmware's watermark is at least 0x400 (oq_wmark_low,
  0 through every hold before it); driver 0x400 on 0x100 firmware: the
  block laps the ring, the driver says so once, falls back to 0x100 and
  restarts its rings, after which a full ring does not lap; the firmware
  then reconfigured to 0x40 under it: it falls back again, to 0x40, and
  then a full ring does not lap;
  never more held than the grant; BQL; link flap from the firmware;
  bad ring sizes refused, nothing changed; link settings from the
  firmware, and what it cannot do refused; ethtool -L (the port's totals
  never go back; growing with the new vector's receive pages failing:
  refused, no oops, the old setting back); native XDP_DROP,
  XDP_TX and XDP_PASS; system sleep; heartbeat loss takes the port
  down and back; a firmware that answers late or not at all keeps the
  port down until it answers; a firmware restarted under the port:
  greeted again, rings restarted, forwarding; a mute firmware does not
  hold RTNL while the port retries; a v1-only firmware refused at probe
  with a message; nic-switch.sh moves port A to octeon_ep and back; rmmod
  under traffic.
Loop boot (A wired to B, B in a netns): ping, TCP and UDP both ways
  (iperf3), a jumbo ping at MTU 9000 through the firmware; A behind a
  PCIe root port: PCI error recovery (AER), ping after; then a fatal
  error, after which A stays detached, with XDP attached and detached on
  A over and over (attaches that meet the detached port refused with a
  message, a debugfs watermark too, no oops).
Mixed boots: an igc_batch port (dbb-igc) and an octep_fix port, each way:
  stack and XDP_REDIRECT forwarding, and batching across the two drivers
  (the receive pass of one holds the other's doorbell); .shutdown at
  poweroff.

KTAP on stdout; exit 0 when every check passed.
"""

import os
import re
import subprocess
import sys
import threading
import time

from lablib import labvm, netpoll0, router, rows  # noqa: E402
import pcierr  # noqa: E402
from octep import (DEV_REMOVE, FETCH, GET_INFO, MAC, clean,  # noqa: E402
                   counts_agree, counts_text, fw, loop_boot, no_laps,
                   offered, router_opts)

# How make check runs this test (tools/lab/selftests.py)
# The router and mixed boots alone: their saturating steps and the
# router's full-ring holds are judged from the host, which a second guest
# would slow; the loop boot shares the host.
LAB_CHECK = [{"stage": 40, "kernels": "each", "label": "octep_fix lab",
              "part": "router", "minutes": 3.2, "alone": True,
              "args": ["--modules-{k}", "{mods}", "--only", "router"]},
             {"stage": 40, "kernels": "each", "label": "octep_fix lab",
              "part": "mixed", "minutes": 0.8,
              "args": ["--modules-{k}", "{mods}", "--only", "mixed"]},
             {"stage": 40, "kernels": "each", "label": "octep_fix lab",
              "part": "loop", "minutes": 1.2,
              "args": ["--modules-{k}", "{mods}", "--only", "loop"]}]


class RouterNetconsole(router.Router):
    KMODS = router.Router.KMODS + netpoll0.KMODS


OFF = router.Config("octep_fix", "tx_db_batched=0", label="octep_fix off")
ON = router.Config("octep_fix", label="octep_fix batched")
UP = router.Config("octeon_ep")     # only for nic-switch.sh (and its .ko)
RING = 1024                 # octep_fix's default rings
# (pps, frames) of the low-rate steps; boots() takes labvm.DEBUG_LOW_STEP
# on the debug kernel.
NORMAL_LOW_STEP = (2000, 4000)
LOW_RATE, LOW_COUNT = NORMAL_LOW_STEP
# Checks judged on a full ring's hold are a SKIP with this reason where
# the hold cannot be timed (boots() sets it for the debug kernel).
HOLD_SKIP = None
HOLD_SKIP_DEBUG = ("debug kernel: the hold is timed from the host while "
                   "the guest forwards 1-2 kpps, so the reading in the "
                   "middle of the hold misses it and the 20 kpps flow "
                   "overloads the guest's own queues; judged on 6.1 and "
                   "6.12")
SAT_RATE, SAT_SECONDS = 120000, 2
BATCHED_MAX = 0.05          # doorbell writes per packet at saturation
HOLD_RATE = 20000           # one flow into one ring while it is held
HOLD_MS = 1500
STARVE_CEILING = 0x80       # under the 0x100 watermark


def dbg(dev):
    """Guest path of octep_fix's debugfs directory for DEV."""
    return ("/sys/kernel/debug/octep_fix/"
            "$(basename $(readlink /sys/class/net/%s/device))" % dev)


def grant(wmark, ring=RING):
    return ring + wmark - FETCH


def granted(tr, port, queues, want):
    """The rings PORT's driver started last (the first QUEUES of the
    model's) were each given WANT at once, at most (a ring it stopped
    keeps its old figure)."""
    omax = tr[port]["outstanding_max"]
    return bool(queues) and omax[:queues] == [want] * queues


def stat_sum(stats, port, suffix, kind="tx|rx"):
    """Sum of PORT's per-ring ethtool -S counters named KIND*_SUFFIX."""
    return sum(v for k, v in stats[port].items()
               if re.fullmatch(r"(%s)_?q?\d+_%s" % (kind, suffix), k))


def stat_delta(s0, s1, port, suffix, kind="tx|rx"):
    return (stat_sum(s1, port, suffix, kind) -
            stat_sum(s0, port, suffix, kind))


def set_wmark(r, dev, wmark):
    """The driver's watermark through debugfs (the port restarts its
    rings), then the carrier."""
    return r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null\n"
                   "echo %#x >%s/oq_wmark && carrier %s 1 30\n"
                   % (wmark, dbg(dev), dev), check=False)


def busy_ring(tr0, tr1, port="A"):
    """The output ring one flow went to between truths TR0 and TR1: the
    one that took or refused the most frames."""
    got = [sum(tr1[port][k][q] - tr0[port][k][q]
               for k in ("rx_frames", "rx_refused"))
           for q in range(len(tr1[port]["rx_frames"]))]
    return got.index(max(got))


# ---- bad input at load --------------------------------------------------

def bad_params(t, r):
    for val in ("0x123", "0x8000", "x"):
        rc, out = r.guest("""
dmesg -C
modprobe octep_fix oq_wmark=%s; echo "@@RC $?"
[ -d /sys/module/octep_fix ] && echo @@LOADED
dmesg | grep -i oq_wmark
""" % val, check=False)
        t.check("modprobe octep_fix oq_wmark=%s is refused with a message "
                "naming the value and what is accepted" % val,
                "@@RC 0" not in out and "@@LOADED" not in out and
                re.search(r"'?%s'?.*(multiple of 16|such as 0x100)"
                          % re.escape(val), out), out)


# ---- the router boot ---------------------------------------------------

def probe_checks(t, r, load_out):
    tr = r.truth()
    rc, out = r.guest("""
for d in %s %s; do echo "@@DRV $d $(ethtool -i $d | sed -n 's/^driver: //p')"; done
""" % (r.ifa, r.ifb), check=False)
    drv = re.findall(r"@@DRV \S+ (\S*)", out)
    t.check("probe: both ports bound by octep_fix (GET_INFO and GET_MAC "
            "asked), carrier up",
            drv == ["octep_fix", "octep_fix"] and
            all(fw(tr, p, MAC) >= 1 and fw(tr, p, GET_INFO) >= 1
                for p in "AB"), "drivers %s\n%s" % (drv, load_out))
    omax = {p: tr[p]["outstanding_max"] for p in "AB"}
    t.check("the grant at open: each of the %s rings in use is given "
            "exactly ring + wmark - 16 = %d (the model's most credit held)"
            % (r.queues_now, grant(0x100)),
            all(granted(tr, p, r.queues_now, grant(0x100)) for p in "AB"),
            "outstanding_max per port and ring %s" % omax)


def doorbell_checks(t, r, cfg, rate, count):
    """One stack step: (row, ok, evidence) for ethtool -S == model."""
    e0 = r.ethtool_stats()
    row = r.step(cfg, "stack", rate, count)
    e1 = r.ethtool_stats()
    m = row["model"]
    pairs = {"B in_dbell_writes": (stat_delta(e0, e1, "B", "in_dbell_writes"),
                                   m["B_tdt_writes"]),
             "A out_dbell_writes": (stat_delta(e0, e1, "A",
                                               "out_dbell_writes"),
                                    m["A_rdt_writes"])}
    ok = all(a == b for a, b in pairs.values())
    return row, ok, "ethtool -S vs model %s" % pairs


def noop_writes(row):
    m = row["model"]
    return sum(m[p + "_" + k] for p in "AB"
               for k in ("tdt_noop_writes", "rdt_noop_writes"))


def batches_on_demand(t, mode, c0, c1, row):
    """A pass opens a batch only once it hands the stack a frame with
    another behind it: port B's passes that only reclaim transmitted
    buffers, passes of one frame, and frames XDP redirects, open none."""
    ok, why = rows.batches_for_delivery(c0, c1, row, mode != "stack")
    t.check("batched, %s at a low rate: the dbbatch core opened batches "
            "only for receive passes that handed the stack two frames or "
            "more" % mode, ok, why)


def policy_checks(t, r):
    r.load(OFF)
    r.mode_setup("stack")
    row, ok, why = doorbell_checks(t, r, OFF, LOW_RATE, LOW_COUNT)
    t.check("batching off: stack forwarding at %d pps: lossless, in order, "
            "model == generator == sink" % LOW_RATE,
            counts_agree(row) and row["reordered"] == 0, counts_text(row))
    tdt = row["tdt_per_fwd"] or 0
    t.check("batching off, low rate: 1.00 input doorbell writes per "
            "forwarded packet, none that announces nothing, ethtool -S == "
            "model", 0.95 <= tdt <= 1.0 and noop_writes(row) == 0 and ok,
            "%.4f input doorbell writes per forwarded packet; %s" % (
                tdt, why))
    r.mode_teardown("stack")

    r.load(ON)
    r.mode_setup("stack")
    c0 = r.dbbatch_stats()
    row, ok, why = doorbell_checks(t, r, ON, LOW_RATE, LOW_COUNT)
    batches_on_demand(t, "stack", c0, r.dbbatch_stats(), row)
    t.check("batched: stack forwarding at %d pps: lossless, in order, model "
            "== generator == sink, ethtool -S == model" % LOW_RATE,
            counts_agree(row) and row["reordered"] == 0 and ok,
            counts_text(row) + "; " + why)
    e0, c0 = r.ethtool_stats(), r.dbbatch_stats()
    row, ok, why = doorbell_checks(t, r, ON, SAT_RATE, SAT_RATE * SAT_SECONDS)
    e1, c1 = r.ethtool_stats(), r.dbbatch_stats()
    core = {k: c1[k] - c0.get(k, 0) for k in c1 if c1[k] != c0.get(k, 0)}
    tdt, rdt = row["tdt_per_fwd"] or 0, row["rdt_per_rx"] or 0
    held = stat_delta(e0, e1, "B", "db_held")
    t.check("batched, %d pps offered: input doorbell writes per "
            "forwarded packet and credit writes per received packet both "
            "<= %.2f" % (SAT_RATE, BATCHED_MAX),
            0 < tdt <= BATCHED_MAX and 0 < rdt <= BATCHED_MAX and held > 0,
            "%.4f input doorbell writes per forwarded packet, %.4f credit "
            "writes per received packet; %d forwarded, %d refused by A, "
            "CPUs %s%% busy; db_held +%d; dbbatch core %s; %s" % (
                tdt, rdt, row["model"]["B_tx_frames"],
                row["model"]["A_rx_dropped"], row["cpu_busy_pct"], held,
                core, counts_text(row)))
    t.check("batched, saturated: zero doorbell writes that announce "
            "nothing, ethtool -S == model", noop_writes(row) == 0 and ok,
            why)
    r.mode_teardown("stack")
    r.mode_setup("xdp")
    c0 = r.dbbatch_stats()
    row = r.step(ON, "xdp", LOW_RATE, LOW_COUNT)
    batches_on_demand(t, "XDP_REDIRECT", c0, r.dbbatch_stats(), row)
    t.check("XDP_REDIRECT A -> B (native XDP, ndo_xdp_xmit) at %d pps: "
            "lossless, in order, model == generator == sink" % LOW_RATE,
            counts_agree(row) and row["reordered"] == 0, counts_text(row))
    r.mode_teardown("xdp")


def held_step(r, hold_ms, rate, count, at=0.3, holds=1, gap=0.4):
    """A one-flow stack step with port A's servicing held (quiesce_ms)
    HOLDS times for HOLD_MS, the first AT seconds after the guest got the
    schedule.  The model's truth is read in the middle of the first hold.
    Returns (row, [truth before, truth in the hold], the holds'
    output)."""
    sched = "; ".join(["sleep %s; echo %d >%s/quiesce_ms && echo @@HELD"
                       % (at if i == 0 else gap, hold_ms, dbg(r.ifa))
                       for i in range(holds)])
    seen = [r.truth()]
    r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null\n"
            "rm -f /tmp/hold.out; (%s) >/tmp/hold.out 2>&1 &\n" % sched)
    tm = threading.Timer(at + hold_ms / 2000.0,
                         lambda: seen.append(r.truth()))
    tm.start()
    try:
        row = r.step(ON, "stack", rate, count, flows=1)
    finally:
        tm.join()
    _, out = r.guest("wait; sleep 0.2; cat /tmp/hold.out\n", check=False)
    return row, seen if len(seen) == 2 else None, out


def lost_only_refused(row):
    """Every frame the sink missed is one port A refused (ring full):
    the model took in what it did not refuse and sent all of it.  The
    step's end markers are frames too, and may be the ones refused."""
    m = row["model"]
    markers = row.get("sink_markers") or 0
    return (offered(row) - row["forwarded"] - markers ==
            m["A_rx_dropped"] and
            m["A_rx_frames"] + m["A_rx_dropped"] == offered(row) and
            m["A_rx_frames"] == m["B_tx_frames"] and
            row["stray_frames_out_A"] == 0)


def full_ring(t, r, what, wmark_fw, wmark_drv):
    """Hold A's servicing with one flow arriving: the ring fills.  In
    the hold the block has used grant - credit_now buffers."""
    e0 = r.ethtool_stats()
    row, mid, out = held_step(r, HOLD_MS, HOLD_RATE,
                              HOLD_RATE * (HOLD_MS + 700) // 1000)
    e1 = r.ethtool_stats()
    if mid is None:
        t.check("%s: truth read in the hold" % what, False, out)
        return None
    before, mid = mid
    q = busy_ring(before, mid)
    credit = mid["A"]["credit_now"][q]
    used = grant(wmark_drv) - credit
    want = min(RING, RING - (wmark_fw - wmark_drv))
    m = row["model"]
    lapped = stat_delta(e0, e1, "A", "oq_lapped")
    resync = stat_delta(e0, e1, "A", "resyncs")
    # Fetches are of 16: the block stops at the first credit under its
    # watermark, so a full ring has WANT - 15 to WANT buffers in use
    # (credit returned for fewer than 16 read cannot be fetched yet).
    ok = (wmark_fw - FETCH <= credit < wmark_fw and
          want - FETCH < used <= want)
    return {"row": row, "used": used, "want": want, "ring": q, "ok": ok,
            "credit": mid["A"]["credit_now"][q], "lapped": lapped,
            "resyncs": resync, "held": "@@HELD" in out,
            "text": "ring %d: credit in the hold %d, so %d buffers in use "
                    "(want %d - 15 to %d); refused %d; oq_lapped +%d "
                    "resyncs +%d; %s"
                    % (q, credit, used, want, want,
                       m["A_rx_dropped"], lapped, resync, counts_text(row))}


def hold_check(t, name, ok, text):
    """A check judged on a full ring's hold (HOLD_SKIP)."""
    if HOLD_SKIP:
        return t.check(name, True, text, skip=HOLD_SKIP)
    return t.check(name, ok, text)


def ring_checks(t, r, wmark, label):
    f = full_ring(t, r, label, wmark, wmark)
    if not f:
        return
    row = f["row"]
    hold_check(t, "%s, a full ring (servicing held %d ms, one flow at %d "
               "pps): the block stops only at the watermark, with the %d "
               "buffers of the ring in use (less what is not a whole "
               "fetch), and refuses the rest"
               % (label, HOLD_MS, HOLD_RATE, RING),
               f["held"] and f["ok"] and row["model"]["A_rx_dropped"] > 0,
               f["text"])
    hold_check(t, "%s, after the hold: nothing lost but what the model "
               "refused, nothing read out of order, oq_lapped 0, no resync"
               % label, lost_only_refused(row) and row["reordered"] == 0 and
               f["lapped"] == 0 and f["resyncs"] == 0, f["text"])


def quiesce_page_test(t, r):
    """The page's test: numbered datagrams at a steady rate, the ring's
    servicing held 100 ms three times."""
    e0 = r.ethtool_stats()
    row, _, out = held_step(r, 100, HOLD_RATE, HOLD_RATE * 2, at=0.3,
                            holds=3)
    e1 = r.ethtool_stats()
    m = row["model"]
    lapped = stat_delta(e0, e1, "A", "oq_lapped")
    resync = stat_delta(e0, e1, "A", "resyncs")
    t.check("quiesce held 100 ms three times under %d pps of numbered "
            "datagrams: none behind a higher number, oq_lapped 0, no "
            "resync; every one missing was refused by the model"
            % HOLD_RATE, out.count("@@HELD") == 3 and
            row["reordered"] == 0 and lapped == 0 and resync == 0 and
            lost_only_refused(row),
            "holds %d; refused %d; oq_lapped +%d resyncs +%d; %s"
            % (out.count("@@HELD"), m["A_rx_dropped"], lapped, resync,
               counts_text(row)))


RESYNC_SKIP = 5             # buffers the model passes over (rx-skip)


def ring_invariant(r, dev):
    """Each running ring's indices from debugfs "credit", read at rest:
    (ring, ok, line) with ok when read == (refill + to_refill) % size and
    every slot but the to_refill ones holds a posted page."""
    _, out = r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null"
                     "\ncat %s/credit\n" % dbg(dev), check=False)
    rings = []
    for m in re.finditer(r"ring (\d+): size (\d+) .* read (\d+) refill "
                         r"(\d+) to_refill (\d+) posted (\d+)", out):
        q, size, rd, refill, todo, posted = map(int, m.groups())
        rings.append((q, rd == (refill + todo) % size and
                      posted + todo == size, m.group(0)))
    return rings


# Passes that may find the gap before the resync steps over it: the one
# that found it, one a watchdog tick (two ticks), one to spare.
NOBUF_MAX = 4


def resync_checks(t, r):
    """The model passes over RESYNC_SKIP fetched buffers without writing
    them (rx-skip) before the next frame: the driver finds a count and an
    empty buffer, and after two watchdog ticks steps over the gap.  The
    buffers stepped over are taken and refilled like any other: the ring
    invariant holds (it once stepped the read index alone, which left the
    refill re-posting over live pages and the slots behind the gap with
    stale descriptors), and two more rounds of the ring go through it
    lossless without another resync."""
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.qom_set("nicA", "rx-skip", RESYNC_SKIP)
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT, flows=1)
    e1, tr1 = r.ethtool_stats(), r.truth()
    row2 = r.step(ON, "stack", LOW_RATE, 2 * RING + 100, flows=1)
    e2 = r.ethtool_stats()
    rings = ring_invariant(r, r.ifa)
    skipped = sum(tr1["A"]["rx_skipped"]) - sum(tr0["A"]["rx_skipped"])
    d = {k: stat_delta(e0, e1, "A", k, "rx")
         for k in ("resyncs", "skipped", "nobuf")}
    d2 = stat_delta(e1, e2, "A", "resyncs", "rx")
    t.check("a gap of %d buffers the block passed over: a pass finds a "
            "count and no buffer, and until the watchdog's resync only its "
            "ticks look again (rx nobuf +1 to +%d, not a pass per "
            "interrupt), then the driver steps over the gap once (rx "
            "resyncs +1, skipped +%d, the model's rx_skipped), the step "
            "lossless and in order" % (RESYNC_SKIP, NOBUF_MAX, RESYNC_SKIP),
            skipped == RESYNC_SKIP and d["skipped"] == skipped and
            d["resyncs"] == 1 and 1 <= d["nobuf"] <= NOBUF_MAX and
            counts_agree(row),
            "model rx_skipped +%d; driver %s; %s"
            % (skipped, d, counts_text(row)))
    t.check("after the resync: every ring keeps read == refill + to_refill "
            "and every other slot posted; %d frames more (two rounds of "
            "the ring) lossless, no further resync" % (2 * RING + 100),
            rings and all(ok for _, ok, _ in rings) and d2 == 0 and
            counts_agree(row2),
            "resyncs +%d; %s\n%s" % (d2, counts_text(row2),
                                     "\n".join(x for _, _, x in rings)))


def lost_irq_checks(t, r):
    """One output interrupt of port A lost (the model's irq-lose 1): the
    frames wait in the ring, disarmed, until the watchdog finds a count
    that no pass entered for two ticks; it counts one stall and schedules
    the pass, which takes them and arms the interrupt again."""
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.qom_set("nicA", "irq-lose", 1)
    row = r.step(ON, "stack", LOW_RATE, 20, flows=1)
    e1, tr1 = r.ethtool_stats(), r.truth()
    lost = sum(tr1["A"]["irqs_lost"]) - sum(tr0["A"]["irqs_lost"])
    stalls = stat_delta(e0, e1, "A", "watchdog_stalls", "rx")
    t.check("an output interrupt lost (model irq-lose 1, irqs_lost +1): "
            "the watchdog counts one stall (rx watchdog_stalls +1) and its "
            "pass takes the frames: the step lossless and in order",
            lost == 1 and stalls == 1 and counts_agree(row) and
            row["reordered"] == 0,
            "model irqs_lost +%d, watchdog_stalls +%d; %s"
            % (lost, stalls, counts_text(row)))


def uncounted_checks(t, r, n=3):
    """N frames of port A written by the block but never added to its
    OUT_CNTS (the model's cnts-lose N): no interrupt, no count, so
    without a look they would wait in the ring until later frames'
    counts took them, a frame late each.  The watchdog's look at a ring
    that fell idle finds them by their length words: the driver takes
    every frame the model wrote (rx packets == the model's rx_frames),
    counts them (rx uncounted == the model's rx_uncounted) and
    acknowledges none of them."""
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.qom_set("nicA", "cnts-lose", n)
    row = r.step(ON, "stack", LOW_RATE, 200, flows=1)
    time.sleep(1.0)         # the watchdog's look: two ticks or three
    e1, tr1 = r.ethtool_stats(), r.truth()
    lost = sum(tr1["A"]["rx_uncounted"]) - sum(tr0["A"]["rx_uncounted"])
    wrote = sum(tr1["A"]["rx_frames"]) - sum(tr0["A"]["rx_frames"])
    d = {k: stat_delta(e0, e1, "A", k, "rx")
         for k in ("packets", "uncounted", "resyncs", "nobuf")}
    t.check("frames written and never counted (model cnts-lose %d, "
            "rx_uncounted +%d): the driver takes every frame the model "
            "wrote (rx packets == rx_frames), counts them (rx uncounted "
            "+%d), no resync, the step in order" % (n, n, n),
            lost == n and d["uncounted"] == n and d["packets"] == wrote and
            d["resyncs"] == 0 and row["reordered"] == 0,
            "model rx_uncounted +%d rx_frames +%d; driver %s; %s"
            % (lost, wrote, d, counts_text(row)))


def tx_hold_checks(t, r, frames=1800):
    """Port B's block fetches no instruction for a while (the model's
    tx-hold) under one forwarded flow: the flow's input ring fills, its
    queue stops and the stack queues the rest; released, the block sends
    everything, the completions wake the queue once (tx restarts +1) and
    the queued frames follow.  BQL would stop the queue long before the
    ring fills (no completion comes): its floor is raised above a ring
    of frames for the check, as a link of large frames would."""
    r.guest("for q in /sys/class/net/%s/queues/tx-*/byte_queue_limits; do "
            "echo 100000000 >$q/limit_min; done\n" % r.ifb)
    # BQL takes a new floor at its next completion: the flow's
    r.step(ON, "stack", LOW_RATE, 200, flows=1)
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.qom_set("nicB", "tx-hold", True)
    gen = subprocess.Popen(
        r.gen_cmd(1, r.a.size) + ["--steps", str(LOW_RATE), "--count",
                                  str(frames)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    gen.wait()
    time.sleep(0.3)
    trh = r.truth()
    r.qom_set("nicB", "tx-hold", False)
    time.sleep(1.5)
    r.guest("for q in /sys/class/net/%s/queues/tx-*/byte_queue_limits; do "
            "echo 0 >$q/limit_min; done\n" % r.ifb)
    e1, tr1 = r.ethtool_stats(), r.truth()
    held = [a - b for a, b in zip(trh["B"]["in_instr"], tr0["B"]["in_instr"])]
    fetched = [a - b for a, b in zip(tr1["B"]["in_instr"],
                                     trh["B"]["in_instr"])]
    sent = sum(tr1["B"]["tx_frames"]) - sum(tr0["B"]["tx_frames"])
    restarts = stat_delta(e0, e1, "B", "restarts", "tx")
    timeouts = e1["B"].get("tx_timeouts", 0) - e0["B"].get("tx_timeouts", 0)
    t.check("port B's block holding its input rings (model tx-hold) under "
            "%d forwarded frames of one flow: nothing fetched while held, "
            "the flow's ring fills and its queue stops; released, the "
            "queue is woken once (tx restarts +1) and every frame leaves, "
            "no transmit timeout" % frames,
            sum(held) == 0 and restarts == 1 and sent >= frames and
            timeouts == 0,
            "instructions fetched while held %s, after (the ring, then "
            "what the stack queued) %s; B sent %d; tx restarts +%d, "
            "tx_timeouts +%d" % (held, fetched, sent, restarts, timeouts))


def starve_checks(t, r):
    """The credit ceiling lowered under the watermark: the block uses
    what it holds, then fetches no more; restored, credit flows again."""
    D = dbg(r.ifa)
    r.guest("echo %d >%s/oq_ceiling\n" % (STARVE_CEILING, D))
    tr0 = r.truth()
    r0 = r.step(ON, "stack", LOW_RATE, 2 * RING + 500, flows=1)
    r1 = r.step(ON, "stack", LOW_RATE, 1000, flows=1)
    tr = r.truth()
    q = busy_ring(tr0, tr)
    t.check("starved (ceiling %#x under the 0x100 watermark): the ring "
            "delivers what the block held, then nothing: every frame of "
            "the next step refused" % STARVE_CEILING,
            0 < r0["forwarded"] <= RING and r1["forwarded"] == 0 and
            r1["model"]["A_rx_dropped"] == offered(r1),
            "delivered %d then %d; refused %d of %d; credit now %s"
            % (r0["forwarded"], r1["forwarded"], r1["model"]["A_rx_dropped"],
               offered(r1), tr["A"]["credit_now"]))
    r.guest("echo 0 >%s/oq_ceiling; sleep 0.25\n" % D)
    tr = r.truth()
    t.check("starved ring restored (ceiling 0): within 0.25 s its credit is "
            "at the watermark again (the block can fetch)",
            tr["A"]["credit_now"][q] >= 0x100,
            "ring %d credit now %d" % (q, tr["A"]["credit_now"][q]))
    r2 = r.step(ON, "stack", LOW_RATE, LOW_COUNT, flows=1)
    t.check("after the starve: forwarding lossless and in order",
            counts_agree(r2) and r2["reordered"] == 0, counts_text(r2))


def wmark_0x400(t, r):
    r.qom_set("nicA", "wmark", 0x400)
    rc, out = set_wmark(r, r.ifa, 0x400)
    tr = r.truth()
    t.check("watermark 0x400 on the firmware and the driver (debugfs): "
            "the rings restart with a grant of ring + 0x400 - 16 = %d"
            % grant(0x400), rc == 0 and
            granted(tr, "A", r.queues_now, grant(0x400)),
            "outstanding_max %s\n%s" % (tr["A"]["outstanding_max"], out))
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT, flows=1)
    t.check("0x400: one flow forwards lossless and in order, no stall "
            "(upstream octeon_ep takes 16 frames here, then none)",
            counts_agree(row) and row["reordered"] == 0, counts_text(row))
    ring_checks(t, r, 0x400, "0x400")


def refusal_checks(t, r, what, e0, tr0):
    """Since E0/TR0: the frames port A's block refused for want of a
    buffer (the model's rx_refused) are what the firmware's interface
    statistics gave the driver: ethtool -S fw_rx_fifo_drops, and the
    kernel's rx_missed_errors the same total."""
    time.sleep(1.5)     # fw_stats_work reads the firmware once a second
    e1, tr1 = r.ethtool_stats(), r.truth()
    _, out = r.guest("cat /sys/class/net/%s/statistics/rx_missed_errors\n"
                     % r.ifa, check=False)
    refused = sum(tr1["A"]["rx_refused"]) - sum(tr0["A"]["rx_refused"])
    drops = e1["A"]["fw_rx_fifo_drops"] - e0["A"]["fw_rx_fifo_drops"]
    total = e1["A"]["fw_rx_fifo_drops"]
    t.check("%s: the %d frames the block refused reach ethtool -S "
            "fw_rx_fifo_drops (the firmware's count) and rx_missed_errors"
            % (what, refused),
            refused > 0 and drops == refused and out.strip() == str(total),
            "model rx_refused +%d; fw_rx_fifo_drops +%d (total %d); "
            "rx_missed_errors %s" % (refused, drops, total, out.strip()))


def mismatch_low(t, r):
    """Driver 0x100 on 0x400 firmware: the block stops 0x300 early."""
    rc, out = set_wmark(r, r.ifa, 0x100)
    # the rings' restart leaves its interval and the next unjudged
    time.sleep(2.2)
    e0, tr0 = r.ethtool_stats(), r.truth()
    f = full_ring(t, r, "driver 0x100 on 0x400 firmware", 0x400, 0x100)
    if not f:
        return
    hold_check(t, "driver 0x100 on 0x400 firmware: a full ring uses only "
               "ring - 0x300 = %d buffers, nothing lost but what was "
               "refused, nothing reordered, no lap" % (RING - 0x300),
               rc == 0 and f["ok"] and lost_only_refused(f["row"]) and
               f["row"]["reordered"] == 0 and f["lapped"] == 0, f["text"])
    refusal_checks(t, r, "driver 0x100 on 0x400 firmware", e0, tr0)
    too_low_check(t, r, e0)


def too_low_check(t, r, e0):
    """The refusals of the hold at 0x100 on 0x400 are judged by the
    doorbell the first passes after them read (1,008: the block stopped
    at the firmware's watermark less a fetch, not under the driver's):
    the driver says the firmware's watermark is at least 0x400, once,
    and counts it in oq_wmark_low.  Every hold before this one, at
    watermarks that agree (full rings, starved rings), left it at 0 on
    both ports.  An interval the driver cannot judge (its own ring
    restart, credit held back) says nothing: a second hold is allowed, as
    a router's next overload would be."""
    watch = "head -n 2 %s/credit | tail -n 1\n" % dbg(r.ifa)
    _, w0 = r.guest(watch, check=False)
    for again in (False, True):
        if again:
            held_step(r, HOLD_MS, HOLD_RATE,
                      HOLD_RATE * (HOLD_MS + 700) // 1000)
        # a verdict waits for a pass after the refusals' interval
        r.step(ON, "stack", LOW_RATE, 200, flows=1)
        time.sleep(2.2)
        e1 = r.ethtool_stats()
        if e1["A"].get("oq_wmark_low", 0) > e0["A"].get("oq_wmark_low", 0):
            break
    _, w1 = r.guest(watch, check=False)
    _, msg = r.guest("dmesg | grep -c 'output watermark is at least'; "
                     "dmesg | grep 'output watermark is at least' | "
                     "tail -n 1\n", check=False)
    before = (e0["A"].get("oq_wmark_low"), e0["B"].get("oq_wmark_low"))
    low = e1["A"].get("oq_wmark_low", 0) - e0["A"].get("oq_wmark_low", 0)
    lines = msg.strip().split("\n")
    # a lower bound, within a pass's credit (64) and a fetch of 0x400
    said = re.search(r"at least (0x[0-9a-f]+), above oq_wmark 0x100\b.*"
                     r"oq_wmark=(0x[0-9a-f]+)", lines[-1])
    hold_check(t, "driver 0x100 on 0x400 firmware: refusals while the "
               "doorbell a busy pass read after them stays at the "
               "firmware's watermark: said once in dmesg (the firmware's "
               "watermark is at least 0x3b0 to 0x400, set oq_wmark), "
               "counted in oq_wmark_low; 0 on both ports before, through "
               "every hold at watermarks that agree",
               before == (0, 0) and low >= 1 and lines[0] == "1" and
               said is not None and said.group(1) == said.group(2) and
               0x400 - 64 - FETCH <= int(said.group(1), 16) <= 0x400,
               "oq_wmark_low before (A, B) %s, +%d since; debugfs credit "
               "after the hold and 2.2 s later:\n%s%s; dmesg:\n%s"
               % (before, low, w0, w1, msg))


def mismatch_high(t, r):
    """Driver 0x400 on 0x100 firmware: over-granted by 0x300."""
    r.qom_set("nicA", "wmark", 0x100)
    rc, out = set_wmark(r, r.ifa, 0x400)
    tr0 = r.truth()
    e0 = r.ethtool_stats()
    f = full_ring(t, r, "driver 0x400 on 0x100 firmware", 0x100, 0x400)
    time.sleep(1)
    _, msg = r.guest("carrier %s 1 30; dmesg | grep -c 'over-grants and laps'"
                     "; dmesg | grep 'over-grants and laps' | tail -n 1\n"
                     % r.ifa,
                     check=False)
    e1 = r.ethtool_stats()
    tr1 = r.truth()
    laps = sum(tr1["A"]["laps"]) - sum(tr0["A"]["laps"])
    changed = (sum(tr1["A"]["desc_changed"]) -
               sum(tr0["A"]["desc_changed"]))
    restarts = e1["A"].get("ring_restarts", 0) - e0["A"].get(
        "ring_restarts", 0)
    t.check("driver 0x400 on 0x100 firmware (the over-grant): the block "
            "laps the ring in the hold, as documented; a pass reads a count "
            "above the ring (rx oq_lapped moves); the driver says so once, falls back to 0x100 (oq_wmark_effective) and "
            "restarts its rings",
            f is not None and rc == 0 and laps > 0 and f["lapped"] >= 1 and
            msg.split("\n")[0].strip() == "1" and restarts >= 1 and
            e1["A"].get("oq_wmark_effective") == 0x100,
            "model laps +%d desc_changed +%d; ring_restarts +%d; "
            "oq_wmark_effective %s; %s\n%s" % (
                laps, changed, restarts, e1["A"].get("oq_wmark_effective"),
                f and f["text"], msg))
    if f is None:
        return
    tr0 = r.truth()
    g = full_ring(t, r, "after the fall-back", 0x100, 0x100)
    tr1 = r.truth()
    laps = sum(tr1["A"]["laps"]) - sum(tr0["A"]["laps"])
    hold_check(t, "after the fall-back: a full ring has the ring's %d "
               "buffers in use and no more (no lap), nothing read out of "
               "order" % RING, g is not None and g["ok"] and laps == 0 and
               g["row"]["reordered"] == 0, g and g["text"])
    set_wmark(r, r.ifa, 0x100)


LOW_FW = 0x40               # the firmware's watermark, reconfigured
LOW_HOLDS = 4               # held steps allowed to reach it


def mismatch_again(t, r):
    """Driver 0x400 on 0x100 firmware falls back to 0x100; then the
    coprocessor's firmware is reconfigured to 0x40 under the running
    port, and 0x100 over-grants in turn: the port falls back again (it
    once fell back once per port, ever, and the ring went on lapping
    with nothing said)."""
    r.qom_set("nicA", "wmark", 0x100)
    rc, out = set_wmark(r, r.ifa, 0x400)
    e0 = r.ethtool_stats()
    r.guest("dmesg -c >/dev/null\n")
    effs = []
    for fw_wmark, holds in ((0x100, 1), (LOW_FW, LOW_HOLDS)):
        r.qom_set("nicA", "wmark", fw_wmark)
        for _ in range(holds):
            held_step(r, HOLD_MS, HOLD_RATE,
                      HOLD_RATE * (HOLD_MS + 700) // 1000)
            time.sleep(1)
            r.guest("carrier %s 1 30\n" % r.ifa, check=False)
            effs.append(r.ethtool_stats()["A"].get("oq_wmark_effective"))
            if effs[-1] <= fw_wmark:
                break
    e1 = r.ethtool_stats()
    _, msg = r.guest("dmesg | grep -c 'over-grants and laps'\n", check=False)
    restarts = e1["A"].get("ring_restarts", 0) - e0["A"].get(
        "ring_restarts", 0)
    g = full_ring(t, r, "0x%x firmware" % LOW_FW, LOW_FW, LOW_FW)
    t.check("driver 0x400 on 0x100 firmware falls back to 0x100; the "
            "firmware reconfigured to 0x%x: the port falls back again, said "
            "again, to 0x%x; then a full ring does not lap"
            % (LOW_FW, LOW_FW),
            rc == 0 and effs[0] == 0x100 and effs[-1] == LOW_FW and
            restarts == int(msg.split()[0]) >= 2 and g is not None and
            g["lapped"] == 0 and (g["ok"] or bool(HOLD_SKIP)),
            "oq_wmark_effective after each hold %s; ring_restarts +%d; "
            "messages %s; %s" % (effs, restarts, msg.split()[:1],
                                 g and g["text"]))
    r.qom_set("nicA", "wmark", 0x100)
    set_wmark(r, r.ifa, 0x100)


def ring_size_checks(t, r):
    for val in (1000, 32):
        rc, out = r.guest("""
ethtool -G %s rx %d 2>&1; echo "@@RC $?"
ethtool -g %s | sed -n '/Current/,$p' | grep -E '^RX:'
dmesg | grep 'rx ring' | tail -n 1
""" % (r.ifa, val, r.ifa), check=False)
        t.check("ethtool -G rx %d (not a whole number of fetches, or under "
                "64) is refused with a message, the ring stays %d"
                % (val, RING), "@@RC 0" not in out and
                re.search(r"RX:\s*%d" % RING, out) and
                "multiple of 16" in out, out)
    rc, out = r.guest("ethtool -G %s rx 512 && carrier %s 1 30\n"
                      % (r.ifa, r.ifa), check=False)
    tr = r.truth()
    t.check("ethtool -G rx 512: the rings restart with a grant of 512 + "
            "0x100 - 16", rc == 0 and granted(tr, "A", r.queues_now,
                                                grant(0x100, 512)),
            "outstanding_max %s\n%s" % (tr["A"]["outstanding_max"], out))
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    t.check("ring 512: forwarding lossless", counts_agree(row),
            counts_text(row))
    r.guest("ethtool -G %s rx %d && carrier %s 1 30\n" % (r.ifa, RING, r.ifa))


def link_settings_checks(t, r):
    """ethtool's link settings come from the firmware's LINK_INFO (one
    mode on dbb-octep: bit 0, 10GBASE-T; no auto-negotiation); what the
    firmware cannot do is refused with a message and changes nothing."""
    A = r.ifa
    rc, out = r.guest("ethtool %s\n" % A, check=False)
    t.check("ethtool shows the firmware's link modes (10000baseT/Full "
            "supported and advertised, auto-negotiation off, 10000 Mb/s)",
            rc == 0 and re.search(r"Supported link modes:\s+10000baseT/Full",
                                  out) and
            re.search(r"Advertised link modes:\s+10000baseT/Full", out) and
            re.search(r"Auto-negotiation: off", out) and
            "Speed: 10000Mb/s" in out, out)
    for args, why in (("advertise 0x1", "modes the port supports"),
                      ("advertise 0", "modes the port supports"),
                      ("speed 25000 autoneg off", "no advertised mode runs "
                       "at 25000 Mb/s"),
                      ("autoneg on", "no auto-negotiation"),
                      ("duplex half", "only full duplex")):
        rc, out = r.guest("""
ethtool -s %s %s 2>&1; echo "@@RC $?"
ethtool %s | grep -A1 'Advertised link modes'
dmesg | tail -n 3
""" % (A, args, A), check=False)
        t.check("ethtool -s %s is refused with a message, the advertised "
                "modes stay" % args, "@@RC 0" not in out and why in out and
                re.search(r"Advertised link modes:\s+10000baseT/Full", out),
                out)
    rc, out = r.guest("ethtool -s %s speed 10000 duplex full autoneg off && "
                      "carrier %s 1 10\n" % (A, A), check=False)
    t.check("ethtool -s speed 10000 duplex full autoneg off (what the port "
            "does) is accepted, the link stays up", rc == 0, out)


TOTALS = ("rx_packets", "rx_bytes", "rx_dropped", "tx_packets", "tx_bytes",
          "tx_dropped")


def totals(r, dev):
    """The port's netdev totals (what ip -s link shows)."""
    out = r.guest("cd /sys/class/net/%s/statistics && cat %s\n"
                  % (dev, " ".join(TOTALS)))[1]
    return dict(zip(TOTALS, (int(x) for x in out.split())))


def channel_checks(t, r):
    # the ring pair -L takes away must have counted something, or the
    # check below cannot fail
    ring1 = re.search(r"rx1_packets: (\d+)", r.guest("ethtool -S %s\n"
                                                     % r.ifa)[1])
    before = totals(r, r.ifa)
    rc, out = r.guest("ethtool -L %s combined 1 && carrier %s 1 30 && "
                      "ethtool -l %s | sed -n '/Current/,$p' | grep Combined\n"
                      % ((r.ifa,) * 3), check=False)
    after = totals(r, r.ifa)
    back = [k for k in TOTALS if after[k] < before[k]]
    t.check("ethtool -L combined 1 keeps the port's totals: no counter of "
            "ip -s link goes back (the freed ring pair's packets stay "
            "counted)", ring1 and int(ring1.group(1)) > 0 and not back,
            "rx1_packets %s\nbefore %s\nafter  %s" % (
                ring1 and ring1.group(1), before, after))
    tr = r.truth()
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    tr1 = r.truth()
    per_ring = [b - a for a, b in zip(tr["A"]["rx_frames"],
                                      tr1["A"]["rx_frames"])]
    t.check("ethtool -L combined 1: the port restarts on one ring pair "
            "(every frame on ring 0), granted ring + wmark - 16, and "
            "forwards lossless",
            rc == 0 and granted(tr, "A", 1, grant(0x100)) and
            per_ring[0] == offered(row) and not any(per_ring[1:]) and
            counts_agree(row), "outstanding_max %s; frames per ring %s; "
            "%s\n%s" % (tr["A"]["outstanding_max"], per_ring,
                        counts_text(row), out))
    new_vector_alloc_fails(t, r)
    rc, out = r.guest("ethtool -L %s combined %d && carrier %s 1 30\n"
                      % (r.ifa, r.queues_now, r.ifa), check=False)
    t.check("ethtool -L back to %d combined" % r.queues_now, rc == 0, out)


RUN_ALLOC_FAILS = 8


def refill_alloc_fails(t, r):
    """Receive pages that fail while the port forwards (debugfs
    fail_rx_alloc): each failure counts once in rx alloc_failed, the pass
    polls again, the rings fill back up (the invariant holds, nothing
    left to refill), and the step is lossless."""
    e0 = r.ethtool_stats()
    r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null\n"
            "i0=$(cat %s/injected); echo 0 >%s/skip_rx_alloc; "
            "echo %d >%s/fail_rx_alloc\n"
            % (dbg(r.ifa), dbg(r.ifa), RUN_ALLOC_FAILS, dbg(r.ifa)))
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    e1 = r.ethtool_stats()
    _, left = r.guest("cat %s/fail_rx_alloc\n" % dbg(r.ifa), check=False)
    rings = ring_invariant(r, r.ifa)
    failed = stat_delta(e0, e1, "A", "alloc_failed", "rx")
    t.check("%d receive pages failing while A forwards: rx alloc_failed "
            "+%d, the rings full again after (nothing to refill), the step "
            "lossless" % (RUN_ALLOC_FAILS, RUN_ALLOC_FAILS),
            failed == RUN_ALLOC_FAILS and left.split()[-1] == "0" and
            rings and all(ok and " to_refill 0 " in x for _, ok, x in rings)
            and counts_agree(row),
            "alloc_failed +%d, left %s; %s\n%s" % (
                failed, left.split()[-1:], counts_text(row),
                "\n".join(x for _, _, x in rings)))


def new_vector_alloc_fails(t, r):
    """Port A on one ring pair: ethtool -L to two with the first receive
    page of the new vector failing (debugfs skip_rx_alloc, fail_rx_alloc:
    ring 0 fills its pages first).  The new vector's output ring was never
    programmed, so the failure path must not touch it (it once wrote its
    doorbell through a NULL address: an oops)."""
    rc, out = r.guest("""
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
D=%s
ring=$(ethtool -g %s | sed -n '/Current/,$p' | awk '/^RX:/ { print $2 }')
i0=$(cat $D/injected)
dmesg -c >/dev/null
echo $ring >$D/skip_rx_alloc
echo 1 >$D/fail_rx_alloc
ethtool -L %s combined 2 && echo "LAB: -L succeeded"
echo "LAB: injected $(($(cat $D/injected) - i0)) left $(cat $D/skip_rx_alloc) $(cat $D/fail_rx_alloc)"
carrier %s 1 30
ethtool -l %s | sed -n '/Current/,$p' | grep Combined
dmesg
""" % (dbg(r.ifa), r.ifa, r.ifa, r.ifa, r.ifa), check=False)
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    t.check("ethtool -L 1 -> 2 with the new vector's first receive page "
            "failing: refused (ENOMEM, said in dmesg), no oops, the fault "
            "injected once, the port back on one ring pair and forwarding "
            "lossless",
            "LAB: -L succeeded" not in out and
            "LAB: injected 1 left 0 0" in out and
            re.search(r"no memory for \d+ receive pages", out) and
            re.search(r"Combined:\s+1\b", out) and
            not re.search(r"Oops|BUG:|Call Trace|WARNING", out) and
            counts_agree(row),
            "%s\n%s" % (counts_text(row), out))


XDP_ACTIONS = ("drop", "tx", "pass")


def rx_counts_check(t, r, what, tr0, tr1, e0, e1):
    """ethtool -S rx*_packets and rx*_bytes of A against the frames and
    bytes model A wrote to the host: every frame the ring received counts,
    whatever XDP did with it, at its length on the wire less the FCS (the
    rule igc_batch and upstream igc follow)."""
    frames = sum(tr1["A"]["rx_frames"]) - sum(tr0["A"]["rx_frames"])
    nbytes = sum(tr1["A"]["rx_bytes"]) - sum(tr0["A"]["rx_bytes"])
    pk = stat_delta(e0, e1, "A", "packets", "rx")
    by = stat_delta(e0, e1, "A", "bytes", "rx")
    t.check("%s: A's rx*_packets and rx*_bytes are the model's frames and "
            "bytes written to the host" % what,
            frames > 0 and (pk, by) == (frames, nbytes),
            "model %d frames %d bytes; ethtool -S %d packets %d bytes"
            % (frames, nbytes, pk, by))


def xdp_action_checks(t, r):
    """Native XDP_DROP, XDP_TX and XDP_PASS on port A (xdp-bench), the
    stack forwarding underneath: what the model saw A take in went
    nowhere, back out of A, or through the stack out of B.  Before them,
    no program: the receive counters against the model's."""
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.gen_background(LOW_RATE, 2000).wait()
    time.sleep(1.5)
    rx_counts_check(t, r, "no XDP program", tr0, r.truth(), e0,
                    r.ethtool_stats())
    for act in XDP_ACTIONS:
        # The previous xdp-bench is gone (process and program) before the
        # next starts: libxdp refuses while its lock file is still held.
        rc, out = r.guest("""
ip -d link show %s | grep -q 'prog/xdp' && { echo "XDP still attached"; exit 7; }
setsid xdp-bench %s -m native %s >/tmp/xdp-act.log 2>&1 </dev/null &
echo $! >/tmp/xdp-act.pid
i=0; while [ $i -lt 100 ]; do
	ip -d link show %s | grep -q 'prog/xdp' && break; sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -0 $(cat /tmp/xdp-act.pid) && ip -d link show %s | grep -q 'prog/xdp' ||
	{ cat /tmp/xdp-act.log; exit 8; }
""" % (r.ifa, act, r.ifa, r.ifa, r.ifa), check=False)
        e0 = r.ethtool_stats()
        tr0 = r.truth()
        r.gen_background(LOW_RATE, 2000).wait()
        time.sleep(1.5)
        tr1 = r.truth()
        e1 = r.ethtool_stats()
        r.guest("p=$(cat /tmp/xdp-act.pid); kill -INT $p; i=0; while "
                "[ $i -lt 100 ] && { kill -0 $p 2>/dev/null || "
                "ip -d link show %s | grep -q prog/xdp; }; do sleep 0.1; "
                "i=$((i + 1)); done\n"
                % r.ifa, check=False)
        d = {(p, k): sum(tr1[p][k]) - sum(tr0[p][k])
             for p in "AB" for k in ("rx_frames", "tx_frames")}
        rx = d["A", "rx_frames"]
        stat = {"drop": "xdp_drop", "tx": "xdp_tx", "pass": "packets"}[act]
        counted = stat_delta(e0, e1, "A", stat, "rx")
        want = {"drop": (0, 0), "tx": (rx, 0), "pass": (0, rx)}[act]
        t.check("XDP_%s (xdp-bench %s, native) on A at %d pps: what model A "
                "took in went where the action sends it, and ethtool -S "
                "rx*_%s counted it" % (act.upper(), act, LOW_RATE, stat),
                rc == 0 and rx >= 2000 and
                (d["A", "tx_frames"], d["B", "tx_frames"]) == want and
                counted == rx,
                "model A took in %d, sent back out of A %d, B sent %d; "
                "ethtool -S rx*_%s +%d\n%s" % (
                    rx, d["A", "tx_frames"], d["B", "tx_frames"], stat,
                    counted, out))
        rx_counts_check(t, r, "XDP_%s" % act.upper(), tr0, tr1, e0, e1)


def suspend_checks(t, r):
    rc, out = r.guest("""
echo devices >/sys/power/pm_test || exit 11
n0=$(dmesg | grep -c 'PM: suspend exit' || true)
echo freeze >/sys/power/state; rc=$?
echo none >/sys/power/pm_test
n1=$(dmesg | grep -c 'PM: suspend exit' || true)
echo "@@SUSPEND rc=$rc exits=$((n1 - n0))"
carrier %s 1 30 && carrier %s 1 30 || echo "@@NOCARRIER"
dmesg | grep -E 'PM: |octep_fix' | tail -n 6
""" % (r.ifa, r.ifb), timeout=180, check=False)
    tr = r.truth()
    t.check("system sleep (pm_test=devices, freeze): suspend and resume "
            "complete, both ports back with their rings granted again",
            rc == 0 and "@@SUSPEND rc=0 exits=1" in out and
            "@@NOCARRIER" not in out and
            all(granted(tr, p, r.queues_now, grant(0x100)) for p in "AB"),
            "outstanding_max %s %s\n%s" % (tr["A"]["outstanding_max"],
                                           tr["B"]["outstanding_max"], out))
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    t.check("after resume: forwarding lossless and in order",
            counts_agree(row) and row["reordered"] == 0, counts_text(row))


def heartbeat_checks(t, r):
    e0 = r.ethtool_stats()
    r.qom_set("nicA", "fw-heartbeat", False)
    rc_down, out = r.guest(
        "carrier %s 0 20; echo \"@@DOWN $?\"; dmesg | grep -i "
        "heartbeat | tail -n 2\n" % r.ifa, check=False)
    r.qom_set("nicA", "fw-heartbeat", True)
    rc_up, out2 = r.guest("carrier %s 1 30\n" % r.ifa, check=False)
    e1 = r.ethtool_stats()
    lost = e1["A"].get("fw_heartbeat_lost", 0) - e0["A"].get(
        "fw_heartbeat_lost", 0)
    t.check("heartbeat stopped: the port goes down with a message "
            "(fw_heartbeat_lost +1); back: the carrier returns",
            "@@DOWN 0" in out and rc_up == 0 and lost == 1 and
            "heartbeat" in out.lower(), "lost +%d\n%s" % (lost, out))
    # the stack's transmit watchdog looks at every queue 5 s after the
    # carrier returns: none may be left stopped by the heartbeat's loss
    _, wd = r.guest("sleep 6; dmesg | grep -c 'transmit queue .* timed "
                    "out'; for q in /sys/class/net/%s/queues/tx-*; do "
                    "cat $q/tx_timeout; done | tr '\\n' ' '; echo\n"
                    % r.ifa,
                    check=False)
    t.check("heartbeat back: 6 s later no transmit queue of A timed out "
            "(the stack's watchdog sees every queue; the loss stopped only "
            "those in use, and those are woken)",
            wd.split()[:1] == ["0"] and len(wd.split()) > 1 and
            set(wd.split()[1:]) == {"0"},
            "timeouts in dmesg, then per queue: %s" % wd.strip())
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    t.check("after the heartbeat came back: forwarding lossless",
            counts_agree(row), counts_text(row))


def firmware_checks(t, r):
    """A firmware that answers after the driver stopped waiting (800 ms
    against its 500 ms), then one that does not answer: port A reopened
    under each stays down, counting timeouts; once the firmware answers
    again the port comes up by itself and forwards."""
    for prop, bad, good, what in (
            ("fw-delay-ms", 800, 0, "answers 800 ms late"),
            ("fw-silent", True, False, "does not answer")):
        e0 = r.ethtool_stats()
        r.qom_set("nicA", prop, bad)
        rc, out = r.guest("""
ip link set %s down; ip link set %s up; echo "@@UP $?"; sleep 3
echo "@@CARRIER $(cat /sys/class/net/%s/carrier)"
""" % ((r.ifa,) * 3), check=False)
        e1 = r.ethtool_stats()
        r.qom_set("nicA", prop, good)
        rc2, out2 = r.guest("carrier %s 1 30 && echo @@BACK; dmesg | grep -iE "
                            "'firmware|mailbox' | tail -n 3\n" % r.ifa,
                            check=False)
        timeouts = e1["A"].get("fw_mbox_timeouts", 0) - e0["A"].get(
            "fw_mbox_timeouts", 0)
        row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
        t.check("firmware that %s: port A opened under it stays without "
                "carrier and counts mailbox timeouts; when the firmware "
                "answers again it comes up by itself and forwards lossless"
                % what,
                "@@CARRIER 0" in out and timeouts > 0 and "@@BACK" in out2
                and counts_agree(row),
                "mailbox timeouts +%d\n%s\n%s\n%s" % (
                    timeouts, out, out2, counts_text(row)))


def firmware_restart_checks(t, r):
    """The coprocessor restarts its firmware under the running port (the
    model's fw-restart: rings reinitialised, the mailbox back to its
    first READY, no heartbeat until greeted): the driver sees the
    mailbox reset, greets the firmware again and restarts its rings;
    the port forwards again with every ring granted anew (it once only
    re-sent port-up after the heartbeat came back, which it never did)."""
    e0, tr0 = r.ethtool_stats(), r.truth()
    r.qom_set("nicA", "fw-restart", True)
    rc, out = r.guest("sleep 1; carrier %s 1 30; echo \"@@UP $?\"; dmesg | "
                      "grep -iE 'firmware restarted|restarting the rings' | "
                      "tail -n 2\n" % r.ifa, check=False)
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    e1, tr1 = r.ethtool_stats(), r.truth()
    restarts = e1["A"].get("fw_restarts", 0) - e0["A"].get("fw_restarts", 0)
    t.check("firmware restarted under the running port: greeted again "
            "(fw_restarts +1, said in dmesg), the rings restarted and "
            "granted ring + wmark - 16 again, forwarding lossless",
            "@@UP 0" in out and restarts == 1 and
            granted(tr1, "A", r.queues_now, grant(0x100)) and
            counts_agree(row),
            "fw_restarts +%d; outstanding_max %s\n%s\n%s" % (
                restarts, tr1["A"]["outstanding_max"], out,
                counts_text(row)))


RTNL_OPS = 30


def rtnl_free_while_mute(t, r):
    """A's firmware mute (fw-silent) with A up: the driver retries its
    port-up every tick, each request waiting 500 ms for an answer.  It
    waits without RTNL: RTNL_OPS changes on port B (ip link set alias,
    each under RTNL) take no longer than with A's firmware answering (it
    once held RTNL for each wait, every 100 ms)."""
    script = ("t0=$(cut -d' ' -f1 /proc/uptime); i=0; while [ $i -lt %d ]; "
              "do ip link set %s alias dbb$i; i=$((i + 1)); done; "
              "t1=$(cut -d' ' -f1 /proc/uptime); "
              "echo \"@@MS $(echo \"$t0 $t1\" | awk '{ printf \"%%d\", "
              "($2 - $1) * 1000 }')\"\n" % (RTNL_OPS, r.ifb))

    def ms(out):
        m = re.search(r"@@MS (\d+)", out)
        return int(m.group(1)) if m else None
    base = ms(r.guest(script, check=False)[1])
    r.qom_set("nicA", "fw-silent", True)
    r.guest("ip link set %s down; ip link set %s up; sleep 1\n"
            % (r.ifa, r.ifa), check=False)
    mute = ms(r.guest(script, check=False)[1])
    r.qom_set("nicA", "fw-silent", False)
    rc, out = r.guest("carrier %s 1 30; echo \"@@UP $?\"\n" % r.ifa,
                      check=False)
    t.check("A's firmware mute, A retrying its port-up: %d RTNL changes on "
            "B take at most twice as long as with the firmware answering "
            "(plus 0.3 s), and A comes up once it answers" % RTNL_OPS,
            base is not None and mute is not None and
            mute <= 2 * base + 300 and "@@UP 0" in out,
            "%d changes on B: %s ms answering, %s ms mute" % (
                RTNL_OPS, base, mute))


def bound_checks(t, r):
    """What the block held never went past the exact grant, over all the
    0x100 traffic so far (the gauge restarts with a ring); BQL is wired
    (a limit grew from completions on B's queues)."""
    tr = r.truth()
    omax = {p: tr[p]["outstanding_max"] for p in "AB"}
    t.check("0x100: no ring ever held more than ring + wmark - 16 = %d "
            "(credit plus fetched buffers, the model's most)" % grant(0x100),
            all(0 < x <= grant(0x100) for p in "AB"
                for x in omax[p][:r.queues_now]),
            "outstanding_max %s" % omax)
    _, out = r.guest(
        "cat /sys/class/net/%s/queues/tx-*/byte_queue_limits/limit"
        "\n" % r.ifb, check=False)
    limits = [int(x) for x in out.split() if x.isdigit()]
    t.check("BQL: B's TX queues have byte queue limits that grew from "
            "completions", any(x > 0 for x in limits),
            "limits %s\n%s" % (limits, out))


def flap_checks(t, r):
    """The link follows the firmware's notifications (QMP set_link)."""
    r.set_link("nicA", False)
    rc_down, _ = r.guest("carrier %s 0 15\n" % r.ifa, check=False)
    r.set_link("nicA", True)
    rc_up, _ = r.guest("carrier %s 1 30\n" % r.ifa, check=False)
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    t.check("link flap: the firmware's notifications take the carrier down "
            "and up; forwarding lossless after it",
            rc_down == 0 and rc_up == 0 and counts_agree(row),
            "down %d up %d; %s" % (rc_down, rc_up, counts_text(row)))


def dma_checks(t, r, what):
    tr = r.truth()
    errs = {p: sum(tr[p]["dma_errors"]) for p in "AB"}
    t.check("%s: the IOMMU refused no DMA of either port (no write into a "
            "page the driver had unmapped)" % what,
            not any(errs.values()), "dma_errors per port %s" % errs)


# ---- the loop boot's own checks ---------------------------------------------

def pci_error_checks(t, r):
    """A behind a root port (B is in the peer namespace).  A non-fatal
    uncorrectable error (AER POISON_TLP) runs octep_fix's error_detected,
    slot_reset and resume, and A pings B again.  Then a fatal one
    (MALF_TLP: the core resets the link) while XDP_PASS is attached and
    detached on A over and over: this lab's root port does not report
    the link back after the reset, so the core gives up and A stays
    detached, as a card that failed would; every attach that meets the
    detached port is refused with a message, and so is a watermark
    through debugfs; nothing oopses.  Last in the boot: A stays so."""
    bound, aer = pcierr.aer_bound(r)
    if not bound:
        t.check("PCI error recovery (AER injection on A)", True, aer,
                skip="the guest's AER service does not bind the root port")
        return
    pcierr.enable_serr(r, "A")
    # back from the jumbo ping: XDP takes frames of one buffer
    r.guest("ip link set %s mtu 1500; ip -n peer link set %s mtu 1500; "
            "carrier %s 1 30\n" % (r.ifa, r.ifb, r.ifa), check=False)
    rec, seen, ev = pcierr.inject(r, "A")
    rc, o2 = r.guest("""
carrier %s 1 30 || echo @@NOCARRIER
ping -c 3 -W 2 -q 10.9.0.2 >/dev/null 2>&1 || echo @@NOPING
""" % r.ifa, check=False)
    t.check("PCI error recovery (AER POISON_TLP on A): error_detected, "
            "slot_reset, resume (\"recovered from a PCI error\"), carrier "
            "back, ping across after",
            rec == 1 and "@@NOCARRIER" not in o2 and "@@NOPING" not in o2,
            "%s\n%s" % (ev, o2),
            skip=None if seen or rec else "QEMU accepted the injection but "
            "no AER message reached the guest's AER driver")

    pcierr.xdp_loop_start(r, r.ifa, 8)
    time.sleep(1.5)
    rec, seen, ev = pcierr.inject(r, "A", "MALF_TLP")
    res, out = pcierr.xdp_loop_result(r)
    _, o3 = r.guest("""
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
echo 0x100 >%s/oq_wmark 2>/dev/null && echo "@@WMARK taken"
dmesg | grep -E 'octep_fix.*(detached|PCI error)|recovery failed' | tail -n 4
echo "@@OOPS $(dmesg | grep -cE 'BUG|Oops|WARNING' || true)"
""" % dbg(r.ifa), check=False)
    failed = "device recovery failed" in ev
    t.check("a fatal PCI error (AER MALF_TLP) with XDP_PASS attached and "
            "detached on A over and over: while A is detached every attach "
            "is refused with a message (EBUSY, \"the device is "
            "detached\"), the rest succeed, and a debugfs oq_wmark is "
            "refused too; no oops",
            res is not None and res["ok"] > 0 and res["busy"] > 0 and
            res["other"] == 0 and (failed or rec == 1) and
            "@@WMARK taken" not in o3 and "@@OOPS 0" in o3 and
            (not failed or "settings unchanged" in o3),
            "xdp swaps %s; recovery %s\n%s\n%s\n%s" % (
                res, "failed" if failed else "recovered %d" % rec,
                out[-600:], ev, o3))


# ---- port A re-probed: an older firmware, the other driver ----------------

DRV = """
drv() { basename "$(readlink -f /sys/bus/pci/devices/$1/driver)"; }
# a re-probed port takes the lowest free ethN: give it its name back
renamed() { n=$(ifof $1) || return 1; [ "$n" = "$2" ] || ip link set "$n" name "$2"; }
"""


def port_bdf(r, ifname):
    _, out = r.guest('basename "$(readlink -f /sys/class/net/%s/device)"\n'
                     % ifname)
    return out.split()[-1]


def back_up(r, bdf):
    """Port A bound by octep_fix again, under its old name, carrier up."""
    return r.guest(DRV + """
[ "$(drv %s)" = octep_fix ] || echo %s >/sys/bus/pci/drivers/octep_fix/bind
waitif %s && renamed %s %s && ip link set %s up && carrier %s 1 30 || exit 4
echo "@@UP $(drv %s)"
""" % (bdf, bdf, router.MAC_A, router.MAC_A, r.ifa, r.ifa, r.ifa, bdf),
                   check=False)


def v1_firmware_checks(t, r):
    """A firmware image that speaks only the v1 mailbox (no control-plane
    version, the model's fw-v1): octep_fix refuses the port at probe and
    says what to do; with the v2 image back, a bind brings it up."""
    bdf = port_bdf(r, r.ifa)
    r.guest("echo %s >/sys/bus/pci/drivers/octep_fix/unbind\n" % bdf)
    r.qom_set("nicA", "fw-v1", True)
    _, out = r.guest(DRV + """
dmesg -C
echo %s >/sys/bus/pci/drivers/octep_fix/bind; echo "@@BIND $?"
echo "@@DRV $(drv %s)"
dmesg | grep -i octep_fix | tail -n 3
""" % (bdf, bdf), check=False)
    r.qom_set("nicA", "fw-v1", False)
    rc, out2 = back_up(r, bdf)
    t.check("v1-only firmware: octep_fix refuses the port at probe with a "
            "message saying what to do, nothing bound; v2 firmware back: "
            "bound and up again",
            "@@BIND 0" not in out and "@@DRV octep_fix" not in out and
            re.search(r"v1 mailbox.*octep_fix needs v2.*Update the Octeon "
                      r"firmware", out) and rc == 0 and
            "@@UP octep_fix" in out2, out + out2)


def switch_checks(t, r):
    """tools/lab/nic-switch.sh with octeon_ep and octep_fix both loaded:
    port A to octeon_ep and back while port B stays on octep_fix, then
    forwarding as before."""
    bdf = port_bdf(r, r.ifa)
    rc, out = r.guest(DRV + """
a=%s b=$(basename "$(readlink -f /sys/class/net/%s/device)")
modprobe octeon_ep || exit 3
echo "@@BEFORE $(drv $a) $(drv $b)"
nic-switch.sh -f octep to-upstream %s || exit 4
waitif %s || exit 5
echo "@@UPSTREAM $(drv $a) $(drv $b)"
nic-switch.sh status
nic-switch.sh -f octep to-ours $a || exit 6
echo "@@BACK $(drv $a) $(drv $b)"
# the switch lasts (driver_override): clear it for what follows
for d in /sys/bus/pci/devices/*/driver_override; do echo >$d; done
rmmod octeon_ep
""" % (bdf, r.ifb, r.ifa, router.MAC_A), check=False)
    rc2, out2 = back_up(r, bdf)
    r.mode_setup("stack")
    row = r.step(ON, "stack", LOW_RATE, LOW_COUNT)
    r.mode_teardown("stack")
    t.check("nic-switch.sh with octeon_ep and octep_fix both loaded: port "
            "A to octeon_ep and back to octep_fix, port B stays on "
            "octep_fix; forwarding lossless after",
            rc == 0 and "@@BEFORE octep_fix octep_fix" in out and
            "@@UPSTREAM octeon_ep octep_fix" in out and
            "@@BACK octep_fix octep_fix" in out and rc2 == 0 and
            counts_agree(row), "%s\n%s\n%s" % (out, out2, counts_text(row)))


def rmmod_under_traffic(t, r):
    r.mode_setup("stack")
    gen = r.gen_background(20000, 200000)
    time.sleep(1)
    tr0 = r.truth()
    rc, out = r.guest("rmmod octep_fix && echo @@GONE; ls /sys/class/net\n",
                      check=False)
    tr1 = r.truth()
    gen.kill()
    gen.wait()
    removes = [fw(tr1, p, DEV_REMOVE) - fw(tr0, p, DEV_REMOVE) for p in "AB"]
    t.check("rmmod octep_fix while forwarding 20,000 pps: succeeds and "
            "tells each port's firmware (DEV_REMOVE)",
            "@@GONE" in out and removes == [1, 1],
            "DEV_REMOVE per port %s\n%s" % (removes, out))


def router_boot(t, short, a):
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "router"), short,
                        "dbb-octf-lab.")
    # The over-grant test makes the block lap the ring on purpose: with
    # an IOMMU a write into a page the driver no longer maps is refused
    # and counted (dma_errors), not a corruption of the guest.
    ra = router_opts(short, a, out, modules=a.mods[short], viommu=True)
    cfgs = [OFF, ON, UP]
    r = RouterNetconsole(ra, cfgs, router.our_modules(ra, cfgs),
                         files={"/usr/sbin/nic-switch.sh": os.path.join(
                             labvm.REPO, "tools", "lab", "nic-switch.sh")})
    with router.booted(t, r, "router boot"):
        bad_params(t, r)
        probe_checks(t, r, r.load(ON))
        policy_checks(t, r)
        r.mode_setup("stack")
        ring_checks(t, r, 0x100, "0x100")
        quiesce_page_test(t, r)
        resync_checks(t, r)
        refill_alloc_fails(t, r)
        lost_irq_checks(t, r)
        uncounted_checks(t, r)
        tx_hold_checks(t, r)
        e0, tr0 = r.ethtool_stats(), r.truth()
        starve_checks(t, r)
        refusal_checks(t, r, "starved (ceiling under the watermark)", e0,
                       tr0)
        no_laps(t, r, "0x100, holds and starve")
        dma_checks(t, r, "0x100, holds and starve")
        bound_checks(t, r)
        flap_checks(t, r)
        wmark_0x400(t, r)
        mismatch_low(t, r)
        mismatch_high(t, r)
        mismatch_again(t, r)
        dma_checks(t, r, "after the lap")
        ring_size_checks(t, r)
        link_settings_checks(t, r)
        channel_checks(t, r)
        xdp_action_checks(t, r)
        netpoll0.check(t, r, "octep_fix", "octf_napi_poll")
        suspend_checks(t, r)
        heartbeat_checks(t, r)
        firmware_checks(t, r)
        firmware_restart_checks(t, r)
        rtnl_free_while_mute(t, r)
        r.mode_teardown("stack")
        v1_firmware_checks(t, r)
        switch_checks(t, r)
        rmmod_under_traffic(t, r)
        dma_checks(t, r, "router boot, rmmod")
        clean(t, r, "router boot")
    return ra.out


# ---- an igc_batch port and an octep_fix port ------------------------------

def pass_rings_once(row, held, passes):
    """(ok, evidence): port B's TX doorbell, counted by its model, rang
    at most once per batch the receive passes opened (PASSES) plus once
    per forwarded packet that went out unheld, never with nothing new,
    and nine in ten packets were held.  Packets per doorbell is a
    rate: it follows how many frames each pass finds, which the host's
    speed sets (15 to 64 here), so it is printed, not judged."""
    m = row["model"]
    fwd, writes = m["B_tx_frames"], m["B_tdt_writes"]
    ok = fwd > 0 and 10 * held >= 9 * fwd and \
        0 < writes <= passes + (fwd - held) and m["B_tdt_noop_writes"] == 0
    return ok, "B's TX doorbell writes %d, receive passes %d, packets " \
        "forwarded %d, held %d (%.1f packets per doorbell), writes that " \
        "announce nothing %d" % (writes, passes, fwd, held,
                                 fwd / writes if writes else 0,
                                 m["B_tdt_noop_writes"])


def mixed_boot(t, short, a, octep_in):
    """igc_batch on dbb-igc, octep_fix on dbb-octep: A -> B one way in
    this boot (OCTEP_IN: the octep port receives)."""
    name = "octep_fix -> igc_batch" if octep_in else \
        "igc_batch -> octep_fix"
    cfg = router.Config("octep_fix+igc_batch" if octep_in else
                        "igc_batch+octep_fix", label=name)
    out = labvm.run_dir(a.keep and os.path.join(
        a.keep, "mixed-%d" % octep_in), short, "dbb-octf-mixed.")
    igc_port = "nic_b" if octep_in else "nic_a"
    ra = router_opts(short, a, out, modules=a.mods[short],
                     **{igc_port: "dbb-igc"})
    r = router.Router(ra, [cfg], router.our_modules(ra, [cfg]))
    with router.booted(t, r, name + " boot"):
        r.load(cfg)
        r.mode_setup("stack")
        row = r.step(cfg, "stack", LOW_RATE, LOW_COUNT)
        t.check("%s, stack: lossless, in order, model == generator == sink"
                % name, counts_agree(row) and row["reordered"] == 0,
                counts_text(row))
        e0, c0 = r.ethtool_stats(), r.dbbatch_stats()
        row = r.step(cfg, "stack", SAT_RATE, SAT_RATE * SAT_SECONDS)
        e1, c1 = r.ethtool_stats(), r.dbbatch_stats()
        ok, why = pass_rings_once(row, stat_delta(e0, e1, "B", "db_held"),
                                  c1["batches"] - c0["batches"])
        t.check("%s, stack at %d pps offered: the receive pass of one "
                "driver holds the other's TX doorbell, which rings at most "
                "once a pass, never to announce nothing" % (name, SAT_RATE),
                ok, why + "; " + counts_text(row))
        r.mode_teardown("stack")
        r.mode_setup("xdp")
        row = r.step(cfg, "xdp", LOW_RATE, LOW_COUNT)
        t.check("%s, XDP_REDIRECT: lossless, in order, model == generator "
                "== sink" % name, counts_agree(row) and
                row["reordered"] == 0, counts_text(row))
        r.mode_teardown("xdp")
        no_laps(t, r, name, ports="A" if octep_in else "B")
        clean(t, r, name)
        r.guest("mount -t debugfs nodev /sys/kernel/debug 2>/dev/null; "
                "echo 'module octep_fix +p' >/sys/kernel/debug/dynamic_debug/"
                "control; dmesg -n 8\n", check=False)
    # poweroff ran .shutdown on the octep_fix port (a dynamic-debug line)
    try:
        with open(r.console, errors="replace") as f:
            con = f.read()
    except OSError as e:
        con = str(e)
    t.check("%s: .shutdown at guest poweroff stops the octep_fix port's "
            "DMA, no warning" % name, "shut down: DMA stopped" in con and
            not re.search(r"WARNING|BUG:|Oops|Call Trace",
                          con[con.find("shut down: DMA"):]),
            "\n".join(re.findall(r"^.*(?:shut down: DMA|reboot:).*$", con,
                                  re.M)[-3:]))
    return ra.out


# The boots, in the order they run (--only picks some)
BOOTS = ("router", "loop", "mixed")


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the run directories in DIR")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--only", action="append", choices=BOOTS,
                    help="only these boots (default: all)")
    labvm.modules_args(ap)
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    a.mods = {k: labvm.modules_for(a, k) for k in labvm.KERNEL_CHOICES}
    for short in a.kernel or ["6.1", "6.12"]:
        if not a.mods.get(short):
            ap.error("--modules-%s is needed" % short)

    def boots(t, short):
        global LOW_RATE, LOW_COUNT, HOLD_SKIP
        debug = labvm.is_debug(short)
        LOW_RATE, LOW_COUNT = (labvm.DEBUG_LOW_STEP if debug else
                               NORMAL_LOW_STEP)
        HOLD_SKIP = HOLD_SKIP_DEBUG if debug else None
        only = a.only or BOOTS
        dirs = []
        if "router" in only:
            dirs.append(t.boot(lambda: router_boot(t, short, a)))
        if "loop" in only:
            dirs.append(t.boot(lambda: loop_boot(
                t, short, a, ON, more=pci_error_checks,
                files=lambda out: {pcierr.XDP_PASS_GUEST:
                                   pcierr.xdp_pass_object(out)},
                root_port=["A"], modules=a.mods[short])))
        if "mixed" in only:
            dirs.append(t.boot(lambda: mixed_boot(t, short, a, False)))
            dirs.append(t.boot(lambda: mixed_boot(t, short, a, True)))
        return dirs

    return labvm.run_per_kernel(a, boots)


if __name__ == "__main__":
    sys.exit(main())
