// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch receive: the rings, the NAPI receive pass, checksum, RSS hash
 * and VLAN from the descriptor, frames over several buffers (jumbo), RSS
 * configuration.
 *
 * Every buffer is a whole page: XDP headroom, IGCB_RX_BUFSZ for the
 * hardware, then room for the skb_shared_info, so a one-buffer frame is
 * turned into an skb in place (napi_build_skb).  A page handed on waits
 * for the stack to give it back, and a frame dropped leaves its page in
 * its slot (igcb_rx_page.c).  The descriptors from next_to_clean up to
 * next_to_use are the hardware's; one slot always stays empty.  Buffers
 * go back to the port sixteen at a time (igcb_refill.h).
 */

#include <linux/bitfield.h>
#include <linux/bpf.h>
#include <linux/dma-mapping.h>

#include "igcb.h"
#include "igcb_rx_page.h"

static_assert(IGCB_RX_HEADROOM + IGCB_RX_BUFSZ +
	      SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) <= PAGE_SIZE);
/* A ring waiting to refill keeps at least 3/4 of its buffers posted. */
static_assert(IGCB_MIN_DESC >= 4 * IGCB_RX_REFILL_BATCH);

/**
 * igcb_rx_dma_sync - must the CPU and the port sync our pages around DMA?
 * @dev: the port's device, its 64-bit DMA mask set
 *
 * Since 6.10 dma_sync_*() skip a sync where it does nothing.  Before,
 * they call into the DMA layer for every frame (for the CPU on receive,
 * for the device when the page is posted again), also on a
 * coherent device with nothing bounced, so ask once.  Direct mapping with
 * a 64-bit mask and no bus limit bounces every page (forced swiotlb,
 * encrypted memory) or none, and an IOMMU's answer holds for all its
 * mappings: one page tells for every page.
 *
 * Return: true to sync (also whenever in doubt).
 */
bool igcb_rx_dma_sync(struct device *dev)
{
#ifdef IGCB_HAVE_DMA_DEV_NEED_SYNC
	return true;
#else
	bool need = true;
	struct page *page;
	dma_addr_t dma;

	if (dev->bus_dma_limit || dma_get_mask(dev) != DMA_BIT_MASK(64))
		return true;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return true;
	dma = dma_map_page_attrs(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL,
				 DMA_ATTR_SKIP_CPU_SYNC);
	if (!dma_mapping_error(dev, dma)) {
		need = dma_need_sync(dev, dma);
		dma_unmap_page_attrs(dev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL,
				     DMA_ATTR_SKIP_CPU_SYNC);
	}
	__free_page(page);
	return need;
#endif
}

int igcb_rx_ring_alloc(struct igcb_rx_ring *ring)
{
	int err = -ENOMEM;

	ring->bufs = kvcalloc(ring->count, sizeof(*ring->bufs), GFP_KERNEL);
	if (!ring->bufs)
		return -ENOMEM;
	if (igcb_rx_stash_alloc(ring))
		goto err;
	ring->size = ALIGN(ring->count * sizeof(union igcb_rx_desc), 4096);
	ring->desc = dma_alloc_coherent(ring->dev, ring->size, &ring->dma,
					GFP_KERNEL);
	if (!ring->desc)
		goto err;

	err = xdp_rxq_info_reg(&ring->xdp_rxq, ring->netdev, ring->qid,
			       ring->qv->napi.napi_id);
	if (err)
		goto err;
	/* XDP frames go back with page_frag_free(), like skb heads. */
	err = xdp_rxq_info_reg_mem_model(&ring->xdp_rxq, MEM_TYPE_PAGE_SHARED,
					 NULL);
	if (err)
		goto err;
	return 0;

err:
	igcb_rx_ring_free(ring);
	return err;
}

void igcb_rx_ring_free(struct igcb_rx_ring *ring)
{
	igcb_rx_ring_drain(ring);
	if (xdp_rxq_info_is_reg(&ring->xdp_rxq))
		xdp_rxq_info_unreg(&ring->xdp_rxq);
	if (ring->desc)
		dma_free_coherent(ring->dev, ring->size, ring->desc, ring->dma);
	ring->desc = NULL;
	igcb_rx_stash_free(ring);
	kvfree(ring->bufs);
	ring->bufs = NULL;
}

/**
 * igcb_rx_ring_drain - let every page of the ring go
 * @ring: a ring the hardware no longer writes, NAPI disabled
 *
 * Pages still in the stack are freed when it is done with them.
 */
void igcb_rx_ring_drain(struct igcb_rx_ring *ring)
{
	if (ring->skb) {
		dev_kfree_skb_any(ring->skb);
		ring->skb = NULL;
	}
	ring->discard = false;
	igcb_rx_pages_drain(ring);
	ring->next_to_use = 0;
	ring->next_to_clean = 0;
}

/**
 * igcb_rx_ring_configure - program an RX ring after a reset
 * @ring: the ring, allocated and drained
 */
void igcb_rx_ring_configure(struct igcb_rx_ring *ring)
{
	struct igcb_hw *hw = &ring->adapter->hw;
	unsigned int n = ring->qid;

	igcb_wr32(hw, IGCB_RXDCTL(n), 0);
	igcb_wrflush(hw);
	igcb_wr32(hw, IGCB_RDBAL(n), lower_32_bits(ring->dma));
	igcb_wr32(hw, IGCB_RDBAH(n), upper_32_bits(ring->dma));
	igcb_wr32(hw, IGCB_RDLEN(n), ring->count * sizeof(union igcb_rx_desc));
	igcb_wr32(hw, IGCB_RDH(n), 0);
	ring->rdt = hw->io + IGCB_RDT(n);
	memset(ring->desc, 0, ring->size);
	igcb_doorbell_rx_init(ring);

	igcb_wr32(hw, IGCB_SRRCTL(n),
		  FIELD_PREP(IGCB_SRRCTL_BSIZEPKT, IGCB_RX_BUFSZ / 1024) |
		  FIELD_PREP(IGCB_SRRCTL_BSIZEHDR, 256 / 64) |
		  FIELD_PREP(IGCB_SRRCTL_DESCTYPE,
			     IGCB_SRRCTL_DESC_ADV_ONEBUF));
	igcb_wr32(hw, IGCB_RXDCTL(n),
		  FIELD_PREP(IGCB_XDCTL_PTHRESH, 8) |
		  FIELD_PREP(IGCB_XDCTL_HTHRESH, 8) |
		  FIELD_PREP(IGCB_XDCTL_WTHRESH, 4) | IGCB_XDCTL_ENABLE);
}

/* Post up to @n buffers from next_to_use, then publish them: a slot keeps
 * the page of a frame that was dropped, an empty one gets a page back from
 * the stack or a new one.  Writing hdr_addr clears the write-back status
 * of the slot (DD), so a slot is never mistaken for a completed one.
 * Return: false if a page could not be had.
 */
static bool igcb_rx_refill(struct igcb_rx_ring *ring, unsigned int n)
{
	unsigned int got[IGCB_PAGE_NR] = { 0 };
	bool sync = ring->adapter->dma_sync;
	u16 i = ring->next_to_use;
	bool ok = true;

	while (n--) {
		struct igcb_rx_buf *b = &ring->bufs[i];
		union igcb_rx_desc *d = &ring->desc[i];

		if (!b->page) {
			enum igcb_rx_page_src src = IGCB_PAGE_NONE;

			if (likely(!igcb_inject(ring->adapter,
						&ring->adapter->faults.rx_alloc)))
				src = igcb_rx_page_get(ring, b);
			got[src]++;
			if (unlikely(src == IGCB_PAGE_NONE)) {
				ok = false;
				break;
			}
		}
		/* The CPU may have written there since (XDP, the stack). */
		if (sync)
			dma_sync_single_range_for_device(ring->dev, b->dma,
							 IGCB_RX_HEADROOM,
							 IGCB_RX_BUFSZ,
							 DMA_FROM_DEVICE);
		d->read.pkt_addr = cpu_to_le64(b->dma + IGCB_RX_HEADROOM);
		d->read.hdr_addr = 0;
		if (++i == ring->count)
			i = 0;
	}
	ring->next_to_use = i;
	igcb_doorbell_rx_publish(ring);
	u64_stats_update_begin(&ring->sync);
	ring->st.alloc_failed += got[IGCB_PAGE_NONE];
	ring->st.page_new += got[IGCB_PAGE_NEW];
	ring->st.page_reused += got[IGCB_PAGE_REUSED];
	u64_stats_update_end(&ring->sync);
	return ok;
}

void igcb_rx_ring_fill(struct igcb_rx_ring *ring)
{
	igcb_rx_refill(ring, igcb_rx_unused(ring));
}

static bool igcb_rss_type_l4(unsigned int type)
{
	switch (type) {
	case IGCB_RSS_TCP_IPV4:
	case IGCB_RSS_TCP_IPV6:
	case IGCB_RSS_TCP_IPV6_EX:
	case IGCB_RSS_UDP_IPV4:
	case IGCB_RSS_UDP_IPV6:
	case IGCB_RSS_UDP_IPV6_EX:
		return true;
	default:
		return false;
	}
}

static void igcb_rx_csum(struct igcb_rx_ring *ring, u32 staterr,
			 struct sk_buff *skb)
{
	skb_checksum_none_assert(skb);
	if (!(ring->netdev->features & NETIF_F_RXCSUM) ||
	    (staterr & IGCB_RXD_STAT_IXSM))
		return;
	if (staterr & (IGCB_RXD_ERR_L4E | IGCB_RXD_ERR_IPE)) {
		/* Let the stack look again and count it there as well. */
		u64_stats_update_begin(&ring->sync);
		ring->st.csum_err++;
		u64_stats_update_end(&ring->sync);
		return;
	}
	if (staterr & (IGCB_RXD_STAT_TCPCS | IGCB_RXD_STAT_UDPCS))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
}

/* Hash, checksum, VLAN and protocol from the frame's last descriptor. */
static void igcb_rx_fields(struct igcb_rx_ring *ring, union igcb_rx_desc *d,
			   u32 staterr, struct sk_buff *skb)
{
	netdev_features_t features = ring->netdev->features;

	if (features & NETIF_F_RXHASH) {
		unsigned int type = FIELD_GET(IGCB_RXD_RSS_TYPE,
					      le32_to_cpu(d->wb.info));

		if (type)
			skb_set_hash(skb, le32_to_cpu(d->wb.rss_hash),
				     igcb_rss_type_l4(type) ?
				     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
	}
	igcb_rx_csum(ring, staterr, skb);
	if ((features & NETIF_F_HW_VLAN_CTAG_RX) &&
	    (staterr & IGCB_RXD_STAT_VP))
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       le16_to_cpu(d->wb.vlan));
	skb_record_rx_queue(skb, ring->qid);
	skb->protocol = eth_type_trans(skb, ring->netdev);
}

static void igcb_rx_count_drop(struct igcb_rx_ring *ring)
{
	u64_stats_update_begin(&ring->sync);
	ring->st.dropped++;
	u64_stats_update_end(&ring->sync);
}

/* Every drop alike: free the frame's skb, skip its rest (!@eop).  The
 * buffer being looked at stays in its slot, to be posted again.
 */
static inline void igcb_rx_lose(struct igcb_rx_ring *ring,
				struct sk_buff **skb, bool eop)
{
	if (*skb)
		dev_kfree_skb_any(*skb);
	*skb = NULL;
	ring->discard = !eop;
	igcb_rx_count_drop(ring);
}

/* The first buffer of a frame, as an skb built around its page. */
static struct sk_buff *igcb_rx_build(struct igcb_rx_ring *ring,
				     struct page *page, unsigned int headroom,
				     unsigned int len, unsigned int metasize)
{
	struct sk_buff *skb;

	skb = napi_build_skb(page_address(page), PAGE_SIZE);
	if (unlikely(!skb)) {
		u64_stats_update_begin(&ring->sync);
		ring->st.alloc_failed++;
		u64_stats_update_end(&ring->sync);
		return NULL;
	}
	skb_reserve(skb, headroom);
	__skb_put(skb, len);
	if (metasize)
		skb_metadata_set(skb, metasize);
	return skb;
}

/**
 * igcb_rx_clean - the receive part of a NAPI poll
 * @qv: the queue vector
 * @budget: frames the poll may hand on
 * @batch: the poll's dbbatch pass
 *
 * The first frame handed to the stack with another ready behind it opens
 * the pass's batch: packets the pass forwards hold their transmit
 * doorbells until it ends.  A pass of one frame opens none: its transmit
 * rings at once, as the batch's end would have.  Frames XDP
 * redirects or sends back are published once at the end of the poll
 * anyway; a dropped one publishes nothing.  Buffers go back to the
 * port, and RDT is written, once IGCB_RX_REFILL_BATCH slots await them.
 *
 * Return: frames handed on (to the stack or to XDP), or @budget when the
 * ring could not be refilled, so that NAPI polls again.
 */
int igcb_rx_clean(struct igcb_q_vector *qv, int budget,
		  struct dbbatch *batch)
{
	struct igcb_rx_ring *ring = &qv->rx;
	struct igcb_adapter *a = ring->adapter;
	struct bpf_prog *prog = READ_ONCE(a->xdp_prog);
	unsigned int done = 0, bytes = 0, xdp_flags = 0;
	unsigned int xdp_drop = 0, xdp_tx = 0, xdp_redir = 0;
	struct sk_buff *skb = ring->skb;
	unsigned int awaiting = igcb_rx_unused(ring);
	u16 ntc = ring->next_to_clean;
	bool starved = false;

	/* Nothing arrived (a transmitting port's pass) and no refill due:
	 * no setup, no accounting.
	 */
	if (!igcb_rx_ready(ring) && !igcb_rx_refill_due(awaiting))
		return 0;

	while (done < budget) {
		unsigned int len, headroom = IGCB_RX_HEADROOM, metasize = 0;
		union igcb_rx_desc *d;
		struct igcb_rx_buf *b;
		struct page *page;
		u32 staterr;
		bool eop;

		/* Give buffers back in groups: one at a time costs doorbells. */
		if (igcb_rx_refill_due(awaiting)) {
			ring->next_to_clean = ntc;
			igcb_rx_refill(ring, awaiting);
			awaiting = igcb_rx_unused(ring);
		}
		if (ntc == ring->next_to_use)
			break;		/* nothing posted */
		d = &ring->desc[ntc];
		if (!(READ_ONCE(d->wb.status_error) &
		      cpu_to_le32(IGCB_RXD_STAT_DD)))
			break;
		/* The rest of the write-back only after DD was seen. */
		dma_rmb();
		staterr = le32_to_cpu(d->wb.status_error);
		len = le16_to_cpu(d->wb.length);
		eop = staterr & IGCB_RXD_STAT_EOP;

		b = &ring->bufs[ntc];
		page = b->page;
		if (++ntc == ring->count)
			ntc = 0;
		awaiting++;
		if (unlikely(!page)) {
			/* Never posted: lose the frame it belongs to. */
			igcb_rx_lose(ring, &skb, eop);
			continue;
		}
		if (unlikely(len > IGCB_RX_BUFSZ))
			len = IGCB_RX_BUFSZ;
		if (ring->adapter->dma_sync)
			dma_sync_single_range_for_cpu(ring->dev, b->dma,
						      IGCB_RX_HEADROOM, len,
						      DMA_FROM_DEVICE);

		if (unlikely(ring->discard)) {
			if (eop)
				ring->discard = false;
			continue;
		}

		if (!skb) {
			if (prog && eop) {
				struct xdp_buff xdp;
				unsigned int act;

				xdp_init_buff(&xdp, PAGE_SIZE, &ring->xdp_rxq);
				xdp_prepare_buff(&xdp, page_address(page),
						 IGCB_RX_HEADROOM, len, true);
				act = igcb_xdp_run(ring, prog, &xdp);
				if (act & (IGCB_XDP_TX | IGCB_XDP_REDIR))
					igcb_rx_page_give(ring, b);
				if (act != IGCB_XDP_PASS) {
					xdp_flags |= act;
					xdp_drop += !!(act & IGCB_XDP_CONSUMED);
					xdp_tx += !!(act & IGCB_XDP_TX);
					xdp_redir += !!(act & IGCB_XDP_REDIR);
					bytes += len;
					done++;
					continue;
				}
				headroom = xdp.data - xdp.data_hard_start;
				len = xdp.data_end - xdp.data;
				metasize = xdp.data - xdp.data_meta;
			} else if (prog) {
				/* XDP sees whole frames only: drop this one
				 * (not its last buffer: the rest is discarded).
				 */
				igcb_rx_lose(ring, &skb, eop);
				continue;
			}
			skb = igcb_rx_build(ring, page, headroom, len, metasize);
			if (unlikely(!skb)) {
				igcb_rx_lose(ring, &skb, eop);
				continue;
			}
		} else {
			unsigned int nr = skb_shinfo(skb)->nr_frags;

			if (unlikely(nr >= MAX_SKB_FRAGS)) {
				igcb_rx_lose(ring, &skb, eop);
				continue;
			}
			skb_add_rx_frag(skb, nr, page, IGCB_RX_HEADROOM, len,
					PAGE_SIZE);
		}
		igcb_rx_page_give(ring, b);

		if (!eop)
			continue;	/* the frame goes on in the next buffer */

		if (unlikely(staterr & IGCB_RXD_ERR_RXE) &&
		    !(ring->netdev->features & NETIF_F_RXALL)) {
			/* The page is the skb's now; discard stays clear. */
			igcb_rx_lose(ring, &skb, eop);
			continue;
		}
		if (eth_skb_pad(skb)) {
			skb = NULL;
			continue;
		}
		bytes += skb->len;
		igcb_rx_fields(ring, d, staterr, skb);
		/* A batch only for a pass of two frames or more. */
		dbbatch_pass_deliver_more(batch, done + 1 < budget &&
					  igcb_rx_ready_at(ring, ntc));
		napi_gro_receive(&qv->napi, skb);
		skb = NULL;
		done++;
	}

	ring->skb = skb;
	ring->next_to_clean = ntc;
	if (xdp_flags & (IGCB_XDP_TX | IGCB_XDP_REDIR))
		igcb_xdp_finalize(a, xdp_flags);
	/* Also retries a refill that an allocation failure cut short. */
	if (igcb_rx_refill_due(awaiting))
		starved = !igcb_rx_refill(ring, awaiting);

	u64_stats_update_begin(&ring->sync);
	ring->st.packets += done;
	ring->st.bytes += bytes;
	ring->st.xdp_drop += xdp_drop;
	ring->st.xdp_tx += xdp_tx;
	ring->st.xdp_redirect += xdp_redir;
	u64_stats_update_end(&ring->sync);
	qv->itr_work.rx_pkts += done;
	qv->itr_work.rx_bytes += bytes;
	/* Short of pages: poll again rather than wait for a frame that an
	 * empty ring cannot take (or for the watchdog's kick).
	 */
	return starved ? budget : done;
}

void igcb_rx_setup_rctl(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	u32 rctl;

	/* Hardware errata: IPv6 extension header parsing stays off. */
	igcb_wr32(hw, IGCB_RFCTL,
		  igcb_rd32(hw, IGCB_RFCTL) | IGCB_RFCTL_IPV6_EX_DIS);

	rctl = igcb_rd32(hw, IGCB_RCTL);
	rctl &= ~(IGCB_RCTL_LBM | IGCB_RCTL_MO | IGCB_RCTL_SBP | IGCB_RCTL_SZ |
		  IGCB_RCTL_PMCF);
	rctl |= IGCB_RCTL_EN | IGCB_RCTL_BAM | IGCB_RCTL_SECRC | IGCB_RCTL_LPE;
	if (a->netdev->features & NETIF_F_RXALL) {
		/* Bad frames and MAC control frames too, for sniffing. */
		rctl |= IGCB_RCTL_SBP | IGCB_RCTL_PMCF;
		rctl &= ~(IGCB_RCTL_DPF | IGCB_RCTL_CFIEN);
	}
	igcb_wr32(hw, IGCB_RLPML, a->max_frame);
	igcb_wr32(hw, IGCB_RCTL, rctl);
}

/**
 * igcb_rx_fifo_flush - drop what the receive FIFO held when receive began
 * @a: the port, its receive just enabled
 *
 * While firmware receives manageability traffic through the port
 * (MANC.RCV_TCO_EN, I225/I226-LM with AMT), the FIFOs can start with bad
 * data once receive is enabled (upstream igc's igc_rx_fifo_flush_base).
 * Park the queues, receive for 2 ms with every frame rejected (no length
 * allowed, long frames on, bad frames off), put everything back, and
 * clear the error counts the rejected frames made.  Nothing to do
 * without manageability.
 */
void igcb_rx_fifo_flush(struct igcb_adapter *a)
{
	u32 rxdctl[IGCB_MAX_QUEUES], rctl, reject, rlpml, rfctl, enabled;
	struct igcb_hw *hw = &a->hw;
	unsigned int q, ms;

	if (!(igcb_rd32(hw, IGCB_MANC) & IGCB_MANC_RCV_TCO_EN))
		return;

	for (q = 0; q < IGCB_MAX_QUEUES; q++) {
		rxdctl[q] = igcb_rd32(hw, IGCB_RXDCTL(q));
		igcb_wr32(hw, IGCB_RXDCTL(q), rxdctl[q] & ~IGCB_XDCTL_ENABLE);
	}
	for (ms = 0; ms < 10; ms++) {
		usleep_range(1000, 2000);
		enabled = 0;
		for (q = 0; q < IGCB_MAX_QUEUES; q++)
			enabled |= igcb_rd32(hw, IGCB_RXDCTL(q));
		if (!(enabled & IGCB_XDCTL_ENABLE))
			break;
	}
	if (ms == 10)
		netdev_dbg(a->netdev, "RX queues still enabled after 10 ms (FIFO flush)\n");

	rfctl = igcb_rd32(hw, IGCB_RFCTL);
	igcb_wr32(hw, IGCB_RFCTL, rfctl & ~IGCB_RFCTL_LEF);
	rlpml = igcb_rd32(hw, IGCB_RLPML);
	igcb_wr32(hw, IGCB_RLPML, 0);
	rctl = igcb_rd32(hw, IGCB_RCTL);
	reject = (rctl & ~(IGCB_RCTL_EN | IGCB_RCTL_SBP)) | IGCB_RCTL_LPE;
	igcb_wr32(hw, IGCB_RCTL, reject);
	igcb_wr32(hw, IGCB_RCTL, reject | IGCB_RCTL_EN);
	igcb_wrflush(hw);
	usleep_range(2000, 3000);

	for (q = 0; q < IGCB_MAX_QUEUES; q++)
		igcb_wr32(hw, IGCB_RXDCTL(q), rxdctl[q]);
	igcb_wr32(hw, IGCB_RCTL, rctl);
	igcb_wrflush(hw);
	igcb_wr32(hw, IGCB_RLPML, rlpml);
	igcb_wr32(hw, IGCB_RFCTL, rfctl);
	/* The rejected frames are not the port's errors: read to clear,
	 * under the lock the statistics fold takes (they clear on read).
	 */
	spin_lock(&a->stats_lock);
	igcb_rd32(hw, IGCB_ROC);
	igcb_rd32(hw, IGCB_RNBC);
	igcb_rd32(hw, IGCB_MPC);
	spin_unlock(&a->stats_lock);
}

void igcb_rss_default_reta(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < IGCB_RETA_SIZE; i++)
		a->reta[i] = i % a->num_queues;
}

void igcb_rss_write_reta(struct igcb_adapter *a)
{
	unsigned int i;

	for (i = 0; i < IGCB_RETA_SIZE / 4; i++)
		igcb_wr32(&a->hw, IGCB_RETA(i),
			  a->reta[4 * i] | a->reta[4 * i + 1] << 8 |
			  a->reta[4 * i + 2] << 16 |
			  (u32)a->reta[4 * i + 3] << 24);
}

/* Toeplitz over addresses and, for TCP and UDP, ports: a router's UDP
 * flows spread over the queues too.  PCSD puts the hash in the
 * descriptor in place of the raw packet checksum.
 */
void igcb_rss_setup(struct igcb_adapter *a)
{
	struct igcb_hw *hw = &a->hw;
	unsigned int i;
	u32 mrqc;

	for (i = 0; i < IGCB_RSS_KEY_SIZE / 4; i++)
		igcb_wr32(hw, IGCB_RSSRK(i),
			  a->rss_key[4 * i] | a->rss_key[4 * i + 1] << 8 |
			  a->rss_key[4 * i + 2] << 16 |
			  (u32)a->rss_key[4 * i + 3] << 24);
	igcb_rss_write_reta(a);
	igcb_wr32(hw, IGCB_RXCSUM,
		  igcb_rd32(hw, IGCB_RXCSUM) | IGCB_RXCSUM_PCSD);
	mrqc = IGCB_MRQC_RSS_EN | IGCB_MRQC_IPV4 | IGCB_MRQC_IPV4_TCP |
	       IGCB_MRQC_IPV6 | IGCB_MRQC_IPV6_TCP | IGCB_MRQC_IPV6_TCP_EX;
	if (a->rss_udp4_ports)
		mrqc |= IGCB_MRQC_IPV4_UDP;
	if (a->rss_udp6_ports)
		mrqc |= IGCB_MRQC_IPV6_UDP;
	igcb_wr32(hw, IGCB_MRQC, mrqc);
}
