// SPDX-License-Identifier: GPL-2.0
/*
 * dbbatch: NAPI-batched transmit doorbells.
 *
 * An open batch is a frame in a per-CPU stack of frames, owned by the task
 * that opened it, so a context that is not the poll (a hard IRQ, or on
 * PREEMPT_RT a task that preempted it) never takes part, and a batch its
 * opener failed to close is still sound memory when it is flushed.  The
 * hold decision itself is in <net/dbbatch_policy.h>.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <net/dbbatch.h>

/* The per-CPU frame stack relies on BH-disabled sections excluding each
 * other on a CPU.  PREEMPT_RT kernels before 6.17 take a per-CPU lock in
 * local_bh_disable(); later ones only with PREEMPT_RT_NEEDS_BH_LOCK, and
 * without it two NAPI threads' passes interleave on one CPU.  There no
 * batch opens: every doorbell rings as without dbbatch.  The Makefile
 * says which kernels have the option (DBB_RT_BH_LOCK_OPTIONAL).
 */
#if defined(DBB_RT_BH_LOCK_OPTIONAL) && IS_ENABLED(CONFIG_PREEMPT_RT) && \
	!IS_ENABLED(CONFIG_PREEMPT_RT_NEEDS_BH_LOCK)
#define DBB_BH_EXCLUSIVE	false
#else
#define DBB_BH_EXCLUSIVE	true
#endif

DEFINE_PER_CPU(struct dbbatch_pcpu, dbbatch_pcpu);
EXPORT_PER_CPU_SYMBOL_GPL(dbbatch_pcpu);

#define dbb_count(field) this_cpu_inc(dbbatch_pcpu.stats.field)

/* A transmit that takes no xmit lock (LLTX) has nothing to serialise a hold
 * with the batch's flush.  6.12 moved the flag out of the features.
 */
static bool dbbatch_dev_lltx(const struct net_device *dev)
{
#ifdef NETIF_F_LLTX
	return dev->features & NETIF_F_LLTX;
#else
	return dev->lltx;
#endif
}

/**
 * dbbatch_queue_init - set up a transmit queue's part in dbbatch
 * @q: the queue's state, embedded in the driver's ring
 * @txq: the stack's queue; its xmit lock must serialise every transmit
 * @flush: the driver's tail write, see struct dbbatch_queue
 *
 * A queue of an LLTX device is a caller's bug: it is reported once and
 * never holds, so its doorbells ring at once as without dbbatch.
 */
void dbbatch_queue_init(struct dbbatch_queue *q, struct netdev_queue *txq,
			bool (*flush)(struct dbbatch_queue *q))
{
	q->txq = txq;
	q->flush = flush;
	q->holders = 0;
	q->never_hold = dbbatch_dev_lltx(txq->dev);
	if (unlikely(q->never_hold)) {
		dbb_count(bad_calls);
		pr_warn_once("%s: an LLTX device's queue cannot hold its doorbell (no xmit lock to order the flush); it rings every packet\n",
			     netdev_name(txq->dev));
	}
}
EXPORT_SYMBOL_GPL(dbbatch_queue_init);

/**
 * dbbatch_queues_quiesce - wait until no batch can hold any of @qs
 * @qs: queues their driver has stopped (netif_tx_disable() or similar)
 * @n: how many
 *
 * A batch is a BH-disabled section and so an RCU read-side critical
 * section: after one grace period every batch that held any of them has
 * flushed it, and a stopped queue takes no new hold.  One grace period
 * covers all of a port's queues.  Call before freeing the rings.
 */
void dbbatch_queues_quiesce(struct dbbatch_queue *const *qs, unsigned int n)
{
	unsigned int i;

	synchronize_net();
	/* A ring is about to be freed under a batch: a driver bug. */
	for (i = 0; i < n; i++)
		WARN_ONCE(READ_ONCE(qs[i]->holders),
			  "dbbatch: queue still held after a grace period: was it stopped?\n");
}
EXPORT_SYMBOL_GPL(dbbatch_queues_quiesce);

/**
 * dbbatch_queue_quiesce - wait until no batch can hold @q
 * @q: a queue its driver has stopped (netif_tx_disable() or similar)
 *
 * dbbatch_queues_quiesce() for one queue.
 */
void dbbatch_queue_quiesce(struct dbbatch_queue *q)
{
	dbbatch_queues_quiesce(&q, 1);
}
EXPORT_SYMBOL_GPL(dbbatch_queue_quiesce);

static void dbbatch_pop_orphans(struct dbbatch_pcpu *pc);

/**
 * dbbatch_open - open a batch on this CPU
 * @b: the handle, on the caller's stack
 *
 * Call with BH disabled (a NAPI poll) and close with dbbatch_close() on
 * every path; dbbatch_napi_poll() does both.  Elsewhere, or nested deeper
 * than DBB_MAX_DEPTH, the open is refused and counted, and the batch holds
 * nothing.
 */
void dbbatch_open(struct dbbatch *b)
{
	struct dbbatch_pcpu *pc;
	struct dbbatch_frame *f;

	b->depth = 0;
	b->open_on_deliver = false;
	/* Only a BH-disabled task context stays on this CPU until close. */
	if (unlikely(!DBB_BH_EXCLUSIVE || !in_softirq() || in_hardirq() ||
		     in_nmi())) {
		dbb_count(refused_opens);
		return;
	}
	pc = this_cpu_ptr(&dbbatch_pcpu);
	/* Orphans first: a stack full of them must not refuse the open. */
	dbbatch_pop_orphans(pc);
	if (unlikely(pc->depth >= DBB_MAX_DEPTH)) {
		dbb_count(refused_opens);
		return;
	}
	f = &pc->frame[pc->depth++];
	WRITE_ONCE(f->owner, current);
	f->nheld = 0;
	b->depth = pc->depth;
	b->cpu = smp_processor_id();
	dbb_count(batches);
}
EXPORT_SYMBOL_GPL(dbbatch_open);

/* Pop the innermost frame, then ring what it held. */
static void dbbatch_end_top(struct dbbatch_pcpu *pc)
{
	struct dbbatch_frame *f = &pc->frame[--pc->depth];
	int cpu = smp_processor_id();
	unsigned int i;

	for (i = 0; i < f->nheld; i++) {
		struct dbbatch_queue *q = f->held[i];
		bool rang;

		__netif_tx_lock(q->txq, cpu);
		if (!WARN_ON_ONCE(!q->holders))
			q->holders--;
		rang = q->flush(q);
		__netif_tx_unlock(q->txq);
		dbb_count(flushes);
		if (rang)
			dbb_count(flush_rings);
	}
	f->nheld = 0;
	WRITE_ONCE(f->owner, NULL);
}

/* Frames their opener closed from another CPU (see dbbatch_close()) are
 * flushed and popped once nothing this CPU opened sits above them.
 */
static void dbbatch_pop_orphans(struct dbbatch_pcpu *pc)
{
	while (unlikely(pc->depth &&
			READ_ONCE(pc->frame[pc->depth - 1].owner) ==
			DBB_ORPHAN)) {
		dbb_count(left_open);
		dbbatch_end_top(pc);
	}
}

/* A close from another CPU than the open (BH was enabled in between and
 * the task moved): the frame is not this CPU's to touch.  It is marked an
 * orphan, if it is still the caller's, for its own CPU to pop.
 */
static void dbbatch_orphan(const struct dbbatch *b)
{
	struct dbbatch_frame *f;

	if (b->cpu >= nr_cpu_ids || b->depth > DBB_MAX_DEPTH)
		return;
	f = &per_cpu(dbbatch_pcpu, b->cpu).frame[b->depth - 1];
	cmpxchg(&f->owner, current, DBB_ORPHAN);
}

/**
 * dbbatch_close - end a batch: flush every queue it held, once each
 * @b: a handle from dbbatch_open() on this CPU
 *
 * Batches opened inside @b and still open are a caller's bug: they are
 * counted as left_open, reported, and flushed first, so that no doorbell
 * is ever left held.  A close by another task than the open, or on
 * another CPU (BH enabled in between), is one too: it is counted as a bad
 * call and reported once; a frame left on another CPU is flushed and
 * popped there by that CPU's next open (counted as left_open).
 */
void dbbatch_close(struct dbbatch *b)
{
	bool bh_was_on = !in_softirq();	/* the caller's bug */
	struct dbbatch_pcpu *pc;

	if (!b->depth)
		return;
	/* Stay on this CPU, and alone on it, until the frame is popped. */
	if (unlikely(bh_was_on))
		local_bh_disable();
	pc = this_cpu_ptr(&dbbatch_pcpu);
	if (unlikely(b->cpu != smp_processor_id() || pc->depth < b->depth ||
		     pc->frame[b->depth - 1].owner != current)) {
		dbb_count(bad_calls);
		pr_err_once("%ps closed a batch this task did not open on this CPU (opened on CPU %u, closed on CPU %u): was BH enabled in between?\n",
			    __builtin_return_address(0), b->cpu,
			    smp_processor_id());
		if (b->cpu != smp_processor_id())
			dbbatch_orphan(b);
	} else {
		while (unlikely(pc->depth > b->depth)) {
			pr_err_ratelimited("a batch inside %ps was left open; closing it\n",
					   __builtin_return_address(0));
			dbb_count(left_open);
			dbbatch_end_top(pc);
		}
		dbbatch_end_top(pc);
		dbbatch_pop_orphans(pc);
	}
	b->depth = 0;
	if (unlikely(bh_was_on))
		local_bh_enable();
}
EXPORT_SYMBOL_GPL(dbbatch_close);

/* Does a batch this task opened on this CPU, the one at @top - 1 or one
 * below it (nesting), hold @q?  At most DBB_MAX_DEPTH * DBB_MAX_HELD compares; one
 * frame of a few queues in practice.
 */
static bool dbbatch_current_holds(const struct dbbatch_pcpu *pc,
				  unsigned int top,
				  const struct dbbatch_queue *q)
{
	unsigned int i, j;

	for (i = 0; i < top; i++) {
		const struct dbbatch_frame *f = &pc->frame[i];

		if (f->owner != current)
			continue;
		for (j = 0; j < f->nheld; j++)
			if (f->held[j] == q)
				return true;
	}
	return false;
}

/**
 * dbbatch_tx_decide - may this transmit hold @q's doorbell?
 * @q: the queue, whose xmit lock the caller holds
 * @used: descriptors in use on its ring, the new packet's included
 * @size: descriptors in its ring
 *
 * Return: DBB_HOLD if the open batch of this context now holds @q and the
 * caller must not write its tail; otherwise why it must ring now.
 */
enum dbb_verdict dbbatch_tx_decide(struct dbbatch_queue *q,
				   unsigned int used, unsigned int size)
{
	struct dbbatch_pcpu *pc;
	struct dbbatch_frame *f;
	enum dbb_verdict v;
	unsigned int i;
	bool held;

	/* IRQs off in a softirq task is netpoll (netconsole): a crash log
	 * must leave the box now, and so must everything after an oops.
	 */
	if (in_hardirq() || in_nmi() || irqs_disabled() ||
	    unlikely(oops_in_progress) || q->never_hold)
		return DBB_RING_NO_BATCH;
	pc = this_cpu_ptr(&dbbatch_pcpu);
	/* The innermost batch this task opened on this CPU. */
	for (i = pc->depth; i && pc->frame[i - 1].owner != current; i--)
		;
	if (!i)
		return DBB_RING_NO_BATCH;
	f = &pc->frame[i - 1];
	held = dbbatch_current_holds(pc, i, q);

	/* A queue another CPU's batch holds is held by this one as well, and
	 * each flushes it at its end: this packet waits for this pass only.
	 * One a batch of this pass holds (this one or one it is nested in)
	 * stays with it.
	 */
	v = dbb_decide(held, f->nheld, used, size);
	switch (v) {
	case DBB_HOLD:
		if (!held) {
			q->holders++;
			f->held[f->nheld++] = q;
			dbb_count(queues_held);
		}
		dbb_count(deferred);
		break;
	case DBB_RING_BUSY:
		dbb_count(busy_rings);
		break;
	case DBB_RING_CAP:
		dbb_count(overflow_rings);
		break;
	case DBB_RING_NO_BATCH:
		break;
	}
	return v;
}
EXPORT_SYMBOL_GPL(dbbatch_tx_decide);

/**
 * dbbatch_napi_deliver - hand the stack what a full-budget poll kept back
 * @napi: a NAPI instance whose poll used its whole budget
 *
 * Does inside the batch what __napi_poll() would do right after the poll
 * returned: flush aged GRO packets and the GRO_NORMAL rx_list.
 */
void dbbatch_napi_deliver(struct napi_struct *napi)
{
	if (napi->gro_bitmask)
		napi_gro_flush(napi, HZ >= 1000);
	if (napi->rx_count) {
		netif_receive_skb_list(&napi->rx_list);
		INIT_LIST_HEAD(&napi->rx_list);
		napi->rx_count = 0;
	}
}
EXPORT_SYMBOL_GPL(dbbatch_napi_deliver);

/**
 * dbbatch_stats_sum - add up the per-CPU counters
 * @sum: filled with the totals over all possible CPUs
 */
void dbbatch_stats_sum(struct dbbatch_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct dbbatch_stats *s = &per_cpu(dbbatch_pcpu, cpu).stats;

		sum->batches += READ_ONCE(s->batches);
		sum->queues_held += READ_ONCE(s->queues_held);
		sum->deferred += READ_ONCE(s->deferred);
		sum->flushes += READ_ONCE(s->flushes);
		sum->flush_rings += READ_ONCE(s->flush_rings);
		sum->stopped_rings += READ_ONCE(s->stopped_rings);
		sum->busy_rings += READ_ONCE(s->busy_rings);
		sum->overflow_rings += READ_ONCE(s->overflow_rings);
		sum->refused_opens += READ_ONCE(s->refused_opens);
		sum->left_open += READ_ONCE(s->left_open);
		sum->bad_calls += READ_ONCE(s->bad_calls);
	}
}
EXPORT_SYMBOL_GPL(dbbatch_stats_sum);

static void dbbatch_stats_show_one(struct seq_file *m, const char *who,
				   const struct dbbatch_stats *s)
{
	seq_printf(m, "%-6s %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu\n",
		   who,
		   s->batches, s->queues_held, s->deferred, s->flushes,
		   s->flush_rings, s->stopped_rings,
		   dbb_rings_saved(s->deferred, s->flush_rings,
				   s->stopped_rings),
		   s->busy_rings, s->overflow_rings, s->refused_opens,
		   s->left_open, s->bad_calls);
}

/* One row per CPU and a total; the header names the columns. */
static int dbbatch_stats_show(struct seq_file *m, void *unused)
{
	struct dbbatch_stats sum;
	char who[16];
	int cpu;

	seq_puts(m, "cpu batches queues_held deferred flushes flush_rings stopped_rings rings_saved busy_rings overflow_rings refused_opens left_open bad_calls\n");
	for_each_online_cpu(cpu) {
		struct dbbatch_stats s = per_cpu(dbbatch_pcpu, cpu).stats;

		snprintf(who, sizeof(who), "cpu%d", cpu);
		dbbatch_stats_show_one(m, who, &s);
	}
	dbbatch_stats_sum(&sum);
	dbbatch_stats_show_one(m, "total", &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dbbatch_stats);

static struct dentry *dbbatch_debugfs;

static int __init dbbatch_init(void)
{
	if (!DBB_BH_EXCLUSIVE)
		pr_info("PREEMPT_RT without PREEMPT_RT_NEEDS_BH_LOCK: receive passes may interleave on a CPU, so no batch opens and every doorbell rings at once\n");
	dbbatch_debugfs = debugfs_create_dir("dbbatch", NULL);
	debugfs_create_file("stats", 0444, dbbatch_debugfs, NULL,
			    &dbbatch_stats_fops);
	return 0;
}

static void __exit dbbatch_exit(void)
{
	debugfs_remove_recursive(dbbatch_debugfs);
}

module_init(dbbatch_init);
module_exit(dbbatch_exit);
MODULE_DESCRIPTION("NAPI-batched transmit doorbells");
MODULE_LICENSE("GPL");
