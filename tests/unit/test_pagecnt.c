// SPDX-License-Identifier: GPL-2.0
/* Unit tests of igc_batch's receive page reuse (igcb_pagecnt.h): a ring's
 * slots and stash driven the way igcb_rx_page.c drives them, over pages
 * whose reference counts the test keeps, with a stack that holds each
 * frame for a while and puts it back.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "../../drivers/net/ethernet/intel/igc_batch/igcb_pagecnt.h"

#define MAXP 20000

struct page {
	unsigned int count;	/* page_ref_count() */
	unsigned int stack;	/* references the stack holds */
	unsigned int frees;	/* times the count reached zero */
	bool foreign;		/* !dev_page_is_reusable(): reserves, node */
};

struct buf {
	int page;		/* -1: none */
	unsigned int bias;
};

static struct page pages[MAXP];
static unsigned int npages, posted_held, foreign_reused;
static unsigned int foreign_pct;	/* of new pages */

struct ring {
	unsigned int count;
	struct igcb_stash_pos pos;
	struct buf stash[4096];
	unsigned long fresh, reused;
	bool alloc_fails;	/* the page allocator has nothing */
};

static void put(int p, unsigned int n)
{
	pages[p].count -= n;
	if (!pages[p].count)
		pages[p].frees++;
}

/* igcb_rx_page_release() */
static void release(struct buf *b)
{
	put(b->page, b->bias);
	b->page = -1;
}

/* igcb_rx_stash_rotate() */
static void rotate(struct ring *r)
{
	unsigned int n = r->pos.len < IGCB_STASH_PROBE ? r->pos.len :
			 IGCB_STASH_PROBE;

	while (n--) {
		unsigned int from = igcb_stash_pop(&r->pos, r->count);
		unsigned int to = igcb_stash_push(&r->pos, r->count);

		if (to != from) {
			r->stash[to] = r->stash[from];
			r->stash[from].page = -1;
		}
	}
}

/* igcb_rx_page_new() */
static bool get_new(struct ring *r, struct buf *b)
{
	if (r->alloc_fails) {
		rotate(r);
		return false;
	}
	b->page = npages++;
	pages[b->page].count = IGCB_PAGE_BIAS;	/* alloc + add */
	pages[b->page].foreign = (unsigned int)rand() % 100 < foreign_pct;
	b->bias = IGCB_PAGE_BIAS;
	r->fresh++;
	return true;
}

/* igcb_rx_page_get() */
static bool get(struct ring *r, struct buf *b)
{
	struct igcb_stash_pos *p = &r->pos;
	unsigned int held = 0, add;

	while (held < p->len && held < IGCB_STASH_PROBE) {
		struct buf *s = &r->stash[igcb_stash_slot(p->head, held,
							  r->count)];

		if (!igcb_page_back(pages[s->page].count, s->bias)) {
			held++;
			continue;
		}
		*b = *s;
		*s = r->stash[p->head];
		r->stash[igcb_stash_pop(p, r->count)].page = -1;
		if (pages[b->page].foreign) {
			release(b);
			continue;
		}
		add = igcb_page_topup(b->bias);
		pages[b->page].count += add;
		b->bias += add;
		r->reused++;
		/* posted to the port while the stack still reads it? */
		if (pages[b->page].stack)
			posted_held++;
		if (pages[b->page].foreign)
			foreign_reused++;
		return true;
	}
	return get_new(r, b);
}

/* igcb_rx_stash_evict() */
static void evict(struct ring *r)
{
	release(&r->stash[igcb_stash_pop(&r->pos, r->count)]);
}

/* igcb_rx_page_give(): the stack takes one reference */
static void give(struct ring *r, struct buf *b)
{
	b->bias--;
	pages[b->page].stack++;
	if (r->pos.len == r->count)
		evict(r);
	r->stash[igcb_stash_push(&r->pos, r->count)] = *b;
	b->page = -1;
}

/* igcb_rx_pages_drain(), the stash's part */
static void drain_stash(struct ring *r)
{
	while (r->pos.len)
		release(&r->stash[igcb_stash_pop(&r->pos, r->count)]);
}

static void stack_put(int p)
{
	pages[p].stack--;
	put(p, 1);
}

static void reset(struct ring *r, unsigned int count)
{
	memset(pages, 0, sizeof(pages));
	npages = 0;
	posted_held = 0;
	foreign_reused = 0;
	foreign_pct = 0;
	memset(r, 0, sizeof(*r));
	r->count = count;
}

static void arithmetic(void)
{
	struct igcb_stash_pos p = { .head = 6, .len = 0 };
	unsigned int i;

	for (i = 0; i < 8; i++)
		EXPECT(igcb_stash_push(&p, 8) == (6 + i) % 8);
	EXPECT(p.len == 8 && p.head == 6);
	/* full: the oldest to the back stays in its slot */
	EXPECT(igcb_stash_pop(&p, 8) == 6 && igcb_stash_push(&p, 8) == 6);
	EXPECT(p.head == 7 && p.len == 8);
	for (i = 0; i < 8; i++)
		EXPECT(igcb_stash_pop(&p, 8) == (7 + i) % 8);
	EXPECT(p.len == 0);
	EXPECT(igcb_stash_slot(0, 0, 8) == 0);
	EXPECT(igcb_stash_slot(5, 2, 8) == 7);
	EXPECT(igcb_stash_slot(5, 3, 8) == 0);
	EXPECT(igcb_stash_slot(7, 7, 8) == 6);
	EXPECT(igcb_page_back(IGCB_PAGE_BIAS, IGCB_PAGE_BIAS));
	EXPECT(!igcb_page_back(IGCB_PAGE_BIAS, IGCB_PAGE_BIAS - 1));
	EXPECT(igcb_page_topup(IGCB_PAGE_BIAS) == 0);
	EXPECT(igcb_page_topup(IGCB_PAGE_BIAS_LOW) == 0);
	EXPECT(igcb_page_topup(1) == IGCB_PAGE_BIAS - 1);
}

/* Forwarding: each frame is handed on and put back @delay frames later
 * (its transmit completing), one slot at a time.  Pages come back in
 * order, so after the first @delay frames every page is a reused one,
 * and none is posted while the stack holds it.
 */
static void forwarding(unsigned int count, unsigned int delay)
{
	static int inflight[4096];
	unsigned int i, n = 100000, slot = 0;
	struct buf bufs[4096];
	struct ring r;

	reset(&r, count);
	for (i = 0; i < count; i++)
		get(&r, &bufs[i]);
	for (i = 0; i < n; i++) {
		struct buf *b = &bufs[slot];

		if (i >= delay)
			stack_put(inflight[i % delay]);
		inflight[i % delay] = b->page;
		give(&r, b);
		get(&r, b);
		slot = (slot + 1) % count;
	}
	EXPECT(posted_held == 0);
	EXPECT(r.fresh <= count + delay + 1);
	EXPECT(r.reused >= n - delay - 1);
	for (i = 0; i < npages; i++)
		EXPECT(pages[i].frees == 0);
}

static void forwarding_cases(void)
{
	forwarding(512, 1);
	forwarding(512, 100);
	forwarding(64, 63);
	forwarding(4096, 2000);
}

/* One slot reused more often than a page holds references: the bias is
 * topped up and the page never freed under the driver.
 */
static void topup(void)
{
	unsigned int i;
	struct buf b;
	struct ring r;

	reset(&r, 64);
	get(&r, &b);
	for (i = 0; i < 3 * IGCB_PAGE_BIAS; i++) {
		int p = b.page;

		give(&r, &b);
		stack_put(p);
		get(&r, &b);
		EXPECT(b.page == 0);
		EXPECT(b.bias >= IGCB_PAGE_BIAS_LOW);
		if (tap_case_failed)
			break;
	}
	EXPECT(r.fresh == 1);
	EXPECT(pages[0].frees == 0 && pages[0].count == b.bias);
	release(&b);
	EXPECT(pages[0].frees == 1 && pages[0].count == 0);
}

/* The stack keeps pages at random, some for good (a socket nobody
 * reads): a page is never posted while held, the stash lets go of its
 * oldest when full, and once the ring is drained and the stack puts
 * what it held every page is freed exactly once.
 */
static void random_holds(void)
{
	static int held[MAXP];
	unsigned int i, nheld = 0, count = 128, slot = 0;
	struct buf bufs[128];
	struct ring r;

	srand(7);
	reset(&r, count);
	foreign_pct = 5;
	for (i = 0; i < count; i++)
		get(&r, &bufs[i]);
	for (i = 0; i < 12000 && npages < MAXP - count; i++) {
		struct buf *b = &bufs[slot];
		int p = b->page;

		if (rand() % 4) {		/* a frame handed on */
			give(&r, b);
			held[nheld++] = p;
			get(&r, b);
		}				/* else dropped: page stays */
		while (nheld && rand() % 3 == 0) {
			unsigned int k = rand() % nheld;

			if (rand() % 50 == 0)
				break;		/* kept for now */
			stack_put(held[k]);
			held[k] = held[--nheld];
		}
		slot = (slot + 1) % count;
	}
	EXPECT(posted_held == 0);
	EXPECT(foreign_reused == 0);
	EXPECT(r.reused > 0);
	/* drain: slots and stash let go, then the stack puts the rest */
	for (i = 0; i < count; i++)
		if (bufs[i].page >= 0)
			release(&bufs[i]);
	drain_stash(&r);
	while (nheld)
		stack_put(held[--nheld]);
	for (i = 0; i < npages; i++) {
		EXPECT(pages[i].frees == 1 && pages[i].count == 0);
		if (tap_case_failed)
			break;
	}
}

/* A socket keeps the oldest pages handed out, more than a refill looks
 * at, and the allocator has nothing: the ring empties, then refills must
 * find the pages the stack gave back behind the kept ones (NAPI polls
 * again until they do).  Looking at the oldest only, or always at the
 * same few, the ring stayed empty for good.
 */
static void stall(void)
{
	unsigned int i, count = 64, tries, posted = 0, nkept = 0;
	int kept[IGCB_STASH_PROBE + 1];
	struct buf bufs[64];
	struct ring r;

	reset(&r, count);
	for (i = 0; i < count; i++)
		get(&r, &bufs[i]);
	r.alloc_fails = true;
	for (i = 0; i < count; i++) {		/* every frame handed on */
		int p = bufs[i].page;

		give(&r, &bufs[i]);
		if (i <= IGCB_STASH_PROBE)
			kept[nkept++] = p;	/* the socket's */
		else
			stack_put(p);
	}
	/* each NAPI repoll refills from the first empty slot and stops at
	 * the first failure, as igcb_rx_refill() does
	 */
	for (tries = 0; tries < 8 * count && posted < count - nkept;
	     tries++)
		for (i = 0; i < count; i++) {
			if (bufs[i].page >= 0)
				continue;
			if (!get(&r, &bufs[i]))
				break;
			posted++;
		}
	EXPECT(posted == count - nkept);
	EXPECT(posted_held == 0);
	EXPECT(r.fresh == count);		/* none allocated after */
	EXPECT(r.pos.len == nkept);
	while (nkept)
		stack_put(kept[--nkept]);
}

int main(void)
{
	tap_run("stash slot arithmetic, the page-back test and the top-up",
		arithmetic);
	tap_run("forwarding: pages come back in order and are all reused, "
		"none posted while held", forwarding_cases);
	tap_run("a page reused 3 x 65535 times: bias topped up, never freed "
		"under the ring", topup);
	tap_run("random holds, 5 % of pages from the reserves: none posted "
		"while held, none of those posted again, every page freed once "
		"after the drain", random_holds);
	tap_run("the oldest page kept by a socket, no memory: the ring "
		"refills from the pages behind it", stall);
	return tap_done();
}
