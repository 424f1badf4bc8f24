/* SPDX-License-Identifier: GPL-2.0 */
/* igc_batch: when a receive ring gives its buffers back to the port.  Pure,
 * free of kernel dependencies, so that tests/unit runs the code the module
 * runs.
 *
 * Every refill ends with a write of the receive tail (RDT): a doorbell,
 * an uncached write like the transmit one.  Refilling at the end of every
 * poll rings it once per poll, about once per frame at a low rate (the
 * receive side of the iflib finding).  A ring instead waits until
 * IGCB_RX_REFILL_BATCH of its slots await a buffer, mid-poll or at the
 * poll's end, and publishes them with one write: at most one RDT write
 * per 16 frames at any rate, and the port keeps all but at most 15 of
 * its buffers (a ring has 64 or more).  The port fetches receive
 * descriptors in groups (RXDCTL's prefetch and host thresholds, 8 here),
 * so sixteen published at once are also fewer, fuller fetches.
 */
#ifndef _IGCB_REFILL_H
#define _IGCB_REFILL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

#define IGCB_RX_REFILL_BATCH	16

/* Slots of a @count-entry ring that await a buffer: all but those posted
 * (from @ntc, the next the port completes, up to @ntu, the next to post)
 * and the one a full ring keeps empty.
 */
static inline unsigned int igcb_rx_awaiting(unsigned int count,
					    unsigned int ntu, unsigned int ntc)
{
	unsigned int posted = ntu >= ntc ? ntu - ntc : count + ntu - ntc;

	return count - posted - 1;
}

/* Refill and publish now?  Also the retry after a failed allocation: a
 * refill cut short leaves its slots awaiting, still due.
 */
static inline bool igcb_rx_refill_due(unsigned int awaiting)
{
	return awaiting >= IGCB_RX_REFILL_BATCH;
}

#endif
