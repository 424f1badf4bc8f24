#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcg_cmpxchg.py: CMPXCHG8B/16B keep the flags they must, in the lab's QEMU.

    tools/testing/selftests/net/dbbatch/tcg_cmpxchg.py \
        [--kernel 6.1|6.12 ...] [--qemu PATH]
        [--accel A]

QEMU 7.2's TCG computed the flags around CMPXCHG8B and CMPXCHG16B from a
stale cc_op: CF, PF, AF, SF and OF came out garbled where only ZF may
change, and with a stale CC_OP_EFLAGS the whole of EFLAGS, TF included.
SLUB's this_cpu_cmpxchg16b fast path then died of a #DB and a double
fault in the lab's KASAN kernel.  The lab's QEMU carries the fix
(tools/lab/qemu/patches/tcg-i386-cmpxchg-cc-op.diff).  This test builds
tcg_cmpxchg.c static, runs it in a guest (one vCPU), and checks that CF
set right before each instruction survives it on every try; against an
unpatched QEMU 7.2 (--qemu) it fails on every try.  TAP; exit 0 when
every check passed.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
from lablib import labvm  # noqa: E402
import tap  # noqa: E402  (tools/lab/tap.py)

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each", "label": "tcg cmpxchg",
              "minutes": 0.25}]



def run(short, a, work):
    kver = labvm.kernel_release(short)
    binary = os.path.join(work, "tcg_cmpxchg")
    subprocess.run(["gcc", "-O2", "-Wall", "-static", "-o", binary,
                    os.path.join(HERE, "tcg_cmpxchg.c")], check=True)
    initrd = os.path.join(work, "initramfs.cpio.gz")
    vmlinuz = labvm.build_initramfs(kver, initrd, kmods=(),
                                    files={"/usr/bin/tcg_cmpxchg": binary})
    console = os.path.join(work, "console.log")
    cmd = labvm.qemu_cmd(a.qemu, a.accel, vmlinuz, initrd, console,
                         os.path.join(work, "qmp.sock"),
                         "lab.run=/usr/bin/tcg_cmpxchg", mem=512,
                         smp=1) + ["-nic", "none", "-serial", "file:" +
                                   os.path.join(work, "results.txt")]
    subprocess.run(cmd, timeout=300, stdout=subprocess.DEVNULL,
                   stderr=subprocess.STDOUT, check=False)
    with open(console, errors="replace") as f:
        return f.read()


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    # QEMU's TCG is what this tests (our patch in qemu/patches/)
    ap.add_argument("--accel", default=labvm.TCG_ACCEL)
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    tap.header()
    t = tap.Tap(diag_lead="#   ")
    for short in a.kernel or ["6.1", "6.12"]:
        with tempfile.TemporaryDirectory(prefix="dbb-cmpxchg.") as work:
            con = run(short, a, work)
        for insn in ("cmpxchg16b", "cmpxchg8b"):
            m = re.search(r"%s: CF lost in (\d+) of (\d+)" % insn, con)
            ok = bool(m) and m.group(1) == "0" and int(m.group(2)) > 0
            t.check("%s: %s keeps CF set by the instruction before it "
                    "(guest, %s)" % (labvm.kernel_release(short), insn,
                                     a.accel), ok,
                    m.group(0) if m else con[-1500:])
    t.plan()
    return t.exit_code()


if __name__ == "__main__":
    sys.exit(main())
