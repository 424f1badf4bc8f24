// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch transmit: ring setup, the stack's transmit (checksum and TSO
 * context descriptors, scatter-gather), completion with BQL.
 *
 * Each packet takes an optional context descriptor, then data descriptors
 * of at most 32 KB each; the last has EOP and RS.  bufs[] mirrors the
 * ring: the packet's first slot holds the skb (or XDP frame) and the
 * pointer to its last descriptor, and every slot whose descriptor starts a
 * mapped piece records that mapping.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>

#include "igcb.h"

#define IGCB_TXF_VLAN		BIT(0)
#define IGCB_TXF_TSO		BIT(1)
#define IGCB_TXF_CSUM		BIT(2)
#define IGCB_TXF_IPV4		BIT(3)

int igcb_tx_ring_alloc(struct igcb_tx_ring *ring)
{
	ring->bufs = kvcalloc(ring->count, sizeof(*ring->bufs), GFP_KERNEL);
	if (!ring->bufs)
		return -ENOMEM;
	ring->size = ALIGN(ring->count * sizeof(union igcb_tx_desc), 4096);
	ring->desc = dma_alloc_coherent(ring->dev, ring->size, &ring->dma,
					GFP_KERNEL);
	if (!ring->desc) {
		kvfree(ring->bufs);
		ring->bufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

void igcb_tx_ring_free(struct igcb_tx_ring *ring)
{
	igcb_tx_ring_drop_all(ring);
	if (ring->desc)
		dma_free_coherent(ring->dev, ring->size, ring->desc, ring->dma);
	ring->desc = NULL;
	kvfree(ring->bufs);
	ring->bufs = NULL;
}

void igcb_tx_unmap(struct igcb_tx_ring *ring, struct igcb_tx_buf *b)
{
	if (!b->len)
		return;
	if (b->map_page)
		dma_unmap_page(ring->dev, b->dma, b->len, DMA_TO_DEVICE);
	else
		dma_unmap_single(ring->dev, b->dma, b->len, DMA_TO_DEVICE);
	b->len = 0;
}

/* @bq: XDP frames are gathered there when given (the caller flushes it,
 * under rcu_read_lock()), else returned one by one.
 */
static void igcb_tx_free_payload(struct igcb_tx_buf *first, int napi_budget,
				 struct xdp_frame_bulk *bq)
{
	switch (first->kind) {
	case IGCB_TXB_SKB:
		napi_consume_skb(first->skb, napi_budget);
		break;
	case IGCB_TXB_XDP:
		/* A page_pool's frames (another driver's) in bulk: the
		 * pool's ring lock once per 16 pages.  Ours, and other
		 * shared pages, go back with a put_page() each (asking
		 * here saves the bulk's call).
		 */
		if (bq && first->xdpf->mem.type == MEM_TYPE_PAGE_POOL)
			xdp_return_frame_bulk(first->xdpf, bq);
		else
			xdp_return_frame(first->xdpf);
		break;
	}
	first->skb = NULL;
}

/**
 * igcb_tx_ring_drop_all - free every packet still on the ring
 * @ring: a ring the hardware no longer reads (disabled or reset)
 */
void igcb_tx_ring_drop_all(struct igcb_tx_ring *ring)
{
	unsigned int i;

	if (!ring->bufs)
		return;
	for (i = 0; i < ring->count; i++) {
		struct igcb_tx_buf *b = &ring->bufs[i];

		igcb_tx_unmap(ring, b);
		if (b->eop) {
			igcb_tx_free_payload(b, 0, NULL);
			b->eop = NULL;
		}
	}
	netdev_tx_reset_queue(netdev_get_tx_queue(ring->netdev, ring->qid));
	ring->next_to_use = 0;
	ring->next_to_clean = 0;
	ring->tail_written = 0;
}

/**
 * igcb_tx_ring_configure - program a TX ring after a reset
 * @ring: the ring, allocated and empty
 */
void igcb_tx_ring_configure(struct igcb_tx_ring *ring)
{
	struct igcb_hw *hw = &ring->adapter->hw;
	unsigned int n = ring->qid;

	igcb_wr32(hw, IGCB_TXDCTL(n), 0);
	igcb_wrflush(hw);
	igcb_wr32(hw, IGCB_TDBAL(n), lower_32_bits(ring->dma));
	igcb_wr32(hw, IGCB_TDBAH(n), upper_32_bits(ring->dma));
	igcb_wr32(hw, IGCB_TDLEN(n), ring->count * sizeof(union igcb_tx_desc));
	igcb_wr32(hw, IGCB_TDH(n), 0);
	ring->tdt = hw->io + IGCB_TDT(n);
	memset(ring->desc, 0, ring->size);
	memset(ring->bufs, 0, ring->count * sizeof(*ring->bufs));
	igcb_doorbell_tx_init(ring);
	igcb_hang_reset(&ring->hang);
	netdev_tx_reset_queue(ring->dbq.txq);

	/* Prefetch 8 descriptors ahead; write back completions 16 at a time
	 * (RS is set on every packet, so this only batches the DD writes).
	 */
	igcb_wr32(hw, IGCB_TXDCTL(n),
		  FIELD_PREP(IGCB_XDCTL_PTHRESH, 8) |
		  FIELD_PREP(IGCB_XDCTL_HTHRESH, 1) |
		  FIELD_PREP(IGCB_XDCTL_WTHRESH, 16) | IGCB_XDCTL_ENABLE);
}

void igcb_tx_ring_disable(struct igcb_tx_ring *ring)
{
	struct igcb_hw *hw = &ring->adapter->hw;
	u32 txdctl = igcb_rd32(hw, IGCB_TXDCTL(ring->qid));

	txdctl &= ~IGCB_XDCTL_ENABLE;
	igcb_wr32(hw, IGCB_TXDCTL(ring->qid), txdctl | IGCB_XDCTL_SWFLUSH);
}

void igcb_tx_setup_tctl(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	u32 tctl;

	tctl = igcb_rd32(hw, IGCB_TCTL);
	tctl &= ~(IGCB_TCTL_CT | IGCB_TCTL_COLD);
	tctl |= IGCB_TCTL_EN | IGCB_TCTL_PSP | IGCB_TCTL_RTLC |
		FIELD_PREP(IGCB_TCTL_CT, 15) | FIELD_PREP(IGCB_TCTL_COLD, 63);
	igcb_wr32(hw, IGCB_TCTL, tctl);
}

static u16 igcb_tx_next(const struct igcb_tx_ring *ring, u16 i)
{
	return ++i == ring->count ? 0 : i;
}

static void igcb_tx_ctx(struct igcb_tx_ring *ring, u32 vlan_macip_lens,
			u32 tucmd, u32 mss_l4len)
{
	struct igcb_tx_ctx_desc *ctx;

	ctx = (struct igcb_tx_ctx_desc *)&ring->desc[ring->next_to_use];
	ctx->vlan_macip_lens = cpu_to_le32(vlan_macip_lens);
	ctx->launch_time = 0;
	ctx->type_tucmd_mlhl = cpu_to_le32(tucmd | IGCB_TXD_CMD_DEXT |
					   IGCB_TXD_DTYP_CTXT);
	ctx->mss_l4len_idx = cpu_to_le32(mss_l4len);
	ring->next_to_use = igcb_tx_next(ring, ring->next_to_use);
}

/* TSO: the hardware cuts the TCP payload into gso_size segments and fixes
 * up lengths and checksums; it wants the TCP checksum seeded with the
 * pseudo-header without the length, and zero IP lengths.
 */
static int igcb_tx_tso(struct igcb_tx_ring *ring, struct igcb_tx_buf *first,
		       u32 *flags, u8 *hdr_len)
{
	struct sk_buff *skb = first->skb;
	unsigned int l4_off, ip_off, paylen;
	u32 tucmd = IGCB_CTX_TUCMD_L4T_TCP;
	struct tcphdr *th;
	int err;

	if (skb->ip_summed != CHECKSUM_PARTIAL || !skb_is_gso(skb))
		return 0;
	if (!(skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		return 0;
	err = skb_cow_head(skb, 0);
	if (err < 0)
		return err;

	ip_off = skb_network_offset(skb);
	l4_off = skb_checksum_start_offset(skb);
	th = (struct tcphdr *)skb_checksum_start(skb);

	if (ip_hdr(skb)->version == 4) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = 0;
		iph->check = 0;
		tucmd |= IGCB_CTX_TUCMD_IPV4;
		*flags |= IGCB_TXF_TSO | IGCB_TXF_CSUM | IGCB_TXF_IPV4;
	} else {
		ipv6_hdr(skb)->payload_len = 0;
		*flags |= IGCB_TXF_TSO | IGCB_TXF_CSUM;
	}

	paylen = skb->len - l4_off;
	csum_replace_by_diff(&th->check, (__force __wsum)htonl(paylen));
	*hdr_len = l4_off + th->doff * 4;

	first->segs = skb_shinfo(skb)->gso_segs;
	first->bytes += (first->segs - 1) * *hdr_len;

	igcb_tx_ctx(ring,
		    (l4_off - ip_off) | ip_off << IGCB_CTX_MACLEN_SHIFT |
		    (*flags & IGCB_TXF_VLAN ?
		     (u32)skb_vlan_tag_get(skb) << IGCB_CTX_VLAN_SHIFT : 0),
		    tucmd,
		    th->doff * 4 << IGCB_CTX_L4LEN_SHIFT |
		    (u32)skb_shinfo(skb)->gso_size << IGCB_CTX_MSS_SHIFT);
	return 1;
}

/* Checksum offload and VLAN insertion both need a context descriptor. */
static void igcb_tx_csum(struct igcb_tx_ring *ring, struct igcb_tx_buf *first,
			 u32 *flags)
{
	struct sk_buff *skb = first->skb;
	u32 vlan_macip_lens = 0, tucmd = 0;

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		switch (skb->csum_offset) {
		case offsetof(struct tcphdr, check):
			tucmd = IGCB_CTX_TUCMD_L4T_TCP;
			fallthrough;
		case offsetof(struct udphdr, check):
			*flags |= IGCB_TXF_CSUM;
			vlan_macip_lens = skb_checksum_start_offset(skb) -
					  skb_network_offset(skb);
			break;
		default:
			/* Only TCP and UDP are known to the hardware. */
			skb_checksum_help(skb);
			break;
		}
	}
	if (!(*flags & (IGCB_TXF_CSUM | IGCB_TXF_VLAN)))
		return;

	vlan_macip_lens |= skb_network_offset(skb) << IGCB_CTX_MACLEN_SHIFT;
	if (*flags & IGCB_TXF_VLAN)
		vlan_macip_lens |=
			(u32)skb_vlan_tag_get(skb) << IGCB_CTX_VLAN_SHIFT;
	igcb_tx_ctx(ring, vlan_macip_lens, tucmd, 0);
}

/* Undo the mappings of a packet that could not be completed. */
static void igcb_tx_unwind(struct igcb_tx_ring *ring, u16 first_idx)
{
	u16 i;

	for (i = first_idx; i != ring->next_to_use; i = igcb_tx_next(ring, i))
		igcb_tx_unmap(ring, &ring->bufs[i]);
	ring->next_to_use = first_idx;
}

/* Write the data descriptors of one mapped piece. */
static union igcb_tx_desc *igcb_tx_piece(struct igcb_tx_ring *ring,
					 dma_addr_t dma, unsigned int size,
					 u32 cmd, u32 *olinfo)
{
	union igcb_tx_desc *d = NULL;

	while (size) {
		unsigned int chunk = min_t(unsigned int, size,
					   IGCB_TXD_MAX_DATA);

		d = &ring->desc[ring->next_to_use];
		d->read.addr = cpu_to_le64(dma);
		d->read.cmd_type_len = cpu_to_le32(cmd | chunk);
		/* PAYLEN and offload bits go in the packet's first one only */
		d->read.olinfo_status = cpu_to_le32(*olinfo);
		*olinfo = 0;
		dma += chunk;
		size -= chunk;
		ring->next_to_use = igcb_tx_next(ring, ring->next_to_use);
	}
	return d;
}

static int igcb_tx_map(struct igcb_tx_ring *ring, struct igcb_tx_buf *first,
		       u16 first_idx, u32 flags, u8 hdr_len)
{
	struct sk_buff *skb = first->skb;
	struct skb_shared_info *sh = skb_shinfo(skb);
	union igcb_tx_desc *last = NULL, *d;
	u32 cmd, olinfo;
	unsigned int f;
	dma_addr_t dma;

	cmd = IGCB_TXD_DTYP_DATA | IGCB_TXD_CMD_DEXT | IGCB_TXD_CMD_IFCS;
	if (flags & IGCB_TXF_VLAN)
		cmd |= IGCB_TXD_CMD_VLE;
	if (flags & IGCB_TXF_TSO)
		cmd |= IGCB_TXD_CMD_TSE;
	if (unlikely(skb->no_fcs))
		cmd &= ~IGCB_TXD_CMD_IFCS;

	olinfo = (skb->len - hdr_len) << IGCB_TXD_PAYLEN_SHIFT;
	if (flags & IGCB_TXF_CSUM)
		olinfo |= IGCB_TXD_POPTS_TXSM;
	if (flags & IGCB_TXF_IPV4)
		olinfo |= IGCB_TXD_POPTS_IXSM;

	if (skb_headlen(skb)) {
		struct igcb_tx_buf *b = &ring->bufs[ring->next_to_use];

		dma = dma_map_single(ring->dev, skb->data, skb_headlen(skb),
				     DMA_TO_DEVICE);
		if (dma_mapping_error(ring->dev, dma))
			goto err;
		b->dma = dma;
		b->len = skb_headlen(skb);
		b->map_page = false;
		last = igcb_tx_piece(ring, dma, b->len, cmd, &olinfo);
	}

	for (f = 0; f < sh->nr_frags; f++) {
		const skb_frag_t *frag = &sh->frags[f];
		unsigned int size = skb_frag_size(frag);
		struct igcb_tx_buf *b;

		if (!size)
			continue;
		b = &ring->bufs[ring->next_to_use];
		dma = skb_frag_dma_map(ring->dev, frag, 0, size,
				       DMA_TO_DEVICE);
		if (dma_mapping_error(ring->dev, dma))
			goto err;
		b->dma = dma;
		b->len = size;
		b->map_page = true;
		d = igcb_tx_piece(ring, dma, size, cmd, &olinfo);
		last = d;
	}
	if (unlikely(!last) ||
	    unlikely(igcb_inject(ring->adapter, &ring->adapter->faults.tx_map)))
		goto err;

	last->read.cmd_type_len |= cpu_to_le32(IGCB_TXD_CMD_EOP |
					       IGCB_TXD_CMD_RS);
	skb_tx_timestamp(skb);
	first->stamp = jiffies;
	/* The descriptors must be complete before the cleaner sees eop. */
	smp_wmb();
	first->eop = last;
	return 0;

err:
	net_err_ratelimited("%s: TX DMA mapping failed\n",
			    netdev_name(ring->netdev));
	igcb_tx_unwind(ring, first_idx);
	return -ENOMEM;
}

static unsigned int igcb_tx_desc_count(const struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int n = DIV_ROUND_UP(skb_headlen(skb), IGCB_TXD_MAX_DATA);
	unsigned int f;

	for (f = 0; f < sh->nr_frags; f++)
		n += DIV_ROUND_UP(skb_frag_size(&sh->frags[f]),
				  IGCB_TXD_MAX_DATA);
	return n;
}

/* Under the queue's xmit lock, like every db counter. */
static void igcb_tx_count_restart(struct igcb_tx_ring *ring)
{
	u64_stats_update_begin(&ring->db_sync);
	ring->db.restarts++;
	u64_stats_update_end(&ring->db_sync);
}

/* Fewer than @need slots were free: stop the queue.  The barrier pairs
 * with the one in igcb_tx_reclaim(): either the cleaner sees the stopped
 * queue, or we see the room it made.
 */
static noinline int igcb_tx_stop(struct igcb_tx_ring *ring, unsigned int need)
{
	netif_tx_stop_queue(ring->dbq.txq);
	/* Stopped before we look again: pairs with igcb_tx_reclaim(). */
	smp_mb();
	if (likely(igcb_tx_unused(ring) < need))
		return -EBUSY;
	netif_tx_start_queue(ring->dbq.txq);
	igcb_tx_count_restart(ring);
	return 0;
}

/* Twice a packet: a test small enough to inline, the stop out of line. */
static int igcb_tx_maybe_stop(struct igcb_tx_ring *ring, unsigned int need)
{
	if (likely(igcb_tx_unused(ring) >= need))
		return 0;
	return igcb_tx_stop(ring, need);
}

/* Wake a queue igcb_tx_maybe_stop() stopped once it has room, with the
 * carrier on, and not once the port is going down.  Decided under the xmit
 * lock: igcb_down() sets DOWN before netif_tx_disable() takes this lock,
 * so a wake cannot undo the disable and let the stack transmit into rings
 * being freed (ethtool -G/-L, XDP attach and the self-test close the port
 * without detaching the qdisc first); and the cleaner (room) and the
 * watchdog (carrier) cannot both miss the other's change.  BH off: the
 * ring's NAPI poll or igcb_tx_wake_all().  netpoll's poll (@netpoll) runs
 * with IRQs off, maybe under this very lock (a message printed from our
 * transmit): it only tries the lock, and leaves the wake to the real poll
 * when it cannot have it.  A trylock is also what lockdep accepts from
 * hard IRQ for a lock taken elsewhere with IRQs on.
 */
static void igcb_tx_wake(struct igcb_tx_ring *ring, bool netpoll)
{
	struct netdev_queue *txq = ring->dbq.txq;

	if (!netpoll) {
		__netif_tx_lock(txq, smp_processor_id());
	} else if (!__netif_tx_trylock(txq)) {
		napi_schedule(&container_of(ring, struct igcb_q_vector,
					    tx)->napi);
		return;
	}
	if (netif_tx_queue_stopped(txq) && netif_carrier_ok(ring->netdev) &&
	    igcb_tx_unused(ring) >= IGCB_TX_WAKE &&
	    !test_bit(IGCB_DOWN, &ring->adapter->state)) {
		netif_tx_wake_queue(txq);
		igcb_tx_count_restart(ring);
	}
	__netif_tx_unlock(txq);
}

/**
 * igcb_tx_wake_all - wake the queues that filled while the carrier was off
 * @a: the port; from the watchdog, just after it turned the carrier on
 *
 * The cleaner wakes a full queue only with the carrier on: one that filled
 * just after igcb_up(), before the link was seen, and has nothing left to
 * complete would otherwise stay stopped until the transmit timeout.
 */
void igcb_tx_wake_all(struct igcb_adapter *a)
{
	unsigned int i;

	local_bh_disable();
	for (i = 0; i < a->num_queues; i++)
		igcb_tx_wake(&a->qv[i]->tx, false);
	local_bh_enable();
}

/* A dropped packet that was the last of a bulk (xmit_more clear) was the
 * one to ring for those queued before it with xmit_more.
 */
static void igcb_tx_drop_publish(struct igcb_tx_ring *ring)
{
	u64_stats_update_begin(&ring->db_sync);
	ring->db.dropped++;
	u64_stats_update_end(&ring->db_sync);
	if (!netdev_xmit_more())
		igcb_doorbell_tx_publish(ring);
}

static netdev_tx_t igcb_tx_frame(struct igcb_tx_ring *ring,
				 struct sk_buff *skb)
{
	u16 first_idx = ring->next_to_use;
	struct igcb_tx_buf *first;
	u32 flags = 0;
	u8 hdr_len = 0;
	int tso;

	/* data descriptors, a context descriptor, a two-slot gap */
	if (igcb_tx_maybe_stop(ring, igcb_tx_desc_count(skb) + 3)) {
		u64_stats_update_begin(&ring->db_sync);
		ring->db.busy++;
		u64_stats_update_end(&ring->db_sync);
		/* The stack retries this one later: publish the earlier. */
		igcb_doorbell_tx_publish(ring);
		return NETDEV_TX_BUSY;
	}

	first = &ring->bufs[first_idx];
	first->skb = skb;
	first->kind = IGCB_TXB_SKB;
	first->bytes = skb->len;
	first->segs = 1;
	if (skb_vlan_tag_present(skb))
		flags |= IGCB_TXF_VLAN;

	tso = igcb_tx_tso(ring, first, &flags, &hdr_len);
	if (tso < 0)
		goto drop;
	if (!tso)
		igcb_tx_csum(ring, first, &flags);
	if (igcb_tx_map(ring, first, first_idx, flags, hdr_len))
		goto drop;

	/* Room for the next packet, then BQL and the doorbell. */
	igcb_tx_maybe_stop(ring, IGCB_TX_DESC_NEEDED);
	igcb_doorbell_tx_sent(ring, first->bytes);
	return NETDEV_TX_OK;

drop:
	ring->next_to_use = first_idx;
	first->skb = NULL;
	dev_kfree_skb_any(skb);
	igcb_tx_drop_publish(ring);
	return NETDEV_TX_OK;
}

netdev_tx_t igcb_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct igcb_adapter *a = netdev_priv(netdev);
	unsigned int q = skb_get_queue_mapping(skb);

	/* The stack keeps to real_num_tx_queues, num_queues on a running
	 * port; a ring past them is not this xmit lock's to write.
	 */
	if (unlikely(q >= a->num_queues)) {
		dev_core_stats_tx_dropped_inc(netdev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	/* With TCTL.PSP the hardware pads to 64 but needs 17 bytes. */
	if (skb_put_padto(skb, 17)) {
		igcb_tx_drop_publish(&a->qv[q]->tx);
		return NETDEV_TX_OK;
	}
	return igcb_tx_frame(&a->qv[q]->tx, skb);
}

/* The last descriptor of the packet at @i if the hardware is done with
 * it, else NULL (nothing queued there, or not sent yet).
 */
static union igcb_tx_desc *igcb_tx_done(const struct igcb_tx_ring *ring,
					u16 i)
{
	union igcb_tx_desc *eop = READ_ONCE(ring->bufs[i].eop);

	if (!eop)
		return NULL;
	/* Read the descriptor only after eop was seen set. */
	smp_rmb();
	if (!(READ_ONCE(eop->wb.status) & cpu_to_le32(IGCB_TXD_STAT_DD)))
		return NULL;
	return eop;
}

/* Reclaim the completed packets from next_to_clean on, the first ending at
 * @eop.  Out of line: the kernel zeroes its frame bulk (INIT_STACK_ALL_ZERO)
 * and guards its stack on every entry, which a poll that finds nothing
 * completed (a receiving port's, one per interrupt) need not pay for.
 * Return: true if everything completed was reclaimed within the budget.
 */
static noinline bool igcb_tx_reclaim(struct igcb_tx_ring *ring,
				     union igcb_tx_desc *eop, int napi_budget)
{
	unsigned int budget = IGCB_TX_CLEAN_BUDGET;
	unsigned int pkts = 0, bytes = 0;
	u16 i = ring->next_to_clean;
	struct xdp_frame_bulk bq;
	struct igcb_q_vector *qv;

	xdp_frame_bulk_init(&bq);
	/* The bulk looks the frames' memory model up under RCU. */
	rcu_read_lock();
	do {
		struct igcb_tx_buf *first = &ring->bufs[i];
		u16 last;

		/* netpoll (budget 0, IRQs may be off) must not return XDP
		 * frames: napi.rst.  They wait for the next NAPI pass.
		 */
		if (!napi_budget && first->kind == IGCB_TXB_XDP)
			break;
		first->eop = NULL;
		pkts += first->segs;
		bytes += first->bytes;

		/* Unmapped before freed: a bulk may hand pages back at once. */
		last = eop - ring->desc;
		for (;;) {
			igcb_tx_unmap(ring, &ring->bufs[i]);
			if (i == last)
				break;
			i = igcb_tx_next(ring, i);
		}
		igcb_tx_free_payload(first, napi_budget, &bq);
		i = igcb_tx_next(ring, i);
		budget--;
	} while (budget && (eop = igcb_tx_done(ring, i)));
	xdp_flush_frame_bulk(&bq);
	rcu_read_unlock();

	WRITE_ONCE(ring->next_to_clean, i);
	netdev_tx_completed_queue(ring->dbq.txq, pkts, bytes);

	u64_stats_update_begin(&ring->clean_sync);
	ring->cs.packets += pkts;
	ring->cs.bytes += bytes;
	u64_stats_update_end(&ring->clean_sync);
	qv = container_of(ring, struct igcb_q_vector, tx);
	qv->itr_work.tx_pkts += pkts;
	qv->itr_work.tx_bytes += bytes;
	/* next_to_clean before the stopped test: pairs with
	 * igcb_tx_maybe_stop() (BQL's barrier above is not always built in).
	 */
	smp_mb();
	return budget != 0;
}

/**
 * igcb_tx_clean - reclaim completed packets
 * @ring: the ring, from its queue vector's NAPI poll
 * @napi_budget: the poll's budget (0 from netpoll)
 *
 * Return: true if everything completed was reclaimed within the budget.
 */
bool igcb_tx_clean(struct igcb_tx_ring *ring, int napi_budget)
{
	union igcb_tx_desc *eop;
	bool done = true;

	if (unlikely(test_bit(IGCB_DOWN, &ring->adapter->state)))
		return true;

	/* Nothing completed (a receiving port's pass): no bulk, no RCU. */
	eop = igcb_tx_done(ring, ring->next_to_clean);
	if (eop)
		done = igcb_tx_reclaim(ring, eop, napi_budget);

	/* Also with nothing new: a wake netpoll could not make is ours. */
	if (unlikely(netif_tx_queue_stopped(ring->dbq.txq)) &&
	    igcb_tx_unused(ring) >= IGCB_TX_WAKE)
		igcb_tx_wake(ring, !napi_budget);
	return done;
}

/* Headers a context descriptor cannot describe go without offloads. */
netdev_features_t igcb_features_check(struct sk_buff *skb,
				      struct net_device *netdev,
				      netdev_features_t features)
{
	unsigned int mac_len = skb_network_header(skb) - skb->data;

	if (unlikely(mac_len > IGCB_MAX_MAC_HDR_LEN))
		return features & ~(NETIF_F_HW_CSUM | NETIF_F_TSO |
				    NETIF_F_TSO6 | NETIF_F_HW_VLAN_CTAG_TX);
	if (skb->ip_summed == CHECKSUM_PARTIAL &&
	    unlikely(skb_checksum_start(skb) - skb_network_header(skb) >
		     IGCB_MAX_NET_HDR_LEN))
		return features & ~(NETIF_F_HW_CSUM | NETIF_F_TSO |
				    NETIF_F_TSO6);
	return features;
}
