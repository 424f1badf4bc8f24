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
 * forwarding) only frees buffers, which nobody waits for: its interval
 * doubles, up to 4k interrupts per second, while an interrupt completes at
 * most 1/64 of the ring, and drops back to 20k as soon as one completes
 * more than 1/16.  At 20 kpps that is one completion interrupt per five
 * frames instead of one per doorbell.  A burst at line rate (3.7 Mpps of
 * 64-byte frames at 2.5 Gb/s: 925 frames in 250 us) does not fill the
 * default 2048 descriptors, and from then on stays under 1/8 of the ring,
 * where the doorbell batch keeps holding.
 */
#ifndef _IGCB_ITR_H
#define _IGCB_ITR_H

#ifndef __KERNEL__
/* user space: the includer defines u32 (tests/unit/test_itr.c) */
#include <stdbool.h>
#endif

#define IGCB_ITR_ADAPT_MIN_US	50	/* 20k interrupts/s */
#define IGCB_ITR_ADAPT_MAX_US	250	/* 4k interrupts/s */
#define IGCB_ITR_TX_GROW_DIV	64	/* grow at or below ring / 64 ... */
#define IGCB_ITR_TX_DROP_DIV	16	/* ... back to 20k above ring / 16 */

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

/**
 * igcb_itr_next - the interval for a vector's next interrupt
 * @w: its work since the last update
 * @cur_us: the interval in force
 * @link_mbps: link speed, 0 if unknown
 * @tx_ring: descriptors in its transmit ring
 *
 * Return: microseconds, IGCB_ITR_ADAPT_MIN_US..IGCB_ITR_ADAPT_MAX_US; with
 * no work at all (a spurious interrupt), @cur_us unchanged.
 */
static inline unsigned int igcb_itr_next(const struct igcb_itr_work *w,
					 unsigned int cur_us,
					 unsigned int link_mbps,
					 unsigned int tx_ring)
{
	u32 pkts, bytes, wire;

	if (!w->rx_pkts && !w->tx_pkts)
		return cur_us;
	if (link_mbps && link_mbps < 1000)
		return IGCB_ITR_ADAPT_MAX_US;
	if (!w->rx_pkts) {
		if (w->tx_pkts > tx_ring / IGCB_ITR_TX_DROP_DIV)
			return IGCB_ITR_ADAPT_MIN_US;
		if (w->tx_pkts <= tx_ring / IGCB_ITR_TX_GROW_DIV)
			return igcb_itr_clamp(igcb_itr_clamp(cur_us) * 2);
		return igcb_itr_clamp(cur_us);
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
