// SPDX-License-Identifier: GPL-2.0
/* Unit tests of igc_batch's adaptive interrupt moderation (igcb_itr.h). */
#include <stdint.h>
typedef uint32_t u32;
#include "tap.h"
#include "../../drivers/net/ethernet/intel/igc_batch/igcb_itr.h"

#define MIN_US IGCB_ITR_ADAPT_MIN_US
#define MAX_US IGCB_ITR_ADAPT_MAX_US
#define RING 2048	/* IGCB_DEFAULT_TXD */
#define TX_MAX 275	/* its transmit-only cap at 2.5 Gb/s */
#define BIG 4096	/* IGCB_MAX_DESC, as the lab's rings */
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
	/* a transmit-only vector's longer interval ends with a frame */
	EXPECT(next(1, 9000, 0, 0, IGCB_ITR_TX_MAX_US) == MAX_US);
	EXPECT(next(1, 64, 0, 0, IGCB_ITR_TX_MAX_US) == MIN_US);
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

/* Transmit-only at 20 kpps: the interval doubles to the ring's cap and
 * stays there: 3.6k interrupts/s on the default ring, one per five
 * frames; 2k/s on 4096 descriptors, one per ten.
 */
static void tx_only_slow(void)
{
	struct igcb_itr_work w = { 0 };
	unsigned int us = MIN_US, i;

	for (i = 0; i < 3; i++)
		us = next(0, 0, per_irq(20000, us), 0, us);
	EXPECT(us == TX_MAX);
	EXPECT(next(0, 0, per_irq(20000, us), 0, us) == TX_MAX);
	EXPECT(per_irq(20000, us) == 5);

	for (us = MIN_US, i = 0; i < 4; i++) {
		w.tx_pkts = per_irq(20000, us);
		us = igcb_itr_next(&w, us, 2500, BIG);
	}
	EXPECT(us == IGCB_ITR_TX_MAX_US);
	w.tx_pkts = per_irq(20000, us);
	EXPECT(igcb_itr_next(&w, us, 2500, BIG) == IGCB_ITR_TX_MAX_US);
	EXPECT(w.tx_pkts == 10);
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
	/* kept above the receive rule's cap too */
	EXPECT(next(0, 0, RING / 64 + 1, 0, TX_MAX) == TX_MAX);
	{
		struct igcb_itr_work w = { 0, 0, BIG / 64 + 1, 0 };

		w.tx_bytes = 64 * w.tx_pkts;
		EXPECT(igcb_itr_next(&w, IGCB_ITR_TX_MAX_US, 2500, BIG) ==
		       IGCB_ITR_TX_MAX_US);
		w.tx_pkts = BIG / 16;
		w.tx_bytes = 64 * w.tx_pkts;
		EXPECT(igcb_itr_next(&w, IGCB_ITR_TX_MAX_US, 2500, BIG) ==
		       IGCB_ITR_TX_MAX_US);
	}
}

/* Above 250 us only while an interrupt frees at most 16 KB: a TCP sender
 * whose ACKs come in on another queue keeps upstream igc's 4k/s.
 */
static void tx_only_bytes(void)
{
	struct igcb_itr_work w = { 0, 0, 10, 10 * 1514 };

	EXPECT(igcb_itr_next(&w, 250, 2500, BIG) == IGCB_ITR_TX_MAX_US);
	w.tx_pkts = 11;
	w.tx_bytes = 11 * 1514;
	EXPECT(igcb_itr_next(&w, 250, 2500, BIG) == MAX_US);
	EXPECT(igcb_itr_next(&w, IGCB_ITR_TX_MAX_US, 2500, BIG) == MAX_US);
	/* two 64 KB TSO sends, their segments counted: the same */
	w.tx_pkts = 2 * 44;
	w.tx_bytes = 2 * 65536;
	EXPECT(igcb_itr_next(&w, IGCB_ITR_TX_MAX_US, 2500, BIG) == MAX_US);
	/* under the receive rule's cap the bytes change nothing */
	w.tx_pkts = 20;
	w.tx_bytes = 20 * 1514;
	EXPECT(igcb_itr_next(&w, 100, 2500, BIG) == 200);
	EXPECT(igcb_itr_next(&w, 100, 2500, 512) == 68);
}

/* Every rate up to line rate, on every ring size and both gigabit
 * speeds, from every interval the rule can be in: no interrupt finds more
 * than half the ring completed, unless the shortest interval itself
 * cannot keep it there (a small ring at line rate), where the rule is at
 * the shortest from the second interrupt on; and one interrupt after a
 * change of rate each finds at most 1/8 completed (the doorbell batch's
 * limit) wherever the shortest interval can keep it there.
 */
static void tx_only_every_rate(void)
{
	static const unsigned int rings[] = { 64, 256, 512, 1024, 2048, 4096 };
	static const unsigned int links[] = { 1000, 2500 };
	unsigned long long pps, line;
	unsigned int r, l, us0, us, i, n, max, ring;

	for (r = 0; r < sizeof(rings) / sizeof(rings[0]); r++) {
		for (l = 0; l < sizeof(links) / sizeof(links[0]); l++) {
			ring = rings[r];
			line = links[l] * 1000000ULL / IGCB_ITR_WIRE_BITS;
			max = igcb_itr_tx_max(ring, links[l]);
			for (pps = 1000; pps < line * 5 / 4 + 1;
			     pps = pps * 5 / 4 + 1) {
				if (pps > line)
					pps = line;
				for (us0 = MIN_US; us0 <= max; us0 += 5) {
					struct igcb_itr_work w = { 0 };

					us = us0;
					for (i = 0; i < 20; i++) {
						n = per_irq(pps, us);
						if (per_irq(pps, MIN_US) <= ring / 2)
							EXPECT(n <= ring / 2);
						else if (i)
							EXPECT(us == MIN_US);
						if (i && per_irq(pps, MIN_US) <=
						    ring / 8)
							EXPECT(n <= ring / 8);
						w.tx_pkts = n;
						w.tx_bytes = 64 * n;
						us = igcb_itr_next(&w, us, links[l],
								   ring);
						EXPECT(us >= MIN_US && us <= max);
					}
				}
				if (pps == line)
					break;
			}
		}
	}
}

/* The cap: 2k interrupts/s on the largest rings, less on smaller ones
 * (the default's 275 us at 2.5 Gb/s), the 2.5 Gb/s figure when the speed
 * is unknown; an interval above the cap (ethtool -C's, say) comes down.
 */
static void tx_only_cap(void)
{
	EXPECT(igcb_itr_tx_max(4096, 2500) == IGCB_ITR_TX_MAX_US);
	EXPECT(igcb_itr_tx_max(4096, 1000) == IGCB_ITR_TX_MAX_US);
	EXPECT(igcb_itr_tx_max(2048, 1000) == IGCB_ITR_TX_MAX_US);
	EXPECT(igcb_itr_tx_max(2048, 2500) == TX_MAX);
	EXPECT(igcb_itr_tx_max(2048, 0) == TX_MAX);
	EXPECT(igcb_itr_tx_max(512, 2500) == 68);
	EXPECT(igcb_itr_tx_max(512, 1000) == 172);
	EXPECT(igcb_itr_tx_max(256, 2500) == MIN_US);
	EXPECT(igcb_itr_tx_max(512, 0) == 68);
	EXPECT(next(0, 0, 1, 0, TX_MAX) == TX_MAX);
	EXPECT(next(0, 0, 1, 0, 8000) == TX_MAX);
	{
		struct igcb_itr_work w = { 0, 0, 1, 64 };

		EXPECT(igcb_itr_next(&w, 200, 2500, 512) == 68);
		EXPECT(igcb_itr_next(&w, 8000, 2500, BIG) ==
		       IGCB_ITR_TX_MAX_US);
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
	tap_run("transmit-only at 20 kpps: the ring's cap", tx_only_slow);
	tap_run("transmit-only: thresholds at 1/64 and 1/16 of the ring",
		tx_only_thresholds);
	tap_run("transmit-only: above 4k/s only while freeing <= 16 KB",
		tx_only_bytes);
	tap_run("transmit-only up to line rate: at most half the ring an "
		"interrupt", tx_only_every_rate);
	tap_run("transmit-only: the cap by ring size and link speed",
		tx_only_cap);
	tap_run("sums that would wrap", saturates);
	return tap_done();
}
