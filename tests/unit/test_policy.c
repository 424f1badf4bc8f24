// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the pure dbbatch policy (include/net/dbbatch_policy.h). */
#include <limits.h>
#include <stdlib.h>
#include "tap.h"
#include "sim.h"

static void threshold_boundaries(void)
{
	static const unsigned int sizes[] = { 8, 64, 256, 1024, 4096, 32768 };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned int n = sizes[i];

		EXPECT(dbb_below_threshold(0, n));
		EXPECT(dbb_below_threshold(n / 8, n));
		EXPECT(!dbb_below_threshold(n / 8 + 1, n));
		EXPECT(!dbb_below_threshold(n, n));
	}
	/* a ring too small for 1/8 to be one descriptor never holds a packet */
	EXPECT(!dbb_below_threshold(1, 7));
	EXPECT(dbb_below_threshold(1, 8));
}

static void threshold_degenerate(void)
{
	EXPECT(!dbb_below_threshold(0, 0));
	EXPECT(!dbb_below_threshold(1, 0));
	EXPECT(!dbb_below_threshold(9, 8));		/* used > size */
	EXPECT(!dbb_below_threshold(UINT_MAX, UINT_MAX));
	EXPECT(dbb_below_threshold(UINT_MAX / 8, UINT_MAX));
	EXPECT(!dbb_below_threshold(UINT_MAX / 8 + 1, UINT_MAX));
}

static void decide_order(void)
{
	/* busy wins over everything, held queues do not take a slot */
	EXPECT(dbb_decide(false, 0, 1, 256) == DBB_HOLD);
	EXPECT(dbb_decide(false, DBB_MAX_HELD - 1, 1, 256) == DBB_HOLD);
	EXPECT(dbb_decide(false, DBB_MAX_HELD, 1, 256) == DBB_RING_CAP);
	EXPECT(dbb_decide(true, DBB_MAX_HELD, 1, 256) == DBB_HOLD);
	EXPECT(dbb_decide(true, 0, 33, 256) == DBB_RING_BUSY);
	EXPECT(dbb_decide(false, DBB_MAX_HELD, 33, 256) == DBB_RING_BUSY);
}

static void skip_empty(void)
{
	EXPECT(!dbb_tail_pending(5, 5));
	EXPECT(dbb_tail_pending(6, 5));
	/* ring indices wrap: any difference is something to publish */
	EXPECT(dbb_tail_pending(0, 255));
}

static void rings_saved(void)
{
	EXPECT(dbb_rings_saved(16, 1, 0) == 15);
	EXPECT(dbb_rings_saved(16, 1, 2) == 13);
	EXPECT(dbb_rings_saved(1, 1, 0) == 0);
	EXPECT(dbb_rings_saved(0, 3, 0) == 0);		/* torn sample */
}

static const unsigned int sizes256[SIM_QUEUES] = {
	256, 256, 256, 256, 256, 256, 256, 256,
	256, 256, 256, 256, 256, 256, 256, 256,
};

/* FreeBSD's batch of 16 forwarded packets: one ring instead of 16. */
static void sim_batch_of_16(void)
{
	static struct sim s;
	unsigned int i;

	sim_init(&s, sizes256);
	sim_open(&s);
	for (i = 0; i < 16; i++)
		EXPECT(sim_xmit(&s, 0));
	EXPECT(s.q[0].tail_writes == 0);
	sim_close(&s);
	EXPECT(s.q[0].tail_writes == 1);
	EXPECT(s.deferred == 16);
	EXPECT(dbb_rings_saved(s.deferred, s.flush_rings, s.stopped_rings) == 15);
	EXPECT(!s.violations);
}

/*
 * A pass of @n frames to queue 0, each handed over and transmitted at
 * once (the stack deferring nothing: the case least kind to opening late),
 * the batch opened by dbb_open_at_delivery() as the driver sees @ready
 * frames behind each.  Returns the tail writes; *@opens the batches.
 */
static unsigned long pass_on_demand(unsigned int n, unsigned int late,
				    unsigned int *opens)
{
	static struct sim s;
	bool delivered = false;
	unsigned int i;

	sim_init(&s, sizes256);
	*opens = 0;
	for (i = 0; i < n; i++) {
		/* frames after @late arrive while the pass runs */
		bool more = i + 1 < n && i + 1 != late;

		if (!s.open) {
			if (dbb_open_at_delivery(more, delivered)) {
				sim_open(&s);
				(*opens)++;
			} else {
				delivered = true;
			}
		}
		EXPECT(sim_xmit(&s, 0));
	}
	sim_close(&s);
	s.open = false;
	EXPECT(!s.violations && !s.q[0].empty_writes);
	return s.q[0].tail_writes;
}

static void open_at_delivery(void)
{
	unsigned int n, opens;

	EXPECT(!dbb_open_at_delivery(false, false));
	EXPECT(dbb_open_at_delivery(true, false));
	EXPECT(dbb_open_at_delivery(false, true));
	EXPECT(dbb_open_at_delivery(true, true));
	/* one frame: no batch, the one tail write a batch would have made */
	EXPECT(pass_on_demand(1, 0, &opens) == 1 && opens == 0);
	/* more: one batch opened at the first frame, one tail write */
	for (n = 2; n <= 32; n++)
		EXPECT(pass_on_demand(n, 0, &opens) == 1 && opens == 1);
	/* the second frame arrived after the first was handed over as the
	 * last: it rang alone, the rest are one batch
	 */
	for (n = 2; n <= 32; n++)
		EXPECT(pass_on_demand(n, 1, &opens) == 2 && opens == 1);
}

static void sim_nine_queues(void)
{
	static struct sim s;
	unsigned int i;

	sim_init(&s, sizes256);
	sim_open(&s);
	for (i = 0; i < 9; i++)
		EXPECT(sim_xmit(&s, i));
	EXPECT(s.nheld == DBB_MAX_HELD);
	EXPECT(s.q[8].tail_writes == 1);
	sim_close(&s);
	for (i = 0; i < 9; i++)
		EXPECT(s.q[i].tail_writes == 1);
	EXPECT(!s.violations);
}

/* Past 1/8 the ring rings per packet again: the hardware stays fed. */
static void sim_busy_ring(void)
{
	static struct sim s;
	unsigned int i;

	sim_init(&s, sizes256);
	sim_open(&s);
	for (i = 0; i < 40; i++)
		EXPECT(sim_xmit(&s, 0));
	EXPECT(s.q[0].tail_writes == 40 - 256 / 8);
	sim_close(&s);
	EXPECT(s.q[0].tail_writes == 40 - 256 / 8);
	EXPECT(s.q[0].empty_writes == 0);
	EXPECT(!s.violations);
}

/* Random traffic: invariants hold over a long run, with a fixed seed. */
static void sim_random_soak(void)
{
	static struct sim s;
	unsigned int sizes[SIM_QUEUES], i, step;

	srand(1);
	for (i = 0; i < SIM_QUEUES; i++)
		sizes[i] = 8u << (i % 10);
	sim_init(&s, sizes);
	for (step = 0; step < 200000; step++) {
		unsigned int r = (unsigned int)rand();

		switch (r % 8) {
		case 0:
			if (!s.open)
				sim_open(&s);
			break;
		case 1:
			if (s.open)
				sim_close(&s);
			break;
		case 2:
			sim_complete(&s, r >> 3, (r >> 8) % 64);
			break;
		default:
			sim_xmit(&s, r >> 3);
		}
	}
	if (s.open)
		sim_close(&s);
	EXPECT(!s.violations);
	for (i = 0; i < SIM_QUEUES; i++)
		EXPECT(s.q[i].empty_writes == 0);
}

int main(void)
{
	tap_run("threshold_boundaries", threshold_boundaries);
	tap_run("threshold_degenerate", threshold_degenerate);
	tap_run("decide_order", decide_order);
	tap_run("skip_empty", skip_empty);
	tap_run("rings_saved", rings_saved);
	tap_run("open_at_delivery", open_at_delivery);
	tap_run("sim_batch_of_16", sim_batch_of_16);
	tap_run("sim_nine_queues", sim_nine_queues);
	tap_run("sim_busy_ring", sim_busy_ring);
	tap_run("sim_random_soak", sim_random_soak);
	return tap_done();
}
