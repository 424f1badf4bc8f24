// SPDX-License-Identifier: GPL-2.0
/* Unit tests of igc_batch's adaptive interrupt moderation (igcb_itr.h). */
#include <stdint.h>
typedef uint32_t u32;
#include "tap.h"
#include "../../drivers/net/ethernet/intel/igc_batch/igcb_itr.h"

#define MIN_US IGCB_ITR_ADAPT_MIN_US
#define MAX_US IGCB_ITR_ADAPT_MAX_US
#define RING 2048	/* IGCB_DEFAULT_TXD */
#define LINE_PPS 3720238	/* 64-byte frames at 2.5 Gb/s */

static unsigned int next(u32 rx, u32 rxb, u32 tx, u32 txb, unsigned int cur)
{
	struct igcb_itr_work w = { rx, rxb, tx, txb };

	return igcb_itr_next(&w, cur, 2500, RING);
}

/* Frames a transmit-only vector completes per interrupt at PPS with an
 * interval of US: one when they come further apart than the interval.
 */
static u32 per_irq(unsigned long long pps, unsigned int us)
{
	unsigned long long n = pps * us / 1000000;

	return n ? (u32)n : 1;
}

/* Received frames: by size, as before transmit-only vectors had a rule. */
static void receive(void)
{
	EXPECT(next(1, 64, 0, 0, MIN_US) == MIN_US);
	EXPECT(next(10, 640, 10, 640, MAX_US) == MIN_US);
	EXPECT(next(4, 4 * 1500, 0, 0, MIN_US) == (1500 + 24) / 8);
	EXPECT(next(2, 2 * 9000, 0, 0, MIN_US) == MAX_US);
	/* one received frame is enough: the receive rule, however many
	 * completions came with it
	 */
	EXPECT(next(1, 64, 1000, 64000, MAX_US) == MIN_US);
}

/* A spurious interrupt changes nothing. */
static void no_work(void)
{
	EXPECT(next(0, 0, 0, 0, 120) == 120);
	EXPECT(next(0, 0, 0, 0, MIN_US) == MIN_US);
}

static void slow_link(void)
{
	struct igcb_itr_work w = { 1, 64, 0, 0 };

	EXPECT(igcb_itr_next(&w, MIN_US, 100, RING) == MAX_US);
	EXPECT(igcb_itr_next(&w, MIN_US, 0, RING) == MIN_US);	/* unknown */
}

/* Transmit-only at 20 kpps: the interval doubles to 4k interrupts/s, one
 * interrupt per five frames, and stays there.
 */
static void tx_only_slow(void)
{
	unsigned int us = MIN_US, i;

	for (i = 0; i < 3; i++)
		us = next(0, 0, per_irq(20000, us), 0, us);
	EXPECT(us == MAX_US);
	EXPECT(next(0, 0, per_irq(20000, us), 0, us) == MAX_US);
	EXPECT(per_irq(20000, us) == 5);
}

/* Above 1/16 of the ring an interrupt: straight back to 20k; between the
 * two thresholds: kept.
 */
static void tx_only_thresholds(void)
{
	EXPECT(next(0, 0, RING / 16 + 1, 0, MAX_US) == MIN_US);
	EXPECT(next(0, 0, RING / 16, 0, 200) == 200);
	EXPECT(next(0, 0, RING / 64 + 1, 0, 100) == 100);
	EXPECT(next(0, 0, RING / 64, 0, 100) == 200);
	EXPECT(next(0, 0, 1, 0, 3) == 2 * MIN_US);	/* a foreign value */
}

/* Every rate up to line rate, from every interval: no interrupt finds the
 * default ring full, and one interrupt after a change of rate each finds
 * at most 1/8 of it completed (the doorbell batch's limit) wherever the
 * shortest interval can keep it there.
 */
static void tx_only_every_rate(void)
{
	unsigned long long pps;
	unsigned int us0, us, i, n;

	for (pps = 1000; pps <= LINE_PPS; pps = pps * 5 / 4 + 1) {
		for (us0 = MIN_US; us0 <= MAX_US; us0 += 10) {
			us = us0;
			for (i = 0; i < 20; i++) {
				n = per_irq(pps, us);
				EXPECT(n < RING);
				if (i && per_irq(pps, MIN_US) <= RING / 8)
					EXPECT(n <= RING / 8);
				us = next(0, 0, n, 64 * n, us);
				EXPECT(us >= MIN_US && us <= MAX_US);
			}
		}
	}
}

/* Counts that would wrap a sum: no division by zero, a sane interval. */
static void saturates(void)
{
	unsigned int us = next(~0U, ~0U, 5, ~0U, MIN_US);

	EXPECT(us >= MIN_US && us <= MAX_US);
	EXPECT(next(~0U, 64, ~0U, 64, MIN_US) == MIN_US);
}

int main(void)
{
	tap_run("receive: interval by frame size", receive);
	tap_run("no work: interval unchanged", no_work);
	tap_run("below 1 Gb/s: 4k interrupts/s", slow_link);
	tap_run("transmit-only at 20 kpps: 4k interrupts/s", tx_only_slow);
	tap_run("transmit-only: thresholds at 1/64 and 1/16 of the ring",
		tx_only_thresholds);
	tap_run("transmit-only up to line rate: ring never full", tx_only_every_rate);
	tap_run("sums that would wrap", saturates);
	return tap_done();
}
