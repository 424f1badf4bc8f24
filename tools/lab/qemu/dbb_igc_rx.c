/*
 * dbb-igc: receive path
 *
 * Frames arrive through the standard NIC receive callback.  They are
 * filtered (RAL/RAH, MTA, UPE/MPE/BAM), steered (RAH queue select, RSS
 * with RETA and the Toeplitz key), written into the queue's descriptors
 * (several per frame when it does not fit one buffer) and signalled.
 * A frame with no descriptor to land in is dropped and counted (MPC,
 * RNBC, RQDPC, ground truth), like the hardware: it is never handed back
 * to QEMU's net layer to be queued.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/iov.h"
#include "net/eth.h"
#include "net/checksum.h"
#include "net_rx_pkt.h"
#include <zlib.h>
#include "dbb_igc.h"
#include "dbb_igc_regs.h"

#define DBB_FCS_LEN         4
#define DBB_MAX_STD_FRAME   1518

void dbb_igc_rx_init(DbbIgcState *s)
{
    net_rx_pkt_init(&s->rx_pkt, false);
    s->rx_buf = g_malloc(DBB_IGC_MAX_FRAME + DBB_FCS_LEN);
}

void dbb_igc_rx_cleanup(DbbIgcState *s)
{
    net_rx_pkt_uninit(s->rx_pkt);
    s->rx_pkt = NULL;
    g_free(s->rx_buf);
    s->rx_buf = NULL;
}

bool dbb_igc_can_receive(NetClientState *nc)
{
    /*
     * Always: a frame the device cannot take is dropped and counted in
     * dbb_igc_receive(), never left queued in the net layer.
     */
    return true;
}

/* Multicast hash per RCTL.MO: 12 bits of the destination address. */
static bool dbb_igc_mta_match(DbbIgcState *s, const uint8_t *da)
{
    static const int shift[4] = { 4, 3, 2, 0 };
    unsigned mo = (dbb_igc_reg(s, IGC_R_RCTL) >> IGC_RCTL_MO_SHIFT) & 3;
    uint32_t hash = ((da[4] >> shift[mo]) | (da[5] << (8 - shift[mo]))) &
                    0xFFF;

    return dbb_igc_reg(s, IGC_R_MTA + (hash >> 5) * 4) & BIT(hash & 31);
}

/* Exact unicast match in RAL/RAH; *queue gets a RAH queue select. */
static bool dbb_igc_rar_match(DbbIgcState *s, const uint8_t *da, int *queue)
{
    uint32_t ral = ldl_le_p(da);
    uint32_t rah = lduw_le_p(da + 4);
    int i;

    for (i = 0; i < DBB_IGC_RAR_ENTRIES; i++) {
        uint32_t h = dbb_igc_reg(s, IGC_R_RAH(i));

        if (!(h & IGC_RAH_AV) || (h & IGC_RAH_ASEL_MASK) ||
            dbb_igc_reg(s, IGC_R_RAL(i)) != ral ||
            (h & IGC_RAH_ADDR_MASK) != rah) {
            continue;
        }
        if (h & IGC_RAH_QSEL_ENABLE) {
            *queue = (h >> IGC_RAH_QSEL_SHIFT) & IGC_RAH_QSEL_MASK;
        }
        return true;
    }
    return false;
}

static bool dbb_igc_accept(DbbIgcState *s, const uint8_t *da, int *queue)
{
    uint32_t rctl = dbb_igc_reg(s, IGC_R_RCTL);

    if (is_broadcast_ether_addr(da)) {
        return rctl & (IGC_RCTL_BAM | IGC_RCTL_MPE);
    }
    if (is_multicast_ether_addr(da)) {
        return (rctl & IGC_RCTL_MPE) || dbb_igc_mta_match(s, da);
    }
    return dbb_igc_rar_match(s, da, queue) || (rctl & IGC_RCTL_UPE);
}

typedef struct DbbRxInfo {
    uint32_t rss_type;
    uint32_t rss_hash;
    uint32_t pkt_type;
    uint32_t status;            /* checksum and VLAN bits for the EOP desc */
    uint16_t vlan;
} DbbRxInfo;

/* RSS over the parsed packet; returns the RETA queue. */
static int dbb_igc_rss(DbbIgcState *s, bool ip4, bool ip6, bool udp,
                       bool tcp, DbbRxInfo *info)
{
    uint32_t mrqc = dbb_igc_reg(s, IGC_R_MRQC);
    uint8_t key[DBB_IGC_RSS_KEY_SIZE];
    NetRxPktRssType type;
    unsigned entry;
    int i;

    if ((mrqc & IGC_MRQC_MRQE_MASK) != IGC_MRQC_MRQE_RSS) {
        return 0;
    }
    if (ip4 && tcp && (mrqc & IGC_MRQC_IPV4_TCP)) {
        type = NetPktRssIpV4Tcp;
        info->rss_type = IGC_RSS_TYPE_TCP_IPV4;
    } else if (ip4 && udp && (mrqc & IGC_MRQC_IPV4_UDP)) {
        type = NetPktRssIpV4Udp;
        info->rss_type = IGC_RSS_TYPE_UDP_IPV4;
    } else if (ip4 && (mrqc & IGC_MRQC_IPV4)) {
        type = NetPktRssIpV4;
        info->rss_type = IGC_RSS_TYPE_IPV4;
    } else if (ip6 && tcp && (mrqc & IGC_MRQC_IPV6_TCP)) {
        type = NetPktRssIpV6Tcp;
        info->rss_type = IGC_RSS_TYPE_TCP_IPV6;
    } else if (ip6 && udp && (mrqc & IGC_MRQC_IPV6_UDP)) {
        type = NetPktRssIpV6Udp;
        info->rss_type = IGC_RSS_TYPE_UDP_IPV6;
    } else if (ip6 && (mrqc & IGC_MRQC_IPV6)) {
        type = NetPktRssIpV6;
        info->rss_type = IGC_RSS_TYPE_IPV6;
    } else {
        return 0;
    }
    for (i = 0; i < DBB_IGC_RSS_KEY_SIZE / 4; i++) {
        stl_le_p(key + 4 * i, dbb_igc_reg(s, IGC_R_RSSRK(i)));
    }
    info->rss_hash = net_rx_pkt_calc_rss_hash(s->rx_pkt, type, key);
    entry = info->rss_hash % DBB_IGC_RETA_ENTRIES;
    return (dbb_igc_reg(s, IGC_R_RETA(entry / 4)) >> (8 * (entry % 4))) &
           (DBB_IGC_NUM_QUEUES - 1);
}

static void dbb_igc_rx_csum(DbbIgcState *s, bool ip4, bool udp, bool tcp,
                            DbbRxInfo *info)
{
    uint32_t rxcsum = dbb_igc_reg(s, IGC_R_RXCSUM);
    bool valid;

    if (ip4 && (rxcsum & IGC_RXCSUM_IPOFL) &&
        net_rx_pkt_validate_l3_csum(s->rx_pkt, &valid)) {
        info->status |= IGC_RXD_STAT_IPCS | (valid ? 0 : IGC_RXD_ERR_IPE);
    }
    if ((tcp || udp) && (rxcsum & IGC_RXCSUM_TUOFL) &&
        net_rx_pkt_validate_l4_csum(s->rx_pkt, &valid)) {
        info->status |= (tcp ? IGC_RXD_STAT_TCPCS : IGC_RXD_STAT_UDPCS) |
                        (valid ? 0 : IGC_RXD_ERR_L4E);
    }
}

static void dbb_igc_rx_stats(DbbIgcState *s, const uint8_t *da, size_t wire)
{
    int b = wire <= 64 ? 0 : wire <= 127 ? 1 : wire <= 255 ? 2 :
            wire <= 511 ? 3 : wire <= 1023 ? 4 : 5;

    dbb_igc_stat_add(s, IGC_R_GPRC, 1);
    dbb_igc_stat_add(s, IGC_R_RPTHC, 1);
    dbb_igc_stat_add64(s, IGC_R_GORCL, wire);
    dbb_igc_stat_add64(s, IGC_R_HGORCL, wire);
    /* PRC1522 takes 1024 bytes up to the largest frame RCTL accepts */
    dbb_igc_stat_add(s, IGC_R_PRC64 + 4 * b, 1);
    if (is_broadcast_ether_addr(da)) {
        dbb_igc_stat_add(s, IGC_R_BPRC, 1);
    } else if (is_multicast_ether_addr(da)) {
        dbb_igc_stat_add(s, IGC_R_MPRC, 1);
    }
}

static uint32_t dbb_igc_rx_bufsize(DbbIgcState *s, int q)
{
    uint32_t kb = dbb_igc_reg(s, IGC_R_SRRCTL(q)) & IGC_SRRCTL_BSIZEPKT_MASK;
    uint32_t rctl = dbb_igc_reg(s, IGC_R_RCTL);
    uint32_t bsize = (rctl >> IGC_RCTL_BSIZE_SHIFT) & 3;

    if (kb) {
        return kb * KiB;
    }
    /* BSIZEPKT 0: the legacy RCTL.BSIZE/BSEX encoding. */
    return (rctl & IGC_RCTL_BSEX) ? (16384 >> bsize) : (2048 >> bsize);
}

/* Validate queue @q's ring; on success fill @base/@ndesc. */
static bool dbb_igc_rx_ring(DbbIgcState *s, int q, uint64_t *base,
                            uint32_t *ndesc)
{
    uint32_t len = dbb_igc_reg(s, IGC_R_RDLEN(q));
    uint32_t head = dbb_igc_reg(s, IGC_R_RDH(q));
    uint32_t tail = dbb_igc_reg(s, IGC_R_RDT(q));

    if (!(dbb_igc_reg(s, IGC_R_RXDCTL(q)) & IGC_XDCTL_ENABLE)) {
        return false;
    }
    if (s->rxq_ring_err[q]) {
        return false;
    }
    if (len == 0) {
        dbb_igc_guest_error(s, "queue %d: frame for a zero-length RX ring "
                            "(RDLEN 0): RX queue stopped", q);
        s->rxq_ring_err[q] = true;
        return false;
    }
    *ndesc = len / DBB_IGC_DESC_SIZE;
    if (head >= *ndesc || tail >= *ndesc) {
        dbb_igc_guest_error(s, "queue %d: RDH %u / RDT %u beyond the ring of "
                            "%u descriptors: RX queue stopped", q, head, tail,
                            *ndesc);
        s->rxq_ring_err[q] = true;
        return false;
    }
    *base = (uint64_t)dbb_igc_reg(s, IGC_R_RDBAH(q)) << 32 |
            dbb_igc_reg(s, IGC_R_RDBAL(q));
    return true;
}

static void dbb_igc_rx_drop_nodesc(DbbIgcState *s, int q)
{
    dbb_igc_stat_add(s, IGC_R_MPC, 1);
    dbb_igc_stat_add(s, IGC_R_RNBC, 1);
    dbb_igc_stat_add(s, IGC_R_RQDPC(q), 1);
    s->gt[DBB_GT_RX_DROPPED][q]++;
}

/* Write @len bytes of s->rx_buf into queue @q's descriptors. */
static void dbb_igc_rx_deliver(DbbIgcState *s, int q, size_t len,
                               const DbbRxInfo *info)
{
    uint64_t base;
    uint32_t ndesc, head, tail, avail, need, bufsize, i;
    unsigned desctype = (dbb_igc_reg(s, IGC_R_SRRCTL(q)) >>
                         IGC_SRRCTL_DESCTYPE_SHIFT) & IGC_SRRCTL_DESCTYPE_MASK;
    size_t off = 0;

    if (!dbb_igc_rx_ring(s, q, &base, &ndesc)) {
        s->gt[DBB_GT_RX_OFF_DROPS][0]++;
        return;
    }
    head = dbb_igc_reg(s, IGC_R_RDH(q));
    tail = dbb_igc_reg(s, IGC_R_RDT(q));
    avail = tail >= head ? tail - head : ndesc - head + tail;
    bufsize = dbb_igc_rx_bufsize(s, q);
    need = DIV_ROUND_UP(len, bufsize);
    if (need > avail) {
        dbb_igc_rx_drop_nodesc(s, q);
        return;
    }

    for (i = 0; i < need; i++) {
        uint64_t da = base + (uint64_t)head * DBB_IGC_DESC_SIZE;
        uint8_t desc[DBB_IGC_DESC_SIZE];
        size_t chunk = MIN(bufsize, len - off);
        bool eop = i + 1 == need;
        uint32_t status = IGC_RXD_STAT_DD;

        if (!dbb_truth_dma_read(&s->truth, da, desc, sizeof(desc),
                                "RX descriptor fetch", q)) {
            s->rxq_ring_err[q] = true;
            return;
        }
        dbb_truth_dma_write(&s->truth, ldq_le_p(desc), s->rx_buf + off,
                            chunk, "RX buffer", q);
        if (eop) {
            status |= IGC_RXD_STAT_EOP | info->status;
        }
        if (desctype == IGC_SRRCTL_DESCTYPE_LEGACY) {
            /* length, checksum, status, errors, VLAN */
            stw_le_p(desc + 8, chunk);
            stw_le_p(desc + 10, 0);
            desc[12] = status & 0xFF;
            desc[13] = status >> 24;
            stw_le_p(desc + 14, eop ? info->vlan : 0);
        } else {
            stl_le_p(desc, info->rss_type | info->pkt_type);
            stl_le_p(desc + 4, info->rss_hash);
            stl_le_p(desc + 8, status);
            stl_le_p(desc + 12, chunk | (uint32_t)(eop ? info->vlan : 0) << 16);
        }
        dbb_truth_dma_write(&s->truth, da, desc, sizeof(desc),
                            "RX descriptor write-back", q);
        s->gt[DBB_GT_RX_DESC][q]++;
        off += chunk;
        head = head + 1 == ndesc ? 0 : head + 1;
        dbb_igc_set_reg(s, IGC_R_RDH(q), head);
    }
    s->gt[DBB_GT_RX_FRAMES][q]++;
    s->gt[DBB_GT_RX_BYTES][q] += len;
    dbb_igc_rx_stats(s, s->rx_buf, len + DBB_FCS_LEN);
    dbb_igc_queue_cause(s, q, false);
}

ssize_t dbb_igc_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    DbbIgcState *s = qemu_get_nic_opaque(nc);
    uint32_t rctl = dbb_igc_reg(s, IGC_R_RCTL);
    uint32_t ctrl = dbb_igc_reg(s, IGC_R_CTRL);
    uint16_t vet = dbb_igc_reg(s, IGC_R_VET) ?: ETH_P_VLAN;
    uint8_t min_frame[ETH_ZLEN];
    struct iovec iov;
    DbbRxInfo info = { 0 };
    bool ip4, ip6, udp, tcp, tagged;
    size_t limit, len;
    int queue = -1;

    if (!s->link_up || !(rctl & IGC_RCTL_EN) || s->busy ||
        size < ETH_HLEN) {
        s->gt[DBB_GT_RX_OFF_DROPS][0]++;
        return size;
    }
    dbb_igc_stat_add(s, IGC_R_TPR, 1);
    dbb_igc_stat_add64(s, IGC_R_TORL, size + DBB_FCS_LEN);
    if (s->dma_paused) {
        dbb_igc_stat_add(s, IGC_R_MPC, 1);
        s->gt[DBB_GT_RX_PAUSED_DROPS][0]++;
        return size;
    }

    /* The wire pads short frames; the host side may not have. */
    if (size < ETH_ZLEN) {
        memcpy(min_frame, buf, size);
        memset(min_frame + size, 0, ETH_ZLEN - size);
        buf = min_frame;
        size = ETH_ZLEN;
    }
    tagged = lduw_be_p(buf + 12) == vet;
    if (rctl & IGC_RCTL_LPE) {
        limit = dbb_igc_reg(s, IGC_R_RLPML) ?: DBB_IGC_MAX_FRAME;
    } else {
        limit = DBB_MAX_STD_FRAME;
    }
    limit = MIN(limit + (tagged ? 4 : 0), DBB_IGC_MAX_FRAME);
    if (size + DBB_FCS_LEN > limit) {
        dbb_igc_stat_add(s, IGC_R_ROC, 1);
        s->gt[DBB_GT_RX_FILTERED][0]++;
        return size;
    }
    if (!dbb_igc_accept(s, buf, &queue)) {
        s->gt[DBB_GT_RX_FILTERED][0]++;
        return size;
    }

    iov.iov_base = (void *)buf;
    iov.iov_len = size;
    net_rx_pkt_attach_iovec_ex(s->rx_pkt, &iov, 1, 0,
                               tagged && (ctrl & IGC_CTRL_VME), vet);
    net_rx_pkt_get_protocols(s->rx_pkt, &ip4, &ip6, &udp, &tcp);
    if (net_rx_pkt_is_vlan_stripped(s->rx_pkt)) {
        info.vlan = net_rx_pkt_get_vlan_tag(s->rx_pkt);
        info.status |= IGC_RXD_STAT_VP;
    }
    info.pkt_type = (ip4 ? IGC_RXD_PKT_IPV4 : 0) |
                    (ip6 ? IGC_RXD_PKT_IPV6 : 0) |
                    (tcp ? IGC_RXD_PKT_TCP : 0) |
                    (udp ? IGC_RXD_PKT_UDP : 0);
    if (queue < 0) {
        queue = dbb_igc_rss(s, ip4, ip6, udp, tcp, &info);
    }
    if (!(dbb_igc_reg(s, IGC_R_RXCSUM) & IGC_RXCSUM_PCSD)) {
        info.rss_hash = 0;      /* DW1 would carry IP id/fragment csum */
    }
    dbb_igc_rx_csum(s, ip4, udp, tcp, &info);

    len = net_rx_pkt_get_total_len(s->rx_pkt);
    iov_to_buf(net_rx_pkt_get_iovec(s->rx_pkt),
               net_rx_pkt_get_iovec_len(s->rx_pkt), 0, s->rx_buf, len);
    if (!(rctl & IGC_RCTL_SECRC)) {
        stl_le_p(s->rx_buf + len, crc32(0, s->rx_buf, len));
        len += DBB_FCS_LEN;
    }

    s->busy = true;
    dbb_igc_rx_deliver(s, queue, len, &info);
    s->busy = false;
    return size;
}

/*
 * mng-rcv-tco: with firmware receiving through the port, the receive FIFO
 * holds bad data when receive is enabled (the I225/I226 erratum behind
 * upstream igc's igc_rx_fifo_flush_base).  Model it as one junk frame,
 * broadcast, received at every RCTL.EN rising edge: a driver that posts
 * buffers only after its flush (queues disabled, receive briefly on)
 * never sees it; one that enables receive with buffers posted gets it.
 */
void dbb_igc_rx_fifo_junk(DbbIgcState *s)
{
    uint8_t junk[ETH_ZLEN];

    memset(junk, 0xEE, sizeof(junk));
    memset(junk, 0xFF, ETH_ALEN);                   /* broadcast */
    memset(junk + ETH_ALEN, 0, ETH_ALEN);
    stw_be_p(junk + 2 * ETH_ALEN, 0x88B5);          /* local experimental */
    dbb_igc_receive(qemu_get_queue(s->nic), junk, sizeof(junk));
}
