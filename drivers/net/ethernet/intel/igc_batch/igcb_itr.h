/* SPDX-License-Identifier: GPL-2.0 */
/* igc_batch: adaptive interrupt moderation, the interval (EITR) a queue
 * vector's next interrupt waits after its poll completes.  Pure, free of
 * kernel dependencies, so that tests/unit runs the code the module runs.
 *
 * A vector that received frames waits by their size: short intervals for
 * small frames, long ones for big frames that fill the wire anyway, within
 * 20k..4k interrupts per second; a fixed 4k below 1 Gb/s.
 *
 * A vector that only completed transmits (the egress port of one-way
 * forwarding) only frees buffers: its interval doubles while an interrupt
 * completes at most 1/64 of the ring, up to 2k interrupts per second, or
 * less where a burst of 64-byte frames at line rate, one descriptor each
 * as forwarded frames take, would fill half the ring in that time (4096
 * descriptors at 2.5 Gb/s: 1,860 frames in 500 us; 2048: 275 us; 512:
 * 68 us), and drops back to 20k as soon as an interrupt completes more
 * than 1/16.  Slower than 4k/s only while an interrupt frees at most
 * 16 KB: a local TCP sender (its ACKs on another queue) may keep about
 * 1 ms of its pacing rate unfreed (TSQ), twice what 16 KB in 500 us is;
 * faster senders get 4k/s, as with upstream igc.  At 10 kpps on a queue
 * of 4096 that is one completion interrupt per five frames instead of
 * one per doorbell.
 */
#ifndef _IGCB_ITR_H
#define _IGCB_ITR_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif
/* user space: the includer defines u32 (tests/unit/test_itr.c) */

#define IGCB_ITR_ADAPT_MIN_US	50	/* 20k interrupts/s */
#define IGCB_ITR_ADAPT_MAX_US	250	/* 4k interrupts/s */
#define IGCB_ITR_TX_MAX_US	500	/* transmit-only: 2k interrupts/s */
#define IGCB_ITR_TX_LONG_BYTES	16384	/* ... while freeing at most this */
#define IGCB_ITR_TX_GROW_DIV	64	/* grow at or below ring / 64 ... */
#define IGCB_ITR_TX_DROP_DIV	16	/* ... back to 20k above ring / 16 */
#define IGCB_ITR_WIRE_BITS	672	/* a 64-byte frame, preamble and gap */
#define IGCB_ITR_LINK_MBPS	2500	/* when the link speed is unknown */

/* What a vector did since its last interval update. */
struct igcb_itr_work {
	u32 rx_pkts;
	u32 rx_bytes;
	u32 tx_pkts;
	u32 tx_bytes;
};

static inline unsigned int igcb_itr_clamp(unsigned int us)
{
	if (us < IGCB_ITR_ADAPT_MIN_US)
		return IGCB_ITR_ADAPT_MIN_US;
	if (us > IGCB_ITR_ADAPT_MAX_US)
		return IGCB_ITR_ADAPT_MAX_US;
	return us;
}

/* The longest a transmit-only vector may wait: a line-rate burst of the
 * smallest frames fills at most half of a ring of @tx_ring descriptors.
 */
static inline unsigned int igcb_itr_tx_max(unsigned int tx_ring,
					   unsigned int link_mbps)
{
	unsigned int us;

	if (!link_mbps)
		link_mbps = IGCB_ITR_LINK_MBPS;
	us = tx_ring / 2 * IGCB_ITR_WIRE_BITS / link_mbps;
	if (us > IGCB_ITR_TX_MAX_US)
		return IGCB_ITR_TX_MAX_US;
	return us < IGCB_ITR_ADAPT_MIN_US ? IGCB_ITR_ADAPT_MIN_US : us;
}

/**
 * igcb_itr_next - the interval for a vector's next interrupt
 * @w: its work since the last update
 * @cur_us: its last interval (written to EITR at its next interrupt)
 * @link_mbps: link speed, 0 if unknown
 * @tx_ring: descriptors in its transmit ring
 *
 * Return: microseconds, IGCB_ITR_ADAPT_MIN_US..IGCB_ITR_ADAPT_MAX_US, up
 * to IGCB_ITR_TX_MAX_US for a vector that only transmitted; with no work
 * at all (a spurious interrupt), @cur_us unchanged.
 */
static inline unsigned int igcb_itr_next(const struct igcb_itr_work *w,
					 unsigned int cur_us,
					 unsigned int link_mbps,
					 unsigned int tx_ring)
{
	u32 pkts, bytes, wire, max;

	if (!w->rx_pkts && !w->tx_pkts)
		return cur_us;
	if (link_mbps && link_mbps < 1000)
		return IGCB_ITR_ADAPT_MAX_US;
	if (!w->rx_pkts) {
		if (w->tx_pkts > tx_ring / IGCB_ITR_TX_DROP_DIV)
			return IGCB_ITR_ADAPT_MIN_US;
		max = igcb_itr_tx_max(tx_ring, link_mbps);
		if (w->tx_bytes > IGCB_ITR_TX_LONG_BYTES &&
		    max > IGCB_ITR_ADAPT_MAX_US)
			max = IGCB_ITR_ADAPT_MAX_US;
		if (cur_us < IGCB_ITR_ADAPT_MIN_US)
			cur_us = IGCB_ITR_ADAPT_MIN_US;
		if (w->tx_pkts <= tx_ring / IGCB_ITR_TX_GROW_DIV)
			cur_us *= 2;
		return cur_us < max ? cur_us : max;
	}
	/* counts of one poll or a few: saturate rather than wrap */
	pkts = w->rx_pkts + w->tx_pkts;
	if (pkts < w->rx_pkts)
		pkts = ~0U;
	bytes = w->rx_bytes + w->tx_bytes;
	if (bytes < w->rx_bytes)
		bytes = ~0U;
	/* preamble, SFD, FCS and the inter-frame gap: 24 bytes */
	wire = bytes / pkts;
	wire = wire > 3000 - 24 ? 3000 : wire + 24;
	return igcb_itr_clamp(wire / 8);
}

#endif /* _IGCB_ITR_H */
