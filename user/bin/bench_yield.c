// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_yield [N]: sched_yield() timed one call at a time. Alone on a
 * CPU, a yield has no one to switch to: that is a plain system call.
 *
 * bench_yield pair [N]: the ping-pong. The program forks, and parent and
 * child yield N times each on one CPU (Linux: run it under "taskset 1");
 * when they alternate, one call costs two context switches and two
 * system calls. Alternation is asked for, then counted, not assumed:
 *
 * - asked for: before the fork the program sets SCHED_FIFO at priority
 *   1 (sched_setscheduler, which the child inherits). On Linux a FIFO
 *   task's yield puts it behind the other runnable task of its priority;
 *   without it CFS often gives the CPU straight back to the yielder, and
 *   the pair measures yields that switched to nobody. ronx has no
 *   sched_setscheduler (ENOSYS): its round robin already alternates, and
 *   the program says so once and goes on.
 * - counted: each copy bumps its own counter in a MAP_SHARED|
 *   MAP_ANONYMOUS page before each yield, and after each yield writes
 *   there the CPU it runs on (the base of that CPU's GDT, gdt_base()). A
 *   yield "came back after one yield of the other copy" when the other's
 *   counter moved by exactly one while the call was in the kernel, not
 *   at all since this copy's previous yield returned (else the other ran
 *   beside us: another CPU, or a preemption), and the other last ran on
 *   this copy's CPU: then the kernel switched to the other and back
 *   inside the call. Each copy prints how many of its N yields did.
 */
#include <ulib.h>

#define WARMUP		100
#define PATIENCE	1000000	/* yields a copy waits for the other before giving up */
#define NR_sched_setscheduler	156	/* Linux's i386 number; ronx does not answer it */
#define SCHED_FIFO	1

/* what the two copies share: each one's yield count, and its state */
struct pingpong {
	volatile unsigned int yields[2];
	volatile unsigned long cpu[2];	/* gdt_base() after its last yield */
	volatile unsigned int state[2];	/* 1: ready to start, 2: done timing */
};

static void report(uint32_t *t, unsigned int n)
{
	sort_u32(t, n);
	printf("bench_yield: pid %d, %u yields: min %u median %u cycles per sched_yield\n",
	       getpid(), n, t[0], t[n / 2]);
}

/* one line (one write: the two copies' lines do not interleave) */
static void report_pair(const char *how, uint32_t *t, unsigned int n, unsigned int alt)
{
	sort_u32(t, n);
	printf("bench_yield: pid %d, %s%u yields: min %u median %u cycles per sched_yield; "
	       "%u of %u came back after one yield of the other copy\n",
	       getpid(), how, n, t[0], t[n / 2], alt, n);
}

static int alone(unsigned int n, uint32_t *t)
{
	for (int i = 0; i < WARMUP; i++)
		sched_yield();
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		sched_yield();
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	report(t, n);
	return 0;
}

/* Yields (each one counted, so the other sees us run) until the other
 * copy's state reaches s; whether it did within PATIENCE yields. */
static int wait_for(struct pingpong *pp, int me, unsigned int s)
{
	for (long i = 0; i < PATIENCE; i++) {
		if (pp->state[!me] >= s)
			return 1;
		pp->yields[me]++;
		sched_yield();
	}
	printf("bench_yield: pid %d: the other copy never got to state %u\n", getpid(), s);
	return 0;
}

/* One copy's half of the ping-pong; the number of its yields that alternated. */
static unsigned int pingpong(struct pingpong *pp, int me, unsigned int n, uint32_t *t)
{
	volatile unsigned int *other = &pp->yields[!me];
	unsigned int alt = 0, last;

	for (int i = 0; i < WARMUP; i++) {
		pp->yields[me]++;
		sched_yield();
	}
	last = *other;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int before = *other;
		uint64_t t0;

		pp->yields[me]++;
		t0 = rdtsc();
		sched_yield();
		t[i] = (uint32_t)(rdtsc() - t0);
		pp->cpu[me] = gdt_base();
		/* exactly one of its yields inside ours, none while we ran, on our CPU */
		alt += before == last && *other == before + 1 && pp->cpu[!me] == pp->cpu[me];
		last = *other;
	}
	return alt;
}

/* Asks for SCHED_FIFO; a line saying what the pair relies on if refused. */
static const char *fifo(void)
{
	int prio = 1;
	long r = syscall6(NR_sched_setscheduler, 0, SCHED_FIFO, (long)&prio, 0, 0, 0);

	if (r == 0)
		return "pair, SCHED_FIFO, ";
	if (r == -ENOSYS)
		printf("bench_yield: no sched_setscheduler (ENOSYS): ronx's round robin "
		       "already alternates the pair\n");
	else
		printf("bench_yield: sched_setscheduler(SCHED_FIFO): %s; the pair may not "
		       "alternate\n", errno_name((int)-r));
	return "pair, no SCHED_FIFO, ";
}

static int pair(unsigned int n)
{
	const char *how = fifo();
	struct pingpong *pp = mmap(0, PAGE_SIZE, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int pid, me, status = 0, ok;
	uint32_t *t;
	unsigned int alt;

	if (pp == MAP_FAILED) {
		printf("bench_yield: mmap MAP_SHARED|MAP_ANONYMOUS: %s\n", errno_name(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		printf("bench_yield: fork: %s\n", errno_name(errno));
		return 1;
	}
	me = pid == 0;
	/* each copy's own samples, touched now: no fault inside the loop */
	t = malloc(n * sizeof(*t));
	if (t)
		memset(t, 0, n * sizeof(*t));
	pp->state[me] = 1;
	ok = t && wait_for(pp, me, 1);
	alt = ok ? pingpong(pp, me, n, t) : 0;
	pp->state[me] = 2;
	/* keep yielding until the other is done too: its last yield alternates */
	ok = ok && wait_for(pp, me, 2);
	if (!t)
		printf("bench_yield: no memory for %u samples\n", n);
	/* the child's line first, then the parent's */
	if (me) {
		if (ok)
			report_pair(how, t, n, alt);
		_exit(ok ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		ok = 0;
	if (t && ok)
		report_pair(how, t, n, alt);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned int n = 20000;
	int ping = argc > 1 && strcmp(argv[1], "pair") == 0;
	uint32_t *t;

	if (argc > 2 + ping || (argc == 2 + ping && (parse_uint(argv[1 + ping], &n) || n == 0))) {
		printf("usage: bench_yield [pair] [N]\n");
		return 2;
	}
	if (ping)
		return pair(n);
	t = malloc(n * sizeof(*t));
	if (!t) {
		printf("bench_yield: no memory for %u samples\n", n);
		return 1;
	}
	return alone(n, t);
}
