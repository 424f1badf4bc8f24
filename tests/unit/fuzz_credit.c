// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for octf_credit.h: any byte string is a ring, two
 * watermarks and a sequence of frames, passes (with partial refills) and
 * ceiling changes on the block model of octf_sim.h.  Invariants: the
 * outstanding credit never exceeds ring + wmark - 16, the accounting
 * matches the block's (doorbell + fetched + unread + taken-not-returned),
 * and with matching watermarks the ring never laps.  Beside it, the
 * watch for a firmware watermark above the driver's (octf_low_read(),
 * octf_low_tick()): a watchdog tick every 4 operations, an interval
 * every 4 ticks; at matching watermarks it never says too low, and what
 * it says is never under the driver's watermark plus a fetch.
 */
#include <stdlib.h>
#include <string.h>
#include "octf_sim.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const u32 rings[] = { 64, 128, 256, 512, 1024, 2048 };
	struct octf_sim s;
	u32 ring, wmark, fw, grant, lowered = 0;
	struct octf_low_watch w = { 0 };
	u32 least = OCTF_DBELL_NONE, verdict, budget, prev = 0;
	bool left = false, passed = false, spoiled = false, watch;
	u64 seen = 0;
	size_t i;

	if (len < 3)
		return 0;
	ring = rings[data[0] % 6];
	wmark = OCTF_FETCH * (1 + data[1] % 128);
	fw = data[2] & 0x80 ? wmark : OCTF_FETCH * (1 + data[2] % 128);
	check(octf_wmark_check(wmark) == OCTF_CREDIT_OK);
	check(octf_ring_check(ring, ring) == OCTF_CREDIT_OK);
	octf_sim_start(&s, ring, wmark, fw);
	grant = octf_credit_grant(ring, wmark);

	for (i = 3; i < len; i++) {
		uint8_t op = data[i];
		u32 arg = op & 0x3F, k;

		switch (op >> 6) {
		case 0:
		case 1:
			for (k = 0; k <= arg; k++)
				octf_sim_frame(&s);
			break;
		case 2:
			budget = 1 + arg * 4;
			watch = octf_low_read(s.unread, left, ring, budget);
			left = s.unread > budget;
			octf_sim_take(&s, budget, (op & 1) ? 0 : budget);
			/* frames arriving while the pass runs */
			for (k = 0; k < ((op & 2) ? arg * 8 : 0); k++)
				octf_sim_frame(&s);
			if (watch && octf_low_sample(s.dbell, prev) < least)
				least = octf_low_sample(s.dbell, prev);
			prev = octf_sim_give(&s);
			passed = true;
			/* short of pages: the ring is full before a busy pass */
			if (s.pending_refill || s.c.owed)
				spoiled = true;
			break;
		case 3:
			lowered = (op & 1) ? 0 : arg * OCTF_FETCH;
			octf_credit_set_ceiling(&s.c, lowered);
			break;
		}
		if (i % 4 == 0) {
			/* the watchdog: frames and no pass, credit held back */
			if ((!passed && s.unread) || s.pending_refill ||
			    s.c.owed || lowered)
				spoiled = true;
			passed = false;
		}
		if (i % 16 == 0) {
			verdict = octf_low_tick(&w, s.refused - seen, least,
						spoiled, wmark);
			check(!verdict || verdict >= wmark + OCTF_FETCH);
			check(fw != wmark || !verdict);
			seen = s.refused;
			least = OCTF_DBELL_NONE;
			/* still short: the driver's pass repolls, and says so */
			spoiled = s.pending_refill || s.c.owed || lowered;
		}
		check(s.c.outstanding <= grant);
		check(s.c.ceiling <= grant);
		/* every unit is somewhere: register, fetched, unread, host */
		if (fw >= wmark)
			check(s.c.outstanding == s.dbell + s.avail + s.unread);
		if (fw == wmark)
			check(s.laps == 0 && s.avail + s.unread <= ring);
		if (fw >= wmark)
			check(!octf_credit_overgranted(&s.c, s.dbell));
	}
	return 0;
}
