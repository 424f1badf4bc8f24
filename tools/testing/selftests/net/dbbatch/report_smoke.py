#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report_smoke.py [--kernel K] [--modules DIR] [--out DIR] [--no-run]:
make report's smoke test (make check).  Runs `tools/lab/report.py --smoke`
(upstream igc and igc_batch batched, stack forwarding, two 1 s steps on
the lab's TCG, two instruction-count steps with the per-function
profile, one step both ways at once, one of mixed sizes, and two
instruction-count steps behind a stateful firewall) and checks what it
wrote: index.html references every plot and each plot it references is
there, a PNG that decodes (chunks, CRCs, the whole image inflates to
height x rows) of some size; report.json has both configurations with a
ramp, two instruction counts, the line through them and a profile
that adds up to the count and names the driver's functions;
report-table.rst has a row per
configuration and well-formed grid tables; every page and plot says
EMULATED.  Then a second smoke run stopped with SIGTERM once its guest is
up must exit and leave no router.py or QEMU behind.  --no-run checks an
existing OUT.  TAP on stdout.

Python 3 stdlib (report.py itself needs matplotlib)."""

import argparse
import html
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import zlib

from lablib import LAB  # noqa: E402  (tools/lab/ on the path)
import insnprof  # noqa: E402
import pcie  # noqa: E402
import report  # noqa: E402
import tap  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 70, "kernels": "first", "label": "report smoke",
              "minutes": 4,
              "python": "system",
              "env": {"DBB_GUEST_LOCK": "", "DBB_BUILD_LOCK": ""},
              "args": ["--modules", "{mods}", "--out",
                       "{repo}/build/report-smoke"]}]

REPO = os.path.dirname(os.path.dirname(LAB))
CONFIGS = ("igc", "igc_batch batched")
BOTH = ("igc both", "igc_batch batched both")
CT = ("igc ct2k", "igc_batch batched ct2k")
IMIX = ("igc imix", "igc_batch batched imix")
IMIX_MEAN = 357.8       # bytes a datagram (the frame less its FCS)
CT_FLOWS = 1024
MIN_PNG = 15000         # bytes: a plot with axes, lines and text


def png_info(path):
    """(width, height) of a PNG that decodes, or raise ValueError."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, ihdr, end = 8, b"", None, False
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if len(body) != n or zlib.crc32(kind + body) != crc:
            raise ValueError("chunk %r truncated or bad CRC" % kind)
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            end = True
            break
        pos += 12 + n
    if not ihdr or not idat or not end:
        raise ValueError("missing IHDR, IDAT or IEND")
    w, h, depth, ctype = ihdr[:4]
    chans = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    row = 1 + (w * chans * depth + 7) // 8
    raw = zlib.decompress(idat)
    if len(raw) != row * h:
        raise ValueError("image data %d bytes, want %d" % (len(raw), row * h))
    return w, h


def grid_tables(text):
    """Blocks of consecutive lines starting with + or | (RST grid
    tables)."""
    blocks, cur = [], []
    for line in text.splitlines():
        if line.startswith(("+", "|")):
            cur.append(line)
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


def stopped(t, a, cmd):
    """report.py CMD stopped with SIGTERM once its first guest is up: it
    exits, and no process of its run (router.py, QEMU: their command
    lines name the output directory) outlives it."""
    out = os.path.abspath(a.out) + "-sigterm"
    p = subprocess.Popen(cmd + ["--out", out], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    up = None
    deadline = time.time() + 300
    for line in p.stdout:
        if " guest up in " in line:
            up = line.strip()
            break
        if time.time() > deadline:
            break
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=180)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    time.sleep(1)
    left = subprocess.run(["pgrep", "-af", out], stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    t.check("report.py stopped (SIGTERM) with a guest up exits and leaves "
            "no router.py or QEMU running",
            up is not None and rc == 143 and not left,
            "guest: %s; exit %s; still running: %s" % (up, rc, left or "-"))
    for pid in left.split("\n") if left else []:
        subprocess.run(["kill", "-9", pid.split()[0]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", default="6.1")
    ap.add_argument("--modules", help="our *.ko (report.py --modules)")
    ap.add_argument("--out", default=os.path.join(REPO, "build",
                                                  "report-smoke"))
    ap.add_argument("--no-run", action="store_true",
                    help="check OUT as it is")
    a = ap.parse_args()
    t = tap.Tap(diag_tail=15, diag_on_pass=False)
    out = a.out
    if not a.no_run:
        base = ["/usr/bin/python3", os.path.join(LAB, "report.py"),
                "--smoke", "--kernel", a.kernel]
        if a.modules:
            base += ["--modules", a.modules]
        cmd = base + ["--out", out]
        t0 = time.time()
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        print("# " + " ".join(cmd))
        for line in p.stdout.splitlines():
            print("#   " + line)
        last = (p.stdout.strip().splitlines() or [""])[-1]
        t.check("report.py --smoke exits 0 and ends with its one-line "
                "summary", p.returncode == 0 and last.startswith("report: "),
                "exit %d after %.0f s; last line %r" % (
                    p.returncode, time.time() - t0, last))
        t.check("a progress line per step (2 ramp + 2 insn steps per "
                "configuration, 1 step per configuration both ways, 1 with "
                "mixed sizes and 2 with conntrack)",
                len(re.findall(r"^\[\d\d:\d\d\] .* (stack) \S+: fwd ",
                               p.stdout, re.M)) == 4 * len(CONFIGS) +
                len(BOTH) + 2 * len(CT) + len(IMIX), p.stdout)

    # the page
    try:
        page = open(os.path.join(out, "index.html")).read()
    except OSError as e:
        page = ""
        t.check("index.html written", False, e)
    else:
        t.check("index.html written",
                len(page) > 3000 and page.rstrip().endswith("</html>"),
                "%d bytes" % len(page))
    t.check("the page says EMULATED (QEMU TCG)",
            "EMULATED (QEMU TCG)" in page)
    t.check("the page has the cross-OS table with FreeBSD's 0.96 / 2.57 / "
            "3.58 Mpps", all(x in page for x in
                             ("<td>0.96</td>", "<td>2.57</td>",
                              "<td>3.58</td>")))
    t.check("the page's cross-OS table has FreeBSD's both-ways 5.41 Mpps "
            "beside igc_batch batched both ways",
            re.search(r"<td>Batched, both ways</td><td>5.41</td>.*?"
                      r"<td>6\.[0-9]+, batched both</td>", page) is not None)
    t.check("the page has the table of register accesses per packet by "
            "kind", 'class="mmio"' in page and "interrupt registers/pkt" in
            page)
    t.check("the page has the MODELED PCIe and cycles tables, with the "
            "assumptions", 'class="pcie"' in page and 'class="cycles"' in
            page and html.escape(pcie.ASSUMPTIONS[0]) in page)
    t.check("the page has the latency table: each configuration at the "
            "lowest rate and saturated", 'class="latency"' in page and
            all(re.search(r"<td>%s</td><td>stack</td><td>[\d,]+ / " %
                          re.escape(lab), page) for lab in CONFIGS), "")
    t.check("the page has the table of instructions against interrupts "
            "and the per-function profile of both configurations",
            'class="insn"' in page and 'class="profile"' in page and
            all("%s (insn/pkt)" % lab in page for lab in CONFIGS))
    refs = re.findall(r'<img src="([^"]+\.png)"', page)
    files = sorted(f for f in os.listdir(out) if f.endswith(".png")) \
        if os.path.isdir(out) else []
    k = a.kernel
    want = ["load-%s.png" % k, "doorbells-%s.png" % k, "insn-%s.png" % k,
            "pcie-%s.png" % k]
    t.check("the page shows its plots: forwarded vs offered, doorbells, "
            "instructions and modeled cycles, the modeled PCIe ceiling",
            all(w in refs for w in want), "img: %s" % refs)
    t.check("every PNG written is on the page, and only those",
            sorted(set(refs)) == files, "img: %s; files: %s" % (refs, files))
    for ref in refs:
        path = os.path.join(out, ref)
        try:
            w, h = png_info(path)
            size = os.path.getsize(path)
        except (OSError, ValueError, zlib.error, KeyError,
                struct.error) as e:
            t.check("%s decodes" % ref, False, e)
            continue
        t.check("%s decodes, at least 500x350 and more than %d KB" % (
            ref, MIN_PNG // 1024), w >= 500 and h >= 350 and size > MIN_PNG,
            "%dx%d, %d KB" % (w, h, size // 1024))
        if ref.startswith(("insn-", "pcie-")):
            # bar charts wrap into rows: the page (1,400 px) shows them
            # at full size, labels readable
            t.check("%s no wider than the page (1,400 px)" % ref,
                    w <= 1400, "%dx%d" % (w, h))

    # the data
    try:
        data = json.load(open(os.path.join(out, "report.json")))
        confs = data["configs"]
    except (OSError, ValueError, KeyError) as e:
        confs, data = [], {}
        t.check("report.json parses", False, e)
    by = {c["config"]: c for c in confs if c["mode"] == "stack"}
    for lab in CONFIGS:
        c = by.get(lab, {})
        ramp = c.get("ramp") or []
        t.check("report.json: %s has a ramp of 2 steps that forwarded" % lab,
                len(ramp) == 2 and ramp[0]["forwarded"] > 0.5 *
                ramp[0]["sent"] and all(r.get("tdt_per_fwd") is not None
                                        for r in ramp),
                "first step forwarded %s of %s frames" % (
                    ramp[0]["forwarded"] if ramp else "-",
                    ramp[0]["sent"] if ramp else "-"))
        t.check("report.json: %s has its instruction count per packet" % lab,
                (c.get("insn_per_pkt") or 0) > 100,
                "%s instructions per packet" % c.get("insn_per_pkt"))
        low, fix = c.get("insn_low") or {}, c.get("insn_step") or {}
        line = c.get("insn_fit")
        # the report's line is the one fitted to these two steps (none
        # where insnprof.fit() refuses them), through both of them
        want = insnprof.fit([low, fix], report.LOSS) if low else None
        through = line and line["points"] == 2 and all(
            abs(line["per_pkt"] + line["per_irq"] * r["irqs_per_fwd"] -
                r["insn_per_fwd"]) < 1 for r in (low, fix))
        t.check("report.json: %s has both instruction steps (half the "
                "fixed rate, then the fixed rate) and the line through "
                "them where their interrupts differ" % lab,
                low.get("target_pps") and fix.get("target_pps") ==
                2 * low["target_pps"] and (low.get("insn_per_fwd") or 0) >
                100 and (through if want else line is None),
                "low %s; fixed %s; line %s" % (
                    {k: low.get(k) for k in ("target_pps", "insn_per_fwd",
                                             "irqs_per_fwd")},
                    {k: fix.get(k) for k in ("target_pps", "insn_per_fwd",
                                             "irqs_per_fwd")}, line))
        # dbb-igc's receive interrupts (the ones the bar matches): some,
        # and no more than all of them
        t.check("report.json: %s's instruction steps count the model's "
                "receive interrupts per packet, more than none and at most "
                "all interrupts" % lab,
                all(r.get("rx_irqs_per_fwd") is not None and
                    0 < r["rx_irqs_per_fwd"] <= r["irqs_per_fwd"]
                    for r in (low, fix) if r),
                "%s" % [(r.get("irqs_per_fwd"), r.get("rx_irqs_per_fwd"))
                        for r in (low, fix)])
        prof = fix.get("profile") or []
        mod = {"igc": "[igc]", "igc_batch batched": "[igc_batch]"}[lab]
        total = sum(x[1] for x in prof)
        unknown = sum(x[1] for x in prof if x[0] == "[unknown]")
        # the kernel's functions, and nothing runs in user space then;
        # the core kernel's named (ip_forward) as well as the module's
        t.check("report.json: %s's profile at the fixed rate adds up to "
                "its instruction count within 2 %%, names the kernel's and "
                "the driver's own functions, leaves under 2 %% unnamed" % lab,
                prof and abs(total - (fix.get("insn_per_fwd") or 0)) <=
                0.02 * (fix.get("insn_per_fwd") or 0) and
                any(x[0].endswith(mod) for x in prof[:-1]) and
                any(x[0] == "ip_forward" for x in prof) and
                unknown < 0.02 * total,
                "sum %.0f vs %s; %s" % (total, fix.get("insn_per_fwd"),
                                         prof[:8]))
        m = c.get("insn_mmio_per_pkt") or {}
        t.check("report.json: %s has its register accesses per packet by "
                "kind from the model: TX tail, RX tail, interrupt "
                "registers, other writes, reads" % lab,
                (m.get("tx_tail") or 0) > 0 and (m.get("rx_tail") or 0) > 0
                and (m.get("irq") or 0) > 0 and all(
                    m.get(k) is not None for k in ("other", "reads")), m)
        for key, step in (("pcie_fixed", "the fixed rate"),
                          ("pcie_over", "the highest rate offered")):
            p = c.get(key) or {}
            t.check("report.json: %s has its MODELED PCIe load at %s: bytes "
                    "on both ports' links both ways, a ceiling from the "
                    "busiest" % (lab, step),
                    all(p.get(x, {}).get(y, [0, 0])[1] > 0
                        for x in ("A", "B") for y in ("up", "down")) and
                    0.5 < (p.get("ceiling_mpps") or 0) < 20, p)
    for lab in BOTH:
        c = by.get(lab, {})
        ramp = c.get("ramp") or []
        r = ramp[0] if ramp else {}
        ways = r.get("ways") or []
        # each way delivered, and the model's frames out of both ports
        # are what the two sinks counted
        t.check("report.json: %s: one step both ways, each way forwarded, "
                "the models sent what the sinks got, doorbells per packet "
                "over both ports" % lab,
                len(ramp) == 1 and r.get("both_ways") is True and
                len(ways) == 2 and all(w["received"] > 0.5 * (w["sent"] or 1e9)
                                       for w in ways) and
                r["forwarded"] == sum(w["received"] for w in ways) and
                0 <= (r.get("tx_frames") or -1) - r["forwarded"] <=
                2 * 8 and   # dbb-gen's 8 end-of-step markers each way
                r.get("tdt_per_fwd") is not None and
                r.get("tdt_writes") > 0, r)
    for lab in IMIX:
        c = by.get(lab, {})
        ramp = c.get("ramp") or []
        r = ramp[0] if ramp else {}
        pa = ((r.get("pcie_counts") or {}).get("A") or {})
        # the mix reached the router: the mean frame port A received
        t.check("report.json: %s: one step of mixed sizes that forwarded, "
                "port A's mean frame the IMIX's %.1f bytes" % (lab, IMIX_MEAN),
                len(ramp) == 1 and r.get("size") == "imix" and
                r["forwarded"] > 0.5 * r["sent"] and
                abs(pa.get("rx_frame", 0) - IMIX_MEAN) < 5,
                "forwarded %s of %s, port A's mean frame %.1f bytes; %s" % (
                    r.get("forwarded"), r.get("sent"),
                    pa.get("rx_frame", 0), r))
    for lab in CT:
        c = by.get(lab, {})
        n = c.get("insn_conntrack")
        # every flow tracked (the warm-up pass), nothing else
        t.check("report.json: %s: an instruction count per packet behind "
                "the firewall, conntrack holding the %d flows" % (
                    lab, CT_FLOWS),
                (c.get("insn_per_pkt") or 0) > 100 and n is not None and
                CT_FLOWS <= n <= CT_FLOWS + 16,
                "%s instructions per packet, %s conntrack entries" % (
                    c.get("insn_per_pkt"), n))
    ctt = page.split('class="conntrack"', 1)[-1].split("</table>", 1)[0] \
        if 'class="conntrack"' in page else ""
    t.check("the page has the stateful-firewall table with both "
            "configurations", all("<td>%s</td>" % lab in ctt for lab in CT))
    t.check("report.json: the runs exited 0 and their guests' health was "
            "recorded", data.get("runs") and all(
                r["rc"] == 0 and "tainted" in r["health"]
                for r in data["runs"]),
            [(r["name"], r["rc"]) for r in data.get("runs", [])])

    # the table
    try:
        rst = open(os.path.join(out, "report-table.rst")).read()
    except OSError as e:
        rst = ""
        t.check("report-table.rst written", False, e)
    tables = grid_tables(rst)
    t.check("report-table.rst: nine grid tables (configurations, beside "
            "FreeBSD, register accesses by kind, instructions against "
            "interrupts, the profile, latency, the firewall rows, MODELED "
            "PCIe load and cycles), every line of each as long as its "
            "first",
            len(tables) == 9 and all(
                len({len(x) for x in b}) == 1 for b in tables),
            rst)
    main_rows = [x for x in (tables[0] if tables else [])
                 if x.startswith("|")]
    for lab in CONFIGS + BOTH:
        t.check("report-table.rst: a row for %s stack" % lab,
                any(re.match(r"\| %s +\| %s +\| stack " % (
                    re.escape(k), re.escape(lab)), x) for x in main_rows))
    t.check("report-table.rst says EMULATED (QEMU TCG)",
            "EMULATED (QEMU TCG)" in rst)
    t.check("report-table.rst: the PCIe and cycles figures are labelled "
            "MODELED, with every assumption of tools/lab/pcie.py",
            "MODELED, not measured" in rst and all(
                x[:60] in " ".join(rst.split()) for x in
                pcie.ASSUMPTIONS + pcie.CYCLE_ASSUMPTIONS))
    if not a.no_run:
        doc = os.path.join(REPO, "Documentation", "lab", "report-table.rst")
        t.check("the smoke run left Documentation/lab/report-table.rst "
                "alone", not os.path.exists(doc) or
                os.path.getmtime(doc) < t0)
        stopped(t, a, base)
    t.plan()
    return t.exit_code()


if __name__ == "__main__":
    sys.exit(main())
