// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_getpid [N]: the cost of a system-call round trip. Times N
 * getpid() calls one by one with the time-stamp counter and prints the
 * minimum and the median, in TSC cycles (under QEMU's TCG these are the
 * host's cycles), and what two back-to-back rdtsc cost alone.
 */
#include <ulib.h>

#define WARMUP	1000

static void summary(const char *what, uint32_t *v, unsigned int n)
{
	sort_u32(v, n);
	printf("bench_getpid: %s: min %u median %u cycles\n", what, v[0], v[n / 2]);
}

int main(int argc, char **argv)
{
	unsigned int n = 100000;
	uint32_t *t;

	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &n) || n == 0))) {
		printf("usage: bench_getpid [N]\n");
		return 2;
	}
	t = malloc(n * sizeof(*t));
	if (!t) {
		printf("bench_getpid: no memory for %u samples\n", n);
		return 1;
	}
	for (int i = 0; i < WARMUP; i++)
		getpid();
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		getpid();
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	printf("bench_getpid: pid %d, %u calls\n", getpid(), n);
	summary("getpid round trip", t, n);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		t[i] = (uint32_t)(rdtsc() - t0);
	}
	summary("rdtsc alone", t, n);
	return 0;
}
