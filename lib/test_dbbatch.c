// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the dbbatch core on fake transmit queues, run at load time
 * and reported in KTAP (kselftest module style: a failure fails the load).
 *
 * A fake queue counts its own tail writes the way a device would, so each
 * test asserts on what the "device" saw, not on the core's counters; the
 * core's counters are then checked against those counts.
 */

#define pr_fmt(fmt) fmt

#include <linux/etherdevice.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/dbbatch.h>

#define NQ		(DBB_MAX_HELD + 2)
#define RING		256

struct fake_q {
	struct dbbatch_queue dq;
	unsigned int next;		/* descriptors queued (next_to_use) */
	unsigned int written;		/* last tail value written */
	unsigned int tail_writes;	/* ground truth: doorbells rung */
	unsigned int empty_writes;	/* doorbells that published nothing */
	unsigned int flushes;
	unsigned int unlocked_flushes;	/* flushes without the xmit lock */
};

static struct net_device *fake_dev;
static struct fake_q fq[NQ];
static unsigned int checks_failed;
static unsigned int tests_run, tests_failed;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			checks_failed++;				\
			pr_err("    # %s:%d: CHECK(%s) failed\n",	\
			       __func__, __LINE__, #cond);		\
		}							\
	} while (0)

static void fake_write_tail(struct fake_q *q)
{
	if (q->written == q->next)
		q->empty_writes++;
	q->written = q->next;
	q->tail_writes++;
}

static bool fake_flush(struct dbbatch_queue *dq)
{
	struct fake_q *q = container_of(dq, struct fake_q, dq);

	q->flushes++;
	if (READ_ONCE(dq->txq->xmit_lock_owner) != smp_processor_id())
		q->unlocked_flushes++;
	if (!dbb_tail_pending(q->next, q->written))
		return false;
	fake_write_tail(q);
	return true;
}

/* A stack transmit that is not part of a qdisc bulk (xmit_more clear). */
static void fake_clear_xmit_more(void)
{
#ifdef DBB_HAVE_XMIT_SET_MORE
	netdev_xmit_set_more(false);
#else
	__this_cpu_write(softnet_data.xmit.more, false);
#endif
}

/* One packet through a driver's ndo_start_xmit, @used counting it. */
static void fake_xmit(struct fake_q *q, unsigned int used)
{
	struct netdev_queue *txq = q->dq.txq;

	__netif_tx_lock(txq, smp_processor_id());
	fake_clear_xmit_more();
	q->next++;
	/* 0 bytes: BQL's limit must not stop the queue behind our back */
	if (dbbatch_tx_sent_queue(&q->dq, 0, used, RING))
		fake_write_tail(q);
	__netif_tx_unlock(txq);
}

static void fake_reset(void)
{
	unsigned int i;

	for (i = 0; i < NQ; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(fake_dev, i);

		memset(&fq[i], 0, sizeof(fq[i]));
		dbbatch_queue_init(&fq[i].dq, txq, fake_flush);
		netdev_tx_reset_queue(txq);
		netif_tx_start_queue(txq);
	}
}

static struct dbbatch_stats stats_before;

/* The per-CPU frame behind an open batch handle on this CPU. */
static struct dbbatch_frame *frame_of(const struct dbbatch *b)
{
	return b->depth ? &this_cpu_ptr(&dbbatch_pcpu)->frame[b->depth - 1] :
			  NULL;
}

/* Does the frame behind @b hold @q? */
static bool holds(const struct dbbatch *b, const struct fake_q *q)
{
	const struct dbbatch_frame *f = frame_of(b);
	unsigned int i;

	for (i = 0; f && i < f->nheld; i++)
		if (f->held[i] == &q->dq)
			return true;
	return false;
}

static void stats_delta(struct dbbatch_stats *d)
{
	struct dbbatch_stats now;
	unsigned long *n = (unsigned long *)&now;
	unsigned long *b = (unsigned long *)&stats_before;
	unsigned long *o = (unsigned long *)d;
	unsigned int i;

	dbbatch_stats_sum(&now);
	for (i = 0; i < sizeof(now) / sizeof(unsigned long); i++)
		o[i] = n[i] - b[i];
}

/* Nothing may outlive a test: no open batch, no held queue, all rung. */
static void check_all_published(void)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu)
		CHECK(!per_cpu(dbbatch_pcpu, cpu).depth);
	for (i = 0; i < NQ; i++) {
		CHECK(!fq[i].dq.holders);
		CHECK(fq[i].written == fq[i].next);
		CHECK(fq[i].empty_writes == 0);
		CHECK(fq[i].unlocked_flushes == 0);
	}
}

static void test_defer_then_flush_once(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;
	unsigned int i;

	local_bh_disable();
	dbbatch_open(&b);
	for (i = 1; i <= 5; i++)
		fake_xmit(&fq[0], i);
	CHECK(fq[0].tail_writes == 0);
	CHECK(holds(&b, &fq[0]) && fq[0].dq.holders == 1);
	dbbatch_close(&b);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	CHECK(fq[0].flushes == 1);
	stats_delta(&d);
	CHECK(d.batches == 1);
	CHECK(d.deferred == 5);
	CHECK(d.queues_held == 1);
	CHECK(d.flushes == 1);
	CHECK(d.flush_rings == fq[0].tail_writes);
	CHECK(dbb_rings_saved(d.deferred, d.flush_rings, d.stopped_rings) == 4);
}

/* Another path published everything: the flush runs but must not ring. */
static void test_skip_empty(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], 1);
	fake_xmit(&fq[0], RING / 2);	/* busy ring: rings, publishing both */
	CHECK(fq[0].tail_writes == 1);
	dbbatch_close(&b);
	local_bh_enable();

	CHECK(fq[0].flushes == 1);
	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.busy_rings == 1);
	CHECK(d.flush_rings == 0);
}

static void test_stopped_queue_rings_now(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], 1);
	netif_tx_stop_queue(fq[0].dq.txq);
	fake_xmit(&fq[0], 2);
	CHECK(fq[0].tail_writes == 1);
	dbbatch_close(&b);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.stopped_rings == 1);
	CHECK(d.flush_rings == 0);
}

static void test_threshold_one_eighth(void)
{
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], RING / 8);		/* exactly 1/8: hold */
	CHECK(fq[0].tail_writes == 0);
	fake_xmit(&fq[1], RING / 8 + 1);	/* above: ring now */
	CHECK(fq[1].tail_writes == 1);
	CHECK(!fq[1].dq.holders);
	dbbatch_close(&b);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	CHECK(fq[1].tail_writes == 1);
	CHECK(fq[1].flushes == 0);
}

static void test_cap_eight_queues(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;
	unsigned int i;

	local_bh_disable();
	dbbatch_open(&b);
	for (i = 0; i < NQ; i++)
		fake_xmit(&fq[i], 1);
	for (i = 0; i < NQ; i++)
		CHECK(fq[i].tail_writes == (i < DBB_MAX_HELD ? 0 : 1));
	CHECK(frame_of(&b)->nheld == DBB_MAX_HELD);
	dbbatch_close(&b);
	local_bh_enable();

	for (i = 0; i < NQ; i++) {
		CHECK(fq[i].tail_writes == 1);
		CHECK(fq[i].flushes == (i < DBB_MAX_HELD ? 1 : 0));
	}
	stats_delta(&d);
	CHECK(d.overflow_rings == NQ - DBB_MAX_HELD);
	CHECK(d.flushes == DBB_MAX_HELD);
}

static void test_nested_batches(void)
{
	struct dbbatch outer, inner;

	local_bh_disable();
	dbbatch_open(&outer);
	fake_xmit(&fq[0], 1);
	dbbatch_open(&inner);
	fake_xmit(&fq[1], 1);
	fake_xmit(&fq[0], 2);		/* still the outer batch's */
	CHECK(holds(&outer, &fq[0]) && !holds(&inner, &fq[0]));
	CHECK(holds(&inner, &fq[1]) && !holds(&outer, &fq[1]));
	dbbatch_close(&inner);
	CHECK(fq[1].tail_writes == 1);
	CHECK(fq[0].tail_writes == 0);
	CHECK(this_cpu_read(dbbatch_pcpu.depth) == outer.depth);
	dbbatch_close(&outer);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	CHECK(fq[0].flushes == 1);
	CHECK(fq[1].flushes == 1);
}

static void test_no_batch_rings_now(void)
{
	local_bh_disable();
	fake_xmit(&fq[0], 1);
	local_bh_enable();
	CHECK(fq[0].tail_writes == 1);
	CHECK(fq[0].flushes == 0);
}

/* Outside a BH-disabled section the batch could migrate: refused. */
static void test_process_context_refused(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;

	dbbatch_open(&b);
	CHECK(!b.depth);
	local_bh_disable();
	fake_xmit(&fq[0], 1);
	local_bh_enable();
	dbbatch_close(&b);
	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.refused_opens == 1);
	CHECK(d.batches == 0);
}

struct hardirq_probe {
	struct irq_work work;
	bool ran, in_hardirq;
	enum dbb_verdict verdict;
	struct dbbatch b;
};

static void hardirq_probe_fn(struct irq_work *work)
{
	struct hardirq_probe *p = container_of(work, struct hardirq_probe, work);

	p->in_hardirq = in_hardirq();
	p->verdict = dbbatch_tx_decide(&fq[1].dq, 1, RING);
	dbbatch_open(&p->b);
	p->ran = true;
}

/* A hard IRQ on the poll's CPU shares its task but never its batch. */
static void test_hardirq_refused(void)
{
	struct hardirq_probe p = { .verdict = DBB_HOLD };
	unsigned long until = jiffies + HZ;
	struct dbbatch_stats d;
	struct dbbatch b;

	/* a hard irq_work runs in hard IRQ context on PREEMPT_RT too */
	p.work = IRQ_WORK_INIT_HARD(hardirq_probe_fn);
	local_bh_disable();
	dbbatch_open(&b);
	irq_work_queue(&p.work);
	/* irq_work_sync() may sleep; with IRQs on the work runs at once */
	while (irq_work_is_busy(&p.work) && time_before(jiffies, until))
		cpu_relax();
	CHECK(p.ran);
	CHECK(p.in_hardirq);
	CHECK(p.verdict == DBB_RING_NO_BATCH);
	CHECK(!p.b.depth);
	CHECK(!fq[1].dq.holders);
	dbbatch_close(&b);
	local_bh_enable();
	stats_delta(&d);
	CHECK(d.refused_opens == 1);
}

/* Another task on this CPU (PREEMPT_RT preemption) finds no batch of its own. */
static void test_other_owner_refused(void)
{
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	frame_of(&b)->owner = &init_task;	/* as if another task's poll */
	fake_xmit(&fq[0], 1);
	CHECK(fq[0].tail_writes == 1);
	CHECK(!fq[0].dq.holders);
	frame_of(&b)->owner = current;
	fake_xmit(&fq[0], 2);
	CHECK(fq[0].tail_writes == 1);
	dbbatch_close(&b);
	local_bh_enable();
	CHECK(fq[0].tail_writes == 2);
}

/*
 * netpoll (netconsole) transmits with IRQs off, possibly from inside a
 * receive pass on this CPU: it must ring at once, or a crash log waits
 * for a pass that may never end.
 */
static void test_irqs_off_rings_now(void)
{
	struct dbbatch b;
	unsigned long flags;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], 1);			/* held */
	local_irq_save(flags);
	fake_xmit(&fq[1], 1);			/* as netpoll would */
	local_irq_restore(flags);
	CHECK(fq[0].tail_writes == 0);
	CHECK(fq[1].tail_writes == 1);
	CHECK(!holds(&b, &fq[1]));
	dbbatch_close(&b);
	local_bh_enable();
	CHECK(fq[0].tail_writes == 1);
}

/* After an oops nothing is held: the crash log goes out as it is sent. */
static void test_oops_in_progress_rings_now(void)
{
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	oops_in_progress++;
	fake_xmit(&fq[2], 1);
	oops_in_progress--;
	CHECK(fq[2].tail_writes == 1);
	CHECK(!holds(&b, &fq[2]));
	dbbatch_close(&b);
	local_bh_enable();
}

/*
 * A close with a handle from another CPU (BH was enabled and the task
 * migrated) touches no frame, is counted and reported; the real frame is
 * then closed by its owner as usual.
 */
static void test_close_on_other_cpu_caught(void)
{
	struct dbbatch_stats d;
	struct dbbatch b, moved;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], 1);
	moved = b;
	moved.cpu = b.cpu + 1;			/* as if migrated */
	dbbatch_close(&moved);
	CHECK(!moved.depth);
	CHECK(this_cpu_read(dbbatch_pcpu.depth) == b.depth);
	CHECK(fq[0].tail_writes == 0 && holds(&b, &fq[0]));
	dbbatch_close(&b);
	local_bh_enable();
	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.bad_calls == 1);
	CHECK(d.left_open == 0);
}

/* A close by a task that does not own the frame leaves it to its owner. */
static void test_close_by_other_task_caught(void)
{
	struct dbbatch_stats d;
	struct dbbatch b;
	unsigned int depth;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[1], 1);
	depth = b.depth;
	frame_of(&b)->owner = &init_task;	/* as if another task's */
	dbbatch_close(&b);
	CHECK(!b.depth);
	CHECK(fq[1].tail_writes == 0);
	CHECK(this_cpu_read(dbbatch_pcpu.depth) == depth);
	b.depth = depth;			/* the owner's own handle */
	this_cpu_ptr(&dbbatch_pcpu)->frame[depth - 1].owner = current;
	dbbatch_close(&b);
	local_bh_enable();
	CHECK(fq[1].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.bad_calls == 1);
}

/* A queue of an LLTX device is refused at init and never held. */
static void test_lltx_queue_never_holds(void)
{
	struct net_device *dev = alloc_etherdev_mq(0, 1);
	struct dbbatch_stats d;
	struct fake_q q = {};
	struct dbbatch b;

	if (!dev) {
		CHECK(false);
		return;
	}
#ifdef NETIF_F_LLTX
	dev->features |= NETIF_F_LLTX;
#else
	dev->lltx = true;
#endif
	dbbatch_queue_init(&q.dq, netdev_get_tx_queue(dev, 0), fake_flush);
	netdev_tx_reset_queue(q.dq.txq);
	CHECK(q.dq.never_hold);
	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&q, 1);
	CHECK(q.tail_writes == 1);
	CHECK(!q.dq.holders && !holds(&b, &q));
	dbbatch_close(&b);
	local_bh_enable();
	free_netdev(dev);
	stats_delta(&d);
	CHECK(d.bad_calls == 1);
	CHECK(d.deferred == 0);
}

/* Opens a batch and returns without closing it: its frame must survive. */
static noinline void leak_a_batch(void)
{
	struct dbbatch leaked;

	dbbatch_open(&leaked);
}

/* The debug check: a batch left open inside another is caught and flushed. */
static void test_left_open_caught(void)
{
	struct dbbatch_stats d;
	struct dbbatch outer;

	local_bh_disable();
	dbbatch_open(&outer);
	leak_a_batch();
	CHECK(this_cpu_read(dbbatch_pcpu.depth) == outer.depth + 1);
	fake_xmit(&fq[2], 1);		/* held by the leaked batch */
	CHECK(fq[2].tail_writes == 0);
	dbbatch_close(&outer);
	local_bh_enable();

	CHECK(fq[2].tail_writes == 1);
	CHECK(fq[2].flushes == 1);
	stats_delta(&d);
	CHECK(d.left_open == 1);
}

/* Nesting deeper than DBB_MAX_DEPTH is refused, and holds nothing. */
static void test_depth_limit(void)
{
	struct dbbatch b[DBB_MAX_DEPTH + 1];
	struct dbbatch_stats d;
	int i;

	local_bh_disable();
	for (i = 0; i <= DBB_MAX_DEPTH; i++)
		dbbatch_open(&b[i]);
	CHECK(b[DBB_MAX_DEPTH - 1].depth == DBB_MAX_DEPTH);
	CHECK(!b[DBB_MAX_DEPTH].depth);
	fake_xmit(&fq[0], 1);		/* the innermost open batch holds it */
	CHECK(holds(&b[DBB_MAX_DEPTH - 1], &fq[0]));
	for (i = DBB_MAX_DEPTH; i >= 0; i--)
		dbbatch_close(&b[i]);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.refused_opens == 1);
	CHECK(d.left_open == 0);
}

/*
 * A full stack whose top frame is an orphan: the open pops it and takes
 * its place rather than being refused (a CPU left with orphans would
 * otherwise never batch again).
 */
static void test_depth_limit_pops_orphans_first(void)
{
	struct dbbatch b[DBB_MAX_DEPTH + 1];
	struct dbbatch_stats d;
	int i;

	local_bh_disable();
	for (i = 0; i < DBB_MAX_DEPTH; i++)
		dbbatch_open(&b[i]);
	/* what a close from another CPU would have done to the top frame */
	WRITE_ONCE(this_cpu_ptr(&dbbatch_pcpu)->frame[DBB_MAX_DEPTH - 1].owner,
		   DBB_ORPHAN);
	dbbatch_open(&b[DBB_MAX_DEPTH]);
	CHECK(b[DBB_MAX_DEPTH].depth == DBB_MAX_DEPTH);
	fake_xmit(&fq[0], 1);
	CHECK(holds(&b[DBB_MAX_DEPTH], &fq[0]));
	dbbatch_close(&b[DBB_MAX_DEPTH]);
	for (i = DBB_MAX_DEPTH - 2; i >= 0; i--)
		dbbatch_close(&b[i]);
	local_bh_enable();

	CHECK(fq[0].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.refused_opens == 0);
	CHECK(d.left_open == 1);
	CHECK(d.bad_calls == 0);
}

static int fake_poll_sent;

static int fake_poll(struct napi_struct *napi, int budget)
{
	int i;

	for (i = 0; i < fake_poll_sent; i++)
		fake_xmit(&fq[3], i + 1);
	return min(fake_poll_sent, budget);
}

/* The poll wrapper covers a whole pass, budget used up or not. */
static void test_napi_poll_wrapper(void)
{
	struct napi_struct napi = {};
	int work;

	INIT_LIST_HEAD(&napi.rx_list);
	local_bh_disable();
	fake_poll_sent = 3;
	work = dbbatch_napi_poll(&napi, 64, fake_poll);
	CHECK(work == 3);
	CHECK(fq[3].tail_writes == 1);
	fake_poll_sent = 4;
	work = dbbatch_napi_poll(&napi, 4, fake_poll);
	CHECK(work == 4);
	CHECK(fq[3].tail_writes == 2);
	local_bh_enable();
	CHECK(fq[3].flushes == 2);
}

static int fake_pass_delivers;

/* A poll run as an on-demand pass: delivers, then forwards, that often. */
static int fake_pass_poll(struct napi_struct *napi, int budget,
			  struct dbbatch *b)
{
	int i;

	for (i = 0; i < fake_pass_delivers; i++) {
		dbbatch_pass_deliver(b);
		fake_xmit(&fq[1], i + 1);
	}
	return fake_pass_delivers;
}

/* A pass that opens its batch on demand: only a delivery opens it. */
static void test_napi_pass_on_demand(void)
{
	struct napi_struct napi = {};
	struct dbbatch_stats d;
	struct dbbatch b;

	INIT_LIST_HEAD(&napi.rx_list);
	local_bh_disable();
	/* nothing delivered: no batch, a transmit rings at once */
	dbbatch_pass_begin(&b, &napi, 64);
	CHECK(!b.depth);
	fake_xmit(&fq[2], 1);
	CHECK(fq[2].tail_writes == 1);
	dbbatch_pass_end(&b, &napi, 0, 64);
	stats_delta(&d);
	CHECK(d.batches == 0);
	/* the first delivery opens it, the next ones do not open again */
	dbbatch_pass_begin(&b, &napi, 64);
	dbbatch_pass_deliver(&b);
	CHECK(b.depth);
	fake_xmit(&fq[2], 1);
	dbbatch_pass_deliver(&b);
	fake_xmit(&fq[2], 2);
	CHECK(fq[2].tail_writes == 1);
	dbbatch_pass_end(&b, &napi, 2, 64);
	CHECK(fq[2].tail_writes == 2);
	stats_delta(&d);
	CHECK(d.batches == 1);
	/* GRO holds packets of an earlier pass: open at once */
	napi.gro_bitmask = 1;
	dbbatch_pass_begin(&b, &napi, 64);
	CHECK(b.depth);
	fake_xmit(&fq[2], 1);
	CHECK(fq[2].tail_writes == 2);
	dbbatch_pass_end(&b, &napi, 0, 64);
	CHECK(fq[2].tail_writes == 3);
	napi.gro_bitmask = 0;
	/* so does the rx_list; a full budget hands it over inside the batch
	 * (an empty list: the core's hand-over clears the count)
	 */
	napi.rx_count = 1;
	dbbatch_pass_begin(&b, &napi, 64);
	CHECK(b.depth);
	dbbatch_pass_end(&b, &napi, 64, 64);
	CHECK(napi.rx_count == 0);
	/* netpoll's zero budget never opens, not even on delivery */
	napi.rx_count = 1;
	dbbatch_pass_begin(&b, &napi, 0);
	dbbatch_pass_deliver(&b);
	CHECK(!b.depth);
	dbbatch_pass_end(&b, &napi, 0, 0);
	CHECK(napi.rx_count == 1);
	napi.rx_count = 0;
	stats_delta(&d);
	CHECK(d.batches == 3);
	/* the wrapper: three forwarded, one tail write; none, no batch */
	fake_pass_delivers = 3;
	CHECK(dbbatch_napi_poll_on_demand(&napi, 64, fake_pass_poll) == 3);
	CHECK(fq[1].tail_writes == 1 && fq[1].flushes == 1);
	fake_pass_delivers = 0;
	CHECK(dbbatch_napi_poll_on_demand(&napi, 64, fake_pass_poll) == 0);
	local_bh_enable();
	stats_delta(&d);
	CHECK(d.batches == 4);
	CHECK(d.refused_opens == 0);
	CHECK(fq[2].flushes == 2);
	/* outside a NAPI poll: the first delivery's open is refused, once */
	dbbatch_pass_begin(&b, &napi, 64);
	dbbatch_pass_deliver(&b);
	dbbatch_pass_deliver(&b);
	CHECK(!b.depth);
	dbbatch_pass_end(&b, &napi, 2, 64);
	stats_delta(&d);
	CHECK(d.refused_opens == 1);
	CHECK(d.batches == 4);
}

static unsigned int more_evals;

/* The "another frame behind this one" a driver reads, counted. */
static bool fake_more(bool more)
{
	more_evals++;
	return more;
}

/* dbbatch_pass_deliver_more(): a batch only for a pass of two frames. */
static void test_napi_pass_deliver_more(void)
{
	struct napi_struct napi = {};
	struct dbbatch_stats d;
	struct dbbatch b;
	unsigned int w;

	INIT_LIST_HEAD(&napi.rx_list);
	local_bh_disable();
	/* one frame: no batch, its transmit rings at once */
	w = fq[4].tail_writes;
	dbbatch_pass_begin(&b, &napi, 64);
	dbbatch_pass_deliver_more(&b, fake_more(false));
	CHECK(!b.depth);
	fake_xmit(&fq[4], 1);
	CHECK(fq[4].tail_writes == w + 1);
	dbbatch_pass_end(&b, &napi, 1, 64);
	CHECK(fq[4].tail_writes == w + 1);
	stats_delta(&d);
	CHECK(d.batches == 0);
	/* another frame behind the first: one batch, one tail write, and
	 * @more is not looked at once the batch is open
	 */
	more_evals = 0;
	dbbatch_pass_begin(&b, &napi, 64);
	dbbatch_pass_deliver_more(&b, fake_more(true));
	CHECK(b.depth);
	fake_xmit(&fq[4], 1);
	dbbatch_pass_deliver_more(&b, fake_more(false));
	fake_xmit(&fq[4], 2);
	CHECK(fq[4].tail_writes == w + 1);
	dbbatch_pass_end(&b, &napi, 2, 64);
	CHECK(fq[4].tail_writes == w + 2);
	CHECK(more_evals == 1);
	stats_delta(&d);
	CHECK(d.batches == 1);
	/* a frame that came after the one believed last opens the batch */
	dbbatch_pass_begin(&b, &napi, 64);
	dbbatch_pass_deliver_more(&b, fake_more(false));
	CHECK(!b.depth);
	fake_xmit(&fq[4], 1);
	dbbatch_pass_deliver_more(&b, fake_more(false));
	CHECK(b.depth);
	fake_xmit(&fq[4], 2);
	fake_xmit(&fq[4], 3);
	CHECK(fq[4].tail_writes == w + 3);
	dbbatch_pass_end(&b, &napi, 3, 64);
	CHECK(fq[4].tail_writes == w + 4);
	/* GRO holding frames of an earlier pass still opens at the begin */
	napi.gro_bitmask = 1;
	dbbatch_pass_begin(&b, &napi, 64);
	CHECK(b.depth);
	dbbatch_pass_end(&b, &napi, 0, 64);
	napi.gro_bitmask = 0;
	/* netpoll's zero budget never opens */
	dbbatch_pass_begin(&b, &napi, 0);
	dbbatch_pass_deliver_more(&b, fake_more(true));
	CHECK(!b.depth);
	dbbatch_pass_end(&b, &napi, 0, 0);
	local_bh_enable();
	stats_delta(&d);
	CHECK(d.batches == 3);	/* since the test began */
	CHECK(d.refused_opens == 0 && d.left_open == 0);
}

/*
 * A batch on another CPU: a kthread bound there opens a batch, transmits
 * one packet to @q, says so, and keeps the batch open until told to close
 * (or for @hold_ms), spinning with BH disabled as a long NAPI poll would.
 */
struct remote_batch {
	struct fake_q *q;
	unsigned int used;
	unsigned int hold_ms;
	bool close_now;
	struct completion holding;
	struct completion done;
};

static int remote_batch_fn(void *arg)
{
	struct remote_batch *r = arg;
	struct dbbatch b;
	unsigned int ms;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(r->q, r->used);
	complete(&r->holding);
	/* Bounded: a test that goes wrong must not stall the CPU. */
	for (ms = 0; ms < r->hold_ms && !READ_ONCE(r->close_now); ms++)
		mdelay(1);
	dbbatch_close(&b);
	local_bh_enable();
	complete(&r->done);
	return 0;
}

static bool remote_batch_start(struct remote_batch *r, unsigned int cpu)
{
	struct task_struct *t;

	init_completion(&r->holding);
	init_completion(&r->done);
	t = kthread_create(remote_batch_fn, r, "test_dbbatch/%u", cpu);
	if (IS_ERR(t))
		return false;
	kthread_bind(t, cpu);
	wake_up_process(t);
	return true;
}

/* The first two online CPUs, or false with one CPU. */
static bool two_cpus(unsigned int *a, unsigned int *b)
{
	*a = cpumask_first(cpu_online_mask);
	*b = cpumask_next(*a, cpu_online_mask);
	if (*b >= nr_cpu_ids) {
		pr_info("    # needs two online CPUs\n");
		return false;
	}
	return true;
}

/*
 * A transmit on one CPU to a queue another CPU's batch holds is held by
 * its own batch too, and published when that batch ends: it never waits
 * for the rest of the other CPU's pass.  The other batch's flush later
 * finds nothing new and does not ring.
 */
static void test_cross_cpu_each_holder_rings(void)
{
	struct remote_batch holder = { .q = &fq[0], .used = 1,
				       .hold_ms = 2000 };
	struct remote_batch other = { .q = &fq[0], .used = 2, .hold_ms = 0 };
	struct dbbatch_stats d;
	unsigned int a, b;

	if (!two_cpus(&a, &b)) {
		CHECK(false);
		return;
	}
	if (!remote_batch_start(&holder, a)) {
		CHECK(false);
		return;
	}
	wait_for_completion(&holder.holding);
	CHECK(READ_ONCE(fq[0].dq.holders) == 1);
	CHECK(READ_ONCE(fq[0].tail_writes) == 0);
	if (remote_batch_start(&other, b)) {
		wait_for_completion(&other.done);
		/* The second CPU's batch closed: both packets published. */
		CHECK(READ_ONCE(fq[0].tail_writes) == 1);
		CHECK(READ_ONCE(fq[0].written) == 2);
		CHECK(READ_ONCE(fq[0].flushes) == 1);
		CHECK(READ_ONCE(fq[0].dq.holders) == 1);
	} else {
		CHECK(false);
	}
	WRITE_ONCE(holder.close_now, true);
	wait_for_completion(&holder.done);

	CHECK(fq[0].next == 2);
	CHECK(fq[0].tail_writes == 1);
	CHECK(fq[0].flushes == 2);
	stats_delta(&d);
	CHECK(d.batches == 2);
	CHECK(d.deferred == 2);
	CHECK(d.queues_held == 2);
	CHECK(d.flushes == 2);
	CHECK(d.flush_rings == 1);
}

/*
 * A batch whose opener lets BH on and moves to another CPU before closing
 * (a caller bug): the close there is refused and counted, and the frame
 * it left on the first CPU is flushed and popped by that CPU's next open.
 */
struct migrating_batch {
	struct fake_q *q;
	unsigned int from, to;
	bool moved;
	struct completion done;
};

static int migrating_batch_fn(void *arg)
{
	struct migrating_batch *m = arg;
	struct dbbatch b;

	set_cpus_allowed_ptr(current, cpumask_of(m->from));
	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(m->q, 1);
	local_bh_enable();
	set_cpus_allowed_ptr(current, cpumask_of(m->to));
	m->moved = raw_smp_processor_id() == m->to;
	dbbatch_close(&b);
	complete(&m->done);
	return 0;
}

static void test_close_after_migration_orphaned(void)
{
	struct migrating_batch m = { .q = &fq[4] };
	struct remote_batch next = { .q = &fq[5], .used = 1 };
	struct dbbatch_stats d;
	struct task_struct *t;

	if (!two_cpus(&m.from, &m.to)) {
		CHECK(false);
		return;
	}
	init_completion(&m.done);
	t = kthread_run(migrating_batch_fn, &m, "test_dbbatch/move");
	if (IS_ERR(t)) {
		CHECK(false);
		return;
	}
	wait_for_completion(&m.done);
	CHECK(m.moved);
	CHECK(READ_ONCE(fq[4].tail_writes) == 0);
	CHECK(per_cpu(dbbatch_pcpu, m.from).frame[0].owner == DBB_ORPHAN ||
	      per_cpu(dbbatch_pcpu, m.from).depth == 0);
	/* The first CPU's next batch pops the orphan and flushes it. */
	if (remote_batch_start(&next, m.from))
		wait_for_completion(&next.done);
	else
		CHECK(false);
	CHECK(fq[4].tail_writes == 1 && !fq[4].dq.holders);
	CHECK(fq[5].tail_writes == 1);
	stats_delta(&d);
	CHECK(d.bad_calls == 1);
	CHECK(d.left_open == 1);
}

/* A queue being torn down is released by a grace period. */
static void test_quiesce(void)
{
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[0], 1);
	dbbatch_close(&b);
	local_bh_enable();
	netif_tx_stop_queue(fq[0].dq.txq);
	dbbatch_queue_quiesce(&fq[0].dq);
	CHECK(!fq[0].dq.holders);
	CHECK(fq[0].tail_writes == 1);
}

/*
 * The quiesce waits out a batch that holds the queue on another CPU: when
 * it returns, that batch has rung and let go.
 */
static void test_quiesce_waits_for_remote(void)
{
	struct remote_batch holder = { .q = &fq[1], .used = 1,
				       .hold_ms = 200 };
	unsigned int a, b;

	if (!two_cpus(&a, &b) || !remote_batch_start(&holder, b)) {
		CHECK(false);
		return;
	}
	wait_for_completion(&holder.holding);
	netif_tx_stop_queue(fq[1].dq.txq);
	dbbatch_queue_quiesce(&fq[1].dq);
	CHECK(!READ_ONCE(fq[1].dq.holders));
	CHECK(READ_ONCE(fq[1].tail_writes) == 1);
	wait_for_completion(&holder.done);
}

/* A port's queues, held by one batch, are released by one grace period. */
static void test_quiesce_many(void)
{
	struct dbbatch_queue *qs[] = { &fq[1].dq, &fq[2].dq };
	struct dbbatch b;

	local_bh_disable();
	dbbatch_open(&b);
	fake_xmit(&fq[1], 1);
	fake_xmit(&fq[2], 1);
	dbbatch_close(&b);
	local_bh_enable();
	netif_tx_stop_queue(fq[1].dq.txq);
	netif_tx_stop_queue(fq[2].dq.txq);
	dbbatch_queues_quiesce(qs, ARRAY_SIZE(qs));
	CHECK(!fq[1].dq.holders && !fq[2].dq.holders);
	CHECK(fq[1].tail_writes == 1 && fq[2].tail_writes == 1);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "defer_then_flush_once", test_defer_then_flush_once },
	{ "skip_empty", test_skip_empty },
	{ "stopped_queue_rings_now", test_stopped_queue_rings_now },
	{ "threshold_one_eighth", test_threshold_one_eighth },
	{ "cap_eight_queues", test_cap_eight_queues },
	{ "nested_batches", test_nested_batches },
	{ "no_batch_rings_now", test_no_batch_rings_now },
	{ "process_context_refused", test_process_context_refused },
	{ "hardirq_refused", test_hardirq_refused },
	{ "other_owner_refused", test_other_owner_refused },
	{ "irqs_off_rings_now", test_irqs_off_rings_now },
	{ "oops_in_progress_rings_now", test_oops_in_progress_rings_now },
	{ "close_on_other_cpu_caught", test_close_on_other_cpu_caught },
	{ "close_by_other_task_caught", test_close_by_other_task_caught },
	{ "lltx_queue_never_holds", test_lltx_queue_never_holds },
	{ "left_open_caught", test_left_open_caught },
	{ "depth_limit", test_depth_limit },
	{ "depth_limit_pops_orphans_first",
	  test_depth_limit_pops_orphans_first },
	{ "napi_poll_wrapper", test_napi_poll_wrapper },
	{ "napi_pass_on_demand", test_napi_pass_on_demand },
	{ "napi_pass_deliver_more", test_napi_pass_deliver_more },
	{ "quiesce", test_quiesce },
	{ "quiesce_many", test_quiesce_many },
	{ "cross_cpu_each_holder_rings", test_cross_cpu_each_holder_rings },
	{ "quiesce_waits_for_remote", test_quiesce_waits_for_remote },
	{ "close_after_migration_orphaned",
	  test_close_after_migration_orphaned },
};

static void run_test(unsigned int n)
{
	unsigned int before = checks_failed;

	fake_reset();
	dbbatch_stats_sum(&stats_before);
	tests[n].fn();
	check_all_published();
	tests_run++;
	if (checks_failed != before) {
		tests_failed++;
		pr_info("not ok %u %s\n", n + 1, tests[n].name);
	} else {
		pr_info("ok %u %s\n", n + 1, tests[n].name);
	}
}

static int __init test_dbbatch_init(void)
{
	unsigned int i;

	fake_dev = alloc_etherdev_mq(0, NQ);
	if (!fake_dev)
		return -ENOMEM;

	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		run_test(i);
	pr_info("# test_dbbatch: pass:%u fail:%u\n",
		tests_run - tests_failed, tests_failed);

	free_netdev(fake_dev);
	return tests_failed ? -EINVAL : 0;
}

static void __exit test_dbbatch_exit(void)
{
}

module_init(test_dbbatch_init);
module_exit(test_dbbatch_exit);
MODULE_DESCRIPTION("Tests for the dbbatch core");
MODULE_LICENSE("GPL");
