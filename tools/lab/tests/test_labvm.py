#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_labvm.py: unit tests of the lab harness's one-boot runner
(labvm.Tap.boot): a boot runs once and its checks count; one that died
of multi-threaded TCG's int3 text-patching fault is named as such (and
still fails: labvm.DEFAULT_ACCEL cannot hit it), a fault in our modules
or any other failure is not; router.booted: a guest that does not boot,
or a block that raises, is one failed check, never a traceback;
lab_prune_cache (tools/lab/lib/cache-prune.sh): which cached builds go;
tap.count_ktap; labvm.resolve_accel and the KVM probe's cache;
build-modules.sh waiting for another build of the same tree;
selftests.py's plan of the host-driven tests.

Host only, no guest: prints TAP.  Exit 0 when every case passed.
"""

import contextlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labvm  # noqa: E402
import router  # noqa: E402
import selftests  # noqa: E402
import tap  # noqa: E402

INT3_CORE = """[  41.1] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[  41.1] CPU: 1 PID: 0 Comm: swapper/1 Not tainted 6.12.117+deb12-amd64
[  41.1] RIP: 0010:ttwu_do_activate+0x5a/0x1c0
"""
INT3_OURS = INT3_CORE.replace("ttwu_do_activate+0x5a/0x1c0",
                              "igcb_tx_clean+0x42/0x300 [igc_batch]")


class FakeBoot:
    """A boot whose Nth run writes CONSOLES[N] as its console log and
    makes one check, failed when the console has an Oops."""

    def __init__(self, t, consoles):
        self.t, self.consoles, self.runs, self.dirs = t, consoles, 0, []

    def __call__(self):
        d = tempfile.mkdtemp(prefix="dbb-test-labvm.")
        self.dirs.append(d)
        con = self.consoles[self.runs]
        self.runs += 1
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write(con)
        self.t.check("run %d" % self.runs, "Oops" not in con)
        return d


def run(consoles):
    """Run a fake boot through Tap.boot() in a Tap of its own; return
    (runs, checks counted, failed, TAP text)."""
    saved, labvm.Tap.writer = labvm.Tap.writer, tap.Tap(diag_lead="#   ")
    t = labvm.Tap("fake")
    boot = FakeBoot(t, consoles)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        t.boot(boot)
    for d in boot.dirs:
        shutil.rmtree(d, ignore_errors=True)
    res = (boot.runs, t.mine, t.my_failed, out.getvalue())
    labvm.Tap.writer = saved
    return res


class FakeRouter:
    """router.Router's boot/shutdown/g, booting or not."""

    def __init__(self, boots):
        self.boots, self.gsh, self.shut = boots, None, False

    def boot(self):
        if not self.boots:
            raise RuntimeError("QEMU exited at once")
        self.gsh = True

    def guest(self, script):
        if not self.gsh:
            raise AttributeError("no guest shell")

    def shutdown(self):
        self.shut = True


def run_booted(boots, body_fails):
    """router.booted over a FakeRouter: (checks, failed, shut down, TAP
    text), or an exception that escaped as the TAP text."""
    saved, labvm.Tap.writer = labvm.Tap.writer, tap.Tap(diag_lead="#   ")
    t = labvm.Tap("fake")
    r = FakeRouter(boots)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            with router.booted(t, r, "fake"):
                r.guest("true")
                t.check("body", True)
                if body_fails:
                    raise RuntimeError("the block failed")
        res = (t.mine, t.my_failed, r.shut, out.getvalue())
    except Exception as e:
        res = (-1, -1, r.shut, "%s: %s" % (type(e).__name__, e))
    labvm.Tap.writer = saved
    return res


def fake_qmp(path, stop):
    """A QMP server on PATH that answers each qom-get with the path it
    was asked for, a little late (as QEMU's main loop may), and between
    replies now and then an event or a stale reply to an earlier
    command."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def serve():
        c, _ = srv.accept()
        f = c.makefile("r")
        c.sendall(b'{"QMP": {"version": {}}}\n')
        n = 0
        for line in f:
            msg = json.loads(line)
            ret = msg.get("arguments", {}).get("path", {})
            rep = {"return": ret}
            if "id" in msg:
                rep["id"] = msg["id"]
            time.sleep(0.0005 * (n % 3))
            if n % 7 == 0:
                c.sendall(b'{"event": "NIC_RX_FILTER_CHANGED"}\n')
            if n % 5 == 4 and "id" in msg:
                # the reply to an earlier command that timed out, late
                c.sendall(json.dumps({"return": "stale",
                                      "id": msg["id"] - 1}).encode() + b"\n")
            c.sendall(json.dumps(rep).encode() + b"\n")
            n += 1
            if stop.is_set():
                break
        c.close()
        srv.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    return th


def run_qmp_threads(rounds=300):
    """Two threads ask one labvm.QMP for two devices' truth, as a test's
    timer reads the truth while the step reads it too: how many replies
    went to the wrong asker."""
    d = tempfile.mkdtemp(prefix="dbb-test-qmp.")
    stop = threading.Event()
    try:
        fake_qmp(os.path.join(d, "qmp.sock"), stop)
        q = labvm.QMP(os.path.join(d, "qmp.sock"))
        wrong = []

        def ask(dev):
            for _ in range(rounds):
                try:
                    got = q.truth(dev)
                except Exception as e:
                    got = repr(e)
                if got != "/machine/peripheral/" + dev:
                    wrong.append(got)

        ts = [threading.Thread(target=ask, args=(x,))
              for x in ("nicA", "nicB")]
        for x in ts:
            x.start()
        for x in ts:
            x.join(60)
        stop.set()
        q.close()
        return len(wrong), wrong[:3]
    finally:
        shutil.rmtree(d, ignore_errors=True)


PRUNE = os.path.join(os.path.dirname(HERE), "lib", "cache-prune.sh")


def run_prune():
    """lab_prune_cache over 8 entries, newest first: five fresh, one used
    2 hours ago, one 2 days ago, one 3 days ago without a "hash" file (not
    a build entry).  Under set -euo pipefail, as build.sh runs it: (exit
    status, entries left)."""
    d = tempfile.mkdtemp(prefix="dbb-test-prune.")
    now = time.time()
    ages = [60 * i for i in range(5)] + [7200, 2 * 86400, 3 * 86400]
    for i, age in enumerate(ages):
        e = os.path.join(d, "%016x" % (0xa0 + i))
        os.mkdir(e)
        if i != 7:
            open(os.path.join(e, "hash"), "w").close()
        os.utime(e, (now - age, now - age))
    p = subprocess.run(["bash", "-c", 'set -euo pipefail; . "$1"; '
                        'lab_prune_cache "$2" 5; echo done', "-", PRUNE, d],
                       capture_output=True, text=True)
    left = sorted(int(x, 16) - 0xa0 for x in os.listdir(d))
    shutil.rmtree(d, ignore_errors=True)
    return p.returncode if "done" in p.stdout else -1, left


# run_kselftest.sh's output: a test whose cases passed and that then
# timed out (a failed parent with no failed leaf), a skip, a nested
# failure, the kernel's four-space KTAP, the lab's own lines
KTAP = """LAB-START 6.1.0-57-amd64 3.21
TAP version 13
1..3
# timeout set to 45
# selftests: net/dbbatch: dbbatch_core.sh
# TAP version 13
# 1..3
# ok 1 core: batch opens
# ok 2 core: nested # SKIP no second CPU
#     KTAP version 1
#     1..2
#     ok 1 module: a
#     not ok 2 module: b
# not ok 3 core: module cases
not ok 1 selftests: net/dbbatch: dbbatch_core.sh # exit=1
# selftests: net/dbbatch: slow.sh
# ok 1 slow: first
not ok 2 selftests: net/dbbatch: slow.sh # TIMEOUT 45 seconds
ok 3 selftests: net/dbbatch: quick.sh
LAB-TAINT 4096
LAB-EXIT 0
"""


HELLO_C = """// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

static int __init hello_init(void)
{
	return 0;
}
module_init(hello_init);

static void __exit hello_exit(void)
{
}
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("build-modules.sh lock test");
"""


def run_build_while_locked(build_modules=None):
    """build-modules.sh for 6.1 in a private cache, of a one-module tree,
    while this process holds the build tree's lock as another build
    would: (tree untouched and the build waiting after 1.5 s, its exit
    status once the lock is let go, .ko produced)."""
    import fcntl
    script = build_modules or os.path.join(labvm.LAB, "build-modules.sh")
    d = tempfile.mkdtemp(prefix="dbb-test-build.")
    try:
        tree = os.path.join(d, "tree")
        os.makedirs(tree)
        with open(os.path.join(tree, "hello.c"), "w") as f:
            f.write(HELLO_C)
        with open(os.path.join(tree, "Makefile"), "w") as f:
            f.write("obj-m := hello.o\n")
        bdir = os.path.join(d, "cache", "build", labvm.kernel_release("6.1"))
        os.makedirs(os.path.join(bdir, "src"))
        sentinel = os.path.join(bdir, "src", "another-build")
        open(sentinel, "w").close()
        env = dict(os.environ, LAB_REPO=tree,
                   DBBATCH_CACHE=os.path.join(d, "cache"))
        with open(os.path.join(bdir, ".lock"), "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            p = subprocess.Popen(["bash", script, "6.1",
                                  os.path.join(d, "out")], env=env,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(1.5)
            waited = os.path.exists(sentinel) and p.poll() is None
        rc = p.wait()
        return waited, rc, os.path.exists(os.path.join(d, "out",
                                                       "hello.ko"))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    named = "multi-threaded TCG's fault"
    cases = [
        ("a clean boot runs once and counts",
         ["ok\n"], lambda r: r[:3] == (1, 1, 0) and named not in r[3]),
        ("an int3 Oops outside our modules: one run, it fails, named as "
         "multi-threaded TCG's fault", [INT3_CORE, "ok\n"],
         lambda r: r[:3] == (1, 1, 1) and named in r[3]),
        ("an int3 Oops in igc_batch is ours: it fails, not named TCG's",
         [INT3_OURS, "ok\n"],
         lambda r: r[:3] == (1, 1, 1) and named not in r[3]),
        ("a failure without the int3 Oops: it fails, not named TCG's",
         ["[ 3.0] BUG: kernel NULL pointer dereference\nOops: 0002\n",
          "ok\n"], lambda r: r[:3] == (1, 1, 1) and named not in r[3]),
    ]
    booted = [
        ("router.booted: a guest that does not boot is one failed check, "
         "the guest is shut down, nothing escapes", (False, False),
         lambda r: r[:3] == (1, 1, True) and "did not boot" in r[3]),
        ("router.booted: a block that raises is one failed check after "
         "its passed ones, with the line that raised", (True, True),
         lambda r: r[:3] == (2, 1, True) and "the block failed" in r[3]
         and re.search(r'test_labvm\.py", line \d+, in run_booted', r[3])),
        ("router.booted: a clean block counts its checks, none failed",
         (True, False), lambda r: r[:3] == (1, 0, True)),
    ]
    tap.header()
    out = tap.Tap(diag_lead="#   ", diag_on_pass=False)
    for name, consoles, ok in cases:
        r = run(consoles)
        out.check("labvm: " + name, ok(r),
                  "runs %d, checks %d, failed %d; TAP: %r" % r)
    for name, args, ok in booted:
        r = run_booted(*args)
        out.check("labvm: " + name, ok(r),
                  "checks %d, failed %d, shut down %s; TAP: %r" % r)
    n, some = run_qmp_threads()
    out.check("labvm.QMP: two threads asking at once each get their own "
              "reply (a timer reads the truth during a step), a late reply "
              "to an earlier command skipped", n == 0,
              "%d replies to the wrong thread, e.g. %r" % (n, some))
    p, f, sk, failures = tap.count_ktap(KTAP)
    out.check("tap.count_ktap: leaves count, a failed parent only when no "
              "leaf inside failed, skips apart, LAB- lines ignored",
              (p, f, sk) == (4, 2, 1) and failures == [
                  "not ok 2 module: b", "not ok 2 selftests: net/dbbatch: "
                  "slow.sh # TIMEOUT 45 seconds (no failed case inside)"],
              "passed %d, failed %d, skipped %d; failures %r"
              % (p, f, sk, failures))
    out.check("tap.count_ktap: output without a result counts nothing",
              tap.count_ktap("LAB-START x\nno tests here\nLAB-EXIT 0\n")
              [:3] == (0, 0, 0))
    os.environ["LAB_ACCEL"] = "tcg,thread=multi"
    forced = labvm.resolve_accel("auto")
    del os.environ["LAB_ACCEL"]
    try:
        labvm.resolve_accel("tcg,thread=mult")
        typo = None
    except SystemExit as e:
        typo = str(e)
    out.check("labvm.resolve_accel: LAB_ACCEL decides for auto, a named "
              "accelerator stays as it is, tcg is the lab's (one thread), "
              "a misspelt one is refused",
              forced == "tcg,thread=multi" and
              labvm.resolve_accel("kvm") == "kvm" and
              labvm.resolve_accel("tcg") == labvm.TCG_ACCEL and
              typo and "not one of" in typo, "%s; %s" % (forced, typo))
    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "qemu")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'failed to initialize kvm: Device or "
                    "resource busy' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        try:
            verdict = labvm._kvm_probe(fake, "6.1")
        except Exception as e:
            verdict = repr(e)
    out.check("labvm._kvm_probe: a QEMU that stops before it opens its "
              "serial ports is a no, with its words",
              verdict[0] == "no" and "failed to initialize kvm" in
              verdict[1] if isinstance(verdict, tuple) else False,
              verdict)
    saved = labvm.KVM_PROBE, labvm._kvm_probe, labvm.KVM_DEV
    probes = []
    with tempfile.TemporaryDirectory() as d:
        labvm.KVM_PROBE = os.path.join(d, "kvm-probe")
        labvm.KVM_DEV = labvm.KVM_PROBE + ".dev"     # a usable "device"
        open(labvm.KVM_DEV, "w").close()
        labvm._kvm_probe = lambda qemu, short: probes.append(1) or \
            ("no", "fake probe")
        try:
            first = labvm.kvm_usable("qemu")
            second = labvm.kvm_usable("qemu")
            with open(labvm.KVM_PROBE, "w") as f:
                f.write("yes\tanother machine\tfake\n")
            other = labvm.kvm_usable("qemu")
        finally:
            labvm.KVM_PROBE, labvm._kvm_probe, labvm.KVM_DEV = saved
    out.check("labvm.kvm_usable: one probe boot per machine, its verdict "
              "kept; a verdict of another machine is not trusted",
              (first, second, other, len(probes)) == (False, False, False,
                                                      2),
              "verdicts %s %s %s after %d probes"
              % (first, second, other, len(probes)))
    waited, rc, ko = run_build_while_locked(
        os.environ.get("TEST_BUILD_MODULES"))
    out.check("build-modules.sh: a build for a kernel whose tree another "
              "build holds waits, leaves that tree alone, then builds",
              waited and rc == 0 and ko,
              "waited untouched %s, exit status %d, .ko built %s"
              % (waited, rc, ko))
    runs = selftests.plan(["6.1", "6.12"], ["6.12-rt"])
    files = {os.path.basename(r[4][r[4].index("--kernel") - 1]): []
             for r in runs}
    for r in runs:
        files[os.path.basename(r[4][r[4].index("--kernel") - 1])].append(
            r[4][r[4].index("--kernel") + 1])
    declared = {f for f, c in selftests.tests().items() if c}
    logs = [r[1] for r in runs]
    out.check("selftests.plan: every test of the directory whose LAB_CHECK "
              "is not empty runs, on the kernels it names, in stage order, "
              "a test split in parts once per part and kernel",
              set(files) == declared and
              files["kernel_drivers_net.py"] == ["6.12"] and
              files["igc_batch_lab.py"] == ["6.1", "6.1", "6.12", "6.12",
                                            "6.12-rt", "6.12-rt"] and
              files["forwarding.py"] == ["6.1", "6.12"] and
              logs.index("forwarding-6.1") <
              logs.index("igc_batch_lab-router-6.1") <
              logs.index("igc_batch_lab-tcp-6.1") <
              logs.index("kernel_drivers_net-6.12") <
              logs.index("report_smoke-6.1") and
              logs[-2:] == ["igc_batch_lab-router-6.12-rt",
                            "igc_batch_lab-tcp-6.12-rt"] and
              len(set(logs)) == len(logs),
              "%d runs: %s" % (len(runs), logs))
    refused = []
    for text in ("import sys\n",
                 'LAB_CHECK = [{"stage": 1, "kernels": "6.12", '
                 '"label": "x"}]\n',
                 'LAB_CHECK = [{"stage": 1, "kernels": "each", '
                 '"label": "x", "arg": []}]\n',
                 'LAB_CHECK = [{"stage": 1, "kernels": "each", '
                 '"label": "x"}, {"stage": 2, "kernels": "first", '
                 '"label": "y"}]\n'):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "new_test.py"), "w") as f:
                f.write(text)
            saved, selftests.TESTS = selftests.TESTS, d
            try:
                selftests.tests()
                selftests.plan(["6.1", "6.12"], [])
                refused.append(None)
            except SystemExit as e:
                refused.append(str(e))
            finally:
                selftests.TESTS = saved
    out.check("selftests.tests: a test without LAB_CHECK, or with a run it "
              "would misread (kernels a string, an unknown key, two runs "
              "on one kernel with no part to tell their logs apart), is "
              "refused, saying what is wrong",
              None not in refused and "has no LAB_CHECK" in refused[0] and
              "kernels is" in refused[1] and "unknown keys arg" in
              refused[2] and "two runs log to new_test-6.1" in refused[3],
              refused)
    args = router.options(root_port=["B"])
    r = router.Router.__new__(router.Router)     # its QEMU arguments only
    r.a = args
    devs = [r.port_args("dbb-igc", "B", "pb", 5, router.MAC_B)] + [
        r.port_args("dbb-igc", n, "p" + n, router.EXTRA_SLOT + i,
                    "52:54:00:db:b0:%02x" % (0x10 + i),
                    router.EXTRA_ROOT_SLOT + i)
        for i, n in enumerate("CDEF")]
    behind = [d[-1] for d in devs]
    out.check("router.port_args: a port behind a root port has no address "
              "of its own on the root port's bus (slots in hex), the root "
              "ports each their own slot",
              all(",addr=" not in d and ",bus=rp" in d for d in behind) and
              len({d[1].split("addr=")[1] for d in devs}) == len(devs),
              "\n".join(" ".join(d) for d in devs))
    rc, left = run_prune()
    out.check("labvm: lab_prune_cache keeps the 5 newest builds and any "
              "used in the last day, removes an older one, and succeeds "
              "when it keeps the last one it looks at",
              rc == 0 and left == [0, 1, 2, 3, 4, 5, 7],
              "exit status %d, entries left %s" % (rc, left))
    out.plan()
    return out.exit_code()


if __name__ == "__main__":
    sys.exit(main())
