/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of the SDP output block's credit rule, for the tests of
 * octf_credit.h: the block fetches sixteen buffers, spending sixteen
 * units, while the doorbell reads at least the firmware's watermark; a
 * frame takes one fetched buffer or is refused; the host takes what was
 * written and gives credit back through octf_credit.h.
 */
#ifndef OCTF_SIM_H
#define OCTF_SIM_H

#include <stdint.h>
typedef uint32_t u32;
typedef uint64_t u64;
#include "../../drivers/net/ethernet/marvell/octep_fix/octf_credit.h"

struct octf_sim {
	struct octf_credit c;
	u32 fw_wmark;		/* the block's real watermark */
	u64 dbell;		/* the doorbell register */
	u32 avail;		/* fetched, not written */
	u32 unread;		/* written, not taken by the host */
	u32 pending_refill;	/* taken, not refilled yet */
	u64 refused;
	u64 laps;		/* writes over a frame the host had not read */
	u64 writes;		/* doorbell writes after the grant */
	u64 delivered;
};

static inline void octf_sim_start(struct octf_sim *s, u32 ring, u32 wmark,
				  u32 fw_wmark)
{
	s->fw_wmark = fw_wmark;
	s->dbell = octf_credit_start(&s->c, ring, wmark);
	s->avail = 0;
	s->unread = 0;
	s->pending_refill = 0;
	s->refused = 0;
	s->laps = 0;
	s->writes = 0;
	s->delivered = 0;
}

/* One frame arrives needing one buffer. */
static inline void octf_sim_frame(struct octf_sim *s)
{
	while (!s->avail && s->dbell >= s->fw_wmark && s->dbell >= OCTF_FETCH) {
		s->dbell -= OCTF_FETCH;
		s->avail += OCTF_FETCH;
	}
	if (!s->avail) {
		s->refused++;
		return;
	}
	s->avail--;
	if (s->unread >= s->c.ring)
		s->laps++;	/* over a frame nobody read: it is lost */
	else
		s->unread++;
}

/* A NAPI pass, its first half: take at most @budget frames, refill
 * @refill; frames may arrive before its second half gives the credit.
 */
static inline void octf_sim_take(struct octf_sim *s, u32 budget, u32 refill)
{
	u32 n = s->unread < budget ? s->unread : budget;

	s->unread -= n;
	s->delivered += n;
	octf_credit_taken(&s->c, n);
	s->pending_refill += n;
	if (refill > s->pending_refill)
		refill = s->pending_refill;
	s->pending_refill -= refill;
	octf_credit_refilled(&s->c, refill);
}

/* Its second half: the one doorbell write. */
static inline u32 octf_sim_give(struct octf_sim *s)
{
	u32 give = octf_credit_pass(&s->c);

	if (give) {
		s->dbell += give;
		s->writes++;
	}
	return give;
}

/* One NAPI pass taking at most @budget frames and refilling @refill. */
static inline u32 octf_sim_pass(struct octf_sim *s, u32 budget, u32 refill)
{
	octf_sim_take(s, budget, refill);
	return octf_sim_give(s);
}

#endif
