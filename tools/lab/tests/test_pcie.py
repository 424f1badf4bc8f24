#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_pcie.py: unit tests of the lab's PCIe and cycles models
(tools/lab/pcie.py), against sums worked by hand from the stated
assumptions.  Host only: prints TAP.  Exit 0 when every case passed.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import pcie  # noqa: E402
import tap  # noqa: E402


def deltas(fwd, tdt, rdt, irqs=0, reads=0, tx_reads=None, rx_reads=None,
           wb=None):
    """Router deltas for a one-way run of FWD 60-byte frames: A receives,
    B transmits, one descriptor each."""
    d = {}
    for p in ("A", "B"):
        rx = fwd if p == "A" else 0
        tx = fwd if p == "B" else 0
        d.update({p + "_tdt_writes": tdt if p == "B" else 0,
                  p + "_rdt_writes": rdt if p == "A" else 0,
                  p + "_tx_frames": tx, p + "_rx_frames": rx,
                  p + "_tx_bytes": 60 * tx, p + "_rx_bytes": 60 * rx,
                  p + "_tx_packets": tx, p + "_tx_desc": tx,
                  p + "_rx_desc": rx,
                  p + "_irqs": irqs if p == "B" else 0,
                  p + "_reg_reads": reads if p == "A" else 0,
                  p + "_irq_reg_writes": 0, p + "_other_reg_writes": 0,
                  p + "_tx_desc_reads": (tdt if tx_reads is None
                                         else tx_reads) if p == "B" else 0,
                  p + "_rx_desc_reads": (rdt if rx_reads is None
                                         else rx_reads) if p == "A" else 0,
                  p + "_tx_wb_writes": (tdt if wb is None else wb)
                  if p == "B" else 0})
    return d


def case_one_doorbell_a_packet():
    """igc as upstream rings it: a TX tail write, a fetch and a write-back
    per packet, RX tails every 16 packets."""
    m = pcie.model(pcie.counts(deltas(1600, 1600, 100, irqs=0), 1600))
    b_down = m["B"]["down"][1]
    # tail write 8+12+4, descriptor completion 8+12+16, data 8+12+60
    assert abs(b_down - (24 + 36 + 80)) < 1e-9, b_down
    b_up = m["B"]["up"][1]
    # fetch request 24, data read request 24, write-back 8+16+16
    assert abs(b_up - (24 + 24 + 40)) < 1e-9, b_up
    a_up = m["A"]["up"][1]
    # data write 8+16+60, descriptor write-back 40, RX fetch 24/16
    assert abs(a_up - (84 + 40 + 24 / 16)) < 1e-9, a_up
    assert m["busiest"][:2] == ("B", "down"), m["busiest"]
    assert abs(m["ceiling_mpps"] - 500 / 140) < 1e-9, m["ceiling_mpps"]


def case_batched_saves_link_bytes():
    """16 packets a tail write: one fetch of 256 bytes (4 completions), two
    write-backs of 8 descriptors."""
    m = pcie.model(pcie.counts(deltas(1600, 100, 100, wb=200), 1600))
    b_down = m["B"]["down"][1]
    want = 24 / 16 + (4 * 20 + 256) / 16 + 80
    assert abs(b_down - want) < 1e-9, (b_down, want)
    b_up = m["B"]["up"][1]
    want = 24 / 16 + 24 + (2 * 24 + 16 * 16) / 16
    assert abs(b_up - want) < 1e-9, (b_up, want)
    one = pcie.model(pcie.counts(deltas(1600, 1600, 100), 1600))
    assert m["ceiling_mpps"] > one["ceiling_mpps"]


def case_register_reads_and_msix():
    """A read is a request down and a completion up; an MSI-X message a
    4-byte write up."""
    base = pcie.model(pcie.counts(deltas(100, 100, 100), 100))
    m = pcie.model(pcie.counts(deltas(100, 100, 100, irqs=50, reads=100),
                               100))
    assert abs(m["A"]["down"][1] - base["A"]["down"][1] - 20) < 1e-9
    assert abs(m["A"]["up"][1] - base["A"]["up"][1] - 24) < 1e-9
    assert abs(m["B"]["up"][1] - base["B"]["up"][1] - 24 / 2) < 1e-9


def case_missing_counters():
    """dbb-octep counts no descriptor reads: no model, not zeros."""
    d = deltas(100, 100, 100)
    del d["B_tx_desc_reads"]
    assert pcie.counts(d, 100) is None
    assert pcie.counts(deltas(100, 100, 100), 0) is None
    assert pcie.model(None) is None


def case_cycles():
    assert pcie.cycles(4000, 2.0) == (4000 + 660, 4000 + 790)
    assert pcie.cycles(None, 1.0) is None
    assert pcie.cycles(4000, None) is None


if __name__ == "__main__":
    sys.exit(tap.run_cases(globals()))
