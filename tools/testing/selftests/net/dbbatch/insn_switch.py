#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""insn_switch.py: the lab's instruction counter switches off and on inside
one boot, and counts exactly while on.

    tools/testing/selftests/net/dbbatch/insn_switch.py [--kernel 6.1 ...]

make report runs each load ramp and its counted steps in one boot:
router.py --insn-steps loads tools/lab/plugin/dbb_insn.so switched off
(count=off: no instrumentation, the ramp runs at full speed) and switches
it on for the counted steps through its ctl socket; the plugin switches
with qemu_plugin_reset() (every vCPU stopped, the code cache flushed).
Upstream igc forwarding on dbb-igc ports, two boots:

  1. the lab's single-threaded TCG: off at boot, nothing is counted while
     thousands of frames are forwarded; on, a forwarded frame costs a
     plausible count and the per-function profile names igc's functions;
     off again, nothing; the count QEMU prints at exit equals the last
     one read (the reset dropped and restored the exit callback);
  2. multi-threaded TCG, two vCPUs: the switch made from each vCPU thread
     in turn, eight times.  QEMU 7.2 left its plugin lock held by the
     thread that made a reset (plugin_reset_destroy() took it twice), so
     a switch made from another thread hung the guest
     (tools/lab/qemu/patches/plugins-reset-unlock.diff).

KTAP on stdout; exit 0 when every check passed.
"""

import os
import re
import sys

from lablib import labvm, router  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "first", "label": "insn switch",
              "minutes": 1}]

RATE = 5000
COUNT = 5000
CFG = router.Config("igc")
# a forwarded frame runs at least this many guest instructions (about
# 2,500 in XDP, 5,000 through the stack at 20 kpps) and far fewer than
# the upper bound
PLAUSIBLE = (1000, 100000)
SWITCHES = 8


def exit_count(run_dir):
    """The "insns: N" dbb_insn.so printed at QEMU's exit, or None."""
    try:
        with open(os.path.join(run_dir, "qemu.log")) as f:
            m = re.findall(r"insns: (\d+)", f.read())
    except OSError:
        return None
    return int(m[-1]) if m else None


def single(t, short, a, qemu):
    """The lab's single-threaded TCG, forwarding."""
    out = labvm.run_dir(a.keep, short + "-single", "dbb-insnsw.")
    ra = router.options(short, configs=[CFG], qemu=qemu, rmem=a.rmem,
                        flows=router.TEST_FLOWS, insn_steps="5k",
                        profile=20, gen_args=router.TEST_GEN_ARGS, out=out)
    r = router.Router(ra, ra.configs, [])
    last = None
    with labvm.lock("DBB_GUEST_LOCK", "/tmp/dbb-guest.lock", "a guest boot"):
        with router.booted(t, r, "single-threaded"):
            r.load(CFG)
            r.mode_setup("stack")
            c0 = r.insn.read()
            row = r.step(CFG, "stack", RATE, COUNT)
            c1 = r.insn.read()
            t.check("off at boot: nothing counted while %d frames were "
                    "forwarded" % row["forwarded"],
                    c1 == c0 and row["forwarded"] > COUNT // 2 and
                    row.get("insn_per_fwd") is None,
                    "count %d -> %d, forwarded %d" % (c0, c1,
                                                      row["forwarded"]))
            r.count(True)
            row = r.step(CFG, "stack", RATE, COUNT)
            per = row.get("insn_per_fwd") or 0
            t.check("on: %d to %d instructions a forwarded frame"
                    % PLAUSIBLE, PLAUSIBLE[0] <= per <= PLAUSIBLE[1],
                    "%d (forwarded %d)" % (per, row["forwarded"]))
            prof = row.get("profile") or []
            total = sum(x[1] for x in prof)
            t.check("on: the profile adds up to the count within 2 % and "
                    "names igc's functions",
                    prof and abs(total - per) <= 0.02 * per and
                    any("igc_" in x[0] for x in prof),
                    "sum %.0f vs %d; %s" % (total, per, ", ".join(
                        x[0] for x in prof[:8])))
            r.count(False)
            c2 = r.insn.read()
            row = r.step(CFG, "stack", RATE, COUNT)
            last = r.insn.read()
            t.check("off again: nothing counted while %d frames were "
                    "forwarded" % row["forwarded"], last == c2,
                    "count %d -> %d" % (c2, last))
            r.mode_teardown("stack")
    got = exit_count(out)
    t.check("the count at QEMU's exit is the last one read",
            last is not None and got == last, "exit %s, last %s"
            % (got, last))
    return out


def multi(t, short, a, qemu):
    """Multi-threaded TCG: switch from each vCPU thread in turn."""
    out = labvm.run_dir(a.keep, short + "-multi", "dbb-insnsw.")
    ra = router.options(short, configs=[CFG], qemu=qemu, rmem=a.rmem,
                        insn_steps="5k", accel="tcg,thread=multi", smp=2,
                        out=out)
    r = router.Router(ra, ra.configs, [])
    done = 0
    with labvm.lock("DBB_GUEST_LOCK", "/tmp/dbb-guest.lock", "a guest boot"):
        with router.booted(t, r, "multi-threaded"):
            err = ""
            for i in range(SWITCHES):
                cpu = i % 2
                # the translation that makes the switch: a new process
                # on that vCPU
                r.guest("busybox taskset -c %d /bin/true\n" % cpu,
                        check=False)
                try:
                    r.count(i % 2 == 0, timeout=30, poke="busybox "
                            "taskset -c %d /bin/true\n" % cpu)
                except RuntimeError as e:
                    err = str(e)
                    break
                done += 1
            t.check("multi-threaded TCG: %d switches, each made from vCPU "
                    "0 and 1 in turn" % SWITCHES, done == SWITCHES,
                    "%d made; %s" % (done, err))
    return out


def checks(t, short, a, qemu):
    return [t.boot(lambda: single(t, short, a, qemu)),
            t.boot(lambda: multi(t, short, a, qemu))]


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep each boot's run directory in DIR")
    a = ap.parse_args()
    qemu = labvm.qemu_binary(a.qemu)
    return labvm.run_per_kernel(a, lambda t, short: checks(t, short, a, qemu))


if __name__ == "__main__":
    sys.exit(main())
