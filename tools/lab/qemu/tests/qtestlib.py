"""The qtest harness the dbb model suites share (qtest_dbb_igc.py,
qtest_dbb_octep.py): a QEMU started with -accel qtest and driven over the
qtest protocol and QMP, a -netdev dgram backend on 127.0.0.1 for frames,
TAP output, the checks every suite ends with, and the command line.

Python 3 standard library only (and tools/lab/labvm.py's QMP client).
"""

import argparse
import os
import socket
import struct
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
import labvm  # noqa: E402  (tools/lab/labvm.py: QMP client shared)
import tap as taplib  # noqa: E402  (tools/lab/tap.py)

MAC = bytes.fromhex("525400123456")
MAC_STR = ":".join("%02x" % b for b in MAC)
PEER_MAC = bytes.fromhex("02aabbccddee")
SLOT = 4                                    # -device ...,addr=4
BAR0 = 0xE0000000                           # where the suites map BAR0


class HarnessError(Exception):
    pass


def csum16(data, init=0):
    if len(data) % 2:
        data += b"\0"
    s = init + sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def inet_checksum(data):
    """The Internet checksum (RFC 1071) of DATA: its folded sum,
    complemented, as it goes into an IPv4, ICMP, UDP or TCP header."""
    return 0xFFFF - csum16(data)


def pseudo_seed(src, dst, proto, length):
    """The folded, uncomplemented pseudo-header sum Linux leaves (PARTIAL)."""
    return csum16(src + dst + struct.pack("!BBH", 0, proto, length))


def eth(dst, src, ethertype, payload):
    return dst + src + struct.pack("!H", ethertype) + payload


def ipv4(src, dst, proto, payload, ident=1):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident,
                      0x4000, 64, proto, 0, src, dst)
    c = 0xFFFF - csum16(hdr)
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def udp(sport, dport, payload, src=None, dst=None):
    length = 8 + len(payload)
    c = 0
    if src is not None:
        c = 0xFFFF - csum16(struct.pack("!HHHH", sport, dport, length, 0) +
                            payload, pseudo_seed(src, dst, 17, length))
        c = c or 0xFFFF
    return struct.pack("!HHHH", sport, dport, length, c) + payload


class QEMU:
    """One QEMU (q35, -accel qtest) with one device "nic0" at SLOT."""

    ALIVE_REG = 0x8             # a BAR0 register to read (dbb-igc: STATUS)

    def __init__(self, qemu, tmp, extra_dev="", verbose=False,
                 device="dbb-igc"):
        self.verbose = verbose
        self.tmp = tmp
        self.log = os.path.join(tmp, "qemu.log")
        self.stderr = os.path.join(tmp, "qemu.stderr")
        qtest_path = os.path.join(tmp, "qtest.sock")
        qmp_path = os.path.join(tmp, "qmp.sock")
        for p in (qtest_path, qmp_path, self.log):
            if os.path.exists(p):
                os.unlink(p)

        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(2)
        peer_port = self.udp.getsockname()[1]
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        self.qemu_port = probe.getsockname()[1]
        probe.close()

        lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lsock.bind(qtest_path)
        lsock.listen(1)
        cmd = [qemu, "-machine", "q35", "-accel", "qtest", "-m", "256M",
               "-display", "none", "-nodefaults", "-L", "/usr/share/seabios",
               "-L", "/usr/share/qemu",
               "-qtest", "unix:" + qtest_path,
               "-qmp", "unix:%s,server=on,wait=off" % qmp_path,
               "-d", "guest_errors", "-D", self.log,
               "-netdev", "dgram,id=n0,local.type=inet,local.host=127.0.0.1,"
               "local.port=%d,remote.type=inet,remote.host=127.0.0.1,"
               "remote.port=%d" % (self.qemu_port, peer_port),
               "-device", "%s,id=nic0,netdev=n0,addr=%d,mac=%s%s"
               % (device, SLOT, MAC_STR, extra_dev)]
        if verbose:
            print("# " + " ".join(cmd), file=sys.stderr)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=open(self.stderr, "w"),
                                     stderr=subprocess.STDOUT)
        lsock.settimeout(20)
        try:
            self.sock, _ = lsock.accept()
        except socket.timeout:
            raise HarnessError("QEMU did not connect to the qtest socket; "
                               "see " + self.stderr + ": " +
                               open(self.stderr).read()[-500:])
        lsock.close()
        self.sock.settimeout(20)
        self.rfile = self.sock.makefile("r")

        deadline = time.time() + 20
        while not os.path.exists(qmp_path):
            if time.time() > deadline or self.proc.poll() is not None:
                raise HarnessError("no QMP socket")
            time.sleep(0.05)
        self.qmp = labvm.QMP(qmp_path)
        self.qmp.s.settimeout(20)

    # -- qtest protocol
    def cmd(self, line):
        if self.verbose:
            print("# > " + line, file=sys.stderr)
        self.sock.sendall((line + "\n").encode())
        while True:
            resp = self.rfile.readline()
            if not resp:
                raise HarnessError("QEMU closed the qtest socket (crashed?) "
                                   "after: " + line)
            resp = resp.strip()
            if resp.startswith("IRQ"):
                continue
            break
        if self.verbose:
            print("# < " + resp, file=sys.stderr)
        if not resp.startswith("OK"):
            raise HarnessError("qtest: %s -> %s" % (line, resp))
        return resp[3:].strip()

    def readl(self, off, base=BAR0):
        return int(self.cmd("readl 0x%x" % (base + off)), 16)

    def writel(self, off, val, base=BAR0):
        self.cmd("writel 0x%x 0x%x" % (base + off, val & 0xFFFFFFFF))

    def writeb(self, off, val, base=BAR0):
        self.cmd("writeb 0x%x 0x%x" % (base + off, val & 0xFF))

    def mem_write(self, addr, data):
        self.cmd("write 0x%x %d 0x%s" % (addr, len(data), data.hex()))

    def mem_read(self, addr, n):
        return bytes.fromhex(self.cmd("read 0x%x %d" % (addr, n))[2:])

    def clock_step(self, ns):
        self.cmd("clock_step %d" % ns)

    def cfg_addr(self, off):
        return 0x80000000 | (SLOT << 11) | (off & 0xFC)

    def cfg_read32(self, off):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        return int(self.cmd("inl 0xcfc"), 16)

    def cfg_write32(self, off, val):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        self.cmd("outl 0xcfc 0x%x" % val)

    def cfg_read16(self, off):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        return int(self.cmd("inw 0x%x" % (0xcfc + (off & 2))), 16)

    def cfg_write16(self, off, val):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        self.cmd("outw 0x%x 0x%x" % (0xcfc + (off & 2), val))

    def find_cap(self, cap_id):
        """Config offset of the first capability cap_id, or None."""
        off = self.cfg_read32(0x34) & 0xFC
        for _ in range(48):
            if not off:
                return None
            dw = self.cfg_read32(off)
            if dw & 0xFF == cap_id:
                return off
            off = (dw >> 8) & 0xFC
        return None

    # -- QMP
    def qmp_cmd(self, command, **args):
        try:
            return self.qmp.cmd(command, **args)
        except RuntimeError as e:
            raise HarnessError(str(e))

    def truth(self):
        return self.qmp.truth("nic0")

    # -- frames
    def send_frame(self, frame):
        self.udp.sendto(frame, ("127.0.0.1", self.qemu_port))

    def recv_frame(self, timeout=2):
        self.udp.settimeout(timeout)
        try:
            return self.udp.recv(70000)
        except socket.timeout:
            return None

    def drain(self):
        while self.recv_frame(0.05) is not None:
            pass

    def alive(self):
        return (self.proc.poll() is None and
                self.readl(self.ALIVE_REG) is not None)

    def quit(self):
        try:
            self.qmp_cmd("quit")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.udp.close()

    def log_text(self):
        try:
            return open(self.log).read()
        except OSError:
            return ""


class Tap(taplib.Tap):
    """tools/lab/tap.py's writer; a check runs FN, and an exception it
    raises fails the check with its traceback.  NAME is the same every
    run: values a run measures or computes go to the diagnostics (DIAG,
    printed before the result)."""

    prefix = ""

    def check(self, name, fn, diag=None):
        if diag:
            self.emit("# " + diag)
        try:
            fn()
            ok, why = True, ""
        except HarnessError:
            raise
        except Exception:
            ok, why = False, traceback.format_exc()
        return super().check(self.prefix + name, ok, why)


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_reg_kinds(before, after, reads, irq, other):
    """The register accesses a case made, by kind, between two ground-truth
    snapshots: READS reads, IRQ interrupt-register writes, OTHER other
    writes (both models; the doorbells count apart)."""
    got = [after[n][0] - before[n][0] for n in
           ("reg_reads", "irq_reg_writes", "other_reg_writes")]
    expect(got == [reads, irq, other],
           "reads, interrupt-register writes, other writes: +%d +%d +%d, "
           "expected +%d +%d +%d (a doorbell must not count as other)"
           % tuple(got + [reads, irq, other]))


def wait_for(fn, what, timeout=3):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if fn():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


def check_log_and_exit(tap, q, needles):
    """The checks after a QEMU that ran the main tests has quit: its
    guest-error log names each of needles, and it exited with status 0."""
    log = q.log_text()

    def t_log():
        for needle in needles:
            expect(needle in log, "guest-error log lacks %r; log:\n%s"
                   % (needle, log[-3000:]))
    tap.check("guest errors are named in the -d guest_errors log", t_log)

    def t_exit():
        expect(q.proc.returncode == 0, "QEMU exit status %s; stderr: %s"
               % (q.proc.returncode, open(q.stderr).read()[-2000:]))
    tap.check("QEMU exits cleanly on quit", t_exit)


def main(doc, device, run_tests, fuzz):
    """A suite's command line: run_tests(qemu, verbose) returns how many
    tests failed; fuzz is the suite's {"ops": N, "seed": S} defaults.
    Exit status 0 all passed, 1 a test failed, 2 the harness failed."""
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--qemu", help="qemu-system-x86_64 with %s "
                    "(default: build.sh's cached binary)" % device)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--fuzz-ops", type=int, default=fuzz["ops"])
    ap.add_argument("--fuzz-seed", type=int, default=fuzz["seed"])
    args = ap.parse_args()
    fuzz["ops"], fuzz["seed"] = args.fuzz_ops, args.fuzz_seed
    qemu = args.qemu
    if not qemu:
        out = subprocess.run([os.path.join(here, "..", "build.sh")],
                             stdout=subprocess.PIPE, check=False)
        if out.returncode:
            print("Bail out! build.sh failed")
            return 2
        qemu = out.stdout.decode().strip().splitlines()[-1]
    taplib.header()
    try:
        failed = run_tests(qemu, args.verbose)
    except HarnessError as e:
        print("Bail out! %s" % e)
        return 2
    return 1 if failed else 0
