#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.py: the router comparison, `make report`.

Runs the lab's router (router.py) on the lab's default kernel (or each
--kernel) with upstream igc and igc_batch's three doorbell settings on
dbb-igc ports, and upstream octeon_ep and octep_fix on dbb-octep ports
(watermark 0x100, and 0x400 where upstream stalls), then writes
build/report/: index.html, PNG plots, report.json (every number the page
shows, and the router's own rows) and report-table.rst, which is also
copied to Documentation/lab/report-table.rst (included by
Documentation/lab/report.rst).

Per kernel, each a separate guest boot with every configuration in it
(router.py unloads and loads the driver between them); in each, per
configuration and mode, the counted steps first (router.py --insn-steps:
the instruction counter switched on, --insn-rates fixed rates evenly up to
the fixed one: guest instructions per forwarded packet, counted, not
timed), then the load ramp with the counter off (--steps, until two steps
in a row lose more than 1 %), all on TCG with one host thread
(RAMP_ACCEL):

  igc-rates    igc, igc_batch off, skip-empty, batched; stack forwarding,
               then XDP_REDIRECT; run again at the end in a new boot,
               ramps only (igc-rates-2, --repeat) for the spread of ratios
  igc-1q       igc and igc_batch batched, stack forwarding, one queue per
  igc-4q       port on one vCPU ("igc 1q": FreeBSD's single-core runs; off
               counted only, the conntrack rows' baseline) and four on
               four vCPUs ("4q": its ramps) (--no-queues leaves them out)
  igc-both     igc, off, batched, both ways at once (--no-both)
  igc-imix     igc and batched, mixed frame sizes (--no-imix)
  igc-ct2k-insn, igc-ct200k-insn
               igc, off, batched behind nftables and conntrack, one queue:
               counted steps only (--no-conntrack)
  octep-0x100  dbb-octep ports at watermark 0x100: octeon_ep, octep_fix;
               stack forwarding, one counted step at the fixed rate
  octep-0x400  the same at watermark 0x400 (octep_fix oq_wmark=0x400),
               where upstream octeon_ep stalls

Every rate is EMULATED (QEMU TCG on a shared machine): compare ratios
within one run, never with hardware.  The report sets FreeBSD's hardware
figures beside ours only as ratios to each OS's own baseline.

Every guest run holds /tmp/dbb-guest.lock (DBB_GUEST_LOCK; empty: no lock)
and every module build /tmp/dbb-build.lock (DBB_BUILD_LOCK).

Python 3 stdlib + matplotlib (Debian's python3-matplotlib; run with
/usr/bin/python3)."""

import argparse
import datetime
import fcntl
import html
import importlib.util
import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import insnprof  # noqa: E402
import pcie  # noqa: E402
from rows import (SAT_BUSY_PCT, SAT_DROP_PCT, read_steps,  # noqa: E402
                  saturated_counts)

REPO = os.path.dirname(os.path.dirname(LAB))
CACHE = os.environ.get("DBBATCH_CACHE", "/var/cache/dbbatch")
DOC_TABLE = os.path.join(REPO, "Documentation", "lab", "report-table.rst")

EMU = "EMULATED (QEMU TCG)"
LOSS = 1.0              # saturation: highest forwarded rate with loss <= 1 %
PROFILE_TOP = 25        # functions per row in the instruction profile
# The load ramps' accelerator: TCG with every vCPU on one host thread, so
# that QEMU's network input keeps the other core and the guest, not the
# emulator's input, is what saturates (with a thread per vCPU, four vCPUs
# and the input shared two cores and frames were lost at the input before
# the guest was busy: the four-queue bars could not be judged).  Also the
# lab's default TCG: no multi-threaded TCG text-patching fault.
RAMP_ACCEL = "tcg,thread=single"
# steps a ramp may add past its top rate while it has not saturated
RAMP_EXTEND = 4

# label -> (router.py --driver, --driver-params, NIC family, FreeBSD
# setting it reproduces, plot colour, line style)
CONFIGS = {
    "igc": ("igc", "", "igc", None, "#404040", "-"),
    "igc_batch off": ("igc_batch", "db_skip_empty=0 tx_db_batched=0",
                      "igc", "Original", "#d62728", "-"),
    "igc_batch skip-empty": ("igc_batch", "db_skip_empty=1 tx_db_batched=0",
                             "igc", "Fix", "#ff7f0e", "-"),
    "igc_batch batched": ("igc_batch", "db_skip_empty=1 tx_db_batched=1",
                          "igc", "Batched", "#2ca02c", "-"),
    "octeon_ep 0x100": ("octeon_ep", "", "octep", None, "#1f77b4", "-"),
    "octep_fix 0x100": ("octep_fix", "", "octep", None, "#9467bd", "-"),
    "octeon_ep 0x400": ("octeon_ep", "", "octep", None, "#1f77b4", "--"),
    "octep_fix 0x400": ("octep_fix", "oq_wmark=0x400", "octep", None,
                        "#9467bd", "--"),
}
IGC = ["igc", "igc_batch off", "igc_batch skip-empty", "igc_batch batched"]
# the configurations the spread repeat boots again
REPEATED = ["igc", "igc_batch off", "igc_batch batched"]
# One queue per port on one vCPU (FreeBSD's single-core runs) and four on
# four vCPUs (its load ramps): upstream igc and igc_batch batched, stack
# forwarding, each pair in a boot of its own.  A label's last word names
# its queue count; its baseline is igc with the same.
QUEUE_ROWS = {"1q": 1, "4q": 4}


def add_variant(base, suffix, ls, freebsd=False):
    """CONFIGS["BASE SUFFIX"]: BASE's driver, parameters, family and
    colour in line style LS; FreeBSD's setting of BASE only where its
    figures match the variant (FREEBSD=True), else none."""
    drv = CONFIGS[base]
    CONFIGS[base + " " + suffix] = drv[:3] + (
        drv[3] if freebsd else None, drv[4], ls)


for _q in QUEUE_ROWS:
    for _lab in ("igc", "igc_batch batched"):
        add_variant(_lab, _q, ":" if _q == "1q" else "--")
# one queue without a firewall, the baseline of the conntrack rows: off too
# (instruction count only: router.py --counted-only)
add_variant("igc_batch off", "1q", ":")
COUNTED_ONLY = ("igc_batch off 1q",)
# Both ways at once (router.py --both-ways: a generator and a sink on each
# port, the rate the total), stack forwarding: the FreeBSD post's
# bidirectional row (Original 1.54, Batched 5.41 Mpps).  Label's last
# word "both"; its baseline is "igc both".
BOTH = ["igc both", "igc_batch off both", "igc_batch batched both"]
for _lab in BOTH:
    add_variant(_lab[:-5], "both", "-.", freebsd=True)
# A stateful firewall (router.py --conntrack: nftables, every flow
# tracked by conntrack), stack forwarding on one queue and one vCPU, as the
# post's pf rows: 1,024 flows (2,048 conntrack tuples; pf: 2,050 states)
# and 99,328 (198,656; pf: 198,657).  Instruction counts only: what the
# post measured there is cycles per packet on one core.
CT_ROWS = {"ct2k": 1024, "ct200k": 99328}
CT = ["igc", "igc_batch off", "igc_batch batched"]
for _c in CT_ROWS:
    for _lab in CT:
        add_variant(_lab, _c, ":" if _c == "ct2k" else "--")
# A mixed-size load (router.py --size imix: dbb-gen's simple IMIX, 64, 594
# and 1518 bytes 7:4:1), stack forwarding, upstream igc and batched.
IMIX = ["igc imix", "igc_batch batched imix"]
for _lab in IMIX:
    add_variant(_lab[:-5], "imix", (0, (1, 1)))
# the variants with a plot panel of their own
OWN_PANEL = ("both", "imix")
VARIANTS = dict(QUEUE_ROWS, both=None, imix=None, **CT_ROWS)


def queue_suffix(label):
    """The variant of a row: "1q"/"4q" (queue count), "both" (both ways
    at once), "imix" (mixed sizes), "ct2k"/"ct200k" (stateful firewall),
    or "" for the two-queue one-way rows."""
    last = label.split()[-1]
    return last if last in VARIANTS else ""


def panel_of(label):
    """The plot panel of a row: its variant if it has a panel of its own,
    else "" (the family's and mode's main panel)."""
    v = queue_suffix(label)
    return v if v in OWN_PANEL else ""


def variant_name(q):
    """", 4 queues", ", both ways" for a row's summary."""
    if not q:
        return ""
    if q == "both":
        return ", both ways"
    if q == "imix":
        return ", mixed sizes"
    if q in CT_ROWS:
        return ", 1 queue, conntrack on {:,} flows".format(CT_ROWS[q])
    return ", %d queue%s" % (QUEUE_ROWS[q], "s" if QUEUE_ROWS[q] > 1 else "")

# FreeBSD on a Netgate 4200 (Intel I226, iflib igc; the iflib doorbell
# post): four queues per port, 64-byte frames, one direction, pf off.
# MEASURED on hardware.  setting -> (Mpps, doorbells per packet, CPU busy)
FREEBSD = {"Original": (0.96, 3.0, "100 % (at 0.96 Mpps)"),
           "Fix": (2.57, 1.0, "23 % at 0.8 Mpps (Original: 36 %)"),
           "Batched": (3.58, 0.063, "70 % (at 3.58 Mpps)")}
LINE_RATE_MPPS = 3.72  # 2.5 GbE, 64-byte frames, each direction
# FreeBSD both ways at once (the same box and queues): Mpps, both
# directions together.  MEASURED.  setting -> Mpps
FREEBSD_BOTH = {"Original": 1.54, "Batched": 5.41}
FREEBSD_NOTE = ("FreeBSD: MEASURED on a Netgate 4200 (4 Intel Atom cores, "
                "Intel I226), 4 queues per port, 64-byte frames one way, "
                "pf off; doorbells per packet from the kernel's counter "
                "(Batched: measured on one core).  Line rate %.2f Mpps."
                % LINE_RATE_MPPS)


def krate(r):
    return ("%gk" % (r / 1e3)) if r >= 1000 else str(int(r))


def ramp(n, top):
    """n offered rates: 2k, 20k, then evenly up to top."""
    if n <= 1:
        return [20000]
    if n == 2:
        return [2000, 20000]
    rest = [20000 + (top - 20000) * i // (n - 2) for i in range(1, n - 1)]
    return [2000, 20000] + [int(round(r, -3)) for r in rest]


def insn_rates(a):
    """The instruction runs' rates: A.insn_rates of them, evenly up to
    the fixed rate (2: half of it and it)."""
    n = a.insn_rates
    # rounded to 100 pps below the fixed rate, which stays exact
    return [int(round(a.fixed * i / n, -2)) for i in range(1, n)] + \
        [a.fixed]


def plan(a):
    """[(run name, kernel, router args, labels, modes, steps per config)]

    A boot's counted steps (router.py --insn-steps: the instruction
    counter on) run first for each configuration and mode, then its ramp
    with the counter off: one boot for both (the ct rows count only)."""
    runs = []
    step_s = str(a.step_seconds)
    # counted steps of the dbb-igc rows: --insn-rates evenly up to the
    # fixed rate (the line through them puts every row at its baseline's
    # receive interrupts), --insn-seconds a step
    irates = ",".join(krate(r) for r in insn_rates(a))
    insn_s = str(a.insn_seconds)
    ix = ["--insn-steps", irates, "--insn-step-seconds", insn_s,
          "--profile", str(PROFILE_TOP)]
    nfx = a.insn_rates
    for k in a.kernel:
        if a.smoke:
            labels = ["igc", "igc_batch batched"]
            # the lab's default (single-threaded) TCG: no rates to
            # compare, and no chance of multi-threaded TCG's int3 fault
            runs.append(("igc-rates", k, ["--mode", "stack", "--steps",
                                          "2k,%s" % krate(a.fixed),
                                          "--step-seconds", "1",
                                          "--rss", "same"] + ix,
                         labels, ["stack"], 2 + nfx))
            runs.append(("igc-both", k, [
                "--mode", "stack", "--both-ways", "--steps",
                krate(a.fixed), "--step-seconds", "1", "--rss", "same"],
                ["igc both", "igc_batch batched both"], ["stack"], 1))
            runs.append(("igc-imix", k, [
                "--mode", "stack", "--size", "imix", "--steps",
                krate(a.fixed), "--step-seconds", "1", "--rss", "same"],
                IMIX, ["stack"], 1))
            runs.append(("igc-ct2k-insn", k, [
                "--mode", "stack", "--conntrack", "--flows",
                str(CT_ROWS["ct2k"]), "--steps", irates, "--profile",
                str(PROFILE_TOP), "--step-seconds", insn_s, "--rss", "same",
                "--insn", "--smp", "1", "--queues", "1"],
                ["igc ct2k", "igc_batch batched ct2k"], ["stack"], nfx))
            continue
        st = ramp(a.steps, 80000)
        xd = ramp(a.steps, 100000)
        # a ramp that ends lossless goes on at its last step's increase
        # (RAMP_EXTEND steps at most): a fast host's guest still saturates
        until = ["--until-loss", str(LOSS), "--loss-steps", "2",
                 "--extend", str(RAMP_EXTEND)]
        # --full: XDP_REDIRECT in the queue-count and both-ways rows too
        more = ["stack", "xdp"] if a.full else ["stack"]

        def ramps(modes):
            """router.py's ramp arguments for MODES, and their steps at
            most (with the counted ones and the extension)."""
            if modes == ["stack"]:
                return ["--mode", "stack", "--steps",
                        ",".join(map(krate, st))], \
                    len(st) + RAMP_EXTEND + nfx
            return ["--mode", "stack,xdp",
                    "--mode-steps", "stack=" + ",".join(map(krate, st)),
                    "--mode-steps", "xdp=" + ",".join(map(krate, xd))], \
                len(st) + len(xd) + 2 * (RAMP_EXTEND + nfx)
        margs, nst = ramps(["stack", "xdp"])
        rates = margs + ["--step-seconds", step_s, "--rss", "same",
                         "--accel", RAMP_ACCEL] + until
        runs.append(("igc-rates", k, rates + ix, IGC, ["stack", "xdp"],
                     nst))
        if not a.no_queues:
            for q, n in QUEUE_ROWS.items():
                labels = ["igc " + q, "igc_batch batched " + q]
                if q == "1q":
                    # the conntrack rows' baseline: counted only
                    labels.insert(1, "igc_batch off 1q")
                margs, nst = ramps(more)
                runs.append(("igc-%s" % q, k, margs + [
                    "--step-seconds", step_s, "--rss", "same",
                    "--accel", RAMP_ACCEL, "--smp", str(n), "--queues",
                    str(n)] + until + ix, labels, more, nst))
        if not a.no_both:
            margs, nst = ramps(more)
            runs.append(("igc-both", k, margs + [
                "--both-ways", "--step-seconds", step_s, "--rss", "same",
                "--accel", RAMP_ACCEL] + until + ix, BOTH, more, nst))
        if not a.no_imix:
            margs, nst = ramps(["stack"])
            runs.append(("igc-imix", k, margs + [
                "--size", "imix", "--step-seconds", step_s, "--rss", "same",
                "--accel", RAMP_ACCEL] + until + ix, IMIX, ["stack"],
                nst))
        if not a.no_conntrack:
            for c, flows in CT_ROWS.items():
                runs.append(("igc-%s-insn" % c, k, [
                    "--mode", "stack", "--conntrack", "--flows", str(flows),
                    "--steps", irates, "--profile", str(PROFILE_TOP),
                    "--step-seconds", insn_s, "--rss", "same", "--insn",
                    "--smp", "1", "--queues", "1"],
                    [lab + " " + c for lab in CT], ["stack"], nfx))
        # the ramps again in new boots, last, uncounted: the spread of the
        # ratios to igc, and of off's latency for the latency bar
        # (skip-empty's ratio is shown from its one boot)
        nr = len(st) + len(xd) + 2 * RAMP_EXTEND
        repeats = [("igc-rates-%d" % i, k, rates, REPEATED, ["stack", "xdp"],
                    nr) for i in range(2, a.repeat + 1)]
        if a.no_octep:
            runs += repeats
            continue
        op = ramp(a.steps, 80000)
        for wm in ("0x100", "0x400"):
            nic = "dbb-octep,wmark=" + wm
            labels = ["octeon_ep " + wm, "octep_fix " + wm]
            runs.append(("octep-%s" % wm, k, [
                "--nic-a", nic, "--nic-b", nic, "--rings", "0",
                "--mode", "stack", "--steps", ",".join(map(krate, op)),
                "--step-seconds", step_s, "--accel", RAMP_ACCEL] + until + [
                "--insn-steps", krate(a.fixed), "--insn-step-seconds",
                step_s], labels, ["stack"], len(op) + RAMP_EXTEND + 1))
        runs += repeats
    return runs


class Lock:
    """flock(1) for a block, with a progress line when it has to wait."""

    def __init__(self, path, what):
        self.path, self.what, self.fd, self.waited = path, what, None, 0.0

    def __enter__(self):
        if not self.path:
            return self
        self.fd = open(self.path, "a")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress("waiting for %s (another lab job holds it) before %s"
                     % (self.path, self.what))
            t = time.time()
            fcntl.flock(self.fd, fcntl.LOCK_EX)
            self.waited = time.time() - t
        return self

    def __exit__(self, *exc):
        if self.fd:
            self.fd.close()


T0 = time.time()
WAITED = [0.0]


def progress(msg):
    e = int(time.time() - T0)
    print("[%02d:%02d] %s" % (e // 60, e % 60, msg), flush=True)


def modules_for(a, k):
    if a.modules:
        d = a.modules.replace("%k", k)
        if not os.path.exists(os.path.join(d, "igc_batch.ko")):
            sys.exit("report: no igc_batch.ko in %s" % d)
        return d
    d = os.path.join(a.out, "modules", k)
    progress("%s: building our modules (W=1 C=1, private tree "
             "$CACHE/report-build) into %s" % (k, d))
    env = dict(os.environ, DBBATCH_CACHE=os.path.join(CACHE, "report-build"))
    with Lock(os.environ.get("DBB_BUILD_LOCK", "/tmp/dbb-build.lock"),
              "the module build") as lk:
        with open(os.path.join(a.out, "logs", "build-%s.log" % k), "w") as lf:
            rc = subprocess.run([os.path.join(LAB, "build-modules.sh"), k, d],
                                env=env, stdout=lf, stderr=subprocess.STDOUT
                                ).returncode
    WAITED[0] += lk.waited
    if rc:
        sys.exit("report: module build for %s failed: %s/logs/build-%s.log"
                 % (k, a.out, k))
    return d


def step_line(row):
    bits = ["fwd %.1f kpps (%.1f %% loss)" % (row["fwd_pps"] / 1e3,
                                              row["loss_pct"])]
    if row.get("tdt_per_fwd") is not None:
        bits.append("TX doorbells/pkt %.3f" % row["tdt_per_fwd"])
    if row.get("cpu_busy_pct") is not None:
        bits.append("CPU %.0f %%" % row["cpu_busy_pct"])
    if row.get("insn_per_fwd"):
        bits.append("%d insn/pkt" % row["insn_per_fwd"])
    return ", ".join(bits)


def read_router(p, lf, k, name, counter):
    """router.py's JSON lines into its log and the progress lines; its
    exit status."""
    for line in p.stdout:
        lf.write(line)
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "boot":
            progress("%s %s: guest up in %.0f s" % (k, name,
                                                    o["boot_seconds"]))
        elif "mode" in o:
            counter[0] += 1
            progress("%s %s: %s %s %s: %s" % (
                k, name, o["config"], o["mode"],
                krate(o["target_pps"]), step_line(o)))
    return p.wait()


def run_router(a, run, qemu, mods, counter):
    name, k, args, labels, modes, nsteps = run
    rdir = os.path.join(a.out, "runs", "%s-%s" % (k, name))
    shutil.rmtree(rdir, ignore_errors=True)
    cmd = [sys.executable, os.path.join(LAB, "router.py"), "--kernel", k,
           "--qemu", qemu, "--modules", mods, "--out", rdir, "--json"] + args
    for lab in labels:
        drv, params = CONFIGS[lab][:2]
        cmd += ["--driver", drv, "--label", lab]
        if params:
            cmd += ["--driver-params", params]
        if lab in COUNTED_ONLY:
            cmd += ["--counted-only"]
    log = os.path.join(a.out, "logs", "%s-%s.log" % (k, name))
    progress("%s %s: boot (%s; %d configurations, up to %d steps each)"
             % (k, name, "single-threaded TCG + instruction counter"
                if "--insn" in args else "single-threaded TCG; counted "
                "steps first" if "--insn-steps" in args else
                "single-threaded TCG",
                len(labels), nsteps))
    t = time.time()
    with Lock(os.environ.get("DBB_GUEST_LOCK", "/tmp/dbb-guest.lock"),
              "%s %s" % (k, name)) as lk, open(log, "w") as lf:
        lf.write("# " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        lf.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=lf,
                             text=True)
        try:
            rc = read_router(p, lf, k, name, counter)
        finally:
            if p.poll() is None:    # we were stopped: so is the guest
                p.terminate()
                p.wait(timeout=120)
    WAITED[0] += lk.waited
    secs = time.time() - t - lk.waited
    if rc:
        progress("%s %s: router.py FAILED (exit %d) after %.0f s; see %s"
                 % (k, name, rc, secs, log))
    else:
        progress("%s %s: done in %.0f s" % (k, name, secs))
    return {"name": name, "kernel": k, "args": args, "labels": labels,
            "modes": modes, "dir": rdir, "log": log, "rc": rc,
            "seconds": round(secs, 1), "command": cmd}


KEEP = ("config", "driver", "params", "mode", "queues", "smp", "rings",
        "target_pps", "sent", "forwarded", "fwd_pps", "loss_pct",
        "tdt_per_fwd", "tdt_noop_per_fwd", "rdt_per_rx", "irqs_per_fwd",
        "rx_irqs_per_fwd", "cpu_busy_pct", "insn_per_fwd", "lat_p50_us",
        "lat_p99_us", "insn_counting", "mmio_per_fwd", "ways", "conntrack",
        "size", "profile")


def slim(row):
    r = {k: row.get(k) for k in KEEP}
    m = row.get("model", {})
    # router.py's totals over the ports the row counts (both ways: both)
    r["tdt_writes"] = row.get("tdt_writes")
    r["tdt_noop_writes"] = row.get("tdt_noop_writes")
    r["tx_frames"] = row.get("fwd_frames")
    r["both_ways"] = bool(row.get("both_ways"))
    # what says the guest, not the host, was the bottleneck of a step
    r["rx_dropped"] = (m.get("A_rx_dropped") or 0) + \
        (m.get("B_rx_dropped") or 0)
    r["rx_frames"] = (m.get("A_rx_frames") or 0) + \
        (m.get("B_rx_frames") or 0)
    r["host_in_drops"] = row.get("host_qemu_in_drops")
    cnt = pcie.counts(m, r["tx_frames"])
    r["pcie_counts"] = cnt and {p: {k: round(v, 5) for k, v in c.items()}
                                for p, c in cnt.items()}
    return r


def fwd_rate(r):
    """Forwarded pps of a step: the sink's rate (router.py fwd_pps), but
    for a step that delivered almost nothing (a stalled ring: a burst of
    16 frames at line speed) the frames delivered over the step's time."""
    if r["sent"] and r["forwarded"] < 0.05 * r["sent"]:
        return r["target_pps"] * r["forwarded"] / r["sent"]
    return r["fwd_pps"]


def latency(r):
    """(offered pps, p50 us, p99 us) of a step that forwarded, or None."""
    if r.get("lat_p50_us") is None or not r.get("forwarded"):
        return None
    return (r["target_pps"], r["lat_p50_us"], r.get("lat_p99_us"))


# The least run-to-run spread of a low-rate p50 the latency bar allows:
# igc_batch_lab.py's latency check's (20 % of off's p50 + 30 us), which
# toggles batching within one boot.
LAT_SPREAD_PCT = 20
LAT_SPREAD_US = 30


def guest_bound(row):
    """A step saturated the router itself (rows.saturated_counts): its
    guest dropped a share of what reached it for want of a receive
    descriptor, or its CPUs were busy; loss alone can be QEMU's input
    giving out first.  Steps of an older report.json are judged as they
    were then: without the counts, saturated; without the frames received,
    saturated by any drop."""
    busy = row.get("cpu_busy_pct") or 0
    if "rx_dropped" not in row:
        return True
    if "rx_frames" not in row:
        return bool(row["rx_dropped"]) or busy >= SAT_BUSY_PCT
    return saturated_counts(row["rx_frames"], row["rx_dropped"], busy)[0]


def guest_loss_pct(r):
    """Per cent of the frames that reached the guest that it did not
    forward: the step's loss less what QEMU's input dropped on the host
    (host_in_drops, the emulator's limit on a 2-core machine, not the
    driver's); the whole loss for a step without the count."""
    host = r.get("host_in_drops") or 0
    reached = (r.get("sent") or 0) - host
    if "host_in_drops" not in r or reached <= 0:
        return r["loss_pct"]
    return max(0.0, 100.0 * (reached - r["forwarded"]) / reached)


def guest_saturation(rs):
    """The highest rate of the steps RS forwarded losing at most LOSS per
    cent of the frames that reached the guest (guest_loss_pct()); 0
    without one."""
    return max((fwd_rate(r) for r in rs if guest_loss_pct(r) <= LOSS),
               default=0.0)


def summarize(runs, fixed):
    """report.json's "configs": one entry per kernel, configuration and
    mode, from its ramp and its counted steps (the instruction counter
    on)."""
    out = {}
    for run in runs:
        for r in run["rows"]:
            kind = "insn" if r.get("insn_counting") else "rates"
            key = (run["kernel"], r["config"], r["mode"])
            c = out.setdefault(key, {
                "kernel": run["kernel"], "kver": run["meta"].get("kernel"),
                "config": r["config"], "mode": r["mode"],
                "family": CONFIGS.get(r["config"], ("", "", "?"))[2],
                "driver": r["driver"], "params": r["params"],
                "ramp": [], "insn_step": None})
            if kind == "rates":
                # a repeat (igc-rates-2, ...) only adds to the spread
                c.setdefault("repeats", {}).setdefault(
                    run["name"], []).append(r)
                if c.setdefault("rates_run", run["name"]) == run["name"]:
                    c["ramp"].append(r)
                    c["queues"] = r["queues"]
                    c["accel"] = run["meta"].get("accel")
            else:
                c.setdefault("insn_rows", []).append(r)
    for c in out.values():
        # every rate of the instruction run; the fixed rate's is the last,
        # the lowest rate's the first
        rs = sorted(c.pop("insn_rows", []), key=lambda r: r["target_pps"])
        c["insn_steps"] = rs
        if rs:
            c["insn_step"] = rs[-1]
        if len(rs) > 1:
            c["insn_low"] = rs[0]
    for c in out.values():
        rs = c["ramp"]
        for r in rs:
            r["fwd_rate"] = fwd_rate(r)
        ok = [r for r in rs if r["loss_pct"] <= LOSS]
        sat = max(ok, key=lambda r: r["fwd_rate"]) if ok else None
        top = max(rs, key=lambda r: r["fwd_rate"]) if rs else None
        # the router saturated, as FreeBSD's line-rate load saturates it:
        # the highest rate offered
        over = max(rs, key=lambda r: r["target_pps"]) if rs else None
        at = next((r for r in rs if r["target_pps"] == fixed), None)
        tx = sum(r["tx_frames"] or 0 for r in rs)
        noop = sum(r["tdt_noop_writes"] or 0 for r in rs)
        ins = c["insn_step"] or {}
        if ins.get("loss_pct", 0) > 50:   # a stalled ring: no per-packet
            ins = {}                      # figure from a dozen frames
        c.update({
            "sat_pps": sat["fwd_rate"] if sat else 0.0,
            # the same, counting only what the guest lost (the rate bar)
            "guest_sat_pps": guest_saturation(rs),
            "sat_offered": sat["target_pps"] if sat else None,
            "max_pps": top["fwd_rate"] if top else None,
            "max_offered": top["target_pps"] if top else None,
            "max_loss": top["loss_pct"] if top else None,
            "tdt_at_fixed": at["tdt_per_fwd"] if at else None,
            "tdt_at_sat": sat["tdt_per_fwd"] if sat else None,
            "tdt_at_over": over["tdt_per_fwd"] if over else None,
            "over_offered": over["target_pps"] if over else None,
            "over_loss": over["loss_pct"] if over else None,
            "over_guest_bound": guest_bound(over) if over else None,
            "over_cpu": over["cpu_busy_pct"] if over else None,
            "over_host_drops": over.get("host_in_drops") if over else None,
            "cpu_at_fixed": at["cpu_busy_pct"] if at else None,
            "noop_per_pkt": noop / tx if tx else None,
            "noop_writes": noop,
            "insn_per_pkt": ins.get("insn_per_fwd"),
            "insn_irqs_per_pkt": ins.get("irqs_per_fwd"),
            "insn_tdt_per_pkt": ins.get("tdt_per_fwd"),
            "insn_mmio_per_pkt": ins.get("mmio_per_fwd"),
            "insn_loss": ins.get("loss_pct"),
            "insn_conntrack": ins.get("conntrack"),
            # MODELED (pcie.py): at the fixed rate and with the router
            # saturated (the highest rate offered)
            "pcie_fixed": pcie.model(ins.get("pcie_counts")),
            "pcie_over": pcie.model(over.get("pcie_counts")) if over
            else None,
        })
        # MODELED: instructions against interrupts, through every rate
        c["insn_fit"] = insnprof.fit(c["insn_steps"], LOSS)
        mm = c["insn_mmio_per_pkt"] or {}
        c["cycles_per_pkt"] = pcie.cycles(
            c["insn_per_pkt"], None if mm.get("tx_tail") is None else
            mm["tx_tail"] + mm["rx_tail"])
        # latency at the lowest rate offered (one packet at a time) in
        # each boot, and with the router saturated (the highest rate)
        c["lat_low_boots"] = [x for x in (
            latency(min(rs, key=lambda r: r["target_pps"]))
            for _, rs in sorted(c.get("repeats", {}).items())) if x]
        c["lat_over"] = latency(over) if over else None
    for c in out.values():
        c["repeat_peaks"] = {
            name: max(fwd_rate(r) for r in rs)
            for name, rs in c.get("repeats", {}).items()}
        # each boot's saturation on the guest's own losses (the rate bar)
        c["repeat_guest_sats"] = {
            name: guest_saturation(rs)
            for name, rs in c.get("repeats", {}).items()}
    # ratios to the upstream driver of the same boot (same run)
    for c in out.values():
        q = queue_suffix(c["config"])
        base = ("igc " + q if q else "igc") if c["family"] == "igc" else \
            "octeon_ep " + c["config"].split()[-1]
        b = out.get((c["kernel"], base, c["mode"]))
        c["baseline"] = base
        # none for a configuration that only ran at the fixed rates
        c["sat_ratio"] = (c["sat_pps"] / b["sat_pps"]
                          if c["ramp"] and b and b["sat_pps"] >= 1000
                          else None)
        c["max_ratio"] = (c["max_pps"] / b["max_pps"]
                          if b and b["sat_pps"] >= 1000 and b["max_pps"] and
                          c["max_pps"] is not None else None)
        # the same ratio in every boot of a repeated run: its spread
        c["max_ratios"] = [
            v / b["repeat_peaks"][name]
            for name, v in sorted(c["repeat_peaks"].items())
            if b and b["sat_pps"] >= 1000 and
            b["repeat_peaks"].get(name)] if b else []
        c["insn_ratio"] = (c["insn_per_pkt"] / b["insn_per_pkt"]
                           if b and b["insn_per_pkt"] and c["insn_per_pkt"]
                           else None)
        # at the baseline's receive interrupts per packet (the baseline:
        # its own count); none where either fixed-rate step lost more
        # than LOSS (saturated or stalled), as the bar skips it
        lossy = not b or max((s or {}).get("loss_pct", 0) for s in (
            c["insn_step"], b["insn_step"])) > LOSS
        c["insn_at_base_irqs"] = (
            None if lossy else c["insn_per_pkt"] if b is c else
            insnprof.at_irqs(c["insn_fit"], insnprof.matched_irqs(
                c["insn_step"], b["insn_step"])))
        c["stalled"] = bool(c["ramp"]) and c["sat_pps"] < 1000 and \
            all(r["loss_pct"] > 50 for r in c["ramp"])
    # each queue-count row after the two-queue rows of its family
    order = IGC + [lab for v in VARIANTS for lab in sorted(
        (x for x in CONFIGS if queue_suffix(x) == v),
        key=lambda x: IGC.index(x.rsplit(" ", 1)[0]))] + [
        lab for lab in CONFIGS if lab not in IGC and not queue_suffix(lab)]
    return sorted(out.values(), key=lambda c: (
        c["kernel"], order.index(c["config"]) if c["config"] in order else 99,
        c["mode"]))


def insn_bars(who, c, u):
    """Batched C's instructions per packet at most igc U's, at each fixed
    rate of the instruction run: on C's line (MODELED) at U's receive
    interrupts per packet (insnprof.matched_irqs()), what C would have
    counted in U's timing, against U's count; counted against counted
    where C has no line."""
    res = []
    ups = {s["target_pps"]: s for s in u.get("insn_steps", ())}
    for cs in c.get("insn_steps", ()):
        us = ups.get(cs["target_pps"])
        if not us or not cs.get("insn_per_fwd") or \
                not us.get("insn_per_fwd"):
            continue
        if max(cs.get("loss_pct", 0), us.get("loss_pct", 0)) > LOSS:
            continue    # saturated or stalled: a dozen frames' count
        rate = krate(us["target_pps"])
        q = insnprof.matched_irqs(cs, us)
        at = insnprof.at_irqs(c["insn_fit"], q)
        if at:
            far = insnprof.extrapolated(c["insn_fit"], q)
            res.append((
                "%s at %s pps: batched guest instructions per packet at "
                "most igc's in igc's receive timing (%d at %.2f vs %d at "
                "%.2f counted; MODELED on batched's line through %d "
                "rates%s; batched counted %d at %.2f)" % (
                    who, rate, at, q, us["insn_per_fwd"],
                    us["irqs_per_fwd"], c["insn_fit"]["points"],
                    ", read far outside its steps" if far else "",
                    cs["insn_per_fwd"], cs["irqs_per_fwd"]),
                at <= us["insn_per_fwd"]))
        else:
            res.append((
                "%s at %s pps: batched guest instructions per packet at "
                "most igc's (%d vs %d, counted; no line to match their "
                "interrupts on)" % (who, rate, cs["insn_per_fwd"],
                                    us["insn_per_fwd"]),
                cs["insn_per_fwd"] <= us["insn_per_fwd"]))
    return res


def guest_sat(c):
    """A configuration's saturation on the guest's own losses (a
    report.json from before it was kept: the saturation)."""
    return c.get("guest_sat_pps", c["sat_pps"])


def saturated_guest(c):
    """Did the guest itself lose more than LOSS per cent of the frames
    that reached it at a step of C's ramp (guest_loss_pct())?  A guest
    that forwarded all it got kept up, however busy its CPUs: the rate
    it was offered was what QEMU's input could deliver (the model takes
    every frame, and drops one without a receive descriptor in the
    guest's count)."""
    return any(guest_loss_pct(r) > LOSS for r in c["ramp"])


def boot_sat_ratios(c, u):
    """[(boot, C's, U's guest saturation)] of every boot that ran both
    and saw U forward (the spread repeat's boots), in boot order."""
    cs, us = c.get("repeat_guest_sats") or {}, u.get("repeat_guest_sats") or {}
    return [(n, cs[n], us[n]) for n in sorted(cs) if us.get(n)]


def rate_bar(who, c, u):
    """Batched C forwards at least as much as igc U: on what reached the
    guest (a frame QEMU's input dropped on the host says nothing of the
    driver, and a step of such drops would move the saturation a whole
    step down).  With the spread repeat's boots, on all of them: the
    median of the boots' ratios, not below 1 by more than the run-to-run
    spread (the larger relative spread of either driver's saturation over
    the boots, as the latency bar), since where the two drivers do the
    same work per packet (XDP_REDIRECT: each flushes once per poll) one
    boot's order is a coin toss (0.98 and 1.01 in the two boots of one
    run, each driver's saturation moving 1-2 % between them)."""
    cg, ug = guest_sat(c), guest_sat(u)
    boots = boot_sat_ratios(c, u)
    text = ("%s: batched forwards at least as much as igc (%.1f vs %.1f "
            "kpps: the highest rate forwarded losing <= 1 %% of the frames "
            "that reached the guest; saturation with QEMU's input drops "
            "counted %.1f vs %.1f" % (who, cg / 1e3, ug / 1e3,
                                      c["sat_pps"] / 1e3, u["sat_pps"] / 1e3))
    if len(boots) < 2:
        return text + ")", cg >= ug
    ratios = [x / y for _, x, y in boots]
    spread_ = max((max(v) - min(v)) / median(v) for v in (
        [x for _, x, _ in boots], [y for _, _, y in boots]))
    ratio = median(ratios)
    return (text + "; over %d boots %s, median ratio %.3f%s, run-to-run "
            "spread %.1f %%)" % (
                len(boots), ", ".join("%.1f vs %.1f" % (x / 1e3, y / 1e3)
                                      for _, x, y in boots), ratio,
                "" if ratio >= 1 else ", below 1 by less than the spread"
                if ratio >= 1 - spread_ else ", below 1 by more than the "
                "spread", 100 * spread_), ratio >= 1 - spread_)


def bars(configs):
    """The issue's performance bars, judged on this run's numbers."""
    res = []
    by = {(c["kernel"], c["config"], c["mode"]): c for c in configs}
    for c in configs:
        k, m = c["kernel"], c["mode"]
        q = queue_suffix(c["config"])
        if c["config"] != ("igc_batch batched " + q).strip():
            continue
        u = by.get((k, ("igc " + q).strip(), m))
        if not u:
            continue
        # which rows: "6.1 stack" (two queues), "6.1 stack, 4 queues"
        who = "%s %s%s" % (k, m, variant_name(q))
        if c["ramp"] and u["ramp"] and not (saturated_guest(c) or
                                            saturated_guest(u)):
            # None: neither guest ever ran short, QEMU's input did
            res.append(("%s: batched forwards at least as much as igc: not "
                        "judged, neither guest saturated (at no step did "
                        "it lose more than 1 %% of the frames that reached "
                        "it): QEMU's input gave out first (%.1f vs %.1f "
                        "kpps), the emulator's limit on this host, not "
                        "the driver's" % (
                            who, guest_sat(c) / 1e3, guest_sat(u) / 1e3),
                        None))
        elif c["ramp"] and u["ramp"]:
            res.append(rate_bar(who, c, u))
        res += insn_bars(who, c, u)
        if m == "stack" and c["tdt_at_over"] is not None and \
                c.get("over_guest_bound", True) is False:
            # None: this run cannot tell, neither met nor not met
            res.append(("%s: batched TX doorbells per packet with the "
                        "router saturated <= 0.03: not judged, the guest "
                        "never saturated (%s offered, %.0f %% lost, but "
                        "its CPUs %s %% busy and under %d %% of the frames "
                        "that reached it dropped for want of a receive "
                        "descriptor; QEMU's input dropped %s frames; %.3f "
                        "there)%s" % (
                            who, krate(c["over_offered"]), c["over_loss"],
                            fmt(c.get("over_cpu"), "%.0f"), SAT_DROP_PCT,
                            fmt(c.get("over_host_drops"), "%d"),
                            c["tdt_at_over"],
                            ": the ramp ended below the guest's limit, "
                            "run more --steps" if c["over_loss"] <= LOSS
                            else ": QEMU's input gave out first, the "
                            "emulator's limit on this host"), None))
        elif m == "stack" and c["tdt_at_over"] is not None:
            res.append(("%s: batched TX doorbells per packet with the "
                        "router saturated (%s offered, %.0f %% lost) <= 0.03 "
                        "(%.3f; %s at the highest lossless rate)" % (
                            who, krate(c["over_offered"]), c["over_loss"],
                            c["tdt_at_over"], fmt(c["tdt_at_sat"], "%.3f")),
                        c["tdt_at_over"] <= 0.03))
    for c in configs:
        off = by.get((c["kernel"], "igc_batch off", c["mode"]))
        if c["config"] != "igc_batch batched" or not off:
            continue
        lb = [x[1] for x in c["lat_low_boots"]]
        lo = [x[1] for x in off["lat_low_boots"]]
        if len(lb) > 1 and len(lo) > 1:     # a spread needs two boots
            added = median(lb) - median(lo)
            spread_ = max(max(lb) - min(lb), max(lo) - min(lo))
            # two boots' spread can be nothing by chance: at least what
            # igc_batch_lab.py's latency check allows run to run
            bound = max(spread_, median(lo) * LAT_SPREAD_PCT / 100.0 +
                        LAT_SPREAD_US)
            res.append((
                "%s %s: latency batching adds at the lowest rate (%s, one "
                "packet at a time) within the run-to-run spread (%+.0f µs "
                "median p50 over %d boots; spread %.0f µs, at least %d %% "
                "of off's p50 + %d µs: %.0f µs)" % (
                    c["kernel"], c["mode"], krate(c["lat_low_boots"][0][0]),
                    added, len(lb), spread_, LAT_SPREAD_PCT, LAT_SPREAD_US,
                    bound),
                added <= bound))
    for c in configs:
        if c["config"].startswith(("igc_batch skip", "igc_batch batched",
                                   "octep_fix")) and c["ramp"]:
            res.append(("%s %s %s: no no-op TX doorbell writes (%d)" % (
                c["kernel"], c["config"], c["mode"], c["noop_writes"]),
                c["noop_writes"] == 0))
    return res


# ---- tables ---------------------------------------------------------------

def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2.0


def fmt(v, f, none="–"):
    return none if v is None else f % v


def thousands(v):
    return "–" if v is None else "{:,.0f}".format(v)


def spread(c):
    """The peak ratio to upstream of this boot, and with repeated boots
    its range over them."""
    v = fmt(c["max_ratio"], "%.2f")
    rs = c.get("max_ratios") or []
    if len(rs) > 1:
        v += " (%.2f–%.2f, %d boots)" % (min(rs), max(rs), len(rs))
    return v


def main_table(configs, fixed):
    heads = ["kernel", "configuration", "mode", "queues",
             "saturation kpps", "× upstream", "peak kpps @offered, loss",
             "peak × upstream",
             "TX doorbells/pkt @%s" % krate(fixed),
             "TX doorbells/pkt @sat", "TX doorbells/pkt @max offered",
             "no-op doorbells/pkt",
             "CPU %% @%s" % krate(fixed),
             "insn/pkt @%s" % krate(fixed), "insn × upstream",
             "irqs/pkt (insn step)"]
    rows = []
    for c in configs:
        sat = ("stalls" if c["stalled"] else fmt(c["sat_pps"] / 1e3, "%.1f")
               if c["ramp"] else "–")
        rows.append([
            c["kernel"], c["config"], c["mode"], fmt(c.get("queues"), "%s"),
            sat, fmt(c["sat_ratio"], "%.2f"),
            ("%.1f @%s, %.0f %%" % (c["max_pps"] / 1e3,
                                    krate(c["max_offered"]), c["max_loss"])
             if c["max_pps"] is not None else "–"),
            spread(c),
            fmt(c["tdt_at_fixed"], "%.3f"), fmt(c["tdt_at_sat"], "%.3f"),
            ("%.3f @%s" % (c["tdt_at_over"], krate(c["over_offered"]))
             if c["tdt_at_over"] is not None else "–"),
            fmt(c["noop_per_pkt"], "%.3f"), fmt(c["cpu_at_fixed"], "%.0f"),
            "–" if c["insn_per_pkt"] is None else
            "{:,}".format(c["insn_per_pkt"]),
            fmt(c["insn_ratio"], "%.2f"),
            fmt(c["insn_irqs_per_pkt"], "%.2f")])
    return heads, rows


INSN_NOTE = (
    "Guest instructions per forwarded packet, counted by the dbb_insn "
    "plugin at two or more fixed rates of one boot (single-threaded TCG), "
    "with interrupts per packet counted by the models.  Below saturation a "
    "packet costs its own work plus its share of the interrupts that woke "
    "the poll for it, and how many interrupts an emulated run takes per "
    "packet depends on how the generator's bursts meet the guest's timing "
    "(both drivers program the same 50 us interval for these frames).  "
    "MODELED: the least-squares line through the rates, instructions = "
    "per packet + per interrupt x interrupts per packet, reads each row at "
    "its baseline's receive interrupts per packet (the timing's) times its "
    "own interrupts per receive interrupt (the transmit completions its "
    "doorbells bring: the driver's): what it would have counted in the "
    "baseline's timing.  The bar compares that with the baseline's count, "
    "at each rate.")


def irqs_cell(r):
    """A step's interrupts per packet, and of them the receive ones where
    the model counts them: "1.38, 0.92 rx"."""
    rx = r.get("rx_irqs_per_fwd")
    return "%.2f" % r["irqs_per_fwd"] + ("" if rx is None else
                                         ", %.2f rx" % rx)


def insn_table(configs):
    """The lowest and the fixed rate's steps, the line through every
    rate and the count at the baseline's receive interrupts per
    packet."""
    heads = ["kernel", "configuration", "mode",
             "insn/pkt (irqs/pkt, receive) lowest rate",
             "insn/pkt (irqs/pkt, receive) fixed", "per packet MODELED",
             "per interrupt MODELED", "line: rates, rms",
             "at baseline's receive irqs MODELED",
             "× baseline counted"]
    rows = []
    by = {(c["kernel"], c["config"], c["mode"]): c for c in configs}
    for c in configs:
        if not c.get("insn_low") or not c["insn_per_pkt"]:
            continue
        lo, line = c["insn_low"], c["insn_fit"]
        b = by.get((c["kernel"], c["baseline"], c["mode"]))
        at = c["insn_at_base_irqs"]
        rows.append([
            c["kernel"], c["config"], c["mode"],
            "{:,} ({}) @{}".format(lo["insn_per_fwd"], irqs_cell(lo),
                                   krate(lo["target_pps"]))
            if lo.get("insn_per_fwd") else "–",
            "{:,} ({})".format(c["insn_per_pkt"], irqs_cell(c["insn_step"])),
            thousands(line and line["per_pkt"]),
            thousands(line and line["per_irq"]),
            "%d, ±%s" % (line["points"], thousands(line["rms"]))
            if line else "–",
            thousands(at),
            fmt(at / b["insn_per_pkt"] if at and b and b["insn_per_pkt"]
                else None, "%.2f")])
    return heads, rows


PROFILE_NOTE = (
    "The guest kernel's instructions per forwarded packet in the functions "
    "that ran most, at %s pps offered (router.py --profile: the dbb_insn "
    "plugin's count per translation block, named from the guest's own "
    "/proc/kallsyms); a module's functions carry its name.  Interrupt "
    "entry, idle and scheduling are in the list too: they are part of "
    "what a packet costs below saturation.")


def profile_table(configs, n=12):
    """Where the instructions go: the functions that ran most at the
    fixed rate in the main stack and XDP rows, igc beside batched."""
    heads, cols = ["kernel", "mode", "rank"], []
    for c in configs:
        if queue_suffix(c["config"]) or c["config"] not in (
                "igc", "igc_batch batched"):
            continue
        prof = (c["insn_step"] or {}).get("profile")
        if prof:
            cols.append((c["kernel"], c["mode"], c["config"], prof))
    rows = []
    for k, m in sorted({(x[0], x[1]) for x in cols}):
        here = [x for x in cols if x[:2] == (k, m)]
        if len(here) < 2:
            continue
        if not rows:
            heads += [x[2] + " (insn/pkt)" for x in here]
        for i in range(n):
            rows.append([k, m, str(i + 1)] + [
                "%s %.0f" % tuple(x[3][i]) if i < len(x[3]) else ""
                for x in here])
    return heads, rows


def latency_table(configs):
    """Round-trip latency through the router, from the ramps: at the
    lowest rate in each boot, and with the router saturated."""
    heads = ["kernel", "configuration", "mode",
             "p50 / p99 µs at the lowest rate, each boot",
             "p50 / p99 µs saturated (offered)"]
    rows = []

    def us(v):
        return "–" if v is None else "{:,.0f}".format(v)

    for c in configs:
        if not c["lat_low_boots"] and not c["lat_over"]:
            continue
        low = "; ".join("%s / %s" % (us(p50), us(p99))
                        for _, p50, p99 in c["lat_low_boots"])
        o = c["lat_over"]
        rows.append([c["kernel"], c["config"], c["mode"], low or "–",
                     "%s / %s (%s)" % (us(o[1]), us(o[2]), krate(o[0]))
                     if o else "–"])
    return heads, rows


LATENCY_NOTE = (
    "Latency through the router (%s): dbb-sink's per-frame delay from "
    "dbb-gen's timestamp, over host loopback and the guest, at the lowest "
    "rate of each boot's ramp (frames one at a time: what batching could "
    "delay) and at the highest rate offered.  Multi-threaded TCG on a "
    "shared machine moves these by tens of per cent between boots: read "
    "the boots side by side, never against hardware.")


MMIO_KINDS = (("tx_tail", "TX tail (doorbell)"), ("rx_tail", "RX tail"),
              ("irq", "interrupt registers"), ("other", "other writes"))


def mmio_table(configs):
    """Register accesses per forwarded packet by kind, both ports, at the
    insn step's fixed rate: counted by the models."""
    heads = (["kernel", "configuration", "mode"] +
             ["%s/pkt" % t for _, t in MMIO_KINDS] +
             ["writes/pkt", "reads/pkt", "irqs/pkt"])
    rows = []
    for c in configs:
        m = c.get("insn_mmio_per_pkt")
        if not m:
            continue
        kinds = [m.get(k) for k, _ in MMIO_KINDS]
        total = None if None in kinds else sum(kinds)
        rows.append([c["kernel"], c["config"], c["mode"]] +
                    [fmt(v, "%.3f") for v in kinds] +
                    [fmt(total, "%.3f"), fmt(m.get("reads"), "%.3f"),
                     fmt(c["insn_irqs_per_pkt"], "%.2f")])
    return heads, rows


MMIO_NOTE = ("Register accesses per forwarded packet at %s pps offered "
             "(the insn step), both ports together, counted by the device "
             "models: TX and RX tail writes (the doorbells), writes to the "
             "interrupt registers (dbb-igc: ICR/ICS/IMS/IMC/IAM, EICR/EICS/"
             "EIMS/EIMC/EIAC/EIAM, EITR; dbb-octep: the rings' count "
             "acknowledgements IN_CNTS/OUT_CNTS and interrupt levels), every "
             "other write, and the reads, each of which stalls a CPU for a "
             "PCIe round trip on silicon.  Counted, not timed; like "
             "instructions they follow interrupts per packet.  The counts "
             "cover the whole step, so the drivers' timed work (a watchdog "
             "reading statistics every 2 s) is spread over its packets.")


def pcie_table(configs):
    """MODELED PCIe bytes per forwarded packet on each port's link and
    the ceiling they set, beside FreeBSD's measured rate."""
    heads = ["kernel", "configuration", "mode", "step",
             "A up B/pkt", "A down B/pkt", "B up B/pkt", "B down B/pkt",
             "TLPs/pkt", "busiest", "PCIe ceiling Mpps MODELED",
             "FreeBSD Mpps MEASURED (setting)"]
    rows = []
    for c in configs:
        for step, key, rate in (("fixed", "pcie_fixed", None),
                                ("saturated", "pcie_over",
                                 c.get("over_offered"))):
            m = c.get(key)
            if not m:
                continue
            fb = CONFIGS.get(c["config"], (0, 0, 0, None))[3]
            fbm = (FREEBSD_BOTH if queue_suffix(c["config"]) == "both"
                   else {k: v[0] for k, v in FREEBSD.items()}).get(fb)
            tlps = sum(m[p][s][0] for p in ("A", "B") for s in ("up", "down"))
            rows.append([
                c["kernel"], c["config"], c["mode"],
                step if rate is None else "%s (%s)" % (step, krate(rate)),
                "%.0f" % m["A"]["up"][1], "%.0f" % m["A"]["down"][1],
                "%.0f" % m["B"]["up"][1], "%.0f" % m["B"]["down"][1],
                "%.1f" % tlps, "%s %s" % m["busiest"][:2],
                fmt(m["ceiling_mpps"], "%.2f"),
                "%.2f (%s)" % (fbm, fb) if fbm and
                c["mode"] == "stack" else "–"])
    return heads, rows


def cycles_table(configs):
    """MODELED cycles per forwarded packet from the insn step."""
    heads = ["kernel", "configuration", "mode", "insn/pkt",
             "doorbells/pkt (TX+RX tails)",
             "cycles/pkt MODELED (%d–%d a ring)" % pcie.RING_CYCLES,
             "of which doorbells", "Mpps per core per GHz MODELED"]
    rows = []
    for c in configs:
        cy = c.get("cycles_per_pkt")
        if not cy:
            continue
        mm = c["insn_mmio_per_pkt"]
        db = mm["tx_tail"] + mm["rx_tail"]
        rows.append([c["kernel"], c["config"], c["mode"],
                     "{:,}".format(c["insn_per_pkt"]), "%.3f" % db,
                     "{:,.0f}–{:,.0f}".format(*cy),
                     "%.0f %%" % (100 * (cy[1] - c["insn_per_pkt"] *
                                         pcie.CPI) / cy[1]),
                     "%.3f–%.3f" % (1e3 / cy[1], 1e3 / cy[0])])
    return heads, rows


def ct_table(configs):
    """The stateful-firewall rows beside the same drivers on one queue
    without a firewall: instructions and MODELED cycles per packet."""
    heads = ["kernel", "configuration", "firewall", "conntrack entries",
             "insn/pkt @fixed", "insn × upstream",
             "doorbells/pkt (TX+RX tails)", "cycles/pkt MODELED",
             "MODELED speed-up vs off", "irqs/pkt"]
    rows = []
    if not any(queue_suffix(c["config"]) in CT_ROWS for c in configs):
        return heads, rows
    by = {(c["kernel"], c["config"]): c for c in configs
          if c["mode"] == "stack"}
    for k in sorted({c["kernel"] for c in configs}):
        groups = [("1q", "none (%s flows)" % "{:,}".format(99328))] + [
            (v, "nftables, conntrack on {:,} flows".format(n))
            for v, n in CT_ROWS.items()]
        for v, what in groups:
            off = by.get((k, "igc_batch off " + v))
            for lab in CT:
                c = by.get((k, lab + " " + v))
                if not c or not c["insn_per_pkt"]:
                    continue
                mm = c["insn_mmio_per_pkt"] or {}
                cy = c.get("cycles_per_pkt")
                ocy = off.get("cycles_per_pkt") if off else None
                rows.append([
                    k, c["config"], what,
                    "–" if c.get("insn_conntrack") is None else
                    "{:,}".format(c["insn_conntrack"]),
                    "{:,}".format(c["insn_per_pkt"]),
                    fmt(c["insn_ratio"], "%.2f"),
                    fmt(None if mm.get("tx_tail") is None else
                        mm["tx_tail"] + mm["rx_tail"], "%.3f"),
                    "{:,.0f}–{:,.0f}".format(*cy) if cy else "–",
                    "%+.0f %%" % (100 * (ocy[1] / cy[1] - 1))
                    if cy and ocy else "–",
                    fmt(c["insn_irqs_per_pkt"], "%.2f")])
    return heads, rows


CT_NOTE = (
    "A stateful firewall in the forward path: nftables with conntrack "
    "tracking every flow (ct state {new, established} accept, policy "
    "drop; router.py --conntrack), stack forwarding with one queue per "
    "port on one vCPU, instructions per forwarded packet at %s pps after "
    "a pass over every flow that created its entry, so that the counted "
    "packets look their flow up.  %s.  The FreeBSD post's matching rows "
    "(MEASURED: one core, pf off, on with 1,024 flows = 2,050 states and "
    "with 99,328 flows = 198,657 states) cost 2,700 to 6,000 cycles per "
    "packet; each ring removed saved 330 to 395 cycles whatever pf did, "
    "so its Fix sped one core up by 42 %% with pf off and 14 %% at "
    "200,000 states, and batching roughly doubled those gains.  Cycles "
    "here are MODELED (the cycles table's assumptions); the speed-up is "
    "this row's modeled cycles against igc_batch off with the same "
    "firewall (upper ring cost).  Conntrack keeps a tuple each way per "
    "flow: 2,048 and 198,656 here against pf's 2,050 and 198,657 "
    "states.  Rows without a firewall: the one-queue rows above.")


MODELED_NOTE = (
    "MODELED, not measured: what the counted work of this run would cost "
    "on silicon under the assumptions below.  PCIe: per forwarded packet, "
    "the bytes each port's link (A receives, B transmits; both ways: "
    "each does both, and the ceiling is for both directions together) "
    "would carry in "
    "each direction (up: device to host), at the fixed rate and with the "
    "router saturated, where batching is deepest; the ceiling is the link "
    "rate over the busiest direction.  FreeBSD's figures beside them are "
    "MEASURED on a Netgate 4200 (its one-way forwarding stopped at 3.58 "
    "Mpps with the cores 70 % busy, the I226 sending no faster: the post "
    "did not find why).  Cycles: from the guest instructions of the "
    "insn step.  The FreeBSD post measured 2,700 to 6,000 cycles per "
    "forwarded packet on one core (pf off to 200,000 states).")


def modeled_assumptions():
    return list(pcie.ASSUMPTIONS) + list(pcie.CYCLE_ASSUMPTIONS)


def cross_table(configs):
    """FreeBSD's measured figures beside ours by matching setting, ratios
    to each OS's own baseline (FreeBSD: Original; ours: igc_batch off)."""
    heads = ["setting", "FreeBSD Mpps (HW)", "FreeBSD × Original",
             "FreeBSD doorbells/pkt", "ours (kernel, setting)",
             "ours stack peak kpps " + EMU, "ours × off",
             "ours doorbells/pkt @max offered", "ours XDP peak × off",
             "ours insn/pkt × off"]
    rows = []
    by = {(c["kernel"], c["config"], c["mode"]): c for c in configs}

    def ratio(c, base, key):
        return (c[key] / base[key] if c and base and base.get(key) and
                c.get(key) else None)

    def freebsd(fb, both):
        """FreeBSD's columns: one way (Mpps, x Original, doorbells) or
        both ways (no doorbell count published for them)."""
        if both and fb in FREEBSD_BOTH:
            return ["%s, both ways" % fb, "%.2f" % FREEBSD_BOTH[fb],
                    "%.2f" % (FREEBSD_BOTH[fb] / FREEBSD_BOTH["Original"]),
                    "–"]
        if not both and fb:
            mpps, db, _ = FREEBSD[fb]
            return [fb, "%.2f" % mpps,
                    "%.2f" % (mpps / FREEBSD["Original"][0]), "%g" % db]
        return ["(%s%s)" % (fb or "Linux upstream",
                            ", both ways" if both else ""), "–", "–", "–"]

    for k in sorted({c["kernel"] for c in configs}):
        for sfx, labels in (("", IGC), (" both", BOTH)):
            off = by.get((k, "igc_batch off" + sfx, "stack"))
            offx = by.get((k, "igc_batch off" + sfx, "xdp"))
            for lab in labels:
                c = by.get((k, lab, "stack"))
                fb = CONFIGS[lab][3]
                base = lab[:len(lab) - len(sfx)]
                name = ("upstream igc" if base == "igc" else
                        base.replace("igc_batch ", "")) + sfx
                fcols = freebsd(fb, bool(sfx))
                if not c:
                    # a one-way FreeBSD setting is listed even if missing
                    if fb and not sfx:
                        rows.append(fcols + ["%s, %s: not in this run" % (
                            k, name), "–", "–", "–", "–", "–"])
                    continue
                rows.append(fcols + [
                    "%s, %s" % (k, name),
                    fmt(c["max_pps"] / 1e3 if c["ramp"] else None, "%.1f"),
                    fmt(ratio(c, off, "max_pps") if c["ramp"] else None,
                        "%.2f"),
                    fmt(c["tdt_at_over"], "%.3f"),
                    fmt(ratio(by.get((k, lab, "xdp")), offx, "max_pps"),
                        "%.2f"),
                    fmt(ratio(c, off, "insn_per_pkt"), "%.2f")])
    return heads, rows


def rst_grid(heads, rows):
    w = [max(len(str(x)) for x in col) for col in zip(heads, *rows)]
    line = lambda ch: "+" + "+".join(ch * (n + 2) for n in w) + "+"  # noqa
    cells = lambda r: "| " + " | ".join(  # noqa: E731
        str(x).ljust(n) for x, n in zip(r, w)) + " |"
    out = [line("-"), cells(heads), line("=")]
    for r in rows:
        out += [cells(r), line("-")]
    return "\n".join(out)


def rst_doc(data):
    m = data["meta"]
    fixed = m["fixed_pps"]
    h1, r1 = main_table(data["configs"], fixed)
    h2, r2 = cross_table(data["configs"])
    kv = ", ".join(sorted({c["kver"] or c["kernel"] for c in data["configs"]}))
    parts = [
        ".. SPDX-License-Identifier: GPL-2.0",
        "",
        ".. Generated by tools/lab/report.py (make report) from %s; do not "
        "edit." % m["json"],
        "",
        "**%s**: the router comparison of %s, kernel(s) %s, on %s "
        "(%s; %d CPUs, load %s at the start)." % (
            EMU, m["date"], kv, m["host"], m["mode"], m["cpus"], m["load"]),
        "Rates are from load ramps on %s (%d s steps, 64-byte "
        "frames, %s flows, %d boot(s) of the dbb-igc ramps); instructions "
        "per packet from a %s pps step per configuration (and one at half "
        "that rate for the dbb-igc rows) on single-threaded TCG with the "
        "instruction counter.  Ratios compare rows of one boot." % (
            ", ".join(sorted({r["meta"].get("accel") or "default TCG"
                              for r in data["runs"]
                              if not r["name"].endswith("insn")})),
            m["step_seconds"] if m["mode"] != "smoke" else 1,
            "{:,}".format(m["flows"]),
            len([r for r in data["runs"]
                 if r["name"].startswith("igc-rates")]), krate(fixed)),
        "",
        rst_grid(h1, r1),
        "",
        "Beside FreeBSD, by matching setting, each as a ratio to its own "
        "OS's baseline (FreeBSD: Original; ours: igc_batch off, which rings "
        "as upstream igc does).  " + FREEBSD_NOTE,
        "",
        rst_grid(h2, r2),
        "",
    ]
    h3, r3 = mmio_table(data["configs"])
    if r3:
        parts += [MMIO_NOTE % krate(fixed), "", rst_grid(h3, r3), ""]
    h8, r8 = insn_table(data["configs"])
    if r8:
        parts += [INSN_NOTE, "", rst_grid(h8, r8), ""]
    h9, r9 = profile_table(data["configs"])
    if r9:
        parts += [PROFILE_NOTE % krate(fixed), "", rst_grid(h9, r9), ""]
    h6, r6 = latency_table(data["configs"])
    if r6:
        parts += [LATENCY_NOTE % EMU, "", rst_grid(h6, r6), ""]
    h7, r7 = ct_table(data["configs"])
    if r7:
        parts += [CT_NOTE % (krate(fixed), EMU), "", rst_grid(h7, r7), ""]
    h4, r4 = pcie_table(data["configs"])
    h5, r5 = cycles_table(data["configs"])
    if r4 or r5:
        parts += [MODELED_NOTE, ""] + ["- " + x for x in
                                       modeled_assumptions()] + [""]
    if r4:
        parts += [rst_grid(h4, r4), ""]
    if r5:
        parts += [rst_grid(h5, r5), ""]
    return "\n".join(parts)


def html_table(heads, rows, cls=""):
    out = ['<div class="wide"><table class="%s"><thead><tr>' % cls]
    out += ["<th>%s</th>" % html.escape(h) for h in heads]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % html.escape(str(x))
                                    for x in r) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


# ---- plots ----------------------------------------------------------------

def insn_bar(ax, c, x, mode, w):
    """One configuration's bar of the instructions chart at X on AX: its
    count, MODELED cycles (lines) and, for a row beside its baseline,
    the count at the baseline's interrupts (a diamond).  True if it drew
    a diamond."""
    col = CONFIGS.get(c["config"], (0, 0, 0, 0, "k"))[4]
    ax.bar(x, c["insn_per_pkt"], w * 0.92, color=col,
           alpha=1.0 if mode == "stack" else .55,
           hatch="" if mode == "stack" else "//", edgecolor="white")
    # mid-bar: clear of the diamond and the cycle lines at its top
    ax.text(x, c["insn_per_pkt"] / 2, "{:,}".format(c["insn_per_pkt"]),
            ha="center", va="center", fontsize=7.5, color="white")
    cy = c.get("cycles_per_pkt")
    if cy:
        ax.plot([x - w * 0.42, x + w * 0.42], [cy[1]] * 2, color="black",
                lw=1.6)
        ax.plot([x - w * 0.42, x + w * 0.42], [cy[0]] * 2, color="black",
                lw=0.8, ls=":")
    at = c.get("insn_at_base_irqs")
    if at and c["baseline"] != c["config"]:
        ax.plot([x], [at], marker="D", ms=5, color="black", mec="white",
                ls="")
        return True
    return False


def pcie_bars(ax, c, x):
    """One configuration's two MODELED PCIe ceilings around X on AX: at
    the fixed rate (hatched) and saturated, each labelled with its
    busiest link."""
    col = CONFIGS.get(c["config"], (0, 0, 0, 0, "k"))[4]
    for j, key in enumerate(("pcie_fixed", "pcie_over")):
        m = c.get(key)
        if not m or not m["ceiling_mpps"]:
            continue
        xj = x + (j - 0.5) * 0.4
        ax.bar(xj, m["ceiling_mpps"], 0.37, color=col,
               alpha=.55 if j == 0 else 1.0, hatch="//" if j == 0 else "",
               edgecolor="white")
        ax.text(xj, m["ceiling_mpps"], "%.2f\n%s %s" % (
            m["ceiling_mpps"], m["busiest"][0], m["busiest"][1]),
            ha="center", va="bottom", fontsize=7.5)


def plots(data, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter

    made = []
    confs = data["configs"]
    for k in sorted({c["kernel"] for c in confs}):
        kc = [c for c in confs if c["kernel"] == k and c["ramp"]]
        kv = next((c["kver"] for c in kc if c["kver"]), k)
        accels = {c.get("accel") or "default" for c in kc}
        tcg = ("single-threaded TCG" if accels == {RAMP_ACCEL} else
               "multi-threaded TCG" if accels == {"tcg,thread=multi"}
               else "TCG (%s)" % ", ".join(sorted(accels)))
        panels = []
        for fam, mode, var, title in (
                ("igc", "stack", "", "dbb-igc: stack forwarding"),
                ("igc", "stack", "both", "dbb-igc: stack forwarding, both "
                 "ways at once (offered: the total)"),
                ("igc", "stack", "imix", "dbb-igc: stack forwarding, mixed "
                 "sizes (IMIX)"),
                ("igc", "xdp", "", "dbb-igc: XDP_REDIRECT"),
                ("igc", "xdp", "both", "dbb-igc: XDP_REDIRECT, both ways at "
                 "once (offered: the total)"),
                ("octep", "stack", "", "dbb-octep: stack forwarding")):
            cs = [c for c in kc if c["family"] == fam and c["mode"] == mode
                  and panel_of(c["config"]) == var]
            if cs:
                panels.append((title, cs))
        if not panels:
            continue
        n = len(panels)
        # at most three panels a row, the rest below
        cols = min(n, 3)
        rows = (n + cols - 1) // cols
        # forwarded vs offered, CPU busy below
        fig, ax = plt.subplots(2 * rows, cols,
                               figsize=(max(8, 5.2 * cols), 6.8 * rows),
                               squeeze=False, gridspec_kw={
                                   "height_ratios": [2.2, 1] * rows})
        for i in range(n, rows * cols):
            ax[2 * (i // cols)][i % cols].set_visible(False)
            ax[2 * (i // cols) + 1][i % cols].set_visible(False)
        for i, (title, cs) in enumerate(panels):
            top = max(r["target_pps"] for c in cs for r in c["ramp"]) / 1e3
            a0 = ax[2 * (i // cols)][i % cols]
            a1 = ax[2 * (i // cols) + 1][i % cols]
            a0.plot([0, top], [0, top], color="#bbbbbb", ls=":", lw=1,
                    label="offered (diagonal)")
            for c in cs:
                col, ls = CONFIGS.get(c["config"], (0, 0, 0, 0, "k", "-"))[4:]
                xs = [r["target_pps"] / 1e3 for r in c["ramp"]]
                a0.plot(xs, [r["fwd_rate"] / 1e3 for r in c["ramp"]],
                        marker="o", ms=3.5, color=col, ls=ls,
                        label=c["config"] + (" (stalls: ~0 forwarded)"
                                             if c["stalled"] else ""))
                a1.plot(xs, [r["cpu_busy_pct"] or 0 for r in c["ramp"]],
                        marker="o", ms=3, color=col, ls=ls)
            a0.set_title(title, fontsize=10)
            a0.set_ylabel("forwarded kpps")
            a0.set_xlim(0, top * 1.03)
            a0.set_ylim(0, top * 1.03)
            a0.grid(alpha=.3)
            a0.legend(fontsize=7.5, loc="upper left")
            a1.set_ylabel("guest CPU busy %")
            a1.set_xlabel("offered kpps (%s)" % (
                "IMIX: 64, 594, 1518 bytes 7:4:1" if "IMIX" in title
                else "64-byte frames"))
            a1.set_xlim(0, top * 1.03)
            a1.set_ylim(0, 105)
            a1.grid(alpha=.3)
        fig.suptitle("%s: forwarded vs offered; guest CPU busy below\n"
                     "kernel %s, %s, 64-byte frames unless marked; "
                     "compare the lines, not with hardware" % (EMU, kv, tcg),
                     fontsize=10.5)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / fig.get_figheight()))
        made.append(save(fig, out, "load-%s.png" % k, plt))

        # TX doorbells per forwarded packet vs offered
        fig, ax = plt.subplots(rows, cols,
                               figsize=(max(8, 5.2 * cols), 4.8 * rows),
                               squeeze=False)
        for i in range(n, rows * cols):
            ax[i // cols][i % cols].set_visible(False)
        for i, (title, cs) in enumerate(panels):
            a0 = ax[i // cols][i % cols]
            for c in cs:
                col, ls = CONFIGS.get(c["config"], (0, 0, 0, 0, "k", "-"))[4:]
                pts = [(r["target_pps"] / 1e3, r["tdt_per_fwd"])
                       for r in c["ramp"] if r["tdt_per_fwd"]
                       and r["forwarded"] >= 100]
                if pts:
                    a0.plot(*zip(*pts), marker="o", ms=3.5, color=col, ls=ls,
                            label=c["config"])
                elif c["stalled"]:
                    a0.plot([], [], color=col, ls=ls,
                            label=c["config"] + " (stalls: nothing "
                            "forwarded)")
            if title == "dbb-igc: stack forwarding":    # one way, as measured
                for name, (_, db, _) in FREEBSD.items():
                    a0.axhline(db, color="#999999", lw=.8, ls="--")
                    a0.text(0.99, db, " FreeBSD HW %s: %g" % (name, db),
                            transform=a0.get_yaxis_transform(),
                            ha="right", va="bottom", fontsize=7,
                            color="#666666")
            a0.set_yscale("log")
            a0.yaxis.set_major_formatter(FuncFormatter(
                lambda v, _: "%g" % v))
            a0.set_title(title, fontsize=10)
            a0.set_xlabel("offered kpps")
            a0.set_ylabel("TX doorbells per forwarded packet")
            a0.grid(alpha=.3, which="both")
            a0.legend(fontsize=7.5, loc="lower left")
        fig.suptitle("%s: TX doorbell (tail) writes per forwarded packet,"
                     " counted by the model\nkernel %s; dashed: FreeBSD's "
                     "MEASURED hardware figures (iflib post)" % (EMU, kv),
                     fontsize=10.5)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / fig.get_figheight()))
        made.append(save(fig, out, "doorbells-%s.png" % k, plt))

        # instructions per forwarded packet
        ic = [c for c in confs if c["kernel"] == k and c["insn_per_pkt"]]
        if ic:
            labels = []
            for c in ic:
                if c["config"] not in labels:
                    labels.append(c["config"])
            modes = [m for m in ("stack", "xdp")
                     if any(c["mode"] == m for c in ic)]
            fig, grid = bar_axes(plt, labels, 3.4)
            a0 = grid[0][0]
            w = 0.8 / len(modes)
            diamonds = False
            for ax, idx in grid:
                for j, m in enumerate(modes):
                    for i in idx:
                        c = next((c for c in ic if c["config"] == labels[i]
                                  and c["mode"] == m), None)
                        if c:
                            diamonds |= insn_bar(ax, c, i - idx[0] + (
                                j - (len(modes) - 1) / 2) * w, m, w)
                ax.set_xticks(range(len(idx)))
                ax.set_xticklabels([labels[i].replace(" ", "\n", 1)
                                    for i in idx], fontsize=8.5)
                ax.set_xlim(-0.6, BARS_PER_ROW - 0.4)
                ax.grid(axis="y", alpha=.3)
                ax.yaxis.set_major_formatter(FuncFormatter(
                    lambda v, _: "{:,}".format(int(v))))
            # two lines: a figure of one row is 4.4 in high
            fig.supylabel("guest instructions (bars), MODELED cycles\n"
                          "(lines) per forwarded packet", fontsize=10)
            top_legend(fig, [Patch(facecolor="#888888", label="stack"),
                             Patch(facecolor="#888888", alpha=.55,
                                   hatch="//", label="XDP_REDIRECT")][
                                       :len(modes)] + [
                Line2D([], [], color="black", lw=1.6,
                       label="MODELED cycles/pkt: CPI %.1f + %d a ring "
                       "(dotted: %d)" % (pcie.CPI, pcie.RING_CYCLES[1],
                                         pcie.RING_CYCLES[0])),
                Line2D([], [], color="black", marker="D", ms=5, mec="white",
                       ls="", label="MODELED instructions in the upstream "
                       "driver's receive timing")][
                           :None if diamonds else -1])
            fig.suptitle("%s: guest instructions per forwarded packet at "
                         "%s pps offered\ncounted (dbb_insn plugin, "
                         "single-threaded TCG), not timed; kernel %s" % (
                             EMU, krate(data["meta"]["fixed_pps"]), kv),
                         fontsize=10.5)
            gone = [c["config"] for c in confs if c["kernel"] == k and
                    c["stalled"] and c["mode"] in modes]
            if gone:
                # on the last row, where the Octeon rows are
                grid[-1][0].text(0.99, 0.97, "no bar: %s stalls (nothing "
                                 "forwarded)" % ", ".join(gone),
                                 transform=grid[-1][0].transAxes,
                                 ha="right", va="top", fontsize=8,
                                 color="#555555")
                a0.set_ylim(top=a0.get_ylim()[1] * 1.1)
            fig.tight_layout(rect=(0, 0, 1, 1 - 1.0 / fig.get_figheight()))
            made.append(save(fig, out, "insn-%s.png" % k, plt))

        # MODELED PCIe ceiling beside FreeBSD's measured rates
        pc = [c for c in confs if c["kernel"] == k and c["mode"] == "stack"
              and queue_suffix(c["config"]) != "both"
              and (c.get("pcie_over") or c.get("pcie_fixed"))]
        if pc:
            fig, grid = bar_axes(plt, [c["config"] for c in pc], 3.6)
            right = BARS_PER_ROW + 0.55     # the labels' column
            for ax, idx in grid:
                for i in idx:
                    pcie_bars(ax, pc[i], i - idx[0])
                for name, (mpps, _, _) in FREEBSD.items():
                    ax.axhline(mpps, color="#777777", ls="--", lw=0.8)
                    ax.text(right, mpps, "FreeBSD HW\n%s: %.2f" % (
                        name, mpps), ha="right", va="center", fontsize=7.5,
                        color="#555555", backgroundcolor="white")
                ax.axhline(LINE_RATE_MPPS, color="#b00000", ls=":", lw=0.8)
                ax.text(right, 4.4, "line rate (2.5 GbE, 64 B): %.2f"
                        % LINE_RATE_MPPS, ha="right", va="center",
                        fontsize=7.5, color="#b00000")
                ax.set_xticks(range(len(idx)))
                ax.set_xticklabels([pc[i]["config"].replace(" ", "\n", 1)
                                    for i in idx], fontsize=8.5)
                ax.set_xlim(-0.6, right + 0.05)
                ax.grid(axis="y", alpha=.3)
            top = max(ax.get_ylim()[1] for ax, _ in grid)
            grid[0][0].set_ylim(0, max(5.0, top * 1.12))
            fig.supylabel("Mpps the PCIe 2.0 x1 link\nallows (MODELED)",
                          fontsize=10)
            top_legend(fig, [
                Patch(facecolor="#888888", alpha=.55, hatch="//",
                      label="at %s pps offered" % krate(
                          data["meta"]["fixed_pps"])),
                Patch(facecolor="#888888", label="at the highest rate "
                      "offered (saturated)")])
            fig.suptitle("MODELED: the PCIe 2.0 x1 ceiling of an I226 for "
                         "the work counted in this run, stack forwarding "
                         "(label: the busiest link; port A receives, B "
                         "transmits)\ndashed: FreeBSD MEASURED on a Netgate "
                         "4200; kernel %s" % kv, fontsize=10.5)
            fig.tight_layout(rect=(0, 0, 1, 1 - 1.0 / fig.get_figheight()))
            made.append(save(fig, out, "pcie-%s.png" % k, plt))
    return made


# The page is at most 1,400 px wide and shrinks a wider plot, its labels
# with it: bar charts wrap after BARS_PER_ROW groups into rows of the same
# scale, each BAR_FIG_WIDTH inches at PLOT_DPI.
PLOT_DPI = 110
BARS_PER_ROW = 7
BAR_FIG_WIDTH = 12.5


def bar_family(label):
    """The rows a bar chart keeps together: the Octeon ones, and each
    variant of the dbb-igc ones (queue_suffix)."""
    return ("octep " if label.startswith("octe") else "") + \
        queue_suffix(label)


def bar_rows(keys, per_row=BARS_PER_ROW):
    """Rows of a bar chart whose groups are of the families KEYS (one
    key a group, in order): [range of the groups' indices], each at most
    PER_ROW groups, a family split only when it is longer than a row."""
    rows, cur = [], []
    for _, run in itertools.groupby(range(len(keys)), keys.__getitem__):
        run = list(run)
        if len(cur) + min(len(run), per_row) > per_row:
            rows.append(cur)
            cur = []
        for i in run:
            if len(cur) == per_row:
                rows.append(cur)
                cur = []
            cur.append(i)
    return [range(r[0], r[-1] + 1) for r in rows + [cur] if r]


def bar_axes(plt, labels, row_height):
    """A figure of bar_rows() rows of LABELS' groups, one axis each on
    one y scale, all BARS_PER_ROW groups wide: (figure, [(axis, row's
    indices)])."""
    rows = bar_rows([bar_family(x) for x in labels])
    fig, axes = plt.subplots(len(rows), 1, sharey=True, squeeze=False,
                             figsize=(BAR_FIG_WIDTH,
                                      row_height * len(rows) + 1.0))
    return fig, [(ax[0], r) for ax, r in zip(axes, rows)]


def top_legend(fig, handles):
    """A legend of the whole figure in one row under its two-line title
    (the figure's tight_layout leaves the top inch to both)."""
    fig.legend(handles=handles, loc="upper center", ncol=len(handles),
               fontsize=8.5, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.62 / fig.get_figheight()))


def save(fig, out, name, plt):
    fig.savefig(os.path.join(out, name), dpi=PLOT_DPI)
    plt.close(fig)
    return name


# ---- the page -------------------------------------------------------------

CSS = """body{font-family:sans-serif;max-width:1400px;margin:1.5em auto;
padding:0 1em;color:#222}
.emu{background:#fff3cd;border:1px solid #e0b000;padding:.6em 1em;
font-weight:bold}
.wide{overflow-x:auto}
table{border-collapse:collapse;font-size:13px;margin:.8em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
td{white-space:nowrap}
th{background:#f0f0f0;text-align:center}
table.main td:nth-child(-n+3),table.mmio td:nth-child(-n+3),
table.pcie td:nth-child(-n+4),table.cycles td:nth-child(-n+3),
table.latency td:nth-child(-n+3),
table.cross td:nth-child(1),
table.cross td:nth-child(5){text-align:left}
.pass{color:#197a19;font-weight:bold}.fail{color:#b00000;font-weight:bold}.skip{color:#8a6d00;font-weight:bold}
img{max-width:100%;border:1px solid #ddd;margin:.4em 0}
code{background:#f4f4f4;padding:0 3px}
li{margin:.2em 0}"""


def page(data, pngs):
    m = data["meta"]
    fixed = m["fixed_pps"]
    h1, r1 = main_table(data["configs"], fixed)
    h2, r2 = cross_table(data["configs"])
    esc = html.escape
    b = ['<!DOCTYPE html><html><head><meta charset="utf-8">',
         "<title>dbbatch router report</title><style>%s</style></head><body>"
         % CSS,
         "<h1>dbbatch: the router comparison</h1>",
         '<p class="emu">Every dbbatch number here is %s: a QEMU guest '
         "under TCG on a shared %d-CPU machine, the dbb-igc / dbb-octep "
         "models, UDP over loopback. Rates are tens of kpps, not Mpps: "
         "compare ratios within this run, never the rates with hardware. "
         "Doorbells and instructions per packet are counted, not timed."
         "</p>" % (EMU, m["cpus"]),
         "<p>%s; %s; kernels %s; %s in %s (%s waiting for other lab jobs). "
         "Command: <code>%s</code>.</p>" % (
             esc(m["date"]), esc(m["host"]), esc(", ".join(m["kvers"])),
             esc(m["mode"] + " run"), esc(m["elapsed"]), esc(m["waited"]),
             esc(m["command"])),
         "<h2>Summary</h2><ul>%s</ul>" % "".join(
             "<li>%s</li>" % esc(x) for x in m["summary"].split("; "))]
    if data["bars"]:
        b.append("<h2>The issue's performance bars, on this run</h2><ul>")
        for text, ok in data["bars"]:
            cls, word = {True: ("pass", "MET"), False: ("fail", "NOT MET"),
                         None: ("skip", "NOT JUDGED")}[ok]
            b.append('<li><span class="%s">%s</span> %s</li>' % (
                cls, word, esc(text)))
        b.append("</ul>")
    b.append("<h2>Beside FreeBSD (hardware) by matching setting</h2>")
    b.append("<p>%s Ratios are to each OS's own baseline: FreeBSD's "
             "Original (iflib ringing three times a packet), ours igc_batch "
             "off (rings as upstream igc: once a packet, never empty, so "
             "the Fix has little to remove on Linux). Our kpps are %s.</p>"
             % (esc(FREEBSD_NOTE), EMU))
    b.append(html_table(h2, r2, "cross"))
    b.append("<h2>Every configuration</h2>")
    b.append("<p>Saturation: the highest forwarded rate of the ramp with "
             "loss &le; %g %%; × upstream: ratio to the upstream driver of "
             "the same boot (igc; octeon_ep at the same watermark). TX "
             "doorbells: port B's tail (TDT) writes per forwarded packet, "
             "counted by the model. insn/pkt: guest instructions per "
             "forwarded packet at %s pps offered, single-threaded TCG with "
             "the instruction counter, with interrupts per packet of that "
             "step. Instruction counts are counted, not timed, but they "
             "follow interrupts per packet, which timing sets: the "
             "instructions table below reads each row in its baseline's "
             "receive timing.</p>" % (LOSS, krate(fixed)))
    b.append(html_table(h1, r1, "main"))
    for title, note, table, cls in (
            ("Register accesses per packet, by kind",
             MMIO_NOTE % krate(fixed), mmio_table, "mmio"),
            ("Instructions per packet against interrupts", INSN_NOTE,
             insn_table, "insn"),
            ("Where the instructions go", PROFILE_NOTE % krate(fixed),
             profile_table, "profile"),
            ("Latency", LATENCY_NOTE % EMU, latency_table, "latency"),
            ("With a stateful firewall", CT_NOTE % (krate(fixed), EMU),
             ct_table, "conntrack")):
        h, r = table(data["configs"])
        if r:
            b.append("<h2>%s</h2>" % title)
            b.append("<p>%s</p>" % esc(note))
            b.append(html_table(h, r, cls))
    h4, r4 = pcie_table(data["configs"])
    h5, r5 = cycles_table(data["configs"])
    if r4 or r5:
        b.append("<h2>MODELED: PCIe traffic and cycles per packet</h2>")
        b.append('<p class="emu">%s</p><ul>%s</ul>' % (
            esc(MODELED_NOTE), "".join("<li>%s</li>" % esc(x)
                                       for x in modeled_assumptions())))
    if r4:
        b.append(html_table(h4, r4, "pcie"))
    if r5:
        b.append(html_table(h5, r5, "cycles"))
    b.append("<h2>Plots</h2>")
    for p in pngs:
        b.append('<p><img src="%s" alt="%s"></p>' % (esc(p), esc(p)))
    b.append("<h2>Runs</h2><ul>")
    for run in data["runs"]:
        b.append("<li><b>%s %s</b>: %s, %s s, boot %s s, taint %s, %d "
                 "suspicious dmesg lines; <code>%s</code></li>" % (
                     esc(run["kernel"]), esc(run["name"]),
                     "ok" if run["rc"] == 0 else "FAILED (exit %d)" %
                     run["rc"], run["seconds"],
                     run["meta"].get("boot_seconds"),
                     run["health"].get("tainted"),
                     len(run["health"].get("dmesg_bad") or []),
                     esc("router.py " + " ".join(run["args"]))))
    b.append("</ul><h2>Not in this report yet</h2><p>%s</p>" %
             esc(NOT_YET))
    b.append("<p>Data: <a href=\"report.json\">report.json</a>; table: "
             "<a href=\"report-table.rst\">report-table.rst</a>.</p>")
    b.append("</body></html>")
    return "\n".join(b)


NOT_YET = ("the modeled PCIe traffic of dbb-octep's links, "
           "load ramps behind the firewall (its rows count "
           "instructions), latency as a run of its own (here: the ramps' "
           "lowest and highest steps); XDP_REDIRECT both ways and with one "
           "and four queues only with --full.")


def render(a, data):
    os.makedirs(a.out, exist_ok=True)
    # the data first: a page that cannot be drawn is redrawn from it
    # (--render) without running the guests again
    with open(os.path.join(a.out, "report.json"), "w") as f:
        json.dump(data, f, indent=1)
    pngs = plots(data, a.out)
    rst = rst_doc(data)
    with open(os.path.join(a.out, "report-table.rst"), "w") as f:
        f.write(rst)
    with open(os.path.join(a.out, "index.html"), "w") as f:
        f.write(page(data, pngs))
    if a.doc:
        with open(a.doc, "w") as f:
            f.write(rst)
    return pngs


def summary_line(data):
    by = {(c["kernel"], c["config"], c["mode"]): c for c in data["configs"]}
    bits = []
    for k in sorted({c["kernel"] for c in data["configs"]}):
        for m, q in (("stack", ""), ("xdp", ""), ("stack", " both")):
            b = by.get((k, "igc_batch batched" + q, m))
            u = by.get((k, "igc" + q, m))
            if not b or not u:
                continue
            s = "%s %s%s: batched" % (k, m, q and " both ways")
            if b["sat_ratio"] is not None:
                s += " %.2fx igc's rate" % b["sat_ratio"]
            if b["tdt_at_over"] is not None and u["tdt_at_over"] is not None:
                s += ", %.3f vs %.3f doorbells/pkt" % (b["tdt_at_over"],
                                                       u["tdt_at_over"])
            if b["insn_at_base_irqs"] and u["insn_per_pkt"]:
                s += (", %d vs %d insn/pkt at igc's receive irqs "
                      "(MODELED)" % (b["insn_at_base_irqs"],
                                     u["insn_per_pkt"]))
            elif b["insn_per_pkt"] and u["insn_per_pkt"]:
                s += ", %d vs %d insn/pkt" % (b["insn_per_pkt"],
                                              u["insn_per_pkt"])
            bits.append(s)
        f = by.get((k, "octep_fix 0x400", "stack"))
        o = by.get((k, "octeon_ep 0x400", "stack"))
        if f and o and f["ramp"]:
            bits.append("%s octep 0x400: octep_fix %s kpps, octeon_ep %s" % (
                k, fmt(f["sat_pps"] / 1e3, "%.1f"),
                "stalls" if o["stalled"] else
                fmt(o["sat_pps"] / 1e3, "%.1f") + " kpps"))
    return "; ".join(bits) or "no comparable rows"


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="The router comparison (make report): " + EMU +
        " ramps and instruction counts of igc, igc_batch (off, skip-empty, "
        "batched), octeon_ep and octep_fix; writes index.html, PNG plots, "
        "report.json and report-table.rst.",
        epilog="Default: the lab's default kernel (6.1), 8 steps a ramp, "
        "2 s a step, the dbb-igc ramps in 2 boots, octep rows at "
        "watermarks 0x100 and 0x400: about 16 minutes on a 2-core machine "
        "(plus any wait for the lock).  Every guest run holds "
        "$DBB_GUEST_LOCK (/tmp/dbb-guest.lock), every module build "
        "$DBB_BUILD_LOCK (/tmp/dbb-build.lock); empty: no lock.")
    ap.add_argument("--kernel", action="append",
                    help="6.1 or 6.12 (repeatable: --kernel 6.1 --kernel "
                    "6.12 for both; default 6.1)")
    ap.add_argument("--full", action="store_true",
                    help="the full matrix: XDP_REDIRECT in the queue-count "
                    "and both-ways rows too, and longer ramps: 12 steps a "
                    "ramp, 3 s a step, the dbb-igc ramps in 3 boots (about "
                    "35 minutes a kernel)")
    ap.add_argument("--steps", type=int,
                    help="steps per rate ramp (default 8; --full 12); a "
                    "ramp stops after two steps in a row lose > 1 %%%%, "
                    "and one still lossless at its top goes on, up to %d "
                    "steps more" % RAMP_EXTEND)
    ap.add_argument("--step-seconds", type=int,
                    help="seconds per step (default 2; --full 3)")
    ap.add_argument("--repeat", type=int,
                    help="boots of the dbb-igc ramps (igc, off, batched "
                    "after the first), for the spread of their ratios "
                    "(default 2; --full 3)")
    ap.add_argument("--fixed", type=int, default=20000,
                    help="offered pps of the instruction-count step and "
                    "the @fixed columns (default 20000)")
    ap.add_argument("--insn-rates", type=int,
                    help="counted steps per configuration and mode, evenly up "
                    "to --fixed; rows are compared on the least-squares "
                    "line through them (default 2: half the fixed rate "
                    "and the fixed rate; --full 4)")
    ap.add_argument("--insn-seconds", type=int,
                    help="seconds per instruction-count step (default: "
                    "--step-seconds; --smoke 1)")
    ap.add_argument("--no-octep", action="store_true",
                    help="leave out the octeon_ep / octep_fix rows")
    ap.add_argument("--no-queues", action="store_true",
                    help="leave out the one- and four-queue rows")
    ap.add_argument("--no-both", action="store_true",
                    help="leave out the both-ways rows")
    ap.add_argument("--no-imix", action="store_true",
                    help="leave out the mixed-size rows")
    ap.add_argument("--no-conntrack", action="store_true",
                    help="leave out the stateful-firewall rows")
    ap.add_argument("--smoke", action="store_true",
                    help="the test's run: igc and igc_batch batched, stack "
                    "only, two 1 s steps, one instruction-count step, one "
                    "step both ways, one of mixed sizes and one "
                    "instruction-count step with conntrack on 1,024 flows; "
                    "does not touch Documentation/")
    ap.add_argument("--modules", help="directory with our *.ko (%%k = "
                    "kernel; default: built into OUT/modules/<kernel>)")
    ap.add_argument("--out", help="output directory (default build/report; "
                    "--smoke: build/report-smoke); only the default one "
                    "also writes Documentation/lab/report-table.rst")
    ap.add_argument("--render", metavar="DIR",
                    help="only rebuild the page, plots and tables from "
                    "DIR/report.json (no guest)")
    a = ap.parse_args(argv)
    a.kernel = a.kernel or ["6.1"]
    a.steps = a.steps or (12 if a.full else 8)
    if a.steps < 2:
        ap.error("--steps must be at least 2")
    a.step_seconds = a.step_seconds or (3 if a.full else 2)
    a.repeat = a.repeat or (3 if a.full else 2)
    if a.insn_rates is None:
        a.insn_rates = 4 if a.full and not a.smoke else 2
    if a.insn_rates < 2:
        ap.error("--insn-rates must be at least 2 (a line needs two)")
    if a.insn_seconds is None:
        a.insn_seconds = 1 if a.smoke else a.step_seconds
    if a.insn_seconds < 1:
        ap.error("--insn-seconds must be at least 1")
    if a.fixed < 1000 * a.insn_rates:
        ap.error("--fixed %d is too low for %d instruction rates (at least "
                 "1,000 pps apart)" % (a.fixed, a.insn_rates))
    a.out = os.path.abspath(a.out or os.path.join(
        REPO, "build", "report-smoke" if a.smoke else "report"))
    # Documentation/ gets the table of the default output only: a run
    # into another --out (a trial, a test) leaves it alone
    a.doc = DOC_TABLE if (not a.smoke and not a.render and a.out ==
                          os.path.join(REPO, "build", "report")) else None
    return a


def main(argv=None):
    a = parse_args(argv)
    # SIGTERM unwinds: the router run in progress is stopped with its guest
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if importlib.util.find_spec("matplotlib") is None:   # the plots
        sys.exit("report: this Python (%s) has no matplotlib: run it with "
                 "/usr/bin/python3 after tools/lab/setup.sh (Debian's "
                 "python3-matplotlib), as make report does" % sys.executable)
    if a.render:
        a.out = os.path.abspath(a.render)
        with open(os.path.join(a.out, "report.json")) as f:
            data = json.load(f)
        data["configs"] = summarize(data["runs"], data["meta"]["fixed_pps"])
        data["bars"] = bars(data["configs"])
        data["meta"]["summary"] = summary_line(data)
        if (a.out == os.path.join(REPO, "build", "report") and
                data["meta"]["mode"] != "smoke"):
            a.doc = DOC_TABLE
        pngs = render(a, data)
        print("report: rendered %s (%s)" % (a.out, ", ".join(pngs)))
        return 0
    os.makedirs(os.path.join(a.out, "logs"), exist_ok=True)
    runs = plan(a)
    total = sum(len(r[3]) * r[5] for r in runs)
    mode = "smoke" if a.smoke else "full" if a.full else "default"
    progress("report (%s): kernels %s; %d guest runs, up to %d steps; "
             "out %s; %s" % (mode, " ".join(a.kernel), len(runs), total,
                             a.out, EMU))
    q = subprocess.run([os.path.join(LAB, "qemu", "build.sh")],
                       stdout=subprocess.PIPE, text=True)
    if q.returncode:
        sys.exit("report: tools/lab/qemu/build.sh failed")
    qemu = q.stdout.splitlines()[-1]
    counter = [0]
    done = []
    for k in a.kernel:
        mods = modules_for(a, k)
        for run in runs:
            if run[1] != k:
                continue
            r = run_router(a, run, qemu, mods, counter)
            r["meta"], r["health"], rows = read_steps(r["dir"])
            r["rows"] = [slim(x) for x in rows]
            done.append(r)
    configs = summarize(done, a.fixed)
    elapsed = time.time() - T0
    data = {
        "meta": {
            "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
            "host": "%s, Linux %s" % (os.uname().nodename, os.uname().release),
            "cpus": os.cpu_count(),
            "load": open("/proc/loadavg").read().split()[0],
            "mode": mode, "kernels": a.kernel,
            "kvers": sorted({r["meta"].get("kernel", r["kernel"])
                             for r in done}),
            "steps": a.steps, "step_seconds": a.step_seconds,
            "fixed_pps": a.fixed, "flows": 99328, "loss_pct": LOSS,
            "elapsed_s": round(elapsed), "waited_s": round(WAITED[0]),
            "elapsed": "%d min %02d s" % divmod(round(elapsed), 60),
            "waited": "%d min %02d s" % divmod(round(WAITED[0]), 60),
            "command": "tools/lab/report.py " + " ".join(
                shlex.quote(x) for x in (argv or sys.argv[1:])),
            "json": "build/report/report.json",
            "emulated": EMU,
        },
        "runs": [{k: v for k, v in r.items() if k != "command"}
                 for r in done],
        "configs": [{k: v for k, v in c.items()} for c in configs],
    }
    for r in data["runs"]:
        r["dir"] = os.path.relpath(r["dir"], a.out)
        r["log"] = os.path.relpath(r["log"], a.out)
    data["bars"] = bars(configs)
    data["meta"]["summary"] = summary_line(data)
    pngs = render(a, data)
    failed = [r for r in done if r["rc"]]
    nbars = sum(1 for _, ok in data["bars"] if ok is not None)
    met = sum(1 for _, ok in data["bars"] if ok)
    progress("wrote %s/index.html, %s, report.json, report-table.rst%s"
             % (a.out, ", ".join(pngs),
                " and " + os.path.relpath(a.doc, REPO) if a.doc else ""))
    print("report: %s; %d/%d runs ok, %d steps, bars met %d/%d%s; %s (%s "
          "waiting for the lock); %s/index.html" % (
              data["meta"]["summary"], len(done) - len(failed), len(done),
              counter[0], met, nbars,
              " (%d not judged)" % (len(data["bars"]) - nbars)
              if len(data["bars"]) > nbars else "", data["meta"]["elapsed"],
              data["meta"]["waited"], a.out))
    return 1 if failed or not configs else 0


if __name__ == "__main__":
    sys.exit(main())
