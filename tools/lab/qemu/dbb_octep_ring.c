/*
 * dbb-octep: input (TX) and output (RX) rings
 *
 * Input ring: the host writes 64-byte instructions and adds their number
 * to IN_INSTR_DBELL; the block fetches them at once (inside the doorbell
 * write), sends each frame, and counts it in IN_CNTS.
 *
 * Output ring, as the SDP output block was measured
 * (../shared/seeds/octep-ring-credit-page.txt): OUT_SLIST_DBELL is a
 * credit the host adds to.  When a frame arrives and no fetched buffer
 * is left, the block fetches 16 buffers (spending 16 credit) as long as
 * the credit reads at least the output watermark; below it the frame is
 * refused.  The block writes buffers in ring order without looking at
 * the host's position: a credit larger than the ring makes it go round
 * over buffers the host has not read, which is counted (laps, frames
 * overwritten unread).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "net/net.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "dbb_octep.h"

#define DBB_MIN_FRAME       60

/* ---- interrupts: vector 16 + ring ---------------------------------------- */

static uint32_t dbb_octep_pkt_threshold(uint64_t levels)
{
    uint32_t thr = (uint32_t)levels;

    return thr ? thr : 1;
}

static void dbb_octep_in_irq(DbbOctepState *s, int q)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t levels = *dbb_octep_rreg(s, q, R_IN_INT_LEVELS);

    if (!(levels & INT_LEVELS_ENA) || !r->in_irq_armed || !r->in_cnts ||
        (uint32_t)levels == UINT32_MAX ||
        r->in_cnts < dbb_octep_pkt_threshold(levels)) {
        return;
    }
    r->in_irq_armed = false;
    dbb_octep_msix(s, DBB_OCTEP_NON_IOQ_VECTORS + q);
}

static void dbb_octep_out_irq(DbbOctepState *s, int q, bool timeout)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t levels = *dbb_octep_rreg(s, q, R_OUT_INT_LEVELS);
    uint32_t usecs = (levels >> 32) & 0x3FFFFF;

    if (!(levels & INT_LEVELS_ENA) || !r->out_irq_armed || !r->out_cnts) {
        return;
    }
    if (timeout || r->out_cnts >= dbb_octep_pkt_threshold(levels)) {
        timer_del(r->out_timer);
        r->out_irq_armed = false;
        if (s->irq_lose) {
            s->irq_lose--;
            dbb_octep_gt_add(s, DBB_OGT_IRQS_LOST, q, 1);
            return;
        }
        dbb_octep_msix(s, DBB_OCTEP_NON_IOQ_VECTORS + q);
    } else if (usecs && !timer_pending(r->out_timer)) {
        timer_mod(r->out_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)usecs * SCALE_US);
    }
}

void dbb_octep_out_timer_cb(void *opaque)
{
    DbbOctepRing *r = opaque;

    dbb_octep_out_irq(r->dev, r->index, true);
}

/* ---- ring state ---------------------------------------------------------- */

static void dbb_octep_out_start(DbbOctepState *s, int q)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t size = *dbb_octep_rreg(s, q, R_OUT_SLIST_RSIZE) & 0xFFFFFFFF;

    g_free(r->slot_seq);
    g_free(r->slot_addr);
    r->slot_seq = NULL;
    r->slot_addr = NULL;
    r->out_size = 0;
    /* whole fetches only; a ring the guest got wrong takes no frame */
    if (size && size <= DBB_OCTEP_MAX_RING && !(size % DBB_OQ_FETCH) &&
        !(*dbb_octep_rreg(s, q, R_OUT_SLIST_BADDR) % DBB_OQ_DESC_SIZE)) {
        r->slot_seq = g_new0(uint64_t, size);
        r->slot_addr = g_new(uint64_t, size);
        r->out_size = size;
    }
    r->out_avail = 0;
    r->out_wr = 0;
    r->out_fetch = 0;
    r->desc_warned = false;
    s->gt[DBB_OGT_OUTSTANDING_MAX][q] = r->out_credit;
    r->seq_written = 0;
    r->seq_acked = 0;
    r->buf_written = 0;
    r->buf_returned = 0;
    r->last_lost_seq = 0;
    r->wr_round = 0;
    r->lap_round = 0;
    r->out_irq_armed = true;
}

void dbb_octep_ring_reset(DbbOctepState *s, int q)
{
    DbbOctepRing *r = &s->ring[q];

    r->in_dbell = 0;
    r->in_rd = 0;
    r->in_cnts = 0;
    r->in_irq_armed = true;
    r->in_stopped = false;
    r->out_credit = 0;
    r->out_cnts = 0;
    if (r->out_timer) {
        timer_del(r->out_timer);
    }
    dbb_octep_out_start(s, q);
}

void dbb_octep_ring_cleanup(DbbOctepState *s, int q)
{
    g_free(s->ring[q].slot_seq);
    g_free(s->ring[q].slot_addr);
    s->ring[q].slot_seq = NULL;
    s->ring[q].slot_addr = NULL;
}

/* ---- input ring ---------------------------------------------------------- */

/*
 * Gather list: entries of {u16 len[4]; u64 ptr[4]}, ptr[k]'s length in
 * len[3 - k].
 */
static bool dbb_octep_gather(DbbOctepState *s, int q, uint64_t list,
                             unsigned n, uint32_t len)
{
    uint8_t ent[40];
    uint32_t got = 0;
    unsigned j;

    if (n == 0 || n > DBB_OCTEP_MAX_GATHER) {
        dbb_octep_guest_error(s, "ring %d: gather of %u pointers (1 to %d)",
                              q, n, DBB_OCTEP_MAX_GATHER);
        return false;
    }
    for (j = 0; j < n; j++) {
        unsigned k = j % 4;
        uint32_t l;
        uint64_t p;

        if (k == 0 && !dbb_truth_dma_read(&s->truth, list + (j / 4) * 40,
                                          ent, 40, "gather list fetch", q)) {
            return false;
        }
        l = lduw_le_p(ent + 2 * (3 - k));
        p = ldq_le_p(ent + 8 + 8 * k);
        if (l > len - got) {
            dbb_octep_guest_error(s, "ring %d: gather lengths exceed the "
                                  "instruction's length %u", q, len);
            return false;
        }
        if (l && !dbb_truth_dma_read(&s->truth, p, s->frame + got, l,
                                     "gather buffer", q)) {
            return false;
        }
        got += l;
    }
    if (got != len) {
        dbb_octep_guest_error(s, "ring %d: gather lengths sum to %u, the "
                              "instruction says %u", q, got, len);
        return false;
    }
    return true;
}

static void dbb_octep_tx_one(DbbOctepState *s, int q, const uint8_t *instr)
{
    uint64_t dptr = ldq_le_p(instr);
    uint64_t ih = ldq_le_p(instr + 8);
    uint32_t tlen = ih & 0xFFFF;
    uint32_t fsz = (ih >> 42) & 0x3F;
    unsigned gsz = (ih >> 48) & 0x3FFF;
    bool gather = ih & BIT_ULL(62);
    uint32_t len;
    bool ok;

    if (tlen < fsz || tlen - fsz == 0 || tlen - fsz > DBB_OCTEP_MAX_FRAME) {
        dbb_octep_guest_error(s, "ring %d: instruction length %u (front "
                              "data %u): no frame", q, tlen, fsz);
        return;
    }
    len = tlen - fsz;
    if (gather) {
        ok = dbb_octep_gather(s, q, dptr, gsz, len);
    } else {
        ok = dbb_truth_dma_read(&s->truth, dptr, s->frame, len, "TX data", q);
    }
    if (!ok) {
        return;
    }
    dbb_octep_gt_add(s, DBB_OGT_TX_FRAMES, q, 1);
    dbb_octep_gt_add(s, DBB_OGT_TX_BYTES, q, len);
    *dbb_octep_rreg(s, q, R_IN_PKT_CNT) += 1;
    *dbb_octep_rreg(s, q, R_IN_BYTE_CNT) += len;
    if (len < DBB_MIN_FRAME) {
        memset(s->frame + len, 0, DBB_MIN_FRAME - len);
        len = DBB_MIN_FRAME;
    }
    qemu_send_packet(qemu_get_queue(s->nic), s->frame, len);
}

static void dbb_octep_in_process(DbbOctepState *s, int q)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t base = *dbb_octep_rreg(s, q, R_IN_INSTR_BADDR);
    uint32_t size = *dbb_octep_rreg(s, q, R_IN_INSTR_RSIZE);
    uint8_t instr[DBB_IQ_INSTR_SIZE];
    uint32_t n;

    if (!(*dbb_octep_rreg(s, q, R_IN_ENABLE) & 1) || r->in_stopped ||
        !r->in_dbell || q >= s->num_rings || s->tx_hold) {
        return;
    }
    if (size == 0 || size > DBB_OCTEP_MAX_RING) {
        dbb_octep_guest_error(s, "ring %d: IN_INSTR_RSIZE %u (1 to %d)",
                              q, size, DBB_OCTEP_MAX_RING);
        r->in_stopped = true;
        return;
    }
    if (r->in_rd >= size) {
        r->in_rd = 0;
    }
    s->busy = true;
    /* At most one ring of instructions per doorbell write. */
    for (n = 0; n < size && r->in_dbell; n++) {
        if (!dbb_truth_dma_read(&s->truth, base + (uint64_t)r->in_rd *
                                DBB_IQ_INSTR_SIZE, instr, sizeof(instr),
                                "instruction fetch", q)) {
            r->in_stopped = true;
            break;
        }
        r->in_rd = (r->in_rd + 1) % size;
        r->in_dbell--;
        r->in_cnts++;
        dbb_octep_gt_add(s, DBB_OGT_IN_INSTR, q, 1);
        dbb_octep_tx_one(s, q, instr);
    }
    s->busy = false;
    dbb_octep_in_irq(s, q);
}

/* tx-hold released: what the doorbells announced meanwhile is fetched */
void dbb_octep_in_resume(DbbOctepState *s)
{
    int q;

    for (q = 0; q < s->num_rings; q++) {
        dbb_octep_in_process(s, q);
    }
}

/* ---- output ring --------------------------------------------------------- */

static void dbb_octep_out_ack(DbbOctepState *s, int q, uint32_t n)
{
    DbbOctepRing *r = &s->ring[q];

    if (n > r->out_cnts) {
        dbb_octep_guest_error(s, "ring %d: OUT_CNTS: subtracting %u from %u",
                              q, n, r->out_cnts);
        n = r->out_cnts;
    }
    r->out_cnts -= n;
    r->seq_acked = MIN(r->seq_acked + n, r->seq_written);
}

/*
 * The flow hash the coprocessor steers by (a stand-in for its RSS):
 * IPv4/IPv6 addresses, plus TCP/UDP ports when present; 0 for anything
 * else.  FNV-1a over those bytes.
 */
static uint32_t dbb_octep_flow_hash(const uint8_t *buf, size_t size)
{
    uint32_t h = 2166136261u;
    size_t l3 = 14, addrs, alen, l4 = 0, i;
    uint16_t type;
    uint8_t proto;

    if (size < l3) {
        return 0;
    }
    type = lduw_be_p(buf + 12);
    if (type == 0x8100 && size >= 18) {
        type = lduw_be_p(buf + 16);
        l3 = 18;
    }
    if (type == 0x0800 && size >= l3 + 20) {
        size_t ihl = (buf[l3] & 0xF) * 4;

        proto = buf[l3 + 9];
        addrs = l3 + 12;
        alen = 8;
        /* ports only in the first fragment of an unfragmented datagram */
        if (ihl >= 20 && !(lduw_be_p(buf + l3 + 6) & 0x3FFF)) {
            l4 = l3 + ihl;
        }
    } else if (type == 0x86DD && size >= l3 + 40) {
        proto = buf[l3 + 6];
        addrs = l3 + 8;
        alen = 32;
        l4 = l3 + 40;
    } else {
        return 0;
    }
    for (i = 0; i < alen; i++) {
        h = (h ^ buf[addrs + i]) * 16777619u;
    }
    if (l4 && (proto == 6 || proto == 17) && size >= l4 + 4) {
        for (i = 0; i < 4; i++) {
            h = (h ^ buf[l4 + i]) * 16777619u;
        }
    }
    return h ? h : 1;
}

/*
 * The output ring a frame goes to: with rx-spread, IP flows by their
 * hash over the enabled rings; anything else (and everything without
 * rx-spread) to the lowest enabled ring.  -1: none enabled.
 */
static int dbb_octep_rx_ring(DbbOctepState *s, const uint8_t *buf,
                             size_t size)
{
    uint8_t enabled[DBB_OCTEP_MAX_RINGS];
    uint32_t hash;
    unsigned q, n = 0;

    for (q = 0; q < s->num_rings; q++) {
        if (*dbb_octep_rreg(s, q, R_OUT_ENABLE) & 1) {
            enabled[n++] = q;
        }
    }
    if (!n) {
        return -1;
    }
    hash = s->rx_spread ? dbb_octep_flow_hash(buf, size) : 0;
    return enabled[hash % n];
}

/*
 * Fetch buffers, 16 at a time, while the credit is at the watermark: the
 * block reads their descriptors now and writes to those addresses later,
 * whatever the host puts in the descriptors meanwhile.
 */
static void dbb_octep_fetch(DbbOctepState *s, int q, uint32_t need)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t base = *dbb_octep_rreg(s, q, R_OUT_SLIST_BADDR);
    uint8_t desc[DBB_OQ_DESC_SIZE];
    uint32_t i;

    while (r->out_avail < need && r->out_credit >= s->wmark &&
           r->out_credit >= DBB_OQ_FETCH) {
        for (i = 0; i < DBB_OQ_FETCH; i++) {
            bool ok = dbb_truth_dma_read(&s->truth, base +
                                         (uint64_t)r->out_fetch *
                                         DBB_OQ_DESC_SIZE, desc, sizeof(desc),
                                         "descriptor fetch", q);

            r->slot_addr[r->out_fetch] = ok ? ldq_le_p(desc) : DBB_OQ_NO_ADDR;
            if (++r->out_fetch == r->out_size) {
                r->out_fetch = 0;
            }
        }
        r->out_credit -= DBB_OQ_FETCH;
        r->out_avail += DBB_OQ_FETCH;
        dbb_octep_gt_add(s, DBB_OGT_FETCHES, q, 1);
        dbb_octep_gt_add(s, DBB_OGT_BUFFERS_FETCHED, q, DBB_OQ_FETCH);
        dbb_octep_gt_add(s, DBB_OGT_CREDIT_FETCHED, q, DBB_OQ_FETCH);
    }
}

/*
 * The block writes buffer out_wr; was a frame there the host never read?
 * Read means acknowledged through OUT_CNTS, or its buffer given back as
 * credit: octeon_ep acknowledges only when NAPI completes (a ring's worth
 * late under load) but returns each buffer's credit once it has read it.
 */
static void dbb_octep_claim_slot(DbbOctepState *s, DbbOctepRing *r, int q)
{
    uint64_t old = r->slot_seq[r->out_wr];
    bool returned = r->buf_written >= r->out_size &&
                    r->buf_written - r->out_size < r->buf_returned;

    r->buf_written++;
    if (old > r->seq_acked && !returned) {
        if (old != r->last_lost_seq) {
            r->last_lost_seq = old;
            dbb_octep_gt_add(s, DBB_OGT_OVERWRITTEN, q, 1);
        }
        if (r->lap_round != r->wr_round + 1) {
            r->lap_round = r->wr_round + 1;
            dbb_octep_gt_add(s, DBB_OGT_LAPS, q, 1);
        }
    }
    r->slot_seq[r->out_wr] = r->seq_written + 1;
    if (++r->out_wr == r->out_size) {
        r->out_wr = 0;
        r->wr_round++;
    }
}

/* The rx-skip fault: fetched buffers passed over, nothing written. */
static void dbb_octep_rx_pass_over(DbbOctepState *s, int q, uint32_t n)
{
    DbbOctepRing *r = &s->ring[q];
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint32_t slot = r->out_wr;

        dbb_octep_claim_slot(s, r, q);
        r->slot_seq[slot] = 0;          /* no frame there */
    }
    r->out_avail -= n;
    s->rx_skip -= n;
    dbb_octep_gt_add(s, DBB_OGT_RX_SKIPPED, q, n);
}

static void dbb_octep_rx_write(DbbOctepState *s, int q, const uint8_t *buf,
                               size_t size, uint32_t nbuf, uint32_t bsize,
                               uint32_t hdr)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t base = *dbb_octep_rreg(s, q, R_OUT_SLIST_BADDR);
    uint32_t total = hdr + size, done = 0, i;
    uint8_t desc[DBB_OQ_DESC_SIZE];
    uint8_t head[16] = { 0 };
    bool ok = true;

    /* Big-endian length (of what follows, with the offload header). */
    stq_be_p(head, size + hdr - 8);
    s->busy = true;
    for (i = 0; i < nbuf; i++) {
        uint32_t chunk = MIN(bsize, total - done);
        uint64_t addr = r->slot_addr[r->out_wr];

        /*
         * A descriptor that no longer holds what was fetched: the host
         * reused a buffer the block holds (an over-grant's lap does
         * this).  The write goes where the fetch said, as on silicon.
         */
        if (addr != DBB_OQ_NO_ADDR &&
            dbb_truth_dma_read(&s->truth, base + (uint64_t)r->out_wr *
                               DBB_OQ_DESC_SIZE, desc, sizeof(desc),
                               "descriptor check", q) &&
            ldq_le_p(desc) != addr) {
            dbb_octep_gt_add(s, DBB_OGT_DESC_CHANGED, q, 1);
            if (!r->desc_warned) {
                r->desc_warned = true;
                qemu_log_mask(LOG_GUEST_ERROR, "dbb-octep: ring %d: buffer "
                              "%u: descriptor rewritten after the block "
                              "fetched it (0x%" PRIx64 " then 0x%" PRIx64
                              "); counted in desc_changed\n", q, r->out_wr,
                              addr, ldq_le_p(desc));
            }
        }
        dbb_octep_claim_slot(s, r, q);
        if (!ok || addr == DBB_OQ_NO_ADDR) {
            ok = false;
            continue;
        }
        if (done < hdr) {
            /* The first buffer holds the header (bsize >= hdr). */
            ok = dbb_truth_dma_write(&s->truth, addr, head, hdr,
                                     "RX header", q) &&
                 dbb_truth_dma_write(&s->truth, addr + hdr, buf, chunk - hdr,
                                     "RX data", q);
        } else {
            ok = dbb_truth_dma_write(&s->truth, addr, buf + done - hdr, chunk,
                                     "RX data", q);
        }
        done += chunk;
    }
    s->busy = false;
    r->out_avail -= nbuf;
    dbb_octep_gt_add(s, DBB_OGT_RX_BUFFERS, q, nbuf);
    if (!ok) {
        return;         /* buffers spent, no packet counted */
    }
    r->seq_written++;
    dbb_octep_gt_add(s, DBB_OGT_RX_FRAMES, q, 1);
    dbb_octep_gt_add(s, DBB_OGT_RX_BYTES, q, size);
    if (s->cnts_lose) {
        /* written, never counted: nothing for the host to acknowledge */
        s->cnts_lose--;
        dbb_octep_gt_add(s, DBB_OGT_RX_UNCOUNTED, q, 1);
        return;
    }
    r->out_cnts++;
    *dbb_octep_rreg(s, q, R_OUT_PKT_CNT) += 1;
    *dbb_octep_rreg(s, q, R_OUT_BYTE_CNT) += size;
    dbb_octep_out_irq(s, q, false);
}

ssize_t dbb_octep_receive(NetClientState *nc, const uint8_t *buf,
                          size_t size)
{
    DbbOctepState *s = qemu_get_nic_opaque(nc);
    uint32_t hdr = (s->mbox_proto == 2 && s->rx_offloads) ? 16 : 8;
    uint32_t bsize, nbuf, skip;
    DbbOctepRing *r;
    int q;

    q = dbb_octep_rx_ring(s, buf, size);
    if (q < 0 || q >= DBB_OCTEP_MAX_RINGS || nc->link_down || s->busy) {
        dbb_octep_gt_add(s, DBB_OGT_RX_OFF_DROPS, 0, 1);
        return size;
    }
    r = &s->ring[q];
    bsize = *dbb_octep_rreg(s, q, R_OUT_CONTROL) & OUT_CTL_BSIZE_MASK;
    if (!r->out_size || bsize < 16 || size > DBB_OCTEP_MAX_FRAME) {
        if (!r->out_size || bsize < 16) {
            dbb_octep_guest_error(s, "ring %d: output ring of %u buffers of "
                                  "%u bytes: frame dropped", q, r->out_size,
                                  bsize);
        }
        dbb_octep_gt_add(s, DBB_OGT_RX_REFUSED, q, 1);
        return size;
    }
    nbuf = DIV_ROUND_UP(hdr + size, bsize);
    if (nbuf > r->out_size) {
        dbb_octep_gt_add(s, DBB_OGT_RX_REFUSED, q, 1);
        return size;
    }
    skip = MIN(s->rx_skip, r->out_size - nbuf);
    dbb_octep_fetch(s, q, nbuf + skip);
    if (r->out_avail < nbuf + skip) {
        dbb_octep_gt_add(s, DBB_OGT_RX_REFUSED, q, 1);
        return size;
    }
    dbb_octep_rx_pass_over(s, q, skip);
    dbb_octep_rx_write(s, q, buf, size, nbuf, bsize, hdr);
    return size;
}

/* ---- registers ----------------------------------------------------------- */

uint64_t dbb_octep_ring_read(DbbOctepState *s, int q, hwaddr off)
{
    DbbOctepRing *r = &s->ring[q];

    switch (off) {
    case R_IN_CONTROL:
        return *dbb_octep_rreg(s, q, off) | IN_CTL_IDLE;
    case R_OUT_CONTROL:
        return *dbb_octep_rreg(s, q, off) | OUT_CTL_IDLE;
    case R_IN_INSTR_DBELL:
        return r->in_dbell;
    case R_IN_CNTS:
        return r->in_cnts;
    case R_OUT_CNTS:
        return r->out_cnts;
    case R_OUT_SLIST_DBELL:
        return r->out_credit;
    case R_ERR_TYPE:
        return 0;
    }
    if (off >= R_MBOX_FIRST && off <= R_MBOX_LAST) {
        return 0;
    }
    if (off < DBB_RING_REGS) {
        return *dbb_octep_rreg(s, q, off);
    }
    return 0;
}

static void dbb_octep_in_dbell_write(DbbOctepState *s, int q, uint32_t v)
{
    DbbOctepRing *r = &s->ring[q];
    uint32_t size = *dbb_octep_rreg(s, q, R_IN_INSTR_RSIZE);

    dbb_octep_gt_add(s, DBB_OGT_IN_DBELL_WRITES, q, 1);
    if (v == DBELL_CLEAR) {
        r->in_dbell = 0;
        return;
    }
    if (v == 0) {
        dbb_octep_gt_add(s, DBB_OGT_IN_DBELL_NOOP, q, 1);
        return;
    }
    if ((uint64_t)r->in_dbell + v > size) {
        dbb_octep_guest_error(s, "ring %d: IN_INSTR_DBELL %u + %u exceeds "
                              "the ring (%u)", q, r->in_dbell, v, size);
    }
    r->in_dbell = MIN((uint64_t)r->in_dbell + v, UINT32_MAX - 1);
    dbb_octep_in_process(s, q);
}

static void dbb_octep_out_dbell_write(DbbOctepState *s, int q, uint32_t v)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t held;

    dbb_octep_gt_add(s, DBB_OGT_OUT_DBELL_WRITES, q, 1);
    if (v == DBELL_CLEAR) {
        r->out_credit = 0;
        return;
    }
    if (v == 0) {
        dbb_octep_gt_add(s, DBB_OGT_OUT_DBELL_NOOP, q, 1);
        return;
    }
    dbb_octep_gt_add(s, DBB_OGT_CREDIT_GRANTED, q, v);
    r->out_credit = MIN((uint64_t)r->out_credit + v, UINT32_MAX - 1);
    /* Only a credit write raises what the block holds; fetches move it. */
    held = (uint64_t)r->out_credit + r->out_avail;
    if (held > s->gt[DBB_OGT_OUTSTANDING_MAX][q]) {
        s->gt[DBB_OGT_OUTSTANDING_MAX][q] = held;
    }
    /*
     * Credit given once buffers were written returns the oldest of them;
     * more than was written is an advance (an over-grant), not a return.
     */
    r->buf_returned = MIN(r->buf_returned + v, r->buf_written);
}

void dbb_octep_ring_write(DbbOctepState *s, int q, hwaddr off,
                          uint64_t val, uint64_t mask)
{
    DbbOctepRing *r = &s->ring[q];
    uint64_t *reg = off < DBB_RING_REGS ? dbb_octep_rreg(s, q, off) : NULL;
    uint64_t old = reg ? *reg : 0;
    bool lo = mask & 0xFFFFFFFFULL;

    switch (off) {
    case R_IN_INSTR_DBELL:
        if (lo) {
            dbb_octep_in_dbell_write(s, q, val);
        }
        return;
    case R_OUT_SLIST_DBELL:
        if (lo) {
            dbb_octep_out_dbell_write(s, q, val);
        }
        return;
    case R_IN_CNTS:
        if (lo) {
            if ((uint32_t)val > r->in_cnts) {
                dbb_octep_guest_error(s, "ring %d: IN_CNTS: subtracting %u "
                                      "from %u", q, (uint32_t)val,
                                      r->in_cnts);
            }
            r->in_cnts -= MIN((uint32_t)val, r->in_cnts);
        }
        if (val & mask & CNTS_RESEND) {
            r->in_irq_armed = true;
            dbb_octep_in_irq(s, q);
        }
        return;
    case R_OUT_CNTS:
        if (lo) {
            dbb_octep_out_ack(s, q, val);
        }
        if (val & mask & CNTS_RESEND) {
            r->out_irq_armed = true;
            dbb_octep_out_irq(s, q, false);
        }
        return;
    case R_ERR_TYPE:
        return;
    }
    if (off >= R_MBOX_FIRST && off <= R_MBOX_LAST) {
        return;
    }
    if (!reg) {
        return;
    }
    if ((off == R_OUT_SLIST_BADDR || off == R_OUT_SLIST_RSIZE) &&
        (*dbb_octep_rreg(s, q, R_OUT_ENABLE) & 1)) {
        dbb_octep_guest_error(s, "ring %d: OUT_SLIST_%s written while the "
                              "ring is enabled: ignored", q,
                              off == R_OUT_SLIST_BADDR ? "BADDR" : "RSIZE");
        return;
    }
    *reg = (old & ~mask) | (val & mask);
    switch (off) {
    case R_IN_INSTR_BADDR:
    case R_IN_INSTR_RSIZE:
        r->in_rd = 0;
        r->in_stopped = false;
        break;
    case R_IN_ENABLE:
        if ((*reg & 1) && !(old & 1)) {
            r->in_stopped = false;
            dbb_octep_in_process(s, q);
        }
        break;
    case R_IN_INT_LEVELS:
        if ((*reg & INT_LEVELS_ENA) && !(old & INT_LEVELS_ENA)) {
            r->in_irq_armed = true;
        }
        break;
    case R_OUT_SLIST_BADDR:
    case R_OUT_SLIST_RSIZE:
        /*
         * Any write restarts the ring at buffer 0, the same value too:
         * a reopened port often gets its old descriptor ring back from
         * the DMA allocator, and its read index starts at 0 again.
         */
        dbb_octep_out_start(s, q);
        if (off == R_OUT_SLIST_RSIZE &&
            (*reg == 0 || *reg > DBB_OCTEP_MAX_RING ||
             *reg % DBB_OQ_FETCH)) {
            dbb_octep_guest_error(s, "ring %d: OUT_SLIST_RSIZE %" PRIu64
                                  ": a multiple of %d from %d to %d; the "
                                  "ring takes no frame", q, *reg,
                                  DBB_OQ_FETCH, DBB_OQ_FETCH,
                                  DBB_OCTEP_MAX_RING);
        }
        if (off == R_OUT_SLIST_BADDR && *reg % DBB_OQ_DESC_SIZE) {
            dbb_octep_guest_error(s, "ring %d: OUT_SLIST_BADDR 0x%" PRIx64
                                  " not %d-byte aligned; the ring takes no "
                                  "frame", q, *reg, DBB_OQ_DESC_SIZE);
        }
        break;
    case R_OUT_ENABLE:
        if ((*reg & 1) && !(old & 1) &&
            r->out_size != (uint32_t)*dbb_octep_rreg(s, q,
                                                      R_OUT_SLIST_RSIZE)) {
            dbb_octep_out_start(s, q);
        }
        break;
    case R_OUT_INT_LEVELS:
        if ((*reg & INT_LEVELS_ENA) && !(old & INT_LEVELS_ENA)) {
            r->out_irq_armed = true;
        }
        break;
    }
}
