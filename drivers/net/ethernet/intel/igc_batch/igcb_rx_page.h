/* SPDX-License-Identifier: GPL-2.0 */
/* igc_batch receive pages, the steps every frame takes (inline in the
 * receive pass): take a page for an empty slot, give the stack a frame's
 * page.  The rules they apply are igcb_pagecnt.h; allocation, release and
 * the stash's storage are igcb_rx_page.c.  Only the ring's NAPI poll, or
 * its setup and teardown with NAPI disabled, calls them.
 */
#ifndef _IGCB_RX_PAGE_H
#define _IGCB_RX_PAGE_H

#include "igcb.h"
#include "igcb_pagecnt.h"

int igcb_rx_stash_alloc(struct igcb_rx_ring *ring);
void igcb_rx_stash_free(struct igcb_rx_ring *ring);
enum igcb_rx_page_src igcb_rx_page_new(struct igcb_rx_ring *ring,
				       struct igcb_rx_buf *b);
void igcb_rx_page_release(struct igcb_rx_ring *ring, struct igcb_rx_buf *b);
void igcb_rx_stash_evict(struct igcb_rx_ring *ring);
void igcb_rx_pages_drain(struct igcb_rx_ring *ring);

/**
 * igcb_rx_page_get - a page for an empty slot
 * @ring: the ring
 * @b: the slot
 *
 * The first page the stack gave back among the stash's oldest (up to
 * IGCB_STASH_PROBE still held looked at), else a new one.  The caller
 * syncs the buffer for the device before posting it.
 *
 * Return: where the page came from, IGCB_PAGE_NONE if none could be had.
 */
static inline enum igcb_rx_page_src
igcb_rx_page_get(struct igcb_rx_ring *ring, struct igcb_rx_buf *b)
{
	struct igcb_stash_pos *p = &ring->stash_pos;
	unsigned int held = 0, add;

	while (held < p->len && held < IGCB_STASH_PROBE) {
		struct igcb_rx_buf *s, *oldest = &ring->stash[p->head];

		s = &ring->stash[igcb_stash_slot(p->head, held, ring->count)];
		if (!igcb_page_back(page_ref_count(s->page), s->bias)) {
			held++;
			continue;
		}
		*b = *s;
		/* The oldest fills the gap: the order holds but for it. */
		*s = *oldest;
		ring->stash[igcb_stash_pop(p, ring->count)].page = NULL;
		if (unlikely(!dev_page_is_reusable(b->page))) {
			/* From the reserves, or this CPU's node is another:
			 * let it go; the next entry is now at @held.
			 */
			igcb_rx_page_release(ring, b);
			continue;
		}
		add = igcb_page_topup(b->bias);
		if (unlikely(add)) {
			page_ref_add(b->page, add);
			b->bias += add;
		}
		return IGCB_PAGE_REUSED;
	}
	return igcb_rx_page_new(ring, b);
}

/**
 * igcb_rx_page_give - the stack takes a reference to @b's page
 * @ring: the ring
 * @b: the slot whose buffer became (part of) a frame handed on
 *
 * The slot is empty afterwards; the page waits in the stash.
 */
static inline void igcb_rx_page_give(struct igcb_rx_ring *ring,
				     struct igcb_rx_buf *b)
{
	b->bias--;
	if (unlikely(ring->stash_pos.len == ring->count))
		igcb_rx_stash_evict(ring);
	ring->stash[igcb_stash_push(&ring->stash_pos, ring->count)] = *b;
	b->page = NULL;
}

#endif
