/*
 * dbb-igc: transmit queues
 *
 * TX runs synchronously on the TDT write, as on e1000e, so the vCPU that
 * rings the doorbell pays for the work it announced.  Every descriptor is
 * consumed at most once per doorbell (loops are bounded by the ring size).
 *
 * Offloads follow the hardware, driven by the last context descriptor:
 * TXSM sums from MACLEN + IPLEN to the end of the packet over the seed the
 * driver left in the checksum field; IXSM recomputes the IPv4 header
 * checksum; TSE segments TCP (or UDP) with the headers replicated and
 * fixed up per segment.  QEMU 7.2's net_tx_pkt is not used for TSO: it
 * emits IP fragments instead of TCP segments and asserts on some guest
 * inputs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/crc32c.h"
#include "qemu/iov.h"
#include "net/checksum.h"
#include "net/eth.h"
#include "dbb_igc.h"
#include "dbb_pcie.h"
#include "dbb_igc_regs.h"

#define DBB_TCP_FIN     0x01
#define DBB_TCP_PSH     0x08
#define DBB_TCP_CWR     0x80
#define DBB_MIN_MSS     16
#define DBB_FCS_LEN     4

void dbb_igc_tx_init(DbbIgcState *s)
{
    int q;

    for (q = 0; q < DBB_IGC_NUM_QUEUES; q++) {
        s->txq[q].buf = g_malloc(DBB_IGC_TX_BUF_SIZE);
    }
    s->tx_seg = g_malloc(DBB_IGC_TX_BUF_SIZE);
}

void dbb_igc_tx_cleanup(DbbIgcState *s)
{
    int q;

    for (q = 0; q < DBB_IGC_NUM_QUEUES; q++) {
        g_free(s->txq[q].buf);
        s->txq[q].buf = NULL;
    }
    g_free(s->tx_seg);
    s->tx_seg = NULL;
}

void dbb_igc_tx_reset(DbbIgcState *s)
{
    int q;

    for (q = 0; q < DBB_IGC_NUM_QUEUES; q++) {
        DbbIgcTxQueue *txq = &s->txq[q];

        memset(&txq->ctx, 0, sizeof(txq->ctx));
        txq->len = 0;
        txq->in_packet = false;
        txq->bad_packet = false;
        txq->stopped = false;
    }
}

static void dbb_igc_tx_stats(DbbIgcState *s, const uint8_t *frame,
                             size_t len)
{
    static const hwaddr ptc[] = {
        IGC_R_PTC64, IGC_R_PTC64 + 4, IGC_R_PTC64 + 8,
        IGC_R_PTC64 + 12, IGC_R_PTC64 + 16, IGC_R_PTC64 + 20,
    };
    size_t wire = len + DBB_FCS_LEN;
    int b = wire <= 64 ? 0 : wire <= 127 ? 1 : wire <= 255 ? 2 :
            wire <= 511 ? 3 : wire <= 1023 ? 4 : 5;

    dbb_igc_stat_add(s, IGC_R_GPTC, 1);
    dbb_igc_stat_add(s, IGC_R_TPT, 1);
    dbb_igc_stat_add(s, IGC_R_HGPTC, 1);
    dbb_igc_stat_add64(s, IGC_R_GOTCL, wire);
    dbb_igc_stat_add64(s, IGC_R_TOTL, wire);
    dbb_igc_stat_add64(s, IGC_R_HGOTCL, wire);
    dbb_igc_stat_add(s, ptc[b], 1);     /* PTC1522: 1024 bytes or more */
    if (is_broadcast_ether_addr(frame)) {
        dbb_igc_stat_add(s, IGC_R_BPTC, 1);
    } else if (is_multicast_ether_addr(frame)) {
        dbb_igc_stat_add(s, IGC_R_MPTC, 1);
    }
}

/* Put one frame on the wire, inserting a VLAN tag if asked to. */
static void dbb_igc_tx_emit(DbbIgcState *s, int q, uint8_t *frame,
                            size_t len, bool vlan, uint16_t tci)
{
    static const uint8_t zeros[ETH_ZLEN];
    uint8_t tag[4];
    struct iovec iov[4];
    int n = 0;
    size_t total = len + (vlan ? sizeof(tag) : 0);

    if (vlan) {
        stw_be_p(tag, dbb_igc_reg(s, IGC_R_VET) ?: ETH_P_VLAN);
        stw_be_p(tag + 2, tci);
        iov[n++] = (struct iovec) { frame, 2 * ETH_ALEN };
        iov[n++] = (struct iovec) { tag, sizeof(tag) };
        iov[n++] = (struct iovec) { frame + 2 * ETH_ALEN, len - 2 * ETH_ALEN };
    } else {
        iov[n++] = (struct iovec) { frame, len };
    }
    if (total < ETH_ZLEN && (dbb_igc_reg(s, IGC_R_TCTL) & IGC_TCTL_PSP)) {
        iov[n++] = (struct iovec) { (void *)zeros, ETH_ZLEN - total };
        total = ETH_ZLEN;
    }
    if (!s->link_up) {
        return;                 /* no carrier: the frame goes nowhere */
    }
    if (!dbb_igc_partner_rx_ok(s)) {
        s->gt[DBB_GT_TX_LINK_DROPS][q]++;   /* the partner cannot hear */
        return;
    }
    qemu_sendv_packet(qemu_get_queue(s->nic), iov, n);
    dbb_igc_tx_stats(s, frame, total);
    s->gt[DBB_GT_TX_FRAMES][q]++;
    s->gt[DBB_GT_TX_BYTES][q] += total;
}

typedef struct DbbTxOffload {
    unsigned maclen, iplen, l4len, mss, l4t;
    bool ipv4;
} DbbTxOffload;

static void dbb_igc_tx_parse_ctx(const DbbIgcTxCtx *c, DbbTxOffload *o)
{
    o->iplen = c->vlan_macip_lens & IGC_TXCTX_IPLEN_MASK;
    o->maclen = (c->vlan_macip_lens >> IGC_TXCTX_MACLEN_SHIFT) &
                IGC_TXCTX_MACLEN_MASK;
    o->l4len = (c->mss_l4len_idx >> IGC_TXCTX_L4LEN_SHIFT) &
               IGC_TXCTX_L4LEN_MASK;
    o->mss = c->mss_l4len_idx >> IGC_TXCTX_MSS_SHIFT;
    o->l4t = (c->type_tucmd >> IGC_TXCTX_TUCMD_L4T_SHIFT) & 3;
    o->ipv4 = c->type_tucmd & IGC_TXCTX_TUCMD_IPV4;
}

/* IXSM: recompute the IPv4 header checksum at MACLEN. */
static bool dbb_igc_tx_ip_csum(DbbIgcState *s, int q, uint8_t *pkt,
                               size_t len, const DbbTxOffload *o)
{
    uint8_t *ip = pkt + o->maclen;
    unsigned ihl;

    if (o->maclen + 20 > len || (ip[0] >> 4) != 4) {
        dbb_igc_guest_error(s, "queue %d: IP checksum offload but no IPv4 "
                            "header at MACLEN %u", q, o->maclen);
        return false;
    }
    ihl = (ip[0] & 0xF) * 4;
    if (ihl < 20 || o->maclen + ihl > len) {
        dbb_igc_guest_error(s, "queue %d: bad IPv4 header length %u", q, ihl);
        return false;
    }
    stw_be_p(ip + 10, 0);
    stw_be_p(ip + 10, net_raw_checksum(ip, ihl));
    return true;
}

/*
 * TXSM: the L4 checksum from MACLEN + IPLEN to the end of @len, over the
 * pseudo-header seed the driver put in the checksum field.  @l4_total is
 * added to the sum when the seed lacks the length (TSO).
 */
static bool dbb_igc_tx_l4_csum(DbbIgcState *s, int q, uint8_t *pkt,
                               size_t len, const DbbTxOffload *o,
                               uint32_t add_len)
{
    size_t start = o->maclen + o->iplen;
    uint8_t *l4 = pkt + start;
    uint32_t sum;

    switch (o->l4t) {
    case IGC_TXCTX_L4T_TCP:
        if (start + 18 > len) {
            break;
        }
        sum = net_checksum_add(len - start, l4) + add_len;
        stw_be_p(l4 + 16, net_checksum_finish(sum));
        return true;
    case IGC_TXCTX_L4T_UDP:
        if (start + 8 > len) {
            break;
        }
        sum = net_checksum_add(len - start, l4) + add_len;
        stw_be_p(l4 + 6, net_checksum_finish_nozero(sum));
        return true;
    case IGC_TXCTX_L4T_SCTP:
        if (start + 12 > len) {
            break;
        }
        stl_le_p(l4 + 8, 0);
        stl_le_p(l4 + 8, crc32c(0xFFFFFFFF, l4, len - start));
        return true;
    default:
        dbb_igc_guest_error(s, "queue %d: reserved L4 type 3 in context", q);
        return false;
    }
    dbb_igc_guest_error(s, "queue %d: checksum offload: L4 header at %zu "
                        "beyond the %zu-byte packet", q, start, len);
    return false;
}

static void dbb_igc_tx_tso(DbbIgcState *s, int q, DbbIgcTxQueue *txq,
                           bool vlan, uint16_t tci)
{
    DbbTxOffload o;
    uint8_t *pkt = txq->buf;
    size_t len = txq->len;
    size_t hdrlen, pay, off;
    uint32_t olinfo = txq->first_olinfo;
    uint32_t paylen = olinfo >> IGC_TXD_PAYLEN_SHIFT;
    uint32_t seq = 0;
    uint16_t ipid = 0;
    unsigned i;
    bool tcp;

    dbb_igc_tx_parse_ctx(&txq->ctx, &o);
    tcp = o.l4t == IGC_TXCTX_L4T_TCP;
    hdrlen = o.maclen + o.iplen + o.l4len;
    if (o.maclen < ETH_HLEN || o.iplen < 20 ||
        o.l4len < (tcp ? 20 : 8) || hdrlen >= len ||
        o.l4t == IGC_TXCTX_L4T_SCTP || o.l4t > IGC_TXCTX_L4T_SCTP) {
        dbb_igc_guest_error(s, "queue %d: TSO with bogus headers (MACLEN %u "
                            "IPLEN %u L4LEN %u L4T %u, packet %zu bytes): "
                            "dropped", q, o.maclen, o.iplen, o.l4len, o.l4t,
                            len);
        return;
    }
    if (o.mss < DBB_MIN_MSS || hdrlen + o.mss > DBB_IGC_TX_BUF_SIZE) {
        dbb_igc_guest_error(s, "queue %d: TSO with MSS %u: dropped", q, o.mss);
        return;
    }
    if ((pkt[o.maclen] >> 4) != (o.ipv4 ? 4 : 6)) {
        dbb_igc_guest_error(s, "queue %d: TSO: context says IPv%d, packet "
                            "has version %d: dropped", q, o.ipv4 ? 4 : 6,
                            pkt[o.maclen] >> 4);
        return;
    }
    pay = len - hdrlen;
    if (paylen != pay) {
        dbb_igc_guest_error(s, "queue %d: TSO PAYLEN %u but %zu payload "
                            "bytes queued; using the latter", q, paylen, pay);
    }
    if (tcp) {
        seq = ldl_be_p(pkt + o.maclen + o.iplen + 4);
    }
    if (o.ipv4) {
        ipid = lduw_be_p(pkt + o.maclen + 4);
    }

    for (off = 0, i = 0; off < pay; off += o.mss, i++) {
        size_t seg = MIN(o.mss, pay - off);
        uint8_t *ip = s->tx_seg + o.maclen;
        uint8_t *l4 = ip + o.iplen;
        bool last = off + seg >= pay;

        memcpy(s->tx_seg, pkt, hdrlen);
        memcpy(s->tx_seg + hdrlen, pkt + hdrlen + off, seg);
        if (o.ipv4) {
            stw_be_p(ip + 2, o.iplen + o.l4len + seg);
            stw_be_p(ip + 4, ipid + i);
        } else {
            stw_be_p(ip + 4, o.iplen - 40 + o.l4len + seg);
        }
        if (tcp) {
            stl_be_p(l4 + 4, seq + off);
            if (!last) {
                l4[13] &= ~(DBB_TCP_FIN | DBB_TCP_PSH);
            }
            if (i) {
                l4[13] &= ~DBB_TCP_CWR;
            }
        } else {
            stw_be_p(l4 + 4, o.l4len + seg);
        }
        if (olinfo & IGC_TXD_POPTS_TXSM) {
            dbb_igc_tx_l4_csum(s, q, s->tx_seg, hdrlen + seg, &o,
                               o.l4len + seg);
        }
        if (o.ipv4 && (olinfo & IGC_TXD_POPTS_IXSM)) {
            dbb_igc_tx_ip_csum(s, q, s->tx_seg, hdrlen + seg, &o);
        }
        dbb_igc_tx_emit(s, q, s->tx_seg, hdrlen + seg, vlan, tci);
    }
    dbb_igc_stat_add(s, IGC_R_TSCTC, 1);
}

static void dbb_igc_tx_packet(DbbIgcState *s, int q, DbbIgcTxQueue *txq,
                              bool legacy, uint16_t legacy_tci)
{
    uint32_t cmd = txq->first_cmd;
    uint32_t olinfo = txq->first_olinfo;
    bool vlan = cmd & IGC_TXD_CMD_VLE;
    uint16_t tci = legacy ? legacy_tci :
                   txq->ctx.vlan_macip_lens >> IGC_TXCTX_VLAN_SHIFT;
    DbbTxOffload o;

    if (txq->len < ETH_HLEN) {
        dbb_igc_guest_error(s, "queue %d: %u-byte packet is shorter than an "
                            "Ethernet header: dropped", q, txq->len);
        return;
    }
    s->gt[DBB_GT_TX_PACKETS][q]++;
    if (!legacy && (cmd & IGC_TXD_CMD_TSE)) {
        dbb_igc_tx_tso(s, q, txq, vlan, tci);
        return;
    }
    if (!legacy) {
        dbb_igc_tx_parse_ctx(&txq->ctx, &o);
        if (olinfo & IGC_TXD_POPTS_IXSM) {
            dbb_igc_tx_ip_csum(s, q, txq->buf, txq->len, &o);
        }
        if (olinfo & IGC_TXD_POPTS_TXSM) {
            dbb_igc_tx_l4_csum(s, q, txq->buf, txq->len, &o, 0);
        }
    }
    dbb_igc_tx_emit(s, q, txq->buf, txq->len, vlan, tci);
}

/* One data descriptor: gather its buffer; send at EOP. */
static void dbb_igc_tx_data(DbbIgcState *s, int q, uint64_t addr,
                            uint32_t len, uint32_t cmd, uint32_t olinfo,
                            bool legacy)
{
    DbbIgcTxQueue *txq = &s->txq[q];

    if (!txq->in_packet) {
        txq->in_packet = true;
        txq->bad_packet = false;
        txq->len = 0;
        txq->first_cmd = cmd;
        txq->first_olinfo = olinfo;
    }
    if (!txq->bad_packet && len) {
        if (txq->len + len > DBB_IGC_TX_BUF_SIZE) {
            dbb_igc_guest_error(s, "queue %d: packet larger than %u bytes: "
                                "dropped", q, (unsigned)DBB_IGC_TX_BUF_SIZE);
            txq->bad_packet = true;
        } else if (!dbb_truth_dma_read(&s->truth, addr, txq->buf + txq->len,
                                       len, "TX buffer", q)) {
            txq->bad_packet = true;
        } else {
            txq->len += len;
        }
    }
    if (cmd & IGC_TXD_CMD_EOP) {
        if (!txq->bad_packet) {
            dbb_igc_tx_packet(s, q, txq, legacy, olinfo >> 16);
        }
        txq->in_packet = false;
        txq->len = 0;
    }
}

/* Returns true if the descriptor asks for a status write-back (RS). */
static bool dbb_igc_tx_desc(DbbIgcState *s, int q, const uint8_t *desc)
{
    uint64_t addr = ldq_le_p(desc);
    uint32_t cmd = ldl_le_p(desc + 8);
    uint32_t olinfo = ldl_le_p(desc + 12);
    unsigned dtyp = (cmd >> IGC_TXD_DTYP_SHIFT) & IGC_TXD_DTYP_MASK;

    if (!(cmd & IGC_TXD_CMD_DEXT)) {
        /* Legacy descriptor: length in 15:0, VLAN tag in DW3 31:16. */
        dbb_igc_tx_data(s, q, addr, cmd & IGC_LTXD_LEN_MASK, cmd, olinfo,
                        true);
        return cmd & IGC_TXD_CMD_RS;
    }
    switch (dtyp) {
    case IGC_TXD_DTYP_CTXT:
        s->txq[q].ctx.vlan_macip_lens = ldl_le_p(desc);
        s->txq[q].ctx.type_tucmd = cmd;
        s->txq[q].ctx.mss_l4len_idx = olinfo;
        return false;
    case IGC_TXD_DTYP_DATA:
        dbb_igc_tx_data(s, q, addr, cmd & IGC_TXD_DTALEN_MASK, cmd, olinfo,
                        false);
        return cmd & IGC_TXD_CMD_RS;
    default:
        dbb_igc_guest_error(s, "queue %d: TX descriptor type %u is neither "
                            "data nor context: skipped", q, dtyp);
        if (s->txq[q].in_packet) {
            s->txq[q].bad_packet = true;
        }
        return false;
    }
}

void dbb_igc_tx_process(DbbIgcState *s, int q)
{
    DbbIgcTxQueue *txq = &s->txq[q];
    uint64_t base;
    uint32_t tdlen, ndesc, head, tail, budget;
    uint8_t desc[DBB_IGC_DESC_SIZE];
    bool done = false;
    DbbPcieWb wb;

    if (!(dbb_igc_reg(s, IGC_R_TCTL) & IGC_TCTL_EN) ||
        !(dbb_igc_reg(s, IGC_R_TXDCTL(q)) & IGC_XDCTL_ENABLE) ||
        txq->stopped || s->busy || s->dma_paused) {
        return;
    }
    tdlen = dbb_igc_reg(s, IGC_R_TDLEN(q));
    head = dbb_igc_reg(s, IGC_R_TDH(q));
    tail = dbb_igc_reg(s, IGC_R_TDT(q));
    if (head == tail) {
        return;
    }
    if (tdlen == 0) {
        dbb_igc_guest_error(s, "queue %d: TDT written with TDLEN 0 "
                            "(zero-length ring): queue stopped", q);
        txq->stopped = true;
        return;
    }
    ndesc = tdlen / DBB_IGC_DESC_SIZE;
    if (head >= ndesc || tail >= ndesc) {
        dbb_igc_guest_error(s, "queue %d: TDH %u / TDT %u beyond the ring of "
                            "%u descriptors: queue stopped", q, head, tail,
                            ndesc);
        txq->stopped = true;
        return;
    }
    base = (uint64_t)dbb_igc_reg(s, IGC_R_TDBAH(q)) << 32 |
           dbb_igc_reg(s, IGC_R_TDBAL(q));

    s->busy = true;
    dbb_pcie_wb_start(&wb);
    for (budget = ndesc; head != tail && budget; budget--) {
        uint64_t da = base + (uint64_t)head * DBB_IGC_DESC_SIZE;

        if (!dbb_truth_dma_read(&s->truth, da, desc, sizeof(desc),
                                "TX descriptor fetch", q)) {
            txq->stopped = true;
            break;
        }
        s->gt[DBB_GT_TX_DESC][q]++;
        if (dbb_igc_tx_desc(s, q, desc)) {
            uint8_t sta[4];

            stl_le_p(sta, IGC_TXD_STA_DD);
            dbb_truth_dma_write(&s->truth, da + 12, sta, sizeof(sta),
                                "TX descriptor write-back", q);
            s->gt[DBB_GT_TX_WB_WRITES][q] +=
                dbb_pcie_wb_add(&wb, head, ndesc, DBB_IGC_DESC_SIZE);
            done = true;
        }
        head = head + 1 == ndesc ? 0 : head + 1;
        dbb_igc_set_reg(s, IGC_R_TDH(q), head);
    }
    s->busy = false;
    if (done) {
        dbb_igc_queue_cause(s, q, true);
    }
}
