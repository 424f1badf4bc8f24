// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the fuzz target without libFuzzer: each file named on the command
 * line, then a fixed number of pseudo-random inputs.  Lets `make unit`
 * exercise the target with gcc alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int main(int argc, char **argv)
{
	static uint8_t buf[4096];
	unsigned int i, n;
	int a;

	for (a = 1; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");

		if (!f) {
			perror(argv[a]);
			return 2;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	srand(2);
	for (i = 0; i < 20000; i++) {
		unsigned int j;

		n = rand() % sizeof(buf);
		for (j = 0; j < n; j++)
			buf[j] = rand();
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("ok 1 fuzz_replay (%d files, 20000 random inputs)\n", argc - 1);
	return 0;
}
