// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch doorbell policy: the only code that writes TDT and RDT.
 *
 * A tail write (doorbell) is an uncached write to the device that costs
 * hundreds of cycles, and the I226 takes only so many per second.  Two
 * rules, each with its knob (module parameter and ethtool private flag):
 *
 * db_skip_empty: a tail is written only when it publishes something, i.e.
 *   when descriptors were added since the last write of that tail.  Every
 *   path goes through the same test: the stack's transmit, the batch-end
 *   flush, the XDP_TX flush at the end of a poll, ndo_xdp_xmit's
 *   XDP_XMIT_FLUSH (also after 0 frames), a flush after another context
 *   already published.  With the knob off every one of those paths rings,
 *   exactly as upstream igc does.
 *
 * tx_db_batched: a stack transmit made while a receive NAPI pass runs on
 *   this CPU (any igc_batch port's, or any dbbatch user's) holds its
 *   doorbell as if xmit_more were set, while the ring is at most 1/8 full;
 *   the dbbatch core runs igcb_doorbell_batch_flush() once when the pass ends.
 *   With the knob off the stack's transmit rings per packet unless
 *   xmit_more, exactly as upstream igc does.
 *
 * RDT is written only when next_to_use moved, whatever the knobs (that is
 * already upstream's behaviour).
 *
 * Locking: TX tails are written under the queue's xmit lock (the stack's
 * transmit, the batch flush, the XDP paths) or with the queue stopped and
 * quiesced (ring setup).  RX tails are written from the ring's NAPI poll or
 * with NAPI disabled.
 */

#include "igcb.h"

enum igcb_doorbell_why {
	IGCB_DB_XMIT,		/* a stack transmit that must ring now */
	IGCB_DB_BATCH,		/* the end of a receive pass that held us */
	IGCB_DB_XDP,		/* XDP_TX end of poll, ndo_xdp_xmit flush */
	IGCB_DB_RESCUE,		/* watchdog: a tail left unpublished */
};

static bool igcb_doorbell_skip_empty(const struct igcb_tx_ring *ring)
{
	return READ_ONCE(ring->adapter->db_flags) & IGCB_DB_SKIP_EMPTY;
}

/* Write TDT.  writel() orders the descriptor writes (normal memory) before
 * the MMIO write, including those another CPU made under this queue's xmit
 * lock before we took it.
 */
static void igcb_doorbell_tx_write(struct igcb_tx_ring *ring,
				   enum igcb_doorbell_why why)
{
	u16 tail = ring->next_to_use;

	writel(tail, ring->tdt);
	ring->tail_written = tail;

	u64_stats_update_begin(&ring->db_sync);
	ring->db.tail_writes++;
	if (why == IGCB_DB_BATCH)
		ring->db.batch_rings++;
	else if (why == IGCB_DB_RESCUE)
		ring->db.rescued++;
	u64_stats_update_end(&ring->db_sync);
}

/* Ring unless skip-empty says there is nothing new. */
static bool igcb_doorbell_tx_flush(struct igcb_tx_ring *ring,
				   enum igcb_doorbell_why why)
{
	if (!dbb_tail_pending(ring->next_to_use, ring->tail_written) &&
	    igcb_doorbell_skip_empty(ring)) {
		u64_stats_update_begin(&ring->db_sync);
		ring->db.skipped_empty++;
		u64_stats_update_end(&ring->db_sync);
		return false;
	}
	igcb_doorbell_tx_write(ring, why);
	return true;
}

/* dbbatch's flush hook: the queue's xmit lock is held, BH disabled. */
static bool igcb_doorbell_batch_flush(struct dbbatch_queue *q)
{
	return igcb_doorbell_tx_flush(container_of(q, struct igcb_tx_ring, dbq),
				      IGCB_DB_BATCH);
}

/**
 * igcb_doorbell_tx_init - doorbell state of a TX ring being set up
 * @ring: the ring, its queue stopped, its registers just programmed
 *
 * TDT must read 0 like TDH; it does after a reset, so it is only written
 * when it does not (skip-empty applies to setup too).
 */
void igcb_doorbell_tx_init(struct igcb_tx_ring *ring)
{
	struct igcb_hw *hw = &ring->adapter->hw;

	ring->next_to_use = 0;
	ring->next_to_clean = 0;
	ring->tail_written = 0;
	ring->stall_seen = false;
	if (igcb_rd32(hw, IGCB_TDT(ring->qid)))
		igcb_doorbell_tx_write(ring, IGCB_DB_XMIT);
	dbbatch_queue_init(&ring->dbq,
			   netdev_get_tx_queue(ring->netdev, ring->qid),
			   igcb_doorbell_batch_flush);
}

/**
 * igcb_doorbell_tx_sent - account a queued stack packet and decide its doorbell
 * @ring: the ring; the caller holds its xmit lock, has written the
 *	descriptors and made its may-stop check
 * @bytes: the packet's bytes for BQL
 */
void igcb_doorbell_tx_sent(struct igcb_tx_ring *ring, unsigned int bytes)
{
	struct netdev_queue *txq = ring->dbq.txq;
	bool more = netdev_xmit_more();
	bool now;

	if (READ_ONCE(ring->adapter->db_flags) & IGCB_DB_TX_BATCHED) {
		now = dbbatch_tx_sent_queue(&ring->dbq, bytes,
					    igcb_tx_used(ring), ring->count);
	} else {
		/* Upstream igc: BQL first, then ring unless xmit_more. */
		netdev_tx_sent_queue(txq, bytes);
		now = netif_xmit_stopped(txq) || !more;
	}
	if (now) {
		igcb_doorbell_tx_flush(ring, IGCB_DB_XMIT);
		return;
	}
	/* Who held it: the stack's bulk or our batch.  Each transmit is
	 * rung at once or counted once here, which is what lets a test
	 * account for every tail write.
	 */
	u64_stats_update_begin(&ring->db_sync);
	if (more)
		ring->db.xmit_more++;
	else
		ring->db.held++;
	u64_stats_update_end(&ring->db_sync);
}

/**
 * igcb_doorbell_tx_publish - publish what is queued, on a transmit that failed
 * @ring: the ring; the caller holds its xmit lock
 *
 * A transmit refused (NETDEV_TX_BUSY) or dropped must not strand the
 * packets queued before it with xmit_more: nothing else may follow on this
 * queue for a long time.  Rings only if something is unpublished, whatever
 * the knobs: an exit that publishes nothing has nothing to ring for.
 */
void igcb_doorbell_tx_publish(struct igcb_tx_ring *ring)
{
	if (dbb_tail_pending(ring->next_to_use, ring->tail_written))
		igcb_doorbell_tx_write(ring, IGCB_DB_XMIT);
}

/**
 * igcb_doorbell_tx_flush_xdp - publish XDP frames queued on @ring
 * @ring: the ring; the caller holds its xmit lock
 *
 * For the end of a poll that did XDP_TX and for ndo_xdp_xmit's
 * XDP_XMIT_FLUSH, whether or not a frame was queued: with skip-empty off
 * this rings regardless, as upstream igc does.
 *
 * Return: whether TDT was written.
 */
bool igcb_doorbell_tx_flush_xdp(struct igcb_tx_ring *ring)
{
	return igcb_doorbell_tx_flush(ring, IGCB_DB_XDP);
}

/**
 * igcb_doorbell_tx_quiesce - make sure no batch still holds a doorbell of @a's
 * @a: the port, its queues stopped with netif_tx_disable()
 *
 * One grace period for all the queues: a batch is an RCU read-side
 * section, and waiting once per queue only made ifdown, ethtool -L/-G and
 * XDP attach slower by a grace period per queue.  Call before the rings
 * are reset or freed.
 */
void igcb_doorbell_tx_quiesce(struct igcb_adapter *a)
{
	struct dbbatch_queue *qs[IGCB_MAX_QUEUES];
	unsigned int i;

	for (i = 0; i < a->num_queues; i++)
		qs[i] = &a->qv[i]->tx.dbq;
	dbbatch_queues_quiesce(qs, a->num_queues);
}

/**
 * igcb_doorbell_tx_watch - watchdog check for a tail left unpublished
 * @ring: a running ring; called every watchdog period (2 s)
 *
 * No path should leave descriptors unpublished for long: a held doorbell
 * rings at the end of its receive pass, a transmit with xmit_more is
 * followed by one without.  If the same unpublished tail is seen on two
 * ticks in a row, that promise was broken (by us or by a caller); say so
 * once and ring, rather than stall the queue until it times out.
 */
void igcb_doorbell_tx_watch(struct igcb_tx_ring *ring)
{
	struct netdev_queue *txq = ring->dbq.txq;

	__netif_tx_lock_bh(txq);
	if (!dbb_tail_pending(ring->next_to_use, ring->tail_written)) {
		ring->stall_seen = false;
	} else if (!ring->stall_seen || ring->stall_ntu != ring->next_to_use) {
		ring->stall_seen = true;
		ring->stall_ntu = ring->next_to_use;
	} else {
		netdev_warn_once(ring->netdev,
				 "TX queue %u: descriptors %u..%u left unpublished for a watchdog period; ringing\n",
				 ring->qid, ring->tail_written,
				 ring->next_to_use);
		igcb_doorbell_tx_write(ring, IGCB_DB_RESCUE);
		ring->stall_seen = false;
	}
	__netif_tx_unlock_bh(txq);
}

static void igcb_doorbell_rx_write(struct igcb_rx_ring *ring)
{
	u16 tail = ring->next_to_use;

	writel(tail, ring->rdt);
	ring->tail_written = tail;
	u64_stats_update_begin(&ring->sync);
	ring->st.tail_writes++;
	u64_stats_update_end(&ring->sync);
}

/**
 * igcb_doorbell_rx_init - doorbell state of an RX ring being set up
 * @ring: the ring, NAPI disabled, its registers just programmed
 */
void igcb_doorbell_rx_init(struct igcb_rx_ring *ring)
{
	struct igcb_hw *hw = &ring->adapter->hw;

	ring->next_to_use = 0;
	ring->next_to_clean = 0;
	ring->tail_written = 0;
	if (igcb_rd32(hw, IGCB_RDT(ring->qid)))
		igcb_doorbell_rx_write(ring);
}

/**
 * igcb_doorbell_rx_publish - hand refilled RX descriptors to the hardware
 * @ring: the ring, from its NAPI poll or with NAPI disabled
 */
void igcb_doorbell_rx_publish(struct igcb_rx_ring *ring)
{
	if (dbb_tail_pending(ring->next_to_use, ring->tail_written))
		igcb_doorbell_rx_write(ring);
}
