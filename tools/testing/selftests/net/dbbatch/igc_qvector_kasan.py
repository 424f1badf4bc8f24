#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""igc_qvector_kasan.py: the upstream igc heap overflow the kernel's
drivers/net selftests run into (Documentation/lab/kernel-drivers-net.rst),
shown by KASAN: Debian's unmodified igc on two dbb-igc ports of a 2-vCPU
guest of the lab's debug kernel, "ethtool -L DEV combined 4", then
"ip link set DEV up".

    tools/testing/selftests/net/dbbatch/igc_qvector_kasan.py \
        [--kernel 6.12-debug] [--keep DIR]

One check: KASAN reports an out-of-bounds access in igc_alloc_q_vector()
(the memset of a 2-ring q_vector over a 1-ring object) at the ethtool -L.
The KASAN report is printed.  A reproducer of a bug in upstream igc, kept
to show it to upstream and to see when a kernel fixes it; not in make
check.  Exit 0 when the check passed (the bug is there).
"""

import re
import sys

from lablib import labvm, router  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = []  # a reproducer of upstream igc's overflow, run by hand


IGC = router.Config("igc")
REPRO = """
A=%(a)s
dmesg -C
ethtool -L $A combined 4; echo "@@RC_L $?"
ip link set $A up; echo "@@RC_UP $?"
sleep 2
dmesg
"""


def boot(t, short, a):
    out = labvm.run_dir(a.keep, short, "dbb-igc-kasan.")
    ra = router.options(short, configs=[IGC], qemu=a.qemu, smp=2, out=out)
    r = router.Router(ra, [IGC], router.our_modules(ra, [IGC]))
    with router.booted(t, r, "igc on the debug kernel"):
        r.load(IGC)
        rc, log = r.guest(REPRO % {"a": r.ifa}, check=False, timeout=600)
        kasan = re.search(r"BUG: KASAN: ([\w-]+) in ([\w.]+)", log)
        t.check("KASAN reports upstream igc's q_vector overflow "
                "(igc_alloc_q_vector) at ethtool -L combined 4",
                kasan and kasan.group(2).startswith("igc_alloc_q_vector"),
                report(log))


def report(log):
    """The exit codes and the KASAN report's telling lines."""
    lines = log.splitlines()
    keep = [x for x in lines if "@@RC" in x]
    at = next((i for i, x in enumerate(lines) if "BUG: KASAN" in x), None)
    if at is not None:
        keep += [x for x in lines[at:at + 80] if re.search(
            r"KASAN|Write of|Read of|igc_|Allocated by|buggy address|"
            r"-byte region", x)]
    return "\n".join(keep)


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the run directory in DIR")
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    if not a.kernel:
        a.kernel = ["6.12-debug"]
    return labvm.run_per_kernel(a, lambda t, short: [
        t.boot(lambda: boot(t, short, a))])


if __name__ == "__main__":
    sys.exit(main())
