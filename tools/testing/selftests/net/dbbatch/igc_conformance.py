#!/usr/bin/env python3
"""Boot Debian's kernel with two dbb-igc NICs and check that the
UNMODIFIED igc driver is happy with the model.

    tools/testing/selftests/net/dbbatch/igc_conformance.py \
        [--kernel 6.1|6.12 ...] [--qemu PATH]
        [--accel auto|kvm|tcg,...] [--keep DIR]

Topology (one QEMU, one guest, a QEMU hub):

    nic0 dbb-igc 8086:125c 52:54:00:12:34:56  eth in the root netns, 10.0.2.15
    nic1 dbb-igc 8086:15f3 52:54:00:12:34:57  eth in netns "peer",   10.0.2.16
                 (I225-V, nvm-flash=on: the NVM checksum path)
    -netdev dgram -> this script's UDP socket: a fake host 10.0.2.2
                     (02:aa:bb:cc:dd:ee) answering ARP and ping

The guest (a throwaway busybox initramfs with Debian's igc.ko, iproute2,
ethtool, iperf3 and dbb-truth.sh) probes igc, reports dmesg, ethtool,
/proc/interrupts, pings the fake host, runs iperf3 TCP/UDP between the two
NICs (TSO, checksum offload, RSS, 4 queues), jumbo frames, a link flap
driven from here with QMP set_link, and reads the ground truth through
config space, which this script compares with QMP qom-get.

Prints TAP per kernel; exit 0 when every check passed.  Python 3 stdlib,
plus cpio, busybox-static, kmod, iproute2, ethtool, iperf3 on the host.
"""

import argparse
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from lablib import LAB  # noqa: E402  (tools/lab/ on the path)
QDIR = os.path.join(LAB, "qemu")
import labvm  # noqa: E402  (tools/lab/labvm.py: shared with router.py)
import tap  # noqa: E402  (tools/lab/tap.py)
from labvm import QMP, log, sections, sh  # noqa: E402
sys.path.insert(0, os.path.join(QDIR, "tests"))
from qtestlib import inet_checksum  # noqa: E402  (one checksum helper)

# How make check runs this test (tools/lab/selftests.py)
LAB_CHECK = [{"stage": 10, "kernels": "each", "label": "igc conformance",
              "minutes": 1.5,
              "args": ["--keep", "{repo}/build/conformance"]}]


MAC0 = "52:54:00:12:34:56"
MAC1 = "52:54:00:12:34:57"
HOST_MAC = bytes.fromhex("02aabbccddee")
HOST_IP = bytes([10, 0, 2, 2])
GUEST_IP = bytes([10, 0, 2, 15])
GT_PER_QUEUE = ["tdt_writes", "tdt_noop_writes", "rdt_writes",
                "rdt_noop_writes", "tx_desc", "rx_desc", "tx_frames",
                "rx_frames", "rx_dropped", "tx_packets", "tx_bytes",
                "rx_bytes"]

def build_initramfs(kver, out):
    return labvm.build_initramfs(
        kver, out, tools=labvm.BASE_TOOLS + (("iperf3", "iperf3"),),
        kmods=("igc",))


class FakeHost(threading.Thread):
    """10.0.2.2 on the hub: answers ARP and ICMP echo, sends UDP on demand."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.port = self.sock.getsockname()[1]
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        self.qemu_port = probe.getsockname()[1]
        probe.close()
        self.stop = False
        self.frames = 0
        self.echo_replies = 0
        self.arp_replies = 0

    def send(self, frame):
        self.sock.sendto(frame, ("127.0.0.1", self.qemu_port))

    def run(self):
        self.sock.settimeout(0.5)
        while not self.stop:
            try:
                f = self.sock.recv(70000)
            except socket.timeout:
                continue
            except OSError:
                return
            self.frames += 1
            if len(f) < 42:
                continue
            etype = struct.unpack("!H", f[12:14])[0]
            if etype == 0x0806 and f[38:42] == HOST_IP and \
                    struct.unpack("!H", f[20:22])[0] == 1:
                arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 2) + \
                    HOST_MAC + HOST_IP + f[22:28] + f[28:32]
                self.send(f[6:12] + HOST_MAC + b"\x08\x06" + arp)
                self.arp_replies += 1
            elif etype == 0x0800 and f[30:34] == HOST_IP and f[23] == 1:
                ihl = (f[14] & 0xF) * 4
                ip = bytearray(f[14:14 + ihl])
                icmp = bytearray(f[14 + ihl:14 + struct.unpack(
                    "!H", f[16:18])[0]])
                if icmp[0] != 8:
                    continue
                ip[12:16], ip[16:20] = f[30:34], f[26:30]
                ip[10:12] = b"\0\0"
                ip[10:12] = struct.pack("!H", inet_checksum(bytes(ip)))
                icmp[0] = 0
                icmp[2:4] = b"\0\0"
                icmp[2:4] = struct.pack("!H", inet_checksum(bytes(icmp)))
                self.send(f[6:12] + HOST_MAC + b"\x08\x00" + bytes(ip) +
                          bytes(icmp))
                self.echo_replies += 1

    def send_udp(self, dst_mac, n):
        for i in range(n):
            payload = b"dbb-igc fake host %d" % i
            udp = struct.pack("!HHHH", 40000 + i, 7777, 8 + len(payload), 0)
            pseudo = HOST_IP + GUEST_IP + struct.pack("!BBH", 0, 17,
                                                      8 + len(payload))
            c = inet_checksum(pseudo + udp + payload) or 0xFFFF
            udp = udp[:6] + struct.pack("!H", c)
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(payload), i,
                             0, 64, 17, 0, HOST_IP, GUEST_IP)
            ip = ip[:10] + struct.pack("!H", inet_checksum(ip)) + ip[12:]
            self.send(dst_mac + HOST_MAC + b"\x08\x00" + ip + udp + payload)


def run_kernel(short, qemu, accel, keep, timeout, append, nic_props):
    kver = labvm.kernel_release(short)
    work = keep or tempfile.mkdtemp(prefix="dbb-igc-guest.")
    os.makedirs(work, exist_ok=True)
    initrd = os.path.join(work, "initramfs-%s.cpio.gz" % kver)
    t = time.time()
    vmlinuz = build_initramfs(kver, initrd)
    log("%s: initramfs built in %.1f s" % (kver, time.time() - t))
    console = os.path.join(work, "console-%s.log" % kver)
    qmp_path = os.path.join(work, "qmp-%s.sock" % kver)
    for p in (console, qmp_path):
        if os.path.exists(p):
            os.unlink(p)
    host = FakeHost()
    host.start()
    cmd = labvm.qemu_cmd(qemu, accel, vmlinuz, initrd, console, qmp_path,
                         "lab.run=/lab/igc-conformance.sh " + append) + [
        "-serial", "file:" + os.path.join(work, "results-%s.txt" % kver),
        "-netdev", "dgram,id=d0,local.type=inet,local.host=127.0.0.1,"
        "local.port=%d,remote.type=inet,remote.host=127.0.0.1,"
        "remote.port=%d" % (host.qemu_port, host.port),
        "-netdev", "hubport,id=hp0,hubid=0",
        "-netdev", "hubport,id=hp1,hubid=0",
        "-netdev", "hubport,id=hp2,hubid=0,netdev=d0",
        "-device", "dbb-igc,id=nic0,netdev=hp0,addr=4,mac=" + MAC0 +
        nic_props,
        "-device", "dbb-igc,id=nic1,netdev=hp1,addr=5,device-id=0x15f3,"
        "nvm-flash=on,mac=" + MAC1 + nic_props,
        "-d", "guest_errors", "-D", os.path.join(work, "qemu-%s.log"
                                                % kver)]
    log(" ".join(cmd))
    start = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=open(console + ".qemu", "w"),
                            stderr=subprocess.STDOUT)
    qmp = QMP(qmp_path)
    seen = set()
    compare = None
    boot_time = None
    text = ""
    try:
        while proc.poll() is None and time.time() - start < timeout:
            time.sleep(0.2)
            try:
                text = open(console, errors="replace").read()
            except OSError:
                continue
            for m in re.finditer(r"@@([A-Z-]+)", text):
                ev = m.group(1)
                if ev in seen:
                    continue
                seen.add(ev)
                if ev == "START":
                    boot_time = time.time() - start
                elif ev == "SEND-UDP":
                    host.send_udp(bytes.fromhex(MAC0.replace(":", "")), 20)
                elif ev == "FLAP-DOWN":
                    qmp.cmd("set_link", name="nic0", up=False)
                elif ev == "FLAP-UP":
                    time.sleep(1)
                    qmp.cmd("set_link", name="nic0", up=True)
                elif ev == "QMP-COMPARE":
                    compare = qmp.cmd("qom-get", path="/machine/peripheral/"
                                      "nic0", property="ground-truth")
        if proc.poll() is None:
            log("timeout after %d s; killing QEMU" % timeout)
            proc.kill()
        proc.wait()
    finally:
        host.stop = True
        host.sock.close()
    run_time = time.time() - start
    text = open(console, errors="replace").read()
    return kver, text, compare, host, boot_time, run_time, work


def checks(text, compare, host):
    """Yield (name, ok, evidence)."""
    s = sections(text)

    def sec(name):
        return s.get(name, "")

    dm = sec("dmesg-probe")
    m = re.search(r"igc \S+ (\S+): NIC Link is Up (\d+) Mbps (\w+) Duplex.*",
                  dm)
    yield ("igc probes both NICs, no probe errors",
           dm.count("MAC: ") == 2 and "@@MODPROBE-FAILED" not in text and
           not re.search(r"(?i)error|failed|invalid", dm),
           "\n".join(line for line in dm.splitlines()
                     if "MAC:" in line or "Intel" in line or "rror" in line))
    yield ("NIC Link is Up 2500 Mbps Full Duplex (dmesg)",
           bool(m) and m.group(2) == "2500" and m.group(3) == "Full",
           m.group(0) if m else dm[-400:])
    et = sec("ethtool")
    yield ("ethtool: Speed 2500Mb/s, Duplex Full, Link detected yes",
           "Speed: 2500Mb/s" in et and "Duplex: Full" in et and
           "Link detected: yes" in et,
           "\n".join(line.strip() for line in et.splitlines()
                     if re.search("Speed|Duplex|Link detected|Supported link"
                                  "|2500", line)))
    el = sec("ethtool-l")
    cur = el.split("Current hardware settings:")[-1]
    mc = re.search(r"Combined:\s*(\d+)", cur)
    yield ("ethtool -l: 4 combined channels",
           bool(mc) and mc.group(1) == "4", " ".join(el.split()))
    ei = sec("ethtool-i")
    yield ("ethtool -i: driver igc", "driver: igc" in ei,
           " ".join(ei.split()[:6]))
    irq = sec("interrupts")
    a = re.search(r"@@IFACES (\S+) (\S+)", text)
    ifa = a.group(1) if a else "eth0"
    lines = [line for line in irq.splitlines()
             if re.search(r"\b%s(-TxRx-\d)?\s*$" % re.escape(ifa), line)]
    modes = sec("msi-irqs").split()[1::2]
    yield ("MSI-X: 5 vectors (other + 4 TxRx) for %s" % ifa,
           len(lines) == 5 and modes == ["msix"] * 5,
           "\n".join(" ".join(line.split()) for line in lines) +
           "\nmsi_irqs modes: " + " ".join(modes))
    pg = sec("ping")
    yield ("ping the fake host through nic0 (ARP + ICMP)",
           "5 packets received" in pg, pg.strip().splitlines()[-2]
           if pg.strip() else "no output")
    pn = sec("ping-ns")
    yield ("ping between the two NICs (netns)", "3 packets received" in pn,
           pn.strip().splitlines()[-2] if pn.strip() else "no output")
    ur = sec("udp-rx")
    mu = re.search(r"noports-delta (\d+)", ur)
    yield ("UDP frames from the host reach the guest's UDP stack",
           bool(mu) and int(mu.group(1)) >= 20, " ".join(ur.split()))
    for name, what in (("iperf-tcp", "TCP, 8 streams, TSO"),
                       ("iperf-rev", "TCP reverse"),
                       ("iperf-udp", "UDP 20 Mb/s")):
        ip = sec(name)
        ok = ("receiver" in ip and not re.search(r"error|unable", ip, re.I)
              and not re.search(r"\s0\.00 bits/sec\s+receiver", ip))
        rl = [line for line in ip.splitlines() if "receiver" in line]
        yield ("iperf3 %s between the NICs" % what, ok,
               (rl[-1] if rl else ip.strip()[-300:]))
    st = sec("stats-B")
    rq = {int(k): int(v) for k, v in
          re.findall(r"rx_queue_(\d)_packets:\s*(\d+)", st)}
    # ~12 random flows over a random key: a queue may get none by chance
    # (a few %), so ask for 3 of the 4.
    yield ("RSS spreads received flows over the queues (>= 3 of 4 busy, "
           "ethtool -S of the receiver)",
           len(rq) == 4 and sum(v > 100 for v in rq.values()) >= 3,
           str(rq))
    ek = sec("ethtool-k")
    yield ("offloads on: TSO, checksumming, receive-hashing",
           re.search(r"tcp-segmentation-offload: on", ek) is not None and
           "rx-checksumming: on" in ek and "receive-hashing: on" in ek,
           " ".join(line.strip() for line in ek.splitlines() if re.search(
               "^(tcp-segmentation-offload|rx-checksumming|tx-checksumming"
               "|receive-hashing):", line.strip())))
    jb = sec("jumbo")
    yield ("jumbo: MTU 9000, ping -s 8000 between the NICs",
           "3 packets received" in jb, " ".join(
               line for line in jb.splitlines() if "packets" in line))
    fl = sec("flap")
    yield ("link flap via QMP set_link: carrier down then up, dmesg "
           "Link is Down/Up",
           "carrier-down ok" in fl and "carrier-up ok" in fl and
           "NIC Link is Down" in fl and
           fl.rfind("NIC Link is Up") > fl.rfind("NIC Link is Down"),
           "\n".join(line for line in fl.splitlines() if "ok" in line or
                     "Link is" in line))
    tr = {}
    for line in sec("truth").splitlines():
        p = line.split()
        if len(p) == 3 and p[2].isdigit():
            tr.setdefault(p[0], {})[int(p[1])] = int(p[2])
    bad = []
    if compare is None or not tr:
        bad.append("no data (guest truth %d entries, QMP %s)"
                   % (len(tr), compare is not None))
    else:
        for name in GT_PER_QUEUE:
            for qi, v in enumerate(compare[name]):
                if tr.get(name, {}).get(qi) != v:
                    bad.append("%s[%d] guest %s QMP %d"
                               % (name, qi, tr.get(name, {}).get(qi), v))
    yield ("guest VSEC reader (dbb-truth.sh) == QMP ground-truth",
           not bad, "; ".join(bad) if bad else
           "tdt_writes %s tx_frames %s rx_frames %s irqs %s"
           % (compare["tdt_writes"], compare["tx_frames"],
              compare["rx_frames"], compare["irqs"]))
    if compare:
        tso = sum(compare["tx_frames"]) > sum(compare["tx_packets"])
        yield ("TSO used by the driver (ground truth: frames > packets)",
               tso, "tx_packets %s tx_frames %s" % (compare["tx_packets"],
                                                     compare["tx_frames"]))
        yield ("interrupts on all 5 MSI-X vectors (ground truth)",
               all(v > 0 for v in compare["irqs"]), str(compare["irqs"]))
        yield ("no guest programming errors logged by the model",
               compare["guest_errors"][0] == 0,
               "guest_errors %s" % compare["guest_errors"])
    da = sec("dmesg-all")
    badk = [line for line in da.splitlines()
            if re.search(r"WARNING|BUG:|Oops|Call Trace", line) or
            ("igc" in line and re.search(r"[Ff]ail|[Ee]rror|Hang|timed out|"
                                         r"Reset", line))]
    tn = sec("tainted").strip()
    yield ("kernel healthy: no WARNING/BUG/Oops, no igc error/hang/reset, "
           "not tainted",
           not badk and tn == "0", "; ".join(badk[:5]) + " tainted=" + tn)
    stt = sec("selftest")
    yield ("ethtool -t: online (nic0) and offline register/NVM self-test "
           "(nic1, nvm-flash=on) PASS",
           stt.count("The test result is PASS") == 2,
           " ".join(line.strip() for line in stt.splitlines()
                    if "result" in line or "(on/offline)" in line or
                    re.search(r"^\s*\S.*test\s", line)))
    yield ("fake host answered (ARP %d, echo %d)"
           % (host.arp_replies, host.echo_replies),
           host.arp_replies > 0 and host.echo_replies >= 5, "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", action="append", choices=["6.1", "6.12"])
    ap.add_argument("--qemu")
    ap.add_argument("--accel", default=labvm.DEFAULT_ACCEL)
    ap.add_argument("--keep", help="keep initramfs/console logs in DIR")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--append", default="", help="extra kernel arguments "
                    "(e.g. pci=nomsi to try the INTx fallback)")
    ap.add_argument("--nic-props", default="", help="extra dbb-igc "
                    "properties for both NICs (e.g. msix=off: MSI only)")
    args = ap.parse_args()
    qemu = args.qemu or sh([os.path.join(QDIR, "build.sh")]).splitlines()[-1]
    t = tap.Tap(diag_lead="#   ")
    tap.header()
    for short in args.kernel or ["6.1", "6.12"]:
        kver, text, compare, host, boot, run, work = run_kernel(
            short, qemu, args.accel, args.keep, args.timeout,
            args.append, "," + args.nic_props if args.nic_props else "")
        if labvm.console_text_poke_fault(
                os.path.join(work, "console-%s.log" % kver)):
            print("# %s: the guest died of multi-threaded TCG's int3 "
                  "text-patching fault (see labvm.TCG_ACCEL)" % kver,
                  flush=True)
        log("%s: QEMU start to /init %s s, whole run %.0f s; logs in %s"
            % (kver, "%.1f" % boot if boot else "?", run, work))
        for name, ok, evidence in checks(text, compare, host):
            t.check("%s: %s" % (kver, name), ok, evidence)
    t.plan()
    return t.exit_code()


if __name__ == "__main__":
    sys.exit(main())
