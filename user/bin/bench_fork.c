// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_fork [N]: what fork and the faults behind it cost, in TSC cycles
 * (min and median of N samples each, default 200):
 *   fork+exit+wait   fork, the child _exits at once, the parent's wait4
 *                    returns: the whole round trip
 *   cow fault        the parent's first write to a page it shares with a
 *                    sleeping child after fork: a copy
 *   first-touch write / read   the first write to (a new frame), or read
 *                    of (the zero page), a page of a fresh anonymous mmap
 */
#include <ulib.h>

#define MAXN	1024
static uint32_t t[MAXN];

static void summary(const char *what, unsigned int n)
{
	sort_u32(t, n);
	printf("bench_fork: %s: min %u median %u cycles\n", what, t[0], t[n / 2]);
}

static int bench_fork_exit_wait(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();
		int status, pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || wait4(pid, &status, 0, NULL) != pid || status != 0) {
			printf("bench_fork: fork or wait4 failed: %s\n", errno_name(errno));
			return 1;
		}
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	summary("fork+exit+wait", n);
	return 0;
}

static int bench_cow(unsigned int n)
{
	struct timespec forever = { 1000, 0 };
	/* mmap, not bss: an executable's bss is mapped whole at exec */
	char *shared = mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	int status, pid;

	if (shared == MAP_FAILED)
		return 1;
	for (unsigned int i = 0; i < n; i++)
		shared[i * PAGE_SIZE] = 1;
	pid = fork();
	if (pid == 0)
		for (;;)
			nanosleep(&forever, NULL);
	if (pid < 0)
		return 1;
	for (unsigned int i = 0; i < n; i++) {
		volatile char *p = shared + i * PAGE_SIZE;	/* volatile: the store stays between the rdtscs */
		uint64_t t0 = rdtsc();

		p[1] = 2;
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	kill(pid, SIGKILL);
	wait4(pid, &status, 0, NULL);
	munmap(shared, n * PAGE_SIZE);
	summary("cow fault", n);
	return 0;
}

static int bench_first_touch(unsigned int n)
{
	volatile char *m = mmap(NULL, 2 * n * PAGE_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 1;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		m[i * PAGE_SIZE] = 1;
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	summary("first-touch write", n);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		(void)m[(n + i) * PAGE_SIZE];
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	summary("first-touch read", n);
	munmap((void *)m, 2 * n * PAGE_SIZE);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = 200;

	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &n) || n == 0 || n > MAXN))) {
		printf("usage: bench_fork [N 1-%d]\n", MAXN);
		return 2;
	}
	printf("bench_fork: pid %d, %u samples each\n", getpid(), n);
	return bench_fork_exit_wait(n) || bench_cow(n) || bench_first_touch(n);
}
