/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dbbatch: NAPI-batched transmit doorbells.
 *
 * A receive NAPI poll opens a batch on its CPU for the whole of its pass,
 * or from the first packet it hands the stack (dbbatch_pass_begin()), or
 * from the first with another behind it (dbbatch_pass_deliver_more()).
 * Packets the pass forwards reach transmit queues that, while the batch is
 * open and their ring is at most 1/8 full, hold their tail write (the
 * doorbell) and report it to BQL as xmit_more.  When the pass ends each
 * held queue's flush hook runs once, under the queue's xmit lock, and
 * rings only if something was queued since its last tail write.
 *
 * See Documentation/networking/dbbatch.rst.
 */
#ifndef _NET_DBBATCH_H
#define _NET_DBBATCH_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <net/dbbatch_policy.h>

struct dbbatch_frame;

/**
 * struct dbbatch_queue - a transmit queue's part in dbbatch
 * @txq: the queue; its xmit lock serialises @holders and the flush
 * @flush: write the tail if descriptors were queued since the last write;
 *	return true if it wrote.  Called under @txq's xmit lock, BH disabled.
 * @holders: how many open batches hold this queue's doorbell, 0 when none.
 *	Each flushes it at its own end, as FreeBSD's iflib counts them: a
 *	transmit never waits for another CPU's pass to end.
 * @never_hold: set at init on a device whose transmit takes no xmit lock
 *	(LLTX): nothing would serialise a hold with the flush
 *
 * Embedded in the driver's transmit ring and set up with dbbatch_queue_init().
 */
struct dbbatch_queue {
	struct netdev_queue *txq;
	bool (*flush)(struct dbbatch_queue *q);
	unsigned int holders;
	bool never_hold;
};

/* How deep batches may nest on one CPU; an open beyond it is refused. */
#define DBB_MAX_DEPTH	4

/* The owner of a frame its opener closed from another CPU. */
#define DBB_ORPHAN	((const struct task_struct *)1UL)

/**
 * struct dbbatch_frame - the state of one open batch, in per-CPU memory
 * @owner: the task that opened it; DBB_ORPHAN once closed from elsewhere
 * @nheld: how many entries of @held are in use
 * @held: the queues whose doorbell this batch holds
 *
 * Per-CPU rather than on the opener's stack, so that a batch its opener
 * failed to close is still sound memory when it is found and flushed.
 */
struct dbbatch_frame {
	const struct task_struct *owner;
	unsigned int nheld;
	struct dbbatch_queue *held[DBB_MAX_HELD];
};

/**
 * struct dbbatch - a handle on an open batch; lives on the opener's stack
 * @depth: 1 + the index of its frame on this CPU; 0 if not open (refused,
 *	or a pass that has not delivered yet)
 * @cpu: the CPU it was opened on, for dbbatch_close()'s check
 * @open_on_deliver: dbbatch_pass_begin() left the open to a hand-over of
 *	the pass (dbbatch_pass_deliver() or dbbatch_pass_deliver_more())
 * @delivered: a hand-over of this pass went without opening, believed the
 *	last (dbbatch_pass_deliver_more())
 */
struct dbbatch {
	unsigned int depth;
	unsigned int cpu;
	bool open_on_deliver;
	bool delivered;
};

/* Per-CPU event counters; see Documentation/networking/dbbatch.rst. */
struct dbbatch_stats {
	unsigned long batches;
	unsigned long queues_held;
	unsigned long deferred;
	unsigned long flushes;
	unsigned long flush_rings;
	unsigned long stopped_rings;
	unsigned long busy_rings;
	unsigned long overflow_rings;
	unsigned long refused_opens;
	unsigned long left_open;
	unsigned long bad_calls;
};

struct dbbatch_pcpu {
	unsigned int depth;	/* open batches on this CPU */
	struct dbbatch_frame frame[DBB_MAX_DEPTH];
	struct dbbatch_stats stats;
};

DECLARE_PER_CPU(struct dbbatch_pcpu, dbbatch_pcpu);

void dbbatch_queue_init(struct dbbatch_queue *q, struct netdev_queue *txq,
			bool (*flush)(struct dbbatch_queue *q));
void dbbatch_queue_quiesce(struct dbbatch_queue *q);
void dbbatch_queues_quiesce(struct dbbatch_queue *const *qs, unsigned int n);

void dbbatch_open(struct dbbatch *b);
void dbbatch_close(struct dbbatch *b);
enum dbb_verdict dbbatch_tx_decide(struct dbbatch_queue *q,
				   unsigned int used, unsigned int size);
void dbbatch_napi_deliver(struct napi_struct *napi);
void dbbatch_stats_sum(struct dbbatch_stats *sum);

/* Cheap test for the transmit path: may any batch be open on this CPU? */
static inline bool dbbatch_maybe_open(void)
{
	return this_cpu_read(dbbatch_pcpu.depth);
}

/**
 * dbbatch_tx_sent_queue - account a queued packet and decide the doorbell
 * @q: the queue the packet went to
 * @bytes: its length, for BQL
 * @used: descriptors in use on the ring, this packet's included
 * @size: descriptors in the ring
 *
 * Replaces the driver's netdev_tx_sent_queue()/__netdev_tx_sent_queue()
 * call.  Call under the queue's xmit lock, after the descriptors are
 * written and after the driver's own may-stop check.
 *
 * Return: true if the driver must write its tail now.  A stopped queue
 * always rings at once, held or not, and so does one past its BQL limit
 * (which BQL then stops): its later flush finds nothing.
 */
static inline bool dbbatch_tx_sent_queue(struct dbbatch_queue *q,
					 unsigned int bytes,
					 unsigned int used, unsigned int size)
{
	bool more = netdev_xmit_more();
	bool held = false;
	bool defer;

	if (!more && dbbatch_maybe_open())
		held = dbbatch_tx_decide(q, used, size) == DBB_HOLD;
	defer = more || held;
#ifdef CONFIG_BQL
	/* xmit_more skips BQL's limit check: a hold must not outrun it. */
	if (held && dql_avail(&q->txq->dql) < (int)bytes)
		defer = false;
#endif
	if (!__netdev_tx_sent_queue(q->txq, bytes, defer))
		return false;
	if (held)
		this_cpu_inc(dbbatch_pcpu.stats.stopped_rings);
	return true;
}

/**
 * dbbatch_pass_deliver - a receive pass is about to hand the stack a packet
 * @b: the handle from dbbatch_pass_begin()
 *
 * Call before each napi_gro_receive() (or other hand-over to the stack) of
 * the pass; the first opens the batch, the others cost a test.
 */
static __always_inline void dbbatch_pass_deliver(struct dbbatch *b)
{
	if (unlikely(b->open_on_deliver)) {
		b->open_on_deliver = false;
		dbbatch_open(b);
	}
}

static __always_inline void
__dbbatch_pass_deliver_more(struct dbbatch *b, bool more)
{
	if (!dbb_open_at_delivery(more, b->delivered)) {
		b->delivered = true;
		return;
	}
	b->open_on_deliver = false;
	dbbatch_open(b);
}

/**
 * dbbatch_pass_deliver_more - dbbatch_pass_deliver() for a pass that can
 *	tell whether another frame is ready behind this one
 * @b: the handle from dbbatch_pass_begin()
 * @more: an expression, evaluated only while the batch is not open yet:
 *	true if the pass has another frame ready to hand over after this one
 *
 * The batch opens only when the pass hands over more than one frame: a
 * pass of a single frame (most of them at low rates) rings its transmit at
 * once, the one doorbell its batch would have rung, and saves the batch's
 * open, hold decision and flush.  A hand-over that finds the pass already
 * delivered a frame without opening opens whatever @more says.
 */
#define dbbatch_pass_deliver_more(b, more)				\
	do {								\
		struct dbbatch *__b = (b);				\
									\
		if (unlikely(__b->open_on_deliver))			\
			__dbbatch_pass_deliver_more(__b, (more));	\
	} while (0)

/**
 * dbbatch_pass_begin - start a receive pass that opens its batch on demand
 * @b: the handle, on the poll's stack
 * @napi: the NAPI instance being polled
 * @budget: the poll's budget; 0 (netpoll) receives nothing and never opens
 *
 * For a poll that often hands the stack nothing: a pass that only reclaims
 * transmitted buffers, or whose frames all go to XDP_REDIRECT, XDP_TX or
 * XDP_DROP, forwards nothing through the stack, and a batch would only
 * cost its open and close.  The batch opens at the pass's first
 * dbbatch_pass_deliver() (or at the first dbbatch_pass_deliver_more() with
 * another frame behind it), or here already when GRO or the rx_list holds
 * packets of an earlier pass (this one may hand them over).  End the pass
 * with dbbatch_pass_end() on every path.
 */
static inline void dbbatch_pass_begin(struct dbbatch *b,
				      struct napi_struct *napi, int budget)
{
	b->depth = 0;
	b->open_on_deliver = budget != 0;
	b->delivered = false;
	if (napi->gro_bitmask || napi->rx_count)
		dbbatch_pass_deliver(b);
}

/**
 * dbbatch_pass_end - end a pass begun with dbbatch_pass_begin()
 * @b: its handle
 * @napi: the NAPI instance
 * @work: what the poll returns
 * @budget: its budget
 *
 * When a batch is open and the poll used its whole budget, the GRO and
 * rx_list packets the core would hand over after the poll are handed over
 * inside it; then it closes.
 */
static inline void dbbatch_pass_end(struct dbbatch *b,
				    struct napi_struct *napi, int work,
				    int budget)
{
	b->open_on_deliver = false;
	if (!b->depth)
		return;
	if (work >= budget)
		dbbatch_napi_deliver(napi);
	dbbatch_close(b);
}

/**
 * dbbatch_napi_poll - run a NAPI poll function inside a batch
 * @napi: the NAPI instance
 * @budget: its budget
 * @poll: the driver's receive poll
 *
 * Use as the body of the poll function registered with netif_napi_add().
 * When @poll used its whole budget the core would hand the remaining GRO
 * and rx_list packets to the stack after the poll returns, outside the
 * batch; they are handed over here, inside it, instead.  A zero budget
 * (netpoll) receives nothing, so it runs without a batch.
 */
static __always_inline int dbbatch_napi_poll(struct napi_struct *napi,
					     int budget,
					     int (*poll)(struct napi_struct *,
							 int))
{
	struct dbbatch b;
	int work;

	/* a pass that opens at once, not on its first delivery */
	dbbatch_pass_begin(&b, napi, budget);
	dbbatch_pass_deliver(&b);
	work = poll(napi, budget);
	dbbatch_pass_end(&b, napi, work, budget);
	return work;
}

/**
 * dbbatch_napi_poll_on_demand - run a NAPI poll as a pass that opens its
 *	batch on demand
 * @napi: the NAPI instance
 * @budget: its budget
 * @poll: the driver's poll; it calls dbbatch_pass_deliver() or
 *	dbbatch_pass_deliver_more() on the handle it is given before each
 *	hand-over to the stack
 *
 * dbbatch_pass_begin(), @poll, dbbatch_pass_end(): the body of a poll
 * function registered with netif_napi_add().
 */
static __always_inline int
dbbatch_napi_poll_on_demand(struct napi_struct *napi, int budget,
			    int (*poll)(struct napi_struct *, int,
					struct dbbatch *))
{
	struct dbbatch b;
	int work;

	dbbatch_pass_begin(&b, napi, budget);
	work = poll(napi, budget, &b);
	dbbatch_pass_end(&b, napi, work, budget);
	return work;
}

#endif /* _NET_DBBATCH_H */
