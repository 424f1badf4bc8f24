/* SPDX-License-Identifier: GPL-2.0 */
/* igc_batch: when a receive page may be posted again.  Pure, free of
 * kernel dependencies, so that tests/unit runs the rules the module runs.
 *
 * Every receive buffer is a whole page the driver maps once.  It keeps a
 * bias of references for itself (IGCB_PAGE_BIAS when the page is new) and
 * hands the stack one with each frame (an skb head or fragment, an XDP
 * frame redirected or sent back): the stack's put_page() gives it back.
 * A page handed out waits in the ring's stash until its count is the
 * driver's bias again: nobody else holds it, so the port may write into
 * it.  No allocation, no mapping, no page_pool ring on the way (on 6.1 a
 * forwarded frame's page went through the pool's ring lock twice).
 *
 * A stash holds as many pages as the ring has slots.  A refill takes the
 * first page back among the oldest few, else allocates; when it cannot
 * allocate either, those few go to the back (a socket may keep a page
 * for long, and must not keep a ring that cannot allocate from the pages
 * behind it, which are back).  When the stash is full, its oldest is let
 * go whatever its count (unmapped, the driver's references dropped) to
 * make room for the newest.
 *
 * tests/unit/test_pagecnt.c drives these rules and the stash's index
 * arithmetic the way igcb_rx_page.h does, over pages whose counts it
 * keeps.
 */
#ifndef _IGCB_PAGECNT_H
#define _IGCB_PAGECNT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

/* References the driver holds on a new page: one per frame it may hand
 * out before it must take more.
 */
#define IGCB_PAGE_BIAS		0xffffU
/* Take more when a page comes back with fewer than this many left. */
#define IGCB_PAGE_BIAS_LOW	2U
/* Pages a refill looks at, oldest first, before it allocates one. */
#define IGCB_STASH_PROBE	4

/* Is a page whose count is @count free of everyone but the driver, which
 * holds @bias references?
 */
static inline bool igcb_page_back(unsigned int count, unsigned int bias)
{
	return count == bias;
}

/* References to add to a page back with @bias left, before it is posted
 * again: every post may hand one out, and the driver must keep one.
 * Only asked of a page nobody else holds, so nothing races the add.
 */
static inline unsigned int igcb_page_topup(unsigned int bias)
{
	return bias < IGCB_PAGE_BIAS_LOW ? IGCB_PAGE_BIAS - bias : 0;
}

/* Where a stash of a ring's slot count of entries stands: @head its
 * oldest entry, @len entries from there on, wrapping.
 */
struct igcb_stash_pos {
	unsigned short head;
	unsigned short len;
};

/* Slot @i of a stash of @size entries, @head the oldest. */
static inline unsigned int igcb_stash_slot(unsigned int head, unsigned int i,
					   unsigned int size)
{
	return head + i < size ? head + i : head + i - size;
}

/* Take the oldest entry out; return its slot.  @p must not be empty. */
static inline unsigned int igcb_stash_pop(struct igcb_stash_pos *p,
					  unsigned int size)
{
	unsigned int slot = p->head;

	p->head = igcb_stash_slot(p->head, 1, size);
	p->len--;
	return slot;
}

/* Make room for a newest entry; return its slot.  @p must not be full. */
static inline unsigned int igcb_stash_push(struct igcb_stash_pos *p,
					   unsigned int size)
{
	return igcb_stash_slot(p->head, p->len++, size);
}

#endif
