# SPDX-License-Identifier: GPL-2.0
"""rows: the lab's measurements, apart from the guest that makes them.

The models' ground truth under one set of names (TRUTH_ALIASES), a step's
deltas and its rows (step_rows: what router.Router.step() returns), the
judgements every test shares (lossless, batches_for_delivery, saturated),
the table
router.py prints and the run directory it writes (read_steps).  Pure:
no guest, no QEMU (labvm only for its log); tests/test_rows.py runs it
on the host."""

import json
import os

import labvm

GEN_MARKERS = 8                    # dbb-gen's end-of-step markers per step
# Per-queue counts of the models' ground truth that a step's deltas sum
PER_QUEUE = ("tdt_writes", "tdt_noop_writes", "rdt_writes",
             "rdt_noop_writes", "tx_frames", "rx_frames", "rx_dropped",
             "tx_packets", "tx_desc", "rx_desc", "tx_bytes", "rx_bytes")
# Register accesses the models count apart from the doorbells (README.md)
REG_KINDS = ("reg_reads", "irq_reg_writes", "other_reg_writes")
# dbb-igc's counts for the modeled PCIe traffic (pcie.py; dbb-octep: none)
PCIE_KINDS = ("tx_desc_reads", "rx_desc_reads", "tx_wb_writes")
# The ground truth under one set of names whatever the port's model: the
# TX doorbell is "tdt", the RX doorbell (a tail or a credit) "rdt".
TRUTH_ALIASES = {
    "dbb-octep": {"tdt_writes": "in_dbell_writes",
                  "tdt_noop_writes": "in_dbell_noop_writes",
                  "rdt_writes": "out_dbell_writes",
                  "rdt_noop_writes": "out_dbell_noop_writes",
                  "rx_dropped": "rx_refused", "tx_desc": "in_instr",
                  "rx_desc": "rx_buffers"},
}


def model_of(nic):
    """"dbb-octep,wmark=0x100" -> "dbb-octep"."""
    return nic.split(",", 1)[0]


def normalized(model, truth):
    """TRUTH of a port of MODEL with the TRUTH_ALIASES names added."""
    for name, raw in TRUTH_ALIASES.get(model, {}).items():
        if raw in truth:
            truth[name] = truth[raw]
    return truth


def sum_q(truth, name):
    return sum(truth.get(name, [0]))


def mmio_per_packet(d, fwd):
    """Both ports' register accesses per forwarded packet by kind, from
    a run's model deltas D: the tails (doorbells), the interrupt
    registers, every other write, the reads.  None where the model does
    not count a kind."""
    if not fwd:
        return None
    out = {"tx_tail": (d["A_tdt_writes"] + d["B_tdt_writes"]) / fwd,
           "rx_tail": (d["A_rdt_writes"] + d["B_rdt_writes"]) / fwd}
    for key, name in (("irq", "irq_reg_writes"),
                      ("other", "other_reg_writes"), ("reads", "reg_reads")):
        a, b = d.get("A_" + name), d.get("B_" + name)
        out[key] = None if a is None or b is None else (a + b) / fwd
    return {k: None if v is None else round(v, 4) for k, v in out.items()}


def cpu_stat(text):
    """/proc/stat cpu lines -> {name: (busy, total)} in jiffies."""
    out = {}
    for line in text.splitlines():
        p = line.split()
        if not p or not p[0].startswith("cpu"):
            continue
        v = [int(x) for x in p[1:9]]
        total = sum(v)
        idle = v[3] + v[4]
        out[p[0]] = (total - idle, total)
    return out


def both_ways(gen, sink, rgen, rsink):
    """One direction's dbb-gen and dbb-sink JSON lines merged with the
    other's (--both-ways): per step and in total, what was offered, sent
    and received summed, latency the worse direction's; each step keeps
    both directions apart under "ways" (A to B, B to A).  A step one side
    has no line for counts as nothing there (a sink prints no line for a
    step that received nothing)."""
    add = ("target_pps", "offered", "sent", "send_errors", "pps",
           "received", "rx_pps", "lost", "reordered", "dup", "rx_frames",
           "markers", "invalid", "sink_socket_drops", "global_reordered",
           "flow_gaps_open", "flows")

    def merge(x, y):
        out = dict(y)
        out.update(x)
        for k in add:
            v = [w[k] for w in (x, y) if isinstance(w.get(k), (int, float))]
            if v:
                out[k] = sum(v)
        for k in ("seconds", "host_udp_rcvbuf_errors", "ttl_max"):
            v = [w[k] for w in (x, y) if k in w]
            if v:   # the host counter: the same in both
                out[k] = max(v)
        if "ttl_min" in x and "ttl_min" in y:
            out["ttl_min"] = min(x["ttl_min"], y["ttl_min"])
        lx, ly = x.get("lat_ns", {}), y.get("lat_ns", {})
        if lx or ly:
            lat = dict(ly)
            lat.update(lx)
            for k in set(lx) & set(ly):
                lat[k] = (lx[k] + ly[k] if k == "n" else
                          min(lx[k], ly[k]) if k == "min" else
                          max(lx[k], ly[k]))
            out["lat_ns"] = lat
        return out

    def by_step(lines, kind):
        return {x.get("step"): x for x in lines if x.get("type") == kind}

    gs, rgs = by_step(gen, "step"), by_step(rgen, "step")
    ss, rss = by_step(sink, "step"), by_step(rsink, "step")
    mgen = []
    for n in sorted(set(gs) | set(rgs)):
        x, y = gs.get(n, {}), rgs.get(n, {})
        if not x or not y:
            labvm.log("both ways: step %s has no line from the %s generator"
                      % (n, "A to B" if not x else "B to A"))
        m = merge(x, y)
        m["ways"] = [{"sent": w.get("sent", 0), "received":
                      v.get(n, {}).get("received", 0)}
                     for w, v in ((x, ss), (y, rss))]
        mgen.append(m)
    msink = [merge(ss.get(n, {}), rss.get(n, {}))
             for n in sorted(set(ss) | set(rss))]
    tot = [x for x in sink if x.get("type") == "total"]
    rtot = [x for x in rsink if x.get("type") == "total"]
    if tot or rtot:
        msink.append(merge(tot[0] if tot else {}, rtot[0] if rtot else {}))
    return mgen, msink


def lossless(row, count):
    """A one-way step of COUNT frames that lost nothing, by every count
    the lab has: the generator sent them all, the sink received them all
    (knowing the count from the generator's end markers), none of a flow
    late or twice, port A's model took in the frames and the markers and
    dropped none, port B's model sent them all, nothing left port A."""
    return not lossless_misses(row, count)


def lossless_misses(row, count):
    """What lossless(ROW, COUNT) found wrong: "" when nothing."""
    m = row["model"]
    want = count + GEN_MARKERS
    got = (("sent", row["sent"], count), ("lost", row["lost"], 0),
           ("forwarded", row["forwarded"], count),
           ("flow_gaps_open", row["flow_gaps_open"], 0),
           ("sink_sent_from", row["sink_sent_from"], "marker"),
           ("reordered", row["reordered"], 0), ("dup", row["dup"], 0),
           ("model A_rx_frames", m["A_rx_frames"], want),
           ("model B_tx_frames", m["B_tx_frames"], want),
           ("model A_rx_dropped", m["A_rx_dropped"], 0),
           ("stray_frames_out_A", row["stray_frames_out_A"], 0))
    return ", ".join("%s %s (want %s)" % (n, v, w) for n, v, w in got
                     if v != w)


def batches_for_delivery(c0, c1, row, xdp):
    """(ok, evidence): between the dbbatch counters C0 and C1 around ROW's
    step, batches were opened only by receive passes that handed the stack
    two frames or more (a pass of one frame rings its transmit at once),
    so at most one per two of the frames that could reach the stack: what
    the models took in, less (XDP) what they sent out again; ground truth,
    not the driver's counters.  None may be left open."""
    m = row["model"]
    n = m["A_rx_frames"] + m["B_rx_frames"]
    if xdp:
        n -= m["A_tx_frames"] + m["B_tx_frames"]
    opened = c1.get("batches", 0) - c0.get("batches", 0)
    ok = 0 <= opened <= n // 2 and \
        c1.get("left_open", 1) == c0.get("left_open", 0)
    return ok, "batches +%d, frames the models took in that could reach " \
        "the stack %d" % (opened, n)


# Guest CPU busy (both vCPUs) that marks a step saturated where QEMU's
# input, not the guest, dropped the excess (seen on a quiet host: 93 %).
SAT_BUSY_PCT = 85
# Or port A's drops for want of a descriptor, as a share of the frames
# that reached it: a ring that overflowed only while the host held a
# vCPU thread back for a moment drops a few per cent, a guest that cannot
# keep up (120 kpps offered, 50 forwarded) about half.
SAT_DROP_PCT = 5


def saturated_counts(rx, dropped, busy):
    """(ok, per cent dropped): a step whose receiving ports took in RX
    frames and dropped DROPPED more for want of a descriptor, with the
    guest's CPUs BUSY % busy, loaded the guest to its limit: at least
    SAT_DROP_PCT % of what reached the ports dropped, or at least
    SAT_BUSY_PCT % busy."""
    pct = 100.0 * dropped / (rx + dropped) if rx + dropped else 0.0
    return pct >= SAT_DROP_PCT or busy >= SAT_BUSY_PCT, pct


def saturated(row):
    """(ok, evidence): saturated_counts() of ROW's step (one way: port A
    receives).  A step that loaded the guest less (the host's generator or
    QEMU's input fell behind) says nothing of the guest at saturation."""
    m = row["model"]
    rx, drop = m["A_rx_frames"], m["A_rx_dropped"]
    busy = row.get("cpu_busy_pct") or 0
    ok, pct = saturated_counts(rx, drop, busy)
    host = row.get("host_qemu_in_drops")
    return (ok, "port A dropped %d of %d frames for want of a descriptor "
            "(%.1f %%), guest CPUs %.0f %% busy; generator %.0f pps%s"
            % (drop, rx + drop, pct, busy, row.get("gen_pps") or 0,
               "" if host is None else
               ", QEMU's input dropped %d on the host" % host))


COLS = [("config", "%-24s", "config"), ("mode", "%-5s", "mode"),
        ("q", "%2s", "queues"), ("target", "%8s", "target_pps"),
        ("sent", "%8s", "sent"), ("fwd", "%8s", "forwarded"),
        ("loss%", "%7s", "loss_pct"), ("fwd_pps", "%8s", "fwd_pps"),
        ("reord", "%5s", "reordered"), ("p50us", "%7s", "lat_p50_us"),
        ("p99us", "%8s", "lat_p99_us"), ("tdt/pkt", "%7s", "tdt_per_fwd"),
        ("noop/pkt", "%8s", "tdt_noop_per_fwd"),
        ("rdt/pkt", "%7s", "rdt_per_rx"), ("irq/pkt", "%7s", "irqs_per_fwd"),
        ("rxdrop", "%6s", None), ("qemuin", "%6s", "host_qemu_in_drops"),
        ("cpu%", "%5s", "cpu_busy_pct"), ("insn/pkt", "%8s", "insn_per_fwd")]


def header():
    return " ".join(fmt % h for h, fmt, _ in COLS)


def fmt_row(r):
    out = []
    for h, fmt, key in COLS:
        if key is None:
            v = r.get("model", {}).get("A_rx_dropped")
        else:
            v = r.get(key)
        if isinstance(v, float):
            v = ("%.0f" % v) if abs(v) >= 1000 else ("%.3g" % v)
        out.append(fmt % ("-" if v is None else v))
    return " ".join(out)


def read_steps(rdir):
    """A run directory's steps.jsonl (written by router.main): (boot
    record, health record, step rows); what could be read of it."""
    meta, health, rows = {}, {}, []
    try:
        with open(os.path.join(rdir, "steps.jsonl")) as f:
            for line in f:
                o = json.loads(line)
                if o.get("type") == "boot":
                    meta = o
                elif o.get("type") == "health":
                    health = o
                elif "mode" in o:
                    rows.append(o)
    except (OSError, ValueError):
        pass
    return meta, health, rows


def model_deltas(t0, t1):
    """Both ports' ground-truth deltas between the snapshots T0 and T1
    ({"A": truth, "B": truth}) under flat names: "A_tdt_writes", ...,
    "A_tdt_per_queue" (a list); None for a kind the model does not
    count."""
    d = {}
    for port in ("A", "B"):
        a, b = t0[port], t1[port]
        for name in PER_QUEUE + ("irqs", "guest_errors", "rx_off_drops"):
            d[port + "_" + name] = sum_q(b, name) - sum_q(a, name)
        d[port + "_tdt_per_queue"] = [x - y for x, y in zip(
            b["tdt_writes"], a["tdt_writes"])]
        for name in REG_KINDS + PCIE_KINDS + ("irqs_rx",):
            d[port + "_" + name] = (sum_q(b, name) - sum_q(a, name)
                                    if name in b else None)
    return d


def cpu_busy(c0, c1):
    """Per CPU line of /proc/stat (cpu_stat), percent busy between C0
    and C1; None where no time passed."""
    out = {}
    for k in c1:
        if k in c0:
            busy = c1[k][0] - c0[k][0]
            tot = c1[k][1] - c0[k][1]
            out[k] = round(100.0 * busy / tot, 1) if tot else None
    return out


def _ratio(x, n, digits=4):
    return round(x / n, digits) if n else None


def step_rows(ident, gen_lines, sink_lines, meas, markers=True,
              profile=None):
    """The rows of one generator run: one per step, IDENT (the row's
    kernel, configuration, mode, ... as router.Router.summarize gives
    them) and the generator's and sink's figures for it; the model, CPU
    and instruction deltas of MEAS (router.Router.run_gen) cover the
    whole run, in each row for a one-step run, under "run" otherwise.
    MARKERS: dbb-gen sent its end markers (counted in "markers_sent").
    PROFILE(m0, m1, forwarded): the per-function instruction profile, or
    None."""
    m0, m1 = meas["m0"], meas["m1"]
    d = model_deltas(m0["truth"], m1["truth"])
    cpus = cpu_busy(m0["cpu"], m1["cpu"])
    insn = (m1["insn"] - m0["insn"]) if "insn" in m1 else None
    rev = meas.get("rev")
    if rev:
        gen_lines, sink_lines = both_ways(gen_lines, sink_lines, *rev)
    sink_total = next((x for x in sink_lines if x.get("type") ==
                       "total"), {})
    sink_steps = {x["step"]: x for x in sink_lines
                  if x.get("type") == "step"}
    rows = []
    for gs in (x for x in gen_lines if x.get("type") == "step"):
        ss = sink_steps.get(gs["step"], {})
        recv = ss.get("received", 0)
        lat = ss.get("lat_ns", {})
        row = dict(ident)
        row.update({
            "step": gs["step"], "target_pps": gs["target_pps"],
            "offered": gs["offered"], "sent": gs["sent"],
            "gen_pps": gs["pps"], "gen_seconds": gs["seconds"],
            "forwarded": recv,
            "fwd_pps": ss.get("rx_pps", 0.0),
            "lost": gs["sent"] - recv,
            "loss_pct": round(100.0 * (gs["sent"] - recv) / gs["sent"],
                              4) if gs["sent"] else 0.0,
            "sink_sent_from": ss.get("sent_from"),
            "reordered": ss.get("reordered"),
            "dup": ss.get("dup"),
            "lat_p50_us": round(lat.get("p50", 0) / 1000.0, 1),
            "lat_p99_us": round(lat.get("p99", 0) / 1000.0, 1),
            "lat_max_us": round(lat.get("max", 0) / 1000.0, 1),
            "host_qemu_in_drops": gs.get("host_udp_rcvbuf_errors"),
            "both_ways": bool(rev),
            "conntrack": meas.get("ct_count"),
        })
        if rev:
            row["ways"] = gs["ways"]
        rows.append(row)
    if not rows:
        return rows
    # forwarded frames, TX doorbells and receives: port B's, and both
    # ports' both ways
    tx = ("B",) if not rev else ("A", "B")
    rx = ("A",) if not rev else ("A", "B")
    fwd = sum(d[p + "_tx_frames"] for p in tx)
    tdt = sum(d[p + "_tdt_writes"] for p in tx)
    noop = sum(d[p + "_tdt_noop_writes"] for p in tx)
    rdt = sum(d[p + "_rdt_writes"] for p in rx)
    rx_frames = sum(d[p + "_rx_frames"] for p in rx)
    total = {
        "gen_sent": sum(r["sent"] for r in rows),
        "markers_sent": GEN_MARKERS * len(rows) * (2 if rev else 1)
        if markers else None,
        "sink_received": sink_total.get("received"),
        "sink_rx_frames": sink_total.get("rx_frames"),
        "sink_markers": sink_total.get("markers"),
        "sink_invalid": sink_total.get("invalid"),
        "sink_socket_drops": sink_total.get("sink_socket_drops"),
        "global_reordered": sink_total.get("global_reordered"),
        "flow_gaps_open": sink_total.get("flow_gaps_open"),
        "ttl": [sink_total.get("ttl_min"), sink_total.get("ttl_max")],
        "stray_frames_out_A": meas["stray_frames"],
        "cpu_busy_pct": cpus.get("cpu"),
        "cpu_busy_per_cpu": {k: v for k, v in cpus.items() if k != "cpu"},
        "insn": insn,
        "model": d,
        # the ports the rows count (B's; both ways A's and B's)
        "fwd_frames": fwd, "tdt_writes": tdt, "tdt_noop_writes": noop,
        "tdt_per_fwd": _ratio(tdt, fwd),
        "tdt_noop_per_fwd": _ratio(noop, fwd),
        "rdt_per_rx": _ratio(rdt, rx_frames),
        "irqs_per_fwd": _ratio(d["A_irqs"] + d["B_irqs"], fwd),
        # of them, those a received frame raised (dbb-igc counts them;
        # None unless both ports' models do: a mixed router)
        "rx_irqs_per_fwd": None if None in (d["A_irqs_rx"], d["B_irqs_rx"])
        else _ratio(d["A_irqs_rx"] + d["B_irqs_rx"], fwd),
        "insn_per_fwd": round(insn / fwd) if insn and fwd else None,
        "mmio_per_fwd": mmio_per_packet(d, fwd),
        "guest_drops": rx_frames - fwd,
        "qdisc_B": m1.get("qdisc"),
    }
    if profile and "prof" in m1:
        total["profile"] = profile(m0, m1, fwd)
    # single-step runs: the deltas are the step's
    for r in rows:
        r.update(total if len(rows) == 1 else {"run": total})
    return rows
