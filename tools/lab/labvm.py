"""labvm: the lab library's guest layer.  Every lab guest is built and
booted here: Debian's kernel in QEMU, a busybox initramfs, tools/lab/guest/
as /lab and guest/init as /init.  Python 3 stdlib.

    import sys; sys.path.insert(0, "<repo>/tools/lab"); import labvm

* build_initramfs(): a throwaway busybox initramfs with host tools (and
  their libraries), Debian modules from the unpacked kernel image (with
  their dependencies), our own *.ko, extra files and trees, /lab and /init;
* qemu_cmd(): the common part of the QEMU command line (Debian's firmware,
  q35, the accelerator, serial console to a file, QMP on a UNIX socket);
* resolve_accel(): the accelerator a guest runs under: DEFAULT_ACCEL
  ("auto") is KVM where a probe boot (kvm_usable()) shows it works, else
  TCG_ACCEL;
* QMP: a minimal QMP client;
* GuestShell: a command channel into a running guest booted with
  "lab.shell" (guest/init): ttyS1 <-> a UNIX socket; run a command, get
  its output and exit status;
* InsnCounter: the guest's executed-instruction count, readable at any
  moment, from the dbb_insn.so QEMU plugin (tools/lab/plugin/);
* sections(), kernel_release(), sh(), log().
"""

import contextlib
import fcntl
import hashlib
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

import tap

LAB = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(LAB))
QDIR = os.path.join(LAB, "qemu")
GUEST = os.path.join(LAB, "guest")     # /lab in every guest
CACHE = os.environ.get("DBBATCH_CACHE", "/var/cache/dbbatch")
# The accelerator every lab guest uses unless told otherwise: KVM where a
# probe boot shows it works (resolve_accel()), else TCG on one host
# thread.  QEMU 7.2's multi-threaded TCG lets a vCPU run a translation
# made while another vCPU was patching kernel text (fixed in QEMU 8.1,
# "accel/tcg: Always lock pages before translation"): guests died of
# "Oops: int3" or hung (the selftest tcg_text_poke.py reproduces it in
# seconds).  Benchmarks that need both host cores ask for tcg,thread=multi.
DEFAULT_ACCEL = "auto"
TCG_ACCEL = "tcg,thread=single"
# What --accel and LAB_ACCEL take; "tcg" is the lab's TCG (one thread):
# QEMU's own default for x86_64 would be multi-threaded.
ACCEL_CHOICES = ("auto", "kvm", "tcg", TCG_ACCEL, "tcg,thread=multi")
# The kernels a lab test runs on when not told (tools/lab/lib/common.sh's
# LAB_KERNELS)
DEFAULT_KERNELS = ("6.1", "6.12")
# The probe's verdict, per machine and host kernel (whether KVM works is
# the host's business, not the QEMU build's).
KVM_PROBE = os.path.join(CACHE, "kvm-probe")
KVM_DEV = "/dev/kvm"

# Tools every guest gets (tool, Debian package); cpio and busybox are used on
# the host to build the archive, the others are copied into it.
BASE_TOOLS = (("cpio", "cpio"), ("busybox", "busybox-static"),
              ("kmod", "kmod"), ("ethtool", "ethtool"), ("ip", "iproute2"))


def log(msg):
    print("# " + msg, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True,
                          stdout=subprocess.PIPE, **kw).stdout.decode()


def kernel_release(short):
    """6.1|6.12|6.12-rt|6.12-debug (or a full release) -> e.g.
    6.1.0-57-amd64, 6.12.117-dbb-debug."""
    return sh(["bash", "-c", '. "$1/lib/common.sh"; lab_kernel_release "$2"',
               "-", LAB, short]).strip()


def qemu_binary(path=None):
    """Our QEMU (tools/lab/qemu/build.sh, cached) unless PATH is given."""
    return path or sh([os.path.join(QDIR, "build.sh")]).splitlines()[-1]


def build_initramfs(kver, out, tools=BASE_TOOLS, kmods=("igc",),
                    extra_ko=(), files=None, dirs=(), trees=None,
                    bash_sh=False):
    """Build OUT (gzip'd newc cpio) for kernel release KVER; return vmlinuz.

    tools: (tool, package) pairs that must exist on the host; all but cpio
    and busybox are copied with their libraries (kmod also provides
    modprobe, insmod, lsmod, depmod, rmmod, modinfo).  kmods: Debian
    modules taken from the unpacked image with their dependencies.
    extra_ko: our own .ko files, into /lib/modules/KVER/extra.  files:
    {guest path: host path}, copied with mode 0755.  dirs: host
    directories copied to the same path.  trees: {guest path: host
    directory}, copied there with the libraries of every program in it
    (e.g. a kselftest install).  bash_sh: /bin/sh is bash (the host's)
    instead of busybox ash.  Every guest gets tools/lab/guest/ as /lab and
    guest/init as /init: what it does is said on the kernel command line
    (lab.shell, lab.run=CMD)."""
    kdir = os.path.join(CACHE, "kernels", kver)
    if not os.path.exists(os.path.join(kdir, "vmlinuz")):
        raise SystemExit("no kernel image in %s; run tools/lab/setup.sh"
                         % kdir)
    for tool, pkg in tools:
        if not shutil.which(tool):
            raise SystemExit("%s not found; apt-get install %s" % (tool, pkg))
    root = tempfile.mkdtemp(prefix="dbb-igc-initramfs.")
    try:
        for d in ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "dev",
                  "proc", "sys", "tmp", "run", "etc", "root", "var"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for d in ("bin", "sbin", "lib", "lib64"):
            os.symlink("usr/" + d, os.path.join(root, d))
        os.symlink("../run", os.path.join(root, "var/run"))

        def copy(path):
            dst = root + path
            if os.path.exists(dst):
                return
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.realpath(path), dst)

        def copy_libs(path):
            # ldd fails on a static program: it needs nothing then
            out = subprocess.run(["ldd", path], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL).stdout.decode()
            for line in out.splitlines():
                m = re.search(r"(/\S+) \(0x", line)
                if m:
                    copy(m.group(1))

        def copy_bin(path):
            copy(path)
            copy_libs(path)

        for tool, _ in tools:
            if tool in ("cpio", "busybox"):
                continue
            path = shutil.which(tool)
            copy_bin(path)
            if tool == "ip" and path != "/usr/sbin/ip":
                os.symlink(path, root + "/usr/sbin/ip")
        if shutil.which("kmod") and any(t == "kmod" for t, _ in tools):
            for m in ("modprobe", "insmod", "lsmod", "depmod", "rmmod",
                      "modinfo"):
                os.symlink("/usr/bin/kmod", root + "/usr/sbin/" + m)
        if bash_sh:
            if not os.path.exists(root + "/usr/bin/bash"):
                copy_bin(shutil.which("bash"))
            os.symlink("bash", root + "/usr/bin/sh")
        shutil.copy(shutil.which("busybox"), root + "/usr/bin/busybox")
        for applet in sh(["busybox", "--list-full"]).split():
            p = os.path.join(root, applet)
            if not os.path.lexists(p):
                os.makedirs(os.path.dirname(p), exist_ok=True)
                os.symlink("/usr/bin/busybox", p)
        shutil.copy(os.path.join(QDIR, "dbb-truth.sh"),
                    root + "/usr/bin/dbb-truth.sh")
        os.chmod(root + "/usr/bin/dbb-truth.sh", 0o755)
        for gpath, hpath in (files or {}).items():
            os.makedirs(os.path.dirname(root + gpath), exist_ok=True)
            shutil.copy(hpath, root + gpath)
            os.chmod(root + gpath, 0o755)
        for d in dirs:
            shutil.copytree(d, root + d, symlinks=True, dirs_exist_ok=True)
        for gpath, hdir in (trees or {}).items():
            shutil.copytree(hdir, root + gpath, symlinks=True,
                            dirs_exist_ok=True)
            for top, _, names in os.walk(hdir):
                for n in names:
                    f = os.path.join(top, n)
                    if os.path.islink(f) or not os.access(f, os.X_OK):
                        continue
                    with open(f, "rb") as fh:
                        elf = fh.read(4) == b"\x7fELF"
                    if elf:
                        copy_libs(f)
        shutil.copytree(GUEST, root + "/lab", dirs_exist_ok=True)
        with open(root + "/etc/passwd", "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\n")
        with open(root + "/etc/group", "w") as f:
            f.write("root:x:0:\n")
        with open(root + "/etc/hosts", "w") as f:
            f.write("127.0.0.1 localhost\n")
        with open(root + "/etc/services", "w") as f:
            f.write("")

        mroot = os.path.join(kdir, "lib/modules", kver)
        groot = root + "/lib/modules/" + kver
        os.makedirs(groot)
        for f in os.listdir(mroot):
            if f.startswith("modules.builtin") or f == "modules.order":
                shutil.copy(os.path.join(mroot, f), groot)
        # Debian modules our own need (e.g. nothing, or page_pool users).
        ours = [os.path.basename(k)[:-3] for k in extra_ko]
        want = list(kmods)
        for ko in extra_ko:
            for d in sh(["modinfo", "-F", "depends", ko]).strip().split(","):
                if d and d not in ours and d not in want:
                    want.append(d)
        for name in want:
            try:
                deps = sh(["modprobe", "-d", kdir, "-S", kver,
                           "--show-depends", name], stderr=subprocess.PIPE)
            except subprocess.CalledProcessError as e:
                raise SystemExit("module %s not found in Debian's %s image "
                                 "(%s)" % (name, kver, e.stderr.decode(
                                     errors="replace").strip()))
            for line in deps.splitlines():
                if line.startswith("insmod "):
                    ko = line.split()[1]
                    rel = os.path.relpath(ko, mroot)
                    os.makedirs(os.path.dirname(os.path.join(groot, rel)),
                                exist_ok=True)
                    shutil.copy(ko, os.path.join(groot, rel))
        if extra_ko:
            os.makedirs(os.path.join(groot, "extra"))
            for ko in extra_ko:
                shutil.copy(ko, os.path.join(groot, "extra"))
        sh(["depmod", "-b", root, kver])
        shutil.copy(os.path.join(GUEST, "init"), root + "/init")
        os.chmod(root + "/init", 0o755)
        # Written aside and renamed: another run's QEMU may be reading OUT.
        tmp = "%s.tmp.%d" % (out, os.getpid())
        subprocess.run("cd %s && find . -mindepth 1 | LC_ALL=C sort | "
                       "cpio -o -H newc -R 0:0 --quiet | gzip -1 > %s"
                       % (root, tmp), shell=True, check=True)
        listing = subprocess.run("gzip -dc %s | cpio -t --quiet" % tmp,
                                 shell=True, stdout=subprocess.PIPE,
                                 text=True).stdout.split()
        if "init" not in listing or "usr/bin/busybox" not in listing:
            os.unlink(tmp)
            raise SystemExit("initramfs %s is broken (no /init or busybox "
                             "in it); check that cpio works (apt-get "
                             "install cpio)" % out)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return os.path.join(kdir, "vmlinuz")


def qemu_cmd(qemu, accel, vmlinuz, initrd, console, qmp_path, append="",
             mem=1024, smp=4, quiet=True):
    """The common QEMU command line; the caller adds -netdev/-device.
    ACCEL goes through resolve_accel() ("auto": kvm or TCG_ACCEL).
    QMP_PATH None: no QMP socket.  QUIET: the kernel prints warnings and
    worse only (loglevel=5)."""
    accel = resolve_accel(accel, qemu)
    cmd = [qemu, "-L", "/usr/share/seabios", "-L", "/usr/share/qemu",
           "-M", "q35", "-accel", accel, "-m", str(mem), "-smp", str(smp),
           "-display", "none", "-monitor", "none", "-no-reboot",
           "-serial", "file:" + console]
    if qmp_path:
        cmd += ["-qmp", "unix:%s,server=on,wait=off" % qmp_path]
    cmd += ["-kernel", vmlinuz, "-initrd", initrd,
           # A lockup or a stall puts every CPU's stack on the console
           # file: a hung guest cannot be asked for its dmesg.
           "-append", "console=ttyS0 panic=-1 %ssoftlockup_all_cpu_backtrace=1 "
           % ("quiet loglevel=5 " if quiet else "") + append]
    if accel.split(",")[0] == "kvm":
        i = cmd.index("-accel") + 2
        cmd[i:i] = ["-cpu", "host"]
    return cmd


def resolve_accel(name=DEFAULT_ACCEL, qemu=None):
    """The QEMU -accel argument for NAME (one of ACCEL_CHOICES): "auto" is
    kvm where kvm_usable() says so, else TCG_ACCEL; "tcg" is TCG_ACCEL.
    LAB_ACCEL in the environment overrides "auto"."""
    if name == "auto":
        name = os.environ.get("LAB_ACCEL") or "auto"
    if name not in ACCEL_CHOICES:
        raise SystemExit("accelerator %r is not one of %s (LAB_ACCEL, "
                         "--accel)" % (name, ", ".join(ACCEL_CHOICES)))
    if name == "tcg":
        return TCG_ACCEL
    if name != "auto":
        return name
    return "kvm" if kvm_usable(qemu) else TCG_ACCEL


def kvm_usable(qemu=None, short="6.1"):
    """Can this machine run a lab guest under KVM?  /dev/kvm existing is
    not enough: on some machines a VM can be created but the guest hangs
    in early boot.  So a probe boots kernel SHORT under KVM with a minimal
    initramfs (guest/init, lab.run=true), bounded by LAB_KVM_PROBE_TIMEOUT
    (60 s), and says yes only if init ran.  The verdict is kept in
    KVM_PROBE per machine id and host kernel (LAB_KVM_REPROBE=1 or
    deleting the file probes again); one probe runs at a time."""
    try:
        with open("/etc/machine-id") as f:
            key = f.read().strip()
    except OSError:
        key = socket.gethostname()
    key += " " + os.uname().release

    def cached():
        try:
            with open(KVM_PROBE) as f:
                v, k = f.read().split("\t")[:2]
            return v if k == key else None
        except (OSError, ValueError):
            return None

    if not os.environ.get("LAB_KVM_REPROBE") and cached():
        return cached() == "yes"
    os.makedirs(CACHE, exist_ok=True)
    with lock("LAB_KVM_PROBE_LOCK", KVM_PROBE + ".lock", "the KVM probe"):
        if not os.environ.get("LAB_KVM_REPROBE") and cached():
            return cached() == "yes"
        if not os.access(KVM_DEV, os.R_OK | os.W_OK):
            verdict, why = "no", "no usable " + KVM_DEV
        else:
            verdict, why = _kvm_probe(qemu_binary(qemu), short)
        with open(KVM_PROBE + ".tmp", "w") as f:
            f.write("%s\t%s\t%s\n" % (verdict, key, why))
        os.replace(KVM_PROBE + ".tmp", KVM_PROBE)
        log("KVM probe: %s (%s)" % (verdict, why))
        return verdict == "yes"


def _kvm_probe(qemu, short):
    """(verdict, reason) of one probe boot under KVM."""
    t = int(os.environ.get("LAB_KVM_PROBE_TIMEOUT", "60"))
    with tempfile.TemporaryDirectory(prefix="lab-kvm-probe.") as work:
        initrd = os.path.join(work, "initrd")
        vmlinuz = build_initramfs(kernel_release(short), initrd, kmods=(),
                                  tools=BASE_TOOLS[:2])
        console = os.path.join(work, "console.log")
        results = os.path.join(work, "results.txt")
        log("probing KVM: booting %s under KVM (at most %d s, once per "
            "machine)" % (short, t))
        cmd = qemu_cmd(qemu, "kvm", vmlinuz, initrd, console, None,
                       "lab.run=true", mem=256, smp=1) + [
            "-nic", "none", "-serial", "file:" + results]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=t)
            why = "qemu -accel kvm failed (exit %d): %s" % (
                p.returncode,
                p.stdout.decode(errors="replace")[:200].strip())
        except subprocess.TimeoutExpired:
            why = "KVM guest hung: no /init within %d s" % t
        try:
            with open(results, errors="replace") as f:
                reached = "LAB-START" in f.read()
        except OSError:     # QEMU stopped before it opened its serials
            reached = False
        return ("yes", "guest reached /init") if reached else ("no", why)


def free_udp_ports(n):
    """N distinct free UDP ports on 127.0.0.1 (free when probed)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def connect_unix(path, wait=30):
    """Connect to a UNIX socket QEMU creates once it has started."""
    deadline = time.time() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > deadline:
                raise
            time.sleep(0.1)


class QMP:
    """One QMP connection.  Commands may come from more than one thread
    (a test's timer reads the truth while a step reads it too): each
    sends and reads its reply under a lock, and a reply must carry the
    id its command was sent with (one to an earlier command, whose wait
    timed out, is skipped)."""

    def __init__(self, path):
        self.s = connect_unix(path)
        self.f = self.s.makefile("r")
        self.lock = threading.Lock()
        self.seq = 0
        json.loads(self.f.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, command, **args):
        with self.lock:
            self.seq += 1
            msg = {"execute": command, "id": self.seq}
            if args:
                msg["arguments"] = args
            self.s.sendall(json.dumps(msg).encode() + b"\n")
            while True:
                line = self.f.readline()
                if not line:
                    raise RuntimeError("QMP %s: QEMU closed the connection"
                                       % command)
                r = json.loads(line)
                if "event" in r:
                    continue
                # a late reply to a command whose wait timed out
                if isinstance(r.get("id"), int) and r["id"] < self.seq:
                    continue
                if r.get("id") != self.seq:
                    raise RuntimeError("QMP %s: a reply to another command "
                                       "(id %r, not %d): %.200s"
                                       % (command, r.get("id"), self.seq,
                                          line))
                if "error" in r:
                    raise RuntimeError("QMP %s: %s" % (command, r["error"]))
                return r.get("return")

    def truth(self, dev):
        """dbb-igc ground truth of -device ...,id=DEV: {name: [values]}."""
        return self.cmd("qom-get", path="/machine/peripheral/" + dev,
                        property="ground-truth")

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def sections(text):
    out = {}
    for m in re.finditer(r"@@BEGIN (\S+)\r?\n(.*?)@@END \1", text, re.S):
        out[m.group(1)] = m.group(2).replace("\r", "")
    return out


class GuestShell:
    """Commands into a guest booted with "lab.shell" on its command line
    (guest/init says the protocol), through a QEMU "-chardev
    socket,id=gsh,path=PATH,server=on,wait=off -serial chardev:gsh" (the
    second -serial: ttyS1)."""

    def __init__(self, path, timeout=120, proc=None):
        self.seq = 0
        self.buf = b""
        self.proc = proc
        self.s = connect_unix(path)
        self.ready = self._until(rb"@@READY ([^\r\n]*)\n", timeout)

    def _until(self, pattern, timeout):
        deadline = time.time() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.buf)
            if m:
                before = self.buf[:m.start()]
                self.buf = self.buf[m.end():]
                return before, m
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("guest shell: no %r after %d s; got %r"
                                   % (pattern, timeout, self.buf[-300:]))
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError("QEMU exited (status %s) while waiting "
                                   "for the guest" % self.proc.returncode)
            self.s.settimeout(min(left, 0.5))
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                continue
            if not d:
                raise RuntimeError("guest shell: connection closed")
            self.buf += d

    def _do(self, kind, payload, timeout):
        self.seq += 1
        self.s.sendall(("%s %d %s\n" % (kind, self.seq, payload)).encode())
        before, m = self._until(rb"@@RC %d (\d+)\n" % self.seq, timeout)
        return int(m.group(1)), before.decode(errors="replace")

    def run(self, script, timeout=120, check=False):
        """Run SCRIPT (bash, may be multi-line); return (status, output)."""
        import base64
        rc, out = self._do("X", base64.b64encode(script.encode()).decode(),
                           timeout)
        if check and rc != 0:
            raise RuntimeError("guest command failed (%d): %s\n%s"
                               % (rc, script.strip()[:200], out[-2000:]))
        return rc, out

    def eval(self, line, timeout=30):
        """Eval ONE line in the loop's own shell (no fork for builtins)."""
        assert "\n" not in line
        return self._do("E", line, timeout)

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


# ---- instruction counting: the dbb_insn.so plugin ----------------------

PLUGIN_SRC = os.path.join(LAB, "plugin", "dbb_insn.c")



KERNEL_CHOICES = ("6.1", "6.12", "6.12-rt", "6.12-debug")
# (pps, frames) of a lossless low-rate step on the debug kernel (KASAN,
# lockdep...): it forwards about four times slower than Debian's, and
# 2,000 pps saturates it (98 % busy, the stack then batches by itself).
DEBUG_LOW_STEP = (500, 2000)


def is_debug(kernel):
    """KERNEL (6.12-debug, or its release 6.12.117-dbb-debug) is the
    lab's debug build."""
    return "debug" in kernel


def test_args(description):
    """The options every lab test takes: --kernel (repeatable; default
    6.1 and 6.12; 6.12-rt is Debian's PREEMPT_RT, 6.12-debug the lab's
    debug build, tools/lab/build-debug-kernel.sh), --qemu, --rmem (net.core.rmem_default while QEMU opens its
    sockets)."""
    import argparse
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--kernel", action="append", choices=KERNEL_CHOICES)
    ap.add_argument("--qemu")
    ap.add_argument("--rmem", type=int, default=4 << 20)
    return ap


def modules_args(ap):
    """--modules-K DIR for every lab kernel K: our *.ko built for it
    (tools/lab/build-modules.sh); modules_for() reads them."""
    for k in KERNEL_CHOICES:
        ap.add_argument("--modules-" + k, dest=_modules_dest(k),
                        help="our *.ko for %s (tools/lab/build-modules.sh)"
                        % k)


def _modules_dest(short):
    return "modules_" + re.sub(r"[.-]", "_", short)


def modules_for(a, short):
    """The --modules-SHORT directory of parsed options A, or None."""
    return getattr(a, _modules_dest(short), None)


@contextlib.contextmanager
def lock(env, default, what):
    """flock(2) on $ENV (DEFAULT when unset; empty: no lock)."""
    path = os.environ.get(env, default)
    if not path:
        yield
        return
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("waiting for %s before %s" % (path, what))
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def build_modules(short, out, cache, mutant=None):
    """Our *.ko for SHORT into OUT, built in the private cache
    $CACHE/CACHE (build-modules.sh wipes its build tree first), under the
    build lock.  MUTANT (path, old, new): built from a copy of the tree
    where the file at PATH has OLD replaced by NEW, for a test to show it
    fails on a driver that does less."""
    env = dict(os.environ, DBBATCH_CACHE=os.path.join(CACHE, cache))
    if mutant:
        path, old, new = mutant
        tmp = os.path.join(CACHE, cache, "mutant-src")
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        files = subprocess.run(
            ["git", "-C", REPO, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], check=True,
            stdout=subprocess.PIPE).stdout.split(b"\0")
        for f in files:
            f = f.decode()
            if f and os.path.isfile(os.path.join(REPO, f)):
                os.makedirs(os.path.dirname(os.path.join(tmp, f)),
                            exist_ok=True)
                shutil.copy2(os.path.join(REPO, f), os.path.join(tmp, f))
        with open(os.path.join(tmp, path)) as f:
            src = f.read()
        if old not in src:
            raise SystemExit("mutant: %r not in %s" % (old, path))
        with open(os.path.join(tmp, path), "w") as f:
            f.write(src.replace(old, new))
        env["LAB_REPO"] = tmp
    with lock("DBB_BUILD_LOCK", "/tmp/dbb-build.lock", "the module build"):
        subprocess.run(["nice", "-n", "10",
                        os.path.join(LAB, "build-modules.sh"), short, out],
                       check=True, env=env, stdout=sys.stderr)
    return out


def one_boot_test(ap, checks):
    """main() of a lab test with one boot per kernel: adds --keep and
    --smp to AP (from test_args()), parses it and runs CHECKS(t, short, a,
    qemu) per kernel, which returns its run directory.  Exit status."""
    ap.add_argument("--keep", help="keep each kernel's run directory in "
                    "DIR/<kernel>")
    ap.add_argument("--smp", type=int, default=2)
    a = ap.parse_args()
    qemu = qemu_binary(a.qemu)
    return run_per_kernel(a, lambda t, short: [
        t.boot(lambda: checks(t, short, a, qemu))])


class Tap:
    """TAP lines of one kernel's checks, numbered across kernels (one
    writer, tap.Tap, for the whole run).  check() prints "ok N KVER:
    NAME" or "not ok ...", then the evidence as "#   " lines, and returns
    OK."""
    writer = tap.Tap(diag_lead="#   ")

    def __init__(self, kver):
        self.kver = kver
        self.mine = 0
        self.my_failed = 0

    def check(self, name, ok, evidence="", skip=None):
        ok = bool(ok)
        self.mine += 1
        self.my_failed += not ok and not skip
        return Tap.writer.check("%s: %s" % (self.kver, name), ok, evidence,
                                skip)

    def begin(self):
        """Keep the next checks back until commit() or rollback()."""
        Tap.writer.hold()
        return (Tap.writer.n, Tap.writer.failed, self.mine, self.my_failed)

    def failed_since(self, save):
        return Tap.writer.failed > save[1]

    def commit(self):
        Tap.writer.release()

    def rollback(self, save):
        """Forget the checks since begin(SAVE) as if never run."""
        w = Tap.writer
        w.n, w.failed, self.mine, self.my_failed = save
        w.release(drop=True)

    def boot(self, boot):
        """Run BOOT() (one guest boot's checks; it returns its run
        directory) and return the run directory.  If a check failed and
        the guest died of multi-threaded TCG's text-patching fault, say so:
        the failures count (the default accelerator cannot hit it)."""
        save = self.begin()
        out = boot()
        self.commit()
        if self.failed_since(save) and tcg_text_poke_fault(out):
            print("# %s: the guest died of an int3 Oops while the kernel "
                  "patched its text: QEMU 7.2 multi-threaded TCG's fault "
                  "(console: %s/console.log); run with --accel %s"
                  % (self.kver, out, TCG_ACCEL), flush=True)
        return out

    def done(self, start, dirs, keep):
        """Log this kernel's totals; remove its run directories unless
        kept or something failed (then say where they are)."""
        log("%s: %d checks, %d failed, %.0f s" % (
            self.kver, self.mine, self.my_failed, time.time() - start))
        for d in dirs:
            if keep or self.my_failed:
                log("%s: run directory %s" % (self.kver, d))
            else:
                shutil.rmtree(d, ignore_errors=True)

    @staticmethod
    def finish():
        """The plan and the totals; the exit status of the run."""
        w = Tap.writer
        w.plan()
        print("# Totals: pass:%d fail:%d" % (w.n - w.failed, w.failed))
        return w.exit_code()


def tcg_text_poke_fault(run_dir):
    """The guest in RUN_DIR died of an int3 Oops outside our modules:
    QEMU multi-threaded TCG's cross-modifying code racing the kernel
    patching its own text (static keys, BPF dispatcher) on another vCPU;
    seen on 6.12.  Nothing our code does; the boot is worth a second run."""
    return console_text_poke_fault(os.path.join(run_dir or "",
                                                "console.log"))


def console_text_poke_fault(console):
    """tcg_text_poke_fault() for a console log at CONSOLE."""
    try:
        with open(console, errors="replace") as f:
            con = f.read()
    except (OSError, TypeError):
        return False
    m = re.search(r"Oops: int3.*?RIP: (.*)", con, re.S)
    # "RIP: 0010:igcb_tx_clean+0x42/0x300 [igc_batch]" is ours
    return bool(m) and not re.search(
        r"\[(igc_batch|dbbatch|test_dbbatch)\]|\b(igcb|dbbatch|dbb)_",
        m.group(1).splitlines()[0])


def run_dir(keep, short, prefix):
    """A boot's run directory: KEEP/SHORT when the test keeps them in
    KEEP, else a new temporary one."""
    return (os.path.join(keep, short) if isinstance(keep, str) else
            tempfile.mkdtemp(prefix=prefix))


def run_per_kernel(a, boots):
    """A lab test's main loop: TAP header; for each --kernel (default
    both) a Tap T and BOOTS(T, short), which runs that kernel's boots and
    returns their run directories (removed unless a.keep or a failure);
    then the plan and totals.  Returns the exit status."""
    tap.header()
    for short in a.kernel or DEFAULT_KERNELS:
        t = Tap(kernel_release(short))
        start = time.time()
        t.done(start, boots(t, short), a.keep)
    return Tap.finish()


def qemu_plugin_header():
    """qemu-plugin.h of the QEMU 7.2 tree build.sh keeps in the cache."""
    for p in (os.path.join(CACHE, "qemu/work/src/include/qemu/qemu-plugin.h"),
              "/usr/include/qemu-plugin.h"):
        if os.path.exists(p):
            return p
    raise SystemExit("qemu-plugin.h not found (expected in %s/qemu/work/src,"
                     " left there by tools/lab/qemu/build.sh)" % CACHE)


def build_insn_plugin():
    """Compile tools/lab/plugin/dbb_insn.c (cached by hash); return .so."""
    hdr = qemu_plugin_header()
    h = hashlib.sha256()
    for p in (PLUGIN_SRC, hdr):
        with open(p, "rb") as f:
            h.update(f.read())
    out_dir = os.path.join(CACHE, "plugin", h.hexdigest()[:16])
    so = os.path.join(out_dir, "dbb_insn.so")
    if os.path.exists(so):
        return so
    os.makedirs(out_dir, exist_ok=True)
    tmp = so + ".%d" % os.getpid()
    sh(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
        "-I", os.path.dirname(hdr), "-o", tmp, PLUGIN_SRC, "-lpthread"])
    os.rename(tmp, so)
    return so


class InsnCounter:
    """Reads the running count of dbb_insn.so (QEMU -plugin
    dbb_insn.so,sock=PATH): connect, read one decimal line."""

    def __init__(self, path):
        self.path = path

    def read(self, timeout=10):
        deadline = time.time() + timeout
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(timeout)
                s.connect(self.path)
                data = b""
                while not data.endswith(b"\n"):
                    d = s.recv(64)
                    if not d:
                        break
                    data += d
                s.close()
                return int(data.split()[0])
            except (OSError, ValueError, IndexError):
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
