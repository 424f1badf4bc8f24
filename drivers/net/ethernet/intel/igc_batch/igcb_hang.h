/* SPDX-License-Identifier: GPL-2.0 */
/* igc_batch: when a transmit queue counts as hung.  Pure, free of kernel
 * dependencies, so that tests/unit runs the code the module runs.
 *
 * The watchdog looks at each queue about every 2 s (sooner after a link
 * change).  A queue is hung when the device has had descriptors to send
 * (its head, TDH, short of the tail it was given) for at least a period
 * with no progress at all: its head did not move and nothing was
 * completed, while the MAC was free to send (link up, not held off by a
 * PAUSE frame: STATUS.TXOFF).  A busy queue's head may come back to the
 * same place after going round the ring; its completions still moved.
 * Frames sent but not yet cleaned (a lost interrupt) do not count either:
 * the head moved.  The stack's transmit timeout only sees a queue it
 * stopped because the ring was full, which a quiet queue never is.
 */
#ifndef _IGCB_HANG_H
#define _IGCB_HANG_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
/* user space: the includer defines u32 (tests/unit/test_hang.c) */
#include <stdbool.h>
#endif

struct igcb_hang {
	bool armed;	/* busy at the last look, with: */
	u32 tdh;	/* the head then */
	u32 done;	/* the completion count then */
	u32 since;	/* when the head and the count were last seen moving */
};

static inline void igcb_hang_reset(struct igcb_hang *h)
{
	h->armed = false;
}

/**
 * igcb_hang_look - one watchdog look at a queue
 * @h: the queue's state
 * @tdh: the device's head (TDH), already checked to be inside the ring
 * @tdt: the tail last written (TDT)
 * @done: descriptors or packets completed so far (any running count)
 * @can_send: link up and no PAUSE holding the MAC off
 * @now: the time, in any unit that wraps at 2^32 (jiffies)
 * @period: how long without progress is a hang, in @now's unit
 *
 * Return: true when the queue is hung; the state starts over then.
 */
static inline bool igcb_hang_look(struct igcb_hang *h, u32 tdh, u32 tdt,
				  u32 done, bool can_send, u32 now, u32 period)
{
	if (!can_send || tdh == tdt) {
		h->armed = false;	/* waiting or idle: not counted */
		return false;
	}
	if (!h->armed || tdh != h->tdh || done != h->done) {
		h->armed = true;	/* busy, and moving: start the clock */
		h->tdh = tdh;
		h->done = done;
		h->since = now;
		return false;
	}
	if (now - h->since < period)
		return false;
	h->armed = false;
	return true;
}

#endif
