#!/usr/bin/env python3
"""Model-level tests of the dbb-igc QEMU device through the qtest protocol.

No guest kernel: the test plays the driver.  It starts the QEMU built by
tools/lab/qemu/build.sh with -accel qtest, programs the device through PCI
config space (0xcf8/0xcfc) and BAR0, puts descriptor rings and buffers in
guest RAM, exchanges frames with the model through a -netdev dgram
backend bound to UDP sockets on 127.0.0.1, reads the ground truth over QMP
(qom-get) and through the vendor-specific capability in config space, and
checks QEMU's guest-error log.

    tests/qtest_dbb_igc.py [--qemu PATH] [-v]

Prints TAP (ok N name / not ok N name), exits 1 if a test failed, 2 if
the harness itself could not run.  Python 3 standard library only.
"""

import os
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qtestlib import (QEMU, Tap, HarnessError, expect,  # noqa: E402,F401
                      expect_reg_kinds, wait_for, check_log_and_exit, main as qtest_main,
                      csum16, pseudo_seed, eth, ipv4, udp, MAC, PEER_MAC,
                      SLOT, BAR0)

BAR3 = 0xE0100000
# dbb_igc_timing.c (strict=on): NVM auto-read after a reset, PHY reset
# after CTRL.PHY_RST clears, one MDIC access, a forgotten semaphore
AUTORD_NS, PHY_RST_NS, MDIC_NS, SWSM_HOLD_NS = 1000000, 100000, 26000, \
    1000000000
# ... and after a link up at 1000 Mb/s, the partner's receiver; AN itself
T1000_RX_NS, AN_NS = 300000000, 100000000
MSIX_MAILBOX = 0x00F00000                   # MSI-X messages land in RAM

# Registers
CTRL, STATUS, EECD, MDIC = 0x0, 0x8, 0x10, 0x20
RCTL, TCTL = 0x100, 0x400
SWSM, SW_FW_SYNC = 0x5B50, 0x5B5C
ICR, ICS, IMS, IMC = 0x1500, 0x1504, 0x1508, 0x150C
GPIE, EICS, EIMS, EIMC, EIAC, EIAM, EICR = (0x1514, 0x1520, 0x1524, 0x1528,
                                            0x152C, 0x1530, 0x1580)
IVAR0, IVAR_MISC = 0x1700, 0x1740
RXCSUM, RLPML, MTA, MRQC = 0x5000, 0x5004, 0x5200, 0x5818
MPC, GPRC, GPTC, RNBC, TPR, TPT = 0x4010, 0x4074, 0x4080, 0x40A0, 0x40D0, 0x40D4
PRC1522, PTC1522 = 0x4070, 0x40EC


def EITR(n): return 0x1680 + 4 * n
def RAL(n): return 0x5400 + 8 * n
def RAH(n): return 0x5404 + 8 * n
def RETA(i): return 0x5C00 + 4 * i
def RSSRK(i): return 0x5C80 + 4 * i
def RDBAL(q): return 0xC000 + 0x40 * q
def RDBAH(q): return 0xC004 + 0x40 * q
def RDLEN(q): return 0xC008 + 0x40 * q
def SRRCTL(q): return 0xC00C + 0x40 * q
def RDH(q): return 0xC010 + 0x40 * q
def RDT(q): return 0xC018 + 0x40 * q
def RXDCTL(q): return 0xC028 + 0x40 * q
def RQDPC(q): return 0xC030 + 0x40 * q
def TDBAL(q): return 0xE000 + 0x40 * q
def TDBAH(q): return 0xE004 + 0x40 * q
def TDLEN(q): return 0xE008 + 0x40 * q
def TDH(q): return 0xE010 + 0x40 * q
def TDT(q): return 0xE018 + 0x40 * q
def TXDCTL(q): return 0xE028 + 0x40 * q


ENABLE = 1 << 25
TXD_DATA = (3 << 20) | (1 << 29) | (1 << 25)        # DTYP data, DEXT, IFCS
TXD_CTXT = (2 << 20) | (1 << 29)
EOP, RS, TSE = 1 << 24, 1 << 27, 1 << 31
TXSM, IXSM = 1 << 9, 1 << 8

# Ground-truth counter ids (README.md)
GT = ["tdt_writes", "tdt_noop_writes", "rdt_writes", "rdt_noop_writes",
      "tx_desc", "rx_desc", "tx_frames", "rx_frames", "rx_dropped",
      "tx_packets", "tx_bytes", "rx_bytes", "irqs", "irq_deferred",
      "rx_filtered", "rx_off_drops", "guest_errors", "rx_paused_drops",
      "tx_link_drops", "reg_reads", "irq_reg_writes", "other_reg_writes",
      "tx_desc_reads", "rx_desc_reads", "tx_wb_writes", "irqs_rx"]


def ip_checksum_ok(ip):
    ihl = (ip[0] & 0xF) * 4
    return csum16(ip[:ihl]) == 0xFFFF


def l4_checksum_ok(frame, proto):
    ip = frame[14:]
    ihl = (ip[0] & 0xF) * 4
    tot = struct.unpack("!H", ip[2:4])[0]
    l4 = ip[ihl:tot]
    pseudo = ip[12:20] + struct.pack("!BBH", 0, proto, len(l4))
    return csum16(pseudo + l4) == 0xFFFF


def toeplitz(key, data):
    key_int = int.from_bytes(key, "big")
    klen = len(key) * 8
    result = 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            result ^= (key_int >> (klen - 32 - i)) & 0xFFFFFFFF
    return result


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def l4_checksum6_ok(frame, proto):
    ip = frame[14:]
    plen = struct.unpack("!H", ip[4:6])[0]
    l4 = ip[40:40 + plen]
    pseudo = ip[8:40] + struct.pack("!IxxxB", len(l4), proto)
    return csum16(pseudo + l4) == 0xFFFF


class Device:
    """The driver's side: PCI setup and helpers for rings."""

    RAM_TX_RING = 0x100000
    RAM_TX_BUF = 0x110000
    RAM_RX_RING = 0x200000
    RAM_RX_BUF = 0x210000

    def __init__(self, q):
        self.q = q

    def pci_setup(self):
        q = self.q
        q.cfg_write32(0x10, BAR0)
        q.cfg_write32(0x1C, BAR3)
        q.cfg_write16(0x04, 0x0006)             # memory space, bus master
        # the power-on NVM auto-read (strict=on: 1 ms of virtual time)
        q.clock_step(AUTORD_NS)

    def find_cap(self, cap_id):
        return self.q.find_cap(cap_id)

    def msix_setup(self):
        q = self.q
        cap = self.find_cap(0x11)
        for v in range(5):
            q.writel(16 * v + 0, MSIX_MAILBOX + 4 * v, base=BAR3)
            q.writel(16 * v + 4, 0, base=BAR3)
            q.writel(16 * v + 8, 0x100 + v, base=BAR3)
            q.writel(16 * v + 12, 0, base=BAR3)     # unmasked
        q.mem_write(MSIX_MAILBOX, bytes(20))
        q.cfg_write16(cap + 2, 0x8000 | q.cfg_read16(cap + 2))
        # igc's configuration: vector 0 other causes, 1..4 queue pairs
        q.writel(GPIE, (1 << 4) | (1 << 31) | (1 << 30) | 1)
        q.writel(IVAR_MISC, (0 | 0x80) << 8)
        for i in range(2):
            val = 0
            for half in range(2):
                vec = 1 + 2 * i + half
                val |= ((vec | 0x80) | ((vec | 0x80) << 8)) << (16 * half)
            q.writel(IVAR0 + 4 * i, val)
        q.writel(EIAC, 0x1F)
        q.writel(EIAM, 0x1F)
        q.writel(EIMS, 0x1F)
        q.writel(IMS, 1 << 2)                       # LSC

    def mailbox(self, v):
        return struct.unpack("<I", self.q.mem_read(MSIX_MAILBOX + 4 * v,
                                                   4))[0]

    def clear_mailbox(self):
        self.q.mem_write(MSIX_MAILBOX, bytes(20))

    def tx_setup(self, qn=0, ndesc=8, base=None):
        q = self.q
        base = self.RAM_TX_RING + qn * 0x1000 if base is None else base
        q.writel(TXDCTL(qn), 0)
        q.writel(TDLEN(qn), ndesc * 16)
        q.writel(TDBAL(qn), base & 0xFFFFFFFF)
        q.writel(TDBAH(qn), base >> 32)
        q.writel(TDH(qn), 0)
        q.writel(TDT(qn), 0)
        q.writel(TXDCTL(qn), ENABLE)
        q.writel(TCTL, (1 << 1) | (1 << 3) | (15 << 4))
        if base < (1 << 32):
            q.mem_write(base, bytes(16 * ndesc))
        self.tx_base = base
        self.tx_ndesc = ndesc
        self.tx_tail = 0

    def tx_put(self, qn, descs):
        """Write descriptors (16-byte bytes objects) at the tail."""
        for d in descs:
            self.q.mem_write(self.tx_base + 16 * self.tx_tail, d)
            self.tx_tail = (self.tx_tail + 1) % self.tx_ndesc

    def data_desc(self, addr, length, cmd=EOP | RS, olinfo=None):
        if olinfo is None:
            olinfo = length << 14
        return struct.pack("<QII", addr, TXD_DATA | cmd | length, olinfo)

    def ctx_desc(self, maclen, iplen, l4t, ipv4=True, l4len=0, mss=0,
                 vlan=0):
        vml = iplen | (maclen << 9) | (vlan << 16)
        tucmd = TXD_CTXT | (l4t << 11) | ((1 << 10) if ipv4 else 0)
        return struct.pack("<IIII", vml, 0, tucmd, (l4len << 8) | (mss << 16))

    def rx_setup(self, qn=0, ndesc=8, bufsize_kb=2):
        q = self.q
        base = self.RAM_RX_RING + qn * 0x1000
        self.rx_base = base
        self.rx_ndesc = ndesc
        q.writel(RXDCTL(qn), 0)
        q.writel(RDBAL(qn), base)
        q.writel(RDBAH(qn), 0)
        q.writel(RDLEN(qn), ndesc * 16)
        q.writel(RDH(qn), 0)
        q.writel(RDT(qn), 0)
        q.writel(SRRCTL(qn), bufsize_kb | (1 << 25))
        self.rx_refill(qn, range(ndesc))
        q.writel(RXDCTL(qn), ENABLE)

    def rx_buf(self, qn, i):
        return self.RAM_RX_BUF + qn * 0x40000 + i * 0x4000

    def rx_refill(self, qn, idxs):
        for i in idxs:
            self.q.mem_write(self.RAM_RX_RING + qn * 0x1000 + 16 * i,
                             struct.pack("<QQ", self.rx_buf(qn, i), 0))

    def rx_desc(self, qn, i):
        raw = self.q.mem_read(self.RAM_RX_RING + qn * 0x1000 + 16 * i, 16)
        dw0, hsh, staterr, lenvlan = struct.unpack("<IIII", raw)
        return {"rss_type": dw0 & 0xF, "hash": hsh, "status": staterr,
                "len": lenvlan & 0xFFFF, "vlan": lenvlan >> 16}


def run_tests(qemu_bin, verbose):
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="qtest-dbb-igc.")
    q = QEMU(qemu_bin, tmp, verbose=verbose)
    d = Device(q)
    try:
        run_main(tap, q, d)
    finally:
        q.quit()
    check_log_and_exit(tap, q, (
        "TDH 0 / TDT 9 beyond the ring",
        "TX descriptor fetch: DMA read",
        "TDLEN 0 (zero-length ring)",
        "RDLEN 100 is not a multiple of 128",
        "zero-length RX ring",
        "unsupported 1-byte register write",
        "TSO with bogus headers",
        "during the NVM auto-read after a reset: lost",
        "while the PHY is in reset",
        "is in flight: ignored",
        "without holding SWSM.SWESMBI",
        "held for 1000 ms"))

    # A fresh instance for a seeded random walk over registers, rings and
    # frames: QEMU must survive whatever the "guest" does.
    tmp3 = tempfile.mkdtemp(prefix="qtest-dbb-igc.")
    q3 = QEMU(qemu_bin, tmp3)
    try:
        tap.check("fuzz: random register writes, descriptors and frames "
                  "(--fuzz-ops, --fuzz-seed): QEMU stays up",
                  lambda: fuzz(q3, Device(q3)),
                  diag="fuzz: %d operations, seed %d"
                  % (FUZZ["ops"], FUZZ["seed"]))
    finally:
        q3.quit()
        shutil.rmtree(tmp3, ignore_errors=True)

    run_trace_flood(tap, qemu_bin)

    # A second instance for an alternative device ID.
    tmp2 = tempfile.mkdtemp(prefix="qtest-dbb-igc.")
    q2 = QEMU(qemu_bin, tmp2,
              extra_dev=",device-id=0x15f3,nvm-flash=on,strict=off")
    try:
        def t_devid():
            expect(q2.cfg_read32(0) == 0x15F38086,
                   "ID %08x" % q2.cfg_read32(0))
        tap.check("device-id property selects another I225/I226 ID",
                  t_devid)

        def t_nvm():
            Device(q2).pci_setup()
            expect(q2.readl(EECD) & (1 << 19), "FLASH_DETECTED not set")
            words = []
            for a in range(64):
                q2.writel(0x12014, (a << 2) | 1)
                v = q2.readl(0x12014)
                expect(v & 2, "EERD not DONE")
                words.append(v >> 16)
            expect(sum(words) & 0xFFFF == 0xBABA, "NVM checksum %04x"
                   % (sum(words) & 0xFFFF))
            expect(struct.pack("<3H", *words[:3]) == MAC, "NVM MAC")
        tap.check("nvm-flash=on: EERD reads an NVM whose words sum to "
                  "0xBABA, MAC in words 0-2", t_nvm)

        def t_lax():
            q2.writel(CTRL, 1 << 26)
            expect(q2.readl(EECD) & (1 << 9), "EECD.AUTO_RD not at once")
            expect(q2.readl(RAH(0)) & (1 << 31), "no MAC at once")
            q2.writel(MDIC, (2 << 16) | (1 << 27))
            expect(q2.readl(MDIC) & (1 << 28), "MDIC not READY at once")
            expect(q2.readl(SWSM) & 1 == 0 and q2.readl(SWSM) & 1 == 0,
                   "SMBI taken with strict=off")
            expect(q2.truth()["guest_errors"][0] == 0, "guest errors")
        tap.check("strict=off: auto-read, MDIC at once; SMBI reads 0",
                  t_lax)
    finally:
        q2.quit()
        shutil.rmtree(tmp2, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)
    tap.plan()
    return tap.failed


FUZZ = {"ops": 3000, "seed": 1}


def fuzz(q, d):
    import random
    rnd = random.Random(FUZZ["seed"])
    d.pci_setup()
    d.msix_setup()
    for qn in range(4):
        d.tx_setup(qn)
        d.rx_setup(qn)
    q.writel(RCTL, (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 15))
    q.writel(MRQC, 2 | (0xFF << 16))
    q.writel(CTRL, 1 << 30)
    q.writel(RXCSUM, 0x300 | (1 << 13))
    queue_regs = [0x0, 0x4, 0x8, 0xC, 0x10, 0x18, 0x28]
    misc_regs = [CTRL, RCTL, TCTL, ICS, IMS, IMC, GPIE, EICS, EIMS, EIMC,
                 EIAC, EIAM, EITR(0), EITR(1), IVAR0, IVAR0 + 4, IVAR_MISC,
                 MRQC, RXCSUM, RLPML, MDIC, 0x12014, 0x12018, 0x5B50,
                 0x5B5C, 0xE14, RAH(0), MTA, RETA(0)]
    ethertypes = [0x0800, 0x86DD, 0x8100, 0x0806, 0x88CC]
    for i in range(FUZZ["ops"]):
        op = rnd.random()
        if op < 0.35:
            qn = rnd.randrange(4)
            base = rnd.choice([0xC000, 0xE000]) + 0x40 * qn
            off = rnd.choice(queue_regs)
            val = rnd.choice([0, 1, 7, 8, 0x7F, 0x80, 0x1000, 0xFFFF,
                              0xFFFFFFFF, rnd.getrandbits(32),
                              ENABLE, 0x100000, 0x200000])
            if off in (0x10, 0x18):
                val = rnd.choice([rnd.randrange(16), val])
            q.writel(base + off, val)
        elif op < 0.45:
            q.writel(rnd.choice(misc_regs) & ~0x3,
                     rnd.choice([rnd.getrandbits(32), 0, 0xFFFFFFFF]))
        elif op < 0.7:
            # random descriptors, often plausible, into a ring
            qn = rnd.randrange(4)
            ring = rnd.choice([d.RAM_TX_RING, d.RAM_RX_RING]) + 0x1000 * qn
            idx = rnd.randrange(8)
            addr = rnd.choice([d.RAM_TX_BUF, 0xFFFFFFFFF000, 0,
                               BAR0, rnd.getrandbits(34)])
            cmd = rnd.choice([TXD_DATA | EOP | RS, TXD_CTXT, TXD_DATA | TSE,
                              TXD_DATA | TSE | EOP | RS | (1 << 30),
                              rnd.getrandbits(32)])
            length = rnd.choice([0, 1, 14, 60, 1514, 0xFFFF,
                                 rnd.randrange(0x10000)])
            olinfo = rnd.getrandbits(32)
            if cmd & (1 << 29) and (cmd >> 20) & 0xF == 2:
                desc = struct.pack("<IIII", rnd.getrandbits(32), 0,
                                   cmd, rnd.getrandbits(32))
            else:
                desc = struct.pack("<QII", addr, (cmd & ~0xFFFF) | length,
                                   olinfo)
            q.mem_write(ring + 16 * idx, desc)
            q.mem_write(d.RAM_TX_BUF, bytes(rnd.getrandbits(8)
                                            for _ in range(128)))
        elif op < 0.85:
            et = rnd.choice(ethertypes)
            body = bytes(rnd.getrandbits(8)
                         for _ in range(rnd.choice([0, 10, 46, 200, 1500])))
            if et == 0x0800 and rnd.random() < 0.5:
                body = ipv4(b"\x0a\0\0\2", b"\x0a\0\0\1",
                            rnd.choice([6, 17, 132]), body)
            dst = rnd.choice([MAC, b"\xff" * 6, b"\x01\0\x5e\0\0\1"])
            q.send_frame(eth(dst, PEER_MAC, et, body))
        elif op < 0.88:
            q.writel(TDT(rnd.randrange(4)), rnd.randrange(9))
        elif op < 0.93:
            # a plausible TSO/checksum packet with random context fields
            qn = rnd.randrange(4)
            d.tx_setup(qn)
            q.writel(TCTL, 2 | 8)
            hdr = ipv4(b"\x0a\0\0\1", b"\x0a\0\0\2",
                       rnd.choice([6, 17]), bytes(rnd.randrange(20, 3000)))
            f = eth(PEER_MAC, MAC, rnd.choice([0x0800, 0x86DD]), hdr)
            q.mem_write(d.RAM_TX_BUF, f)
            ctx = d.ctx_desc(rnd.choice([14, 0, 127, rnd.randrange(128)]),
                             rnd.choice([20, 40, 0, rnd.randrange(512)]),
                             rnd.randrange(4), ipv4=rnd.random() < 0.7,
                             l4len=rnd.choice([20, 8, 0, rnd.randrange(256)]),
                             mss=rnd.choice([0, 1, 15, 16, 536, 1448,
                                             0xFFFF]))
            cut = rnd.randrange(1, len(f))
            cmd = rnd.choice([TSE, 0]) | (rnd.random() < 0.3) << 30
            olinfo = (rnd.randrange(1 << 18) << 14) | \
                rnd.choice([0, TXSM, IXSM, TXSM | IXSM])
            d.tx_put(qn, [ctx, d.data_desc(d.RAM_TX_BUF, cut, cmd=cmd,
                                           olinfo=olinfo),
                          d.data_desc(d.RAM_TX_BUF + cut, len(f) - cut,
                                      cmd=cmd | EOP | RS, olinfo=olinfo)])
            q.writel(TDT(qn), d.tx_tail)
        elif op < 0.96:
            # back to a working RX setup so frames flow again
            qn = rnd.randrange(4)
            q.writel(RCTL, (1 << 1) | (1 << 3) | (1 << 5) | (1 << 15) |
                     rnd.choice([0, 1 << 26]))
            d.rx_setup(qn, bufsize_kb=rnd.choice([1, 2, 16]))
            q.writel(RDT(qn), 7)
        else:
            q.clock_step(rnd.randrange(1, 2000000))
        if i % 500 == 0:
            expect(q.alive(), "QEMU died at op %d" % i)
    time.sleep(0.2)
    expect(q.alive(), "QEMU died")
    q.drain()
    gt = q.truth()
    print("# fuzz: guest_errors %d tx_desc %d rx_frames %d rx_dropped %d "
          "irqs %d" % (gt["guest_errors"][0], sum(gt["tx_desc"]),
                       sum(gt["rx_frames"]), sum(gt["rx_dropped"]),
                       sum(gt["irqs"])))


def run_main(tap, q, d):
    """The checks on one device, in this order: each case starts from the
    state the ones before it left (MSI-X set up after the PHY cases; rings,
    filters and the link carried on from case to case)."""
    case_pci(tap, q, d)
    case_reset(tap, q, d)
    case_phy(tap, q, d)
    d.msix_setup()
    case_tx(tap, q, d)
    case_pcie_model(tap, q, d)
    case_tx_offloads(tap, q, d)
    case_rx(tap, q, d)
    case_rx_queues(tap, q, d)
    case_link(tap, q, d)
    case_eitr(tap, q, d)
    case_vsec(tap, q, d)
    case_wrong(tap, q, d)
    case_dma_pause(tap, q, d)
    case_mmio_trace(tap, q, d)


def mdic(q, op, reg, data=0, phy=0):
    """One MDIC access (op: bit 26 write, bit 27 read): not READY at once,
    READY after MDIC_NS; returns MDIC."""
    q.writel(MDIC, data | (reg << 16) | (phy << 21) | op)
    v = q.readl(MDIC)
    expect(not v & (1 << 28), "MDIC READY at once: %08x" % v)
    q.clock_step(MDIC_NS)
    v = q.readl(MDIC)
    expect(v & (1 << 28), "MDIC not READY: %08x" % v)
    return v


def udp_frame():
    """The UDP frame the TX cases send."""
    return eth(PEER_MAC, MAC, 0x0800,
               ipv4(b"\x0a\0\0\1", b"\x0a\0\0\2", 17,
                    udp(1000, 2000, b"hello, wire" * 2,
                        b"\x0a\0\0\1", b"\x0a\0\0\2")))


def case_pci(tap, q, d):
    """PCI identity and capabilities; maps BAR0 and BAR3."""
    def t_ids():
        expect(q.cfg_read32(0) == 0x125C8086, "vendor/device %08x"
               % q.cfg_read32(0))
        expect((q.cfg_read32(8) >> 8) == 0x020000, "class")
        d.pci_setup()
        expect(q.cfg_read32(0x10) & ~0xF == BAR0, "BAR0")
    tap.check("PCI 8086:125c, Ethernet class, BAR0 mapped", t_ids)

    def t_caps():
        for cap in (0x01, 0x05, 0x10, 0x11, 0x09):
            expect(d.find_cap(cap) is not None, "capability %#x missing" % cap)
        msix = d.find_cap(0x11)
        expect(q.cfg_read16(msix + 2) & 0x7FF == 4, "MSI-X table size")
        expect(q.cfg_read32(msix + 4) == 3, "MSI-X table BIR 3 offset 0")
        expect(q.cfg_read32(msix + 8) == 0x2003, "MSI-X PBA at BAR3+0x2000")
        vsec = d.find_cap(0x09)
        expect(q.cfg_read32(vsec + 4) == 0x54424244, "VSEC magic")
    tap.check("capabilities: PM, MSI, PCIe, MSI-X(5, BAR3, PBA 0x2000), "
              "VSEC", t_caps)


def case_reset(tap, q, d):
    """A device reset: its NVM auto-read, then STATUS."""
    def t_reset():
        q.writel(CTRL, q.readl(CTRL) | (1 << 26))
        expect(not q.readl(CTRL) & (1 << 26), "CTRL.RST did not self-clear")
        # strict: the NVM auto-read takes AUTORD_NS; what is written
        # before it ends is lost, and the MAC address is not there yet
        expect(not q.readl(EECD) & (1 << 9), "EECD.AUTO_RD at once")
        expect(q.readl(RAH(0)) == 0, "RAH0 before the auto-read")
        q.writel(RAL(1), 0x1234)
        q.clock_step(AUTORD_NS - 1000)
        expect(not q.readl(EECD) & (1 << 9), "EECD.AUTO_RD too early")
        q.clock_step(1000)
        expect(q.readl(RAL(1)) == 0, "a write during the auto-read kept")
        expect(q.readl(EECD) & (1 << 9), "EECD.AUTO_RD")
        expect(not q.readl(EECD) & (1 << 19), "EECD.FLASH_DETECTED set")
        ral, rah = q.readl(RAL(0)), q.readl(RAH(0))
        expect(struct.pack("<IH", ral, rah & 0xFFFF) == MAC,
               "RAL0/RAH0 %08x/%08x" % (ral, rah))
        expect(rah & (1 << 31), "RAH0.AV")
    tap.check("CTRL.RST self-clears; 1 ms later EECD.AUTO_RD and the MAC "
              "in RAL0/RAH0 with AV; a write before that is lost", t_reset)

    def t_status():
        st = q.readl(STATUS)
        want = 1 | 2 | (1 << 7) | (1 << 22) | (1 << 19)
        expect(st & want == want, "STATUS %08x" % st)
        q.writel(CTRL, q.readl(CTRL) | 4)
        expect(not q.readl(STATUS) & (1 << 19), "GIO master still enabled")
        q.writel(CTRL, q.readl(CTRL) & ~4)
        expect(q.readl(STATUS) & (1 << 19), "GIO master not re-enabled")
    tap.check("STATUS: link up, full duplex, 2500 Mb/s; GIO master "
              "disable", t_status)


def case_phy(tap, q, d):
    """The PHY through MDIC, the SWSM semaphore, strict timing, power-down."""
    def t_mdic():
        errs = q.truth()["guest_errors"][0]
        v = mdic(q, 1 << 27, 2)
        expect(v & 0xFFFF == 0x67C9 and not v & (1 << 30), "PHY ID1 %08x" % v)
        v = mdic(q, 1 << 27, 1)
        expect(v & 0x24 == 0x24, "BMSR link/AN complete %04x" % (v & 0xFFFF))
        v = mdic(q, 1 << 27, 2, phy=1)
        expect(v & (1 << 30), "PHY address 1 answered")
        mdic(q, 1 << 26, 13, 7)
        mdic(q, 1 << 26, 14, 0x20)
        mdic(q, 1 << 26, 13, 0x4007)
        v = mdic(q, 1 << 27, 14)
        expect(v & 0xFFFF == 0x80, "MMD 7.0x20 %04x" % (v & 0xFFFF))
        expect(q.readl(0xE14) & (1 << 8), "PHPM reset complete")
        # SMBI: the read that sees it clear takes it
        q.writel(SWSM, 0)
        expect(q.readl(SWSM) & 1 == 0, "SWSM.SMBI not granted")
        expect(q.readl(SWSM) & 1, "SWSM.SMBI granted twice")
        q.writel(SWSM, 3)
        expect(q.readl(SWSM) & 2, "SWSM.SWESMBI does not latch")
        q.writel(SW_FW_SYNC, 4)
        q.writel(SWSM, 0)
        expect(q.readl(SWSM) & 1 == 0, "SWSM.SMBI not released")
        q.writel(SWSM, 0)
        expect(q.truth()["guest_errors"][0] == errs, "guest error")
    tap.check("MDIC PHY at address 0 (ID, BMSR, MMD 7.0x20) after 26 us; "
              "SWSM.SMBI taken by a read, released by a write", t_mdic)

    def t_strict():
        errs = q.truth()["guest_errors"][0]
        # a PHY reset ends PHY_RST_NS after CTRL.PHY_RST clears
        ctrl = q.readl(CTRL)
        q.writel(CTRL, ctrl | (1 << 31))
        expect(not q.readl(0xE14) & (1 << 8), "RST_COMPL during PHY reset")
        q.clock_step(PHY_RST_NS * 2)
        expect(not q.readl(0xE14) & (1 << 8), "RST_COMPL with PHY_RST set")
        q.writel(CTRL, ctrl)
        q.writel(0xE14, q.readl(0xE14) | (1 << 8))      # RO bit
        expect(not q.readl(0xE14) & (1 << 8), "RST_COMPL written")
        q.writel(MDIC, (2 << 16) | (1 << 27))
        q.clock_step(MDIC_NS)
        v = q.readl(MDIC)
        expect(v & (1 << 28) and v & (1 << 30), "MDIC during PHY reset "
               "did not fail: %08x" % v)
        q.clock_step(PHY_RST_NS - MDIC_NS)
        expect(q.readl(0xE14) & (1 << 8), "RST_COMPL after 100 us")
        v = mdic(q, 1 << 27, 2)
        expect(v & 0xFFFF == 0x67C9 and not v & (1 << 30), "ID1 %08x" % v)
        # a second MDIC write while one is in flight is ignored
        q.writel(MDIC, (3 << 16) | (1 << 27))
        q.writel(MDIC, (2 << 16) | (1 << 27))
        q.clock_step(MDIC_NS)
        v = q.readl(MDIC)
        expect((v >> 16) & 0x1F == 3 and v & 0xFFFF == 0xDC00,
               "in-flight MDIC replaced: %08x" % v)
        # SW_FW_SYNC without SWESMBI; SMBI taken and forgotten
        q.writel(SW_FW_SYNC, 0)
        q.readl(SWSM)
        q.clock_step(SWSM_HOLD_NS)
        expect(q.readl(SWSM) & 1, "SMBI dropped by itself")
        q.writel(SWSM, 0)
        expect(q.truth()["guest_errors"][0] - errs == 4, "guest errors "
               "%d, want 4 (MDIC in reset, MDIC in flight, SW_FW_SYNC, "
               "SWSM held)" % (q.truth()["guest_errors"][0] - errs))
    tap.check("strict: PHY reset completes 100 us after PHY_RST clears; "
              "MDIC fails before, a second MDIC write is ignored, "
              "SW_FW_SYNC without SWESMBI and an SWSM held 1 s are guest "
              "errors", t_strict)

    def pdown():
        return q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                         property="phy-power-down")

    def t_pdown():
        expect(pdown() is False, "phy-power-down true after reset")
        bmcr = mdic(q, 1 << 27, 0) & 0xFFFF
        mdic(q, 1 << 26, 0, bmcr | (1 << 11))
        expect(pdown() is True, "phy-power-down false with BMCR.PDOWN")
        expect(not q.readl(STATUS) & 2, "STATUS.LU with the PHY down")
        mdic(q, 1 << 26, 0, bmcr)
        expect(pdown() is False, "phy-power-down true after power-up")
        wait_for(lambda: (q.clock_step(100000000), q.readl(STATUS) & 2)[1],
                 "link back after power-up")
    tap.check("BMCR.PDOWN: link down, phy-power-down true; power-up "
              "renegotiates", t_pdown)


def case_tx(tap, q, d):
    """One TX packet: write-back, its interrupt, no-op doorbells, register
    kinds."""
    frame = udp_frame()

    def t_tx():
        d.tx_setup(0)
        q.mem_write(d.RAM_TX_BUF, frame)
        d.tx_put(0, [d.data_desc(d.RAM_TX_BUF, len(frame))])
        q.writel(TDT(0), d.tx_tail)
        got = q.recv_frame()
        expect(got == frame, "frame on the wire: %r" % got)
        wb = q.mem_read(d.tx_base + 12, 4)
        expect(wb[0] & 1, "DD not written back")
        expect(q.readl(TDH(0)) == 1, "TDH")
        gt = q.truth()
        expect(gt["tdt_writes"][0] == 2, "tdt_writes %s (setup wrote 0)"
               % gt["tdt_writes"])
        expect(gt["tdt_noop_writes"][0] == 1, "noop %s (setup's TDT=0 is a "
               "no-op)" % gt["tdt_noop_writes"])
        expect(gt["tx_desc"][0] == 1 and gt["tx_frames"][0] == 1
               and gt["tx_packets"][0] == 1, "tx counters %s" % gt)
        expect(q.readl(GPTC) == 1 and q.readl(GPTC) == 0,
               "GPTC not 1 then 0 (clear on read)")
    tap.check("TX: one packet, DD written back, frame on the netdev, "
              "TDT counted", t_tx)

    def t_tx_irq():
        expect(d.mailbox(1) == 0x101, "no MSI-X message on vector 1: %x"
               % d.mailbox(1))
        gt = q.truth()
        expect(gt["irqs"][1] == 1, "irqs %s" % gt["irqs"])
        expect(gt["irqs_rx"][1] == 0, "a transmit completion counted as a "
               "receive interrupt: irqs_rx %s" % gt["irqs_rx"])
        expect(not q.readl(EIMS) & 2, "EIAM did not auto-mask vector 1")
        q.writel(EIMS, 2)
    tap.check("TX completion raises MSI-X vector 1 (IVAR), auto-masked",
              t_tx_irq)

    def t_noop():
        before = q.truth()
        q.writel(TDT(0), d.tx_tail)
        q.writel(TDT(0), d.tx_tail)
        gt = q.truth()
        expect(gt["tdt_writes"][0] - before["tdt_writes"][0] == 2, "writes")
        expect(gt["tdt_noop_writes"][0] -
               before["tdt_noop_writes"][0] == 2, "no-op writes")
        expect(gt["tx_frames"][0] == before["tx_frames"][0], "frame sent")
        expect(q.recv_frame(0.2) is None, "a no-op doorbell sent a frame")
    tap.check("repeated TDT write of the same value counts as a no-op "
              "write", t_noop)

    def t_mmio_kinds():
        before = q.truth()
        q.readl(STATUS)
        q.readl(EICR)
        q.writel(EIMS, 0)
        q.writel(EIMC, 0)
        q.writel(EITR(4), q.readl(EITR(4)))
        q.writel(TDT(0), d.tx_tail)
        q.writel(IVAR_MISC, q.readl(IVAR_MISC))
        gt = q.truth()
        expect_reg_kinds(before, gt, 4, 3, 1)
        expect(gt["tdt_writes"][0] - before["tdt_writes"][0] == 1, "TDT")
    tap.check("register accesses by kind: reads, interrupt register writes "
              "(EIMS, EIMC, EITR), other writes; doorbells apart",
              t_mmio_kinds)


def case_pcie_model(tap, q, d):
    """The modeled PCIe reads and writes per doorbell, TX and RX."""
    frame = udp_frame()

    def t_pcie_model():
        # dbb_pcie.h: a tail write's descriptors fetched in reads of up to
        # 32 (MRRS 512 B), split at the ring's end; one pass's write-backs
        # in writes of up to 8 (MPS 128 B), split where the run breaks.
        saved = (d.tx_base, d.tx_ndesc, d.tx_tail)
        try:
            d.tx_setup(2, ndesc=64)
            q.mem_write(d.RAM_TX_BUF, frame)
            before = q.truth()
            d.tx_put(2, [d.data_desc(d.RAM_TX_BUF, len(frame))] * 40)
            q.writel(TDT(2), d.tx_tail)             # 0 -> 40
            q.writel(TDT(2), d.tx_tail)             # no-op: nothing fetched
            d.tx_put(2, [d.data_desc(d.RAM_TX_BUF, len(frame))] * 30)
            q.writel(TDT(2), d.tx_tail)             # 40 -> 6 over the end
            d.tx_put(2, [d.data_desc(d.RAM_TX_BUF, len(frame)),
                         d.data_desc(d.RAM_TX_BUF, len(frame), cmd=EOP),
                         d.data_desc(d.RAM_TX_BUF, len(frame))])
            q.writel(TDT(2), d.tx_tail)             # 6 -> 9, no RS on 7
            gt = q.truth()
            n = sum(q.recv_frame() is not None for _ in range(73))
            expect(n == 73, "%d of 73 frames on the wire" % n)
            reads = gt["tx_desc_reads"][2] - before["tx_desc_reads"][2]
            wbs = gt["tx_wb_writes"][2] - before["tx_wb_writes"][2]
            expect(reads == 2 + 2 + 1, "TX descriptor reads %d, not 5" % reads)
            expect(wbs == 5 + 4 + 2, "TX write-back writes %d, not 11" % wbs)
            d.rx_setup(3, ndesc=64)
            before = q.truth()
            q.writel(RDT(3), 40)
            q.writel(RDT(3), 40)
            q.writel(RDT(3), 6)
            gt = q.truth()
            reads = gt["rx_desc_reads"][3] - before["rx_desc_reads"][3]
            expect(reads == 4, "RX descriptor reads %d, not 4" % reads)
            expect(gt["tx_desc_reads"][0] == before["tx_desc_reads"][0],
                   "another queue's reads moved")
        finally:
            q.writel(RXDCTL(3), 0)
            q.writel(TXDCTL(2), 0)
            d.tx_base, d.tx_ndesc, d.tx_tail = saved
            q.drain()
    tap.check("modeled PCIe: descriptor reads per tail write (32 a read, "
              "split at the ring's end) and write-back writes (8 a write)",
              t_pcie_model)


def case_tx_offloads(tap, q, d):
    """TX offloads: UDP checksum, TSO over IPv4 and IPv6, SCTP CRC32c."""
    def t_csum():
        src, dst = b"\x0a\0\0\1", b"\x0a\0\0\2"
        payload = b"checksum me" * 5
        u = bytearray(udp(1234, 5678, payload))
        struct.pack_into("!H", u, 6, pseudo_seed(src, dst, 17, len(u)))
        f = eth(PEER_MAC, MAC, 0x0800, ipv4(src, dst, 17, bytes(u)))
        q.mem_write(d.RAM_TX_BUF, f)
        d.tx_put(0, [d.ctx_desc(14, 20, 0),
                     d.data_desc(d.RAM_TX_BUF, len(f),
                                 olinfo=(len(f) << 14) | TXSM)])
        q.writel(TDT(0), d.tx_tail)
        got = q.recv_frame()
        expect(got is not None and l4_checksum_ok(got, 17),
               "UDP checksum not inserted: %r" % got)
    tap.check("TX checksum offload (context desc, TXSM) inserts the UDP "
              "checksum", t_csum)

    def t_tso():
        src, dst = b"\x0a\0\0\1", b"\x0a\0\0\2"
        payload = (bytes(range(256)) * 12)[:3000]
        mss = 1000
        tcp = bytearray(struct.pack("!HHIIBBHHH", 40000, 80, 1000, 0, 5 << 4,
                                    0x18 | 0x01, 65535, 0, 0))
        # Linux seeds TSO with the pseudo-header sum without the length.
        struct.pack_into("!H", tcp, 16, pseudo_seed(src, dst, 6, 0))
        ip = bytearray(ipv4(src, dst, 6, bytes(tcp) + payload, ident=7))
        struct.pack_into("!HH", ip, 2, 0, 7)
        struct.pack_into("!H", ip, 10, 0)
        f = eth(PEER_MAC, MAC, 0x0800, bytes(ip))
        q.mem_write(d.RAM_TX_BUF, f)
        hdr = 14 + 20 + 20
        before = q.truth()
        d.tx_put(0, [d.ctx_desc(14, 20, 1, l4len=20, mss=mss),
                     d.data_desc(d.RAM_TX_BUF, hdr, cmd=TSE,
                                 olinfo=(len(payload) << 14) | TXSM | IXSM),
                     d.data_desc(d.RAM_TX_BUF + hdr, len(f) - hdr,
                                 cmd=TSE | EOP | RS, olinfo=0)])
        q.writel(TDT(0), d.tx_tail)
        segs = [q.recv_frame() for _ in range(4)]
        expect(segs[3] is None, "more than 4 segments")
        segs = segs[:3]
        expect(all(s is not None for s in segs), "missing segments")
        data = b""
        for i, s in enumerate(segs):
            ipb = s[14:34]
            expect(ip_checksum_ok(ipb), "seg %d IP checksum" % i)
            expect(l4_checksum_ok(s, 6), "seg %d TCP checksum" % i)
            tot, ident = struct.unpack("!HH", ipb[2:6])
            expect(tot == len(s) - 14, "seg %d IP total length" % i)
            expect(ident == 7 + i, "seg %d IP id" % i)
            seq = struct.unpack("!I", s[38:42])[0]
            expect(seq == 1000 + i * mss, "seg %d seq %d" % (i, seq))
            flags = s[47]
            expect(bool(flags & 1) == (i == 2), "FIN only on the last")
            data += s[54:]
        expect(data == payload, "payload reassembles")
        gt = q.truth()
        expect(gt["tx_frames"][0] - before["tx_frames"][0] == 3, "tx_frames")
        expect(gt["tx_packets"][0] - before["tx_packets"][0] == 1,
               "tx_packets")
        expect(gt["tx_desc"][0] - before["tx_desc"][0] == 3, "tx_desc")
    tap.check("TSO: 3000 bytes at MSS 1000 -> 3 TCP segments with valid "
              "checksums, seq, ids", t_tso)

    def t_tso6():
        src = bytes.fromhex("fd000000000000000000000000000001")
        dst = bytes.fromhex("fd000000000000000000000000000002")
        payload = bytes((i * 7) & 0xFF for i in range(2500))
        mss = 1200
        tcp = bytearray(struct.pack("!HHIIBBHHH", 40001, 443, 5000, 1, 5 << 4,
                                    0x10, 65535, 0, 0))
        seed = csum16(src + dst + struct.pack("!IxxxB", 0, 6))
        struct.pack_into("!H", tcp, 16, seed)
        ip6 = struct.pack("!IHBB16s16s", 6 << 28, 0, 6, 64, src, dst)
        f = eth(PEER_MAC, MAC, 0x86DD, ip6 + bytes(tcp) + payload)
        q.mem_write(d.RAM_TX_BUF, f)
        d.tx_put(0, [d.ctx_desc(14, 40, 1, ipv4=False, l4len=20, mss=mss,
                                vlan=0x123),
                     d.data_desc(d.RAM_TX_BUF, len(f),
                                 cmd=TSE | EOP | RS | (1 << 30),
                                 olinfo=(len(payload) << 14) | TXSM)])
        q.writel(TDT(0), d.tx_tail)
        segs = [q.recv_frame() for _ in range(3)]
        expect(all(x is not None for x in segs), "missing segments")
        expect(q.recv_frame(0.2) is None, "extra segment")
        data = b""
        for i, x in enumerate(segs):
            expect(x[12:16] == b"\x81\x00\x01\x23", "VLAN tag %r" % x[12:16])
            x = x[:12] + x[16:]
            plen = struct.unpack("!H", x[18:20])[0]
            expect(plen == len(x) - 54, "seg %d payload length %d" % (i, plen))
            expect(l4_checksum6_ok(x, 6), "seg %d TCP/IPv6 checksum" % i)
            expect(struct.unpack("!I", x[58:62])[0] == 5000 + i * mss, "seq")
            data += x[74:]
        expect(data == payload, "payload")
    tap.check("TSO over IPv6 with VLAN insertion (VLE): segments tagged, "
              "lengths and checksums right", t_tso6)

    def t_sctp():
        src, dst = b"\x0a\0\0\1", b"\x0a\0\0\2"
        sctp = bytearray(struct.pack("!HHII", 5000, 5001, 0xDEADBEEF, 0) +
                         b"\x00\x03\x00\x10" + b"sctp-data!!!")
        f = eth(PEER_MAC, MAC, 0x0800, ipv4(src, dst, 132, bytes(sctp)))
        q.mem_write(d.RAM_TX_BUF, f)
        d.tx_put(0, [d.ctx_desc(14, 20, 2),
                     d.data_desc(d.RAM_TX_BUF, len(f),
                                 olinfo=(len(f) << 14) | TXSM)])
        q.writel(TDT(0), d.tx_tail)
        got = q.recv_frame()
        expect(got is not None, "no frame")
        body = bytearray(got[34:])
        crc = struct.unpack("<I", body[8:12])[0]
        body[8:12] = bytes(4)
        expect(crc == crc32c(bytes(body)), "SCTP CRC32c %08x want %08x"
               % (crc, crc32c(bytes(body))))
    tap.check("SCTP CRC32c offload (L4T=SCTP, TXSM)", t_sctp)


def case_rx(tap, q, d):
    """RX on queue 0: a frame, a drop, VLAN stripping, the address filters."""
    def t_rx():
        q.writel(RCTL, (1 << 1) | (1 << 15) | (1 << 26))
        d.rx_setup(0)
        q.writel(RDT(0), 7)
        q.writel(RDT(0), 7)
        d.clear_mailbox()
        q.writel(EICR, 0x1F)        # no cause left over from earlier cases
        q.writel(EIMS, 0x1F)
        before = q.truth()
        f = eth(b"\xff" * 6, PEER_MAC, 0x0800,
                ipv4(b"\x0a\0\0\2", b"\x0a\0\0\1", 17,
                     udp(7, 9, b"x" * 100, b"\x0a\0\0\2", b"\x0a\0\0\1")))
        q.send_frame(f)
        wait_for(lambda: q.readl(RDH(0)) == 1, "RDH to advance")
        desc = d.rx_desc(0, 0)
        expect(desc["status"] & 3 == 3, "DD|EOP %x" % desc["status"])
        expect(desc["len"] == len(f), "length %d" % desc["len"])
        expect(desc["status"] & (1 << 6) and desc["status"] & (1 << 4),
               "IPCS/UDPCS %x" % desc["status"])
        expect(not desc["status"] & (3 << 29), "checksum error bits")
        expect(q.mem_read(d.rx_buf(0, 0), len(f)) == f, "data")
        gt = q.truth()
        expect(gt["rdt_writes"][0] == 3 and gt["rdt_noop_writes"][0] == 2,
               "rdt counters %s %s (setup wrote RDT=0)"
               % (gt["rdt_writes"], gt["rdt_noop_writes"]))
        expect(gt["rx_frames"][0] == 1 and gt["rx_desc"][0] == 1,
               "rx counters")
        expect(d.mailbox(1) == 0x101, "no RX interrupt on vector 1")
        expect(gt["irqs_rx"][1] - before["irqs_rx"][1] == 1 and
               gt["irqs"][1] - before["irqs"][1] == 1,
               "the RX interrupt not counted as one: irqs %s irqs_rx %s"
               % (gt["irqs"], gt["irqs_rx"]))
        expect(q.readl(GPRC) == 1, "GPRC")
    tap.check("RX: frame lands in a descriptor (DD, EOP, length, IPCS, "
              "UDPCS), RDT counted", t_rx)

    def t_rx_drop():
        f = eth(b"\xff" * 6, PEER_MAC, 0x0806, b"\0" * 46)
        for i in range(7):
            q.send_frame(f)
        wait_for(lambda: q.truth()["rx_dropped"][0] == 1 or
                 q.truth()["rx_frames"][0] == 7, "ring to fill")
        wait_for(lambda: q.truth()["rx_dropped"][0] == 1, "a drop")
        expect(q.readl(RDH(0)) == 7, "RDH %d" % q.readl(RDH(0)))
        expect(q.readl(MPC) == 1, "MPC")
        expect(q.readl(RQDPC(0)) == 1, "RQDPC")
        expect(q.readl(RQDPC(0)) == 0, "RQDPC clear on read")
        # Refill: the next frame is received again.
        d.rx_refill(0, range(8))
        q.writel(RDT(0), 6)
        q.send_frame(f)
        wait_for(lambda: q.readl(RDH(0)) == 0, "RDH to wrap")
        expect(q.truth()["rx_dropped"][0] == 1, "dropped again")
    tap.check("RX with no descriptors: frame dropped, MPC/RQDPC/ground "
              "truth count it", t_rx_drop)

    def t_vlan_rx():
        q.writel(CTRL, q.readl(CTRL) | (1 << 30))           # VME
        rdh = q.readl(RDH(0))
        inner = ipv4(b"\x0a\0\0\2", b"\x0a\0\0\1", 17,
                     udp(7, 9, b"v" * 50, b"\x0a\0\0\2", b"\x0a\0\0\1"))
        f = MAC + PEER_MAC + b"\x81\x00\x20\x07" + b"\x08\x00" + inner
        q.send_frame(f)
        wait_for(lambda: q.readl(RDH(0)) == (rdh + 1) % 8, "frame")
        desc = d.rx_desc(0, rdh)
        expect(desc["status"] & (1 << 3), "VP not set")
        expect(desc["vlan"] == 0x2007, "VLAN %x" % desc["vlan"])
        expect(desc["len"] == len(f) - 4, "length %d" % desc["len"])
        got = q.mem_read(d.rx_buf(0, rdh), desc["len"])
        expect(got == MAC + PEER_MAC + b"\x08\x00" + inner, "tag not stripped")
        q.writel(CTRL, q.readl(CTRL) & ~(1 << 30))
    tap.check("RX VLAN stripping (CTRL.VME): VP and tag in the descriptor",
              t_vlan_rx)

    def t_filter():
        before = q.truth()["rx_filtered"][0]
        q.send_frame(eth(b"\x02\0\0\0\0\x99", PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["rx_filtered"][0] == before + 1,
                 "unicast to another MAC filtered")
        mc = b"\x01\x00\x5e\x00\x00\x42"
        q.send_frame(eth(mc, PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["rx_filtered"][0] == before + 2,
                 "multicast not in MTA filtered")
        h = ((mc[4] >> 4) | (mc[5] << 4)) & 0xFFF
        q.writel(MTA + 4 * (h >> 5), 1 << (h & 31))
        frames = q.truth()["rx_frames"][0]
        q.send_frame(eth(mc, PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["rx_frames"][0] == frames + 1,
                 "multicast in MTA received")
        q.send_frame(eth(MAC, PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["rx_frames"][0] == frames + 2,
                 "unicast to our MAC received")
        q.writel(RCTL, q.readl(RCTL) | (1 << 3))
        q.send_frame(eth(b"\x02\0\0\0\0\x99", PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["rx_frames"][0] == frames + 3,
                 "promiscuous (UPE) received")
        q.writel(RCTL, q.readl(RCTL) & ~(1 << 3))
    tap.check("RX filters: RAL/RAH, MTA hash, broadcast, UPE", t_filter)


def case_rx_queues(tap, q, d):
    """RX on the other queues: a jumbo frame on 1 (RAH queue select), RSS
    onto 2 and 3."""
    def t_jumbo():
        q.writel(RCTL, q.readl(RCTL) | (1 << 5))
        q.writel(RLPML, 9018)
        d.rx_setup(1, bufsize_kb=1)
        q.writel(RDT(1), 7)
        # steer to queue 1 through RAH0's queue select
        q.writel(RAH(0), q.readl(RAH(0)) | (1 << 28) | (1 << 18))
        f = eth(MAC, PEER_MAC, 0x0800,
                ipv4(b"\x0a\0\0\2", b"\x0a\0\0\1", 17,
                     udp(7, 9, bytes(range(256)) * 11,
                         b"\x0a\0\0\2", b"\x0a\0\0\1")))
        q.readl(PRC1522)
        q.send_frame(f)
        wait_for(lambda: q.readl(RDH(1)) == 3, "3 descriptors used")
        # the last size bin is 1024 bytes to the largest frame accepted
        expect(q.readl(PRC1522) == 1, "PRC1522 did not count a %d-byte "
               "frame" % (len(f) + 4))
        descs = [d.rx_desc(1, i) for i in range(3)]
        expect([x["len"] for x in descs] == [1024, 1024, len(f) - 2048],
               "lengths %s" % [x["len"] for x in descs])
        expect([x["status"] & 2 for x in descs] == [0, 0, 2], "EOP only last")
        data = b"".join(q.mem_read(d.rx_buf(1, i), x["len"])
                        for i, x in enumerate(descs))
        expect(data == f, "jumbo data")
        q.writel(RAH(0), q.readl(RAH(0)) & ~((1 << 28) | (3 << 18)))
        big = eth(MAC, PEER_MAC, 0x0800, b"\0" * 9100)
        before = q.truth()["rx_frames"][1]
        q.send_frame(big)
        time.sleep(0.2)
        q.readl(STATUS)
        expect(q.truth()["rx_frames"][1] == before, "oversize accepted")
        expect(q.readl(0x40AC) == 1, "ROC")
        q.readl(PTC1522)
        out = eth(PEER_MAC, MAC, 0x0800, b"\1" * 2000)
        q.mem_write(d.RAM_TX_BUF, out)
        d.tx_put(0, [d.data_desc(d.RAM_TX_BUF, len(out))])
        q.writel(TDT(0), d.tx_tail)
        expect(q.recv_frame() == out, "2014-byte frame not sent")
        expect(q.readl(PTC1522) == 1, "PTC1522 did not count a 2018-byte "
               "frame")
    tap.check("jumbo: RCTL.LPE + 1 KiB SRRCTL buffers -> multi-descriptor "
              "frame, counted in PRC1522 (1024 to max), and sent in "
              "PTC1522; oversize dropped", t_jumbo)

    def t_rss():
        key = bytes((i * 37 + 11) & 0xFF for i in range(40))
        for i in range(10):
            q.writel(RSSRK(i), struct.unpack("<I", key[4 * i:4 * i + 4])[0])
        # entry i -> queue (i & 1) + 2
        for i in range(32):
            q.writel(RETA(i), 0x03020302)
        q.writel(MRQC, 2 | (1 << 16) | (1 << 17) | (1 << 22))
        q.writel(RXCSUM, q.readl(RXCSUM) | (1 << 13))
        d.rx_setup(2)
        d.rx_setup(3)
        q.writel(RDT(2), 7)
        q.writel(RDT(3), 7)
        src, dst = b"\xc0\xa8\x01\x02", b"\xc0\xa8\x01\x01"
        f = eth(MAC, PEER_MAC, 0x0800,
                ipv4(src, dst, 17, udp(5555, 6666, b"rss" * 20, src, dst)))
        want = toeplitz(key, src + dst + struct.pack("!HH", 5555, 6666))
        wq = 2 + (want % 128 & 1)
        q.send_frame(f)
        wait_for(lambda: q.readl(RDH(wq)) == 1, "frame on queue %d" % wq)
        desc = d.rx_desc(wq, 0)
        expect(desc["rss_type"] == 7, "RSS type %d" % desc["rss_type"])
        expect(desc["hash"] == want, "hash %08x want %08x"
               % (desc["hash"], want))
    tap.check("RSS: Toeplitz hash, UDP/IPv4 type and RETA queue in the "
              "descriptor", t_rss)


def case_link(tap, q, d):
    """Link changes: set_link off/on, then a 1000 Mb/s link (strict)."""
    frame = udp_frame()

    def t_link():
        d.clear_mailbox()
        q.readl(ICR)
        q.writel(EIMS, 1)
        q.qmp_cmd("set_link", name="n0", up=False)
        expect(not q.readl(STATUS) & 2, "STATUS.LU still set")
        expect(d.mailbox(0) == 0x100, "no LSC interrupt on vector 0")
        expect(q.readl(ICR) & 4, "ICR.LSC")
        expect(q.readl(ICR) == 0, "ICR not clear-on-read")
        q.writel(EIMS, 1)
        q.qmp_cmd("set_link", name="n0", up=True)
        expect(q.readl(STATUS) & 2, "STATUS.LU not back")
        expect(q.readl(ICR) & 4, "ICR.LSC on link up")
    tap.check("set_link off/on: STATUS.LU, ICR.LSC, interrupt on the "
              "other-cause vector", t_link)

    def advertise_2500(on):
        for reg, val in ((13, 7), (14, 0x20), (13, 0x4007),
                         (14, 0x80 if on else 0)):
            mdic(q, 1 << 26, reg, val)
        bmcr = mdic(q, 1 << 27, 0) & 0xFFFF
        mdic(q, 1 << 26, 0, bmcr | (1 << 9))        # restart AN
        q.clock_step(AN_NS + 1000)

    def send_one():
        q.mem_write(d.RAM_TX_BUF, frame)
        d.tx_put(0, [d.data_desc(d.RAM_TX_BUF, len(frame))])
        q.writel(TDT(0), d.tx_tail)

    def t_1000t():
        advertise_2500(False)
        st = q.readl(STATUS)
        expect(st & 2 and st & (1 << 7) and not st & (1 << 22),
               "STATUS not link up at 1000: %08x" % st)
        s10 = mdic(q, 1 << 27, 10) & 0xFFFF
        expect(not s10 & 0x3000, "1000T status: receivers ok at once: "
               "%04x" % s10)
        before = q.truth()["tx_link_drops"][0]
        send_one()
        expect(q.recv_frame(0.3) is None, "a frame reached the partner "
               "before its receiver was ready")
        expect(q.truth()["tx_link_drops"][0] == before + 1, "tx_link_drops")
        q.clock_step(T1000_RX_NS)
        s10 = mdic(q, 1 << 27, 10) & 0xFFFF
        expect(s10 & 0x3000 == 0x3000, "1000T status after 300 ms: %04x"
               % s10)
        send_one()
        expect(q.recv_frame() == frame, "no frame once the receiver is ok")
        advertise_2500(True)
        expect(q.readl(STATUS) & (1 << 22), "not back at 2500")
        send_one()
        expect(q.recv_frame() == frame, "2.5G: a frame right after link up")
    tap.check("strict: link up at 1000 Mb/s, the partner's receiver ready "
              "300 ms later (1000T status bits 12-13); a frame before is "
              "lost (tx_link_drops); none at 2.5G", t_1000t)


def case_eitr(tap, q, d):
    """Interrupt moderation by EITR."""
    def t_eitr():
        d.clear_mailbox()
        q.writel(EIMS, 0x1F)
        q.writel(EITR(4), 1000 << 2)        # 1 ms
        before = q.truth()
        q.writel(EICS, 1 << 4)
        expect(d.mailbox(4) == 0x104, "first EICS did not fire")
        d.clear_mailbox()
        q.writel(EIMS, 1 << 4)
        q.writel(EICS, 1 << 4)
        expect(d.mailbox(4) == 0, "second interrupt not held back by EITR")
        q.clock_step(2000000)
        expect(d.mailbox(4) == 0x104, "held-back interrupt not sent")
        gt = q.truth()
        expect(gt["irqs"][4] - before["irqs"][4] == 2, "irqs")
        expect(gt["irq_deferred"][4] - before["irq_deferred"][4] == 1,
               "irq_deferred")
        q.writel(EITR(4), 0)
    tap.check("EITR moderation holds a second interrupt until the "
              "interval ends", t_eitr)


def case_vsec(tap, q, d):
    """The ground-truth counters through the config-space VSEC."""
    def vsec_read(sel):
        cap = d.find_cap(0x09)
        q.cfg_write32(cap + 8, sel)
        return q.cfg_read32(cap + 12) | q.cfg_read32(cap + 16) << 32

    def t_vsec():
        cap = d.find_cap(0x09)
        info = q.cfg_read32(cap + 20)
        expect(info & 0xFF == len(GT), "counter count %d" % (info & 0xFF))
        vsec_read(1 << 30)                       # snapshot
        gt = q.truth()
        for cid, name in enumerate(GT):
            for idx, val in enumerate(gt[name]):
                if name in ("irqs", "irq_deferred", "irqs_rx"):
                    continue    # interrupts can move between the two reads
                got = vsec_read(cid | idx << 8 | 1 << 29)
                expect(got == val, "%s[%d]: VSEC %d QMP %d"
                       % (name, idx, got, val))
        expect(vsec_read(0xFE) == 2 ** 64 - 1, "bad id reads all ones")
    tap.check("VSEC in config space returns the same counters as QMP",
              t_vsec)

    def t_vsec_reset():
        vsec_read(1 << 31)
        gt = q.truth()
        expect(all(v == 0 for name in GT for v in gt[name]
                   if name not in ("irqs", "irq_deferred", "irqs_rx")),
               "not reset: %s" % gt)
        q.qmp_cmd("qom-set", path="/machine/peripheral/nic0",
                  property="ground-truth-reset", value=True)
    tap.check("VSEC reset command zeroes the counters", t_vsec_reset)


def case_wrong(tap, q, d):
    """Wrong programming the model must survive."""
    def t_wrong():
        base = q.truth()["guest_errors"][0]
        # TDT beyond an 8-descriptor ring
        d.tx_setup(1)
        q.writel(TDT(1), 9)
        expect(q.alive(), "QEMU died")
        # ring base outside RAM
        d.tx_setup(2, base=0xFFFFFFFFF000)
        q.writel(TDT(2), 1)
        expect(q.alive(), "QEMU died")
        # zero-length ring
        d.tx_setup(3)
        q.writel(TDLEN(3), 0)
        q.writel(TDT(3), 1)
        expect(q.alive(), "QEMU died")
        # RDLEN not a multiple of 128
        d.rx_setup(0)
        q.writel(RDLEN(0), 100)
        q.writel(RDT(0), 3)
        q.send_frame(eth(b"\xff" * 6, PEER_MAC, 0x0806, b"\0" * 46))
        wait_for(lambda: q.truth()["guest_errors"][0] >= base + 4,
                 "RDLEN error")
        # odd register access
        q.writeb(CTRL + 1, 0xFF)
        q.cmd("readw 0x%x" % (BAR0 + STATUS + 2))
        # TSO with bogus headers
        d.tx_setup(0)
        q.mem_write(d.RAM_TX_BUF, bytes(64))
        d.tx_put(0, [d.ctx_desc(200 & 0x7F, 3, 1, l4len=2, mss=0),
                     d.data_desc(d.RAM_TX_BUF, 64, cmd=TSE | EOP | RS,
                                 olinfo=(10 << 14) | TXSM)])
        q.writel(TDT(0), d.tx_tail)
        # a descriptor loop: tail = head + ring - 1, all context descs
        for i in range(8):
            q.mem_write(d.tx_base + 16 * i, d.ctx_desc(14, 20, 1))
        q.writel(TDT(0), (q.readl(TDH(0)) + 7) % 8)
        expect(q.alive(), "QEMU died")
        expect(q.readl(TDH(0)) == q.readl(TDT(0)), "queue 0 did not drain")
        gt = q.truth()
        expect(gt["guest_errors"][0] >= base + 7, "guest_errors %d -> %d"
               % (base, gt["guest_errors"][0]))
        expect(q.recv_frame(0.2) is None, "bogus TSO sent something")
    tap.check("wrong programming (TDT beyond ring, ring outside RAM, "
              "zero-length ring, bad RDLEN, odd access, bogus TSO): QEMU "
              "carries on", t_wrong)


def case_dma_pause(tap, q, d):
    """The dma-pause property, TX and RX."""
    def t_dma_pause():
        def pause(on):
            q.qmp_cmd("qom-set", path="/machine/peripheral/nic0",
                      property="dma-pause", value=on)
        q.writel(RCTL, (1 << 1) | (1 << 15) | (1 << 26))
        d.rx_setup(0)
        q.writel(RDT(0), 7)
        frame = eth(PEER_MAC, MAC, 0x88B5, b"p" * 60)
        d.tx_setup(0)
        q.mem_write(d.RAM_TX_BUF, frame)
        g0 = q.truth()
        pause(True)
        d.tx_put(0, [d.data_desc(d.RAM_TX_BUF, len(frame))])
        q.writel(TDT(0), d.tx_tail)
        expect(q.recv_frame(0.3) is None, "sent while DMA was paused")
        expect(q.readl(TDH(0)) == 0, "TDH moved while paused")
        q.send_frame(eth(b"\xff" * 6, PEER_MAC, 0x88B5, b"r" * 60))
        wait_for(lambda: q.truth()["rx_paused_drops"][0] ==
                 g0["rx_paused_drops"][0] + 1, "rx_paused_drops")
        expect(q.readl(RDH(0)) == 0, "RDH moved while paused")
        pause(False)
        expect(q.recv_frame() == frame, "the announced frame after unpause")
        expect(q.readl(TDH(0)) == 1, "TDH after unpause")
        q.send_frame(eth(b"\xff" * 6, PEER_MAC, 0x88B5, b"s" * 60))
        wait_for(lambda: q.readl(RDH(0)) == 1, "RX after unpause")
        g1 = q.truth()
        expect(g1["rx_frames"][0] - g0["rx_frames"][0] == 1 and
               g1["guest_errors"][0] == g0["guest_errors"][0],
               "rx_frames %d -> %d" % (g0["rx_frames"][0],
                                       g1["rx_frames"][0]))
    tap.check("dma-pause: no fetch and no write-back while on (arriving "
              "frames counted in rx_paused_drops and MPC); the announced "
              "TX goes out when it is off", t_dma_pause)


def case_mmio_trace(tap, q, d):
    """The mmio-trace recording."""
    def trace(on):
        q.qmp_cmd("qom-set", path="/machine/peripheral/nic0",
                  property="mmio-trace", value=on)

    def t_trace():
        q.writel(RAL(1), 0xAAAA)                 # before the start: not kept
        trace(True)
        q.writel(RAL(1), 0x11223344)
        q.clock_step(5000)
        got = q.readl(RAL(1))
        q.cmd("writeq 0x%x 0x%x" % (BAR0 + RAL(2), 0x80005566778899AA))
        q.writel(ICS, 1 << 2)                    # LSC pending in ICR
        icr = q.readl(ICR)                       # read-to-clear
        trace(False)
        q.writel(RAL(1), 0xBBBB)                 # after the stop: not kept
        dump = q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                         property="mmio-trace-dump")
        acc = dump["accesses"]
        expect(not dump["recording"] and not dump["truncated"] and
               dump["dropped"] == 0 and dump["max"] == 65536,
               "header %s" % {k: v for k, v in dump.items()
                              if k != "accesses"})
        want = [(True, RAL(1), 4, 0x11223344), (False, RAL(1), 4, got),
                (True, RAL(2), 8, 0x80005566778899AA),
                (True, ICS, 4, 1 << 2), (False, ICR, 4, icr)]
        expect([tuple(a[1:]) for a in acc] == want,
               "accesses %s, want (time left out) %s" % (acc, want))
        expect(got == 0x11223344 and icr & (1 << 2), "RAL1 %#x ICR %#x"
               % (got, icr))
        expect(acc[0][0] < 5000 <= acc[1][0] and
               all(acc[i][0] <= acc[i + 1][0] for i in range(len(acc) - 1)),
               "guest times %s" % [a[0] for a in acc])
        trace(True)                              # a start empties it
        dump = q.qmp_cmd("qom-get", path="/machine/peripheral/nic0",
                         property="mmio-trace-dump")
        trace(False)
        expect(dump["recording"] and dump["accesses"] == [],
               "restart kept %s" % dump)
    tap.check("mmio-trace: every BAR0 access in order (write/read, offset, "
              "size, value read or written, guest time), only between "
              "start and stop; a start empties it", t_trace)


def run_trace_flood(tap, qemu_bin):
    """A guest that floods a small trace: truncated, logged once, the
    device and QEMU carry on."""
    tmp = tempfile.mkdtemp(prefix="qtest-dbb-igc.")
    q = QEMU(qemu_bin, tmp, extra_dev=",mmio-trace-max=4")
    path = "/machine/peripheral/nic0"
    try:
        def t_flood():
            Device(q).pci_setup()
            q.qmp_cmd("qom-set", path=path, property="mmio-trace",
                      value=True)
            for i in range(1000):
                q.writel(RAL(1), i)
            expect(q.readl(RAL(1)) == 999, "RAL1 after the flood")
            d = q.qmp_cmd("qom-get", path=path, property="mmio-trace-dump")
            expect(d["recording"] and d["truncated"] and
                   d["dropped"] == 997 and d["max"] == 4 and
                   [a[4] for a in d["accesses"]] == [0, 1, 2, 3],
                   "dump %s" % d)
            expect(q.log_text().count("MMIO trace full") == 1,
                   "log: %s" % q.log_text()[-2000:])
            expect(q.truth()["guest_errors"][0] == 0, "counted as a "
                   "guest error")
            q.qmp_cmd("qom-set", path=path, property="mmio-trace",
                      value=True)
            q.writel(RAL(1), 7)
            d = q.qmp_cmd("qom-get", path=path, property="mmio-trace-dump")
            expect(not d["truncated"] and d["dropped"] == 0 and
                   len(d["accesses"]) == 1, "after restart %s" % d)
            expect(q.alive(), "QEMU died")
        tap.check("mmio-trace-max=4 flooded with 1,001 accesses: 4 kept, "
                  "truncated, 997 dropped counted, logged once, not a "
                  "guest error; a restart clears it", t_flood)
    finally:
        q.quit()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(qtest_main(__doc__, "dbb-igc", run_tests, FUZZ))
