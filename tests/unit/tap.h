/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP producer for the user-space unit tests. */
#ifndef DBB_TAP_H
#define DBB_TAP_H

#include <stdio.h>

static unsigned int tap_n, tap_failed, tap_case_failed;

#define EXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			tap_case_failed++;				\
			printf("# %s:%d: EXPECT(%s) failed\n",		\
			       __FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

static inline void tap_run(const char *name, void (*fn)(void))
{
	tap_case_failed = 0;
	fn();
	tap_n++;
	if (tap_case_failed)
		tap_failed++;
	printf("%sok %u %s\n", tap_case_failed ? "not " : "", tap_n, name);
}

static inline int tap_done(void)
{
	printf("1..%u\n# %u passed, %u failed\n", tap_n, tap_n - tap_failed,
	       tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
