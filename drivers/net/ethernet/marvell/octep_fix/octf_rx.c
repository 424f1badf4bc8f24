// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix receive: output rings of page_pool pages and their credit.
 *
 * The block writes a frame into the buffers it fetched, in ring order: a
 * big-endian length (and the 8-byte offload header when the firmware
 * reports RX offloads) at the start of the first buffer, the data after
 * it, continuing at offset 0 of the following buffers; then it adds one
 * to OUT_CNTS.  Each buffer's DMA address is its page's headroom less that
 * header, so the data of a one-buffer frame sits at XDP_PACKET_HEADROOM.
 *
 * The host zeroes a buffer's length word when it posts the buffer, so a
 * count whose buffer still reads 0 is seen ("nobuf") instead of being read
 * as stale data.  The credit is octf_credit.h's: granted at enable,
 * returned one unit per buffer taken and refilled, one doorbell write per
 * pass at most.
 */

#include <linux/bpf.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>

#include "octf.h"

#define OCTF_IDLE_POLLS		1000

static u32 octf_oq_off(const struct octf_oq *oq)
{
	return OCTF_RX_HEADROOM - oq->hdr_len;
}

int octf_oq_alloc(struct octf_oq *oq)
{
	struct octf_port *p = oq->port;
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order = 0,
		.nid = dev_to_node(oq->dev),
		.dev = oq->dev,
		/* XDP_TX sends our pages back out as they are */
		.dma_dir = octf_xdp_on(p) ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE,
#ifdef OCTF_HAVE_PP_NAPI
		.napi = &oq->qv->napi,
		.netdev = oq->netdev,
#endif
	};
	int err = -ENOMEM;

	oq->hdr_len = OCTF_RX_HDR + (p->fw.rx_ol ? OCTF_RX_OL_HDR : 0);
	oq->bufsz = OCTF_RX_BUFSZ(oq->hdr_len);
	pp.pool_size = oq->nbufs;
	pp.offset = octf_oq_off(oq);
	pp.max_len = oq->bufsz;

	oq->bufs = kvcalloc(oq->nbufs, sizeof(*oq->bufs), GFP_KERNEL);
	if (!oq->bufs)
		return -ENOMEM;
	oq->desc = dma_alloc_coherent(oq->dev, oq->nbufs * sizeof(*oq->desc),
				      &oq->desc_dma, GFP_KERNEL);
	if (!oq->desc)
		goto err;
	oq->pp = page_pool_create(&pp);
	if (IS_ERR(oq->pp)) {
		err = PTR_ERR(oq->pp);
		oq->pp = NULL;
		goto err;
	}
	err = xdp_rxq_info_reg(&oq->xdp_rxq, oq->netdev, oq->qid,
			       oq->qv->napi.napi_id);
	if (err)
		goto err;
	err = xdp_rxq_info_reg_mem_model(&oq->xdp_rxq, MEM_TYPE_PAGE_POOL,
					 oq->pp);
	if (err)
		goto err;
	return 0;

err:
	octf_oq_free(oq);
	return err;
}

static void octf_oq_drain(struct octf_oq *oq)
{
	unsigned int i;

	if (!oq->bufs)
		return;
	for (i = 0; i < oq->nbufs; i++) {
		if (oq->bufs[i].page)
			page_pool_put_full_page(oq->pp, oq->bufs[i].page, false);
		oq->bufs[i].page = NULL;
	}
}

void octf_oq_free(struct octf_oq *oq)
{
	octf_oq_drain(oq);
	if (xdp_rxq_info_is_reg(&oq->xdp_rxq))
		xdp_rxq_info_unreg(&oq->xdp_rxq);
	if (oq->pp)
		page_pool_destroy(oq->pp);
	oq->pp = NULL;
	if (oq->desc)
		dma_free_coherent(oq->dev, oq->nbufs * sizeof(*oq->desc),
				  oq->desc, oq->desc_dma);
	oq->desc = NULL;
	kvfree(oq->bufs);
	oq->bufs = NULL;
}

/* Post a fresh page at @idx, its length word zeroed. */
static bool octf_oq_post(struct octf_oq *oq, u32 idx)
{
	struct octf_rx_buf *b = &oq->bufs[idx];
	u32 off = octf_oq_off(oq);
	struct page *page;

	if (unlikely(octf_inject_rx_alloc(oq->port)))
		return false;
	page = page_pool_dev_alloc_pages(oq->pp);
	if (unlikely(!page))
		return false;
	b->page = page;
	b->dma = page_pool_get_dma_addr(page);
	*(u64 *)(page_address(page) + off) = 0;
	dma_sync_single_range_for_device(oq->dev, b->dma, off, sizeof(u64),
					 page_pool_get_dma_dir(oq->pp));
	oq->desc[idx].buffer = cpu_to_le64(b->dma + off);
	oq->desc[idx].info = 0;
	return true;
}

/* Buffers a frame of @data_len bytes spans, the header in the first. */
static u32 octf_oq_bufs(const struct octf_oq *oq, u32 data_len)
{
	return DIV_ROUND_UP(oq->hdr_len + data_len, oq->bufsz);
}

/**
 * octf_oq_set_mtu - frames of the port's MTU that fill the ring
 * @oq: the ring, at its configure or the MTU's change (RTNL)
 * @mtu: the MTU
 *
 * What a busy pass is measured against (octf_low_read()), kept here so
 * that a pass does not divide for it.
 */
void octf_oq_set_mtu(struct octf_oq *oq, unsigned int mtu)
{
	WRITE_ONCE(oq->full_frames,
		   oq->count / octf_oq_bufs(oq, VLAN_ETH_HLEN + mtu));
}

/**
 * octf_oq_configure - program an output ring, fill it, enable it, grant it
 * @oq: the ring, allocated, NAPI disabled
 *
 * Return: 0, -EINVAL if the ring cannot be published (not whole fetches,
 * or larger than the buffers behind it), -ENOMEM if it cannot be filled.
 */
int octf_oq_configure(struct octf_oq *oq)
{
	struct octf_port *p = oq->port;
	unsigned int q = oq->qid, i;
	enum octf_credit_err cerr;
	u32 grant;
	u64 ctl;

	cerr = octf_ring_check(oq->count, oq->nbufs);
	if (cerr) {
		netdev_err(oq->netdev, "output ring %u: refusing to publish %u buffers with %u allocated: %s\n",
			   q, oq->count, oq->nbufs, octf_credit_err_str(cerr));
		return -EINVAL;
	}
	octf_oq_set_mtu(oq, READ_ONCE(oq->netdev->mtu));
	for (i = 0; i < oq->count; i++) {
		if (!octf_oq_post(oq, i)) {
			netdev_err(oq->netdev, "output ring %u: no memory for %u receive pages\n",
				   q, oq->count);
			octf_oq_drain(oq);
			return -ENOMEM;
		}
	}
	oq->read_idx = 0;
	oq->refill_idx = 0;
	oq->to_refill = 0;
	oq->pending = 0;
	oq->visited = true;
	oq->unvisited_ticks = 0;
	oq->resync_req = false;
	oq->gap_ticks = 0;
	oq->gap_idx = U32_MAX;
	oq->peek_req = false;
	oq->peek_idx = U32_MAX;
	oq->peek_n = 0;
	oq->unacked = 0;
	oq->dbell_least = OCTF_DBELL_NONE;
	oq->last_give = 0;
	set_bit(OCTF_LOW_SPOILED, &p->state);	/* a ring restarted */
	oq->in_device_max = 0;

	for (i = 0; i < OCTF_IDLE_POLLS; i++) {
		ctl = octf_rd64(p, OCTF_OUT_CONTROL(q));
		if (ctl & OCTF_OUT_CTL_IDLE)
			break;
		usleep_range(10, 20);
	}
	ctl &= ~(OCTF_OUT_CTL_IMODE | OCTF_OUT_CTL_BSIZE | OCTF_OUT_CTL_IDLE);
	octf_wr64(p, OCTF_OUT_CONTROL(q), ctl | OCTF_OUT_CTL_ES_P |
		  FIELD_PREP(OCTF_OUT_CTL_BSIZE, oq->bufsz));
	octf_wr64(p, OCTF_OUT_SLIST_BADDR(q), oq->desc_dma);
	octf_wr64(p, OCTF_OUT_SLIST_RSIZE(q), oq->count);
	oq->dbell = p->bar0 + OCTF_OUT_SLIST_DBELL(q);
	oq->cnts = p->bar0 + OCTF_OUT_CNTS(q);
	/* Credit left from an earlier life of the ring would over-grant. */
	writel(OCTF_DBELL_CLEAR, oq->dbell);
	writel(readl(oq->cnts), oq->cnts);
	octf_wr64(p, OCTF_OUT_INT_LEVELS(q), OCTF_INT_LEVELS_ENA |
		  FIELD_PREP(OCTF_INT_LEVELS_TIME, OCTF_OQ_INTR_US) |
		  FIELD_PREP(OCTF_INT_LEVELS_PKTS, OCTF_OQ_INTR_PKTS));
	octf_wr64(p, OCTF_OUT_ENABLE(q), 1);

	grant = octf_credit_start(&oq->credit, oq->count, p->wmark_eff);
	octf_credit_set_ceiling(&oq->credit, READ_ONCE(p->test.ceiling));
	writel(grant, oq->dbell);
	u64_stats_update_begin(&oq->sync);
	oq->st.dbell_writes++;
	oq->st.credit_given += grant;
	u64_stats_update_end(&oq->sync);
	return 0;
}

void octf_oq_disable(struct octf_oq *oq)
{
	struct octf_port *p = oq->port;

	octf_wr64(p, OCTF_OUT_ENABLE(oq->qid), 0);
	octf_wr64(p, OCTF_OUT_INT_LEVELS(oq->qid), 0);
	/* no credit is left for the block to fetch with */
	writel(OCTF_DBELL_CLEAR, oq->dbell);
	octf_oq_drain(oq);
}

static u32 octf_oq_next(const struct octf_oq *oq, u32 idx)
{
	return idx + 1 == oq->count ? 0 : idx + 1;
}

/* The length word of the buffer at @idx; 0: nothing written there. */
static u64 octf_oq_len(struct octf_oq *oq, u32 idx)
{
	struct octf_rx_buf *b = &oq->bufs[idx];
	u32 off = octf_oq_off(oq);

	if (!b->page)
		return 0;
	dma_sync_single_range_for_cpu(oq->dev, b->dma, off, oq->hdr_len,
				      page_pool_get_dma_dir(oq->pp));
	return be64_to_cpu(*(__be64 *)(page_address(b->page) + off));
}

/* The credit check the watchdog asked for: holds the block more buffers
 * than the ring has?  Only a grant over the firmware's watermark allows
 * it.  Every time it is seen the port falls back to a lower watermark
 * (octf_credit_next_wmark()) and its rings are restarted: credit given
 * cannot be taken back from a live ring.  Only a ring granted for the
 * current watermark decides; the others are about to restart.
 */
static void octf_oq_check_credit(struct octf_oq *oq)
{
	struct octf_port *p = oq->port;
	u32 c = readl(oq->dbell), in_dev, next;

	WRITE_ONCE(oq->credit_now, c);
	in_dev = octf_credit_in_device(&oq->credit, c);
	if (in_dev > oq->in_device_max)
		WRITE_ONCE(oq->in_device_max, in_dev);
	if (!octf_credit_overgranted(&oq->credit, c))
		return;
	if (oq->credit.wmark != READ_ONCE(p->wmark_eff) ||
	    test_bit(OCTF_RESTART, &p->state))
		return;
	next = octf_credit_next_wmark(oq->credit.wmark, c);
	if (next == oq->credit.wmark) {
		if (net_ratelimit())
			netdev_err(oq->netdev, "output ring %u: the block holds %u buffers of a %u-buffer ring at the least watermark %#x: not a watermark mismatch; check the firmware\n",
				   oq->qid, in_dev, oq->count, next);
		return;
	}
	WRITE_ONCE(p->wmark_eff, next);
	netdev_err(oq->netdev, "output ring %u: the block holds %u buffers of a %u-buffer ring (doorbell reads %u): oq_wmark %#x is above the firmware's watermark, which over-grants and laps the ring. Falling back to %#x and restarting the rings; set oq_wmark to the firmware's value\n",
		   oq->qid, in_dev, oq->count, c, oq->credit.wmark, next);
	set_bit(OCTF_RESTART, &p->state);
	schedule_work(&p->reset_work);
}

static struct sk_buff *octf_oq_build(struct octf_oq *oq, struct page *page,
				     unsigned int headroom, unsigned int len,
				     unsigned int metasize)
{
	struct sk_buff *skb = napi_build_skb(page_address(page), PAGE_SIZE);

	if (unlikely(!skb))
		return NULL;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, headroom);
	__skb_put(skb, len);
	if (metasize)
		skb_metadata_set(skb, metasize);
	return skb;
}

/* Give the frame's buffers from @idx back to the pool (dropped frame) */
static void octf_oq_recycle(struct octf_oq *oq, u32 idx, u32 n)
{
	while (n--) {
		struct octf_rx_buf *b = &oq->bufs[idx];

		if (b->page)
			page_pool_recycle_direct(oq->pp, b->page);
		b->page = NULL;
		idx = octf_oq_next(oq, idx);
	}
}

/* The watchdog asked: step the read index over buffers the block passed
 * without writing (a gap behind a written buffer).  The block will not
 * come back to them before a lap, so they are taken like any other: their
 * pages go back to the pool, the slots are refilled in order and their
 * credit returned.  Stepping the read index alone would break the ring
 * invariant (octf.h): refill would post over the pages still there and
 * leave the slots behind the gap with descriptors of pages the stack owns.
 *
 * Return: buffers taken.
 */
static u32 octf_oq_resync(struct octf_oq *oq)
{
	u32 n = 0, idx = oq->read_idx;

	oq->resync_req = false;
	while (n < oq->count && !octf_oq_len(oq, idx)) {
		idx = octf_oq_next(oq, idx);
		n++;
	}
	u64_stats_update_begin(&oq->sync);
	oq->st.resyncs++;
	if (n == oq->count) {
		/* No buffer behind the count at all: it is too high.  Frames
		 * it never counted are not acknowledged.
		 */
		writel(oq->pending - oq->unacked, oq->cnts);
		oq->pending = 0;
		oq->unacked = 0;
		n = 0;
	} else {
		oq->st.skipped += n;
	}
	u64_stats_update_end(&oq->sync);
	if (net_ratelimit())
		netdev_warn(oq->netdev, "output ring %u: the count ran ahead of the buffers; read index stepped over %u (is oq_wmark above the firmware's watermark?)\n",
			    oq->qid, n);
	if (n) {
		octf_oq_recycle(oq, oq->read_idx, n);
		oq->read_idx = idx;
	}
	return n;
}

/* Refill what was taken, in ring order; return: buffers refilled. */
static u32 octf_oq_refill(struct octf_oq *oq)
{
	u32 n = 0;

	while (oq->to_refill) {
		if (unlikely(!octf_oq_post(oq, oq->refill_idx))) {
			u64_stats_update_begin(&oq->sync);
			oq->st.alloc_failed++;
			u64_stats_update_end(&oq->sync);
			break;
		}
		oq->refill_idx = octf_oq_next(oq, oq->refill_idx);
		oq->to_refill--;
		n++;
	}
	return n;
}

/* Written frames from read_idx, by their length words, up to @max. */
static u32 octf_oq_written(struct octf_oq *oq, u32 max)
{
	u32 idx = oq->read_idx, posted = oq->count - oq->to_refill;
	u32 n = 0, used = 0;
	u64 len;

	len = posted ? octf_oq_len(oq, idx) : 0;
	while (len && n < max) {
		u32 nbuf = octf_oq_bufs(oq, len - (oq->hdr_len - OCTF_RX_HDR));

		if (len < oq->hdr_len - OCTF_RX_HDR || used + nbuf > posted)
			break;
		used += nbuf;
		n++;
		idx = (idx + nbuf) % oq->count;
		len = used < posted ? octf_oq_len(oq, idx) : 0;
	}
	return n;
}

/* Frames at read_idx that OUT_CNTS never counted (a block that lost count
 * increments: buffers written, a count of nothing).  The watchdog asks
 * when a ring that took frames falls idle with a count of 0.  Only frames
 * already written at the previous look, a tick or more before, with the
 * read index where it was, are such frames, not ones whose count (or
 * data) is on its way.  They are taken by their length words (the host
 * zeroes a buffer's when it posts it) and not acknowledged: the count
 * never held them.
 *
 * Return: the frames to take, up to @budget.
 */
static u32 octf_oq_peek(struct octf_oq *oq, u32 budget)
{
	u32 n = octf_oq_written(oq, budget), seen = oq->peek_n;
	bool again = oq->peek_idx == oq->read_idx;

	WRITE_ONCE(oq->peek_req, false);
	WRITE_ONCE(oq->peek_idx, n && !again ? oq->read_idx : U32_MAX);
	oq->peek_n = n;
	if (!again)
		return 0;
	n = min(n, seen);
	if (n && net_ratelimit())
		netdev_warn(oq->netdev, "output ring %u: %u frames written that OUT_CNTS never counted, taken by their length words; the SDP block lost count increments\n",
			    oq->qid, n);
	return n;
}

/**
 * octf_oq_clean - the receive part of a NAPI pass
 * @qv: the queue vector
 * @budget: frames the pass may hand on (not 0)
 * @batch: the poll's dbbatch pass; the first frame handed to the stack
 *	with another counted behind it opens its batch (a pass of one frame
 *	rings its transmit at once)
 *
 * One read of OUT_CNTS when the last one is used up, one write
 * acknowledging what was taken, one credit write at most.
 *
 * Return: frames handed on, or @budget to be polled again (pages short).
 */
int octf_oq_clean(struct octf_qv *qv, int budget,
		  struct dbbatch *batch)
{
	struct octf_oq *oq = &qv->oq;
	struct octf_port *p = oq->port;
	struct bpf_prog *prog = READ_ONCE(p->xdp_prog);
	enum dma_data_direction dir = page_pool_get_dma_dir(oq->pp);
	unsigned int done = 0, bytes = 0, taken = 0, acked = 0;
	unsigned int xdp_flags = 0, xdp_drop = 0, xdp_tx = 0, xdp_redir = 0;
	unsigned int dropped = 0, lapped = 0, nobuf = 0;
	u32 ceiling, give, refilled, found = 0;
	bool left_over, watch;

	oq->visited = true;
	if (unlikely(test_bit(OCTF_DOWN, &p->state)))
		return 0;
	ceiling = READ_ONCE(p->test.ceiling);
	if (unlikely(ceiling != oq->credit.ceiling))
		octf_credit_set_ceiling(&oq->credit, ceiling);
	if (unlikely(oq->resync_req))
		taken += octf_oq_resync(oq);
	if (unlikely(READ_ONCE(oq->check_req))) {
		WRITE_ONCE(oq->check_req, false);
		octf_oq_check_credit(oq);
	}

	left_over = oq->pending;
	if (!oq->pending) {
		oq->pending = readl(oq->cnts);
		if (unlikely(oq->pending > oq->count)) {
			lapped = 1;
			octf_oq_check_credit(oq);
		}
		if (unlikely(READ_ONCE(oq->peek_req)) && !oq->pending) {
			found = octf_oq_peek(oq, budget);
			oq->unacked = found;
			oq->pending = found;
		}
	}
	/* a busy pass reads the doorbell back before it gives credit */
	watch = octf_low_read(oq->pending, left_over,
			      READ_ONCE(oq->full_frames), budget);
	while (done < budget && oq->pending) {
		u32 idx = oq->read_idx, nbuf, data_len, i, first_len;
		unsigned int headroom = OCTF_RX_HEADROOM, metasize = 0;
		struct sk_buff *skb = NULL;
		struct page *page;
		u64 len;

		len = octf_oq_len(oq, idx);
		if (unlikely(!len)) {
			/* a count with no buffer behind it (yet); the ring is
			 * left to the watchdog's ticks, so look now whether
			 * the block went round it (a lap leaves such gaps)
			 */
			nobuf = 1;
			oq->gap_idx = idx;
			if (!lapped && readl(oq->cnts) > oq->count) {
				lapped = 1;
				octf_oq_check_credit(oq);
			}
			break;
		}
		data_len = len - (oq->hdr_len - OCTF_RX_HDR);
		nbuf = octf_oq_bufs(oq, data_len);
		oq->pending--;
		if (unlikely(oq->unacked))
			oq->unacked--;	/* never counted: nothing to ack */
		else
			acked++;
		if (unlikely(len < oq->hdr_len - OCTF_RX_HDR || !data_len ||
			     nbuf > oq->count || nbuf > MAX_SKB_FRAGS + 1 ||
			     (prog && nbuf > 1))) {
			/* not a frame we can take, or XDP on a multi-buffer one */
			nbuf = clamp_t(u32, nbuf, 1, oq->count);
			octf_oq_recycle(oq, idx, nbuf);
			goto next;
		}

		page = oq->bufs[idx].page;
		first_len = min_t(u32, data_len, oq->bufsz - oq->hdr_len);
		dma_sync_single_range_for_cpu(oq->dev, oq->bufs[idx].dma,
					      OCTF_RX_HEADROOM, first_len, dir);
		if (prog) {
			struct xdp_buff xdp;
			unsigned int act;

			xdp_init_buff(&xdp, PAGE_SIZE, &oq->xdp_rxq);
			xdp_prepare_buff(&xdp, page_address(page),
					 OCTF_RX_HEADROOM, first_len, true);
			act = octf_xdp_run(oq, prog, &xdp, page);
			if (act != OCTF_XDP_PASS) {
				oq->bufs[idx].page = NULL;
				xdp_flags |= act;
				xdp_drop += !!(act & OCTF_XDP_CONSUMED);
				xdp_tx += !!(act & OCTF_XDP_TX);
				xdp_redir += !!(act & OCTF_XDP_REDIR);
				bytes += first_len;
				done++;
				taken += 1;
				oq->read_idx = octf_oq_next(oq, idx);
				continue;
			}
			headroom = xdp.data - xdp.data_hard_start;
			first_len = xdp.data_end - xdp.data;
			metasize = xdp.data - xdp.data_meta;
		}
		skb = octf_oq_build(oq, page, headroom, first_len, metasize);
		if (unlikely(!skb)) {
			octf_oq_recycle(oq, idx, nbuf);
			goto next;
		}
		oq->bufs[idx].page = NULL;
		data_len -= min_t(u32, data_len, oq->bufsz - oq->hdr_len);
		for (i = 1; i < nbuf; i++) {
			u32 j = (idx + i) % oq->count, l;
			struct octf_rx_buf *b = &oq->bufs[j];

			l = min_t(u32, data_len, oq->bufsz);
			if (unlikely(!b->page)) {
				dev_kfree_skb_any(skb);
				skb = NULL;
				octf_oq_recycle(oq, j, nbuf - i);
				break;
			}
			dma_sync_single_range_for_cpu(oq->dev, b->dma,
						      octf_oq_off(oq), l, dir);
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, b->page,
					octf_oq_off(oq), l, PAGE_SIZE);
			b->page = NULL;
			data_len -= l;
		}
		if (skb) {
			skb_record_rx_queue(skb, oq->qid);
			bytes += skb->len;	/* the frame, before the pull */
			skb->protocol = eth_type_trans(skb, oq->netdev);
			/* A batch only for a pass of two frames or more. */
			dbbatch_pass_deliver_more(batch, done + 1 < budget &&
						  oq->pending);
			napi_gro_receive(&qv->napi, skb);
			done++;
			taken += nbuf;
			oq->read_idx = (idx + nbuf) % oq->count;
			continue;
		}
next:
		dropped++;
		taken += nbuf;
		oq->read_idx = (idx + nbuf) % oq->count;
	}

	if (acked)
		writel(acked, oq->cnts);
	if (done || acked)
		oq->gap_idx = U32_MAX;
	if (xdp_flags & (OCTF_XDP_TX | OCTF_XDP_REDIR))
		octf_xdp_finalize(p, xdp_flags);

	/* The credit: taken buffers are owed once refilled; one write. */
	octf_credit_taken(&oq->credit, taken);
	oq->to_refill += taken;
	refilled = octf_oq_refill(oq);
	octf_credit_refilled(&oq->credit, refilled);
	if (watch) {
		/* where the block left it: the pass's refusals included */
		u32 d = octf_low_sample(readl(oq->dbell), oq->last_give);

		if (d < READ_ONCE(oq->dbell_least))
			WRITE_ONCE(oq->dbell_least, d);
	}
	give = octf_credit_pass(&oq->credit);
	oq->last_give = give;
	if (give)
		writel(give, oq->dbell);	/* orders the descriptors first */

	u64_stats_update_begin(&oq->sync);
	/* Every frame received, whatever XDP did with it (as igc_batch). */
	oq->st.packets += done;
	oq->st.bytes += bytes;
	oq->st.dropped += dropped;
	oq->st.oq_lapped += lapped;
	oq->st.nobuf += nobuf;
	oq->st.uncounted += found;
	oq->st.xdp_drop += xdp_drop;
	oq->st.xdp_tx += xdp_tx;
	oq->st.xdp_redirect += xdp_redir;
	if (give) {
		oq->st.dbell_writes++;
		oq->st.credit_given += give;
	}
	u64_stats_update_end(&oq->sync);
	if (done) {
		WRITE_ONCE(oq->took, oq->took + 1);
		/* a look at this read index is stale now */
		if (unlikely(oq->peek_idx != U32_MAX))
			WRITE_ONCE(oq->peek_idx, U32_MAX);
	}
	/* Short of pages: poll again rather than wait for a frame.  Its
	 * credit held back, the ring refuses before a pass is busy: the
	 * interval's refusals say nothing of the watermark.
	 */
	if (unlikely(oq->to_refill || oq->credit.owed))
		set_bit(OCTF_LOW_SPOILED, &p->state);
	return oq->to_refill ? budget : done;
}

/**
 * octf_oq_watch - the watchdog's look at one output ring
 * @oq: the ring of a running port, not quiesced; every OCTF_WD_PERIOD_MS
 *
 * A stall is a ring with packets waiting that no NAPI pass entered for
 * two ticks.  A ring with credit owed or pages to refill gets a pass even
 * with nothing arriving: that is what brings a starved ring back.  A gap
 * (a count whose buffer reads empty) seen at the same place on two ticks
 * makes the next pass step over it; until then a pass each tick looks
 * again (the ring's interrupt is left unarmed).  A ring that took frames
 * and fell idle with a count of 0 gets a pass that looks for frames the
 * count never said (octf_oq_peek()), and another two ticks later while
 * it saw one.  The credit check reads the doorbell back in the next pass,
 * where the credit is not moving.
 */
void octf_oq_watch(struct octf_oq *oq)
{
	u32 least = xchg(&oq->dbell_least, OCTF_DBELL_NONE);
	bool visited = xchg(&oq->visited, false);
	struct octf_port *p = oq->port;
	bool kick = false;

	if (least < READ_ONCE(p->low_least))
		WRITE_ONCE(p->low_least, least);
	if (!visited && readl(oq->cnts)) {
		/* its read after a refusal may not come in time */
		set_bit(OCTF_LOW_SPOILED, &p->state);
		if (++oq->unvisited_ticks >= 2) {
			u64_stats_update_begin(&oq->wd_sync);
			oq->wd.stalls++;
			u64_stats_update_end(&oq->wd_sync);
			oq->unvisited_ticks = 0;
			kick = true;
		}
	} else {
		oq->unvisited_ticks = 0;
		/* idle after taking frames, or a written buffer seen: look */
		if (!visited && (READ_ONCE(oq->took) != oq->wd_took ||
				 READ_ONCE(oq->peek_idx) != U32_MAX)) {
			oq->wd_took = READ_ONCE(oq->took);
			WRITE_ONCE(oq->peek_req, true);
			kick = true;
		}
	}
	if (READ_ONCE(oq->gap_idx) != U32_MAX) {
		/* its interrupt is left unarmed: a pass each tick */
		kick = true;
		if (++oq->gap_ticks >= 2) {
			oq->gap_ticks = 0;
			oq->resync_req = true;
		}
	} else {
		oq->gap_ticks = 0;
	}
	if (READ_ONCE(oq->credit.owed) || READ_ONCE(oq->to_refill)) {
		/* credit held back: a full ring may be less than a busy pass */
		set_bit(OCTF_LOW_SPOILED, &p->state);
		kick = true;
	}
	if (READ_ONCE(p->test.ceiling))
		set_bit(OCTF_LOW_SPOILED, &p->state);
	/* the next pass reads the doorbell back (an idle ring cannot lap) */
	WRITE_ONCE(oq->check_req, true);
	if (kick)
		napi_schedule(&oq->qv->napi);
}
