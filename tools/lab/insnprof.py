# SPDX-License-Identifier: GPL-2.0
"""insnprof.py: guest kernel instructions per function, from the
dbb_insn.so plugin's per-block counts (prof=PATH) and the guest's own
/proc/kallsyms.  Pure: no lab dependency (tests/test_insnprof.py).

A read of the plugin's profile socket gives "pc count" lines: the
instructions each translation block at a kernel address has run since
boot.  The difference of two reads is what ran between them; each block
is charged to the function its first instruction is in (a block ends at
a branch or a call, so it rarely spans two).

Addresses come from the same boot's /proc/kallsyms: Debian's System.map
is a placeholder, KASLR moves the kernel every boot, and a module lands
at a new address every time it is loaded, so router.py reads the modules'
symbols after every step.  The core kernel's table is long (reading it
through the guest's serial shell takes about 15 s under TCG) but
KASLR only slides it whole: it is read once per kernel image and kept,
and each boot reads two anchors (_stext, _etext) to slide it
(shift()).
"""

import bisect
import socket

ANCHORS = ("_stext", "_etext")

UNKNOWN = "[unknown]"


def read_socket(path, timeout=60):
    """One read of the plugin's profile socket: {pc: instructions}."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    chunks = []
    try:
        while True:
            d = s.recv(1 << 16)
            if not d:
                break
            chunks.append(d)
    finally:
        s.close()
    return parse(b"".join(chunks).decode())


def parse(text):
    """The plugin's "pc count" lines -> {pc: instructions}; the dump must
    end with its "end" line (a dump cut short is an error, not a
    smaller profile)."""
    out = {}
    ended = False
    for line in text.splitlines():
        if line == "end":
            ended = True
            break
        pc, n = line.split()
        pc = int(pc, 16)
        out[pc] = out.get(pc, 0) + int(n)
    if not ended:
        raise ValueError("profile dump without its end line")
    return out


def diff(before, after):
    """What ran between two reads: {pc: instructions} > 0."""
    return {pc: n - before.get(pc, 0) for pc, n in after.items()
            if n > before.get(pc, 0)}


def parse_kallsyms(text):
    """/proc/kallsyms lines -> sorted [(address, name)] of text symbols
    (t, T, and W: weak functions); a module's is "name [module]".  Lines
    that are not "address type name [module]" are skipped (a console's
    noise)."""
    syms = []
    for line in text.splitlines():
        f = line.strip().split()
        if len(f) < 3 or f[1] not in ("t", "T", "W"):
            continue
        try:
            addr = int(f[0], 16)
        except ValueError:
            continue
        if not addr:
            continue        # kptr_restrict: addresses hidden
        name = f[2] if len(f) == 3 else "%s %s" % (f[2], f[3])
        syms.append((addr, name))
    syms.sort()
    return syms


def anchors(syms):
    """{name: address} of the ANCHORS in SYMS."""
    return {n: a for a, n in syms if n in ANCHORS}


def shift(syms, kept, now):
    """A kept core table SYMS, whose ANCHORS were at KEPT, slid to a boot
    whose anchors are at NOW; None unless every anchor slid by the same
    amount (another image, or a layout KASLR does not explain)."""
    if set(kept) != set(ANCHORS) or set(now) != set(ANCHORS):
        return None
    d = {now[n] - kept[n] for n in ANCHORS}
    if len(d) != 1:
        return None
    off = d.pop()
    return [(a + off, n) for a, n in syms]


class Symbols:
    """Address -> the text symbol at or below it."""

    def __init__(self, syms):
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else UNKNOWN


def by_function(counts, syms):
    """{pc: instructions} -> {function: instructions}."""
    s = Symbols(syms)
    out = {}
    for pc, n in counts.items():
        f = s.name(pc)
        out[f] = out.get(f, 0) + n
    return out


def top(funcs, per, n=30):
    """The N functions that ran most, as [[name, instructions per PER]]
    (PER: forwarded packets), then one "[rest]" line for the others."""
    if not per:
        return []
    ranked = sorted(funcs.items(), key=lambda x: (-x[1], x[0]))
    rows = [[f, round(c / per, 1)] for f, c in ranked[:n]]
    rest = sum(c for _, c in ranked[n:])
    if rest:
        rows.append(["[rest]", round(rest / per, 1)])
    return rows


# ---- instructions against interrupts ----------------------------------------
#
# Below saturation a forwarded packet costs the work done on it plus its
# share of the interrupts that woke the poll for it.  Both drivers program
# the same interval for 64-byte frames (EITR 50 us), yet how many
# interrupts an emulated run takes per packet depends on how the
# generator's bursts meet the guest's timing: the same driver took 0.27
# and 0.66 at the same rate in two boots.  Fixed rates of one boot give
# each configuration a line, instructions = per_pkt + per_irq x interrupts
# per packet, on which a row is read in its baseline's timing.  A
# MODEL: linear in interrupts, fitted by least squares through every
# lossless rate (through two, a step's noise is the line's slope).

MIN_IRQ_SPREAD = 0.1    # interrupts per packet between the lowest and highest


def fit(steps, max_loss):
    """{"per_pkt", "per_irq", "irqs": (lowest, highest), "points", "rms"}:
    the least-squares line through STEPS' (insn_per_fwd, irqs_per_fwd),
    leaving out a step that lost more than MAX_LOSS per cent (saturated:
    a packet's cost is no longer work plus interrupts) or has no counts;
    None with fewer than two steps left, their interrupt rates too close
    to tell the two terms apart, or a line that makes no sense (an
    interrupt or a packet that costs nothing).  RMS: the steps' distance
    from the line, instructions per packet."""
    pts = [(s["irqs_per_fwd"], s["insn_per_fwd"]) for s in steps or ()
           if s and s.get("insn_per_fwd") is not None and
           s.get("irqs_per_fwd") is not None and
           s.get("loss_pct", 0) <= max_loss]
    if len(pts) < 2:
        return None
    qs = [q for q, _ in pts]
    if max(qs) - min(qs) < MIN_IRQ_SPREAD:
        return None
    n = len(pts)
    mq = sum(qs) / n
    mi = sum(i for _, i in pts) / n
    per_irq = sum((q - mq) * (i - mi) for q, i in pts) / \
        sum((q - mq) ** 2 for q in qs)
    per_pkt = mi - per_irq * mq
    if per_irq <= 0 or per_pkt <= 0:
        return None
    rms = (sum((i - per_pkt - per_irq * q) ** 2 for q, i in pts) / n) ** .5
    return {"per_pkt": per_pkt, "per_irq": per_irq,
            "irqs": (min(qs), max(qs)), "points": n, "rms": rms}


def at_irqs(line, irqs):
    """Instructions per packet on LINE (fit()) at IRQS interrupts per
    packet, or None."""
    if not line or irqs is None:
        return None
    return line["per_pkt"] + line["per_irq"] * irqs


def matched_irqs(own, base):
    """Where to read OWN's line against BASE, a step of another driver at
    the same rate: BASE's receive interrupts per packet (how many polls a
    run takes is the emulated timing's) times OWN's interrupts per receive
    interrupt (the transmit completions each poll's doorbells bring: one
    per doorbell that finds its vector unmasked, so fewer doorbells a
    poll, fewer of them, and that saving is the driver's).  BASE's total
    where a step does not count receive interrupts or OWN took none;
    None without both totals."""
    if not own or not base:
        return None
    q, bq = own.get("irqs_per_fwd"), base.get("irqs_per_fwd")
    rx, brx = own.get("rx_irqs_per_fwd"), base.get("rx_irqs_per_fwd")
    if q is None or bq is None:
        return None
    if not rx or brx is None:
        return bq
    return brx * q / rx


def extrapolated(line, irqs):
    """Is IRQS further outside the interrupts of LINE's steps than they
    spread?  (Read there, the line is a guess.)"""
    lo, hi = line["irqs"]
    return irqs < lo - (hi - lo) or irqs > hi + (hi - lo)
