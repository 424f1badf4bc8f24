#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""octeon_ep_conformance.py: the unmodified upstream octeon_ep on dbb-octep.

    tools/testing/selftests/net/dbbatch/octeon_ep_conformance.py \
        [--kernel 6.1|6.12 ...]
        [--keep DIR] [--qemu PATH]

Upstream octeon_ep (Debian does not ship it: tools/lab/build-octeon-ep.sh
builds it from the kernel's own Debian source) is the conformance test of
our Octeon SDP model, as igc is dbb-igc's.  Two boots per kernel of the
lab router (tools/lab/router.py) with two dbb-octep ports:

Router boot (dbb-gen -> A -> the guest's stack -> B -> dbb-sink), both
ports at watermark 0x100, the stock firmware's, where upstream works:
  probe (MAC and MTU from the firmware), carrier, forwarding with model ==
  generator == sink, the credit returned in refills of 256, MTU change
  through the firmware and jumbo frames over several buffers, link flap;
  then the seed's stall: the firmware's watermark raised to 0x400 (a
  run-time qom-set) and the port reopened, upstream's single grant of
  1,024 buys one fetch of 16 frames and never another; heartbeat loss
  (6.12); rmmod.
Loop boot (A wired to B, B in a network namespace): ping, TCP and UDP
  both ways with iperf3, jumbo ping; what one port sent, the other received.
Mixed boot: port A dbb-igc (upstream igc), port B dbb-octep: forwarding
  through the stack from one to the other (octep_fix's benchmark topology).

No vIOMMU: laps and frames overwritten unread are asserted 0 from the
model's counters instead (upstream never grants more than its ring).

KTAP on stdout; exit 0 when every check passed.
"""

import os
import re
import sys
import time

from lablib import labvm, router  # noqa: E402

from octep import (DEV_REMOVE, FETCH, GET_INFO, MAC, MTU,  # noqa: E402
                   clean, counts_agree, counts_text, fw, loop_boot, no_laps,
                   offered, reopen, router_opts)

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each",
              "label": "octeon_ep conformance", "minutes": 2}]


CONFIG = router.Config("octeon_ep")
RING = 1024             # upstream's output ring (OCTEP_OQ_MAX_DESCRIPTORS)
REFILL = 256            # ... and its refill threshold (OCTEP_OQ_REFILL...)


# ---- the router boot ---------------------------------------------------

def probe_checks(t, r, short, load_out):
    tr = r.truth()
    rc, out = r.guest("""
for d in %s %s; do
	echo "@@DRV $d $(ethtool -i $d | sed -n 's/^driver: //p')"
	echo "@@MAXMTU $d $(ip -d link show $d | sed -n 's/.* maxmtu \\([0-9]*\\).*/\\1/p')"
done
dmesg | grep -iE 'octeon|octep' | tail -n 20
""" % (r.ifa, r.ifb), check=False)
    drv = re.findall(r"@@DRV \S+ (\S*)", out)
    t.check("probe: both ports bound by octeon_ep, named by the MACs "
            "the firmware answered GET_MAC with, carrier up",
            drv == ["octeon_ep", "octeon_ep"] and
            all(fw(tr, p, MAC) >= 1 for p in "AB"),
            "drivers %s; GET_MAC requests A %d B %d\n%s"
            % (drv, fw(tr, "A", MAC), fw(tr, "B", MAC), load_out))
    maxmtu = re.findall(r"@@MAXMTU \S+ (\d+)", out)
    # 6.12 asks the firmware (GET_MTU - 18); 6.1 has 9982 built in
    want = "9000" if short.startswith("6.12") else "9982"
    extra = all(fw(tr, p, GET_INFO) >= 1 and fw(tr, p, MTU) >= 1
                for p in "AB") if short.startswith("6.12") else True
    t.check("probe: the maximum MTU upstream derives (6.12: the "
            "firmware's GET_MTU less 18, after GET_INFO; 6.1: built in)",
            maxmtu == [want, want] and extra,
            "maxmtu %s, want %s; GET_INFO A %d, MTU requests A %d\n%s"
            % (maxmtu, want, fw(tr, "A", GET_INFO), fw(tr, "A", MTU), out))


def forwarding_checks(t, r):
    row = r.step(CONFIG, "stack", 2000, 4000)
    m = row["model"]
    t.check("forwarding (stack, 4,000 frames at 2 kpps): model == "
            "generator == sink, nothing refused", counts_agree(row),
            counts_text(row))
    # upstream returns credit only in refills of at least 256 buffers
    rx, writes = m["A_rx_frames"], m["A_rdt_writes"]
    t.check("credit: upstream returns it in refills of at least 256 "
            "buffers (credit writes per frame received about 1/256)",
            0 < writes <= rx // REFILL + 1,
            "%d credit writes for %d frames" % (writes, rx))
    credit = r.truth()["A"]["credit_now"]
    # At rest every ring owes less than one refill: 1,024 - credit < 256
    # (plus what the last fetch left unused), and the block never had
    # more than 1,040 - 0x100 = 784 buffers (the qtest's exact figure).
    t.check("credit at the 0x100 watermark: at rest each ring has less "
            "than one refill (256) taken and not returned, never more "
            "than the ring granted",
            all(0 <= RING - c < REFILL + FETCH for c in credit),
            "credit now per ring %s: %s buffers taken and not returned"
            % (credit, [RING - c for c in credit]))


def mtu_checks(t, r):
    tr0 = r.truth()
    rc, out = r.guest("""
A=%s B=%s
ip link set $A mtu 9000 || exit 1
ip link set $B mtu 9000 || exit 1
carrier $A 1 30 && carrier $B 1 30 || exit 2
cat /sys/class/net/$A/mtu /sys/class/net/$B/mtu
""" % (r.ifa, r.ifb), check=False)
    tr1 = r.truth()
    sets = [fw(tr1, p, MTU) - fw(tr0, p, MTU) for p in "AB"]
    t.check("MTU 9000 through the firmware (SET_MTU on each port)",
            rc == 0 and all(s >= 1 for s in sets),
            "rc %d, MTU requests %s\n%s" % (rc, sets, out))
    r.a.size = 8000
    try:
        row = r.step(CONFIG, "stack", 500, 300)
    finally:
        r.a.size = 64
    m = row["model"]
    t.check("jumbo forwarding (8,000-byte frames, 3 buffers of 3,776 "
            "each): model == generator == sink",
            counts_agree(row) and m["A_rx_desc"] >= 3 * m["A_rx_frames"],
            counts_text(row) + "; buffers written %d" % m["A_rx_desc"])
    rc, out = r.guest("ip link set %s mtu 1500 && ip link set %s mtu 1500 && "
                      "carrier %s 1 30 && carrier %s 1 30\n"
                      % (r.ifa, r.ifb, r.ifa, r.ifb), check=False)
    t.check("MTU back to 1500", rc == 0, out)


def flap_checks(t, r, short):
    r.set_link("nicA", False)
    rc_down, _ = r.guest("carrier %s 0 15\n" % r.ifa, check=False)
    r.set_link("nicA", True)
    rc_up, _ = r.guest("carrier %s 1 30\n" % r.ifa, check=False)
    if short.startswith("6.12"):
        t.check("link flap: the firmware's link notifications take the "
                "carrier down and up (v2 mailbox)", rc_down == 0 and
                rc_up == 0, "down %d up %d" % (rc_down, rc_up))
    else:
        t.check("link flap: the firmware's link notifications take the "
                "carrier down and up (v2 mailbox)", True,
                skip="6.1 reads the link only at open: no notifications")
    row = r.step(CONFIG, "stack", 2000, 1000)
    t.check("forwarding after the flap: model == generator == sink",
            counts_agree(row), counts_text(row))


def stall_checks(t, r):
    """The seed's stall: upstream grants 1,024 once at open and returns
    credit in 256s; at watermark 0x400 the block fetches once (1,024 ->
    1,008, under the watermark) and the 16 frames never make a refill.
    One flow, so one ring takes it all."""
    r.qom_set("nicA", "wmark", 0x400)
    ok, out = reopen(r, r.ifa)
    if not t.check("stall: port A reopened under a 0x400 watermark", ok,
                   out):
        return
    r0 = r.step(CONFIG, "stack", 2000, 1000, flows=1)
    time.sleep(2)
    r1 = r.step(CONFIG, "stack", 2000, 1000, flows=1)
    tr = r.truth()["A"]
    got = [x["model"]["A_rx_frames"] for x in (r0, r1)]
    refused = [x["model"]["A_rx_dropped"] for x in (r0, r1)]
    rings = len(tr["credit_now"])
    t.check("stall at 0x400: 16 frames (one fetch), then every frame "
            "refused, also after 2 s; the ring's credit stuck at 1,008, "
            "the idle rings' at 1,024",
            got == [FETCH, 0] and
            refused == [offered(r0) - FETCH, offered(r1)] and
            [r0["forwarded"], r1["forwarded"]] == [FETCH, 0] and
            sorted(tr["credit_now"]) == [RING - FETCH] + [RING] * (rings - 1),
            "frames taken per step %s, refused %s, sink %s; credit now "
            "per ring %s; fetches per ring %s"
            % (got, refused, [r0["forwarded"], r1["forwarded"]],
               tr["credit_now"], tr["fetches"]))
    ok, out = reopen(r, r.ifa)
    r2 = r.step(CONFIG, "stack", 2000, 200, flows=1)
    t.check("stall: each reopen buys one more fetch of 16 frames",
            ok and r2["model"]["A_rx_frames"] == FETCH,
            "frames after the reopen %d\n%s"
            % (r2["model"]["A_rx_frames"], out))
    r.qom_set("nicA", "wmark", 0x100)
    ok, out = reopen(r, r.ifa)
    r3 = r.step(CONFIG, "stack", 2000, 1000)
    t.check("watermark back at 0x100 and reopened: forwarding again",
            ok and counts_agree(r3), counts_text(r3))


def heartbeat_checks(t, r, short):
    if not short.startswith("6.12"):
        t.check("heartbeat loss closes the port", True,
                skip="6.1 has no heartbeat supervision")
        return
    r.qom_set("nicA", "fw-heartbeat", False)
    # hb-miss=5 at 1 s: closed after about 5 s of silence
    rc, out = r.guest("""
i=0; while [ $i -lt 300 ]; do
	ip link show %s | grep -q '[<,]UP[,>]' || break
	sleep 0.1; i=$((i + 1)); done
ip link show %s
dmesg | grep -iE 'heartbeat' | tail -n 3
""" % (r.ifa, r.ifa), check=False)
    r.qom_set("nicA", "fw-heartbeat", True)
    closed = "state DOWN" in out and not re.search(r"[<,]UP[,>]", out)
    t.check("heartbeat loss (6.12): upstream closes the port, as it "
            "intends", closed, out)
    ok, out2 = reopen(r, r.ifa)
    t.check("heartbeat back: the port opens again", ok, out2)


def unload_checks(t, r, short):
    tr0 = r.truth()
    rc, out = r.guest("rmmod octeon_ep && echo @@GONE; ls /sys/class/net\n",
                      check=False)
    tr1 = r.truth()
    removes = [fw(tr1, p, DEV_REMOVE) - fw(tr0, p, DEV_REMOVE) for p in "AB"]
    want = [1, 1] if short.startswith("6.12") else [0, 0]
    t.check("rmmod octeon_ep (6.12 tells the firmware: DEV_REMOVE)",
            "@@GONE" in out and removes == want,
            "DEV_REMOVE per port %s, want %s\n%s" % (removes, want, out))
    clean(t, r, "router boot")


def router_boot(t, short, a):
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "router"), short,
                        "dbb-octep-conf.")
    ra = router_opts(short, a, out)
    r = router.Router(ra, [CONFIG], router.our_modules(ra, [CONFIG]))
    with router.booted(t, r, "router boot"):
        load_out = r.load(CONFIG)
        probe_checks(t, r, short, load_out)
        r.mode_setup("stack")
        forwarding_checks(t, r)
        mtu_checks(t, r)
        flap_checks(t, r, short)
        stall_checks(t, r)
        heartbeat_checks(t, r, short)
        no_laps(t, r, "router boot")
        unload_checks(t, r, short)
    return ra.out


# ---- the loop boot -----------------------------------------------------

# ---- one igc port, one octep port -----------------------------------------

MIXED = router.Config("igc+octeon_ep")


def mixed_boot(t, short, a):
    """The topology octep_fix's benchmark uses: dbb-igc in, dbb-octep out,
    upstream drivers on both, the stack forwarding."""
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "mixed"), short,
                        "dbb-octep-mixed.")
    ra = router_opts(short, a, out, nic_a="dbb-igc")
    r = router.Router(ra, [MIXED], router.our_modules(ra, [MIXED]))
    with router.booted(t, r, "igc + octep boot"):
        r.load(MIXED)
        out = r.guest("ethtool -i %s | head -n 1; ethtool -i %s | head -n 1\n"
                      % (r.ifa, r.ifb), check=False)[1]
        r.mode_setup("stack")
        row = r.step(MIXED, "stack", 2000, 4000)
        t.check("igc port to octep port (upstream igc and octeon_ep, "
                "stack): model == generator == sink",
                counts_agree(row) and out.split() == [
                    "driver:", "igc", "driver:", "octeon_ep"],
                counts_text(row) + "\n" + out)
        clean(t, r, "igc + octep boot")
    return ra.out


def main():
    ap = labvm.test_args(__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the run directories in DIR")
    ap.add_argument("--smp", type=int, default=2)
    a = ap.parse_args()
    a.qemu = labvm.qemu_binary(a.qemu)
    return labvm.run_per_kernel(a, lambda t, short: [
        t.boot(lambda: router_boot(t, short, a)),
        t.boot(lambda: loop_boot(t, short, a, CONFIG)),
        t.boot(lambda: mixed_boot(t, short, a))])


if __name__ == "__main__":
    sys.exit(main())
