/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-space model of one CPU forwarding through dbbatch: queues with
 * rings, a batch holding up to DBB_MAX_HELD of them, a device counting tail
 * writes.  It composes the policy functions the way net/core/dbbatch.c and
 * a driver do, so unit tests and the fuzzer can check the invariants the
 * kernel relies on over any sequence of events.
 */
#ifndef DBB_SIM_H
#define DBB_SIM_H

#include <stdbool.h>
#include <string.h>
#include "../../include/net/dbbatch_policy.h"

#define SIM_QUEUES	16

struct sim_queue {
	unsigned int size;		/* ring entries */
	unsigned int used;		/* in flight: queued, not completed */
	unsigned int next;		/* descriptors ever queued */
	unsigned int written;		/* last tail written */
	bool held;
	bool stopped;
	unsigned long tail_writes;	/* the device's ground truth */
	unsigned long empty_writes;	/* tail writes that published nothing */
};

struct sim {
	struct sim_queue q[SIM_QUEUES];
	bool open;
	unsigned int nheld;
	unsigned int held[DBB_MAX_HELD];
	unsigned long deferred, flush_rings, stopped_rings;
	unsigned long violations;	/* invariant breaks seen */
};

static inline void sim_init(struct sim *s, const unsigned int *sizes)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < SIM_QUEUES; i++)
		s->q[i].size = sizes[i];
}

static inline void sim_ring(struct sim_queue *q)
{
	if (!dbb_tail_pending(q->next, q->written))
		q->empty_writes++;
	q->written = q->next;
	q->tail_writes++;
}

/* ndo_start_xmit of one packet: returns false when the ring is full. */
static inline bool sim_xmit(struct sim *s, unsigned int qi)
{
	struct sim_queue *q = &s->q[qi % SIM_QUEUES];
	enum dbb_verdict v = DBB_RING_NO_BATCH;

	if (q->used >= q->size)
		return false;
	q->used++;
	q->next++;
	q->stopped = q->used == q->size;	/* driver's may-stop check */
	if (s->open)
		v = dbb_decide(q->held, s->nheld, q->used, q->size);
	if (v == DBB_HOLD && !q->held) {
		if (s->nheld >= DBB_MAX_HELD) {
			s->violations++;	/* would overrun held[] */
			return true;
		}
		q->held = true;
		s->held[s->nheld++] = qi % SIM_QUEUES;
	}
	if (v == DBB_HOLD) {
		s->deferred++;
		if (q->stopped) {	/* a stopped queue rings at once */
			s->stopped_rings++;
			sim_ring(q);
		}
		return true;
	}
	sim_ring(q);
	return true;
}

static inline void sim_complete(struct sim *s, unsigned int qi,
				unsigned int n)
{
	struct sim_queue *q = &s->q[qi % SIM_QUEUES];
	unsigned int published = q->used - (q->next - q->written);

	/* the device completes only what a tail write published */
	if (n > published)
		n = published;
	q->used -= n;
	if (q->used < q->size)
		q->stopped = false;
}

static inline void sim_open(struct sim *s)
{
	s->open = true;
}

static inline void sim_close(struct sim *s)
{
	unsigned int i;

	for (i = 0; i < s->nheld; i++) {
		struct sim_queue *q = &s->q[s->held[i]];

		q->held = false;
		if (dbb_tail_pending(q->next, q->written)) {
			sim_ring(q);
			s->flush_rings++;
		}
	}
	s->nheld = 0;
	s->open = false;
	/* after a pass nothing may stay unpublished */
	for (i = 0; i < SIM_QUEUES; i++)
		if (s->q[i].written != s->q[i].next)
			s->violations++;
}

#endif
