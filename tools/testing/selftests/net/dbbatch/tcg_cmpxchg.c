// SPDX-License-Identifier: GPL-2.0
/*
 * tcg_cmpxchg.c: do CMPXCHG8B and CMPXCHG16B keep the flags they must?
 * Both change ZF only; CF set by the instruction before must survive.
 * QEMU 7.2's TCG computed the other flags from a stale cc_op (the lab's
 * QEMU carries the fix: tools/lab/qemu/patches/).  Built static, run as
 * a guest's /init child by tcg_cmpxchg.py; prints one line per
 * instruction: "NAME: CF lost in N of TRIES".
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>

#define TRIES 1000

static alignas(16) unsigned __int128 mem;
static uint64_t mem8;

/* "cmp $1, 0" borrows (CF=1) right before the exchange, in one block of
 * code, so the translator still holds that cc_op when it reaches it.
 */
static int cf_after_cmpxchg16b(void)
{
	uint64_t a = 0, d = 0;
	unsigned char cf;

	__asm__ volatile("xor %%r8d, %%r8d\n\t"
			 "jmp 1f\n"
			 "1:\n\t"
			 "xor %%r9d, %%r9d\n\t"
			 "cmp $1, %%r9\n\t"
			 "cmpxchg16b %[m]\n\t"
			 "setc %[cf]\n\t"
			 : [cf] "=q" (cf), [m] "+m" (mem),
			   "+a" (a), "+d" (d)
			 : "b" (0UL), "c" (0UL)
			 : "r8", "r9", "cc", "memory");
	return cf;
}

static int cf_after_cmpxchg8b(void)
{
	uint32_t a = 0, d = 0;
	unsigned char cf;

	__asm__ volatile("xor %%r8d, %%r8d\n\t"
			 "jmp 1f\n"
			 "1:\n\t"
			 "xor %%r9d, %%r9d\n\t"
			 "cmp $1, %%r9\n\t"
			 "cmpxchg8b %[m]\n\t"
			 "setc %[cf]\n\t"
			 : [cf] "=q" (cf), [m] "+m" (mem8), "+a" (a), "+d" (d)
			 : "b" (0U), "c" (0U)
			 : "r8", "r9", "cc", "memory");
	return cf;
}

int main(void)
{
	int lost16 = 0, lost8 = 0, i;

	for (i = 0; i < TRIES; i++) {
		lost16 += !cf_after_cmpxchg16b();
		lost8 += !cf_after_cmpxchg8b();
	}
	printf("cmpxchg16b: CF lost in %d of %d\n", lost16, TRIES);
	printf("cmpxchg8b: CF lost in %d of %d\n", lost8, TRIES);
	return lost16 || lost8;
}
