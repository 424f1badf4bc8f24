#!/usr/bin/env python3
"""Model-level tests of the dbb-octep QEMU device through the qtest protocol.

No guest kernel: the test plays the octeon_ep driver.  It starts the QEMU
built by tools/lab/qemu/build.sh with -accel qtest on q35, programs the
device through PCI config space (0xcf8/0xcfc and MMCONFIG for the
extended capabilities), BAR0 (rings, globals) and BAR4 (control mailbox,
MSI-X table), puts instruction and buffer rings in guest RAM, exchanges
frames with the model through a -netdev dgram backend bound to a UDP
socket on 127.0.0.1, reads the ground truth over QMP (qom-get) and
through the vendor-specific capability, and checks the guest-error log.

The seed's table (../shared/seeds/octep-ring-credit-page.txt) is a set of
tests: a ring granted a credit ceiling, frames arriving, the credit and
the count read when the traffic is over.

    tests/qtest_dbb_octep.py [--qemu PATH] [-v]

Prints TAP (ok N name / not ok N name), exits 1 if a test failed, 2 if
the harness itself could not run.  Python 3 standard library only.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qtestlib import (QEMU, Tap, HarnessError, expect,  # noqa: E402,F401
                      expect_reg_kinds,
                      wait_for, check_log_and_exit, main as qtest_main, eth,
                      ipv4, udp, MAC, PEER_MAC, SLOT)

BAR0 = 0xE0000000                   # 8 MiB: rings and globals
BAR2 = 0xE0800000                   # 1 MiB
BAR4 = 0xE2000000                   # 32 MiB: MSI-X table at 0, mailbox
MMCFG = 0xB0000000                  # q35 PCIEXBAR, enabled by the test
MBOX = BAR4 + 0x1C00000
MSIX_MAILBOX = 0x00F00000           # MSI-X messages land in RAM
RINGS = 4
VECTORS = 16 + RINGS


def ring_reg(q, off):
    return 0x10000 + q * 0x20000 + off


# Per-ring registers (offsets in the ring's block)
IN_CONTROL, IN_ENABLE, IN_BADDR, IN_RSIZE = 0x0, 0x10, 0x20, 0x30
IN_DBELL, IN_CNTS, IN_INT_LEVELS, IN_PKT_CNT = 0x40, 0x50, 0x60, 0x80
OUT_CNTS, OUT_INT_LEVELS, OUT_BADDR, OUT_RSIZE = 0x100, 0x110, 0x120, 0x130
OUT_DBELL, OUT_CONTROL, OUT_ENABLE, ERR_TYPE = 0x140, 0x150, 0x160, 0x400
MBOX_PF_VF_INT = 0x220
# Globals
EPF_MBOX_RINT = 0x20100
OEI_RINT, OEI_W1S, OEI_ENA_W1C, OEI_ENA_W1S = (0x20360, 0x20370, 0x20380,
                                               0x20390)
EPF_SCRATCH, EPF_RINFO = 0x205E0, 0x205F0
EPVF_RING, MAC_PF_RING_CTL, MAC_NUMBER = 0x26000, 0x2C000, 0x2C100

FW_LATENCY_NS = 1000 * 1000         # fw-latency-us default: v2 answers
RESEND = 1 << 59
INT_ENA = 1 << 62
CLEAR = 0xFFFFFFFF

# Mailbox
MB_HOST_VERSION, MB_HOST_STATUS, MB_FW_VERSION, MB_FW_STATUS = 16, 24, 136, 144
H2F_PROD, H2F_CONS, H2F_SZ, H2F_CNT = 256, 260, 264, 268
F2H_PROD, F2H_CONS, F2H_SZ = 272, 276, 280
MB_Q = 288
CMD_MTU, CMD_MAC, CMD_IF_STATS, CMD_LINK, CMD_RX = 1, 2, 3, 6, 7
CMD_LINK_INFO, CMD_GET_INFO, CMD_DEV_REMOVE, CMD_OFFLOADS = 8, 9, 10, 11

# Ground truth counters (README.md); ids are ABI
GT = ["in_dbell_writes", "in_dbell_noop_writes", "in_instr", "tx_frames",
      "tx_bytes", "out_dbell_writes", "out_dbell_noop_writes",
      "credit_granted", "credit_fetched", "credit_now", "fetches",
      "buffers_fetched", "rx_frames", "rx_bytes", "rx_buffers",
      "rx_refused", "laps", "overwritten_unread", "irqs", "fw_requests",
      "heartbeats", "fw_notifications", "rx_off_drops", "guest_errors",
      "dma_errors", "outstanding_max", "reg_reads", "irq_reg_writes",
      "other_reg_writes", "rx_skipped", "desc_changed", "irqs_lost",
      "rx_uncounted"]

# Guest RAM layout
IQ_RING = 0x100000                  # 64-byte instructions
TX_BUF = 0x180000
OQ_RING = 0x200000                  # 16-byte descriptors (up to 4096)
OQ_BUF = 0x1000000                  # buffers, BSIZE apart


class OctepTap(Tap):
    """TAP lines named "dbb-octep: ...": unique beside dbb-igc's suite."""

    prefix = "dbb-octep: "


class Octep:
    """The driver's side of one dbb-octep in a qtest QEMU."""

    def __init__(self, qemu_bin, extra_dev="", verbose=False):
        self.tmp = tempfile.mkdtemp(prefix="qtest-dbb-octep.")
        self.q = QEMU(qemu_bin, self.tmp, extra_dev=extra_dev,
                      verbose=verbose, device="dbb-octep")
        self.bsize = 2048
        self.pci_setup()

    # -- plumbing
    def quit(self):
        self.q.quit()

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def r64(self, off, base=BAR0):
        return int(self.q.cmd("readq 0x%x" % (base + off)), 16)

    def w64(self, off, val, base=BAR0):
        self.q.cmd("writeq 0x%x 0x%x" % (base + off, val & (2 ** 64 - 1)))

    def r32(self, off, base=BAR0):
        return self.q.readl(off, base=base)

    def w32(self, off, val, base=BAR0):
        self.q.writel(off, val, base=base)

    def rr(self, q, off):
        return self.r64(ring_reg(q, off))

    def wr(self, q, off, val):
        self.w64(ring_reg(q, off), val)

    def truth(self):
        return self.q.truth()

    def gt_reset(self):
        self.q.qmp_cmd("qom-set", path="/machine/peripheral/nic0",
                       property="ground-truth-reset", value=True)

    def qom_set(self, prop, value):
        self.q.qmp_cmd("qom-set", path="/machine/peripheral/nic0",
                       property=prop, value=value)

    def alive(self):
        return (self.q.proc.poll() is None and
                self.r64(MAC_PF_RING_CTL) is not None)

    # -- PCI
    def ext_read32(self, off):
        return int(self.q.cmd("readl 0x%x" % (MMCFG + (SLOT << 15) + off)),
                   16)

    def pci_setup(self):
        q = self.q
        # q35's MCH: PCIEXBAR at 0xB0000000, 256 MiB, enabled
        q.cmd("outl 0xcf8 0x%x" % (0x80000000 | 0x60))
        q.cmd("outl 0xcfc 0x%x" % (MMCFG | 1))
        q.cmd("outl 0xcf8 0x%x" % (0x80000000 | 0x64))
        q.cmd("outl 0xcfc 0x0")
        for bar, addr in ((0x10, BAR0), (0x18, BAR2), (0x20, BAR4)):
            q.cfg_write32(bar, addr)
            q.cfg_write32(bar + 4, 0)
        q.cfg_write16(0x04, 0x0006)             # memory space, bus master

    def find_cap(self, cap_id):
        return self.q.find_cap(cap_id)

    def ext_caps(self):
        """[(offset, id, version)] of the extended capability list."""
        caps, off = [], 0x100
        for _ in range(64):
            dw = self.ext_read32(off)
            if dw in (0, 0xFFFFFFFF):
                break
            caps.append((off, dw & 0xFFFF, (dw >> 16) & 0xF))
            off = dw >> 20
            if not off:
                break
        return caps

    def msix_setup(self, nvec=VECTORS):
        q = self.q
        cap = self.find_cap(0x11)
        for v in range(nvec):
            self.w32(16 * v + 0, MSIX_MAILBOX + 4 * v, base=BAR4)
            self.w32(16 * v + 4, 0, base=BAR4)
            self.w32(16 * v + 8, 0x100 + v, base=BAR4)
            self.w32(16 * v + 12, 0, base=BAR4)
        self.clear_msix()
        q.cfg_write16(cap + 2, 0x8000 | q.cfg_read16(cap + 2))

    def clear_msix(self, nvec=VECTORS):
        self.q.mem_write(MSIX_MAILBOX, bytes(4 * nvec))

    def msix_fired(self, v):
        return struct.unpack("<I", self.q.mem_read(MSIX_MAILBOX + 4 * v,
                                                   4))[0] == 0x100 + v

    # -- input ring
    def iq_setup(self, q=0, size=64):
        self.wr(q, IN_ENABLE, 0)
        self.wr(q, IN_CONTROL, (3 << 25) | (1 << 24) | 2)
        self.wr(q, IN_BADDR, IQ_RING + q * 0x10000)
        self.wr(q, IN_RSIZE, size)
        self.wr(q, IN_DBELL, CLEAR)
        expect(self.rr(q, IN_DBELL) == 0, "IN_INSTR_DBELL not 0 after clear")
        self.wr(q, IN_CNTS, self.rr(q, IN_CNTS) & 0xFFFFFFFF)
        self.wr(q, IN_INT_LEVELS, INT_ENA)
        self.wr(q, IN_ENABLE, 1)
        self.iq_size = size
        self.iq_idx = 0

    def iq_put(self, q, dptr, ih):
        addr = IQ_RING + q * 0x10000 + 64 * self.iq_idx
        self.q.mem_write(addr, struct.pack("<QQ", dptr, ih) + bytes(48))
        self.iq_idx = (self.iq_idx + 1) % self.iq_size

    # -- output ring
    def oq_setup(self, q=0, size=64, bsize=2048, credit=0, levels=0):
        self.wr(q, OUT_ENABLE, 0)
        self.wr(q, OUT_BADDR, 0)
        self.wr(q, OUT_BADDR, OQ_RING)
        self.wr(q, OUT_RSIZE, size)
        self.wr(q, OUT_CONTROL, (1 << 26) | bsize)
        self.bsize = bsize
        self.q.mem_write(OQ_RING, b"".join(
            struct.pack("<QQ", OQ_BUF + i * bsize, 0) for i in range(size)))
        self.wr(q, OUT_DBELL, CLEAR)
        self.w32(ring_reg(q, OUT_CNTS), self.rr(q, OUT_CNTS) & 0xFFFFFFFF)
        self.wr(q, OUT_INT_LEVELS, levels)
        self.wr(q, OUT_ENABLE, 1)
        if credit:
            self.w32(ring_reg(q, OUT_DBELL), credit)

    def oq_buf(self, i, n):
        return self.q.mem_read(OQ_BUF + i * self.bsize, n)

    # -- traffic
    def seen(self, ring=0):
        gt = self.truth()
        return (gt["rx_frames"][ring] + gt["rx_refused"][ring] +
                gt["rx_off_drops"][0])

    def send_frames(self, n, frame=None, ring=0, burst=100):
        """Send n frames, paced so that the model takes every one."""
        frame = frame or eth(b"\xff" * 6, PEER_MAC, 0x88B5, bytes(46))
        target = self.seen(ring) + n
        sent = 0
        while sent < n:
            k = min(burst, n - sent)
            for _ in range(k):
                self.q.send_frame(frame)
            sent += k
            want = target - (n - sent)
            deadline = time.time() + 5
            while self.seen(ring) < want:
                if time.time() > deadline:
                    # a datagram lost in the host's socket: send it again
                    missing = want - self.seen(ring)
                    for _ in range(missing):
                        self.q.send_frame(frame)
                    deadline = time.time() + 5
                time.sleep(0.002)


# ---- mailbox hosts ---------------------------------------------------------

class MboxV1:
    """6.1's control mailbox: fixed 16-byte slots, reply in place, polled."""

    def __init__(self, dev):
        self.d = dev

    def rd(self, off, n=8):
        return int(self.d.q.cmd("read%s 0x%x" % ({4: "l", 8: "q"}[n],
                                                 MBOX + off)), 16)

    def wr(self, off, val, n=8):
        self.d.q.cmd("write%s 0x%x 0x%x" % ({4: "l", 8: "q"}[n], MBOX + off,
                                            val))

    def init(self):
        expect(self.rd(0) == 0xdeaddeadbeefbeef, "mailbox magic")
        expect(self.rd(MB_FW_STATUS) == 2, "fw_status not READY")
        self.wr(MB_HOST_STATUS, 1)
        self.cnt = self.rd(H2F_CNT, 4)
        self.elem_sz = self.rd(H2F_SZ, 4)
        self.wr(MB_HOST_STATUS, 2)

    def request(self, cmd, body=b"", sizew=2):
        """Send {hdr, body} in sizew words; return (reply, resp words)."""
        mask = self.cnt - 1
        pi = self.rd(H2F_PROD, 4)
        slot = MB_Q + 16 * pi
        msg = struct.pack("<HHHH", 0, 1, cmd, 0) + body
        msg = msg.ljust(8 * sizew, b"\0")
        for i in range(sizew):
            self.wr(slot + 8 + 8 * i, struct.unpack("<Q", msg[8 * i:8 * i +
                                                           8])[0])
        self.wr(slot, 1 | sizew << 32)
        self.wr(H2F_PROD, (pi + 1) & mask, 4)
        word0 = self.rd(slot)
        if word0 & 0xFFFFFFFF != 2:
            return None
        n = word0 >> 32
        data = b"".join(struct.pack("<Q", self.rd(slot + 8 + 8 * i))
                        for i in range(n))
        return data


class MboxV2:
    """6.12's control mailbox: byte rings, 16-byte header, message ids."""

    def __init__(self, dev):
        self.d = dev
        self.msg_id = 0

    rd = MboxV1.rd
    wr = MboxV1.wr

    def init(self, version=0x010000):
        self.wr(MB_HOST_STATUS, 1)
        self.h2f_sz = self.rd(H2F_SZ, 4)
        self.f2h_sz = self.rd(F2H_SZ, 4)
        self.f2h_q = MB_Q + self.h2f_sz
        self.wr(MB_HOST_VERSION, version)
        self.wr(MB_HOST_STATUS, 2)

    def _put(self, pi, data):
        for b in data:
            self.d.q.cmd("writeb 0x%x 0x%x" % (MBOX + MB_Q + pi, b))
            pi = (pi + 1) % self.h2f_sz
        return pi

    def send(self, cmd, body=b"", flags=1):
        self.msg_id = (self.msg_id + 1) & 0xFFFF
        req = struct.pack("<HHHH", 0, 1, cmd, 0) + body
        hdr = struct.pack("<HHIIHH", 0, 0, len(req), flags, self.msg_id, 0)
        pi = self.rd(H2F_PROD, 4)
        pi = self._put(pi, hdr + req)
        self.wr(H2F_PROD, pi, 4)
        return self.msg_id

    def recv(self):
        """One message from the fw-to-host ring: (hdr dict, body) or None."""
        pi, ci = self.rd(F2H_PROD, 4), self.rd(F2H_CONS, 4)
        if pi == ci:
            return None
        raw = b""
        n = (pi - ci) % self.f2h_sz
        for i in range(n):
            raw += bytes([int(self.d.q.cmd(
                "readb 0x%x" % (MBOX + self.f2h_q + (ci + i) % self.f2h_sz)),
                16)])
        flags_w, vf_idx, sz, flags, msg_id, _ = struct.unpack("<HHIIHH",
                                                              raw[:16])
        body = raw[16:16 + sz]
        self.wr(F2H_CONS, (ci + 16 + sz) % self.f2h_sz, 4)
        return {"is_vf": flags_w >> 15, "sz": sz, "flags": flags,
                "msg_id": msg_id}, body

    def request(self, cmd, body=b""):
        mid = self.send(cmd, body)
        self.d.q.clock_step(FW_LATENCY_NS)
        m = self.recv()
        expect(m is not None, "no reply to command %d" % cmd)
        hdr, data = m
        expect(hdr["flags"] == 2 and hdr["msg_id"] == mid,
               "reply header %s for msg_id %d" % (hdr, mid))
        return data


# ---- tests: identity, BARs, capabilities, registers ------------------------

def t_ids(d):
    idw = d.q.cfg_read32(0)
    expect(idw == 0xB200177D, "vendor/device 0x%08x" % idw)
    cls = d.q.cfg_read32(8) >> 16
    expect(cls == 0x0200, "class 0x%04x" % cls)


def t_bars(d):
    q = d.q
    sizes = {}
    for bar, want in ((0x10, 8 << 20), (0x18, 1 << 20), (0x20, 32 << 20)):
        old = q.cfg_read32(bar)
        expect(old & 0x6 == 0x4, "BAR at 0x%x not 64-bit: 0x%x" % (bar, old))
        q.cfg_write32(bar, 0xFFFFFFFF)
        sizes[bar] = (~(q.cfg_read32(bar) & ~0xF) & 0xFFFFFFFF) + 1
        q.cfg_write32(bar, old)
        expect(sizes[bar] == want, "BAR 0x%x size %#x, want %#x"
               % (bar, sizes[bar], want))


def t_ext_caps(d):
    caps = d.ext_caps()
    expect(caps and caps[0][:2] == (0x100, 0x0001),
           "first extended cap not AER at 0x100: %s" % caps)
    vsec = [off for off, cid, _ in caps if cid == 0x000B and
            d.ext_read32(off + 4) & 0xFFFF == 0xA3]
    expect(vsec, "no vendor-specific ext cap with ID 0xA3: %s" % caps)
    ready = d.ext_read32(vsec[0] + 8) & 0xFF
    expect(ready == 1, "firmware-ready byte %d" % ready)


def t_fw_ready_property(d):
    off = [o for o, cid, _ in d.ext_caps() if cid == 0x000B][0]
    d.qom_set("fw-ready", False)
    expect(d.ext_read32(off + 8) & 0xFF == 0, "fw-ready=off reads 1")
    d.qom_set("fw-ready", True)
    expect(d.ext_read32(off + 8) & 0xFF == 1, "fw-ready=on reads 0")


def t_msix_layout(d):
    cap = d.find_cap(0x11)
    expect(cap is not None, "no MSI-X capability")
    ctrl = d.q.cfg_read16(cap + 2)
    expect((ctrl & 0x7FF) + 1 == VECTORS, "MSI-X table size %d, want %d"
           % ((ctrl & 0x7FF) + 1, VECTORS))
    table = d.q.cfg_read32(cap + 4)
    pba = d.q.cfg_read32(cap + 8)
    expect(table == 4 and pba == 0x1004, "table 0x%x PBA 0x%x (BIR 4, "
           "offsets 0 / 0x1000)" % (table, pba))


def t_identity_regs(d):
    ctl = d.r64(MAC_PF_RING_CTL)
    expect((ctl >> 16) & 0x3F == RINGS and ctl & 0xF == 1,
           "MAC_PF_RING_CTL 0x%x: RPPF %d" % (ctl, (ctl >> 16) & 0x3F))
    expect(d.r64(EPF_RINFO) == 0, "EPF_RINFO 0x%x" % d.r64(EPF_RINFO))
    expect(d.r64(MAC_NUMBER) == 0, "MAC_NUMBER")
    d.w64(EPF_SCRATCH, 0x1234567890)
    expect(d.r64(EPF_SCRATCH) == 0x1234567890, "EPF_SCRATCH read back")
    d.w64(EPVF_RING + 0x10 * 3, 0xAB)
    expect(d.r64(EPVF_RING + 0x30) == 0xAB, "EPVF_RING(3) read back")


def t_idle_bits(d):
    for q in range(RINGS):
        expect(d.rr(q, IN_CONTROL) & (1 << 28), "ring %d IN_CONTROL IDLE" % q)
        expect(d.rr(q, OUT_CONTROL) & (1 << 40), "ring %d OUT IDLE" % q)
        expect(d.rr(q, ERR_TYPE) == 0, "ring %d ERR_TYPE" % q)
    d.wr(1, OUT_CONTROL, 3776 | (1 << 26))
    v = d.rr(1, OUT_CONTROL)
    expect(v & 0xFFFF == 3776 and v & (1 << 40), "OUT_CONTROL 0x%x" % v)


def t_rint_quiet(d):
    """6.1 dereferences a NULL mailbox if EPF_MBOX_RINT(0) reads non-zero."""
    d.w64(EPF_MBOX_RINT, 2 ** 64 - 1)
    d.w64(EPF_MBOX_RINT + 0x20, 2 ** 64 - 1)          # W1S
    d.wr(0, MBOX_PF_VF_INT, 2 ** 64 - 1)
    for off in range(0x20100, 0x205E0, 0x10):
        if off in (OEI_RINT, OEI_W1S, OEI_ENA_W1C, OEI_ENA_W1S):
            continue
        expect(d.r64(off) == 0, "0x%x reads 0x%x" % (off, d.r64(off)))
    expect(d.rr(0, MBOX_PF_VF_INT) == 0, "MBOX_PF_VF_INT")


# ---- tests: input ring -----------------------------------------------------

def tx_frame(n=60, tag=1):
    return eth(PEER_MAC, MAC, 0x88B5, bytes([tag]) * (n - 14))


def t_tx_direct(d):
    d.q.drain()
    d.clear_msix()
    d.gt_reset()
    d.iq_setup(0)
    frame = tx_frame(100, 7)
    d.q.mem_write(TX_BUF, frame)
    d.iq_put(0, TX_BUF, len(frame))
    d.w32(ring_reg(0, IN_DBELL), 1)
    got = d.q.recv_frame()
    expect(got == frame, "frame on the wire: %r" % (got and got[:32]))
    expect(d.rr(0, IN_CNTS) & 0xFFFFFFFF == 1, "IN_CNTS %d"
           % d.rr(0, IN_CNTS))
    expect(d.rr(0, IN_DBELL) == 0, "IN_INSTR_DBELL after fetch")
    gt = d.truth()
    expect(gt["in_instr"][0] == 1 and gt["tx_frames"][0] == 1 and
           gt["tx_bytes"][0] == 100, "gt %s" % {k: gt[k][0] for k in
                                                ("in_instr", "tx_frames",
                                                 "tx_bytes")})
    expect(d.msix_fired(16), "vector 16 (ring 0) not raised")
    expect(gt["irqs"][16] == 1, "irqs[16] %d" % gt["irqs"][16])


def t_tx_gather(d):
    d.q.drain()
    d.iq_setup(1)
    parts = [tx_frame(30, 1)[:30], b"\x22" * 17, b"\x33" * 40]
    addrs = [TX_BUF + 0x1000 * (i + 1) for i in range(3)]
    for a, p in zip(addrs, parts):
        d.q.mem_write(a, p)
    lens = [len(p) for p in parts] + [0]
    # ptr[k]'s length is len[3 - k]: stored reversed
    sg = struct.pack("<4H", lens[3], lens[2], lens[1], lens[0])
    sg += struct.pack("<4Q", addrs[0], addrs[1], addrs[2], 0)
    d.q.mem_write(TX_BUF + 0x8000, sg)
    total = sum(lens)
    d.iq_put(1, TX_BUF + 0x8000, total | (3 << 48) | (1 << 62))
    d.w32(ring_reg(1, IN_DBELL), 1)
    got = d.q.recv_frame()
    expect(got == b"".join(parts), "gathered frame %r" % (got and got[:40]))


def t_tx_dbell_additive(d):
    d.q.drain()
    d.iq_setup(2)
    d.wr(2, IN_ENABLE, 0)
    base = d.truth()
    d.w32(ring_reg(2, IN_DBELL), 2)
    d.w32(ring_reg(2, IN_DBELL), 3)
    d.w32(ring_reg(2, IN_DBELL), 0)
    v = d.rr(2, IN_DBELL)
    expect(v == 5, "IN_INSTR_DBELL %d after 2 + 3 (ring disabled)" % v)
    d.w32(ring_reg(2, IN_DBELL), CLEAR)
    expect(d.rr(2, IN_DBELL) == 0, "0xFFFFFFFF did not clear")
    gt = d.truth()
    w = gt["in_dbell_writes"][2] - base["in_dbell_writes"][2]
    nw = gt["in_dbell_noop_writes"][2] - base["in_dbell_noop_writes"][2]
    expect(w == 4 and nw == 1, "doorbell writes %d, no-op %d" % (w, nw))


def t_tx_enable_releases(d):
    d.q.drain()
    d.iq_setup(3)
    d.wr(3, IN_ENABLE, 0)
    frames = [tx_frame(64, i) for i in (1, 2)]
    for i, f in enumerate(frames):
        d.q.mem_write(TX_BUF + 0x100 * i, f)
        d.iq_put(3, TX_BUF + 0x100 * i, len(f))
    d.w32(ring_reg(3, IN_DBELL), 2)
    expect(d.q.recv_frame(0.2) is None, "sent while the ring is disabled")
    d.wr(3, IN_ENABLE, 1)
    got = [d.q.recv_frame(), d.q.recv_frame()]
    expect(got == frames, "after enable: %d frames" % len([g for g in got
                                                            if g]))


def t_in_cnts_subtract(d):
    c = d.rr(3, IN_CNTS) & 0xFFFFFFFF
    expect(c >= 2, "IN_CNTS %d" % c)
    d.w32(ring_reg(3, IN_CNTS), 1)
    expect(d.rr(3, IN_CNTS) & 0xFFFFFFFF == c - 1, "subtract 1 from %d" % c)
    d.clear_msix()
    d.w64(ring_reg(3, IN_CNTS), RESEND)
    expect(d.msix_fired(19), "RESEND with a count did not re-raise vec 19")
    expect(d.rr(3, IN_CNTS) & 0xFFFFFFFF == c - 1, "RESEND changed count")


def t_reg_kinds(d):
    b = d.truth()
    d.rr(2, IN_CNTS)
    d.r32(EPF_SCRATCH)
    d.wr(2, IN_INT_LEVELS, d.rr(2, IN_INT_LEVELS))
    d.w64(ring_reg(2, OUT_CNTS), 0)
    d.wr(2, IN_DBELL, 0)
    d.wr(2, OUT_DBELL, 0)
    d.w64(EPF_SCRATCH, 5)
    d.wr(2, OUT_CONTROL, d.rr(2, OUT_CONTROL))
    d.w32(ring_reg(2, IN_DBELL) + 4, 0)     # the high half: no doorbell
    gt = d.truth()
    expect_reg_kinds(b, gt, 4, 2, 3)
    expect(gt["in_dbell_writes"][2] - b["in_dbell_writes"][2] == 1 and
           gt["out_dbell_writes"][2] - b["out_dbell_writes"][2] == 1,
           "doorbells")


def t_tx_short_padded(d):
    d.q.drain()
    d.iq_setup(0)
    f = tx_frame(42, 9)
    d.q.mem_write(TX_BUF, f)
    d.iq_put(0, TX_BUF, len(f))
    d.w32(ring_reg(0, IN_DBELL), 1)
    got = d.q.recv_frame()
    expect(got is not None and len(got) == 60 and got[:42] == f,
           "short frame: %s" % (got and len(got)))


# ---- tests: output ring ----------------------------------------------------

def rx_frame(n=60, tag=0x5A):
    return eth(MAC, PEER_MAC, 0x88B5, bytes([tag]) * (n - 14))


def t_rx_basic(d):
    d.gt_reset()
    d.clear_msix()
    d.oq_setup(0, size=64, credit=1024 + 64, levels=INT_ENA | 1)
    f = rx_frame(100)
    d.send_frames(1, f)
    buf = d.oq_buf(0, 8 + len(f))
    ln = struct.unpack(">Q", buf[:8])[0]
    expect(ln == len(f), "big-endian length %d, want %d" % (ln, len(f)))
    expect(buf[8:] == f, "data in buffer 0")
    expect(d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 1, "OUT_CNTS")
    expect(d.rr(0, OUT_DBELL) == 1024 + 64 - 16, "credit after one fetch: "
           "%d" % d.rr(0, OUT_DBELL))
    expect(d.msix_fired(16), "vector 16 not raised")
    gt = d.truth()
    expect(gt["fetches"][0] == 1 and gt["buffers_fetched"][0] == 16 and
           gt["rx_frames"][0] == 1 and gt["credit_granted"][0] == 1088 and
           gt["credit_now"][0] == 1072, "gt %s" % {
               k: gt[k][0] for k in ("fetches", "buffers_fetched",
                                     "rx_frames", "credit_granted",
                                     "credit_now")})


def t_rx_skip(d):
    """The rx-skip fault: 3 fetched buffers passed over unwritten, the
    frame in buffer 3, counted once in OUT_CNTS; the knob spent."""
    d.oq_setup(0, size=64, credit=1024 + 64)
    for i in range(5):
        d.q.mem_write(OQ_BUF + i * d.bsize, bytes(8))
    d.gt_reset()
    d.qom_set("rx-skip", 3)
    f = rx_frame(100, 0x3C)
    d.send_frames(1, f)
    ln = [struct.unpack(">Q", d.oq_buf(i, 8))[0] for i in range(5)]
    gt = d.truth()
    left = d.q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                       property="rx-skip")
    expect(ln == [0, 0, 0, len(f), 0] and d.oq_buf(3, 8 + len(f))[8:] == f,
           "length words of buffers 0-4 %s (want 0 0 0 %d 0)" % (ln, len(f)))
    expect(gt["rx_skipped"][0] == 3 and gt["rx_frames"][0] == 1 and
           gt["rx_buffers"][0] == 1 and
           d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 1 and left == 0,
           "rx_skipped %d rx_frames %d rx_buffers %d OUT_CNTS %d left %s"
           % (gt["rx_skipped"][0], gt["rx_frames"][0], gt["rx_buffers"][0],
              d.rr(0, OUT_CNTS) & 0xFFFFFFFF, left))


def t_rx_credit_reads_back(d):
    d.oq_setup(1, size=64)
    d.w32(ring_reg(1, OUT_DBELL), 100)
    d.w32(ring_reg(1, OUT_DBELL), 28)
    expect(d.rr(1, OUT_DBELL) == 128, "credit %d" % d.rr(1, OUT_DBELL))
    d.w32(ring_reg(1, OUT_DBELL), CLEAR)
    expect(d.rr(1, OUT_DBELL) == 0, "0xFFFFFFFF did not clear")


def t_rx_multibuf(d):
    d.oq_setup(0, size=64, bsize=256, credit=1024 + 64)
    f = rx_frame(600, 0x61)
    d.send_frames(1, f)
    raw = d.oq_buf(0, 256) + d.oq_buf(1, 256) + d.oq_buf(2, 96)
    expect(struct.unpack(">Q", raw[:8])[0] == 600, "length")
    expect(raw[8:608] == f, "frame continues in buffers 1 and 2")
    gt = d.truth()
    expect(gt["rx_buffers"][0] >= 3, "rx_buffers %d" % gt["rx_buffers"][0])


def t_rx_cnts_resend(d):
    d.oq_setup(0, size=64, credit=1024 + 64, levels=INT_ENA | 1)
    d.clear_msix()
    d.send_frames(3)
    c = d.rr(0, OUT_CNTS) & 0xFFFFFFFF
    expect(c == 3, "OUT_CNTS %d" % c)
    d.w32(ring_reg(0, OUT_CNTS), 2)
    expect(d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 1, "subtract")
    d.clear_msix()
    d.w64(ring_reg(0, OUT_CNTS), RESEND)
    expect(d.msix_fired(16), "RESEND with 1 pending did not re-raise")
    d.w32(ring_reg(0, OUT_CNTS), 1)
    d.clear_msix()
    d.w64(ring_reg(0, OUT_CNTS), RESEND)
    expect(not d.msix_fired(16), "RESEND with nothing pending raised")


def t_rx_irq_lose(d):
    """irq-lose 1: the next output interrupt is lost (disarmed, counted
    in irqs_lost), the frame waits in OUT_CNTS; a RESEND raises it."""
    d.oq_setup(0, size=64, credit=1024 + 64, levels=INT_ENA | 1)
    d.clear_msix()
    d.gt_reset()
    d.qom_set("irq-lose", 1)
    d.send_frames(1)
    gt = d.truth()
    left = d.q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                       property="irq-lose")
    expect(not d.msix_fired(16) and gt["irqs_lost"][0] == 1 and
           gt["irqs"][16] == 0 and d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 1 and
           left == 0, "vector 16 raised %s, irqs_lost %d, irqs %d, "
           "OUT_CNTS %d, left %s" % (d.msix_fired(16), gt["irqs_lost"][0],
                                     gt["irqs"][16],
                                     d.rr(0, OUT_CNTS) & 0xFFFFFFFF, left))
    d.send_frames(1)
    expect(not d.msix_fired(16), "raised again though disarmed")
    d.w64(ring_reg(0, OUT_CNTS), RESEND)
    expect(d.msix_fired(16), "RESEND with 2 pending did not raise")


def t_rx_cnts_lose(d):
    """cnts-lose 2: two frames written to buffers 0 and 1 but never added
    to OUT_CNTS nor signalled (rx_uncounted), the third counted alone."""
    d.oq_setup(0, size=64, credit=1024 + 64, levels=INT_ENA | 1)
    for i in range(4):
        d.q.mem_write(OQ_BUF + i * d.bsize, bytes(8))
    d.clear_msix()
    d.gt_reset()
    d.qom_set("cnts-lose", 2)
    f = rx_frame(100, 0x3C)
    d.send_frames(2, f)
    gt = d.truth()
    ln = [struct.unpack(">Q", d.oq_buf(i, 8))[0] for i in range(4)]
    expect(ln == [len(f), len(f), 0, 0] and
           d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 0 and not d.msix_fired(16) and
           gt["rx_uncounted"][0] == 2 and gt["rx_frames"][0] == 2,
           "length words %s, OUT_CNTS %d, vector 16 %s, rx_uncounted %d, "
           "rx_frames %d" % (ln, d.rr(0, OUT_CNTS) & 0xFFFFFFFF,
                             d.msix_fired(16), gt["rx_uncounted"][0],
                             gt["rx_frames"][0]))
    d.send_frames(1, f)
    gt = d.truth()
    left = d.q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                       property="cnts-lose")
    expect(d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 1 and d.msix_fired(16) and
           gt["rx_uncounted"][0] == 2 and left == 0 and
           struct.unpack(">Q", d.oq_buf(2, 8))[0] == len(f),
           "after a third frame: OUT_CNTS %d, rx_uncounted %d, left %s"
           % (d.rr(0, OUT_CNTS) & 0xFFFFFFFF, gt["rx_uncounted"][0], left))


def t_tx_hold(d):
    """tx-hold: doorbells add up while held, nothing is fetched or
    sent; released, every announced instruction goes out in order."""
    d.q.drain()
    d.iq_setup(3)
    d.gt_reset()
    d.qom_set("tx-hold", True)
    frames = [tx_frame(64, i) for i in (1, 2, 3)]
    for i, f in enumerate(frames):
        d.q.mem_write(TX_BUF + 0x100 * i, f)
        d.iq_put(3, TX_BUF + 0x100 * i, len(f))
        d.w32(ring_reg(3, IN_DBELL), 1)
    held = d.q.recv_frame(0.2)
    gt = d.truth()
    expect(held is None and gt["in_instr"][3] == 0 and
           d.rr(3, IN_DBELL) == 3, "while held: sent %s, in_instr %d, "
           "IN_INSTR_DBELL %d" % (held is not None, gt["in_instr"][3],
                                  d.rr(3, IN_DBELL)))
    d.qom_set("tx-hold", False)
    got = [d.q.recv_frame() for _ in frames]
    expect(got == frames and d.rr(3, IN_CNTS) & 0xFFFFFFFF == 3,
           "released: %d of 3 frames in order, IN_CNTS %d" % (
               sum(g == f for g, f in zip(got, frames)),
               d.rr(3, IN_CNTS) & 0xFFFFFFFF))


def t_rx_int_levels(d):
    d.oq_setup(0, size=64, credit=1024 + 64, levels=INT_ENA | 4)
    d.clear_msix()
    d.send_frames(3)
    expect(not d.msix_fired(16), "raised below the packet threshold")
    d.send_frames(1)
    expect(d.msix_fired(16), "not raised at the packet threshold (4)")
    d.w32(ring_reg(0, OUT_CNTS), 4)
    d.wr(0, OUT_INT_LEVELS, INT_ENA | (10 << 32) | 100)
    d.w64(ring_reg(0, OUT_CNTS), RESEND)
    d.clear_msix()
    d.send_frames(1)
    expect(not d.msix_fired(16), "raised before the time threshold")
    d.q.clock_step(20000)
    expect(d.msix_fired(16), "not raised 20 us after a packet (time 10)")


def t_rx_reopen_same_ring(d):
    """Down/up with the same descriptor ring address: writing BADDR again
    restarts the block at buffer 0, where the driver's read index is."""
    d.oq_setup(0, size=64, credit=2048)
    d.send_frames(5, rx_frame(80, 1))
    d.wr(0, OUT_ENABLE, 0)
    d.wr(0, OUT_BADDR, OQ_RING)
    d.wr(0, OUT_RSIZE, 64)
    d.q.mem_write(OQ_BUF, bytes(16))
    d.wr(0, OUT_ENABLE, 1)
    d.send_frames(1, rx_frame(90, 2))
    buf = d.oq_buf(0, 16)
    expect(struct.unpack(">Q", buf[:8])[0] == 90 and buf[8:14] == MAC,
           "the first frame after reopening is not in buffer 0: %s"
           % buf.hex())


def t_rx_refused(d):
    d.oq_setup(2, size=64, credit=1000)
    d.wr(0, OUT_ENABLE, 0)
    d.wr(1, OUT_ENABLE, 0)
    base = d.truth()
    d.send_frames(5, ring=2)
    gt = d.truth()
    ref = gt["rx_refused"][2] - base["rx_refused"][2]
    expect(ref == 5 and d.rr(2, OUT_CNTS) & 0xFFFFFFFF == 0,
           "credit 1000 < watermark 1024: refused %d" % ref)
    expect(d.rr(2, OUT_DBELL) == 1000, "credit moved")
    d.wr(2, OUT_ENABLE, 0)


def t_rx_ring_rules(d):
    """OUT_SLIST_RSIZE not a multiple of 16: a guest error, the ring takes
    no frame (each refused); BADDR or RSIZE written while the ring is
    enabled: a guest error, ignored (the ring runs on as it was)."""
    d.gt_reset()
    d.oq_setup(0, size=1000, credit=2000)
    gt = d.truth()
    expect(gt["guest_errors"][0] == 1, "RSIZE 1000: guest_errors %d"
           % gt["guest_errors"][0])
    d.send_frames(3)
    gt = d.truth()
    expect(gt["rx_refused"][0] == 3 and gt["rx_frames"][0] == 0,
           "RSIZE 1000: refused %d frames %d (want 3, 0)"
           % (gt["rx_refused"][0], gt["rx_frames"][0]))
    d.oq_setup(0, size=64, credit=1024 + 64)
    d.gt_reset()
    d.wr(0, OUT_RSIZE, 128)
    d.wr(0, OUT_BADDR, OQ_RING + 0x1000)
    d.send_frames(2)
    gt = d.truth()
    expect(gt["guest_errors"][0] == 2 and d.rr(0, OUT_RSIZE) == 64 and
           d.rr(0, OUT_BADDR) == OQ_RING and gt["rx_frames"][0] == 2,
           "writes on an enabled ring: guest_errors %d RSIZE %d BADDR %#x "
           "frames %d (want 2, 64, %#x, 2)" % (
               gt["guest_errors"][0], d.rr(0, OUT_RSIZE),
               d.rr(0, OUT_BADDR), gt["rx_frames"][0], OQ_RING))
    d.wr(0, OUT_ENABLE, 0)


def t_rx_desc_at_fetch(d):
    """The block reads 16 descriptors when it fetches and writes to those
    addresses: a descriptor the host rewrites afterwards (slot 1, a
    buffer the block holds) does not redirect the frame, and the rewrite
    is counted in desc_changed."""
    d.oq_setup(0, size=64, credit=1024 + 64)
    d.gt_reset()
    d.send_frames(1)
    other = OQ_BUF + 63 * d.bsize
    d.q.mem_write(other, bytes(8))
    d.q.mem_write(OQ_RING + 16, struct.pack("<QQ", other, 0))
    f = rx_frame(100, 0x7E)
    d.send_frames(1, f)
    gt = d.truth()
    got = d.oq_buf(1, 8 + len(f))[8:]
    expect(gt["fetches"][0] == 1 and got == f and gt["desc_changed"][0] == 1
           and struct.unpack(">Q", d.q.mem_read(other, 8))[0] == 0,
           "fetches %d, frame in the fetched buffer %s, desc_changed %d "
           "(want 1, True, 1, the new address untouched)"
           % (gt["fetches"][0], got == f, gt["desc_changed"][0]))
    d.wr(0, OUT_ENABLE, 0)


def udp_frame(sport, dport=9):
    return eth(MAC, PEER_MAC, 0x0800,
               ipv4(b"\x0a\0\0\x02", b"\x0a\0\0\x01", 17,
                    udp(sport, dport, bytes(18))))


def send_counted(d, frames):
    """Send frames one by one; wait until the model has taken each."""
    for f in frames:
        before = sum(d.truth()["rx_frames"])
        d.q.send_frame(f)
        wait_for(lambda: sum(d.truth()["rx_frames"]) > before, "a frame")


def rx_per_ring(d):
    return d.truth()["rx_frames"][:RINGS]


def t_rx_spread(d):
    for q in range(RINGS):
        d.oq_setup(q, size=64, credit=4096)
    base = rx_per_ring(d)
    send_counted(d, [udp_frame(1000 + i) for i in range(64)])
    per = [a - b for a, b in zip(rx_per_ring(d), base)]
    expect(sum(per) == 64 and sum(1 for n in per if n) >= 3,
           "64 flows over the rings: %s" % per)
    base = rx_per_ring(d)
    send_counted(d, [udp_frame(4242)] * 10)
    per = [a - b for a, b in zip(rx_per_ring(d), base)]
    expect(sorted(per) == [0, 0, 0, 10], "one flow, one ring: %s" % per)
    base = rx_per_ring(d)
    send_counted(d, [rx_frame()] * 5)
    per = [a - b for a, b in zip(rx_per_ring(d), base)]
    expect(per == [5, 0, 0, 0], "non-IP frames to ring 0: %s" % per)
    for q in range(1, RINGS):
        d.wr(q, OUT_ENABLE, 0)


def t_rx_spread_off(d):
    for q in range(RINGS):
        d.oq_setup(q, size=64, credit=4096)
    base = rx_per_ring(d)
    send_counted(d, [udp_frame(1000 + i) for i in range(16)])
    per = [a - b for a, b in zip(rx_per_ring(d), base)]
    expect(per == [16, 0, 0, 0], "rx-spread=off: %s" % per)
    for q in range(1, RINGS):
        d.wr(q, OUT_ENABLE, 0)


# ---- tests: the seed's table -----------------------------------------------

def seed_k(frames, ceiling, wmark):
    """Fetches the measured rule allows: 16 at a time while credit >= W."""
    if ceiling < wmark:
        return 0
    return min(-(-frames // 16), (ceiling - wmark) // 16 + 1)


def seed_row(d, ring, wmark, ceiling, frames, want_dbell=None, stops=True):
    d.oq_setup(0, size=ring, credit=0)
    d.gt_reset()
    d.w32(ring_reg(0, OUT_DBELL), ceiling)
    d.send_frames(frames)
    dbell = d.rr(0, OUT_DBELL)
    count = d.rr(0, OUT_CNTS) & 0xFFFFFFFF
    gt = d.truth()
    fetches = gt["fetches"][0]
    k = seed_k(frames, ceiling, wmark)
    diag = ("ring %d wmark %#x ceiling %d frames %d: doorbell %d count %d "
            "fetches %d (rule %d) laps %d overwritten %d refused %d"
            % (ring, wmark, ceiling, frames, dbell, count, fetches, k,
               gt["laps"][0], gt["overwritten_unread"][0],
               gt["rx_refused"][0]))
    print("# " + diag)
    expect(fetches == k, "fetches: " + diag)
    expect(dbell == ceiling - 16 * k, "doorbell: " + diag)
    if want_dbell is not None:
        expect(dbell == want_dbell, "doorbell %d, the seed says %d: %s"
               % (dbell, want_dbell, diag))
    expect(16 * k - 16 < count <= 16 * k or (k == 0 and count == 0),
           "count not within a fetch of 16 x fetches: " + diag)
    if stops:
        expect(dbell < wmark, "credit still at the watermark: " + diag)
        expect(gt["rx_refused"][0] == frames - count, "refused: " + diag)
    else:
        expect(dbell >= wmark and gt["rx_refused"][0] == 0,
               "still going: " + diag)
    expect(gt["outstanding_max"][0] == ceiling,
           "outstanding_max %d, want the ceiling: %s"
           % (gt["outstanding_max"][0], diag))
    expect(gt["credit_now"][0] == dbell and
           gt["credit_fetched"][0] == 16 * fetches and
           gt["buffers_fetched"][0] == 16 * fetches,
           "credit ground truth: " + diag)
    return count, gt


def laps_expected(count, ring):
    return max(0, -(-count // ring) - 1)


def seed_laps(d, ring, wmark, ceiling, frames, want_dbell=None, stops=True,
              want_laps=None):
    count, gt = seed_row(d, ring, wmark, ceiling, frames, want_dbell, stops)
    laps = laps_expected(count, ring)
    expect(gt["laps"][0] == laps, "laps %d, want %d (count %d, ring %d)"
           % (gt["laps"][0], laps, count, ring))
    if want_laps is not None:
        expect(laps == want_laps, "laps %d, the table says %d"
               % (laps, want_laps))
    lost = max(0, count - ring)
    expect(gt["overwritten_unread"][0] == lost, "overwritten unread %d, "
           "want %d" % (gt["overwritten_unread"][0], lost))


SEED_ROWS_400 = [
    # ceiling, frames sent, doorbell (seed), stops, laps
    (1024, 400, 1008, True, 0),
    (1040, 400, 1008, True, 0),
    (2048, 1400, 1008, True, 1),
    (4096, 3300, 1008, True, 3),
    (16384, 12910, 3472, False, 12),
]


def seed_tests(tap, qemu_bin, verbose):
    d = Octep(qemu_bin, ",wmark=0x400", verbose)
    try:
        for c, p, db, stops, laps in SEED_ROWS_400:
            tap.check("seed table: ring 1024, wmark 0x400, ceiling %d, %d "
                      "frames: the seed's doorbell, count within a fetch of "
                      "16 x fetches, the table's laps" % (c, p),
                      lambda c=c, p=p, db=db, s=stops, laps=laps:
                      seed_laps(d, 1024, 0x400, c, p, db, s, laps),
                      diag="want doorbell %d, %d laps" % (db, laps))
        tap.check("seed table: ring 512, wmark 0x400, ceiling 1520: "
                  "doorbell stops where the seed's does, no lap",
                  lambda: seed_laps(d, 512, 0x400, 1520, 700, 1008, True, 0),
                  diag="want doorbell 1008")
        tap.check("seed table: ring 512, wmark 0x400, ceiling 1008: "
                  "nothing delivered",
                  lambda: seed_laps(d, 512, 0x400, 1008, 50, 1008, True, 0))
        tap.check("seed: upstream's grant (1024 once) at wmark 0x400 "
                  "delivers one fetch of frames, then stops",
                  lambda: seed_laps(d, 1024, 0x400, 1024, 300, 1008, True, 0),
                  diag="want 16 frames, doorbell 1008")
        tap.check("seed's fix at wmark 0x400: a grant of ring + wmark - 16 "
                  "fills the ring exactly, no lap, doorbell wmark - 16",
                  lambda: seed_fix_grant(d, 0x400),
                  diag="grant 2032, want doorbell 1008")
        tap.check("wmark set at run time: a ring stalled at 0x400 fetches "
                  "again at the next frame once the watermark is 0x100, "
                  "and stalls again when it is set back",
                  lambda: wmark_at_run_time(d))
    finally:
        d.quit()
        d.cleanup()
    d = Octep(qemu_bin, ",wmark=0x100,rx-spread=off", verbose)
    try:
        tap.check("RX: rx-spread=off: every frame to the lowest enabled "
                  "ring", lambda: t_rx_spread_off(d))
        for c, p, stops in ((256, 100, True), (255, 40, True),
                            (1024, 1000, True), (2048, 2000, True),
                            (4096, 1000, False)):
            db = c - 16 * seed_k(p, c, 0x100)
            tap.check("seed rule at wmark 0x100: ring 1024, ceiling %d, %d "
                      "frames: the rule's doorbell" % (c, p),
                      lambda c=c, p=p, s=stops:
                      seed_laps(d, 1024, 0x100, c, p, None, s),
                      diag="want doorbell %d" % db)
        tap.check("seed: upstream's grant (1024) at wmark 0x100 runs on "
                  "1040 - wmark buffers before credit must return",
                  lambda: seed_upstream_runs(d), diag="want 784 buffers")
        tap.check("seed's fix at wmark 0x100: a grant of ring + wmark - 16 "
                  "fills the ring exactly, no lap, doorbell wmark - 16",
                  lambda: seed_fix_grant(d, 0x100),
                  diag="grant 1264, want doorbell 240")
        tap.check("laps and overwritten_unread count only frames the host "
                  "has not acknowledged", lambda: t_laps_count_unread_only(d))
        tap.check("laps: buffers returned as credit count as read, though "
                  "OUT_CNTS was not written (octeon_ep under load)",
                  lambda: t_laps_returned_credit_is_read(d))
    finally:
        d.quit()
        d.cleanup()


def t_laps_count_unread_only(d):
    """Frames the host acknowledged may be written over; only unread ones
    count.  Ring 64 at wmark 0x100, credit 512 (17 fetches, 272 buffers):
    64 frames, the host acknowledges 32, then 48 more frames: slots 0-31
    (read) are reused silently, slots 32-47 (unread) are overwritten."""
    d.oq_setup(0, size=64, credit=0)
    d.gt_reset()
    d.w32(ring_reg(0, OUT_DBELL), 512)
    d.send_frames(64)
    gt = d.truth()
    expect(gt["laps"][0] == 0 and gt["overwritten_unread"][0] == 0,
           "a full ring, nothing lost yet: laps %d overwritten %d"
           % (gt["laps"][0], gt["overwritten_unread"][0]))
    d.w32(ring_reg(0, OUT_CNTS), 32)
    d.send_frames(48)
    gt = d.truth()
    expect(gt["rx_frames"][0] == 112 and gt["laps"][0] == 1 and
           gt["overwritten_unread"][0] == 16,
           "frames %d laps %d overwritten %d (want 112, 1, 16)"
           % (gt["rx_frames"][0], gt["laps"][0],
              gt["overwritten_unread"][0]))
    expect(d.r32(ring_reg(0, OUT_CNTS)) == 80, "OUT_CNTS %d"
           % d.r32(ring_reg(0, OUT_CNTS)))


def t_laps_returned_credit_is_read(d):
    """octeon_ep under load: it returns each buffer's credit once read
    (refills of 256) but acknowledges OUT_CNTS only when NAPI completes.
    Ring 1024 at wmark 0x100, its grant of 1024: 784 frames (49 fetches);
    512 buffers returned, OUT_CNTS never written; 512 more frames: slots
    0-271 are reused, all of them returned, so nothing is counted.  (A
    grant made before any buffer was written is an advance, never a
    return: t_laps_count_unread_only.)"""
    d.oq_setup(0, size=1024, credit=0)
    d.gt_reset()
    d.w32(ring_reg(0, OUT_DBELL), 1024)
    d.send_frames(784)
    d.w32(ring_reg(0, OUT_DBELL), 512)
    d.send_frames(512)
    gt = d.truth()
    expect(gt["rx_frames"][0] == 1296 and gt["laps"][0] == 0 and
           gt["overwritten_unread"][0] == 0 and
           d.r32(ring_reg(0, OUT_CNTS)) == 1296,
           "returned buffers reused: frames %d laps %d overwritten %d "
           "OUT_CNTS %d (want 1296, 0, 0, 1296)"
           % (gt["rx_frames"][0], gt["laps"][0],
              gt["overwritten_unread"][0], d.r32(ring_reg(0, OUT_CNTS))))


def wmark_at_run_time(d):
    """Upstream's grant stalled at 0x400 (credit 1008), then the firmware
    lowers the watermark: the very next frame finds credit >= wmark."""
    seed_row(d, 1024, 0x400, 1024, 40, 1008, True)
    d.qom_set("wmark", 0x100)
    try:
        g0 = d.truth()
        d.send_frames(20)
        g1 = d.truth()
        got = g1["rx_frames"][0] - g0["rx_frames"][0]
        expect(got == 20 and g1["fetches"][0] - g0["fetches"][0] == 2,
               "at 0x100: %d of 20 frames, %d fetches" %
               (got, g1["fetches"][0] - g0["fetches"][0]))
    finally:
        d.qom_set("wmark", 0x400)
    # 1008 - 32 = 976 < 0x400: what is fetched is used, then it stops
    d.send_frames(40)
    g2 = d.truth()
    expect(g2["fetches"][0] == g1["fetches"][0] and
           g2["rx_frames"][0] - g1["rx_frames"][0] == 12,
           "back at 0x400: %d more frames (the 12 left of the last fetch), "
           "%d more fetches" % (g2["rx_frames"][0] - g1["rx_frames"][0],
                                g2["fetches"][0] - g1["fetches"][0]))


def seed_fix_grant(d, wmark):
    """The seed's fix: grant R + W - 16.  The block fetches exactly one
    ring (R / 16 fetches) and stops at W - 16: a full ring that nobody
    reads refuses frames instead of lapping."""
    ring = 1024
    count, gt = seed_row(d, ring, wmark, ring + wmark - 16, ring + 200)
    expect(count == ring and gt["laps"][0] == 0 and
           gt["overwritten_unread"][0] == 0 and
           d.rr(0, OUT_DBELL) == wmark - 16,
           "count %d laps %d doorbell %d" % (count, gt["laps"][0],
                                             d.rr(0, OUT_DBELL)))


def seed_upstream_runs(d):
    count, gt = seed_row(d, 1024, 0x100, 1024, 1000)
    expect(count == 784, "count %d, want 784 (1040 - W)" % count)
    d.w32(ring_reg(0, OUT_CNTS), count)
    d.w32(ring_reg(0, OUT_DBELL), 256)          # a refill of 256
    d.send_frames(300)
    c2 = d.rr(0, OUT_CNTS) & 0xFFFFFFFF
    expect(c2 == 256, "after a refill of 256: %d more frames" % c2)


# ---- tests: the mailbox ----------------------------------------------------

def t_mbox_v1(d):
    m = MboxV1(d)
    m.init()
    d.gt_reset()
    resp = m.request(CMD_MAC, struct.pack("<H", 0))
    expect(resp is not None, "no reply to GET_MAC")
    expect(struct.unpack("<H", resp[6:8])[0] == 0, "reply code")
    expect(resp[8:14] == MAC, "GET_MAC %s" % resp[8:14].hex())
    resp = m.request(CMD_MTU, struct.pack("<H", 0))
    expect(struct.unpack("<H", resp[8:10])[0] == 9018, "GET_MTU")
    resp = m.request(CMD_LINK, struct.pack("<H", 0))
    expect(struct.unpack("<H", resp[8:10])[0] == 0, "link up before SET")
    m.request(CMD_RX, struct.pack("<HH", 1, 1))
    m.request(CMD_LINK, struct.pack("<HH", 1, 1))
    resp = m.request(CMD_LINK, struct.pack("<H", 0))
    expect(struct.unpack("<H", resp[8:10])[0] == 1, "link after SET up")
    resp = m.request(CMD_LINK_INFO, b"", sizew=4)
    expect(len(resp) == 32 and
           struct.unpack("<I", resp[28:32])[0] == 10000,
           "LINK_INFO speed %r" % resp[28:32].hex())
    off = 288 + 2 * (m.elem_sz + 8) * m.cnt
    m.request(CMD_IF_STATS, struct.pack("<I", off))
    rxp = m.rd(off)
    expect(rxp == d.truth()["rx_frames"][0] + sum(
        d.truth()["rx_frames"][1:]), "IF_STATS rx pkts %d" % rxp)
    gt = d.truth()
    expect(gt["fw_requests"][CMD_MAC] == 1 and
           gt["fw_requests"][CMD_LINK] == 3, "fw_requests %s"
           % gt["fw_requests"])
    expect(d.r64(OEI_RINT) == 0 and m.rd(F2H_PROD, 4) == 0,
           "a v1 host got an OEI cause or a fw-to-host message")
    m.wr(MB_HOST_STATUS, 0)


def t_mbox_v1_no_oei(d):
    """A link change or a heartbeat interval never reaches a 6.1 host."""
    m = MboxV1(d)
    m.init()
    m.request(CMD_LINK, struct.pack("<HH", 1, 1))
    base = d.truth()
    d.q.qmp_cmd("set_link", name="nic0", up=False)
    d.q.qmp_cmd("set_link", name="nic0", up=True)
    d.q.clock_step(3 * 10 ** 9)
    gt = d.truth()
    expect(gt["heartbeats"][0] == base["heartbeats"][0] and
           gt["fw_notifications"][0] == base["fw_notifications"][0],
           "heartbeats %d notifications %d" % (gt["heartbeats"][0],
                                               gt["fw_notifications"][0]))
    expect(d.r64(OEI_RINT) == 0 and m.rd(F2H_PROD, 4) == 0,
           "OEI_RINT 0x%x f2h prod %d" % (d.r64(OEI_RINT), m.rd(F2H_PROD, 4)))
    m.wr(MB_HOST_STATUS, 0)


def v2_host(d):
    m = MboxV2(d)
    d.w64(OEI_ENA_W1S, 2 ** 64 - 1)
    m.init()
    return m


def t_mbox_v2_get_info(d):
    d.clear_msix()
    m = v2_host(d)
    data = m.request(CMD_GET_INFO)
    expect(struct.unpack("<H", data[6:8])[0] == 0, "reply code")
    hb, miss = struct.unpack("<HH", data[10:14])
    expect(len(data) == 72 and hb == 1000 and miss == 20,
           "GET_INFO %d bytes, hb %d miss %d" % (len(data), hb, miss))
    expect(d.r64(OEI_RINT) & 1, "OEI_RINT bit 0 not set by a reply")
    expect(d.msix_fired(8), "vector 8 not raised")
    d.w64(OEI_RINT, 1)
    expect(d.r64(OEI_RINT) & 1 == 0, "OEI_RINT bit 0 is W1C")


def t_mbox_v2_mtu_mac(d):
    m = v2_host(d)
    data = m.request(CMD_MTU, struct.pack("<H", 0))
    expect(struct.unpack("<H", data[8:10])[0] == 9018, "GET_MTU")
    data = m.request(CMD_MTU, struct.pack("<HH", 1, 9000))
    expect(struct.unpack("<H", data[6:8])[0] == 0, "SET_MTU 9000 refused")
    data = m.request(CMD_MTU, struct.pack("<HH", 1, 9001))
    expect(struct.unpack("<H", data[6:8])[0] != 0, "SET_MTU 9001 accepted")
    new = bytes.fromhex("02aabbccdd01")
    m.request(CMD_MAC, struct.pack("<H", 1) + new)
    data = m.request(CMD_MAC, struct.pack("<H", 0))
    expect(data[8:14] == new, "MAC after SET %s" % data[8:14].hex())
    d.oq_setup(0, size=64)          # no credit: both frames refused
    d.send_frames(2)
    data = m.request(CMD_IF_STATS)
    expect(len(data) == 8 + 120 + 144, "IF_STATS reply %d bytes" % len(data))
    gt = d.truth()
    rx = struct.unpack("<15Q", data[8:128])
    expect(rx[0] == sum(gt["rx_frames"]) and rx[6] == sum(gt["rx_refused"])
           and rx[6] == 2,
           "IF_STATS rx pkts %d (model %d), dropped_pkts_fifo_full %d "
           "(model rx_refused %d)" % (rx[0], sum(gt["rx_frames"]), rx[6],
                                     sum(gt["rx_refused"])))
    for cmd in (CMD_OFFLOADS, CMD_DEV_REMOVE):
        data = m.request(cmd, bytes(8))
        expect(struct.unpack("<H", data[6:8])[0] == 0, "cmd %d reply" % cmd)


def t_mbox_v2_wraps(d):
    """Messages cross the end of the 1 KiB rings: 100 requests."""
    m = v2_host(d)
    for i in range(100):
        data = m.request(CMD_RX, struct.pack("<HH", 1, i & 1))
        expect(struct.unpack("<H", data[6:8])[0] == 0, "request %d" % i)
    data = m.request(CMD_RX, struct.pack("<H", 0))
    expect(struct.unpack("<H", data[8:10])[0] == 1, "RX state")


def t_mbox_v2_link_notify(d):
    m = v2_host(d)
    m.request(CMD_LINK, struct.pack("<HH", 1, 1))
    d.q.qmp_cmd("set_link", name="nic0", up=False)
    msg = m.recv()
    expect(msg is not None, "no notification on link down")
    hdr, body = msg
    expect(hdr["flags"] == 4 and hdr["is_vf"] == 0 and
           struct.unpack("<H", body[4:6])[0] == 1 and
           struct.unpack("<H", body[8:10])[0] == 0,
           "notification %s %s" % (hdr, body.hex()))
    d.q.qmp_cmd("set_link", name="nic0", up=True)
    hdr, body = m.recv()
    expect(struct.unpack("<H", body[8:10])[0] == 1, "link up notification")


def t_mbox_v2_heartbeat(d):
    v2_host(d)
    d.w64(OEI_RINT, 3)
    base = d.truth()["heartbeats"][0]
    d.q.clock_step(2 * 10 ** 9)
    n = d.truth()["heartbeats"][0] - base
    expect(n == 4, "%d heartbeats in 2 s (want one per 500 ms)" % n)
    expect(d.r64(OEI_RINT) & 2, "OEI_RINT bit 1")
    d.qom_set("fw-heartbeat", False)
    base = d.truth()["heartbeats"][0]
    d.q.clock_step(2 * 10 ** 9)
    expect(d.truth()["heartbeats"][0] == base, "heartbeat did not stop")
    d.qom_set("fw-heartbeat", True)


def t_fw_restart(d):
    """fw-restart: the rings reinitialised (disabled, no credit, no count),
    the mailbox back to its first READY (the host's status wiped), no
    heartbeat until the host greets it again; then heartbeats again."""
    m = v2_host(d)
    d.oq_setup(0, size=64, credit=1024 + 64)
    d.send_frames(1)
    d.qom_set("fw-restart", True)
    expect(d.rr(0, OUT_ENABLE) & 1 == 0 and d.rr(0, OUT_DBELL) == 0 and
           d.rr(0, OUT_CNTS) & 0xFFFFFFFF == 0 and d.rr(0, OUT_RSIZE) == 0,
           "ring 0 after the restart: enable %d credit %d count %d rsize %d"
           % (d.rr(0, OUT_ENABLE), d.rr(0, OUT_DBELL),
              d.rr(0, OUT_CNTS) & 0xFFFFFFFF, d.rr(0, OUT_RSIZE)))
    expect(m.rd(MB_FW_STATUS) == 2 and m.rd(MB_HOST_STATUS) == 0,
           "mailbox: fw_status %d host_status %d (want 2, 0)"
           % (m.rd(MB_FW_STATUS), m.rd(MB_HOST_STATUS)))
    base = d.truth()["heartbeats"][0]
    d.q.clock_step(2 * 10 ** 9)
    expect(d.truth()["heartbeats"][0] == base, "heartbeat before greeting")
    v2_host(d)
    d.q.clock_step(2 * 10 ** 9)
    expect(d.truth()["heartbeats"][0] > base, "no heartbeat after greeting")


def t_mbox_v2_silent(d):
    m = v2_host(d)
    d.qom_set("fw-silent", True)
    m.send(CMD_MTU, struct.pack("<H", 0))
    d.q.clock_step(10 * FW_LATENCY_NS)
    expect(m.recv() is None, "silent firmware answered")
    d.qom_set("fw-silent", False)


def t_mbox_v2_slow(d):
    m = v2_host(d)
    d.qom_set("fw-delay-ms", 300)
    mid = m.send(CMD_MTU, struct.pack("<H", 0))
    expect(m.recv() is None, "slow firmware answered at once")
    d.q.clock_step(299 * 10 ** 6)
    expect(m.recv() is None, "answered before 300 ms")
    d.q.clock_step(2 * 10 ** 6 + FW_LATENCY_NS)
    msg = m.recv()
    expect(msg and msg[0]["msg_id"] == mid, "no answer after 300 ms")
    d.qom_set("fw-delay-ms", 0)


def t_mbox_v2_uninit_flushes(d):
    """6.12's remove sends DEV_REMOVE without waiting and uninitialises
    the mailbox at once: the firmware still executes what was queued."""
    m = v2_host(d)
    m.request(CMD_LINK, struct.pack("<HH", 1, 1))
    before = d.truth()["fw_requests"][CMD_DEV_REMOVE]
    m.send(CMD_DEV_REMOVE, bytes(8))
    m.wr(MB_HOST_VERSION, 0)
    m.wr(MB_HOST_STATUS, 3)
    d.q.clock_step(FW_LATENCY_NS * 2)
    after = d.truth()["fw_requests"][CMD_DEV_REMOVE]
    expect(after == before + 1, "DEV_REMOVE requests %d -> %d"
           % (before, after))
    expect(m.rd(F2H_PROD, 4) == m.rd(F2H_CONS, 4),
           "an answer was sent to a host that had left")


def t_mbox_v2_to_v1(d):
    """6.12 unloads (host_version 0), 6.1 loads: back to in-place replies."""
    m = v2_host(d)
    m.wr(MB_HOST_VERSION, 0)
    m.wr(MB_HOST_STATUS, 0)
    v1 = MboxV1(d)
    v1.init()
    resp = v1.request(CMD_MTU, struct.pack("<H", 0))
    expect(resp is not None and struct.unpack("<H", resp[8:10])[0] == 9018,
           "v1 after v2")


def t_fw_v1_property(d):
    """fw-v1: an older image reports no control-plane version and answers
    in v1 even a host that wrote a host_version; off again, v2."""
    d.qom_set("fw-v1", True)
    try:
        m = MboxV1(d)
        expect(m.rd(MB_FW_VERSION) == 0, "fw version 0x%x under fw-v1"
               % m.rd(MB_FW_VERSION))
        m.wr(MB_HOST_STATUS, 1)
        m.wr(MB_HOST_VERSION, 0x010000)
        m.init()
        resp = m.request(CMD_MTU, struct.pack("<H", 0))
        expect(resp is not None and struct.unpack("<H", resp[8:10])[0] ==
               9018, "no in-place (v1) answer to a host that wrote a "
               "host_version")
        expect(m.rd(F2H_PROD, 4) == 0, "fw-to-host message under fw-v1")
        m.wr(MB_HOST_VERSION, 0)
        m.wr(MB_HOST_STATUS, 0)
    finally:
        d.qom_set("fw-v1", False)
    expect(MboxV1(d).rd(MB_FW_VERSION) == 0x0001000000010001,
           "fw version not restored")
    v2_host(d).request(CMD_GET_INFO)


# ---- tests: ground truth, wrong programming --------------------------------

def vsec_read(d, sel):
    cap = d.find_cap(0x09)
    d.q.cfg_write32(cap + 8, sel)
    return d.q.cfg_read32(cap + 12) | d.q.cfg_read32(cap + 16) << 32


def t_vsec(d):
    cap = d.find_cap(0x09)
    expect(cap is not None, "no vendor-specific capability")
    expect(d.q.cfg_read32(cap + 4) == 0x54424244, "magic")
    info = d.q.cfg_read32(cap + 20)
    expect(info & 0xFF == len(GT) and (info >> 8) & 0xFF == RINGS and
           (info >> 16) & 0xFF == VECTORS, "info 0x%x" % info)
    vsec_read(d, 1 << 30)
    gt = d.truth()
    for cid, name in enumerate(GT):
        for idx, val in enumerate(gt[name]):
            got = vsec_read(d, cid | idx << 8 | 1 << 29)
            expect(got == val, "%s[%d]: VSEC %d QMP %d" % (name, idx, got,
                                                           val))
    expect(vsec_read(d, 0xFE) == 2 ** 64 - 1, "bad id reads all ones")


def t_wrong(d):
    base = d.truth()["guest_errors"][0]
    # zero-size input ring with a doorbell
    d.iq_setup(0)
    d.wr(0, IN_RSIZE, 0)
    d.w32(ring_reg(0, IN_DBELL), 1)
    # instruction ring outside RAM
    d.iq_setup(1)
    d.wr(1, IN_BADDR, 0xFFFFFFFFF000)
    d.w32(ring_reg(1, IN_DBELL), 1)
    # doorbell beyond the ring, gather lengths that do not add up
    d.iq_setup(2, size=4)
    sg = struct.pack("<4H4Q", 0, 0, 10, 10, TX_BUF, TX_BUF, 0, 0)
    d.q.mem_write(TX_BUF + 0x8000, sg)
    d.iq_put(2, TX_BUF + 0x8000, 100 | (2 << 48) | (1 << 62))
    d.w32(ring_reg(2, IN_DBELL), 9)
    # a 0-length instruction and a gather of 0 pointers
    d.iq_setup(3, size=4)
    d.iq_put(3, TX_BUF, 0)
    d.iq_put(3, TX_BUF, 60 | (1 << 62))
    d.w32(ring_reg(3, IN_DBELL), 2)
    # subtracting more than the count
    d.w32(ring_reg(3, OUT_CNTS), d.r32(ring_reg(3, OUT_CNTS)) + 5)
    # output ring with buffers smaller than the header, and outside RAM
    d.oq_setup(0, size=64, bsize=8, credit=2048)
    d.send_frames(1)
    d.oq_setup(0, size=64, credit=2048)
    d.q.mem_write(OQ_RING, struct.pack("<QQ", 0xFFFFFFFFF000, 0))
    before = d.truth()["guest_errors"][0]
    d.q.send_frame(rx_frame())
    wait_for(lambda: d.truth()["guest_errors"][0] > before, "RX DMA error")
    d.wr(1, OUT_RSIZE, 1 << 20)
    # mailbox: the firmware's own fields, a v2 message that lies
    MboxV1(d).wr(MB_FW_STATUS, 0)
    expect(MboxV1(d).rd(MB_FW_STATUS) == 2, "fw_status overwritten")
    m = v2_host(d)
    m._put(0, struct.pack("<HHIIHH", 0, 0, 900, 1, 1, 0))
    m.wr(H2F_PROD, 16, 4)
    d.q.clock_step(FW_LATENCY_NS)
    expect(d.alive(), "QEMU died")
    gt = d.truth()
    expect(gt["guest_errors"][0] >= base + 10, "guest_errors %d -> %d"
           % (base, gt["guest_errors"][0]))
    expect(gt["dma_errors"][0] >= 1 and gt["dma_errors"][1] >= 1,
           "dma_errors %s (RX write on ring 0, instruction fetch on 1)"
           % gt["dma_errors"])
    expect(d.q.recv_frame(0.2) is None, "bad programming sent a frame")


LOG_NEEDLES = ("IN_INSTR_RSIZE 0", "instruction fetch: DMA read",
               "exceeds the ring", "gather lengths sum to",
               "instruction length 0", "gather of 0 pointers",
               "OUT_CNTS: subtracting", "buffers of 8 bytes",
               "RX header: DMA write", "OUT_SLIST_RSIZE 1048576",
               "firmware's own field", "message of 900 bytes")


# ---- tests: upstream's bring-up, register by register ---------------------

def drv_reset_queues(d):
    """cn93_reset_iq/oq for each ring (6.1 octep_open, first step)."""
    for q in range(RINGS):
        d.wr(q, IN_ENABLE, 0)
        for off in (IN_CNTS, IN_INT_LEVELS, IN_PKT_CNT, 0x90, IN_BADDR,
                    IN_RSIZE):
            d.wr(q, off, 0)
        d.wr(q, IN_DBELL, CLEAR)
        d.wr(q, OUT_ENABLE, 0)
        d.w32(ring_reg(q, OUT_CNTS), d.r32(ring_reg(q, OUT_CNTS)))
        d.wr(q, 0x180, 0xFFFFFFFFF)
        d.wr(q, OUT_DBELL, CLEAR)


def drv_setup_rings(d, size=1024, bsize=3776):
    """setup_iq_regs / setup_oq_regs, descriptors as octep_setup_oqs."""
    for q in range(RINGS):
        expect(d.rr(q, IN_CONTROL) & (1 << 28), "IN IDLE")
        d.wr(q, IN_CONTROL, d.rr(q, IN_CONTROL) | (3 << 25) | (1 << 24) | 2)
        d.wr(q, IN_BADDR, IQ_RING + q * 0x10000)
        d.wr(q, IN_RSIZE, size)
        c = d.r32(ring_reg(q, IN_CNTS))
        d.w32(ring_reg(q, IN_CNTS), c)
        d.wr(q, IN_INT_LEVELS, 0)
        expect(d.rr(q, OUT_CONTROL) & (1 << 40), "OUT IDLE")
        d.wr(q, OUT_CONTROL, (d.rr(q, OUT_CONTROL) & ~(1 << 23)) | (1 << 26))
        d.wr(q, OUT_BADDR, OQ_RING + q * 0x10000)
        d.wr(q, OUT_RSIZE, size)
        d.wr(q, OUT_CONTROL, (d.rr(q, OUT_CONTROL) & ~0x7FFFFF) | bsize)
        d.wr(q, OUT_INT_LEVELS, (10 << 32) | 1)
    d.bsize = 4096
    d.q.mem_write(OQ_RING, b"".join(
        struct.pack("<QQ", OQ_BUF + i * 4096, 0) for i in range(size)))


def drv_enable(d, grant=1024):
    """enable_io_queues, then octep_oq_dbell_init."""
    for q in range(RINGS):
        d.wr(q, IN_DBELL, CLEAR)
        expect(d.rr(q, IN_DBELL) == 0, "IN_INSTR_DBELL did not read 0")
        d.wr(q, IN_INT_LEVELS, d.rr(q, IN_INT_LEVELS) | INT_ENA)
        d.wr(q, IN_ENABLE, d.rr(q, IN_ENABLE) | 1)
    for q in range(RINGS):
        d.wr(q, OUT_INT_LEVELS, d.rr(q, OUT_INT_LEVELS) | INT_ENA)
        d.wr(q, OUT_DBELL, CLEAR)
        d.wr(q, OUT_ENABLE, d.rr(q, OUT_ENABLE) | 1)
    d.w64(OEI_ENA_W1S, 2 ** 64 - 1)
    for q in range(RINGS):
        d.w32(ring_reg(q, OUT_DBELL), grant)


def drv_napi(d, q=0):
    """octep_oq_process_rx + octep_enable_ioq_irq: read the count, take
    the frames, refill only at 256, ack, RESEND.  Returns frames taken."""
    count = d.r32(ring_reg(q, OUT_CNTS))
    if count:
        d.w32(ring_reg(q, OUT_CNTS), count)
        d.r32(ring_reg(q, OUT_CNTS))
    d.w64(ring_reg(q, OUT_CNTS), RESEND)
    d.w64(ring_reg(q, IN_CNTS), RESEND)
    d.refill = getattr(d, "refill", 0) + count
    if d.refill >= 256:
        d.w32(ring_reg(q, OUT_DBELL), d.refill)
        d.refill = 0
    return count


def t_bringup_61(d):
    """6.1: probe (GET_MAC), open, traffic: 16 frames, then the stall."""
    drv_reset_queues(d)
    m = MboxV1(d)
    m.init()
    mac = m.request(CMD_MAC, struct.pack("<H", 0))[8:14]
    expect(mac == MAC, "GET_MAC %s" % mac.hex())
    drv_reset_queues(d)
    drv_setup_rings(d)
    m.request(CMD_RX, struct.pack("<HH", 1, 1))
    if struct.unpack("<H", m.request(CMD_LINK, b"\0\0")[8:10])[0] == 0:
        m.request(CMD_LINK, struct.pack("<HH", 1, 1))
    drv_enable(d)
    link = struct.unpack("<H", m.request(CMD_LINK, b"\0\0")[8:10])[0]
    expect(link == 1, "link %d after open" % link)
    d.clear_msix()
    d.gt_reset()
    d.send_frames(100)
    expect(d.msix_fired(16), "no RX interrupt")
    taken = drv_napi(d)
    d.send_frames(100)
    taken += drv_napi(d)
    gt = d.truth()
    print("# 6.1 on wmark 0x400: %d frames taken, %d refused, credit %d, "
          "%d doorbell writes" % (taken, gt["rx_refused"][0],
                                  gt["credit_now"][0],
                                  gt["out_dbell_writes"][0]))
    expect(taken == 16 and gt["rx_refused"][0] == 184 and
           gt["credit_now"][0] == 1008,
           "the stall the reference predicts: 16 frames, then none")
    # TX: one skb, writel(1)
    d.q.drain()
    f = tx_frame(64, 3)
    d.q.mem_write(TX_BUF, f)
    d.q.mem_write(IQ_RING, struct.pack("<QQ", TX_BUF, len(f)) + bytes(48))
    d.w32(ring_reg(0, IN_DBELL), 1)
    expect(d.q.recv_frame() == f, "TX frame")
    expect(d.r32(ring_reg(0, IN_CNTS)) == 1, "IN_CNTS")
    expect(d.r64(OEI_RINT) == 0 and d.r64(EPF_MBOX_RINT) == 0,
           "a cause 6.1 would mishandle")
    m.request(CMD_LINK, struct.pack("<HH", 1, 0))
    m.request(CMD_RX, struct.pack("<HH", 1, 0))
    m.wr(MB_HOST_STATUS, 3)
    m.wr(MB_HOST_STATUS, 0)


def t_bringup_612(d):
    """6.12: GET_INFO, GET_MTU, GET_MAC by polling OEI, open, heartbeat."""
    drv_reset_queues(d)
    m = MboxV2(d)
    m.init(version=0x010000)
    for cmd in (CMD_GET_INFO, CMD_MTU, CMD_MAC):
        mid = m.send(cmd, struct.pack("<H", 0))
        expect(not d.r64(OEI_RINT) & 1, "answered within the doorbell "
               "write (6.12 would drop it)")
        d.q.clock_step(FW_LATENCY_NS)
        expect(d.r64(OEI_RINT) & 1, "OEI bit 0 after cmd %d" % cmd)
        d.w64(OEI_RINT, d.r64(OEI_RINT))
        hdr, data = m.recv()
        expect(hdr["msg_id"] == mid and
               struct.unpack("<H", data[6:8])[0] == 0, "cmd %d" % cmd)
        if cmd == CMD_MTU:
            expect(struct.unpack("<H", data[8:10])[0] - 18 == 9000, "mtu")
    drv_setup_rings(d)
    d.msix_setup()
    m.send(CMD_RX, struct.pack("<HH", 1, 1))
    m.send(CMD_LINK, struct.pack("<HH", 1, 1))
    drv_enable(d)
    d.clear_msix()
    m.send(CMD_LINK, struct.pack("<H", 0))
    d.q.clock_step(FW_LATENCY_NS)
    expect(d.msix_fired(8), "vector 8 for the replies")
    replies = []
    while True:
        msg = m.recv()
        if msg is None:
            break
        replies.append(msg)
    expect(len(replies) == 3 and
           struct.unpack("<H", replies[2][1][8:10])[0] == 1,
           "replies %s" % replies)
    base = d.truth()["heartbeats"][0]
    d.q.clock_step(10 ** 9)
    expect(d.truth()["heartbeats"][0] - base == 2, "2 heartbeats a second")
    m.send(CMD_DEV_REMOVE, bytes(8))
    m.wr(MB_HOST_VERSION, 0)
    m.wr(MB_HOST_STATUS, 0)
    base = d.truth()["heartbeats"][0]
    d.q.clock_step(10 ** 9)
    expect(d.truth()["heartbeats"][0] == base, "heartbeat after uninit")


FUZZ = {"ops": 2000, "seed": 1}
RING_OFFS = (IN_CONTROL, IN_ENABLE, IN_BADDR, IN_RSIZE, IN_DBELL, IN_CNTS,
             IN_INT_LEVELS, OUT_CNTS, OUT_INT_LEVELS, OUT_BADDR, OUT_RSIZE,
             OUT_DBELL, OUT_CONTROL, OUT_ENABLE, ERR_TYPE, MBOX_PF_VF_INT)


def fuzz(d):
    """A seeded random walk over registers, rings, mailbox and frames."""
    import random
    rnd = random.Random(FUZZ["seed"])
    q = d.q
    mbox = MboxV1(d)
    # Start from a working port (rings up, credit granted, a v2 host), so
    # that the walk reaches the datapath and the firmware, not only errors.
    drv_reset_queues(d)
    drv_setup_rings(d, size=64, bsize=2048)
    drv_enable(d, grant=2048)
    v2 = MboxV2(d)
    v2.init()

    def val():
        return rnd.choice([0, 1, 2, 16, 64, 1024, 0xFFFFFFFF, RESEND,
                           INT_ENA | rnd.randrange(8), rnd.getrandbits(64),
                           rnd.getrandbits(12)])

    def addr():
        return rnd.choice([IQ_RING, OQ_RING, TX_BUF, OQ_BUF, 0,
                           0xFFFFFFFFF000, rnd.getrandbits(28) & ~0xF])

    for i in range(FUZZ["ops"]):
        op = rnd.randrange(12)
        ring = rnd.randrange(RINGS + 1)
        if op <= 2:
            off = rnd.choice(RING_OFFS)
            v = addr() if off in (IN_BADDR, OUT_BADDR) else val()
            if off in (IN_RSIZE, OUT_RSIZE):
                v = rnd.choice([0, 1, 4, 16, 64, 1024, 70000])
            d.wr(ring, off, v)
        elif op == 3:
            d.w32(ring_reg(ring, rnd.choice((IN_DBELL, OUT_DBELL,
                                             OUT_CNTS, IN_CNTS))), val())
        elif op == 4:
            d.w64(0x20000 + (rnd.randrange(0x10000) & ~7), val())
        elif op == 5:
            q.mem_write(rnd.choice([IQ_RING, OQ_RING, TX_BUF + 0x8000]) +
                        16 * rnd.randrange(64),
                        struct.pack("<QQ", addr(), rnd.getrandbits(64)))
        elif op == 6:
            n = rnd.choice([14, 60, 64, 1514, 4000, 9014])
            q.send_frame(bytes(rnd.getrandbits(8) for _ in range(min(n, 64)))
                         + bytes(max(0, n - 64)))
        elif op == 7:
            off = rnd.choice([MB_HOST_VERSION, MB_HOST_STATUS, H2F_PROD,
                              F2H_CONS, MB_Q + rnd.randrange(0x800),
                              rnd.randrange(0x8000)])
            mbox.wr(off & ~7 if off < MB_Q else off & ~3,
                    rnd.choice([0, 1, 2, 3, rnd.getrandbits(32)]),
                    8 if off in (MB_HOST_VERSION, MB_HOST_STATUS) else 4)
        elif op == 8:
            q.clock_step(rnd.choice([1000, 10 ** 6, 6 * 10 ** 8]))
        elif op == 9:
            q.qmp_cmd("set_link", name="nic0", up=rnd.random() < 0.7)
        elif op == 10:
            d.r64(ring_reg(ring, rnd.choice(RING_OFFS)))
            if rnd.random() < 0.3:
                v2.send(rnd.randrange(16), bytes(rnd.getrandbits(8)
                                                 for _ in range(8)))
            elif rnd.random() < 0.2:
                v2.recv()
        else:
            q.cfg_write16(0x04, rnd.choice([0x6, 0x6, 0x2]))
        if i % 200 == 0:
            expect(d.alive(), "QEMU died at op %d" % i)
    q.qmp_cmd("set_link", name="nic0", up=True)
    expect(d.alive(), "QEMU died")
    gt = d.truth()
    print("# fuzz: %s" % ", ".join("%s %d" % (k, sum(gt[k])) for k in (
        "in_instr", "tx_frames", "fetches", "rx_frames", "rx_refused",
        "laps", "irqs", "fw_requests", "heartbeats", "rx_off_drops",
        "guest_errors")))


def run_main(tap, d):
    for name, fn in (
            ("PCI ID 177d:b200, class Ethernet", t_ids),
            ("BAR0 8 MiB, BAR2 1 MiB, BAR4 32 MiB, all 64-bit", t_bars),
            ("AER at 0x100, vendor-specific ext cap 0xA3 with "
             "firmware-ready byte 1", t_ext_caps),
            ("fw-ready=off clears the firmware-ready byte (6.12 defers "
             "probe), on sets it", t_fw_ready_property),
            ("MSI-X: 16 + rings vectors, table and PBA in BAR4",
             t_msix_layout),
            ("MAC_PF_RING_CTL RPPF = rings, EPF_RINFO/MAC_NUMBER 0, scratch "
             "and EPVF_RING read back", t_identity_regs),
            ("IN/OUT_CONTROL IDLE bits read 1, ERR_TYPE 0", t_idle_bits),
            ("interrupt causes other than OEI read 0 (6.1's PF-VF mailbox "
             "cause stays 0)", t_rint_quiet)):
        tap.check(name, lambda fn=fn: fn(d))
    d.msix_setup()
    for name, fn in (
            ("TX: direct instruction, frame on the wire, IN_CNTS, vector "
             "16", t_tx_direct),
            ("TX: gather list with lengths stored reversed", t_tx_gather),
            ("TX: IN_INSTR_DBELL additive, 0 counted as no-op, 0xFFFFFFFF "
             "clears", t_tx_dbell_additive),
            ("TX: instructions announced on a disabled ring go at enable",
             t_tx_enable_releases),
            ("TX: IN_CNTS subtracts on write, RESEND re-raises",
             t_in_cnts_subtract),
            ("TX: short frames padded to 60 bytes", t_tx_short_padded),
            ("register accesses by kind: reads, count acks and interrupt "
             "levels, other writes; doorbells apart", t_reg_kinds),
            ("RX: big-endian length header, data, OUT_CNTS, one fetch of 16, "
             "vector 16", t_rx_basic),
            ("RX: rx-skip passes over fetched buffers unwritten, counted "
             "in rx_skipped, the frame after them", t_rx_skip),
            ("RX: OUT_SLIST_DBELL credit is additive and reads back",
             t_rx_credit_reads_back),
            ("RX: irq-lose loses the next output interrupt (irqs_lost), "
             "the count waits, RESEND raises it", t_rx_irq_lose),
            ("RX: cnts-lose writes frames OUT_CNTS never counts "
             "(rx_uncounted), no interrupt for them", t_rx_cnts_lose),
            ("TX: tx-hold fetches nothing while set, every announced "
             "instruction in order once released", t_tx_hold),
            ("RX: a frame longer than a buffer continues in the next",
             t_rx_multibuf),
            ("RX: OUT_CNTS subtracts on write, RESEND re-raises only with a "
             "count", t_rx_cnts_resend),
            ("RX: INT_LEVELS packet and time thresholds", t_rx_int_levels),
            ("RX: reopening with the same ring address restarts at "
             "buffer 0", t_rx_reopen_same_ring),
            ("RX: credit under the watermark: frames refused and counted",
             t_rx_refused),
            ("RX: RSIZE not whole fetches refused; BADDR/RSIZE writes on an "
             "enabled ring ignored; each a guest error", t_rx_ring_rules),
            ("RX: descriptors are read at fetch time; one rewritten after "
             "it counts in desc_changed and redirects nothing",
             t_rx_desc_at_fetch),
            ("RX: rx-spread (default): IP flows hashed over the enabled "
             "rings, a flow on one ring, non-IP to the lowest",
             t_rx_spread),
            ("mailbox v1 (6.1): GET_MAC, GET_MTU, LINK/RX state, LINK_INFO, "
             "IF_STATS at the host's offset; no OEI, no fw-to-host "
             "message", t_mbox_v1),
            ("mailbox v1: link flap and 3 s of heartbeat interval raise "
             "nothing", t_mbox_v1_no_oei),
            ("mailbox v2 (6.12): GET_INFO reply on the f2h ring, OEI bit 0, "
             "vector 8", t_mbox_v2_get_info),
            ("mailbox v2: MTU get/set (max 9018 - 18), MAC set/get, "
             "IF_STATS inline (refusals in dropped_pkts_fifo_full), "
             "OFFLOADS, DEV_REMOVE", t_mbox_v2_mtu_mac),
            ("mailbox v2: 100 requests wrap both rings", t_mbox_v2_wraps),
            ("mailbox v2: link change notifications (flags NOTIFY, cmd 1)",
             t_mbox_v2_link_notify),
            ("mailbox v2: heartbeat on OEI bit 1 every 500 ms; fw-heartbeat="
             "off stops it", t_mbox_v2_heartbeat),
            ("fw-restart: rings reinitialised, the mailbox back to its first "
             "READY, no heartbeat until the host greets it again",
             t_fw_restart),
            ("mailbox v2: fw-silent never answers", t_mbox_v2_silent),
            ("mailbox v2: fw-delay-ms answers late", t_mbox_v2_slow),
            ("mailbox v2: a request queued just before UNINIT is "
             "executed, not answered (6.12's DEV_REMOVE at remove)",
             t_mbox_v2_uninit_flushes),
            ("mailbox: a v1 host after a v2 host gets v1", t_mbox_v2_to_v1),
            ("fw-v1: no control-plane version, v1 answers to any host; "
             "off: v2 again", t_fw_v1_property),
            ("VSEC in config space returns the same counters as QMP",
             t_vsec),
            ("wrong programming (bad rings, DMA outside RAM, gather, "
             "counts, tiny buffers, mailbox): logged, counted, QEMU "
             "carries on", t_wrong)):
        tap.check(name, lambda fn=fn: fn(d))


def t_rings_property(qemu_bin, verbose):
    d = Octep(qemu_bin, ",rings=63", verbose)
    try:
        ctl = d.r64(MAC_PF_RING_CTL)
        expect((ctl >> 16) & 0x3F == 63, "RPPF %d" % ((ctl >> 16) & 0x3F))
        cap = d.find_cap(0x11)
        n = (d.q.cfg_read16(cap + 2) & 0x7FF) + 1
        expect(n == 79, "MSI-X vectors %d" % n)
        expect(d.rr(62, OUT_CONTROL) & (1 << 40), "ring 62 IDLE")
    finally:
        d.quit()
        d.cleanup()
    out = subprocess.run([qemu_bin, "-machine", "q35", "-accel", "qtest",
                          "-display", "none", "-nodefaults",
                          "-L", "/usr/share/seabios", "-L", "/usr/share/qemu",
                          "-device", "dbb-octep,rings=64"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=30, check=False)
    expect(out.returncode != 0 and b"rings=64" in out.stdout,
           "rings=64 accepted: %r" % out.stdout[-200:])


def run_tests(qemu_bin, verbose):
    tap = OctepTap()
    d = Octep(qemu_bin, "", verbose)
    try:
        run_main(tap, d)
    finally:
        d.quit()
    check_log_and_exit(tap, d.q, LOG_NEEDLES)
    d.cleanup()

    tap.check("rings=63: RPPF = rings, 16 + rings MSI-X vectors; rings=64 "
              "refused", lambda: t_rings_property(qemu_bin, verbose),
              diag="rings=63: RPPF 63, 79 MSI-X vectors")
    b = Octep(qemu_bin, "", verbose)
    try:
        b.msix_setup()
        tap.check("6.1's bring-up order (probe GET_MAC, open, enable, grant "
                  "1024, NAPI refilling at 256) at wmark 0x400: one fetch "
                  "of frames, then every frame refused",
                  lambda: t_bringup_61(b), diag="16 frames, then refused")
        tap.check("6.12's bring-up order (GET_INFO, GET_MTU, GET_MAC by "
                  "OEI polling; open; replies on vector 8; heartbeat until "
                  "uninit)", lambda: t_bringup_612(b))
    finally:
        b.quit()
        b.cleanup()
    f = Octep(qemu_bin, "", verbose)
    try:
        f.msix_setup()
        tap.check("fuzz: random register, ring, mailbox and frame "
                  "operations (--fuzz-ops, --fuzz-seed): QEMU stays up",
                  lambda: fuzz(f), diag="fuzz: %d operations, seed %d"
                  % (FUZZ["ops"], FUZZ["seed"]))
    finally:
        f.quit()
        f.cleanup()
    seed_tests(tap, qemu_bin, verbose)
    tap.plan()
    return tap.failed


if __name__ == "__main__":
    sys.exit(qtest_main(__doc__, "dbb-octep", run_tests, FUZZ))
