// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any byte string is a sequence of forwarding events on
 * the model in sim.h, plus raw policy inputs checked against a reference
 * written differently (division instead of a shift).  A broken invariant
 * aborts, which libFuzzer reports with the input that caused it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

static void check_policy(uint32_t used, uint32_t size, uint32_t nheld,
			 int already)
{
	int ref = size && used <= size && used <= size / (1u << DBB_HOLD_SHIFT);
	enum dbb_verdict v = dbb_decide(already, nheld, used, size);

	check(dbb_below_threshold(used, size) == ref);
	if (v == DBB_HOLD)
		check(ref && (already || nheld < DBB_MAX_HELD));
	else
		check(v == (ref ? DBB_RING_CAP : DBB_RING_BUSY));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct sim s;
	unsigned int sizes[SIM_QUEUES], i;
	uint32_t w[4];

	if (len >= sizeof(w)) {
		memcpy(w, data, sizeof(w));
		check_policy(w[0], w[1], w[2] % (2 * DBB_MAX_HELD), w[3] & 1);
	}
	for (i = 0; i < SIM_QUEUES; i++)
		sizes[i] = i < len ? 1u + data[i] * 4u : 64;
	sim_init(&s, sizes);
	for (i = SIM_QUEUES; i < len; i++) {
		uint8_t op = data[i];

		switch (op >> 6) {
		case 0:
			if (s.open)
				sim_close(&s);
			else
				sim_open(&s);
			break;
		case 1:
			sim_complete(&s, op, 1u + (op & 7) * 8);
			break;
		default:
			sim_xmit(&s, op);
		}
	}
	if (s.open)
		sim_close(&s);
	check(!s.violations);
	for (i = 0; i < SIM_QUEUES; i++)
		check(!s.q[i].empty_writes && s.q[i].written == s.q[i].next);
	return 0;
}
