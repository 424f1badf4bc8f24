#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_rows.py: unit tests of the lab's measurement and provisioning
layers without a guest: rows.step_rows (a step's row from the models'
snapshots and the generator's and sink's lines, one way and both ways),
the lossless and saturation judgements, router.next_rate (a ramp's
rates), traffic.gen_argv, router.options (the same namespace as
router.py's command line), and guest/router.sh run by the host's shells
with fake ethtool, ip and modprobe, driven by Router.load() and
mode_setup() as the guest would run them.

Host only: prints TAP.  Exit 0 when every case passed.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
sys.path.insert(0, LAB)
import router  # noqa: E402
import rows  # noqa: E402
import tap  # noqa: E402
import traffic  # noqa: E402


def truth(tdt=0, tx=0, rx=0, rdt=0, irqs=0, queues=1, irqs_rx=None):
    """One port's ground truth: every per-queue count, on queue 0
    (IRQS_RX: the receive interrupts, of a model that counts them)."""
    t = {n: [0] * queues for n in rows.PER_QUEUE + ("irqs", "guest_errors",
                                                     "rx_off_drops")}
    t["tdt_writes"][0], t["tx_frames"][0] = tdt, tx
    t["rx_frames"][0], t["rdt_writes"][0], t["irqs"][0] = rx, rdt, irqs
    if irqs_rx is not None:
        t["irqs_rx"] = [irqs_rx] + [0] * (queues - 1)
    return t


def meas(a1, b1, insn=None, rev=None):
    m0 = {"truth": {"A": truth(), "B": truth()}, "cpu": {"cpu": (0, 100)}}
    m1 = {"truth": {"A": a1, "B": b1}, "cpu": {"cpu": (50, 200)}}
    if insn is not None:
        m0["insn"], m1["insn"] = 1000, 1000 + insn
    return {"m0": m0, "m1": m1, "stray_frames": 0, "rev": rev,
            "ct_count": None}


def gen(step, sent, pps=1000):
    return {"type": "step", "step": step, "target_pps": pps,
            "offered": sent, "sent": sent, "pps": pps, "seconds": 1.0}


def sink(step, received):
    return {"type": "step", "step": step, "received": received,
            "rx_pps": received, "reordered": 0, "dup": 0,
            "sent_from": "marker", "lat_ns": {"p50": 20000, "p99": 90000,
                                              "max": 100000}}


IDENT = {"kernel": "6.1", "config": "igc", "mode": "stack"}


def case_one_step_row():
    """A one-step run: the row has the step's figures and the run's model
    deltas, per forwarded frame as the port that sends them counts."""
    m = meas(truth(rx=1008, rdt=10, irqs=30), truth(tdt=25, tx=1008),
             insn=4_032_000)
    rs = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 990), {
        "type": "total", "received": 990, "markers": 8}], m)
    assert len(rs) == 1
    r = rs[0]
    assert r["config"] == "igc" and r["lost"] == 10 and r["forwarded"] == 990
    assert r["loss_pct"] == 1.0 and r["lat_p99_us"] == 90.0
    assert r["fwd_frames"] == 1008 and r["tdt_writes"] == 25
    assert r["tdt_per_fwd"] == round(25 / 1008, 4)
    assert r["rdt_per_rx"] == round(10 / 1008, 4)
    assert r["irqs_per_fwd"] == round(30 / 1008, 4)
    assert r["insn_per_fwd"] == 4000 and r["cpu_busy_pct"] == 50.0
    assert r["markers_sent"] == rows.GEN_MARKERS
    assert r["model"]["A_rx_frames"] == 1008 and r["guest_drops"] == 0
    assert r["mmio_per_fwd"]["tx_tail"] == round(25 / 1008, 4)


ROW_KEYS = {
    "kernel", "config", "mode", "step", "target_pps", "offered", "sent",
    "gen_pps", "gen_seconds", "forwarded", "fwd_pps", "lost", "loss_pct",
    "sink_sent_from", "reordered", "dup", "lat_p50_us", "lat_p99_us",
    "lat_max_us", "host_qemu_in_drops", "both_ways", "conntrack",
    "gen_sent", "markers_sent", "sink_received", "sink_rx_frames",
    "sink_markers", "sink_invalid", "sink_socket_drops", "global_reordered",
    "flow_gaps_open", "ttl", "stray_frames_out_A", "cpu_busy_pct",
    "cpu_busy_per_cpu", "insn", "model", "fwd_frames", "tdt_writes",
    "tdt_noop_writes", "tdt_per_fwd", "tdt_noop_per_fwd", "rdt_per_rx",
    "irqs_per_fwd", "rx_irqs_per_fwd", "insn_per_fwd", "mmio_per_fwd",
    "guest_drops", "qdisc_B"}


def case_row_fields():
    """Every field report.py and the tests read is in a one-step row, and
    those the run passes through keep their values: frames the guest
    took in and did not send are its drops, conntrack and the qdisc's
    counts are the run's, stray frames are counted ones."""
    m = meas(truth(rx=1010), truth(tx=1008))
    m["ct_count"], m["stray_frames"] = 2048, 3
    m["m1"]["qdisc"] = {"sent": 5, "dropped": 0, "requeues": 1}
    r = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 1000)], m)[0]
    assert set(r) == ROW_KEYS, set(r) ^ ROW_KEYS
    assert r["guest_drops"] == 2 and r["conntrack"] == 2048
    assert r["stray_frames_out_A"] == 3 and r["qdisc_B"]["requeues"] == 1
    assert r["lat_max_us"] == 100.0 and r["lat_p50_us"] == 20.0
    assert r["insn"] is None and r["insn_per_fwd"] is None


def case_receive_interrupts_where_the_model_counts_them():
    """rx_irqs_per_fwd: both ports' receive interrupts per forwarded
    packet, from a model that counts them; None from one that does not."""
    m = meas(truth(rx=1000, irqs=800, irqs_rx=800),
             truth(tx=1000, irqs=500, irqs_rx=0))
    m["m0"]["truth"] = {"A": truth(irqs_rx=0), "B": truth(irqs_rx=0)}
    r = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 1000)], m)[0]
    assert r["irqs_per_fwd"] == 1.3 and r["rx_irqs_per_fwd"] == 0.8, r
    m = meas(truth(rx=1000, irqs=800), truth(tx=1000, irqs=500))
    r = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 1000)], m)[0]
    assert r["irqs_per_fwd"] == 1.3 and r["rx_irqs_per_fwd"] is None, r
    # a mixed router (dbb-igc in, dbb-octep out, and the reverse): one
    # port's model counts them, the other's does not
    for a_rx, b_rx in ((800, None), (None, 0)):
        m = meas(truth(rx=1000, irqs=800, irqs_rx=a_rx),
                 truth(tx=1000, irqs=500, irqs_rx=b_rx))
        m["m0"]["truth"] = {"A": truth(irqs_rx=a_rx and 0),
                            "B": truth(irqs_rx=b_rx and 0)}
        r = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 1000)], m)[0]
        assert r["irqs_per_fwd"] == 1.3 and r["rx_irqs_per_fwd"] is None, r


def case_options_refuse_what_is_no_option():
    """A keyword that names no router.py option, or a value where the
    option takes none (and the reverse), is refused, not dropped."""
    for bad in ({"irq_spread": False}, {"smpp": 2}, {"smp": True},
                {"insn": 1}):
        try:
            router.options("6.1", out="/tmp/x", **bad)
        except TypeError as e:
            assert "router.options()" in str(e), e
            continue
        raise AssertionError("router.options(%r) accepted" % bad)


def case_steps_share_the_run():
    """Several steps in one run: each row its own figures, the model
    deltas once, under "run"."""
    m = meas(truth(rx=2016), truth(tdt=30, tx=2016))
    rs = rows.step_rows(IDENT, [gen(0, 1000), gen(1, 1000)],
                        [sink(0, 1000), sink(1, 1000)], m, markers=False)
    assert [r["step"] for r in rs] == [0, 1]
    assert all("tdt_per_fwd" not in r for r in rs)
    assert rs[0]["run"]["tdt_writes"] == 30
    assert rs[0]["run"]["markers_sent"] is None


def case_both_ways():
    """Both ways: sent and received summed over the two directions, the
    TX doorbells of both ports per frame both ports sent."""
    m = meas(truth(rx=508, tx=508, tdt=10), truth(rx=508, tx=508, tdt=10),
             rev=([gen(0, 500)], [sink(0, 500)]))
    rs = rows.step_rows(IDENT, [gen(0, 500)], [sink(0, 499)], m)
    r = rs[0]
    assert r["both_ways"] and r["sent"] == 1000 and r["forwarded"] == 999
    assert r["ways"] == [{"sent": 500, "received": 499},
                         {"sent": 500, "received": 500}]
    assert r["fwd_frames"] == 1016 and r["tdt_per_fwd"] == round(20 / 1016, 4)
    assert r["markers_sent"] == 2 * rows.GEN_MARKERS


def case_lossless_names_the_miss():
    m = meas(truth(rx=1008), truth(tx=1008))
    r = rows.step_rows(IDENT, [gen(0, 1000)], [sink(0, 1000), {
        "type": "total", "received": 1000, "flow_gaps_open": 0,
        "global_reordered": 0}], m)[0]
    r["flow_gaps_open"], r["stray_frames_out_A"] = 0, 0
    assert rows.lossless(r, 1000), rows.lossless_misses(r, 1000)
    r["model"]["A_rx_dropped"] = 3
    assert rows.lossless_misses(r, 1000) == "model A_rx_dropped 3 (want 0)"


def sat_row(rx, dropped, busy):
    return {"model": {"A_rx_frames": rx, "A_rx_dropped": dropped},
            "cpu_busy_pct": busy, "gen_pps": 120000.0,
            "host_qemu_in_drops": 0}


def case_saturated_takes_a_guest_that_could_not_keep_up():
    """A saturating step counts when port A dropped a share of what reached
    it for want of descriptors, or the guest's CPUs were busy; not when a
    ring overflowed only while the host held a vCPU back (a few drops in a
    guest mostly idle) or when the generator fell behind (no drops)."""
    assert rows.saturated(sat_row(100902, 99153, 99.2))[0]
    assert rows.saturated(sat_row(238000, 2000, 93.0))[0]   # QEMU's input
    assert rows.saturated(sat_row(90000, 10000, 40.0))[0]   # 10 % dropped
    ok, why = rows.saturated(sat_row(236000, 4000, 60.0))   # a stall's
    assert not ok, why
    assert "4000 of 240000" in why and "1.7 %" in why and "60 %" in why, why
    assert not rows.saturated(sat_row(80000, 0, 40.0))[0]
    assert not rows.saturated(sat_row(0, 0, 0))[0]
    # the thresholds, inclusive; the share is of what reached port A
    assert rows.saturated(sat_row(95000, 5000, 0))[0]
    assert rows.saturated(sat_row(100000, 0, 85.0))[0]
    assert not rows.saturated(sat_row(95001, 4999, 84.9))[0]
    assert not rows.saturated(sat_row(95500, 4500, 0))[0]   # 4.7 % of rx
    assert "QEMU's input dropped 0" in why
    r = sat_row(95500, 4500, 0)
    del r["host_qemu_in_drops"]
    assert "QEMU" not in rows.saturated(r)[1]


def ramp(rates, losses, until=1.0, steps=2, extend=0):
    """The rates router.py's sweep offers a ramp whose steps lose LOSSES
    in turn (the last repeated)."""
    got = []
    while True:
        rt = router.next_rate(rates, [losses[min(i, len(losses) - 1)]
                                      for i in range(len(got))],
                              until, steps, extend)
        if rt is None:
            return got
        got.append(rt)


def case_ramp_stops_at_saturation_and_goes_on_below_it():
    r = [2000, 20000, 30000, 40000]
    # every rate once without --until-loss, extension or not
    assert ramp(r, [50.0], until=None, extend=3) == r
    # two lossy steps in a row end it
    assert ramp(r, [0, 0, 5.0, 5.0]) == [2000, 20000, 30000, 40000]
    assert ramp(r, [0, 5.0, 5.0]) == [2000, 20000, 30000]
    assert ramp(r, [0, 5.0, 0, 5.0]) == r
    assert ramp(r, [0, 5.0], steps=1) == [2000, 20000]
    # lossless to the end: as many more steps of 10k as allowed
    assert ramp(r, [0.0]) == r
    assert ramp(r, [0.0], extend=3) == r + [50000, 60000, 70000]
    # and those stop at saturation too
    assert ramp(r, [0, 0, 0, 0, 0, 3.0, 3.0], extend=5) == \
        r + [50000, 60000, 70000]
    # one lossy step at the end: the ramp goes on to see a second
    assert ramp(r, [0, 0, 0, 3.0, 3.0], extend=2) == r + [50000]


def case_octep_truth_aliases():
    """dbb-octep's doorbells read under the common names."""
    t = rows.normalized("dbb-octep", {"in_dbell_writes": [4],
                                      "out_dbell_writes": [2]})
    assert t["tdt_writes"] == [4] and t["rdt_writes"] == [2]
    assert rows.model_of("dbb-octep,wmark=0x100") == "dbb-octep"


def case_gen_argv():
    assert traffic.gen_argv("g", 5, "m", 1024, 64) == [
        "g", "--to", "127.0.0.1:5", "--dst-mac", "m", "--quiet", "--flows",
        "1024", "--size", "64"]
    assert traffic.gen_argv("g", 5, "m", 1, "imix", "1.1.1.1", "2.2.2.2")[
        4:9] == ["m", "--src-ip", "1.1.1.1", "--dst-ip", "2.2.2.2"]
    assert traffic.rate("20k") == 20000 and traffic.rate("1.5m") == 1500000


def case_options_are_the_command_line():
    """router.options() by name gives the namespace router.py's command
    line gives; a list repeats an option, False leaves it out."""
    argv = ["--kernel", "6.12", "--smp", "1", "--insn", "--root-port", "A",
            "--root-port", "B", "--nic-b", "dbb-octep,wmark=0x100",
            "--rings", "0", "--out", "/tmp/x", "--no-irq-spread"]
    old = vars(router.parse_args(argv))
    new = vars(router.options("6.12", smp=1, insn=True, root_port=["A", "B"],
                              nic_b="dbb-octep,wmark=0x100", rings=0,
                              out="/tmp/x", no_irq_spread=True, viommu=False,
                              modules=None))

    def key(ns):
        return {k: ([(c.driver, c.params) for c in v] if k == "configs"
                    else v) for k, v in ns.items()}
    assert key(old) == key(new), (key(old), key(new))
    cfg = router.Config("igc_batch", "tx_db_batched=1")
    a = router.options("6.1", [cfg], out="/tmp/x")
    assert a.configs == [cfg] and a.kernel == "6.1"


class Shell:
    """Router's guest(): the script after guest/lib.sh and
    guest/router.sh in a host shell (SH: its argv) with ethtool, ip,
    modprobe, rmmod and xdp-bench faked on PATH (each logs its arguments
    one by one, "[a] [b]"), the sysfs helpers (ifof, waitif, carrier,
    spread) answered, and interfaces no host has (dbbtA, dbbtB).  ISOLATE
    (root only): in a network and mount namespace of their own with a
    tmpfs on /tmp, so what the script writes to /proc/sys/net and /tmp is
    not the host's."""

    FAKE = "#!/bin/sh\necho \"$(basename \"$0\")$(printf ' [%%s]' \"$@\")\" " \
        ">>\"$LOG\"\n%s\n"
    EXTRA = {
        "ethtool": 'case "$1" in -l) printf "Current hardware settings:'
                   '\\nCombined:\\t4\\n";; -g) printf "Current hardware '
                   'settings:\\nRX:\\t1024\\nTX:\\t1024\\n";; -i) echo '
                   '"driver: igc_batch";; esac',
        "modprobe": '[ "$1" != broken ] || exit 1',
        # "ip -d link show IF" shows a program while a fake xdp-bench runs
        "ip": '[ "$1 $2 $3" = "-d link show" ] && [ -e "/tmp/xdp-on-$4" ] '
              '&& echo "    prog/xdp id 7"; true'}
    # a program that, as xdp-bench, attaches until SIGINT (a shell script
    # cannot: a background job starts with SIGINT ignored)
    XDP_BENCH = """#!/usr/bin/python3
import os, signal, sys, time
with open(os.environ["LOG"], "a") as f:
    f.write("xdp-bench" + "".join(" [%s]" % x for x in sys.argv[1:]) + "\\n")
flag = "/tmp/xdp-on-" + sys.argv[-2]
open(flag, "w").close()
def stop(*_):
    os.unlink(flag)
    print("stopped")
    sys.exit(0)
signal.signal(signal.SIGINT, stop)
time.sleep(60)
"""
    ISOLATE = None      # the namespace wrapper, once probed

    def __init__(self, sh):
        self.sh = sh
        # not under /tmp: the isolated shell has a /tmp of its own
        self.dir = tempfile.mkdtemp(prefix="dbb-test-rows.", dir="/var/tmp")
        self.log = os.path.join(self.dir, "log")
        tools = {t: self.FAKE % self.EXTRA.get(t, "")
                 for t in ("ethtool", "ip", "modprobe", "rmmod")}
        tools["xdp-bench"] = self.XDP_BENCH
        # the guest's files beside them: the tree may be under /tmp
        for name in ("lib.sh", "router.sh"):
            shutil.copy(os.path.join(LAB, "guest", name), self.dir)
        for tool, text in tools.items():
            path = os.path.join(self.dir, tool)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)

    @classmethod
    def isolate(cls):
        """The wrapper into fresh network and mount namespaces with a
        tmpfs /tmp, or [] where they cannot be had (not root, no
        unshare)."""
        if cls.ISOLATE is None:
            w = ["unshare", "--net", "--mount", "--fork", "sh", "-c",
                 'mount -t tmpfs tmpfs /tmp && exec "$@"', "sh"]
            ok = os.geteuid() == 0 and shutil.which("unshare") and \
                subprocess.run(w + ["true"], capture_output=True).returncode \
                == 0
            cls.ISOLATE = w if ok else []
        return cls.ISOLATE

    def guest(self, script, timeout=120, check=True):
        stub = ('ifof() { case "$1" in %s) echo dbbtA;; %s) echo dbbtB;; '
                '*) return 1;; esac; }\nwaitif() { ifof "$1" >/dev/null; }\n'
                'carrier() { true; }\nspread() { echo "spread $1" >>"$LOG"; '
                '}\n' % (router.MAC_A, router.MAC_B))
        p = subprocess.run(
            self.isolate() + self.sh + [
                "-c", ". %s/lib.sh; . %s/router.sh\n%s%s" % (
                    self.dir, self.dir, stub, script)],
            capture_output=True, text=True, timeout=timeout,
            env=dict(os.environ, LOG=self.log,
                     PATH=self.dir + ":" + os.environ["PATH"]))
        if check and p.returncode:
            raise RuntimeError("guest command failed (%d)" % p.returncode)
        return p.returncode, p.stdout + p.stderr

    def calls(self):
        """The fakes' calls since the last calls(), in order."""
        try:
            with open(self.log) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []
        finally:
            if os.path.exists(self.log):
                os.unlink(self.log)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def fake_router(sh, **opts):
    """A Router that was never booted, its guest the host shell SH."""
    r = router.Router.__new__(router.Router)
    r.a = router.options("6.1", out="/tmp/unused", **opts)
    r.configs = r.a.configs
    r.shell = Shell(sh)
    r.guest = r.shell.guest
    r.xdp_running = False
    r.ct_warm = None
    try:
        yield r
    finally:
        r.shell.close()


def shells():
    """The router guest's sh (bash: Router boots with bash as /bin/sh)
    and the host's POSIX sh.  Not busybox's: its applets win over the
    fakes on PATH."""
    out = [["bash"]] if shutil.which("bash") else []
    sh = shutil.which("sh")
    if sh and os.path.basename(os.path.realpath(sh)) not in ("busybox",
                                                             "bash"):
        out.append(["sh"])
    return out


def W(*words):
    """A fake's log line: its name and each argument in brackets."""
    return words[0] + "".join(" [%s]" % w for w in words[1:])


def case_router_sh_loads_a_driver():
    """load(): every port driver unloaded before the module is loaded
    with its parameters as words, queues, rings and private flags on
    both ports, both links up; what the guest printed parsed
    (interfaces, channels, rings)."""
    for sh in shells():
        with fake_router(sh, queues=4, rings=1024) as r:
            cfg = router.Config("igc_batch", "tx_db_batched=1 foo=2",
                                "tx-db-skip-empty=on,other=off")
            r.load(cfg)
            calls = r.shell.calls()
            assert (r.ifa, r.ifb, r.queues_now) == ("dbbtA", "dbbtB", 4)
            assert r.rings_now == {"RX": "1024", "TX": "1024"}, sh
            load = W("modprobe", "igc_batch", "tx_db_batched=1", "foo=2")
            assert load in calls, calls
            # the module loads before any ethtool (rmmod, faked, runs only
            # for what the host's /sys/module shows loaded)
            assert calls.index(load) < min(
                i for i, c in enumerate(calls) if c.startswith("ethtool"))
            for port in ("dbbtA", "dbbtB"):
                for c in (W("ethtool", "-L", port, "combined", "4"),
                          W("ethtool", "-G", port, "rx", "1024", "tx",
                            "1024"),
                          W("ethtool", "--set-priv-flags", port,
                            "tx-db-skip-empty", "on", "other", "off"),
                          W("ip", "link", "set", port, "up")):
                    assert c in calls, (c, calls)


def case_router_sh_reports_a_failed_load():
    """A module that does not load stops the load with status 3 and the
    driver's name in the error, before any ethtool."""
    for sh in shells():
        with fake_router(sh) as r:
            try:
                r.load(router.Config("broken"))
                raise AssertionError("loaded a module modprobe refused")
            except RuntimeError as e:
                assert re.search(r"loading broken failed \(3\)", str(e)), e
            assert not any(c.startswith("ethtool")
                           for c in r.shell.calls())


def case_router_sh_stack_mode():
    """mode_setup("stack"): both ports' addresses, both generators' next
    hops, forwarding on, the same RSS on port A, the vectors spread;
    teardown turns forwarding off.  Needs the namespaces (root)."""
    if not Shell.isolate():
        raise tap.Skip("not root: the stack mode writes /proc/sys/net")
    for sh in shells():
        with fake_router(sh, rss="same", settle=0) as r:
            r.ifa, r.ifb = "dbbtA", "dbbtB"
            r.mode_setup("stack")
            calls = r.shell.calls()
            for c in (W("ip", "addr", "add", router.ADDR_A, "dev", "dbbtA"),
                      W("ip", "addr", "add", router.ADDR_B, "dev", "dbbtB"),
                      W("ip", "neigh", "replace", router.SINK_IP, "lladdr",
                        router.NEXT_HOP_MAC, "dev", "dbbtB", "nud",
                        "permanent"),
                      W("ip", "neigh", "replace", router.REV_DST_IP,
                        "lladdr", router.NEXT_HOP_MAC, "dev", "dbbtA", "nud",
                        "permanent"),
                      W("ip", "route", "get", router.SINK_IP),
                      W("ethtool", "-N", "dbbtA", "rx-flow-hash", "udp4",
                        "sdfn"),
                      W("ethtool", "-N", "dbbtA", "rx-flow-hash", "udp6",
                        "sdfn"),
                      "spread dbbtA", "spread dbbtB"):
                assert c in calls, (c, calls)
            rc, out = r.guest("router_stack %s\ncat "
                              "/proc/sys/net/ipv4/ip_forward\n"
                              "router_stack_stop 0\ncat "
                              "/proc/sys/net/ipv4/ip_forward\n" % " ".join(
                                  ("dbbtA", "dbbtB", router.ADDR_A,
                                   router.ADDR_B, router.SINK_IP,
                                   router.REV_DST_IP, router.NEXT_HOP_MAC)))
            got = [x for x in out.splitlines() if x in ("0", "1")]
            assert rc == 0 and got == ["1", "0"], (rc, out)


def case_router_sh_xdp_mode():
    """mode_setup("xdp") both ways: an xdp-bench redirect each way,
    waited for until attached, forwarding off; teardown stops both and
    finds no program left.  Needs the namespaces (root)."""
    if not Shell.isolate():
        raise tap.Skip("not root: the XDP mode writes /tmp and /proc")
    for sh in shells():
        with fake_router(sh, both_ways=True, settle=0,
                         no_irq_spread=True) as r:
            r.ifa, r.ifb = "dbbtA", "dbbtB"
            # one shell for setup and teardown: the fakes' /tmp is its own
            script = ("router_xdp dbbtA dbbtB 30 both || exit $?\n"
                      "ls /tmp\nrouter_xdp_stop dbbtA dbbtB || exit $?\n"
                      "ls /tmp\n")
            rc, out = r.guest(script, check=False)
            calls = r.shell.calls()
            assert rc == 0, out
            assert W("xdp-bench", "redirect", "-m", "native", "-i", "30",
                     "dbbtA", "dbbtB") in calls, calls
            assert W("xdp-bench", "redirect", "-m", "native", "-i", "30",
                     "dbbtB", "dbbtA") in calls, calls
            assert out.count("prog/xdp id 7") == 2, out
            assert out.count("stopped") == 2, out
            assert "xdp-on-dbbtA" in out and \
                "xdp-on-dbbtA" not in out.split("stopped")[-1], out


if __name__ == "__main__":
    sys.exit(tap.run_cases(globals()))
