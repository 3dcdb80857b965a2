// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_appel [N]: the virtual-memory primitives a garbage collector or a
 * checkpointer builds on (Appel and Li, "Virtual memory primitives for
 * user programs", ASPLOS 1991), and lmbench's lat_sig rows, in TSC
 * cycles: min and median of N samples each (default 1000). A heap of 100
 * anonymous pages, each written once first, so every fault below is a
 * protection fault (SEGV_ACCERR) on a present page.
 *
 *   trap                 a write to a read-only page, caught by a SIGSEGV
 *                        handler that makes the page writable; the write is
 *                        retried. The handler's mprotect is timed inside it
 *                        and taken out: fault, delivery, rt_sigreturn.
 *   prot1+trap+unprot    mprotect one page read-only, write it, the handler
 *                        unprotects it: the whole round trip
 *   protN+trap+unprot    mprotect all 100 pages read-only (one call), write
 *                        one, the handler unprotects that one
 *   appel1               the paper's concurrent-collector pattern: all pages
 *                        but one protected; a write to a random protected
 *                        page, whose handler protects the one open page and
 *                        unprotects the faulting one: per access
 *   appel2               protect all 100 pages, write each in a random
 *                        order, the handler unprotects each: per page
 *   lat_sig install      rt_sigaction of a SIGUSR1 handler
 *   lat_sig catch        kill(getpid(), SIGUSR1) to a handler that returns
 *   lat_sig prot         a write to a read-only page whose handler returns
 *                        without unprotecting it, so the write faults again:
 *                        the time from one handler entry to the next
 *                        (lmbench longjmps out instead; here rt_sigreturn)
 *
 * Then one line that counts the faults and signals the handlers saw
 * against what the rows must have caused (tests/qemu/test_user.py checks
 * it; the cycles are for make bench, tools/bench_appel.py).
 */
#include <ulib.h>

#define NPAGES		100
#define RW		(PROT_READ | PROT_WRITE)

static char *heap;
static uint32_t *t;			/* the samples of one row */
static uint64_t *stamps;		/* lat_sig prot: each handler entry */

/* what the SIGSEGV handler does, set by each row */
static volatile unsigned int refaults;	/* entries to stamp before unprotecting */
static volatile unsigned int nstamps;
static char *volatile open_page;	/* appel1: the one writable page */
static volatile uint32_t unprot_cycles;	/* the handler's own mprotect, last fault */
static volatile unsigned int faults, caught;

static char *page(unsigned int i)
{
	return heap + i * PAGE_SIZE;
}

/* a fixed xorshift: the same "random" order on every kernel */
static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* the write would fault forever: say why and stop */
static void refused(char *p)
{
	printf("bench_appel: mprotect(%p) in the SIGSEGV handler: %s\n", (void *)p, errno_name(errno));
	_exit(1);
}

static void on_segv(int sig, struct siginfo *si, void *uc)
{
	uint32_t addr = si->fault.addr;
	char *p = (char *)(addr & ~(PAGE_SIZE - 1));
	uint64_t t0 = rdtsc();

	(void)sig;
	(void)uc;
	/* a fault that is not the benchmark's: die of it, as with no handler */
	if (addr < (uint32_t)heap || addr >= (uint32_t)page(NPAGES)) {
		struct k_sigaction dfl = { SIG_DFL, 0, 0, 0 };

		sigaction_k(SIGSEGV, &dfl, 0);
		return;
	}
	faults++;
	if (refaults) {
		stamps[nstamps++] = t0;
		if (--refaults)
			return;		/* the write runs again and faults again */
	}
	if (open_page) {
		if (mprotect(open_page, PAGE_SIZE, PROT_READ))
			refused(open_page);
		open_page = p;
	}
	if (mprotect(p, PAGE_SIZE, RW))
		refused(p);
	unprot_cycles = (uint32_t)(rdtsc() - t0);
}

static void on_usr1(int sig, struct siginfo *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	caught++;
}

static void row(const char *what, unsigned int n)
{
	sort_u32(t, n);
	printf("bench_appel: %s: min %u median %u cycles\n", what, t[0], t[n / 2]);
}

/* volatile: the store stays between the rdtscs, and is done each time */
static void touch(char *p)
{
	*(volatile char *)p += 1;
}

static void bench_trap(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0;

		mprotect(page(0), PAGE_SIZE, PROT_READ);
		t0 = rdtsc();
		touch(page(0));
		t[i] = (uint32_t)(rdtsc() - t0) - unprot_cycles;
	}
	row("trap", n);
}

static void bench_prot1(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		mprotect(page(0), PAGE_SIZE, PROT_READ);
		touch(page(0));
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	row("prot1+trap+unprot", n);
}

static void bench_protn(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		mprotect(heap, NPAGES * PAGE_SIZE, PROT_READ);
		touch(page(i % NPAGES));
		t[i] = (uint32_t)(rdtsc() - t0);
		mprotect(heap, NPAGES * PAGE_SIZE, RW);
	}
	row("protN+trap+unprot", n);
}

static void bench_appel1(unsigned int n)
{
	unsigned int open = 0;

	mprotect(heap, NPAGES * PAGE_SIZE, PROT_READ);
	mprotect(page(open), PAGE_SIZE, RW);
	open_page = page(open);
	for (unsigned int i = 0; i < n; i++) {
		/* a page other than the open one */
		unsigned int k = (open + 1 + next_random() % (NPAGES - 1)) % NPAGES;
		uint64_t t0 = rdtsc();

		touch(page(k));
		t[i] = (uint32_t)(rdtsc() - t0);
		open = k;
	}
	open_page = 0;
	mprotect(heap, NPAGES * PAGE_SIZE, RW);
	row("appel1", n);
}

static void bench_appel2(unsigned int rounds)
{
	unsigned int order[NPAGES];

	for (unsigned int i = 0; i < NPAGES; i++)
		order[i] = i;
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0;

		for (unsigned int i = NPAGES - 1; i > 0; i--) {
			unsigned int j = next_random() % (i + 1), x = order[i];

			order[i] = order[j];
			order[j] = x;
		}
		t0 = rdtsc();
		mprotect(heap, NPAGES * PAGE_SIZE, PROT_READ);
		for (unsigned int i = 0; i < NPAGES; i++)
			touch(page(order[i]));
		t[r] = (uint32_t)((rdtsc() - t0) / NPAGES);
	}
	row("appel2", rounds);
}

static void bench_install(unsigned int n)
{
	struct k_sigaction act = { (uint32_t)on_usr1, SA_SIGINFO | SA_RESTORER,
				   (uint32_t)__restore_rt, 0 }, old;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		sigaction_k(SIGUSR1, &act, &old);
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	row("lat_sig install", n);
}

static void bench_catch(unsigned int n)
{
	int pid = getpid();

	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();

		kill(pid, SIGUSR1);
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	row("lat_sig catch", n);
}

static void bench_sigprot(unsigned int n)
{
	nstamps = 0;
	refaults = n + 1;
	mprotect(page(1), PAGE_SIZE, PROT_READ);
	touch(page(1));
	for (unsigned int i = 0; i < n; i++)
		t[i] = (uint32_t)(stamps[i + 1] - stamps[i]);
	row("lat_sig prot", n);
}

int main(int argc, char **argv)
{
	unsigned int n = 1000, rounds;

	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &n) || n < 10))) {
		printf("usage: bench_appel [N], N >= 10\n");
		return 2;
	}
	rounds = n / 10;
	t = malloc(n * sizeof(*t));
	stamps = malloc((n + 1) * sizeof(*stamps));
	heap = mmap(NULL, NPAGES * PAGE_SIZE, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!t || !stamps || heap == MAP_FAILED) {
		printf("bench_appel: no memory for %u samples\n", n);
		return 1;
	}
	for (unsigned int i = 0; i < NPAGES; i++)
		touch(page(i));
	if (sigaction_handler(SIGSEGV, on_segv, 0) || sigaction_handler(SIGUSR1, on_usr1, 0)) {
		printf("bench_appel: sigaction: %s\n", errno_name(errno));
		return 1;
	}
	printf("bench_appel: pid %d, %u samples per row, %u pages\n", getpid(), n, NPAGES);
	bench_trap(n);
	bench_prot1(n);
	bench_protn(n);
	bench_appel1(n);
	bench_appel2(rounds);
	bench_install(n);
	bench_catch(n);
	bench_sigprot(n);
	/* trap, prot1, protN, appel1: one fault a sample; appel2: 100 a round; prot: n + 1 */
	printf("bench_appel: %u SIGSEGV handled (expected %u), %u SIGUSR1 caught (expected %u)\n",
	       faults, 4 * n + NPAGES * rounds + n + 1, caught, n);
	return faults == 4 * n + NPAGES * rounds + n + 1 && caught == n ? 0 : 1;
}
