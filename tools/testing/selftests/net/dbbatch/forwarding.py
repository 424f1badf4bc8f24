#!/usr/bin/env python3
"""forwarding.py: acceptance tests of the lab's router topology with the
UNMODIFIED upstream igc driver on dbb-igc (issue 3), one guest boot per
kernel, TAP output.

    tools/testing/selftests/net/dbbatch/forwarding.py \
        [--kernel 6.1|6.12 ...] [--keep DIR]

Topology and tools: tools/lab/router.py (dbb-gen -> port A -> guest ->
port B -> dbb-sink, all on 127.0.0.1).  Per kernel:

  1. stack forwarding A -> B, 4,000 pps, 20,000 frames, 1,024 flows over
     64 source addresses (about 20 frames per flow, so per-flow order is
     really tested; port A hashes UDP on addresses and ports over a
     round-robin table, router.py --rss same, so the model's RSS spreads
     them over both RX queues unless the boot's random key zeroes all 11
     key bits the varying input bits meet: 1 boot in 2,048): zero loss, no
     per-flow reordering or duplicates, TTL 63, and the model's counts
     equal the generator's and the sink's (port A rx_frames == sent + the
     8 end-of-step markers == port B tx_frames == sink arrivals);
  2. ethtool -S of igc moves with the model: rx_packets/rx_bytes of A and
     tx_packets/tx_bytes of B (statistics registers, bytes with FCS) and
     the per-queue software counters equal the ground truth deltas;
  3. XDP_REDIRECT A -> B (xdp-bench redirect, native mode), same rate and
     count: zero loss, no reordering, model counts equal, TTL 64;
  4. link flap on port B (QMP set_link off, 1.5 s, on) between two steps
     of a 3-step run (4,000 pps, 4 s each): no loss in the step before and
     in the step after the flap (traffic resumed), "Link is Down" then
     "Link is Up" in dmesg;
  5. the kernel log has no WARNING/BUG/Oops/Call Trace/hung task/soft
     lockup, the kernel is not tainted, the model logged no guest error.

Exit 0 when every check passed.  About 60-90 s per kernel under TCG.
"""

import re
import sys
import threading
import time

from lablib import labvm, router, rows  # noqa: E402

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each", "label": "forwarding",
              "minutes": 1,
              "args": ["--keep", "{repo}/build/forwarding"]}]


RATE = 4000
COUNT = 20000


def counts_evidence(row):
    m = row["model"]
    return ("gen sent %d (+%d markers), sink received %d (+%d markers, %d "
            "invalid), lost %d, gaps %s, reordered %s, dup %s, TTL %s; "
            "model A rx_frames %d rx_dropped %d, B tx_frames %d; stray out "
            "of A %d; tdt/pkt %s irqs/pkt %s"
            % (row["sent"], rows.GEN_MARKERS, row["forwarded"],
               row["sink_markers"],
               row["sink_invalid"], row["lost"], row["flow_gaps_open"],
               row["reordered"], row["dup"], row["ttl"], m["A_rx_frames"],
               m["A_rx_dropped"], m["B_tx_frames"],
               row["stray_frames_out_A"], row["tdt_per_fwd"],
               row["irqs_per_fwd"]))


def exact(row):
    m = row["model"]
    want = row["sent"] + rows.GEN_MARKERS
    return (m["A_rx_frames"] == want and m["B_tx_frames"] == want and
            row["forwarded"] + row["sink_markers"] + row["sink_invalid"]
            == want and m["A_rx_dropped"] == 0 and
            row["stray_frames_out_A"] == 0)


def checks(t, short, a, qemu):
    """One boot's checks into T; return its run directory."""
    kver = t.kver
    out = labvm.run_dir(a.keep, short, "dbb-forwarding.")
    ra = router.options(short, rmem=a.rmem, flows=router.TEST_FLOWS,
                        rss="same", gen_args=router.TEST_GEN_ARGS,
                        qemu=qemu, smp=a.smp, out=out)
    r = router.Router(ra, ra.configs)
    cfg = ra.configs[0]
    try:
        r.boot()
        labvm.log("%s: boot %.1f s" % (kver, r.boot_time))
        r.load(cfg)
        t.check("igc binds both ports, links up, %s combined queues, rings "
                "%s" % (r.queues_now, r.rings_now),
                r.ifa and r.ifb and (r.queues_now or 0) >= 1,
                "A=%s B=%s" % (r.ifa, r.ifb))

        # 1. stack forwarding + 2. ethtool -S against the model
        r.mode_setup("stack")
        e0 = r.ethtool_stats()
        row = r.step(cfg, "stack", RATE, COUNT)
        e1 = r.ethtool_stats()
        t.check("stack forwarding A->B at %d pps, %d frames, %d flows: zero "
                "loss" % (RATE, COUNT, router.TEST_FLOWS),
                rows.lossless(row, COUNT),
                counts_evidence(row))
        t.check("stack forwarding: no per-flow reordering, no duplicates, "
                "TTL 63 (one router hop)",
                row["reordered"] == 0 and row["dup"] == 0 and
                row["ttl"] == [63, 63], counts_evidence(row))
        t.check("stack forwarding: model counts == generator == sink "
                "(A rx_frames == sent + markers == B tx_frames == sink "
                "arrivals; no rx_dropped, nothing out of A)", exact(row),
                counts_evidence(row))
        truth = r.truth()
        t.check("RSS spreads the flows over every RX queue of port A",
                all(v > 0 for v in truth["A"]["rx_frames"][:r.queues_now]),
                "A rx_frames per queue (cumulative) %s"
                % truth["A"]["rx_frames"])
        m = row["model"]

        def de(port, key):
            return e1[port].get(key, 0) - e0[port].get(key, 0)

        def qsum(port, pat):
            return sum(de(port, k) for k in e1[port] if re.fullmatch(pat, k))
        ev = ("A: ethtool rx_packets +%d rx_queue_*_packets +%d rx_bytes +%d "
              "rx_missed_errors +%d | model rx_frames +%d rx_bytes +%d "
              "rx_dropped +%d || B: ethtool tx_packets +%d "
              "tx_queue_*_packets +%d tx_bytes +%d | model tx_frames +%d "
              "tx_bytes +%d"
              % (de("A", "rx_packets"), qsum("A", r"rx_queue_\d+_packets"),
                 de("A", "rx_bytes"), de("A", "rx_missed_errors"),
                 m["A_rx_frames"], m["A_rx_bytes"], m["A_rx_dropped"],
                 de("B", "tx_packets"), qsum("B", r"tx_queue_\d+_packets"),
                 de("B", "tx_bytes"), m["B_tx_frames"], m["B_tx_bytes"]))
        t.check("ethtool -S (igc) moves with the model: A rx_packets and "
                "per-queue rx packets == model rx_frames, rx_bytes == model "
                "rx_bytes + 4 (FCS) per frame, rx_missed_errors == "
                "rx_dropped; B likewise for tx",
                de("A", "rx_packets") == m["A_rx_frames"] and
                qsum("A", r"rx_queue_\d+_packets") == m["A_rx_frames"] and
                de("A", "rx_bytes") == m["A_rx_bytes"] + 4 * m["A_rx_frames"]
                and de("A", "rx_missed_errors") == m["A_rx_dropped"] and
                de("B", "tx_packets") == m["B_tx_frames"] and
                qsum("B", r"tx_queue_\d+_packets") == m["B_tx_frames"] and
                de("B", "tx_bytes") == m["B_tx_bytes"] + 4 * m["B_tx_frames"]
                and m["A_rx_frames"] > 0, ev)
        r.mode_teardown("stack")

        # 3. XDP_REDIRECT
        r.mode_setup("xdp")
        row = r.step(cfg, "xdp", RATE, COUNT)
        t.check("XDP_REDIRECT A->B (xdp-bench redirect, native) at %d pps, "
                "%d frames: zero loss" % (RATE, COUNT),
                rows.lossless(row, COUNT),
                counts_evidence(row))
        t.check("XDP_REDIRECT: model counts == generator == sink, no "
                "reordering, TTL 64 (not through the stack)",
                exact(row) and row["reordered"] == 0 and row["dup"] == 0 and
                row["ttl"] == [64, 64], counts_evidence(row))
        r.mode_teardown("xdp")

        # 4. link flap on B between steps 0 and 2 of one run
        r.mode_setup("stack")
        _, d0 = r.guest(
            "dmesg | grep -c 'Link is Down' || true\n", check=False)
        flap = {}

        def flapper():
            flap["down"] = time.time()
            r.set_link("nicB", False)
            time.sleep(1.5)
            r.set_link("nicB", True)
            flap["up"] = time.time()

        threads = []

        def on_line(obj):
            if obj.get("type") == "step" and obj.get("step") == 0:
                th = threading.Thread(target=flapper, daemon=True)
                th.start()
                threads.append(th)
        per = RATE * 4
        gl, sl, meas = r.run_gen([RATE] * 3, [per], on_line=on_line)
        for th in threads:
            th.join()
        steps = r.summarize(cfg, "stack", gl, sl, meas)
        _, dm = r.guest("dmesg | grep -E 'Link is (Down|Up)' | tail -n 3; "
                        "dmesg | grep -c 'Link is Down' || true\n",
                        check=False)
        downs = int(dm.split()[-1]) - int(d0.split()[-1])
        ev = "\n".join("step %d: sent %d received %d lost %d reordered %s"
                       % (x["step"], x["sent"], x["forwarded"], x["lost"],
                          x["reordered"]) for x in steps)
        ev += "\nflap %.2f s; dmesg: %s" % (
            flap.get("up", 0) - flap.get("down", 0),
            " | ".join(dm.strip().splitlines()))
        links = re.findall(r"Link is (Down|Up)", dm)
        ok = (len(steps) == 3 and steps[0]["lost"] == 0 and
              steps[2]["lost"] == 0 and steps[2]["forwarded"] == per and
              steps[0]["sent"] == per and downs >= 1 and
              links[-1:] == ["Up"])
        t.check("link flap on port B during traffic (QMP set_link off 1.5 s,"
                " on): carrier down then up, no loss before the flap, "
                "traffic resumes with no loss after it", ok, ev)
        r.mode_teardown("stack")

        # 5. health
        t.check("kernel log clean (no WARNING/BUG/Oops/Call Trace/hang/"
                "lockup/reset), not tainted, no guest programming errors",
                *r.clean())
    except Exception as e:
        t.check("harness: %s: %s" % (type(e).__name__, e), False)
    finally:
        r.shutdown()
    return ra.out


def main():
    return labvm.one_boot_test(labvm.test_args(__doc__.splitlines()[0]),
                               checks)


if __name__ == "__main__":
    sys.exit(main())
