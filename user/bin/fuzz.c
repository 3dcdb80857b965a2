// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz [N] [SEED]: N random system calls (default 100000) with random
 * arguments: kernel addresses, unmapped addresses, wrapping ranges, huge
 * and odd lengths, bad file descriptors, random flags and protections,
 * unknown call numbers. The kernel must answer each with a result or an
 * error, never an oops, a hang or a leak. At the end: counts per system
 * call and per result, and how many calls that named the kernel's half
 * succeeded (0 on ronx and on Linux).
 *
 * The fuzzer must survive its own calls, so the arguments that could
 * hurt it are chosen with care: munmap, mprotect and MAP_FIXED only touch
 * its arena, the mappings it made itself, the kernel's half, and the low
 * 64 KiB (never mapped); write to the console and read from it get only
 * pointers that cannot be read (or the call would print, or block).
 * The same seed makes the same calls on every kernel.
 */
#include <ulib.h>

#define ARENA_PAGES	256
#define ARENA_SIZE	(ARENA_PAGES * PAGE_SIZE)
#define LOW_END		0x10000UL	/* below Linux's mmap_min_addr */
#define MAX_MAPS	16
#define MAX_ERRNO	134

enum { F_READ, F_WRITE, F_GETPID, F_BRK, F_MMAP2, F_MUNMAP, F_MPROTECT, F_YIELD,
       F_NANOSLEEP, F_UNKNOWN, NR_KINDS };
static const char *const kind_name[NR_KINDS] = {
	"read", "write", "getpid", "brk", "mmap2", "munmap", "mprotect", "sched_yield",
	"nanosleep", "unknown",
};

/* results: [0] success, [e] -e */
static unsigned int counts[NR_KINDS][MAX_ERRNO + 1];
static unsigned int other_errors[NR_KINDS];
static unsigned int kernel_calls, kernel_successes;
static int must_fail;	/* this call names the kernel's half: it must fail */

static unsigned char *arena;
static struct { unsigned long addr, len; } maps[MAX_MAPS];
static unsigned long brk_start;
static struct timespec scratch_ts[2];
static char scratch[256];

/* xorshift32: small, and the same sequence on every kernel */
static uint32_t state;

static uint32_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return state;
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

/* an address no user access can succeed at: kernel half, low, wrapping */
static unsigned long bad_pointer(void)
{
	switch (below(6)) {
	case 0: return 0;
	case 1: return below(LOW_END);
	case 2: return TASK_SIZE + below(0x40000000);
	case 3: return TASK_SIZE;
	case 4: return 0xc0100000UL;
	default: return 0xffffffffUL - below(0x2000);
	}
}

static unsigned long any_length(void)
{
	static const unsigned long odd[] = { 0, 1, 0x7fffffff, 0x80000000UL, 0xfffff000UL,
					     0xffffffffUL, TASK_SIZE };

	switch (below(4)) {
	case 0: return odd[below(sizeof(odd) / sizeof(odd[0]))];
	case 1: return rnd();
	case 2: return (below(64) + 1) * PAGE_SIZE;
	default: return below(2 * PAGE_SIZE);
	}
}

/* a file descriptor that is surely closed: under qemu-user the
 * emulator's own files share the table, and busybox sh keeps its script
 * open at fd 10, so none of the low ones but the console's */
static long closed_fd(void)
{
	return below(2) ? 1000 + (long)below(1 << 20) : (long)(rnd() | 0x80000000UL);
}

/* for munmap, mprotect and MAP_FIXED: a range that cannot hold the
 * fuzzer's own image, stack or heap */
static void safe_range(unsigned long *addr, unsigned long *len)
{
	unsigned long a, room;

	switch (below(5)) {
	case 0:		/* the arena, page-aligned or not */
		a = (unsigned long)arena + below(ARENA_PAGES) * PAGE_SIZE + (below(8) ? 0 : below(PAGE_SIZE));
		room = (unsigned long)arena + ARENA_SIZE - a;
		break;
	case 1: {	/* a mapping it made */
		int i = (int)below(MAX_MAPS);

		if (!maps[i].len) {
			a = (unsigned long)arena;
			room = ARENA_SIZE;
			break;
		}
		a = maps[i].addr + below((uint32_t)(maps[i].len / PAGE_SIZE)) * PAGE_SIZE;
		room = maps[i].addr + maps[i].len - a;
		break;
	}
	case 2:		/* the low 64 KiB */
		a = below(LOW_END / PAGE_SIZE) * PAGE_SIZE;
		room = LOW_END - a;
		break;
	default:	/* the kernel's half, or wrapping past 4 GiB: any length */
		a = below(2) ? TASK_SIZE + below(0x40000000) : 0xffffffffUL - below(0x10000);
		a &= below(4) ? ~(PAGE_SIZE - 1) : ~0UL;
		*addr = a;
		*len = any_length();
		must_fail = *len != 0;	/* mprotect(addr, 0) succeeds on Linux */
		return;
	}
	*addr = a;
	*len = below(4) ? below((uint32_t)room + 1) : 0;
}

static void remember(unsigned long addr, unsigned long len)
{
	int i = (int)below(MAX_MAPS);

	if (maps[i].len)
		syscall6(__NR_munmap, (long)maps[i].addr, (long)maps[i].len, 0, 0, 0, 0);
	maps[i].addr = addr;
	maps[i].len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}

static long fuzz_read(void)
{
	long fd = below(3) ? (long)below(3) : closed_fd();
	unsigned long buf = bad_pointer(), len = any_length();

	/* the console with a user buffer would block or take input: only
	 * what access_ok() refuses before anything is read (past TASK_SIZE,
	 * at least one byte) */
	if (fd >= 0 && fd <= 2) {
		buf = TASK_SIZE + 1 + below(0x3ffffffe);
		len = len ? len : 1;
		must_fail = 1;
	} else if (below(2)) {
		buf = (unsigned long)scratch;
		len = below(sizeof(scratch));
	}
	return syscall6(__NR_read, fd, (long)buf, (long)len, 0, 0, 0);
}

static long fuzz_write(void)
{
	long fd = below(3) ? (long)below(3) : closed_fd();
	unsigned long buf = bad_pointer(), len = any_length();

	if ((fd < 0 || fd > 2) && below(2)) {
		buf = (unsigned long)scratch;
		len = below(sizeof(scratch));
	} else if (len == 0) {
		len = 1;	/* a zero-length write succeeds without looking */
	}
	must_fail = buf > TASK_SIZE;
	return syscall6(__NR_write, fd, (long)buf, (long)len, 0, 0, 0);
}

static long fuzz_brk(void)
{
	unsigned long want;

	switch (below(5)) {
	case 0: want = 0; break;
	case 1: want = brk_start + below(16 << 20); break;
	case 2: want = brk_start - below(64 << 10); break;
	case 3: want = TASK_SIZE + below(0x3fffffff); break;
	default: want = rnd(); break;
	}
	must_fail = want >= TASK_SIZE;
	/* brk answers with the break: "success" is getting what was asked
	 * (or the query, brk(0)); a refusal leaves the break where it was */
	if ((unsigned long)syscall6(__NR_brk, (long)want, 0, 0, 0, 0, 0) == want || !want)
		return 0;
	return -ENOMEM;
}

static long fuzz_mmap2(void)
{
	unsigned long addr = below(2) ? 0 : rnd(), len;
	long prot = (long)below(8) | (below(8) ? 0 : (long)(rnd() & 0x0300000f));
	long flags = (below(4) ? MAP_PRIVATE : (long)below(4)) | (below(6) ? MAP_ANONYMOUS : 0);
	long fd = below(4) ? -1 : below(2) ? (long)below(3) : closed_fd();
	long r;

	/* other flag bits, but never MAP_FIXED (by chance), MAP_POPULATE or
	 * MAP_LOCKED (they would fill memory), nor MAP_HUGETLB: under
	 * qemu-user 7.2 a run with it lost its own .bss (SEGV_MAPERR there
	 * after failed MAP_HUGETLB calls), on the host test's runs */
	if (!below(4))
		flags |= (long)(rnd() & 0x00090140);
	switch (below(4)) {
	case 0: len = (below(16) + 1) * PAGE_SIZE; break;
	case 1: len = below(1 << 20) + 1; break;
	case 2: len = any_length(); break;
	default: len = PAGE_SIZE; break;
	}
	if (!below(4)) {
		safe_range(&addr, &len);
		flags |= MAP_FIXED;
	}
	r = syscall6(__NR_mmap2, (long)addr, (long)len, prot, flags, fd, (long)below(4));
	if ((unsigned long)r >= (unsigned long)-4095)
		return r;
	/* Mapped outside [64K, TASK_SIZE): at the kernel's half it is a bug
	 * (qemu-user has no kernel there); in the low 64K Linux lets root do
	 * it. Either way unmap it at once: the other calls take those
	 * addresses as unreadable. */
	if ((unsigned long)r + len > TASK_SIZE || (unsigned long)r + len < (unsigned long)r ||
	    (unsigned long)r < LOW_END) {
		must_fail |= (unsigned long)r + len > TASK_SIZE || (unsigned long)r + len < (unsigned long)r;
		syscall6(__NR_munmap, r, (long)len, 0, 0, 0, 0);
		return 0;
	}
	if ((flags & MAP_ANONYMOUS) && (prot & PROT_WRITE) && len)
		((volatile char *)r)[0] = 1;	/* the memory must be there */
	if (!(flags & MAP_FIXED))
		remember((unsigned long)r, len);
	return 0;
}

static long fuzz_range(int nr)
{
	unsigned long addr, len;
	long prot = (long)below(8) | (below(8) ? 0 : (long)(rnd() & 0x0300000f));

	safe_range(&addr, &len);
	return syscall6(nr, (long)addr, (long)len, prot, 0, 0, 0);
}

static long fuzz_nanosleep(void)
{
	static const long nsec[] = { 0, 0, 0, 1, 1000000000, -1, 0x7fffffff };
	unsigned long req = (unsigned long)&scratch_ts[0], rem = (unsigned long)&scratch_ts[1];

	/* a real sleep only of 0 or 1 ns, and seldom: the calls must not
	 * take time, and ronx's timer has 10 ms ticks */
	scratch_ts[0].tv_sec = below(16) ? 0 : (long)rnd() | 0x80000000L;
	scratch_ts[0].tv_nsec = nsec[below(sizeof(nsec) / sizeof(nsec[0]))];
	if (below(2))
		req = bad_pointer();
	if (below(2))
		rem = below(2) ? 0 : bad_pointer();
	must_fail = req >= TASK_SIZE;
	return syscall6(__NR_nanosleep, (long)req, (long)rem, 0, 0, 0, 0);
}

static long fuzz_unknown(void)
{
	/* past every number Linux has (451 in 6.1), or negative */
	long nr = below(2) ? 451 + (long)below(1024) : (long)(rnd() | 0x80000000UL);

	return syscall6(nr, (long)rnd(), (long)rnd(), (long)rnd(), (long)rnd(), (long)rnd(),
			(long)rnd());
}

static long one_call(int kind)
{
	switch (kind) {
	case F_READ: return fuzz_read();
	case F_WRITE: return fuzz_write();
	case F_GETPID: return syscall6(__NR_getpid, (long)rnd(), (long)rnd(), 0, 0, 0, 0) > 0 ? 0 : -EINVAL;
	case F_BRK: return fuzz_brk();
	case F_MMAP2: return fuzz_mmap2();
	case F_MUNMAP: return fuzz_range(__NR_munmap);
	case F_MPROTECT: return fuzz_range(__NR_mprotect);
	case F_YIELD: return syscall6(__NR_sched_yield, (long)rnd(), 0, 0, 0, 0, 0);
	case F_NANOSLEEP: return fuzz_nanosleep();
	default: return fuzz_unknown();
	}
}

static void count(int kind, long r)
{
	kernel_calls += must_fail;
	if (r >= 0 || (unsigned long)r < (unsigned long)-4095) {
		counts[kind][0]++;
		/* a call that named the kernel's half and got through */
		kernel_successes += must_fail;
	} else if (-r <= MAX_ERRNO) {
		counts[kind][-r]++;
	} else {
		other_errors[kind]++;
	}
}

static void report(void)
{
	unsigned int total[MAX_ERRNO + 1] = { 0 }, others = 0;

	for (int k = 0; k < NR_KINDS; k++) {
		unsigned int n = other_errors[k];
		char line[400] = "";
		int len = 0;

		for (int e = 0; e <= MAX_ERRNO; e++) {
			n += counts[k][e];
			total[e] += counts[k][e];
			if (counts[k][e])
				len += snprintf(line + len, sizeof(line) - (size_t)len, ", %s %u",
						e ? errno_name(e) : "ok", counts[k][e]);
		}
		others += other_errors[k];
		printf("fuzz: %s: %u calls%s\n", kind_name[k], n, line);
	}
	printf("fuzz: results:");
	for (int e = 0; e <= MAX_ERRNO; e++)
		if (total[e])
			printf(" %s %u", e ? errno_name(e) : "ok", total[e]);
	printf("%s\n", others ? " (and errors above 133)" : "");
}

int main(int argc, char **argv)
{
	unsigned int n = 100000, seed = 1;

	if (argc > 3 || (argc > 1 && parse_uint(argv[1], &n)) ||
	    (argc > 2 && parse_uint(argv[2], &seed))) {
		printf("usage: fuzz [N] [SEED]\n");
		return 2;
	}
	state = seed ? seed : 1;
	arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		printf("fuzz: cannot map its arena: %s\n", errno_name(errno));
		return 1;
	}
	brk_start = sys_brk(0);
	printf("fuzz: %u calls, seed %u, arena %p-%p, brk %#lx\n", n, seed, arena,
	       arena + ARENA_SIZE, brk_start);
	for (unsigned int i = 1; i <= n; i++) {
		int kind = (int)below(NR_KINDS);

		must_fail = 0;
		count(kind, one_call(kind));
		if (i % (n / 10 ? n / 10 : 1) == 0)
			printf("fuzz: %u/%u calls\n", i, n);
	}
	sys_brk(brk_start);
	report();
	printf("fuzz: done: %u calls, seed %u; calls naming the kernel's half: %u, succeeded: %u\n",
	       n, seed, kernel_calls, kernel_successes);
	return kernel_successes ? 1 : 0;
}
