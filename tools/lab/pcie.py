"""pcie.py: the PCIe traffic an Intel I226 on a PCIe 2.0 x1 link would
make per forwarded packet, MODELED from what the dbb-igc model counted in
a run.  Pure arithmetic, no lab dependency (tests/test_pcie.py).

The counts come from the model (tools/lab/qemu/README.md): register
reads and writes by kind, MSI-X messages, frames, bytes and descriptors,
and the reads and write-backs silicon would need for the descriptors
(dbb_pcie.h: a tail write's descriptors fetched at once in reads of at
most MRRS, one pass's write-backs in writes of at most MPS).  Each is
priced as transaction-layer packets (TLPs) on the link, per port and per
direction: "up" is device to host, "down" host to device.

ASSUMPTIONS lists every assumption; the report prints it.
"""

import math

LINK_MBPS = 500.0   # PCIe 2.0 x1: 5 GT/s, 8b/10b: 500 MB/s per direction
MRRS = 512          # max read request (dbb_pcie.h)
MPS = 128           # max payload (dbb_pcie.h)
RCB = 64            # read completion boundary: completions of 64 bytes
FRAMING = 8         # STP 1 + sequence 2 + LCRC 4 + END 1 bytes per TLP
HDR_REQ = 16        # DMA requests to host memory: 64-bit addresses, 4 DW
HDR_MMIO = 12       # the CPU's register accesses: 32-bit BAR, 3 DW
HDR_CPL = 12        # completions: 3 DW
HDR_MSI = 12        # MSI-X message write to 0xFEExxxxx: 3 DW
DESC = 16           # an igc descriptor

ASSUMPTIONS = (
    "PCIe 2.0 x1 (the I226's link): 5 GT/s with 8b/10b coding, 500 MB/s "
    "in each direction; the ceiling is the busiest direction of either "
    "port's link.",
    "Each TLP costs %d bytes of framing (STP, sequence number, LCRC, END) "
    "plus its header: %d for the device's DMA requests (64-bit "
    "addresses), %d for the CPU's register accesses, completions and "
    "MSI-X writes.  No ECRC.  Link-layer packets (ACKs, flow-control "
    "updates) are not counted: they add a few per cent." % (
        FRAMING, HDR_REQ, HDR_MMIO),
    "Register writes (doorbells, interrupt registers, others) are one "
    "4-byte posted write each; a register read is a request down and a "
    "4-byte completion up.",
    "Descriptors: a tail write lets the device fetch every descriptor it "
    "exposed at once, in reads of at most %d bytes (MRRS) split at the "
    "ring's end (counted by the model); each read's completions come back "
    "in %d-byte pieces (the read completion boundary), for a read of the "
    "run's mean size.  Silicon prefetches by "
    "thresholds and may merge the fetches of tail writes close in time: "
    "fewer reads than modeled, never more." % (MRRS, RCB),
    "Write-backs: TX descriptors completed in one pass written back in "
    "writes of at most %d bytes (MPS; counted by the model), one "
    "descriptor a packet (both drivers ask for a write-back on each "
    "packet's last descriptor); RX "
    "descriptors one write each (the model receives frame by frame; the "
    "I226 may merge up to RXDCTL.WTHRESH)." % MPS,
    "Packet data: a received frame is written in writes of at most %d "
    "bytes; a transmitted frame (in one buffer, at most 512 bytes: the "
    "64-byte frames of these runs) is one read request, completed in "
    "%d-byte pieces.  Frames are the run's mean size without FCS." % (MPS, RCB),
    "One MSI-X message (a 4-byte write) per interrupt the model raised.",
)

# The model's counters this needs, per port, as router.py names its
# deltas ("A_" + name): the first group is summed over queues.
NEEDED = ("tdt_writes", "rdt_writes", "tx_frames", "rx_frames", "tx_bytes",
          "rx_bytes", "tx_packets", "rx_desc", "tx_desc", "irqs",
          "reg_reads", "irq_reg_writes", "other_reg_writes",
          "tx_desc_reads", "rx_desc_reads", "tx_wb_writes")


def counts(d, fwd):
    """Per forwarded packet, per port: {"A": {name: value}, "B": ...}
    from a run's model deltas D (router.py: "A_tdt_writes"...), or None
    when the model does not count everything needed (dbb-octep) or
    nothing was forwarded."""
    if not fwd:
        return None
    out = {}
    for p in ("A", "B"):
        vals = [d.get(p + "_" + n) for n in NEEDED]
        if None in vals:
            return None
        out[p] = {n: v / fwd for n, v in zip(NEEDED, vals)}
        # sizes, not rates: the mean frame of each direction
        out[p]["tx_frame"] = (d[p + "_tx_bytes"] / d[p + "_tx_frames"]
                              if d[p + "_tx_frames"] else 0.0)
        out[p]["rx_frame"] = (d[p + "_rx_bytes"] / d[p + "_rx_frames"]
                              if d[p + "_rx_frames"] else 0.0)
    return out


def _tlp(hdr, payload=0.0):
    return FRAMING + hdr + payload


def port_load(c):
    """One port's counts per packet C -> {"up": [tlps, bytes], "down":
    [tlps, bytes]} per forwarded packet."""
    up, down = [0.0, 0.0], [0.0, 0.0]

    def add(side, n, size):
        side[0] += n
        side[1] += n * size

    mmio_w = (c["tdt_writes"] + c["rdt_writes"] + c["irq_reg_writes"] +
              c["other_reg_writes"])
    add(down, mmio_w, _tlp(HDR_MMIO, 4))
    add(down, c["reg_reads"], _tlp(HDR_MMIO))
    add(up, c["reg_reads"], _tlp(HDR_CPL, 4))
    add(up, c["irqs"], _tlp(HDR_MSI, 4))
    # descriptor fetches: requests up, completions down
    for reads, descs in ((c["tx_desc_reads"], c["tx_desc"]),
                         (c["rx_desc_reads"], c["rx_desc"])):
        add(up, reads, _tlp(HDR_REQ))
        nbytes = descs * DESC
        # each read completed in 64-byte pieces, a read of the mean size
        cpl = reads * math.ceil(nbytes / reads / RCB) if reads else 0.0
        down[0] += cpl
        down[1] += cpl * _tlp(HDR_CPL) + nbytes
    # write-backs: TX merged by the model, RX one per descriptor
    up[0] += c["tx_wb_writes"]
    up[1] += c["tx_wb_writes"] * _tlp(HDR_REQ) + c["tx_packets"] * DESC
    add(up, c["rx_desc"], _tlp(HDR_REQ, DESC))
    # packet data
    rx_w = math.ceil(c["rx_frame"] / MPS) if c["rx_frame"] else 0
    up[0] += c["rx_frames"] * rx_w
    up[1] += c["rx_frames"] * (rx_w * _tlp(HDR_REQ) + c["rx_frame"])
    tx_c = math.ceil(c["tx_frame"] / RCB) if c["tx_frame"] else 0
    add(up, c["tx_frames"], _tlp(HDR_REQ))
    down[0] += c["tx_frames"] * tx_c
    down[1] += c["tx_frames"] * (tx_c * _tlp(HDR_CPL) + c["tx_frame"])
    return {"up": up, "down": down}


def model(cnt):
    """Counts per packet of both ports -> {"A": port_load, "B": ...,
    "busiest": (port, direction, bytes/pkt), "ceiling_mpps": float}."""
    if not cnt:
        return None
    out = {p: port_load(cnt[p]) for p in ("A", "B")}
    busiest = max(((p, s, out[p][s][1]) for p in ("A", "B")
                   for s in ("up", "down")), key=lambda x: x[2])
    out["busiest"] = busiest
    out["ceiling_mpps"] = (LINK_MBPS / busiest[2]) if busiest[2] else None
    return out


# ---- cycles -----------------------------------------------------------------

CPI = 1.0                    # assumed cycles per guest instruction
RING_CYCLES = (330, 395)     # FreeBSD's measured cost of one doorbell ring

CYCLE_ASSUMPTIONS = (
    "Cycles per packet = guest instructions per packet x CPI + doorbell "
    "writes (TX and RX tails, both ports) per packet x the cost of one "
    "ring.  CPI %.1f is a round number, not a measurement (an Atom core "
    "forwarding packets runs near it); the ring's %d-%d cycles are what "
    "the FreeBSD post measured on the Netgate 4200, whatever pf was "
    "doing." % (CPI, RING_CYCLES[0], RING_CYCLES[1]),
)


def cycles(insn, doorbells, cpi=CPI):
    """(low, high) modeled cycles per packet, or None."""
    if not insn or doorbells is None:
        return None
    return tuple(insn * cpi + doorbells * r for r in RING_CYCLES)
