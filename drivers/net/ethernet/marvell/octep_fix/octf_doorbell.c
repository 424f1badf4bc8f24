// SPDX-License-Identifier: GPL-2.0
/*
 * octep_fix transmit doorbell policy: the only code that writes
 * IN_INSTR_DBELL.  The receive doorbell is the credit (octf_rx.c).
 *
 * IN_INSTR_DBELL is additive: a write announces that many new
 * instructions.  Two rules, each with its knob (module parameter and
 * ethtool private flag), as igc_batch has them:
 *
 * db_skip_empty: the doorbell is written only when it announces
 *   something.  Every path goes through the same test: the stack's
 *   transmit, the batch-end flush, the XDP_TX flush at the end of a poll,
 *   ndo_xdp_xmit's XDP_XMIT_FLUSH.  Off: every one of those paths rings,
 *   writing 0 when there is nothing, as a driver without the test would.
 *
 * tx_db_batched: a stack transmit made while a receive NAPI pass runs on
 *   this CPU (any dbbatch user's: ours, igc_batch's) holds its doorbell
 *   as if xmit_more were set, while the ring is at most 1/8 full; the
 *   dbbatch core runs octf_doorbell_batch_flush() once when the pass ends.
 *   Off: the stack's transmit rings unless xmit_more.
 *
 * Locking: under the queue's xmit lock, or with the queue stopped and
 * quiesced (ring setup).
 */

#include "octf.h"

enum octf_doorbell_why {
	OCTF_DB_XMIT,
	OCTF_DB_BATCH,
	OCTF_DB_XDP,
};

static void octf_doorbell_write(struct octf_iq *iq, enum octf_doorbell_why why)
{
	u32 n = iq->next_to_use >= iq->tail_written ?
		iq->next_to_use - iq->tail_written :
		iq->count + iq->next_to_use - iq->tail_written;

	/* writel orders the instruction writes before it */
	writel(n, iq->dbell);
	iq->tail_written = iq->next_to_use;

	u64_stats_update_begin(&iq->sync);
	iq->st.dbell_writes++;
	if (why == OCTF_DB_BATCH)
		iq->st.batch_rings++;
	u64_stats_update_end(&iq->sync);
}

static bool octf_doorbell_flush(struct octf_iq *iq, enum octf_doorbell_why why)
{
	if (!dbb_tail_pending(iq->next_to_use, iq->tail_written) &&
	    (READ_ONCE(iq->port->db_flags) & OCTF_DB_SKIP_EMPTY)) {
		u64_stats_update_begin(&iq->sync);
		iq->st.skipped_empty++;
		u64_stats_update_end(&iq->sync);
		return false;
	}
	octf_doorbell_write(iq, why);
	return true;
}

/* dbbatch's flush hook: the queue's xmit lock is held, BH disabled. */
static bool octf_doorbell_batch_flush(struct dbbatch_queue *q)
{
	return octf_doorbell_flush(container_of(q, struct octf_iq, dbq),
				   OCTF_DB_BATCH);
}

/**
 * octf_doorbell_tx_init - doorbell state of an input ring being set up
 * @iq: the ring, its queue stopped, its doorbell just cleared
 */
void octf_doorbell_tx_init(struct octf_iq *iq)
{
	iq->next_to_use = 0;
	iq->next_to_clean = 0;
	iq->tail_written = 0;
	dbbatch_queue_init(&iq->dbq, netdev_get_tx_queue(iq->netdev, iq->qid),
			   octf_doorbell_batch_flush);
}

/**
 * octf_doorbell_tx_sent - account a queued stack packet and decide its doorbell
 * @iq: the ring; the caller holds its xmit lock, wrote the instruction
 *	and made its may-stop check
 * @bytes: the packet's bytes for BQL
 */
void octf_doorbell_tx_sent(struct octf_iq *iq, unsigned int bytes)
{
	struct netdev_queue *txq = iq->dbq.txq;
	bool more = netdev_xmit_more();
	bool now;

	if (READ_ONCE(iq->port->db_flags) & OCTF_DB_TX_BATCHED) {
		now = dbbatch_tx_sent_queue(&iq->dbq, bytes, octf_iq_used(iq),
					    iq->count);
		if (!now && !more) {
			u64_stats_update_begin(&iq->sync);
			iq->st.held++;
			u64_stats_update_end(&iq->sync);
		}
	} else {
		netdev_tx_sent_queue(txq, bytes);
		now = netif_xmit_stopped(txq) || !more;
	}
	if (now)
		octf_doorbell_flush(iq, OCTF_DB_XMIT);
}

/**
 * octf_doorbell_tx_publish - announce what is queued, on a transmit that failed
 * @iq: the ring; the caller holds its xmit lock
 *
 * A refused or dropped transmit must not strand instructions queued
 * before it with xmit_more.  Rings only if something is unannounced.
 */
void octf_doorbell_tx_publish(struct octf_iq *iq)
{
	if (dbb_tail_pending(iq->next_to_use, iq->tail_written))
		octf_doorbell_write(iq, OCTF_DB_XMIT);
}

/* XDP_TX end of poll and XDP_XMIT_FLUSH; the caller holds the lock. */
bool octf_doorbell_tx_flush_xdp(struct octf_iq *iq)
{
	return octf_doorbell_flush(iq, OCTF_DB_XDP);
}

/**
 * octf_doorbell_tx_quiesce - make sure no batch still holds a doorbell of ours
 * @p: the port, its queues stopped
 */
void octf_doorbell_tx_quiesce(struct octf_port *p)
{
	struct dbbatch_queue *qs[OCTF_MAX_QUEUES];
	unsigned int i;

	for (i = 0; i < p->num_queues; i++)
		qs[i] = &p->qv[i]->iq.dbq;
	dbbatch_queues_quiesce(qs, p->num_queues);
}
