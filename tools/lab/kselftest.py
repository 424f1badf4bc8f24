#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kselftest.py [6.1|6.12|6.12-rt|6.12-debug|all]   (default: all = 6.1 6.12)

The core's kselftests in a guest of each kernel: build our modules
against Debian's headers (W=1, sparse), install
tools/testing/selftests/net/dbbatch the way the kernel does (its
kselftest Makefile, which writes run_kselftest.sh's list), pack both
into the lab's initramfs (labvm.build_initramfs: guest/init runs
/kselftest/run_kselftest.sh, results on ttyS1), boot Debian's own kernel
image in QEMU, and count the KTAP results (tap.count_ktap).  Outputs per
kernel in ${LAB_OUT:-<repo>/build/lab}/<kver>/: results.txt (ttyS1: test
output only), console.log (ttyS0: the kernel's log too), build.log,
run.log (this program's log of the boot), modules/*.ko, initramfs.cpio.gz.

A kernel passes when its modules built cleanly, the guest ran at least
one test with none failing, ended with "LAB-EXIT 0", and stayed healthy:
no Oops, BUG:, WARNING:, panic in its console and no taint but O (out of
tree) and E (unsigned module).  Oopses do not panic the guest (the rest of
the tests still run); they are found in the console log.  The last line
is "lab: P passed, F failed, S skipped"; exit 0 only if every kernel
passed.

Environment: LAB_TIMEOUT (300 s a guest), LAB_APPEND (more kernel command
line, e.g. dbbatch.param=1; NAME=value without a dot becomes an
environment variable of the tests), LAB_QEMU (default: the lab's build,
qemu/build.sh), LAB_ACCEL (default auto: labvm.resolve_accel()),
LAB_GUEST_MODULES (Debian modules to add; our modules' dependencies come
anyway).  Needs tools/lab/setup.sh to have run once.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import labvm  # noqa: E402
import router  # noqa: E402
import tap  # noqa: E402

# LAB_REPO: build and test another tree (build-modules.sh takes it too)
REPO = os.environ.get("LAB_REPO") or labvm.REPO
TESTS = os.path.join(REPO, "tools/testing/selftests/net/dbbatch")
# Host tools the kselftests run in the guest (timeout: coreutils', for
# run_kselftest.sh's --foreground, which busybox lacks)
TOOLS = labvm.BASE_TOOLS + (
    ("bash", "bash"), ("bpftool", "bpftool"), ("xdp-bench", "xdp-tools"),
    ("xdp-loader", "xdp-tools"), ("xdpdump", "xdp-tools"),
    ("xdp-monitor", "xdp-tools"), ("xdp-trafficgen", "xdp-tools"),
    ("iperf3", "iperf3"), ("timeout", "coreutils"))
# libxdp's BPF objects (the XDP dispatcher), iproute2's tables
DIRS = ("/usr/lib/x86_64-linux-gnu/bpf", "/etc/iproute2")
SICK = re.compile(r"Oops|BUG:|WARNING:|Kernel panic|"
                  r"general protection fault")


def say(msg):
    print("lab: " + msg, flush=True)


def install_kselftests():
    """Our tests as net/dbbatch in a minimal kernel-shaped tree (the
    skeleton from linux-source), installed by the kernel's own kselftest
    Makefile; returns the install directory."""
    ksrc = os.path.join(labvm.CACHE, "src", "linux-source-6.1")
    sk = os.path.join(ksrc, "tools/testing/selftests")
    if not os.path.exists(os.path.join(sk, "lib.mk")):
        raise SystemExit("lab: kselftest skeleton missing in %s; run "
                         "tools/lab/setup.sh" % ksrc)
    for tool in ("make", "rsync"):      # lib.mk installs with rsync
        if not shutil.which(tool):
            raise SystemExit("lab: %s not found; apt-get install %s"
                             % (tool, tool))
    ks = os.path.join(labvm.CACHE, "build", "kselftest")
    shutil.rmtree(ks, ignore_errors=True)
    st = os.path.join(ks, "tree/tools/testing/selftests")
    os.makedirs(os.path.join(st, "net"))
    os.makedirs(os.path.join(ks, "tree/scripts"))
    shutil.copy(os.path.join(ksrc, "scripts/subarch.include"),
                os.path.join(ks, "tree/scripts"))
    for f in ["Makefile", "lib.mk", "run_kselftest.sh"] + \
            [os.path.basename(x) for x in glob.glob(sk + "/kselftest*")]:
        src = os.path.join(sk, f)
        (shutil.copytree if os.path.isdir(src) else shutil.copy2)(
            src, os.path.join(st, f))
    if os.path.exists(os.path.join(sk, "net/lib.sh")):
        shutil.copy(os.path.join(sk, "net/lib.sh"), os.path.join(st, "net"))
    shutil.copytree(TESTS, os.path.join(st, "net/dbbatch"))
    inst = os.path.join(ks, "install")
    logf = os.path.join(ks, "install.log")
    with open(logf, "w") as f:
        rc = subprocess.run(["make", "-C", st, "TARGETS=net/dbbatch",
                             "INSTALL_PATH=" + inst, "install"],
                            stdout=f, stderr=subprocess.STDOUT).returncode
    if rc:
        with open(logf) as f:
            sys.stderr.write("".join(f.readlines()[-20:]))
        raise SystemExit("lab: kselftest install failed; full log: %s"
                         % logf)
    with open(os.path.join(inst, "kselftest-list.txt")) as f:
        if not re.search(r"^net/dbbatch:", f.read(), re.M):
            raise SystemExit("lab: kselftest install lists no net/dbbatch "
                             "test (TEST_PROGS empty?); see %s" % logf)
    return inst


def boot(qemu, kver, mods, ksft, out, logf):
    """Build the initramfs, boot, wait; the guest's verdict: "" when it
    ran its tests to LAB-EXIT 0 and stayed healthy, else why not (also
    in LOGF, run.log)."""
    why = run_guest(qemu, kver, mods, ksft, out, logf)
    if why:
        logf.write("lab: guest %s: %s\n" % (kver, why))
    return why


def run_guest(qemu, kver, mods, ksft, out, logf):
    """boot()'s work."""
    initrd = os.path.join(out, "initramfs.cpio.gz")
    kos = sorted(glob.glob(os.path.join(mods, "*.ko")))
    if not kos:
        return "no *.ko in %s" % mods
    vmlinuz = labvm.build_initramfs(
        kver, initrd, tools=TOOLS,
        kmods=tuple(os.environ.get("LAB_GUEST_MODULES", "").split()),
        extra_ko=kos, dirs=[d for d in DIRS if os.path.isdir(d)],
        trees={"/kselftest": ksft}, bash_sh=True)
    results = os.path.join(out, "results.txt")
    console = os.path.join(out, "console.log")
    tmo = int(os.environ.get("LAB_TIMEOUT", "300"))
    accel = labvm.resolve_accel(labvm.DEFAULT_ACCEL, qemu)
    cmd = labvm.qemu_cmd(qemu, accel, vmlinuz, initrd, console, None,
                         os.environ.get("LAB_APPEND", ""), mem=1024, smp=2,
                         quiet=False) + ["-nic", "none", "-serial",
                                         "file:" + results]

    def note(msg):
        say(msg)
        logf.write("lab: %s\n" % msg)
        logf.flush()

    note("booting %s (%s, timeout %d s)" % (kver, accel, tmo))
    start = time.time()
    with open(console + ".qemu", "w") as qout:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qout,
                             stderr=subprocess.STDOUT)
        booted = None
        while p.poll() is None and time.time() - start < tmo:
            if booted is None and os.path.getsize(results) > 0:
                booted = time.time() - start
                note("%s boot time: %.1f s (QEMU start to /init)"
                     % (kver, booted))
            time.sleep(0.2)
        timed_out = p.poll() is None
        if timed_out:
            p.kill()
        p.wait()
    note("%s guest ran %.1f s" % (kver, time.time() - start))
    with open(console + ".qemu", errors="replace") as f:
        tail = f.read()
    os.unlink(console + ".qemu")
    with open(console, "a") as f:
        f.write(tail)
    with open(console, errors="replace") as f:
        con = f.read()
    with open(results, errors="replace") as f:
        res = f.read().replace("\r", "")
    if timed_out:
        return "timed out after %d s; console log: %s" % (tmo, console)
    m = SICK.search(con)
    if m:
        lines = con[con.rfind("\n", 0, m.start()) + 1:].splitlines()
        excerpt = "---- %s, from the first problem ----\n%s\n----\n" % (
            console, "\n".join(lines[:40]))
        sys.stderr.write(excerpt)
        logf.write(excerpt)
        return "kernel problem in console log %s: %s" % (console, lines[0])
    flags = "".join(re.findall(r"Tainted: ([A-Z ]*) [0-9]", con))
    flags = re.sub(r"[ GOE]", "", flags)
    if flags:
        return "kernel tainted with flags '%s'; console log: %s" % (
            flags, console)
    taint = re.findall(r"^LAB-TAINT ([0-9]+)$", res, re.M)
    if taint and int(taint[-1]) & ~router.TAINT_OOT_UNSIGNED:
        return ("kernel tainted (%s = %#x); see Documentation/admin-guide/"
                "tainted-kernels.rst; console log: %s"
                % (taint[-1], int(taint[-1]), console))
    last = [x for x in res.splitlines() if x.strip()][-1:] or [""]
    if last[0] == "LAB-EXIT 0":
        return ""
    if last[0].startswith("LAB-EXIT "):
        return "tests exited with status %s; results: %s" % (
            last[0][9:], results)
    return ("no LAB-EXIT line (qemu exit %d; guest crashed or init failed);"
            " results: %s; console log: %s" % (p.returncode, results,
                                                console))


def main(argv):
    which = argv[0] if argv else "all"
    if len(argv) > 1 or which in ("-h", "--help"):
        print(__doc__.splitlines()[0])
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    versions = list(labvm.DEFAULT_KERNELS) if which == "all" else [which]
    # Debian's QEMU 7.2 garbles EFLAGS after CMPXCHG16B
    # (qemu/patches/tcg-i386-cmpxchg-cc-op.diff): the lab's build
    qemu = os.environ.get("LAB_QEMU") or labvm.qemu_binary()
    outdir = os.environ.get("LAB_OUT") or os.path.join(REPO, "build", "lab")
    try:
        releases = {v: labvm.kernel_release(v) for v in versions}
    except subprocess.CalledProcessError:
        print("usage: tools/lab/kselftest.py [6.1|6.12|6.12-rt|6.12-debug|"
              "all]", file=sys.stderr)
        return 2
    ksft = install_kselftests()
    notes, counts = [], []
    tp = tf = ts = 0
    rc_all = 0
    for v in versions:
        kver = releases[v]
        out = os.path.join(outdir, kver)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        print("==== lab: kernel %s (%s)" % (v, kver), flush=True)
        mods = os.path.join(out, "modules")
        built = subprocess.run([os.path.join(LAB, "build-modules.sh"), kver,
                                mods]).returncode == 0
        if os.path.exists(os.path.join(mods, "build.log")):
            shutil.move(os.path.join(mods, "build.log"), out)
        p = f = s = 0
        # the results channel exists whatever happens to the guest
        open(os.path.join(out, "results.txt"), "w").close()
        if built:
            with open(os.path.join(out, "run.log"), "w") as logf:
                why = boot(qemu, kver, mods, ksft, out, logf)
            with open(os.path.join(out, "results.txt"),
                      errors="replace") as fh:
                p, f, s, failures = tap.count_ktap(fh.read())
            for x in failures:
                sys.stderr.write("%s: FAILED: %s\n" % (v, x))
            if p + f == 0:
                why = why or "no test ran (only %d skipped)" % s
            if why:
                sys.stderr.write("lab: guest %s: %s\n" % (kver, why))
            note = "%s: guest %s" % (kver, why or "ok")
        else:
            why = "module build FAILED, see %s/build.log" % out
            note = "%s: %s" % (kver, why)
        # A kernel that failed outside any test (build, timeout, oops,
        # taint) counts as one failure so that the total never reads clean.
        if why or f:
            rc_all = 1
            note += " -> FAILED (%s/)" % out
            f = max(f, 1)
        count = "%s: %d passed, %d failed, %d skipped" % (v, p, f, s)
        tp, tf, ts = tp + p, tf + f, ts + s
        notes.append(note)
        counts.append(count)
        print("==== " + note, flush=True)
        print("==== " + count, flush=True)
    print("==== lab summary (outputs in %s)" % outdir)
    print("\n".join(notes + counts))
    print("lab: %d passed, %d failed, %d skipped" % (tp, tf, ts), flush=True)
    return rc_all


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
