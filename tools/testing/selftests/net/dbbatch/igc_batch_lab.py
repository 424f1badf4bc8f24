#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""igc_batch_lab.py: kselftest of igc_batch's doorbell policy, in the lab.

    tools/testing/selftests/net/dbbatch/igc_batch_lab.py [--kernel 6.1|6.12 ...]

Unlike dbbatch_core.sh, which runs inside the guest, this test drives a
guest from the lab host: it needs traffic from outside the router and the
device model's ground truth.  Topology (tools/lab/router.py): a QEMU guest
(Debian's kernel, TCG, 2 vCPUs) with two dbb-igc ports; dbb-gen on the host
sends 64-byte UDP frames into port A, the guest forwards them (IPv4 stack
or XDP_REDIRECT) out of port B, dbb-sink on the host counts arrivals, loss,
per-flow order and latency.  Every tail-write count below is the model's
(QMP "ground-truth"); the driver's own ethtool -S counters are checked
against it.  Per kernel, one boot as a router, one as a TCP endpoint:

  bad module parameters are refused at load with a message;
  for each policy -- "off" (db_skip_empty=0 tx_db_batched=0, upstream
  igc's doorbells), "skip-empty" (1 0) and "batched" (1 1):
    stack forwarding at a low rate: no loss, no per-flow reordering, model
    counts == generator == sink, zero tail writes that published nothing,
    ethtool -S tail-write counters == model, with batching off one TX
    tail write per packet but those the stack sent with xmit_more (model
    writes + db_xmit_more == model frames), and the hold/batch counters
    move only when batching is on;
    XDP_REDIRECT at a low rate: the same loss/order/count checks, and
    adaptive moderation read back from EITR (ethtool -d): port B's
    vectors, which only completed transmits, at 500 us, port A's at 50;
    stack forwarding at a saturating rate (rows.saturated; run again, up
    to three runs, while the host kept it from saturating, or batched
    missed the bar with the guest's CPUs under 85 % busy): batched <=
    0.05 TX tail writes per forwarded packet (FreeBSD: 0.063), zero no-op
    writes, and the dbbatch core counts batches and no batch left open;
    XDP_REDIRECT at a saturating rate: at most one TX tail write per
    destination queue per receive NAPI poll (napi:napi_poll tracepoint);
  low-rate latency (1,000 pps, one packet at a time), batching toggled at
  runtime with the private flag, interleaved: no added delay, and the pass
  that received a packet rings for it (tail writes per packet ~1);
  bad ethtool -G/-L/--set-priv-flags values refused with a message and
  nothing changed; ring and channel changes under traffic, then lossless;
  rmmod under traffic: no oops/warning, pages back, and it loads again;
  TCP endpoint (ports wired to each other, B in a netns, iperf3): tail
  writes per ACK on the receiver and per segment on the sender, batched
  and off;
  kernel log clean, no taint but out-of-tree/unsigned, no guest error.

Every number here is EMULATED (QEMU TCG): the thresholds are ratios of
counts, never times, except the latency comparison, which compares
interleaved runs of the two policies in the same boot.

KTAP on stdout; exit 0 when every check passed.  It is not in TEST_PROGS
(the in-guest runner cannot provide the traffic): tools/check.sh runs it.
"""

import os
import re
import statistics
import sys
import threading
import time

from lablib import REPO, labvm, router, rows

# How make check runs this test (tools/lab/selftests.py)
# The router boot alone: its saturating step and its latency pairs are
# judged from the host, which a second guest would slow; the TCP
# endpoint's boot shares the host.
LAB_CHECK = [{"stage": 30, "kernels": "each", "label": "igc_batch lab",
              "part": "router", "minutes": 3.5, "alone": True,
              "args": ["--modules", "{mods}", "--only", "router"]},
             {"stage": 30, "kernels": "each", "label": "igc_batch lab",
              "part": "tcp", "minutes": 1,
              "args": ["--modules", "{mods}", "--only", "tcp"]},
             {"stage": 80, "kernels": "rt", "label": "igc_batch lab",
              "part": "router", "minutes": 3.5, "alone": True,
              "args": ["--modules", "{mods}", "--threaded-napi", "--only",
                       "router"]},
             {"stage": 80, "kernels": "rt", "label": "igc_batch lab",
              "part": "tcp", "minutes": 1,
              "args": ["--modules", "{mods}", "--threaded-napi", "--only",
                       "tcp"]}]


# (pps, frames) of the low-rate steps and of the latency pairs (one
# packet at a time), by kernel: the debug kernel's at the rate it
# forwards without saturating (labvm.DEBUG_LOW_STEP).  boots() picks the
# kernel's.
STEPS = {"normal": {"low": (2000, 8000), "lat": (1000, 2000)},
         "debug": {"low": labvm.DEBUG_LOW_STEP, "lat": (250, 500)}}
(LOW_RATE, LOW_COUNT), (LAT_RATE, LAT_COUNT) = (STEPS["normal"]["low"],
                                                STEPS["normal"]["lat"])
LAT_PAIRS = 5
SAT_STACK, SAT_XDP, SAT_SECONDS = 120000, 150000, 2
# Runs of the saturating stack step at most: one run more while a run
# did not saturate the guest (rows.saturated), a premise the shared host
# can spoil, or, batched, missed the bar with the guest's CPUs under
# rows.SAT_BUSY_PCT: its drops then came from QEMU's input arriving in
# bursts while B's transmit backed up (a p50 of 111 ms, 74 % busy, 0.055
# on 6.12 once), and its receive passes were not the full ones the bar
# is about.
SAT_TRIES = 3
BATCHED_MAX = 0.05               # TX tail writes per forwarded packet
XDP_FULL_RING = 64               # B's TX ring in the saturated XDP step
XDP_PAUSE_AT, XDP_PAUSE_FOR = 0.5, 0.2   # s: B's DMA paused in that step
# Adaptive moderation (igcb_itr.h): a vector that receives 64-byte frames;
# one that only completes transmits at a low rate
ITR_SMALL_RX_US, ITR_TX_ONLY_MAX_US = 50, 500

POLICIES = [
    router.Config("igc_batch", "db_skip_empty=0 tx_db_batched=0",
                  label="off"),
    router.Config("igc_batch", "db_skip_empty=1 tx_db_batched=0",
                  label="skip-empty"),
    router.Config("igc_batch", "db_skip_empty=1 tx_db_batched=1",
                  label="batched"),
]

# Guest helpers on top of guest/lib.sh.
TRACE = r"""
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
[ -d /sys/kernel/debug/dbbatch ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
"""


def ev(row):
    m = row["model"]
    return ("sent %d forwarded %d lost %d reordered %s dup %s gaps %s; "
            "model A rx_frames %d rx_dropped %d rdt %d rdt_noop %d | B "
            "tx_frames %d tdt %d tdt_noop %d (per queue %s); tdt/pkt %s; "
            "cpu %s%%; p50 %s us p99 %s us"
            % (row["sent"], row["forwarded"], row["lost"], row["reordered"],
               row["dup"], row["flow_gaps_open"], m["A_rx_frames"],
               m["A_rx_dropped"], m["A_rdt_writes"], m["A_rdt_noop_writes"],
               m["B_tx_frames"], m["B_tdt_writes"], m["B_tdt_noop_writes"],
               m["B_tdt_per_queue"], row["tdt_per_fwd"],
               row["cpu_busy_pct"], row["lat_p50_us"], row["lat_p99_us"]))


def noop_writes(row):
    m = row["model"]
    return (m["A_tdt_noop_writes"] + m["A_rdt_noop_writes"] +
            m["B_tdt_noop_writes"] + m["B_rdt_noop_writes"])


RX_REFILL_BATCH = 16    # igcb_refill.h
MAX_QUEUES = 4          # an I226's, each may carry 15 slots awaiting


def rx_tail_batched(t, name, mode, row):
    """Each RDT write publishes RX_REFILL_BATCH buffers or more: a port's
    writes in a step at most (frames it received + what each queue had
    awaiting before) / 16.  Refilling at every poll's end wrote about one
    per frame at a low rate."""
    m = row["model"]
    ok = all(m[p + "_rdt_writes"] * RX_REFILL_BATCH <=
             m[p + "_rx_frames"] + (RX_REFILL_BATCH - 1) * MAX_QUEUES
             for p in "AB")
    t.check("%s: %s: RX buffers go back 16 at a time, one RDT write each "
            "(at most one per 16 frames received, both ports)" % (name, mode),
            ok and m["A_rdt_writes"] > 0,
            "model: port A %d RDT writes for %d frames received, port B %d "
            "for %d" % (m["A_rdt_writes"], m["A_rx_frames"],
                        m["B_rdt_writes"], m["B_rx_frames"]))


def rx_pages_reused(t, name, mode, row, e0, e1):
    """Port A's receive pages come back from the stack and are posted
    again (igcb_rx_page.c): at a low rate nearly every buffer a frame
    emptied takes a page the stack gave back (ethtool -S page_reused, at
    least 90 % of the frames the model says A received), and the ring
    takes no more pages than frames emptied slots (page_new +
    page_reused at most the frames plus what each queue had awaiting)."""
    frames = row["model"]["A_rx_frames"]
    reused = sdelta(e0, e1, "A", r"rx_q\d+_page_reused")
    new = sdelta(e0, e1, "A", r"rx_q\d+_page_new")
    t.check("%s: %s: RX pages reused: at least 90 %% of port A's frames "
            "(model) went into a page the stack gave back, no more pages "
            "taken than frames" % (name, mode),
            frames > 0 and reused * 10 >= frames * 9 and
            new + reused <= frames + (RX_REFILL_BATCH - 1) * MAX_QUEUES,
            "model: port A received %d frames; ethtool -S: page_reused +%d, "
            "page_new +%d" % (frames, reused, new))


def qsum(stats, port, what):
    """Sum of ethtool -S tx_qN_WHAT (or rx_qN_...) of one port."""
    return sum(v for k, v in stats[port].items() if re.fullmatch(what, k))


def sdelta(e0, e1, port, what):
    return qsum(e1, port, what) - qsum(e0, port, what)


def eitr_us(r, dev):
    """DEV's queue vectors' EITR intervals, microseconds, from ethtool -d
    (igcb_ethtool.c: the five EITRs last, vector 0 for other causes)."""
    rc, w = r.regs(dev)
    return [(x >> 2) & 0x1FFF for x in w[-4:]] if rc == 0 and w else []


def itr_tx_only_us(ring, mbps=2500):
    """igcb_itr_tx_max(): the time a line-rate burst of 64-byte frames
    (672 bits on the wire) takes to fill half a ring of RING, within
    50..ITR_TX_ONLY_MAX_US."""
    return max(ITR_SMALL_RX_US,
               min(ITR_TX_ONLY_MAX_US, ring // 2 * 672 // mbps))


def tx_only_moderation(r, e0, e1):
    """After a one-way step: each of B's queue vectors that completed
    transmits and received nothing at itr_tx_only_us() of its ring (500
    on the lab's 4096 descriptors), each of A's that received at
    ITR_SMALL_RX_US; (ok, why)."""
    got = {"A": eitr_us(r, r.ifa), "B": eitr_us(r, r.ifb)}
    bad, seen = [], 0
    tx_us = itr_tx_only_us(int(r.rings_now.get("TX", 4096)))
    for port, what, want in (("A", "rx", ITR_SMALL_RX_US),
                             ("B", "tx", tx_us)):
        for q, us in enumerate(got[port]):
            work = sdelta(e0, e1, port, r"%s_q%d_packets" % (what, q))
            other = sdelta(e0, e1, port, r"%s_q%d_packets" % (
                "tx" if what == "rx" else "rx", q))
            if work and (port == "A" or not other):
                seen += 1
                if us != want:
                    bad.append("%s queue %d: %d us" % (port, q, us))
    return (seen >= 2 and len(got["B"]) == 4 and not bad,
            "EITR intervals (us, queues 0-3): %s; vectors judged %d; B's "
            "want %d (TX ring %s); wrong: %s"
            % (got, seen, tx_us, r.rings_now.get("TX"), bad or "-"))


def counters_match(row, e0, e1):
    """The driver's tail-write counters against the model's, all four."""
    m = row["model"]
    got = {
        "A_tdt": sdelta(e0, e1, "A", r"tx_q\d+_tail_writes"),
        "A_rdt": sdelta(e0, e1, "A", r"rx_q\d+_tail_writes"),
        "B_tdt": sdelta(e0, e1, "B", r"tx_q\d+_tail_writes"),
        "B_rdt": sdelta(e0, e1, "B", r"rx_q\d+_tail_writes"),
    }
    want = {"A_tdt": m["A_tdt_writes"], "A_rdt": m["A_rdt_writes"],
            "B_tdt": m["B_tdt_writes"], "B_rdt": m["B_rdt_writes"]}
    return got == want, "ethtool -S %s; model %s" % (got, want)


def napi_trace_start(r, dev):
    r.guest(TRACE + """
echo 0 >$T/tracing_on
echo >$T/trace
echo 16384 >$T/buffer_size_kb
echo 'dev_name == "%s" && work > 0' >$T/events/napi/napi_poll/filter
echo 1 >$T/events/napi/napi_poll/enable
echo 1 >$T/tracing_on
""" % dev)


def napi_trace_stop(r):
    """Receive NAPI polls that did work, per CPU, and overruns."""
    rc, out = r.guest(TRACE + """
echo 0 >$T/tracing_on
echo 0 >$T/events/napi/napi_poll/enable
for c in $T/per_cpu/cpu*; do
	echo "${c##*cpu} $(sed -n 's/^entries: //p' $c/stats) $(sed -n 's/^overrun: //p' $c/stats)"
done
echo 0 >$T/events/napi/napi_poll/filter
echo >$T/trace
""")
    polls, overrun = {}, 0
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and all(x.isdigit() for x in p):
            polls[int(p[0])] = int(p[1])
            overrun += int(p[2])
    return polls, overrun


# Each port's NAPI in a kernel thread of its own: on PREEMPT_RT two
# threads' passes may then meet on one CPU, which dbbatch's task-keyed
# batches must keep apart.
THREADED_NAPI = "echo 1 >/sys/class/net/$A/threaded; " \
    "echo 1 >/sys/class/net/$B/threaded"


def router_opts(short, a, out, **extra):
    """router.py's options of a boot of this test, and EXTRA (options()
    keywords)."""
    return router.options(
        short, rmem=a.rmem, flows=router.TEST_FLOWS,
        gen_args=router.TEST_GEN_ARGS, qemu=a.qemu, smp=2, out=out,
        append=a.append, modules=a.modules or None,
        guest_setup=THREADED_NAPI if a.threaded_napi else None, **extra)


# ---- the router boot ---------------------------------------------------

def bad_module_params(t, r):
    for params, word in (("tx_db_batched=7", "'7'"),
                         ("db_skip_empty=yes", "'yes'"),
                         ("db_skip_empty=-1", "'-1'")):
        rc, out = r.guest("""
for m in igc igc_batch; do [ -d /sys/module/$m ] && rmmod $m; done
n=$(dmesg | wc -l)
modprobe igc_batch %s 2>&1; echo "@@RC $?"
[ -d /sys/module/igc_batch ] && echo "@@LOADED"
dmesg | tail -n +$((n + 1))
""" % params, check=False)
        m = re.search(r"@@RC (\d+)", out)
        t.check("modprobe igc_batch %s is refused with a message naming "
                "the value and what is accepted" % params,
                m and m.group(1) != "0" and "@@LOADED" not in out and
                re.search(r"invalid value %s for parameter .*accepted "
                          r"values are 0 and 1" % re.escape(word), out),
                out.strip())


def switch_ports(t, r):
    """tools/lab/igc-switch.sh with both drivers loaded: port A moves to
    igc_batch and back while port B stays on igc."""
    rc, out = r.guest("""
for m in igc_batch igc; do [ -d /sys/module/$m ] && rmmod $m; done
modprobe igc && waitif %s && waitif %s || exit 3
modprobe igc_batch || exit 3
drv() { basename "$(readlink -f /sys/class/net/$(ifof $1)/device/driver)"; }
echo "@@BEFORE $(drv %s) $(drv %s)"
igc-switch.sh to-batch "$(ifof %s)" || exit 4
waitif %s || exit 5
echo "@@BATCH $(drv %s) $(drv %s)"
igc-switch.sh to-igc "$(ifof %s)" || exit 6
waitif %s || exit 7
echo "@@BACK $(drv %s) $(drv %s)"
igc-switch.sh status
# the switch lasts (driver_override): clear it for the policy tests
for d in /sys/bus/pci/devices/*/driver_override; do echo >$d; done
""" % ((router.MAC_A, router.MAC_B) * 2 + (router.MAC_A,) * 2 +
       (router.MAC_A, router.MAC_B) + (router.MAC_A,) * 2 +
       (router.MAC_A, router.MAC_B)), check=False)
    t.check("igc-switch.sh with igc and igc_batch both loaded: port A to "
            "igc_batch and back to igc, port B stays on igc",
            rc == 0 and "@@BEFORE igc igc" in out and
            "@@BATCH igc_batch igc" in out and "@@BACK igc igc" in out,
            out.strip())


def batches_on_demand(t, cfg, mode, c0, c1, row):
    """A pass opens a batch only once it hands the stack a frame with
    another behind it: port B's passes that only reclaim transmitted
    buffers, passes of one frame, and frames XDP keeps, open none."""
    ok, why = rows.batches_for_delivery(c0, c1, row, mode != "stack")
    t.check("%s: %s at a low rate: the dbbatch core opened batches only "
            "for receive passes that handed the stack two frames or more"
            % (cfg.name(), mode), ok, why)


def policy_low_rate(t, r, cfg):
    name = cfg.name()
    r.mode_setup("stack")
    c0 = r.dbbatch_stats()
    e0 = r.ethtool_stats()
    row = r.step(cfg, "stack", LOW_RATE, LOW_COUNT)
    e1 = r.ethtool_stats()
    batches_on_demand(t, cfg, "stack", c0, r.dbbatch_stats(), row)
    t.check("%s: stack forwarding at %d pps, %d frames: no loss, no per-flow"
            " reordering, model == generator == sink"
            % (name, LOW_RATE, LOW_COUNT), rows.lossless(row, LOW_COUNT),
            ev(row))
    t.check("%s: stack: zero tail writes that published nothing (TDT and "
            "RDT, both ports)" % name, noop_writes(row) == 0, ev(row))
    ok, why = counters_match(row, e0, e1)
    t.check("%s: stack: ethtool -S tail_writes (tx and rx, both ports) == "
            "the model's" % name, ok and row["model"]["B_tdt_writes"] > 0,
            why)
    rx_tail_batched(t, name, "stack", row)
    rx_pages_reused(t, name, "stack", row, e0, e1)
    tdt = row["tdt_per_fwd"] or 0
    held = sdelta(e0, e1, "B", r"tx_q\d+_db_held")
    brings = sdelta(e0, e1, "B", r"tx_q\d+_db_batch_rings")
    bulk = sdelta(e0, e1, "B", r"tx_q\d+_db_xmit_more")
    m = row["model"]
    # a busy or dropped transmit after an xmit_more one rings for it too
    why = ("model: %d TX tail writes for %d frames sent (%.4f a packet); "
           "ethtool -S: db_xmit_more +%d db_held +%d db_batch_rings +%d "
           "busy +%d dropped +%d; %s"
           % (m["B_tdt_writes"], m["B_tx_frames"], tdt, bulk, held, brings,
              sdelta(e0, e1, "B", r"tx_q\d+_busy"),
              sdelta(e0, e1, "B", r"tx_q\d+_dropped"), ev(row)))
    if "tx_db_batched=0" in cfg.params:
        # Upstream igc's rule: ring for every packet but those the stack
        # sent with xmit_more (a qdisc bulk when packets wait for its lock,
        # which TCG's pauses cause now and then).  Exact, from the model.
        t.check("%s: stack at a low rate: one TX tail write per packet "
                "unless the stack said xmit_more, nothing held" % name,
                m["B_tdt_writes"] + bulk == m["B_tx_frames"] and
                bulk <= m["B_tx_frames"] // 20 and held == 0 and
                brings == 0, why)
    else:
        # Mostly one packet per pass at this rate, which opens no batch
        # and rings at once; a pass of more holds them and its end rings
        # once.  Every tail write is one of those, exactly.
        t.check("%s: stack at a low rate: each packet rang at once or was "
                "held (or bulked) and rung by its pass's end: tail writes "
                "== packets - db_xmit_more - db_held + db_batch_rings, at "
                "most one per packet" % name,
                m["B_tdt_writes"] == m["B_tx_frames"] - bulk - held + brings
                and brings <= held and tdt <= 1.0, why)
    r.mode_teardown("stack")

    r.mode_setup("xdp")
    c0 = r.dbbatch_stats()
    e0 = r.ethtool_stats()
    row = r.step(cfg, "xdp", LOW_RATE, LOW_COUNT)
    e1 = r.ethtool_stats()
    batches_on_demand(t, cfg, "XDP_REDIRECT", c0, r.dbbatch_stats(), row)
    ok, why = tx_only_moderation(r, e0, e1)
    t.check("%s: XDP_REDIRECT: adaptive moderation, EITR read back: port "
            "B's vectors, which only completed transmits, wait %d us (2k "
            "interrupts/s) on 4096 descriptors, port A's, receiving "
            "64-byte frames, %d us"
            % (name, itr_tx_only_us(4096), ITR_SMALL_RX_US), ok, why)
    t.check("%s: XDP_REDIRECT at %d pps, %d frames: no loss, no reordering,"
            " model == generator == sink%s"
            % (name, LOW_RATE, LOW_COUNT, ", zero no-op tail writes"
               if "db_skip_empty=1" in cfg.params else ""),
            rows.lossless(row, LOW_COUNT) and
            ("db_skip_empty=0" in cfg.params or noop_writes(row) == 0),
            ev(row))
    rx_tail_batched(t, name, "XDP_REDIRECT", row)
    rx_pages_reused(t, name, "XDP_REDIRECT", row, e0, e1)
    r.mode_teardown("xdp")


def saturating_runs(r, cfg):
    """The saturating stack step with the counters before and after it
    (dbbatch core, ethtool -S): [(c0, e0, row, e1, c1), ...].  A run that
    did not saturate the guest (the shared host's generator or QEMU's
    input fell behind), or with batching on missed BATCHED_MAX while the
    guest's CPUs were not busy (see SAT_TRIES), is printed at once and run
    again, at most SAT_TRIES runs in all.  The bar is judged on the last
    run; what must hold whatever the load, on every run."""
    got = []
    batched = "tx_db_batched=1" in cfg.params
    while True:
        c0, e0 = r.dbbatch_stats(), r.ethtool_stats()
        row = r.step(cfg, "stack", SAT_STACK, SAT_STACK * SAT_SECONDS)
        got.append((c0, e0, row, r.ethtool_stats(), r.dbbatch_stats()))
        sat, why = rows.saturated(row)
        if sat and batched and \
                (row.get("cpu_busy_pct") or 0) < rows.SAT_BUSY_PCT and \
                (row["tdt_per_fwd"] or 0) > BATCHED_MAX:
            sat, why = False, why + " (CPUs not busy, bar missed)"
        if sat or len(got) == SAT_TRIES:
            return got
        print("# %s: stack at %d pps offered, run %d of at most %d, did "
              "not saturate the guest: %s; %.4f TX tail writes per "
              "forwarded packet; %s"
              % (cfg.name(), SAT_STACK, len(got), SAT_TRIES, why,
                 row["tdt_per_fwd"] or 0, ev(row)), flush=True)


def policy_saturated(t, r, cfg, report):
    name = cfg.name()
    r.mode_setup("stack")
    runs = saturating_runs(r, cfg)
    c0, e0, row, e1, c1 = runs[-1]
    sat, sat_why = rows.saturated(row)
    tdt = row["tdt_per_fwd"] or 0
    report["stack_sat"][name] = row
    dc = {k: c1.get(k, 0) - c0.get(k, 0) for k in c1}
    # over every run: a batch left open or an open refused in an earlier
    # run would be in the last one's baseline
    first = runs[0][0]
    dall = {k: c1.get(k, 0) - first.get(k, 0) for k in c1}
    fwd = row["model"]["B_tx_frames"]
    if "tx_db_batched=1" in cfg.params:
        # Saturated (rows.saturated): the guest ran out of receive
        # descriptors or its CPUs were busy throughout; on a quiet host
        # QEMU's input can drop first, so loss alone is not it.
        t.check("%s: stack at %d pps offered, saturating (port A dropping "
                "at least %d %% for want of descriptors or the guest's CPUs "
                "at least %d %% busy): TX tail writes per forwarded packet "
                "<= %.2f" % (name, SAT_STACK, rows.SAT_DROP_PCT,
                             rows.SAT_BUSY_PCT, BATCHED_MAX),
                sat and 0 < tdt <= BATCHED_MAX,
                "%.4f TX tail writes per forwarded packet, %d forwarded; "
                "%s; run %d of at most %d; %s"
                % (tdt, fwd, sat_why, len(runs), SAT_TRIES, ev(row)))
        t.check("%s: saturated: the dbbatch core opened batches, deferred "
                "rings, left no batch open and refused no open" % name,
                dc.get("batches", 0) > 0 and dc.get("deferred", 0) > 0 and
                dall.get("left_open", 1) == 0 and
                dall.get("refused_opens", 1) == 0,
                "core deltas %s (left_open %+d, refused_opens %+d over "
                "%d runs)" % (dc, dall.get("left_open", 1),
                              dall.get("refused_opens", 1), len(runs)))
    else:
        # Reported, and compared with batched below.
        print("# %s: stack at %d pps offered: %.4f TX tail writes per "
              "forwarded packet (%d forwarded; %s; run %d of at most %d)"
              % (name, SAT_STACK, tdt, fwd, sat_why, len(runs), SAT_TRIES),
              flush=True)
    bad = []
    for i, (_, e0_, row_, e1_, _) in enumerate(runs, 1):
        ok, why = counters_match(row_, e0_, e1_)
        if noop_writes(row_) or not ok:
            bad.append("run %d: %d no-op writes; %s; %s"
                       % (i, noop_writes(row_), why, ev(row_)))
    t.check("%s: saturated stack: zero no-op tail writes, ethtool -S == "
            "model (every run)" % name, not bad,
            "; ".join(bad) or "%d run(s); %s" % (len(runs), ev(row)))
    r.mode_teardown("stack")

    # A 64-descriptor TX ring on B fills at once: ndo_xdp_xmit then gets
    # XDP_XMIT_FLUSH after placing no frame, where upstream igc writes a
    # tail that publishes nothing.
    r.guest("ethtool -G %s tx %d && carrier %s 1 30\n"
            % (r.ifb, XDP_FULL_RING, r.ifb))
    r.mode_setup("xdp")
    count = SAT_XDP * SAT_SECONDS
    napi_trace_start(r, r.ifa)
    # B's DMA paused for a moment in the step: its ring is full then for
    # certain, not only when the guest happens to outrun the model.
    timers = [threading.Timer(at, r.qom_set, ("nicB", "dma-pause", on))
              for at, on in ((XDP_PAUSE_AT, True),
                             (XDP_PAUSE_AT + XDP_PAUSE_FOR, False))]
    for tm in timers:
        tm.start()
    try:
        row = r.step(cfg, "xdp", SAT_XDP, count)
    finally:
        for tm in timers:
            tm.join()
        r.qom_set("nicB", "dma-pause", False)
    polls, overrun = napi_trace_stop(r)
    m = row["model"]
    per_q = m["B_tdt_per_queue"]
    nq = r.queues_now or 1
    # XDP transmits on queue (CPU mod queues): a queue's rings against
    # the polls of the CPUs that feed it.
    feeds = [sum(v for c, v in polls.items() if c % nq == q)
             for q in range(len(per_q))]
    fpp = m["A_rx_frames"] / max(1, sum(polls.values()))
    ok = (overrun == 0 and sum(polls.values()) > 0 and m["B_tdt_writes"] > 0
          and all(w <= f for w, f in zip(per_q, feeds)) and fpp > 1.5)
    t.check("%s: XDP_REDIRECT at %d pps offered: at most one TX tail write "
            "per destination queue per receive NAPI poll, more than 1.5 "
            "frames a poll" % (name, SAT_XDP), ok,
            "%.1f frames per poll; polls with work per CPU %s (trace "
            "overruns %d); B tail writes per queue %s; %s"
            % (fpp, polls, overrun, per_q, ev(row)))
    report["xdp_sat"][name] = row
    if "db_skip_empty=1" in cfg.params:
        t.check("%s: XDP_REDIRECT into a full %d-descriptor TX ring: zero "
                "tail writes that published nothing" % (name, XDP_FULL_RING),
                noop_writes(row) == 0, ev(row))
    r.mode_teardown("xdp")
    r.guest("ethtool -G %s tx %s && carrier %s 1 30\n"
            % (r.ifb, r.rings_now.get("TX", 4096), r.ifb))


def latency(t, r, cfg, threaded):
    """Interleaved LAT_RATE runs with the private flag off and on, judged
    pair by pair: the host's load drifts over a boot (p50s of one setting
    range 150-260 us under TCG), much less within a pair.  The batched
    runs count port A's receive passes (napi:napi_poll with work): each
    must ring port B once."""
    name = cfg.name()
    r.mode_setup("stack")

    def pairs():
        res = {"off": [], "on": []}
        lat_rows = {"off": [], "on": []}
        per_pass = []
        for flag in ("off", "on") * LAT_PAIRS:
            r.guest("ethtool --set-priv-flags %s tx_db_batched %s && ethtool "
                    "--set-priv-flags %s tx_db_batched %s\n"
                    % (r.ifa, flag, r.ifb, flag))
            if flag == "on":
                napi_trace_start(r, r.ifa)
            row = r.step(cfg, "stack", LAT_RATE, LAT_COUNT)
            if flag == "on":
                polls, _ = napi_trace_stop(r)
                passes = sum(polls.values())
                per_pass.append(round(row["model"]["B_tdt_writes"] /
                                      passes, 4) if passes else 0)
            res[flag].append(row["lat_p50_us"])
            lat_rows[flag].append(row)
        off = statistics.median(res["off"])
        added = statistics.median(b - a for a, b in zip(res["off"],
                                                         res["on"]))
        lost = sum(x["lost"] for x in lat_rows["off"] + lat_rows["on"])
        return res, lat_rows, per_pass, off, added, lost

    res, lat_rows, per_pass, off, added, lost = pairs()
    first = ""
    if added > off * 0.2 + 30 or lost:
        # A busy host (another guest, a build) shifts p50s by more than
        # the bound within a run: one more set of pairs before judging.
        first = "first set: median p50 added %.0f us (off: %.0f us), " \
            "lost %d; judged on a second set\n" % (added, off, lost)
        res, lat_rows, per_pass, off, added, lost = pairs()
    if threaded:
        why = "threaded NAPI: passes take several packets (see the pass " \
            "check)"
    elif labvm.is_debug(t.kver):
        why = "debug kernel: its checkers (KASAN, lockdep) set the latency"
    else:
        why = None
    t.check("%s: low-rate latency (%d pps, one packet at a time, "
            "batching toggled at runtime, %d interleaved pairs): no added "
            "delay (median p50 added within 20 %% + 30 us of off's), no "
            "loss" % (name, LAT_RATE, LAT_PAIRS),
            added <= off * 0.2 + 30 and lost == 0,
            "%smedian p50 added by batching %.0f us (off: %.0f us); p50 us "
            "off %s on %s; p99 us off %s on %s"
            % (first, added, off, res["off"], res["on"],
               [x["lat_p99_us"] for x in lat_rows["off"]],
               [x["lat_p99_us"] for x in lat_rows["on"]]),
            # A NAPI thread woken late takes two or more packets in one
            # pass, and batching then holds the first until the pass ends:
            # by design, so reported, not judged.
            skip=why)
    t.check("%s: at %d pps batched, each receive pass of port A that "
            "took a packet rang port B once (TX tail writes per pass >= "
            "0.9)" % (name, LAT_RATE),
            per_pass and all(x >= 0.9 for x in per_pass),
            "TX tail writes per pass %s; per packet %s"
            % (per_pass, [x["tdt_per_fwd"] for x in lat_rows["on"]]))
    r.mode_teardown("stack")


def ring_info(r, dev):
    rc, out = r.guest("ethtool -g %s | sed -n '/Current/,$p'; ethtool -l %s | "
                      "sed -n '/Current/,$p'\n" % (dev, dev))
    g = dict(re.findall(r"^(RX|TX|Combined):\s*(\d+)", out, re.M))
    return g


def bad_ethtool(t, r):
    A, B = r.ifa, r.ifb
    before = (ring_info(r, A), ring_info(r, B))
    for cmd, why in (
            ("ethtool -G %s tx 8192" % B, "above the maximum"),
            ("ethtool -G %s rx 16" % A, "below the minimum"),
            ("ethtool -L %s combined 0" % A, "zero queues"),
            ("ethtool -L %s combined 9" % A, "more queues than vectors"),
            ("ethtool -L %s rx 1 tx 1 combined 0" % A,
             "separate rx/tx queues"),
            ("ethtool --set-priv-flags %s no_such_flag on" % A,
             "an unknown private flag"),
            ("ethtool -N %s rx-flow-hash tcp4 sd" % A,
             "TCP always hashes its ports")):
        rc, out = r.guest("n=$(dmesg | wc -l); %s 2>&1; echo \"@@RC $?\"; "
                          "dmesg | tail -n +$((n + 1))\n" % cmd, check=False)
        m = re.search(r"@@RC (\d+)", out)
        msg = [x for x in out.splitlines() if x.strip() and "@@" not in x]
        # ethtool -N exits 0 when the driver refuses: its "Cannot change"
        # line says so
        refused = (m and m.group(1) != "0") or "Cannot change" in out
        t.check("'%s' (%s) is refused with a message" % (cmd, why),
                refused and msg, out.strip())
    rc, out = r.guest("""
l4() { ethtool -n %s rx-flow-hash udp4 | grep -c 'L4 bytes'; }
echo "@@DEFAULT $(l4)"
ethtool -N %s rx-flow-hash udp4 sdfn && echo "@@SDFN $(l4)"
ethtool -N %s rx-flow-hash udp4 sd && echo "@@SD $(l4)"
""" % (A, A, A), check=False)
    t.check("RSS: UDP on addresses by default, ports by ethtool -N "
            "rx-flow-hash udp4 sdfn, and back with sd",
            "@@DEFAULT 0" in out and "@@SDFN 2" in out and "@@SD 0" in out,
            out.strip())
    after = (ring_info(r, A), ring_info(r, B))
    t.check("after the refused changes, ring sizes and channels are "
            "unchanged", before == after, "before %s after %s"
            % (before, after))


def changes_under_traffic(t, r, cfg):
    A, B = r.ifa, r.ifb
    r.mode_setup("stack")
    gen = r.gen_background(4000, 4000 * 14)
    steps = ["ethtool -G %s tx 512" % B, "ethtool -L %s combined 1" % A,
             "ethtool -G %s rx 1024 tx 1024" % A,
             "ethtool -L %s combined 2" % A, "ethtool -L %s combined 1" % B,
             "ethtool -G %s rx 4096 tx 4096" % B,
             "ethtool -L %s combined 2" % B,
             "ethtool -G %s rx 4096 tx 4096" % A]
    outs, okall = [], True
    time.sleep(1)
    for s in steps:
        rc, out = r.guest("%s 2>&1; echo \"@@RC $?\"\n" % s, check=False)
        okall &= "@@RC 0" in out
        outs.append("%s -> %s" % (s, out.strip().replace("\n", " | ")))
        time.sleep(1)
    gen.wait(timeout=60)
    # ring changes restart the ports: wait for both links
    r.guest("carrier %s 1 30 && carrier %s 1 30\n" % (A, B), check=False)
    t.check("ethtool -G and -L on both ports while forwarding 4,000 pps: "
            "every change accepted", okall and gen.returncode in (0, 1),
            "\n".join(outs))
    fin = (ring_info(r, A), ring_info(r, B))
    time.sleep(1)
    row = r.step(cfg, "stack", LOW_RATE, LOW_COUNT)
    t.check("after the changes: rings 4096, 2 combined on both ports, and "
            "stack forwarding is lossless and in order again",
            all(x.get("RX") == "4096" and x.get("TX") == "4096" and
                x.get("Combined") == "2" for x in fin) and
            rows.lossless(row, LOW_COUNT) and noop_writes(row) == 0,
            "%s; %s" % (fin, ev(row)))
    r.mode_teardown("stack")


def changes_while_tx_stops(t, r, cfg):
    """Ring and channel changes on port B while its TX queues keep
    filling, stopping and waking (64 descriptors, offered more than the
    guest forwards): a wake after a completion must never undo the
    close's netif_tx_disable(), or the stack transmits into rings being
    freed."""
    B = r.ifb
    r.mode_setup("stack")
    r.guest("ethtool -G %s tx 64\n" % B)

    def restarts():
        return sum(v for k, v in r.ethtool_stats()["B"].items()
                   if re.match(r"tx_q\d+_restarts$", k))

    s0 = restarts()
    gen = r.gen_background(150000, 150000 * 16)
    time.sleep(3)
    woke = restarts() - s0
    steps = ["ethtool -L %s combined 1", "ethtool -G %s tx 128",
             "ethtool -L %s combined 2", "ethtool -G %s tx 64"] * 3
    outs, okall = [], True
    for s in steps:
        rc, out = r.guest("%s 2>&1; echo \"@@RC $?\"\n" % (s % B),
                          check=False, timeout=120)
        okall &= "@@RC 0" in out
        outs.append("%s -> %s" % (s % B, out.strip().replace("\n", " | ")))
    gen.wait(timeout=120)
    r.guest("ethtool -G %s tx 4096; carrier %s 1 30\n" % (B, B), check=False)
    t.check("port B's 64-descriptor TX queues stop and wake under a "
            "saturating load", woke > 0, "%d wakes in 3 s" % woke)
    t.check("12 ethtool -G/-L changes on port B while its TX queues stop "
            "and wake: every change accepted", okall and
            gen.returncode in (0, 1), "\n".join(outs))
    time.sleep(1)
    row = r.step(cfg, "stack", LOW_RATE, LOW_COUNT)
    t.check("after them: stack forwarding lossless and in order, no no-op "
            "tail write",
            rows.lossless(row, LOW_COUNT) and noop_writes(row) == 0,
            ev(row))
    r.mode_teardown("stack")


def rmmod_under_traffic(t, r, cfg):
    free0 = r.free_pages()
    r.load(cfg)
    r.mode_setup("stack")
    gen = r.gen_background(60000, 60000 * 5)
    time.sleep(2)
    rc, out = r.guest("n=$(dmesg | wc -l); time rmmod igc_batch 2>&1; echo "
                      "\"@@RC $?\"; sleep 2; dmesg | tail -n +$((n + 1))\n",
                      timeout=120, check=False)
    gen.wait(timeout=60)
    free1 = r.free_pages()
    bad = [x for x in out.splitlines() if re.search(
        r"WARNING|BUG|Oops|Call Trace|stalled pool|leak|hung", x)]
    t.check("rmmod igc_batch while forwarding 60,000 pps: succeeds, no "
            "oops, warning or page_pool stall", "@@RC 0" in out and not bad,
            out.strip())
    # Both ports' RX rings are 2 x 2 x 4096 pages; a leak of them, or of
    # the frames in flight, shows in the free page count.
    t.check("rmmod under traffic gives the pages back (free pages after "
            "rmmod at most 2,048 under those before the load)",
            free1 >= free0 - 2048,
            "free pages before load %d, after rmmod %d; rings held %d"
            % (free0, free1, 4 * 4096))
    r.load(cfg)
    r.mode_setup("stack")
    row = r.step(cfg, "stack", LOW_RATE, LOW_COUNT)
    t.check("igc_batch loads again after that and forwards lossless",
            rows.lossless(row, LOW_COUNT), ev(row))
    r.mode_teardown("stack")


def health(t, r, what):
    t.check("%s: kernel log clean, no taint but out-of-tree/unsigned "
            "module, no guest programming error" % what,
            *r.clean(4096 | 8192))


def router_boot(short, a, t):
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "router"), short,
                        "dbb-igcb-lab.")
    ra = router_opts(short, a, out)
    kos = router.our_modules(ra, POLICIES)
    r = router.Router(ra, POLICIES, kos, files={
        "/usr/sbin/igc-switch.sh": os.path.join(REPO, "tools", "lab",
                                                "igc-switch.sh"),
        "/usr/sbin/nic-switch.sh": os.path.join(REPO, "tools", "lab",
                                                "nic-switch.sh")})
    report = {"stack_sat": {}, "xdp_sat": {}}
    with router.booted(t, r, "router"):
        bad_module_params(t, r)
        switch_ports(t, r)
        for cfg in POLICIES:
            r.load(cfg)
            policy_low_rate(t, r, cfg)
            policy_saturated(t, r, cfg, report)
        sat = {k: v["tdt_per_fwd"] for k, v in report["stack_sat"].items()}
        t.check("saturated stack forwarding, TX tail writes per forwarded "
                "packet: batched below a quarter of skip-empty's and off's",
                sat["batched"] < 0.25 * min(sat["skip-empty"], sat["off"]),
                "per forwarded packet: %s" % sat)
        noop = {k: noop_writes(v) for k, v in report["xdp_sat"].items()}
        t.check("the full-ring XDP case does provoke no-op tail writes "
                "without skip-empty (upstream igc's behaviour), and none "
                "with it", noop["off"] > 0 and
                noop["skip-empty"] == 0 and noop["batched"] == 0,
                "no-op tail writes: %s" % noop)
        batched = POLICIES[2]
        latency(t, r, batched, a.threaded_napi)
        bad_ethtool(t, r)
        changes_under_traffic(t, r, batched)
        changes_while_tx_stops(t, r, batched)
        rmmod_under_traffic(t, r, batched)
        health(t, r, "router")
    return ra.out


# ---- the TCP endpoint boot ---------------------------------------------

def tcp_endpoint(short, a, t):
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "tcp"), short,
                        "dbb-igcb-tcp.")
    ra = router_opts(short, a, out, wire="loop")
    cfgs = [POLICIES[0], POLICIES[2]]
    kos = router.our_modules(ra, cfgs)
    r = router.Router(ra, cfgs, kos)
    res = {}
    with router.booted(t, r, "TCP"):
        for cfg in cfgs:
            r.load(cfg)
            A, B = r.ifa, r.ifb
            rc, o = r.guest("""
ip netns del peer 2>/dev/null
ip netns add peer
ip link set %s netns peer
ip addr flush dev %s; ip addr add 10.9.0.1/24 dev %s; ip link set %s up
ip netns exec peer ip link set lo up
ip netns exec peer ip addr add 10.9.0.2/24 dev %s
ip netns exec peer ip link set %s up
i=0; while ! ping -c 1 -W 1 10.9.0.2 >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 20 ] || { echo "no path to the peer"; exit 1; }; done
ip netns exec peer iperf3 -s -D -1 >/dev/null 2>&1; sleep 0.5
""" % (B, A, A, A, B, B), check=False)
            if rc != 0:
                raise RuntimeError("TCP setup: " + o)
            m0, e0 = tcp_snapshot(r, A, B)
            # the closing FIN/ACKs are sent before the counters are read
            rc, o = r.guest("timeout 60 iperf3 -c 10.9.0.2 -t 4 -P 2 2>&1 | "
                            "tail -n 4; sleep 1\n", timeout=90, check=False)
            m1, e1 = tcp_snapshot(r, A, B)

            def d(port, name):
                return (sum(m1[port][name]) - sum(m0[port][name]))
            segs, acks = d("A", "tx_frames"), d("B", "tx_frames")
            res[cfg.name()] = {
                "segments": segs, "acks": acks,
                "tdt_per_seg": d("A", "tdt_writes") / max(1, segs),
                "tdt_per_ack": d("B", "tdt_writes") / max(1, acks),
                "gbps": re.findall(r"([\d.]+ [MG]bits/sec).*receiver", o)}
            drv = {"A": e1["A"] - e0["A"], "B": e1["B"] - e0["B"]}
            # enough to judge: the debug kernel sends about 1,000 segments
            # in 4 s (2.3 Mb/s measured), Debian's 60 to 100 times more
            min_segs = 300 if labvm.is_debug(t.kver) else 1000
            t.check("%s: TCP endpoint (iperf3, 2 streams, 4 s, A sends, B in"
                    " a netns receives): segments and ACKs sent, ethtool -S"
                    " == model" % cfg.name(),
                    segs > min_segs and acks > 100 and
                    drv == {"A": d("A", "tdt_writes"),
                            "B": d("B", "tdt_writes")} and
                    ("db_skip_empty=0" in cfg.params or
                     d("A", "tdt_noop_writes") + d("B", "tdt_noop_writes")
                     == 0),
                    "%d segments, %d ACKs, %.3f TX tail writes per segment "
                    "sent, %.3f per ACK sent; iperf3: %s; driver tx tail "
                    "writes %s; %s"
                    % (segs, acks, res[cfg.name()]["tdt_per_seg"],
                       res[cfg.name()]["tdt_per_ack"],
                       " | ".join(o.strip().splitlines()), drv,
                       res[cfg.name()]))
            r.guest("ip netns del peer; sleep 1\n", check=False)
        off, on = res["off"], res["batched"]
        # Reported; asserted only not to get worse (how many ACKs share a
        # receive pass depends on the kernel's GRO and ACK policy; both
        # sit at ~1 per ACK and differ in the fourth digit run to run).  Per
        # segment, with a margin: a TSO packet rings once whatever its
        # size, and TCP sizes them anew each run (0.023 -> 0.032 seen on
        # 6.12 with the same doorbells per packet).
        t.check("TCP endpoint, TX tail writes per ACK sent and per segment "
                "sent, off -> batched: not more with batching (per ACK "
                "within 1 %, per segment not 1.5 times more)",
                on["tdt_per_ack"] <= off["tdt_per_ack"] * 1.01 and
                on["tdt_per_seg"] <= off["tdt_per_seg"] * 1.5,
                "per ACK %.3f -> %.3f (FreeBSD: 1 -> 1/3.5), per segment "
                "%.3f -> %.3f (FreeBSD: ~1 -> 1/9)"
                % (off["tdt_per_ack"], on["tdt_per_ack"], off["tdt_per_seg"],
                   on["tdt_per_seg"]))
        health(t, r, "TCP endpoint")
    return ra.out


def tcp_snapshot(r, A, B):
    """The model's ground truth and the driver's counters at one moment:
    a neighbour probe may go out while ethtool runs, so read the model on
    both sides of it until nothing moved."""
    for _ in range(10):
        m0 = r.truth()
        e = tcp_stats(r, A, B)
        m1 = r.truth()
        if all(sum(m0[p]["tdt_writes"]) == sum(m1[p]["tdt_writes"])
               for p in ("A", "B")):
            return m1, e
    raise RuntimeError("tail writes never stopped long enough to read them")


def tcp_stats(r, A, B):
    """Sum of the TX tail-write counters of A (root) and B (netns)."""
    rc, out = r.guest("echo @@A; ethtool -S %s; echo @@B; ip netns exec peer "
                      "ethtool -S %s\n" % (A, B), check=False)
    res, cur = {"A": 0, "B": 0}, None
    for line in out.splitlines():
        if line.startswith("@@"):
            cur = line[2:]
        m = re.match(r"\s*tx_q\d+_tail_writes:\s*(\d+)", line)
        if m and cur:
            res[cur] += int(m.group(1))
    return res


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--modules", help="our *.ko for that kernel (default: "
                    "built by router.py)")
    ap.add_argument("--keep", nargs="?", const=True, metavar="DIR",
                    help="keep the run directories (in DIR if given)")
    ap.add_argument("--only", choices=("router", "tcp"))
    ap.add_argument("--append", default="",
                    help="extra guest kernel arguments (e.g. loglevel=7)")
    ap.add_argument("--threaded-napi", action="store_true",
                    help="run every port's NAPI in a kernel thread "
                    "(make check does on the PREEMPT_RT kernel)")
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    modules = a.modules

    def boots(t, short):
        global LOW_RATE, LOW_COUNT, LAT_RATE, LAT_COUNT
        steps = STEPS["debug" if labvm.is_debug(short) else "normal"]
        (LOW_RATE, LOW_COUNT), (LAT_RATE, LAT_COUNT) = (steps["low"],
                                                        steps["lat"])
        # build once per kernel, for both boots
        a.modules = modules or os.path.dirname(router.our_modules(
            router.options(short), POLICIES)[0])
        dirs = []
        if a.only in (None, "router"):
            dirs.append(t.boot(lambda: router_boot(short, a, t)))
        if a.only in (None, "tcp"):
            dirs.append(t.boot(lambda: tcp_endpoint(short, a, t)))
        return dirs

    return labvm.run_per_kernel(a, boots)


if __name__ == "__main__":
    sys.exit(main())
