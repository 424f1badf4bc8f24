#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_rows.py: unit tests of the lab's measurement and provisioning
layers without a guest: rows.step_rows (a step's row from the models'
snapshots and the generator's and sink's lines, one way and both ways),
the lossless judgement, traffic.gen_argv, router.options (the same
namespace as router.py's command line), and guest/router.sh run by the
host's shells with fake ethtool, ip and modprobe, driven by
Router.load() and mode_setup() as the guest would run them.

Host only: prints TAP.  Exit 0 when every case passed.
"""

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


def truth(tdt=0, tx=0, rx=0, rdt=0, irqs=0, queues=1):
    """One port's ground truth: every per-queue count, on queue 0."""
    t = {n: [0] * queues for n in rows.PER_QUEUE + ("irqs", "guest_errors",
                                                     "rx_off_drops")}
    t["tdt_writes"][0], t["tx_frames"][0] = tdt, tx
    t["rx_frames"][0], t["rdt_writes"][0], t["irqs"][0] = rx, rdt, irqs
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
    guest/router.sh in a host shell (SH: its argv), in a network
    namespace of its own when we are root (what it writes to
    /proc/sys/net is not the host's), with ethtool, ip, modprobe, rmmod
    faked on PATH (each logs its arguments) and the sysfs helpers
    (ifof, waitif, carrier) answered."""

    FAKE = "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>\"$LOG\"\n%s\n"
    EXTRA = {"ethtool": 'case "$1" in -l) printf "Current hardware '
             'settings:\\nCombined:\\t4\\n";; -g) printf "Current '
             'hardware settings:\\nRX:\\t1024\\nTX:\\t1024\\n";; '
             '-i) echo "driver: igc_batch";; esac',
             "modprobe": '[ "$1" != broken ] || exit 1'}
    NETNS = ["unshare", "--net"] if os.geteuid() == 0 and \
        shutil.which("unshare") else []

    def __init__(self, sh):
        self.sh = sh
        self.dir = tempfile.mkdtemp(prefix="dbb-test-rows.")
        self.log = os.path.join(self.dir, "log")
        for tool in ("ethtool", "ip", "modprobe", "rmmod"):
            path = os.path.join(self.dir, tool)
            with open(path, "w") as f:
                f.write(self.FAKE % self.EXTRA.get(tool, ""))
            os.chmod(path, 0o755)

    def guest(self, script, timeout=120, check=True):
        stub = ('ifof() { case "$1" in %s) echo eth0;; %s) echo eth1;; '
                '*) return 1;; esac; }\nwaitif() { ifof "$1" >/dev/null; }\n'
                'carrier() { true; }\n' % (router.MAC_A, router.MAC_B))
        lab = os.path.join(LAB, "guest")
        p = subprocess.run(
            self.NETNS + self.sh + ["-c", ". %s/lib.sh; . %s/router.sh\n%s%s"
                                    % (lab, lab, stub, script)],
            capture_output=True, text=True,
            env=dict(os.environ, LOG=self.log,
                     PATH=self.dir + ":" + os.environ["PATH"]))
        return p.returncode, p.stdout + p.stderr

    def calls(self):
        try:
            with open(self.log) as f:
                return f.read().splitlines()
        finally:
            os.unlink(self.log)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def fake_router(sh, **opts):
    """A Router that was never booted, its guest the host shell SH."""
    r = router.Router.__new__(router.Router)
    r.a = router.options("6.1", out="/tmp/unused", **opts)
    r.configs = r.a.configs
    r.shell = Shell(sh)
    r.guest = r.shell.guest
    r.xdp_running = False
    r.ct_warm = None
    return r


def shells():
    """The router guest's sh (bash: Router boots with bash as /bin/sh)
    and a POSIX one (the host's dash).  Not busybox's: its applets win
    over the fakes on PATH."""
    return [x for x in (["bash"], ["sh"]) if shutil.which(x[0])]


def case_router_sh_loads_a_driver():
    """load(): every port driver unloaded, the module loaded with its
    parameters, queues, rings and private flags on both ports, the links
    up; what the guest printed parsed (interfaces, channels, rings)."""
    for sh in shells():
        r = fake_router(sh, queues=4, rings=1024)
        cfg = router.Config("igc_batch", "tx_db_batched=1 foo=2",
                            "tx-db-skip-empty=on,other=off")
        r.load(cfg)
        calls = r.shell.calls()
        assert (r.ifa, r.ifb, r.queues_now) == ("eth0", "eth1", 4), sh
        assert r.rings_now == {"RX": "1024", "TX": "1024"}, sh
        assert "modprobe igc_batch tx_db_batched=1 foo=2" in calls, calls
        assert "ethtool -L eth0 combined 4" in calls, calls
        assert "ethtool -G eth1 rx 1024 tx 1024" in calls, calls
        assert ("ethtool --set-priv-flags eth1 tx-db-skip-empty on other "
                "off") in calls, calls
        assert "ip link set eth0 up" in calls, calls
        r.shell.close()


def case_router_sh_reports_a_failed_load():
    """A module that does not load stops the load with status 3 and the
    driver's name in the error, before any ethtool."""
    for sh in shells():
        r = fake_router(sh)
        try:
            r.load(router.Config("broken"))
            raise AssertionError("loaded a module modprobe refused")
        except RuntimeError as e:
            assert re.search(r"loading broken failed \(3\)", str(e)), e
        assert not any(c.startswith("ethtool") for c in r.shell.calls())
        r.shell.close()


def case_router_sh_stack_mode():
    """mode_setup("stack"): addresses, the next hops, forwarding on, the
    same RSS on port A; teardown turns forwarding off.  In a network
    namespace of its own: needs root."""
    if not Shell.NETNS:
        print("# skipped: not root (the stack mode writes /proc/sys/net)")
        return
    for sh in shells():
        r = fake_router(sh, rss="same", settle=0, no_irq_spread=True)
        r.ifa, r.ifb = "eth0", "eth1"
        r.mode_setup("stack")
        calls = r.shell.calls()
        assert "ip addr add %s dev eth0" % router.ADDR_A in calls, calls
        assert ("ip neigh replace %s lladdr %s dev eth1 nud permanent" % (
            router.SINK_IP, router.NEXT_HOP_MAC)) in calls, calls
        assert "ip route get %s" % router.SINK_IP in calls, calls
        assert "ethtool -N eth0 rx-flow-hash udp4 sdfn" in calls, calls
        r.mode_teardown("stack")
        r.shell.close()


if __name__ == "__main__":
    sys.exit(tap.run_cases(globals()))
