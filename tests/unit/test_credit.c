// SPDX-License-Identifier: GPL-2.0
/* Unit tests of octep_fix's receive credit (octf_credit.h). */
#include "tap.h"
#include "octf_sim.h"

static void grant(void)
{
	EXPECT(octf_credit_grant(1024, 0x400) == 2032);
	EXPECT(octf_credit_grant(1024, 0x100) == 1264);
	EXPECT(octf_credit_grant(512, 0x400) == 1520);
	EXPECT(octf_credit_grant(64, 16) == 64);
}

static void wmark_check(void)
{
	EXPECT(octf_wmark_check(0x100) == OCTF_CREDIT_OK);
	EXPECT(octf_wmark_check(0x400) == OCTF_CREDIT_OK);
	EXPECT(octf_wmark_check(16) == OCTF_CREDIT_OK);
	EXPECT(octf_wmark_check(OCTF_WMARK_MAX) == OCTF_CREDIT_OK);
	EXPECT(octf_wmark_check(0) == OCTF_CREDIT_TOO_SMALL);
	EXPECT(octf_wmark_check(0x101) == OCTF_CREDIT_NOT_FETCHES);
	EXPECT(octf_wmark_check(8) == OCTF_CREDIT_NOT_FETCHES);
	EXPECT(octf_wmark_check(OCTF_WMARK_MAX + 16) == OCTF_CREDIT_TOO_LARGE);
	EXPECT(octf_wmark_check(0xFFFFFFF0u) == OCTF_CREDIT_TOO_LARGE);
}

static void ring_check(void)
{
	EXPECT(octf_ring_check(1024, 1024) == OCTF_CREDIT_OK);
	EXPECT(octf_ring_check(1024, 2048) == OCTF_CREDIT_OK);
	EXPECT(octf_ring_check(1024, 512) == OCTF_CREDIT_OVER_BUFFERS);
	EXPECT(octf_ring_check(1000, 1024) == OCTF_CREDIT_NOT_FETCHES);
	EXPECT(octf_ring_check(48, 1024) == OCTF_CREDIT_TOO_SMALL);
	EXPECT(octf_ring_check(0, 1024) == OCTF_CREDIT_TOO_SMALL);
	EXPECT(octf_ring_check(OCTF_OQ_MAX + 16, 1u << 20) ==
	       OCTF_CREDIT_TOO_LARGE);
}

/* One unit per buffer, one write per pass, none for an empty pass. */
static void one_unit_per_buffer(void)
{
	struct octf_credit c;

	EXPECT(octf_credit_start(&c, 1024, 0x400) == 2032);
	EXPECT(octf_credit_pass(&c) == 0);		/* skip-empty */
	octf_credit_taken(&c, 37);
	octf_credit_refilled(&c, 37);
	EXPECT(octf_credit_pass(&c) == 37);
	EXPECT(octf_credit_pass(&c) == 0);
	EXPECT(c.outstanding == 2032 && c.owed == 0);
	/* taken but not refilled yet: nothing owed */
	octf_credit_taken(&c, 5);
	EXPECT(octf_credit_pass(&c) == 0);
	octf_credit_refilled(&c, 5);
	EXPECT(octf_credit_pass(&c) == 5);
}

/* A lowered ceiling keeps the credit owed; a pass that took nothing
 * gives it once the ceiling is back.
 */
static void owed_kept(void)
{
	struct octf_credit c;

	octf_credit_start(&c, 1024, 0x400);
	octf_credit_set_ceiling(&c, 1008);
	octf_credit_taken(&c, 1024);
	octf_credit_refilled(&c, 1024);
	EXPECT(octf_credit_pass(&c) == 0);	/* 1008 still outstanding */
	EXPECT(c.owed == 1024);
	octf_credit_taken(&c, 100);
	octf_credit_refilled(&c, 100);
	EXPECT(octf_credit_pass(&c) == 100);
	EXPECT(c.owed == 1024 && c.outstanding == 1008);
	octf_credit_set_ceiling(&c, 0);		/* restored */
	EXPECT(octf_credit_pass(&c) == 1024);	/* an empty pass */
	EXPECT(c.outstanding == 2032 && c.owed == 0);
	/* never above the exact grant */
	octf_credit_set_ceiling(&c, 100000);
	EXPECT(c.ceiling == 2032);
	octf_credit_taken(&c, 99999);		/* bounded */
	EXPECT(c.outstanding == 0);
}

/* The seed's rule at both watermarks: the ring fills exactly, no lap,
 * and runs on with the host taking one pass at a time.
 */
static void fills_exactly(void)
{
	static const u32 wm[] = { 0x100, 0x400, 16 };
	static const u32 rings[] = { 64, 512, 1024, 4096 };
	unsigned int i, j, k;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			struct octf_sim s;

			octf_sim_start(&s, rings[j], wm[i], wm[i]);
			for (k = 0; k < 3 * rings[j]; k++)
				octf_sim_frame(&s);
			EXPECT(s.unread == rings[j]);
			EXPECT(s.laps == 0);
			EXPECT(s.refused == 2 * rings[j]);
			EXPECT(s.dbell == wm[i] - OCTF_FETCH);
			for (k = 0; k < 10000; k++) {
				octf_sim_frame(&s);
				octf_sim_frame(&s);
				octf_sim_pass(&s, 64, 64);
			}
			EXPECT(s.laps == 0);
			EXPECT(s.c.outstanding <=
			       octf_credit_grant(rings[j], wm[i]));
		}
}

/* Upstream's grant (the ring once, refills of 256) at 0x400: 16 frames. */
static void upstream_stalls(void)
{
	struct octf_sim s;
	unsigned int k;

	octf_sim_start(&s, 1024, 0x400, 0x400);
	s.dbell = 1024;
	for (k = 0; k < 100; k++)
		octf_sim_frame(&s);
	EXPECT(s.unread == 16 && s.refused == 84);
}

/* Mismatch: a driver watermark above the firmware's over-grants and the
 * read-back shows it; one below leaves buffers unused.
 */
static void mismatch(void)
{
	struct octf_sim s;
	unsigned int k;
	bool seen = false;

	octf_sim_start(&s, 1024, 0x400, 0x100);
	for (k = 0; k < 2048; k++) {
		octf_sim_frame(&s);
		if (octf_credit_overgranted(&s.c, s.dbell))
			seen = true;
	}
	EXPECT(seen);
	EXPECT(s.laps > 0);
	EXPECT(octf_credit_fallback_wmark(s.dbell) <= 0x100);

	octf_sim_start(&s, 1024, 0x100, 0x400);
	for (k = 0; k < 2048; k++) {
		octf_sim_frame(&s);
		EXPECT(!octf_credit_overgranted(&s.c, s.dbell));
	}
	EXPECT(s.unread == 1024 - (0x400 - 0x100));
	EXPECT(s.laps == 0);

	EXPECT(octf_credit_fallback_wmark(0) == 16);
	EXPECT(octf_credit_fallback_wmark(0xF0) == 0x100);
	EXPECT(octf_credit_fallback_wmark(0x3F0) == 0x100);
	EXPECT(octf_credit_fallback_wmark(0x40) == 0x50);
}

/* The watch over time, one step a millisecond: @rate frames arrive a
 * step, half of them while the host's pass (budget @budget) runs (each
 * step unless held); a pass busy at its start (octf_low_read()) reads the
 * doorbell before its credit write; a watchdog
 * tick every 100 steps (a ring with frames and no pass since spoils the
 * interval), the firmware's count every 10 ticks.  Held from @hold_at
 * for @hold steps, and every @every steps after that; with @quiesce the
 * hold stops the watchdog too (the driver's quiesce holds RTNL).  With
 * @bursts, 300 frames more arrive every 250 steps (busy passes that read
 * the doorbell high before a hold).  Return: the first verdict, 0 if none.
 */
static u32 watch_run(u32 wmark, u32 fw, u32 rate, u32 budget, u32 hold_at,
		     u32 hold, u32 every, u32 steps, u32 phase, bool quiesce,
		     bool bursts)
{
	struct octf_low_watch w = { 0 };
	struct octf_sim s;
	u32 t, k, ticks = phase % 10, least = OCTF_DBELL_NONE, verdict = 0;
	bool spoiled = false, passed = false, left = false;
	u32 prev = 0;
	u64 seen = 0;

	octf_sim_start(&s, 1024, wmark, fw);
	hold_at += phase * 25;
	for (t = 0; t < steps && !verdict; t++) {
		u32 h = t >= hold_at ? (t - hold_at) % (every ? every : steps) : 0;
		bool held = t >= hold_at && h < hold;

		u32 burst = bursts && t % 250 == 0 ? 300 : 0;

		for (k = 0; k < rate / 2 + burst; k++)
			octf_sim_frame(&s);
		if (held) {
			for (k = 0; k < rate - rate / 2; k++)
				octf_sim_frame(&s);
		} else {
			bool watch = octf_low_read(s.unread, left, s.c.ring,
						   budget);

			/* the rest arrive while the pass runs: its read
			 * comes after them, before its credit write
			 */
			left = s.unread > budget;
			octf_sim_take(&s, budget, budget);
			for (k = 0; k < rate - rate / 2; k++)
				octf_sim_frame(&s);
			if (watch && octf_low_sample(s.dbell, prev) < least)
				least = octf_low_sample(s.dbell, prev);
			prev = octf_sim_give(&s);
			passed = true;
		}
		if (t % 100 != 99 || (held && quiesce))
			continue;
		if (!passed && s.unread)
			spoiled = true;
		passed = false;
		if (++ticks % 10)
			continue;
		verdict = octf_low_tick(&w, s.refused - seen, least, spoiled,
					wmark);
		seen = s.refused;
		least = OCTF_DBELL_NONE;
		spoiled = false;
	}
	return verdict;
}

/* A verdict is a lower bound on the firmware's watermark, within a pass's
 * credit (64 here) and a fetch of it: the previous pass's credit is taken
 * off the read.
 */
static bool near(u32 verdict, u32 fw)
{
	return verdict <= fw && verdict + 64 + OCTF_FETCH >= fw;
}

/* A busy pass (100 frames waiting) takes 64; 1,200 frames arrive before
 * it gives credit, and the ring is refused; then the later passes drain
 * the ring with nothing arriving.  Return: the verdict.
 */
static u32 burst_in_pass(u32 wmark)
{
	struct octf_low_watch w = { 0 };
	u32 least = OCTF_DBELL_NONE, k, verdict, prev;
	struct octf_sim s;
	bool watch;

	octf_sim_start(&s, 1024, wmark, wmark);
	for (k = 0; k < 100; k++)
		octf_sim_frame(&s);
	watch = octf_low_read(s.unread, false, s.c.ring, 64);
	octf_sim_take(&s, 64, 64);
	for (k = 0; k < 1200; k++)
		octf_sim_frame(&s);
	if (watch && s.dbell < least)
		least = (u32)s.dbell;
	prev = octf_sim_give(&s);
	while (s.unread) {
		watch = octf_low_read(s.unread, s.unread > 64, s.c.ring, 64);
		if (watch && octf_low_sample(s.dbell, prev) < least)
			least = octf_low_sample(s.dbell, prev);
		prev = octf_sim_pass(&s, 64, 64);
	}
	EXPECT(s.refused > 0);
	octf_low_tick(&w, s.refused, least, false, wmark);
	verdict = octf_low_tick(&w, 0, OCTF_DBELL_NONE, false, wmark);
	return verdict;
}

/* A firmware watermark above the driver's is told by the first busy pass
 * after a refusal, and the right one never is: holds shorter and longer
 * than an interval, at every phase of the firmware's count, and a host
 * that cannot keep up at all.
 */
static void too_low_seen(void)
{
	static const u32 holds[] = { 100, 700, 1500, 2600 };
	unsigned int i, ph, q;

	EXPECT(octf_credit_too_low(30000, 0x3F0, 0x100) == 0x400);
	EXPECT(octf_credit_too_low(0, 0x3F0, 0x100) == 0);
	EXPECT(octf_credit_too_low(5, OCTF_DBELL_NONE, 0x100) == 0);
	EXPECT(octf_credit_too_low(5, 0xFF, 0x100) == 0);
	EXPECT(octf_credit_too_low(5, 0x100, 0x100) == 0x110);
	EXPECT(!octf_low_read(63, false, 1024, 64));
	EXPECT(octf_low_read(64, false, 1024, 64));
	EXPECT(octf_low_read(1, true, 1024, 64));
	EXPECT(octf_low_read(32, false, 64, 64));
	for (q = 0; q < 4; q++) {
		for (i = 0; i < sizeof(holds) / sizeof(holds[0]); i++) {
			for (ph = 0; ph < 40; ph++) {
				u32 hd = holds[i];

				/* the right watermark: holds every 4 s */
				EXPECT(!watch_run(0x100, 0x100, 20, 64, 500, hd,
						  4000, 20000, ph, q & 1, q >> 1));
				EXPECT(!watch_run(0x400, 0x400, 20, 64, 500, hd,
						  4000, 20000, ph, q & 1, q >> 1));
				/* 0x100 on a 0x400 image: any hold filling
				 * the ring, as the driver quiesces it
				 */
				if (q & 1)
					EXPECT(near(watch_run(0x100, 0x400, 20,
							      64, 500, hd, 4000,
							      20000, ph, true,
							      q >> 1), 0x400));
			}
		}
	}
	/* a burst that fills the ring while a busy pass runs, then nothing:
	 * the pass's own read (before its credit write) sees the refusals
	 */
	EXPECT(!burst_in_pass(0x100));
	EXPECT(!burst_in_pass(0x400));
	/* a host that keeps up: no refusal, nothing to say either way */
	EXPECT(!watch_run(0x100, 0x400, 20, 64, 0, 0, 0, 10000, 0, false,
			  false));
	/* one that cannot: 30 a ms against 20 taken */
	EXPECT(!watch_run(0x100, 0x100, 30, 20, 0, 0, 0, 10000, 0, false,
			  false));
	EXPECT(near(watch_run(0x100, 0x400, 30, 20, 0, 0, 0, 10000, 0, false,
			      false), 0x400));
	/* one a fetch above: within a pass's credit of ours, not told */
	EXPECT(!watch_run(0x100, 0x110, 30, 20, 0, 0, 0, 10000, 0, false,
			  false));
	EXPECT(near(watch_run(0x100, 0x180, 30, 20, 0, 0, 0, 10000, 0, false,
			      false), 0x180));
}

/* Falling back again and again: each over-grant seen lowers the
 * watermark by a fetch at least, never below the firmware's, down to the
 * least; from the stock default that is at most 15 restarts even when
 * every over-grant is seen early (the block one fetch past the ring).
 */
static void fallback_converges(void)
{
	static const u32 fw[] = { 16, 0x40, 0x50, 0xC0, 0x100, 0x400 };
	unsigned int i;

	EXPECT(octf_credit_next_wmark(0x400, 0x3E0) == 0x100);
	EXPECT(octf_credit_next_wmark(0x400, 0x138) == 0x100);
	EXPECT(octf_credit_next_wmark(0x100, 0x138) == 0xF0);
	EXPECT(octf_credit_next_wmark(0x100, 0xB0) == 0xC0);
	EXPECT(octf_credit_next_wmark(0x400, 0x35) == 0x40);
	EXPECT(octf_credit_next_wmark(16, 0) == 16);
	EXPECT(octf_credit_next_wmark(0x20, 0x100) == 16);
	for (i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
		/* the stock default caps a fall-back (the safe side) */
		u32 want = fw[i] > 0x100 ? 0x100 : fw[i];
		u32 drv = OCTF_WMARK_MAX, steps = 0, next;

		while (drv > fw[i]) {
			/* seen early: the block still fetching */
			next = octf_credit_next_wmark(drv, drv - 2 * OCTF_FETCH);
			EXPECT(next < drv && next >= want &&
			       next % OCTF_FETCH == 0);
			if (next >= drv)
				break;
			drv = next;
			steps++;
		}
		EXPECT(drv == want && steps <= 1 + 15);
		/* seen late: the block stopped under the firmware's */
		EXPECT(octf_credit_next_wmark(OCTF_WMARK_MAX, fw[i] - 1) == want);
	}
}

/* Starved on purpose: nothing while the ceiling is under the watermark,
 * running again at the first pass after it is restored.
 */
static void starved_ring(void)
{
	struct octf_sim s;
	unsigned int k;
	u64 before;

	octf_sim_start(&s, 1024, 0x400, 0x400);
	octf_credit_set_ceiling(&s.c, 0x400 - OCTF_FETCH);
	for (k = 0; k < 5000; k++) {
		octf_sim_frame(&s);
		octf_sim_pass(&s, 64, 64);
	}
	before = s.delivered;
	for (k = 0; k < 1000; k++) {
		octf_sim_frame(&s);
		octf_sim_pass(&s, 64, 64);
	}
	EXPECT(s.delivered == before);		/* starved */
	octf_credit_set_ceiling(&s.c, 0);
	octf_sim_pass(&s, 64, 64);		/* an empty pass gives it back */
	for (k = 0; k < 1000; k++) {
		octf_sim_frame(&s);
		octf_sim_pass(&s, 64, 64);
	}
	EXPECT(s.delivered == before + 1000);
	EXPECT(s.laps == 0);
}

int main(void)
{
	tap_run("credit: grant = ring + wmark - 16", grant);
	tap_run("credit: watermark validation", wmark_check);
	tap_run("credit: ring size validation", ring_check);
	tap_run("credit: one unit per buffer, skip-empty", one_unit_per_buffer);
	tap_run("credit: owed credit kept and returned", owed_kept);
	tap_run("credit: ring fills exactly, no lap", fills_exactly);
	tap_run("credit: upstream's grant stalls at 0x400", upstream_stalls);
	tap_run("credit: watermark mismatch both ways", mismatch);
	tap_run("credit: every over-grant seen lowers the watermark, a firmware far below reached in a few restarts",
		fallback_converges);
	tap_run("credit: a firmware watermark above the driver's is told by the first pass after a refusal, the right one never",
		too_low_seen);
	tap_run("credit: starved ring comes back", starved_ring);
	return tap_done();
}
