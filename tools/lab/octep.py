# SPDX-License-Identifier: GPL-2.0
"""octep.py: what the lab's Octeon tests share (octeon_ep_conformance.py,
octep_fix_lab.py): the router's options for two dbb-octep ports, the
firmware's mailbox commands, and the checks every boot ends
with.  Python 3 stdlib."""

import json
import os
import re
import time

import labvm
import router

NIC = "dbb-octep,wmark=0x100,hb-miss=5"
# The firmware's mailbox commands (the model's fw_requests index)
MTU, MAC, LINK_STATUS, GET_INFO, DEV_REMOVE = 1, 2, 6, 9, 10
FETCH = 16              # buffers the SDP fetches at a time


def router_opts(short, a, out, nic=NIC, **extra):
    """router.options() of a boot: two dbb-octep ports (NIC), the lab
    tests' flows, the rings the driver chooses; EXTRA: more options()
    keywords, or others for these (nic_a="dbb-igc")."""
    opts = dict(rmem=a.rmem, qemu=a.qemu, smp=a.smp, out=out, rings=0,
                flows=router.TEST_FLOWS, gen_args=router.TEST_GEN_ARGS,
                nic_a=nic, nic_b=nic)
    opts.update(extra)
    return router.options(short, **opts)


def fw(truth, port, cmd):
    """Mailbox requests of command CMD the firmware of PORT has read."""
    return truth[port]["fw_requests"][cmd]


def reopen(r, dev):
    """ip link down/up and wait for the carrier: (ok, output)."""
    rc, out = r.guest(
        "ip link set %s down; ip link set %s up; carrier %s 1 30 "
        "|| { echo no carrier; exit 1; }\n" % (dev, dev, dev),
        check=False)
    return rc == 0, out


def offered(row):
    """Frames dbb-gen put on A's wire: the step's and its end markers
    (which the sink counts apart)."""
    return row["sent"] + row["markers_sent"]


def counts_agree(row):
    """Lossless: what the generator offered the model took in on A and
    sent from B, and the sink counted it all."""
    m = row["model"]
    return (offered(row) == m["A_rx_frames"] == m["B_tx_frames"] and
            row["forwarded"] == row["sent"] and m["A_rx_dropped"] == 0 and
            row["stray_frames_out_A"] == 0)


def counts_text(row):
    m = row["model"]
    return ("generator %d + %d markers, model A rx_frames %d refused %d, "
            "model B tx_frames %d, sink %d, reordered %s, stray out of A %d"
            % (row["sent"], row["markers_sent"], m["A_rx_frames"],
               m["A_rx_dropped"], m["B_tx_frames"], row["forwarded"],
               row["reordered"], row["stray_frames_out_A"]))


def no_laps(t, r, what, ports="AB"):
    """No vIOMMU in these guests: a block that went round the ring would
    write into pages the driver may have freed, so the model's counters
    are asserted instead."""
    tr = r.truth()
    laps = {p: (sum(tr[p]["laps"]), sum(tr[p]["overwritten_unread"]),
                sum(tr[p]["desc_changed"])) for p in ports}
    t.check("%s: no lap of a ring, no frame overwritten unread, no "
            "descriptor rewritten under the block" % what,
            all(v == (0, 0, 0) for v in laps.values()),
            "(laps, overwritten unread, desc_changed) per port %s" % laps)


def clean(t, r, what):
    ok, ev = r.clean(router.TAINT_OOT_UNSIGNED)
    t.check("%s: no warning in the kernel log, no taint beyond an "
            "out-of-tree module, no guest programming error on either "
            "port" % what, ok, ev)


# ---- the loop boot: port A wired to port B, B in a netns ---------------

LOOP_SCRIPT = r"""
A=%s B=%s
ip addr flush dev $A
ip addr add 10.9.0.1/24 dev $A
ip netns del peer 2>/dev/null
ip netns add peer
ip link set $B netns peer
ip -n peer link set lo up
ip -n peer addr add 10.9.0.2/24 dev $B
ip -n peer link set $B up
in_peer() { ip netns exec peer bash -c "$(declare -f carrier); $*"; }
carrier $A 1 30 && in_peer carrier $B 1 30 || exit 2
echo "@@BEGIN ping"; ping -c 5 -W 3 10.9.0.2; echo "@@END ping"
for t in tcp:-t3 tcpr:-t3_-R udp:-u_-b5M_-t3 udpr:-u_-b5M_-t3_-R; do
	ip netns exec peer iperf3 -s -D -1 >/dev/null 2>&1; sleep 0.5
	echo "@@BEGIN ${t%%%%:*}"
	timeout 60 iperf3 -c 10.9.0.2 -J $(echo ${t#*:} | tr _ ' ')
	echo "@@END ${t%%%%:*}"
done
ip link set $A mtu 9000; ip -n peer link set $B mtu 9000
carrier $A 1 30 && in_peer carrier $B 1 30
echo "@@BEGIN jumbo"; ping -c 3 -W 3 -s 8000 10.9.0.2; echo "@@END jumbo"
"""


def iperf(sec, key):
    """A number from iperf3 -J output: TCP bytes received, UDP loss %."""
    try:
        end = json.loads(sec)["end"]
    except (ValueError, KeyError, TypeError):
        return None
    if key == "udp":
        return end.get("sum", {}).get("lost_percent")
    return end.get("sum_received", {}).get("bytes")


def loop_boot(t, short, a, cfg, more=None, files=None, **extra):
    """Port A wired to port B, B in a network namespace, CFG's driver on
    both: ping, TCP and UDP both ways with iperf3, a jumbo ping; what one
    port sent, the other received.  MORE(t, r): a driver's own checks in
    the same boot, before the final clean(); FILES: Router files=;
    EXTRA: more router.options()."""
    out = labvm.run_dir(a.keep and os.path.join(a.keep, "loop"), short,
                        "dbb-octep-loop.")
    ra = router_opts(short, a, out, wire="loop", **extra)
    r = router.Router(ra, [cfg], router.our_modules(ra, [cfg]),
                      files=files and files(out))
    with router.booted(t, r, "loop boot"):
        r.load(cfg)
        tr0 = r.truth()
        rc, out = r.guest(LOOP_SCRIPT % (r.ifa, r.ifb), timeout=300,
                          check=False)
        time.sleep(1)
        tr1 = r.truth()

        sec = labvm.sections(out)

        def received(name):
            m = re.search(r"(\d+) packets received", sec.get(name, ""))
            return int(m.group(1)) if m else None

        t.check("ping across the two ports (A root, B in a netns)",
                received("ping") == 5, sec.get("ping", out[-1500:]))
        tcp, tcpr = (iperf(sec.get(k), "tcp") for k in ("tcp", "tcpr"))
        t.check("TCP both ways (iperf3 3 s each way): data arrives",
                tcp and tcpr and tcp > 100000 and tcpr > 100000,
                "received %s and %s bytes" % (tcp, tcpr))
        udp, udpr = (iperf(sec.get(k), "udp") for k in ("udp", "udpr"))
        t.check("UDP both ways (iperf3 5 Mb/s, 3 s each way): under 1 % "
                "lost", udp is not None and udpr is not None and
                float(udp) < 1.0 and float(udpr) < 1.0,
                "lost %s %% and %s %%" % (udp, udpr))
        t.check("jumbo ping (8,000 bytes, MTU 9000 through the firmware)",
                received("jumbo") == 3, sec.get("jumbo", out[-600:]))
        d = {p: {k: sum(tr1[p][k]) - sum(tr0[p][k]) for k in (
            "tx_frames", "rx_frames", "rx_dropped", "rx_off_drops")}
            for p in "AB"}
        # what one port put on the wire the other took or counted
        ok = all(d[s]["tx_frames"] == d[o]["rx_frames"] +
                 d[o]["rx_dropped"] + d[o]["rx_off_drops"]
                 for s, o in (("A", "B"), ("B", "A")))
        t.check("model: every frame one port sent, the other received "
                "(or counted as refused)", ok and rc == 0,
                "rc %d; %s" % (rc, d))
        no_laps(t, r, "loop boot")
        if more:
            more(t, r)
        clean(t, r, "loop boot")
    return ra.out
