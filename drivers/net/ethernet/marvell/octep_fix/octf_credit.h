/* SPDX-License-Identifier: GPL-2.0 */
/* octep_fix receive credit: the pure arithmetic of an output ring's
 * doorbell (OUT_SLIST_DBELL), free of kernel dependencies so that
 * tests/unit runs and fuzzes exactly the code the module runs.
 *
 * What the SDP output block does with the doorbell (measured, see
 * Documentation/networking/device_drivers/ethernet/marvell/octep_fix.rst):
 * it fetches buffers sixteen at a time, spending one unit of credit per
 * buffer, for as long as the doorbell reads the output watermark W or
 * more.  The host cannot read W: it belongs to the firmware image.  So a
 * ring of R buffers is granted R + W - 16: the last fetch the block can
 * make leaves the doorbell at W - 16, and that is R buffers.  A larger
 * grant lets the block go round the ring over frames the host has not
 * read; a smaller one leaves buffers unused.
 *
 * After the grant, one unit goes back per buffer the host has taken and
 * refilled, at most once per NAPI pass (one doorbell write), none when
 * there is nothing to give (skip-empty).  Credit that the ceiling has no
 * room for is kept as owed and given on a later pass, also one that took
 * nothing: a ring whose ceiling was lowered and restored comes back.
 */
#ifndef _OCTF_CREDIT_H
#define _OCTF_CREDIT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
/* user space: the includer defines u32 (tests/unit/octf_sim.h) */
#include <stdbool.h>
#endif

/* Buffers the block fetches at a time, and credit units it spends so. */
#define OCTF_FETCH		16U

/* The watermark: a multiple of a fetch; 0x100 is stock Marvell firmware. */
#define OCTF_WMARK_MIN		OCTF_FETCH
#define OCTF_WMARK_MAX		0x4000U
#define OCTF_WMARK_DEFAULT	0x100U

/* Output ring sizes: whole fetches. */
#define OCTF_OQ_MIN		64U
#define OCTF_OQ_MAX		8192U

enum octf_credit_err {
	OCTF_CREDIT_OK = 0,
	OCTF_CREDIT_NOT_FETCHES,	/* not a multiple of OCTF_FETCH */
	OCTF_CREDIT_TOO_SMALL,
	OCTF_CREDIT_TOO_LARGE,
	OCTF_CREDIT_OVER_BUFFERS,	/* ring larger than its buffers */
};

/**
 * struct octf_credit - the credit state of one output ring
 * @ring: buffers published (OUT_SLIST_RSIZE)
 * @wmark: the watermark the grant is computed for
 * @ceiling: most credit outstanding at once; octf_credit_grant() unless
 *	lowered on purpose (a test starving the ring)
 * @outstanding: credit given and not yet come back as a buffer taken:
 *	in the doorbell, in fetched buffers, in written buffers not read
 * @owed: buffers taken and refilled whose unit has not been given back
 */
struct octf_credit {
	u32 ring;
	u32 wmark;
	u32 ceiling;
	u32 outstanding;
	u32 owed;
};

/* The watermark setting: a whole number of fetches, in range. */
static inline enum octf_credit_err octf_wmark_check(u32 wmark)
{
	if (wmark % OCTF_FETCH)
		return OCTF_CREDIT_NOT_FETCHES;
	if (wmark < OCTF_WMARK_MIN)
		return OCTF_CREDIT_TOO_SMALL;
	if (wmark > OCTF_WMARK_MAX)
		return OCTF_CREDIT_TOO_LARGE;
	return OCTF_CREDIT_OK;
}

/* A ring size to publish: whole fetches, in range, and never more than
 * the @buffers allocated behind it (a ring published larger than its
 * buffers lets the block write through stale descriptors).
 */
static inline enum octf_credit_err octf_ring_check(u32 ring, u32 buffers)
{
	if (ring % OCTF_FETCH)
		return OCTF_CREDIT_NOT_FETCHES;
	if (ring < OCTF_OQ_MIN)
		return OCTF_CREDIT_TOO_SMALL;
	if (ring > OCTF_OQ_MAX)
		return OCTF_CREDIT_TOO_LARGE;
	if (ring > buffers)
		return OCTF_CREDIT_OVER_BUFFERS;
	return OCTF_CREDIT_OK;
}

/* Credit for exactly @ring buffers under watermark @wmark. */
static inline u32 octf_credit_grant(u32 ring, u32 wmark)
{
	return ring + wmark - OCTF_FETCH;
}

/**
 * octf_credit_start - state of a ring about to be enabled
 * @c: the state
 * @ring: buffers published, already checked with octf_ring_check()
 * @wmark: watermark, already checked with octf_wmark_check()
 *
 * Return: the initial grant to write to a cleared doorbell.
 */
static inline u32 octf_credit_start(struct octf_credit *c, u32 ring, u32 wmark)
{
	c->ring = ring;
	c->wmark = wmark;
	c->ceiling = octf_credit_grant(ring, wmark);
	c->outstanding = c->ceiling;
	c->owed = 0;
	return c->ceiling;
}

/* The host took @n buffers out of the ring.  More than is outstanding
 * cannot have been written by the block: the caller counts it as a fault
 * and the arithmetic stays bounded.
 */
static inline void octf_credit_taken(struct octf_credit *c, u32 n)
{
	if (n > c->outstanding)
		n = c->outstanding;
	c->outstanding -= n;
}

/* @n buffers taken are refilled: their units are owed to the block. */
static inline void octf_credit_refilled(struct octf_credit *c, u32 n)
{
	c->owed += n;
}

/**
 * octf_credit_pass - what one pass gives back
 * @c: the state
 *
 * Called once per NAPI pass, also one that took nothing.
 *
 * Return: the units to write to the doorbell now, 0 for no write.
 */
static inline u32 octf_credit_pass(struct octf_credit *c)
{
	u32 room, give;

	if (c->outstanding >= c->ceiling)
		return 0;
	room = c->ceiling - c->outstanding;
	give = c->owed < room ? c->owed : room;
	c->owed -= give;
	c->outstanding += give;
	return give;
}

/* Lower or restore the ceiling (0: the exact grant).  Never above the
 * exact grant: that is the over-grant that laps the ring.
 */
static inline void octf_credit_set_ceiling(struct octf_credit *c, u32 ceiling)
{
	u32 grant = octf_credit_grant(c->ring, c->wmark);

	c->ceiling = (!ceiling || ceiling > grant) ? grant : ceiling;
}

/* Buffers the block holds for a ring: outstanding credit less what the
 * doorbell reads back (@dbell).  Fetched, written or not.
 */
static inline u32 octf_credit_in_device(const struct octf_credit *c, u32 dbell)
{
	return dbell < c->outstanding ? c->outstanding - dbell : 0;
}

/* Does the read-back show that the block holds more buffers than the
 * ring has?  Only an over-grant allows that: the firmware's watermark is
 * lower than @c->wmark, and the block is about to go round the ring.
 */
static inline bool octf_credit_overgranted(const struct octf_credit *c,
					   u32 dbell)
{
	return octf_credit_in_device(c, dbell) > c->ring;
}

/**
 * octf_credit_fallback_wmark - the watermark to fall back to
 * @dbell: the doorbell read back when the over-grant was seen
 *
 * The block was still fetching at a doorbell above @dbell, so the
 * firmware's watermark is at most @dbell + 16 rounded to a fetch; never
 * more than the stock default, the safe side: a watermark set too low
 * only leaves buffers unused.  The ring is then restarted with it: credit
 * already given cannot be taken back from a running ring.
 */
static inline u32 octf_credit_fallback_wmark(u32 dbell)
{
	if (dbell >= OCTF_WMARK_DEFAULT - OCTF_FETCH)
		return OCTF_WMARK_DEFAULT;
	return (dbell / OCTF_FETCH) * OCTF_FETCH + OCTF_FETCH;
}

/**
 * octf_credit_next_wmark - the watermark after an over-grant was seen
 * @cur: the watermark the ring was granted for
 * @dbell: the doorbell read back when the over-grant was seen
 *
 * octf_credit_fallback_wmark(@dbell) is a bound on the firmware's
 * watermark, exact when the block had stopped fetching (a lapped ring
 * seen after the fact), loose when it was still fetching: then at least
 * one fetch below @cur, so that every over-grant seen lowers the
 * watermark until the laps stop.  Below the firmware's only by the cap
 * at the stock default (the safe side): a bound, not a guess.
 *
 * Return: the watermark to restart with; @cur when already at the least
 * (a lap there is not the watermark's doing).
 */
static inline u32 octf_credit_next_wmark(u32 cur, u32 dbell)
{
	u32 next = octf_credit_fallback_wmark(dbell);

	if (cur <= OCTF_WMARK_MIN)
		return cur;
	if (next > cur - OCTF_FETCH)
		next = cur - OCTF_FETCH;
	return next;
}

/* A doorbell not read back (the least of no reads). */
#define OCTF_DBELL_NONE		0xFFFFFFFFU

/**
 * octf_credit_too_low - is the firmware's watermark above the driver's?
 * @refused: frames the block refused for want of a buffer
 * @least: the least doorbell a pass read at its start, before giving
 *	credit, from the refusals' interval until a pass read after it
 * @wmark: the watermark the rings are granted for
 *
 * The block refuses a frame only when it holds no fetched buffer and the
 * doorbell reads under its watermark; the doorbell rises only when the
 * host gives credit, at the end of a pass.  So a read after a refusal and
 * before the next credit write finds it under the firmware's watermark:
 * under @wmark when the two agree (a full ring), at least @wmark when the
 * firmware's is higher (a ring that uses only ring - (its - @wmark) of
 * its buffers).
 *
 * Return: the least watermark the firmware can have (a fetch above
 * @least rounded down: @least is a read less a pass's credit, so within a
 * fetch of the firmware's when the block had drained the doorbell), or 0
 * when nothing says it is above @wmark.
 */
static inline u32 octf_credit_too_low(u64 refused, u32 least, u32 wmark)
{
	if (!refused || least == OCTF_DBELL_NONE || least < wmark)
		return 0;
	return (least / OCTF_FETCH) * OCTF_FETCH + OCTF_FETCH;
}

/**
 * octf_low_read - should a pass read the doorbell back at its start?
 * @pending: frames the pass starts with (a count just read, or left over)
 * @left_over: they were left by a pass that ran out of budget
 * @ring: frames a full ring holds (its buffers over a frame's)
 * @budget: the pass's budget
 *
 * The read is made just before the pass gives credit.  At the right
 * watermark the ring is full at a refusal (R - 15 buffers written), so
 * the pass that follows it starts busy, behind a pass that ran out of
 * budget or with half the ring or a budget's worth of frames, and a
 * refusal during a busy pass is seen by its own read.  A read costs a
 * pass of a full budget's frames one MMIO read; a lightly loaded ring
 * never reads.  A ring can also fill during a pass that was not busy, or
 * between a pass's read and its credit write: the next pass is busy, and
 * its read less that credit (octf_low_sample()) is still under the
 * watermark.
 */
static inline bool octf_low_read(u32 pending, bool left_over, u32 ring,
				 u32 budget)
{
	return left_over || pending >= (budget < ring / 2 ? budget : ring / 2);
}

/**
 * octf_low_sample - a doorbell read, as the watch counts it
 * @dbell: read just before this pass's credit write
 * @prev_give: the credit the ring's previous pass wrote
 *
 * Less the previous pass's credit: a refusal during that pass (or after
 * its read) was followed by that write and by no other before this read.
 * A firmware watermark above the driver's by more than a pass's credit
 * still reads above it.
 *
 * Return: what the watch takes as the least doorbell since a refusal.
 */
static inline u32 octf_low_sample(u32 dbell, u32 prev_give)
{
	return dbell > prev_give ? dbell - prev_give : 0;
}

/**
 * struct octf_low_watch - the previous interval, waiting for its verdict
 * @refused: the block's refusals over it
 * @least: the least doorbell a pass read over it (OCTF_DBELL_NONE: none)
 * @spoiled: it cannot be judged
 */
struct octf_low_watch {
	u64 refused;
	u32 least;
	bool spoiled;
};

/**
 * octf_low_tick - judge the previous interval's refusals
 * @w: the state
 * @refused: refusals the firmware counted over this interval
 * @least: the least doorbell a pass read at its start over this interval
 * @spoiled: this interval cannot be judged: the rings restarted, or a
 *	ring with frames waiting had no pass for a watchdog tick (the pass
 *	after its refusal may not come within the next interval)
 * @wmark: the watermark the rings are granted for
 *
 * An interval is ten watchdog ticks; a hold that stops the watchdog stops
 * them too.  The pass after a refusal comes in the refusal's interval or
 * in the next, or the ring sat with frames waiting and no pass for a
 * tick: so the refusals of an interval are judged with the reads of it
 * and of the next.
 *
 * Return: octf_credit_too_low() of the previous interval's refusals.
 */
static inline u32 octf_low_tick(struct octf_low_watch *w, u64 refused,
				u32 least, bool spoiled, u32 wmark)
{
	u32 verdict = 0;

	if (w->refused && !w->spoiled && !spoiled)
		verdict = octf_credit_too_low(w->refused,
					      least < w->least ? least : w->least,
					      wmark);
	w->refused = refused;
	w->least = least;
	w->spoiled = spoiled;
	return verdict;
}

#endif /* _OCTF_CREDIT_H */
