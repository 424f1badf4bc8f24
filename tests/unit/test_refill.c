// SPDX-License-Identifier: GPL-2.0
/* Unit tests of igc_batch's receive refill rule (igcb_refill.h): a ring
 * driven poll by poll the way igcb_rx_clean() drives it, with frames
 * arriving at random and page allocations that fail on demand.
 */
#include <stdbool.h>
#include <stdlib.h>
#include "tap.h"
#include "../../drivers/net/ethernet/intel/igc_batch/igcb_refill.h"

#define BATCH IGCB_RX_REFILL_BATCH

struct ring {
	unsigned int count, ntu, ntc, tail;	/* tail: last RDT written */
	unsigned long frames, writes, published;
	unsigned long min_posted;	/* lowest before a poll's last refill */
	unsigned int fail;	/* allocations still to fail */
	bool short_write;	/* a write published fewer than BATCH */
};

static unsigned int awaiting(const struct ring *r)
{
	return igcb_rx_awaiting(r->count, r->ntu, r->ntc);
}

static unsigned int posted(const struct ring *r)
{
	return r->count - 1 - awaiting(r);
}

/* igcb_rx_refill(): post up to @n, stop at a failed allocation, write
 * RDT if next_to_use moved.  Return: false if an allocation failed.
 */
static bool refill(struct ring *r, unsigned int n)
{
	unsigned int done = 0;
	bool ok = true;

	while (n--) {
		if (r->fail) {
			r->fail--;
			ok = false;
			break;
		}
		r->ntu = (r->ntu + 1) % r->count;
		done++;
	}
	if (r->ntu != r->tail) {
		r->tail = r->ntu;
		r->writes++;
		r->published += done;
		if (done < BATCH && ok)
			r->short_write = true;
	}
	return ok;
}

/* igcb_rx_clean() with @ready frames written back by the port. */
static bool poll(struct ring *r, unsigned int ready, unsigned int budget)
{
	unsigned int a = awaiting(r), done = 0;

	if (!ready && !igcb_rx_refill_due(a))
		return false;
	while (done < budget) {
		if (igcb_rx_refill_due(a)) {
			refill(r, a);
			a = awaiting(r);
		}
		if (r->ntc == r->ntu || !ready)
			break;
		r->ntc = (r->ntc + 1) % r->count;
		ready--;
		a++;
		done++;
		r->frames++;
	}
	if (posted(r) < r->min_posted)
		r->min_posted = posted(r);
	if (igcb_rx_refill_due(a))
		return !refill(r, a);
	return false;
}

static void ring_init(struct ring *r, unsigned int count)
{
	*r = (struct ring){ .count = count, .min_posted = count };
	refill(r, count - 1);	/* open: the whole ring */
	r->writes = 0;
	r->published = 0;
	r->short_write = false;
}

/* The same slot arithmetic as the ring's indices, every pair. */
static void arithmetic(void)
{
	unsigned int ntu, ntc, count = 64;

	for (ntu = 0; ntu < count; ntu++)
		for (ntc = 0; ntc < count; ntc++) {
			unsigned int used = (ntu + count - ntc) % count;

			EXPECT(igcb_rx_awaiting(count, ntu, ntc) ==
			       count - 1 - used);
		}
	EXPECT(!igcb_rx_refill_due(BATCH - 1));
	EXPECT(igcb_rx_refill_due(BATCH));
}

/* One frame a poll (a low rate): one RDT write per BATCH frames, where
 * refilling at every poll's end wrote one per frame.
 */
static void one_a_poll(void)
{
	struct ring r;
	unsigned int i;

	ring_init(&r, 512);
	for (i = 0; i < 1600; i++)
		poll(&r, 1, 64);
	EXPECT(r.frames == 1600);
	EXPECT(r.writes == 1600 / BATCH);
	EXPECT(!r.short_write);
	EXPECT(r.min_posted >= 512 - BATCH);
}

/* Random bursts on every ring size the driver takes: never more than one
 * write per BATCH frames, the port never short of more than BATCH - 1
 * buffers after a poll, and every buffer published was one taken.
 */
static void random_bursts(void)
{
	static const unsigned int sizes[] = { 64, 72, 256, 512, 2048, 4096 };
	unsigned int s, i;

	srand(1);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct ring r;

		ring_init(&r, sizes[s]);
		for (i = 0; i < 20000; i++) {
			unsigned int ready = rand() % 3 ? rand() % 4 :
					     rand() % 200;

			if (ready > posted(&r))
				ready = posted(&r);
			poll(&r, ready, 64);
			EXPECT(awaiting(&r) < BATCH);
		}
		EXPECT(!r.short_write);
		EXPECT(r.writes <= r.frames / BATCH);
		EXPECT(r.published + awaiting(&r) == r.frames);
	}
}

/* Allocations fail: the poll says so (NAPI polls again), each poll tries
 * again while slots await, and the ring fills once pages come back.
 */
static void failures(void)
{
	struct ring r;
	unsigned int i, repolls = 0;

	ring_init(&r, 256);
	r.fail = 1000;
	for (i = 0; i < 200; i++)
		poll(&r, posted(&r) ? 1 : 0, 64);
	EXPECT(posted(&r) < 256 - 1 - BATCH);	/* it ran short */
	for (i = 0; i < 400 && r.fail; i++)
		repolls += poll(&r, 0, 64);
	EXPECT(r.fail == 0);
	EXPECT(repolls > 0);
	poll(&r, 0, 64);
	EXPECT(awaiting(&r) < BATCH);
	EXPECT(posted(&r) >= 256 - BATCH);
}

int main(void)
{
	tap_run("slot arithmetic and the threshold", arithmetic);
	tap_run("one frame a poll: one RDT write per 16 frames", one_a_poll);
	tap_run("random bursts, rings of 64 to 4096: at most one RDT write "
		"per 16 frames, at most 15 buffers missing", random_bursts);
	tap_run("failed allocations: polled again until the ring refills",
		failures);
	return tap_done();
}
