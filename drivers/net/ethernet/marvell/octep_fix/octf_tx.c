// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix transmit: input rings of 64-byte instructions, one per packet,
 * the data given directly (linear packets) or through a gather list (one
 * pointer per fragment, lengths stored reversed in each 4-pointer entry).
 * Completions are counted by IN_CNTS; BQL; the doorbell in octf_doorbell.c.
 *
 * Instructions from next_to_clean up to next_to_use are the device's; one
 * slot always stays free so that a full ring never looks empty.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>

#include "octf.h"

#define OCTF_IDLE_POLLS		1000

int octf_iq_alloc(struct octf_iq *iq)
{
	size_t dsz = iq->count * sizeof(*iq->desc);
	size_t ssz = iq->count * OCTF_SG_ENTRIES * sizeof(*iq->sg);

	iq->bufs = kvcalloc(iq->count, sizeof(*iq->bufs), GFP_KERNEL);
	if (!iq->bufs)
		return -ENOMEM;
	iq->desc = dma_alloc_coherent(iq->dev, dsz, &iq->desc_dma, GFP_KERNEL);
	iq->sg = dma_alloc_coherent(iq->dev, ssz, &iq->sg_dma, GFP_KERNEL);
	if (!iq->desc || !iq->sg) {
		octf_iq_free(iq);
		return -ENOMEM;
	}
	return 0;
}

void octf_iq_free(struct octf_iq *iq)
{
	if (iq->desc)
		dma_free_coherent(iq->dev, iq->count * sizeof(*iq->desc),
				  iq->desc, iq->desc_dma);
	iq->desc = NULL;
	if (iq->sg)
		dma_free_coherent(iq->dev,
				  iq->count * OCTF_SG_ENTRIES * sizeof(*iq->sg),
				  iq->sg, iq->sg_dma);
	iq->sg = NULL;
	kvfree(iq->bufs);
	iq->bufs = NULL;
}

/**
 * octf_iq_configure - program an input ring and enable it
 * @iq: the ring, allocated, its queue stopped
 */
void octf_iq_configure(struct octf_iq *iq)
{
	struct octf_port *p = iq->port;
	unsigned int q = iq->qid, i;
	u64 ctl;

	/* The block must be idle before its ring registers change. */
	for (i = 0; i < OCTF_IDLE_POLLS; i++) {
		ctl = octf_rd64(p, OCTF_IN_CONTROL(q));
		if (ctl & OCTF_IN_CTL_IDLE)
			break;
		usleep_range(10, 20);
	}
	if (!(ctl & OCTF_IN_CTL_IDLE))
		netdev_warn(iq->netdev, "input ring %u not idle after 10 ms; programming it anyway\n",
			    q);
	octf_wr64(p, OCTF_IN_CONTROL(q), ctl | OCTF_IN_CTL_RDSIZE |
		  OCTF_IN_CTL_IS_64B | OCTF_IN_CTL_ESR);
	octf_wr64(p, OCTF_IN_INSTR_BADDR(q), iq->desc_dma);
	octf_wr64(p, OCTF_IN_INSTR_RSIZE(q), iq->count);
	iq->dbell = p->bar0 + OCTF_IN_INSTR_DBELL(q);
	iq->cnts = p->bar0 + OCTF_IN_CNTS(q);
	writel(OCTF_DBELL_CLEAR, iq->dbell);
	/* Whatever completed before counts for nothing now. */
	writel(readl(iq->cnts), iq->cnts);
	octf_doorbell_tx_init(iq);
	memset(iq->desc, 0, iq->count * sizeof(*iq->desc));

	for (i = 0; i < OCTF_IDLE_POLLS && readl(iq->dbell); i++)
		usleep_range(10, 20);
	/* An interrupt per completion while armed; NAPI re-arms it. */
	octf_wr64(p, OCTF_IN_INT_LEVELS(q), OCTF_INT_LEVELS_ENA);
	octf_wr64(p, OCTF_IN_ENABLE(q), 1);
}

void octf_iq_disable(struct octf_iq *iq)
{
	struct octf_port *p = iq->port;

	octf_wr64(p, OCTF_IN_ENABLE(iq->qid), 0);
	octf_wr64(p, OCTF_IN_INT_LEVELS(iq->qid), 0);
}

void octf_iq_unmap(struct octf_iq *iq, struct octf_tx_buf *b)
{
	unsigned int i;

	/* XDP_TX sends a page of our own pool, mapped by the pool */
	if (b->kind == OCTF_TXB_XDP_TX)
		b->nmaps = 0;
	for (i = 0; i < b->nmaps; i++) {
		if (!i && b->head_single)
			dma_unmap_single(iq->dev, b->dma[0], b->len[0],
					 DMA_TO_DEVICE);
		else
			dma_unmap_page(iq->dev, b->dma[i], b->len[i],
				       DMA_TO_DEVICE);
	}
	b->nmaps = 0;
}

static void octf_iq_free_payload(struct octf_iq *iq, struct octf_tx_buf *b,
				 int budget)
{
	octf_iq_unmap(iq, b);
	if (b->kind == OCTF_TXB_SKB) {
		if (b->skb)
			napi_consume_skb(b->skb, budget);
	} else if (b->xdpf) {
		xdp_return_frame(b->xdpf);
	}
	b->skb = NULL;
}

/* Free every instruction's payload; the ring is disabled. */
void octf_iq_drop_all(struct octf_iq *iq)
{
	unsigned int i;

	if (!iq->bufs)
		return;
	for (i = 0; i < iq->count; i++)
		octf_iq_free_payload(iq, &iq->bufs[i], 0);
	iq->next_to_clean = iq->next_to_use;
	netdev_tx_reset_queue(netdev_get_tx_queue(iq->netdev, iq->qid));
}

static void octf_iq_count_restart(struct octf_iq *iq)
{
	u64_stats_update_begin(&iq->sync);
	iq->st.restarts++;
	u64_stats_update_end(&iq->sync);
}

/* Stop the queue when the next packet might not fit. */
static void octf_iq_maybe_stop(struct octf_iq *iq)
{
	if (likely(octf_iq_unused(iq) >= 2))
		return;
	netif_tx_stop_queue(iq->dbq.txq);
	/* pairs with the cleaner's smp_mb() after next_to_clean moved */
	smp_mb();
	if (octf_iq_unused(iq) >= OCTF_TX_WAKE) {
		netif_tx_start_queue(iq->dbq.txq);
		octf_iq_count_restart(iq);
	}
}

/* Write instruction @idx: direct data or a gather list of @n pointers. */
void octf_iq_write(struct octf_iq *iq, u32 idx, struct octf_tx_buf *b,
		   u32 total)
{
	struct octf_port *p = iq->port;
	struct octf_iq_desc *d = &iq->desc[idx];
	u64 ih;

	ih = FIELD_PREP(OCTF_IH_TLEN, total + p->fw.fsz) |
	     FIELD_PREP(OCTF_IH_PKIND, p->fw.pkind) |
	     FIELD_PREP(OCTF_IH_FSZ, p->fw.fsz);
	if (b->nmaps == 1) {
		d->dptr = cpu_to_le64(b->dma[0]);
	} else {
		struct octf_sg_entry *sg = &iq->sg[idx * OCTF_SG_ENTRIES];
		unsigned int i;

		memset(sg, 0, OCTF_SG_ENTRIES * sizeof(*sg));
		for (i = 0; i < b->nmaps; i++) {
			sg[i / 4].len[3 - i % 4] = cpu_to_le16(b->len[i]);
			sg[i / 4].ptr[i % 4] = cpu_to_le64(b->dma[i]);
		}
		d->dptr = cpu_to_le64(iq->sg_dma + idx * OCTF_SG_ENTRIES *
				      sizeof(*sg));
		ih |= FIELD_PREP(OCTF_IH_GSZ, b->nmaps) | OCTF_IH_GATHER;
	}
	d->ih = cpu_to_le64(ih);
	d->front[0] = 0;
	d->front[1] = 0;
}

static void octf_iq_drop(struct octf_iq *iq, struct sk_buff *skb)
{
	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&iq->sync);
	iq->st.dropped++;
	u64_stats_update_end(&iq->sync);
	/* instructions queued with xmit_more before it must not wait */
	octf_doorbell_tx_publish(iq);
}

netdev_tx_t octf_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct octf_port *p = netdev_priv(netdev);
	struct octf_iq *iq = &p->qv[skb_get_queue_mapping(skb)]->iq;
	struct octf_tx_buf *b;
	unsigned int f, nr;
	u32 idx;

	/* The block sends what it is given: pad short frames ourselves. */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		octf_doorbell_tx_publish(iq);
		return NETDEV_TX_OK;
	}
	if (unlikely(skb->len + p->fw.fsz > U16_MAX)) {
		octf_iq_drop(iq, skb);
		return NETDEV_TX_OK;
	}
	if (unlikely(octf_iq_unused(iq) < 1)) {
		netif_tx_stop_queue(iq->dbq.txq);
		u64_stats_update_begin(&iq->sync);
		iq->st.busy++;
		u64_stats_update_end(&iq->sync);
		octf_doorbell_tx_publish(iq);
		return NETDEV_TX_BUSY;
	}

	idx = iq->next_to_use;
	b = &iq->bufs[idx];
	nr = skb_shinfo(skb)->nr_frags;
	b->kind = OCTF_TXB_SKB;
	b->skb = skb;
	b->bytes = skb->len;
	b->nmaps = 0;
	b->head_single = true;
	b->dma[0] = dma_map_single(iq->dev, skb->data, skb_headlen(skb),
				   DMA_TO_DEVICE);
	if (dma_mapping_error(iq->dev, b->dma[0]))
		goto err_map;
	b->len[0] = skb_headlen(skb);
	b->nmaps = 1;
	for (f = 0; f < nr; f++) {
		skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

		b->dma[f + 1] = skb_frag_dma_map(iq->dev, frag, 0,
						 skb_frag_size(frag),
						 DMA_TO_DEVICE);
		if (dma_mapping_error(iq->dev, b->dma[f + 1]))
			goto err_map;
		b->len[f + 1] = skb_frag_size(frag);
		b->nmaps++;
	}
	/* A zero-length head (all in fragments) still takes a pointer: the
	 * gather list's lengths must add up, and 0 is a valid length.
	 */
	octf_iq_write(iq, idx, b, skb->len);
	iq->next_to_use = idx + 1 == iq->count ? 0 : idx + 1;
	skb_tx_timestamp(skb);
	octf_iq_maybe_stop(iq);
	octf_doorbell_tx_sent(iq, skb->len);
	return NETDEV_TX_OK;

err_map:
	octf_iq_unmap(iq, b);
	b->skb = NULL;
	octf_iq_drop(iq, skb);
	return NETDEV_TX_OK;
}

/* Wake a queue octf_iq_maybe_stop() stopped, under its xmit lock so that
 * a wake cannot undo octf_down()'s netif_tx_disable().
 */
static void octf_iq_wake(struct octf_iq *iq, bool netpoll)
{
	struct netdev_queue *txq = iq->dbq.txq;

	if (!netpoll)
		__netif_tx_lock(txq, smp_processor_id());
	else if (!__netif_tx_trylock(txq))
		return;
	if (netif_tx_queue_stopped(txq) && netif_carrier_ok(iq->netdev) &&
	    octf_iq_unused(iq) >= OCTF_TX_WAKE &&
	    !test_bit(OCTF_DOWN, &iq->port->state) &&
	    !test_bit(OCTF_FW_LOST, &iq->port->state)) {
		netif_tx_wake_queue(txq);
		octf_iq_count_restart(iq);
	}
	__netif_tx_unlock(txq);
}

/**
 * octf_iq_wake_all - wake the queues that filled while the carrier was off
 * @p: the port, RTNL held (the queue vectors cannot go), from the watchdog
 *
 * The cleaner wakes a full queue only with the carrier on; one that has
 * nothing left to complete would otherwise wait for the transmit timeout.
 * Each wake is under its queue's lock, where octf_down() cannot be half
 * way (it sets OCTF_DOWN before it takes the locks to stop the queues).
 */
void octf_iq_wake_all(struct octf_port *p)
{
	unsigned int i;

	ASSERT_RTNL();
	local_bh_disable();
	for (i = 0; i < p->num_queues; i++)
		octf_iq_wake(&p->qv[i]->iq, false);
	local_bh_enable();
}

/**
 * octf_iq_clean - reclaim completed instructions
 * @iq: the ring, from its queue vector's NAPI poll
 * @budget: the poll's budget (0 from netpoll)
 *
 * Return: true: everything completed was reclaimed.
 */
bool octf_iq_clean(struct octf_iq *iq, int budget)
{
	unsigned int pkts = 0, bytes = 0;
	u32 done, i;

	if (unlikely(test_bit(OCTF_DOWN, &iq->port->state)))
		return true;
	done = readl(iq->cnts);
	if (done) {
		/* the block cannot complete more than was queued */
		done = min(done, octf_iq_used(iq));
		i = iq->next_to_clean;
		while (pkts < done) {
			struct octf_tx_buf *b = &iq->bufs[i];

			/* netpoll (budget 0, IRQs may be off) must not return
			 * XDP frames: napi.rst.  They wait for the next pass.
			 */
			if (!budget && b->kind != OCTF_TXB_SKB)
				break;
			bytes += b->bytes;
			octf_iq_free_payload(iq, b, budget);
			i = i + 1 == iq->count ? 0 : i + 1;
			pkts++;
		}
		/* the count left is read again by the next clean */
		if (pkts)
			writel(pkts, iq->cnts);
		WRITE_ONCE(iq->next_to_clean, i);
		netdev_tx_completed_queue(iq->dbq.txq, pkts, bytes);
		u64_stats_update_begin(&iq->clean_sync);
		iq->cs.packets += pkts;
		iq->cs.bytes += bytes;
		u64_stats_update_end(&iq->clean_sync);
		/* next_to_clean before the stopped test */
		smp_mb();
	}
	if (unlikely(netif_tx_queue_stopped(iq->dbq.txq)) &&
	    octf_iq_unused(iq) >= OCTF_TX_WAKE)
		octf_iq_wake(iq, !budget);
	return true;
}
