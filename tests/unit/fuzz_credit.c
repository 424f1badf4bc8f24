// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for octf_credit.h: any byte string is a ring, two
 * watermarks and a sequence of frames, passes (with partial refills) and
 * ceiling changes on the block model of octf_sim.h.  Invariants: the
 * outstanding credit never exceeds ring + wmark - 16, the accounting
 * matches the block's (doorbell + fetched + unread + taken-not-returned),
 * and with matching watermarks the ring never laps.
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
			octf_sim_pass(&s, 1 + arg * 4, (op & 1) ? 0 : 1 + arg * 4);
			break;
		case 3:
			lowered = (op & 1) ? 0 : arg * OCTF_FETCH;
			octf_credit_set_ceiling(&s.c, lowered);
			break;
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
