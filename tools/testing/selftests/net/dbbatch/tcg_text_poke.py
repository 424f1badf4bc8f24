#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcg_text_poke.py: kernel text patching under traffic, the lab's int3.

    tools/testing/selftests/net/dbbatch/tcg_text_poke.py \
        [--kernel 6.1|6.12 ...]
        [--accel tcg|tcg,thread=multi|tcg,thread=single] [--seconds S]

The guest toggles a tracepoint that sits on the receive path (the kernel
rewrites its jump label through an int3 breakpoint each time: x86's
text_poke_bp) as fast as it can, while the other vCPU runs that very
code, forwarding the lab generator's traffic (upstream igc, the stack).
On QEMU 7.2's multi-threaded TCG a vCPU can go on executing a
translation of the page made from the bytes mid-patch, and the guest
dies of "Oops: int3" at the patched site (fixed upstream in QEMU 8.1,
"accel/tcg: Always lock pages before translation" and its series).

One boot per kernel; TAP.  The check passes when the guest survives
--seconds of toggling with traffic flowing, so it fails with the race
and passes where the lab avoids it (labvm.DEFAULT_ACCEL).
"""

import re
import sys
import time

from lablib import labvm, router  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each", "label": "tcg text poke",
              "minutes": 1,
              "args": ["--seconds", "30"]}]


TOGGLE = r"""
T=/sys/kernel/tracing
grep -qs " $T " /proc/mounts || mount -t tracefs nodev $T || exit 20
E=$T/events/net/netif_receive_skb/enable
[ -w $E ] || exit 21
end=$(($(cut -d. -f1 /proc/uptime) + %d)); n=0
while [ $(cut -d. -f1 /proc/uptime) -lt $end ]; do
	echo 1 >$E; echo 0 >$E; n=$((n + 2))
done
echo "@@TOGGLES $n"
"""


def checks(t, short, a):
    out = labvm.run_dir(a.keep, short, "dbb-textpoke.")
    ra = router.options(short, qemu=a.qemu, smp=2, out=out, rmem=a.rmem,
                        accel=a.accel, rings=0, flows=router.TEST_FLOWS,
                        gen_args=router.TEST_GEN_ARGS)
    r = router.Router(ra, ra.configs)
    with router.booted(t, r):
        r.load(ra.configs[0])
        r.mode_setup("stack")
        start = time.time()
        gen = r.gen_background(20000, 20000 * (a.seconds + 30))
        try:
            rc, o = r.guest(TOGGLE % a.seconds, timeout=a.seconds * 4 + 60,
                            check=False)
        except Exception as e:      # the guest died under us
            rc, o = -1, "%s: %s" % (type(e).__name__, e)
        finally:
            gen.kill()
            gen.wait()
        with open(r.console, errors="replace") as f:
            con = f.read()
        oops = re.search(r"Oops: int3.*", con)
        m = re.search(r"@@TOGGLES (\d+)", o)
        t.check("%s: a receive-path tracepoint toggled for %d s under "
                "20 kpps of forwarding: no int3 Oops" % (a.accel, a.seconds),
                rc == 0 and m and not oops,
                "%s toggles in %.0f s; %s\n%s" % (
                    m.group(1) if m else "?", time.time() - start,
                    oops.group(0) if oops else "no Oops on the console",
                    o[-500:]))
    return ra.out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--accel", default=labvm.DEFAULT_ACCEL)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--keep", help="keep each kernel's run directory")
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    return labvm.run_per_kernel(a, lambda t, short: [checks(t, short, a)])


if __name__ == "__main__":
    sys.exit(main())
