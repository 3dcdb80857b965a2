// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_yield [N]: sched_yield() timed one call at a time. Alone on a
 * CPU, a yield has no one to switch to: that is a plain system call.
 * Start two copies on one CPU (ronx: "run bench_yield N &" then "run
 * bench_yield N"; Linux: two copies under "taskset 1") and each yield
 * switches to the other copy, which runs until its own yield switches
 * back: one call then costs two context switches and two system calls.
 * The two parties are two programs started alike on both kernels.
 */
#include <ulib.h>

#define WARMUP	100

int main(int argc, char **argv)
{
	unsigned int n = 20000;
	uint32_t *t;

	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &n) || n == 0))) {
		printf("usage: bench_yield [N]\n");
		return 2;
	}
	t = malloc(n * sizeof(*t));
	if (!t) {
		printf("bench_yield: no memory for %u samples\n", n);
		return 1;
	}
	for (int i = 0; i < WARMUP; i++)
		sched_yield();
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		sched_yield();
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	sort_u32(t, n);
	printf("bench_yield: pid %d, %u yields: min %u median %u cycles per sched_yield\n",
	       getpid(), n, t[0], t[n / 2]);
	return 0;
}
