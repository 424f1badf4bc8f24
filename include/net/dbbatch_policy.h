/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dbbatch policy: the pure decisions behind NAPI-batched doorbells.
 *
 * Nothing here touches the kernel, so user-space unit tests and fuzzers
 * (tests/unit/) run exactly the code the kernel module runs.
 */
#ifndef _NET_DBBATCH_POLICY_H
#define _NET_DBBATCH_POLICY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

/* At most this many queues hold their doorbell in one batch (FreeBSD D60416). */
#define DBB_MAX_HELD		8

/*
 * A queue holds only while at most 1/(1 << DBB_HOLD_SHIFT) of its ring is
 * in use: the range where nothing else batches its doorbell.  Above it the
 * driver rings at once, keeping the hardware fed.
 */
#define DBB_HOLD_SHIFT		3

/* What the transmit path is told to do with its doorbell. */
enum dbb_verdict {
	DBB_HOLD,		/* defer: the batch's end rings it */
	DBB_RING_NO_BATCH,	/* no batch is open for this context */
	DBB_RING_BUSY,		/* ring more than 1/8 full */
	DBB_RING_CAP,		/* DBB_MAX_HELD queues are already held */
};

/*
 * @used descriptors of a @size-entry ring are in use, counting the packet
 * just queued.  A zero-sized or over-reported ring never holds.
 */
static inline bool dbb_below_threshold(unsigned int used, unsigned int size)
{
	if (!size || used > size)
		return false;
	return (unsigned long long)used << DBB_HOLD_SHIFT <= size;
}

/*
 * The hold decision for a context that has a batch open.  A queue already
 * held stays held below the threshold without taking another slot; above
 * it the driver rings, which also publishes what was held before.
 */
static inline enum dbb_verdict dbb_decide(bool already_held,
					  unsigned int nheld,
					  unsigned int used, unsigned int size)
{
	if (!dbb_below_threshold(used, size))
		return DBB_RING_BUSY;
	if (already_held)
		return DBB_HOLD;
	if (nheld >= DBB_MAX_HELD)
		return DBB_RING_CAP;
	return DBB_HOLD;
}

/*
 * Open on demand: a receive pass opens its batch at a hand-over to the
 * stack only when another frame is ready behind this one (@more), or when
 * an earlier hand-over of the same pass went without a batch (@delivered:
 * a frame arrived while the pass ran).  A pass that hands over one frame
 * opens none: its transmit rings at once, the one doorbell the batch's
 * end would have rung, without the batch's open, hold and flush.
 */
static inline bool dbb_open_at_delivery(bool more, bool delivered)
{
	return more || delivered;
}

/*
 * Skip-empty: a tail write publishes the descriptors between the last
 * value written and @tail.  Writing the same value again publishes nothing
 * and costs the device a doorbell all the same.
 */
static inline bool dbb_tail_pending(unsigned int tail, unsigned int written)
{
	return tail != written;
}

/*
 * Doorbells a batch saved: every deferred transmit would have rung; each
 * flush that rang and each held transmit rung at once (queue stopped)
 * gave one back.  Counters are sampled without a lock, so never go below 0.
 */
static inline unsigned long dbb_rings_saved(unsigned long deferred,
					    unsigned long flush_rings,
					    unsigned long stopped_rings)
{
	unsigned long spent = flush_rings + stopped_rings;

	return deferred > spent ? deferred - spent : 0;
}

#endif /* _NET_DBBATCH_POLICY_H */
