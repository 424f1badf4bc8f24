// SPDX-License-Identifier: GPL-2.0
/* Unit tests of igc_batch's transmit hang decision (igcb_hang.h). */
#include <stdint.h>
typedef uint32_t u32;
#include "tap.h"
#include "../../drivers/net/ethernet/intel/igc_batch/igcb_hang.h"

#define P 200		/* the period: 2 s of 100 Hz jiffies */

static struct igcb_hang h;

/* A device that stopped with work to send: hung once a whole period has
 * gone by without progress, not before, however many looks.
 */
static void stopped(void)
{
	igcb_hang_reset(&h);
	EXPECT(!igcb_hang_look(&h, 10, 20, 5, true, 1000, P));
	EXPECT(!igcb_hang_look(&h, 10, 20, 5, true, 1001, P));	/* LSC */
	EXPECT(!igcb_hang_look(&h, 10, 20, 5, true, 1000 + P - 1, P));
	EXPECT(igcb_hang_look(&h, 10, 20, 5, true, 1000 + P, P));
	/* and the state starts over: a whole period more for the next */
	EXPECT(!igcb_hang_look(&h, 10, 20, 5, true, 1000 + P + 1, P));
	EXPECT(!igcb_hang_look(&h, 10, 20, 5, true, 1000 + 2 * P, P));
	EXPECT(igcb_hang_look(&h, 10, 20, 5, true, 1001 + 2 * P, P));
}

/* A head that moves is a device that sends, however slowly. */
static void moving(void)
{
	u32 t;

	igcb_hang_reset(&h);
	for (t = 0; t < 100; t++)
		EXPECT(!igcb_hang_look(&h, t, 200, 0, true, t * P, P));
}

/* A busy queue whose head is back where it was after going round the
 * ring: the completions moved, so not hung.
 */
static void lapped(void)
{
	igcb_hang_reset(&h);
	EXPECT(!igcb_hang_look(&h, 64, 100, 1000, true, 0, P));
	EXPECT(!igcb_hang_look(&h, 64, 100, 3048, true, P, P));
	EXPECT(!igcb_hang_look(&h, 64, 100, 5096, true, 2 * P, P));
	/* then it really stops */
	EXPECT(igcb_hang_look(&h, 64, 100, 5096, true, 3 * P, P));
}

/* Nothing to send (head at the tail) is never a hang, however long. */
static void idle(void)
{
	int i;

	igcb_hang_reset(&h);
	for (i = 0; i < 10; i++)
		EXPECT(!igcb_hang_look(&h, 7, 7, 0, true, i * P, P));
	/* work arrives: the first busy look only starts the clock */
	EXPECT(!igcb_hang_look(&h, 7, 9, 0, true, 10 * P, P));
	EXPECT(igcb_hang_look(&h, 7, 9, 0, true, 11 * P, P));
}

/* No link or a PAUSE holding the MAC off: waiting, not hung; the wait
 * does not count towards a later report either.
 */
static void held_off(void)
{
	igcb_hang_reset(&h);
	EXPECT(!igcb_hang_look(&h, 3, 9, 0, false, 0, P));
	EXPECT(!igcb_hang_look(&h, 3, 9, 0, false, 5 * P, P));
	EXPECT(!igcb_hang_look(&h, 3, 9, 0, true, 6 * P, P));
	EXPECT(!igcb_hang_look(&h, 3, 9, 0, false, 7 * P, P));
	EXPECT(!igcb_hang_look(&h, 3, 9, 0, true, 8 * P, P));
	EXPECT(igcb_hang_look(&h, 3, 9, 0, true, 9 * P, P));
}

/* New work published meanwhile: the head still did not move. */
static void tail_moves(void)
{
	igcb_hang_reset(&h);
	EXPECT(!igcb_hang_look(&h, 5, 9, 0, true, 0, P));
	EXPECT(igcb_hang_look(&h, 5, 30, 0, true, P, P));
}

/* jiffies wrap: the period is measured across it. */
static void wraps(void)
{
	igcb_hang_reset(&h);
	EXPECT(!igcb_hang_look(&h, 1, 2, 0, true, 0xFFFFFFF0u, P));
	EXPECT(!igcb_hang_look(&h, 1, 2, 0, true, 0x10, P));
	EXPECT(igcb_hang_look(&h, 1, 2, 0, true, P - 0x10, P));
}

int main(void)
{
	tap_run("stopped device: hung after a whole period, then re-armed",
		stopped);
	tap_run("moving head: never hung", moving);
	tap_run("head back in place after a lap, completions moved: not hung",
		lapped);
	tap_run("nothing to send: never hung; work then starts the clock",
		idle);
	tap_run("no link or PAUSE: not hung, and not counted", held_off);
	tap_run("tail moved, head did not: hung", tail_moves);
	tap_run("jiffies wrap", wraps);
	return tap_done();
}
