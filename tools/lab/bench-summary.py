#!/usr/bin/env python3
"""bench-summary.py OUT KERNEL...: the summary table of bench-igc.sh, from
the steps.jsonl of each router.py run in OUT/<kernel>-<run>/.

bench-summary.py --side-by-side [--rst] [--fixed 2k,20k] [--cpu-at 20k]
[--loss 1] OUT KERNEL...: the side-by-side table of bench-igc-batch.sh
(several driver configurations per boot, ratios to upstream igc of the
same boot); --rst prints only the reStructuredText table, ready to paste
into Documentation/networking/device_drivers/ethernet/intel/igc_batch.rst.

Python 3 stdlib."""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import read_steps  # noqa: E402
from traffic import rate  # noqa: E402

RUNS = ("wall", "insn", "nobql")


def load(path):
    meta, _, rows = read_steps(path)
    return meta, rows


def f(v, fmt):
    return "-" if v is None else fmt % v


def upstream_table(out, kernels):
    print("== summary: EMULATED (QEMU TCG on a shared 2-core VM); compare "
          "rows measured the same way, never with hardware figures")
    print("   max_fwd: highest forwarded rate of the ramp (offered at that "
          "step); zero_loss: highest step with < 0.1 % loss;")
    print("   @max: at the max_fwd step; @20k: at the 20 kpps step (below "
          "saturation); insn: guest instructions per forwarded frame;")
    print("   tdt/pkt per step: TDT writes of port B per frame it sent, "
          "along the ramp")
    print("%-6s %-5s %-14s %-5s %6s %8s %8s %9s %7s %7s %5s %7s %8s %8s  %s"
          % ("kernel", "run", "config", "mode", "boot_s", "max_fwd",
             "offered", "zero_loss", "tdt@max", "irq@max", "cpu%",
             "tdt@20k", "insn@20k", "insn@max", "tdt/pkt per step"))
    for k in kernels:
        for kind in RUNS:
            meta, rows = load(os.path.join(out, "%s-%s" % (k, kind)))
            keys = []
            for r in rows:
                if (r["config"], r["mode"]) not in keys:
                    keys.append((r["config"], r["mode"]))
            for cfg, mode in keys:
                rs = [r for r in rows
                      if r["config"] == cfg and r["mode"] == mode]
                best = max(rs, key=lambda r: r["fwd_pps"])
                zl = max([r["target_pps"] for r in rs
                          if r["loss_pct"] < 0.1] or [0])
                at20 = next((r for r in rs if r["target_pps"] == 20000), {})
                print("%-6s %-5s %-14s %-5s %6s %8.0f %8d %9d %7s %7s %5s "
                      "%7s %8s %8s  %s" % (
                          k, kind, cfg[:14], mode,
                          f(meta.get("boot_seconds"), "%.1f"),
                          best["fwd_pps"], best["target_pps"], zl,
                          f(best["tdt_per_fwd"], "%.3f"),
                          f(best["irqs_per_fwd"], "%.3f"),
                          f(best["cpu_busy_pct"], "%.0f"),
                          f(at20.get("tdt_per_fwd"), "%.3f"),
                          f(at20.get("insn_per_fwd"), "%d"),
                          f(best["insn_per_fwd"], "%d"),
                          " ".join("%.2f" % r["tdt_per_fwd"] for r in rs)))
            if meta.get("boot_insn"):
                print("%-6s %-5s boot: %.1f s to the guest shell "
                      "(single-threaded TCG + plugin), %.2f G guest "
                      "instructions; idle guest %.0f k instructions/s"
                      % (k, kind, meta["boot_seconds"],
                         meta["boot_insn"] / 1e9,
                         meta["idle_insn_per_s"] / 1e3))



# ---- side by side (bench-igc-batch.sh) -----------------------------------

SBS_RUNS = ("wall", "nobql", "insn")
RUN_MODE = {"wall": "%s", "insn": "%s, insn", "nobql": "%s, no BQL"}
EMULATED = ("EMULATED: QEMU TCG guest on the dbb-igc model of the I226, on a "
            "shared 2-core VM; compare rows of the same boot, never with "
            "hardware figures")
# FreeBSD on a Netgate 4200 (Intel I226, 4 queues per port, 64-byte
# frames, one direction, pf off; iflib-doorbell-post): iflib's setting
# that igc_batch's module parameters reproduce -> (Mpps, rings per
# packet).  Hardware figures, stack forwarding only.
FREEBSD = {(0, 0): ("Original", 0.96, "3"), (1, 0): ("Fix", 2.57, "1"),
           (1, 1): ("Batched", 3.58, "0.063")}


def krate(r):
    return ("%gk" % (r / 1e3)) if r >= 1000 else str(r)


def knobs(row):
    """igc_batch's (db_skip_empty, tx_db_batched) of a row, from its
    module parameters and private flags (driver defaults: 1, 1); None
    for another driver."""
    if row.get("driver") != "igc_batch":
        return None
    val = {"db_skip_empty": 1, "tx_db_batched": 1}
    text = "%s %s" % (row.get("params") or "",
                      (row.get("priv_flags") or "").replace(",", " "))
    for k, v in re.findall(r"(db_skip_empty|tx_db_batched)[= ]+(\w+)", text):
        val[k] = 0 if v in ("0", "off", "N", "n") else 1
    return val["db_skip_empty"], val["tx_db_batched"]


def ratio(v, base):
    if v is None or not base:
        return None
    return v / base


def config_stats(rs, fixed, cpu_at, loss):
    by_rate = {}
    for r in rs:
        by_rate.setdefault(r["target_pps"], r)
    ok = [r for r in rs if r["loss_pct"] <= loss]
    sat = max(ok, key=lambda r: r["fwd_pps"]) if ok else None
    top = max(rs, key=lambda r: r["fwd_pps"])
    tx = sum(r.get("model", {}).get("B_tx_frames", 0) for r in rs)
    noop = sum(r.get("model", {}).get("B_tdt_noop_writes", 0) for r in rs)
    at = by_rate.get(cpu_at, {})
    return {
        "sat": sat["fwd_pps"] if sat else None,
        "sat_target": sat["target_pps"] if sat else None,
        "max": top["fwd_pps"], "max_target": top["target_pps"],
        "max_loss": top["loss_pct"],
        "tdt_fixed": [by_rate.get(x, {}).get("tdt_per_fwd") for x in fixed],
        "loss_fixed": [by_rate.get(x, {}).get("loss_pct") for x in fixed],
        "tdt_sat": sat["tdt_per_fwd"] if sat else None,
        "noop": noop / tx if tx else None,
        "cpu": at.get("cpu_busy_pct"),
        "insn": at.get("insn_per_fwd"),
        "p99": at.get("lat_p99_us"),
        "queues": rs[0].get("queues"),
        "knobs": knobs(rs[0]),
        "ramp": rs,
    }


def side_by_side(out, kernels, fixed, cpu_at, loss):
    """[(kernel, run, mode label, config, stats, baseline stats)], runs'
    meta, health."""
    table, metas = [], []
    for k in kernels:
        for run in SBS_RUNS:
            path = os.path.join(out, "%s-%s" % (k, run))
            meta, health, rows = read_steps(path)
            if not rows:
                continue
            metas.append((k, run, meta, health))
            modes = []
            for r in rows:
                if r["mode"] not in modes:
                    modes.append(r["mode"])
            for mode in modes:
                cfgs = []
                for r in rows:
                    if r["mode"] == mode and r["config"] not in cfgs:
                        cfgs.append(r["config"])
                stats = {c: config_stats([r for r in rows if r["mode"] ==
                                          mode and r["config"] == c],
                                         fixed, cpu_at, loss) for c in cfgs}
                base = next((stats[c] for c in cfgs
                             if stats[c]["ramp"][0].get("driver") == "igc"),
                            None)
                for c in cfgs:
                    table.append((k, run, RUN_MODE[run] % mode, c, stats[c],
                                  base))
    return table, metas


def fv(v, fmt):
    return "-" if v is None else fmt % v


def sbs_cells(k, mode, cfg, s, base, fixed, rst):
    x = "×" if rst else "x"
    cells = [k, mode, cfg,
             fv(s["sat"] and s["sat"] / 1e3, "%.1f"),
             fv(ratio(s["sat"], base and base["sat"]), "%.2f" + x),
             "%.1f@%s" % (s["max"] / 1e3, krate(s["max_target"]))]
    for v, lp in zip(s["tdt_fixed"], s["loss_fixed"]):
        c = fv(v, "%.3f")
        if lp is not None and lp > 1:
            c += "*"
        cells.append(c)
    cells += [fv(s["tdt_sat"], "%.3f"),
              fv(ratio(s["tdt_sat"], base and base["tdt_sat"]), "%.2f" + x),
              fv(s["noop"], "%.4f"),
              fv(s["cpu"], "%.0f"),
              fv(ratio(s["cpu"], base and base["cpu"]), "%.2f" + x)]
    if not rst:
        cells.append(fv(s["insn"], "%d"))
        cells.append(" ".join("%s:%.0f/%.1f%%/%.2f/%s" % (
            krate(r["target_pps"]), r["fwd_pps"] / 1e3, r["loss_pct"],
            r["tdt_per_fwd"] or 0, fv(r.get("cpu_busy_pct"), "%.0f"))
            for r in s["ramp"]))
    else:
        fb = FREEBSD.get(s["knobs"]) if mode.startswith("stack") else None
        if fb:
            cells += ["%s %.2f (%.1f%s)" % (fb[0], fb[1], fb[1] /
                                             FREEBSD[(0, 0)][1], x), fb[2]]
        elif mode.startswith("stack"):
            cells += ["-", "-"]
        else:
            cells += ["", ""]
    return cells


def sbs_headers(fixed, cpu_at, rst):
    x = "×" if rst else "x"
    h = ["kernel", "mode", "configuration", "sat kpps", x + "igc",
         "max@offered"]
    h += ["TDT@" + krate(r) for r in fixed]
    h += ["TDT@sat", x + "igc", "no-op", "CPU%@" + krate(cpu_at), x + "igc"]
    if rst:
        h += ["FreeBSD Mpps", "FreeBSD TDT"]
    else:
        h += ["insn@" + krate(cpu_at),
              "ramp (offered:fwd kpps/loss/TDT per pkt/CPU%)"]
    return h


def rst_table(headers, rows, title):
    w = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    rule = "   " + "  ".join("=" * n for n in w)

    def line(cells):
        return ("   " + "  ".join(str(c).ljust(n) for c, n in
                                  zip(cells, w))).rstrip()
    out = [".. table:: " + title, "", rule, line(headers), rule]
    out += [line(r) for r in rows]
    out.append(rule)
    return "\n".join(out)


def text_table(headers, rows):
    w = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    w[-1] = 0
    fmt = lambda cells: "  ".join(str(c).ljust(n) for c, n in  # noqa: E731
                                  zip(cells, w)).rstrip()
    return "\n".join([fmt(headers)] + [fmt(r) for r in rows])


def sbs_main(a):
    table, metas = side_by_side(a.out, a.kernels, a.fixed, a.cpu_at, a.loss)
    if not table:
        sys.exit("no router.py runs in %s/<kernel>-{%s}" %
                 (a.out, ",".join(SBS_RUNS)))
    rst = a.rst
    rows = [sbs_cells(k, mode, cfg, s, base, a.fixed, rst)
            for k, run, mode, cfg, s, base in table]
    headers = sbs_headers(a.fixed, a.cpu_at, rst)
    kv = []
    for k, run, meta, _ in metas:
        if meta.get("kernel") and meta["kernel"] not in kv:
            kv.append(meta["kernel"])
    date = os.path.basename(os.path.normpath(a.out))
    if rst:
        print(rst_table(headers, rows, "EMULATED (QEMU TCG, dbb-igc model, "
                        "shared 2-core VM), %s, %s" % (", ".join(kv), date)))
        return
    print("== side by side: " + EMULATED)
    print("   %s; kernels %s" % (a.out, ", ".join(kv)))
    print("   sat: highest forwarded rate with loss <= %g %% (kpps); "
          "max@offered: highest forwarded rate at any loss, and the offered "
          "rate of that step;" % a.loss)
    print("   TDT@R: port B's TDT writes (model ground truth) per forwarded "
          "frame at R pps offered (* = that step lost > 1 %); no-op: no-op "
          "TDT writes per frame, whole ramp;")
    print("   CPU%%@%s: guest CPU busy (all vCPUs) at %s pps offered; "
          "xigc: ratio to upstream igc of the same boot and mode"
          % (krate(a.cpu_at), krate(a.cpu_at)))
    print(text_table(headers, rows))
    for k, run, meta, health in metas:
        bits = ["boot %s s" % meta.get("boot_seconds")]
        if health:
            bits.append("taint %s" % health.get("tainted"))
            bits.append("%d suspicious dmesg lines" %
                        len(health.get("dmesg_bad") or []))
        else:
            bits.append("no health record (run incomplete?)")
        print("# %s %s: %s" % (k, run, ", ".join(bits)))


def main():
    if "--side-by-side" not in sys.argv[1:]:
        if len(sys.argv) < 3 or sys.argv[1].startswith("-"):
            sys.exit(__doc__)
        upstream_table(sys.argv[1], sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description="side-by-side summary")
    ap.add_argument("--side-by-side", action="store_true")
    ap.add_argument("--rst", action="store_true",
                    help="the reStructuredText table only")
    ap.add_argument("--fixed", default="2k,20k",
                    type=lambda v: [rate(x) for x in v.split(",")],
                    help="offered rates of the TDT@R columns (2k,20k)")
    ap.add_argument("--cpu-at", type=rate, default=20000,
                    help="offered rate of the CPU column (20k)")
    ap.add_argument("--loss", type=float, default=1.0,
                    help="saturation: highest rate with loss <= this %%")
    ap.add_argument("out")
    ap.add_argument("kernels", nargs="+")
    sbs_main(ap.parse_args())


if __name__ == "__main__":
    main()
