#!/usr/bin/env python3
"""bench-summary.py OUT KERNEL...: the summary table of bench-igc.sh, from
the steps.jsonl of each router.py run in OUT/<kernel>-<run>/."""

import json
import os
import sys

RUNS = ("wall", "insn", "nobql")


def load(path):
    rows, meta = [], {}
    try:
        with open(os.path.join(path, "steps.jsonl")) as f:
            for line in f:
                o = json.loads(line)
                if o.get("type") == "boot":
                    meta = o
                elif "mode" in o:
                    rows.append(o)
    except OSError:
        pass
    return meta, rows


def f(v, fmt):
    return "-" if v is None else fmt % v


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
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


if __name__ == "__main__":
    main()
