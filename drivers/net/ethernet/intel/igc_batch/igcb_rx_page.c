// SPDX-License-Identifier: GPL-2.0
/*
 * igc_batch receive pages: each buffer a whole page, mapped once for the
 * device, handed to the stack a reference at a time, and posted again once
 * the stack has given its references back (the rules: igcb_pagecnt.h; the
 * per-frame steps, inline: igcb_rx_page.h).  Here the rest: allocation,
 * release, the stash's storage.
 *
 * A ring owns the pages in its slots and those in its stash, the pages it
 * handed out.  Only the ring's NAPI poll (or its setup and teardown, NAPI
 * disabled) touches either.  The mapping is the ring's alone: XDP_TX maps
 * its frames again for transmit, so a page can be unmapped and let go
 * whoever still reads it.
 */

#include <linux/dma-mapping.h>
#include <linux/skbuff.h>

#include "igcb_rx_page.h"

#define IGCB_RX_DMA_ATTR \
	(DMA_ATTR_SKIP_CPU_SYNC | DMA_ATTR_WEAK_ORDERING)

int igcb_rx_stash_alloc(struct igcb_rx_ring *ring)
{
	ring->stash = kvcalloc(ring->count, sizeof(*ring->stash), GFP_KERNEL);
	ring->stash_pos.head = 0;
	ring->stash_pos.len = 0;
	return ring->stash ? 0 : -ENOMEM;
}

void igcb_rx_stash_free(struct igcb_rx_ring *ring)
{
	kvfree(ring->stash);
	ring->stash = NULL;
}

/**
 * igcb_rx_page_release - unmap a page and drop the ring's references
 * @ring: the ring
 * @b: the slot or stash entry holding it, emptied
 *
 * The page is freed now, or when the stack puts its last reference.
 */
void igcb_rx_page_release(struct igcb_rx_ring *ring, struct igcb_rx_buf *b)
{
	dma_unmap_page_attrs(ring->dev, b->dma, PAGE_SIZE, DMA_FROM_DEVICE,
			     IGCB_RX_DMA_ATTR);
	__page_frag_cache_drain(b->page, b->bias);
	b->page = NULL;
}

/* The stash's oldest pages, still held, go to the back: the next refill
 * looks at others (one that cannot allocate must still find the pages
 * the stack gave back behind a page a socket keeps).
 */
static void igcb_rx_stash_rotate(struct igcb_rx_ring *ring)
{
	struct igcb_stash_pos *p = &ring->stash_pos;
	unsigned int n = min_t(unsigned int, p->len, IGCB_STASH_PROBE);
	unsigned int from, to;

	while (n--) {
		from = igcb_stash_pop(p, ring->count);
		to = igcb_stash_push(p, ring->count);
		if (to != from) {
			ring->stash[to] = ring->stash[from];
			ring->stash[from].page = NULL;
		}
	}
}

/**
 * igcb_rx_page_new - allocate and map a page for an empty slot
 * @ring: the ring
 * @b: the slot
 *
 * Return: IGCB_PAGE_NEW, or IGCB_PAGE_NONE if none could be had.
 */
enum igcb_rx_page_src igcb_rx_page_new(struct igcb_rx_ring *ring,
				       struct igcb_rx_buf *b)
{
	struct page *page = dev_alloc_page();
	dma_addr_t dma;

	if (unlikely(!page))
		goto none;
	dma = dma_map_page_attrs(ring->dev, page, 0, PAGE_SIZE,
				 DMA_FROM_DEVICE, IGCB_RX_DMA_ATTR);
	if (unlikely(dma_mapping_error(ring->dev, dma))) {
		__free_page(page);
		goto none;
	}
	page_ref_add(page, IGCB_PAGE_BIAS - 1);
	b->page = page;
	b->dma = dma;
	b->bias = IGCB_PAGE_BIAS;
	return IGCB_PAGE_NEW;

none:
	igcb_rx_stash_rotate(ring);
	return IGCB_PAGE_NONE;
}

/**
 * igcb_rx_stash_evict - let the stash's oldest page go
 * @ring: the ring, its stash full
 *
 * Still held a ring's worth of frames after it was handed on (a socket
 * keeping it, say): stop waiting for it; a new page takes its turn.
 */
void igcb_rx_stash_evict(struct igcb_rx_ring *ring)
{
	unsigned int slot = igcb_stash_pop(&ring->stash_pos, ring->count);

	igcb_rx_page_release(ring, &ring->stash[slot]);
}

/**
 * igcb_rx_pages_drain - let every page of @ring go
 * @ring: a ring the port no longer writes, NAPI disabled
 *
 * Pages the stack still holds are freed when it puts them.
 */
void igcb_rx_pages_drain(struct igcb_rx_ring *ring)
{
	struct igcb_stash_pos *p = &ring->stash_pos;
	unsigned int i;

	for (i = 0; ring->bufs && i < ring->count; i++)
		if (ring->bufs[i].page)
			igcb_rx_page_release(ring, &ring->bufs[i]);
	while (ring->stash && p->len) {
		i = igcb_stash_pop(p, ring->count);
		igcb_rx_page_release(ring, &ring->stash[i]);
	}
	p->head = 0;
	p->len = 0;
}
