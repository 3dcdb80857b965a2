// SPDX-License-Identifier: GPL-2.0-only
/*
 * usertest [ronx|linux]: small checks of the system calls, printed as
 * KTAP, one subtest per system call. The same binary runs on ronx and on
 * Linux; the argument names the kernel's policy for the few checks where
 * the two differ (user W^X: ronx refuses W+X memory with EACCES), and
 * those lines say "# ronx only" or "# linux only".
 *
 * A fault kills the process, so nothing here faults on purpose: what the
 * CPU would refuse is probed through the kernel instead. write(1, p, 1)
 * returns EFAULT when p is not mapped (copy_from_user fails) and
 * mprotect returns ENOMEM on a range with nothing mapped. Each check
 * first prints what it tried and what came back, as a "#" line.
 */
#include <ulib.h>

extern char _end[];

static int linux_policy;
static int n_in_suite, n_failed, suite_failed;

/* kernel-half, unmapped-low and wrapping addresses */
#define KERNEL_ADDR	0xc0100000UL
#define LOW_ADDR	0x1000UL	/* below Linux's mmap_min_addr: never mapped */
#define WRAP_ADDR	0xfffff000UL
#define HUGE_LEN	0xfffffff0UL

static void check(int ok, const char *name, const char *note)
{
	n_in_suite++;
	if (!ok)
		suite_failed = 1;
	printf("    %sok %d %s%s%s\n", ok ? "" : "not ", n_in_suite, name,
	       note ? " # " : "", note ? note : "");
}

static void *map(size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static int fill_and_verify(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 + 1))
			return 0;
	return 1;
}

/* ---- process: getpid, sched_yield, unknown numbers, the initial stack ---- */
static int t_argc;
static char **t_argv, **t_envp;

static void suite_process(void)
{
	int pid = getpid(), envc = 0;
	long r;

	printf("    # getpid() = %d, again %d, raw %ld\n", pid, getpid(),
	       syscall6(__NR_getpid, 0, 0, 0, 0, 0, 0));
	check(pid > 0, "getpid_positive", NULL);
	check(getpid() == pid, "getpid_stable", NULL);
	check(syscall6(__NR_getpid, 0, 0, 0, 0, 0, 0) == pid, "getpid_raw_syscall", NULL);
	while (t_envp && t_envp[envc] && envc < 4096)
		envc++;
	printf("    # argc %d, argv[0] \"%s\", argv[argc] %p, %d environment strings\n",
	       t_argc, t_argv[0], (void *)t_argv[t_argc], envc);
	check(t_argc >= 1 && t_argv[0] && !t_argv[t_argc], "argv_from_initial_stack", NULL);
	check(t_envp == t_argv + t_argc + 1 && envc < 4096, "envp_after_argv", NULL);
	r = sched_yield();
	printf("    # sched_yield() = %s\n", result_str(r));
	check(r == 0, "sched_yield_returns_0", NULL);
	printf("    # syscall 600 = %ld, syscall 0x7fffffff = %ld, syscall -1 = %ld\n",
	       syscall6(600, 0, 0, 0, 0, 0, 0), syscall6(0x7fffffff, 0, 0, 0, 0, 0, 0),
	       syscall6(-1, 0, 0, 0, 0, 0, 0));
	check(syscall6(600, 0, 0, 0, 0, 0, 0) == -ENOSYS &&
	      syscall6(0x7fffffff, 0, 0, 0, 0, 0, 0) == -ENOSYS &&
	      syscall6(-1, 0, 0, 0, 0, 0, 0) == -ENOSYS, "unknown_syscall_enosys", NULL);
	errno = 0;
	r = write(-1, "x", 1);
	printf("    # write(-1, \"x\", 1) = %s (the wrapper turns -EBADF into -1 and errno)\n", result_str(r));
	check(fails_with(r, EBADF), "wrapper_sets_errno", NULL);
}

/* ---- write ---- */
static void suite_write(void)
{
	static const char line[] = "    # write(1, this line) returns its length\n";
	long r;

	r = write(1, line, sizeof(line) - 1);
	check(r == (long)sizeof(line) - 1, "write_returns_count", NULL);
	r = write(1, line, 0);
	printf("    # write(1, buf, 0) = %s\n", result_str(r));
	check(r == 0, "write_zero_length", NULL);
	r = write(42, line, 1);
	printf("    # write(42, buf, 1) = %s\n", result_str(r));
	check(fails_with(r, EBADF), "write_bad_fd_ebadf", NULL);
	r = write(1, NULL, 16);
	printf("    # write(1, NULL, 16) = %s\n", result_str(r));
	check(fails_with(r, EFAULT), "write_null_efault", NULL);
	r = write(1, (void *)LOW_ADDR, 16);
	printf("    # write(1, %#lx, 16) = %s\n", LOW_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "write_unmapped_efault", NULL);
	r = write(1, (void *)KERNEL_ADDR, 16);
	printf("    # write(1, %#lx, 16) = %s\n", KERNEL_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "write_kernel_address_efault", NULL);
	r = write(1, (void *)WRAP_ADDR, 0x2000);
	printf("    # write(1, %#lx, 0x2000) = %s\n", WRAP_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "write_wrapping_range_efault", NULL);
	r = write(1, line, HUGE_LEN);
	printf("    # write(1, buf, %#lx) = %s\n", HUGE_LEN, result_str(r));
	check(fails_with(r, EFAULT), "write_huge_length_efault", NULL);
}

/* ---- read: only what fails before any data is needed ---- */
static void suite_read(void)
{
	char buf[16];
	long r;

	r = read(0, (void *)KERNEL_ADDR, 16);
	printf("    # read(0, %#lx, 16) = %s\n", KERNEL_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "read_kernel_address_efault", NULL);
	r = read(0, (void *)WRAP_ADDR, 0x2000);
	printf("    # read(0, %#lx, 0x2000) = %s\n", WRAP_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "read_wrapping_range_efault", NULL);
	r = read(0, buf, HUGE_LEN);
	printf("    # read(0, buf, %#lx) = %s\n", HUGE_LEN, result_str(r));
	check(fails_with(r, EFAULT), "read_huge_length_efault", NULL);
	r = read(42, buf, sizeof(buf));
	printf("    # read(42, buf, 16) = %s\n", result_str(r));
	check(fails_with(r, EBADF), "read_bad_fd_ebadf", NULL);
}

/* ---- brk: Linux's brk returns the break it has, the old one if it refuses ---- */
static void suite_brk(void)
{
	unsigned long b0 = sys_brk(0), base = (b0 + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	unsigned long top = base + 2 * PAGE_SIZE, r;
	unsigned char *heap = (unsigned char *)base;
	long w;

	printf("    # brk(0) = %#lx, end of bss %p\n", b0, (void *)_end);
	check(b0 >= (unsigned long)_end && b0 < TASK_SIZE, "brk_query_after_bss", NULL);
	r = sys_brk(top);
	printf("    # brk(%#lx) = %#lx\n", top, r);
	check(r == top, "brk_grows", NULL);
	if (r != top)
		return;
	check(all_zero(heap, 2 * PAGE_SIZE), "brk_new_memory_zeroed", NULL);
	check(fill_and_verify(heap, 2 * PAGE_SIZE), "brk_new_memory_writable", NULL);
	r = sys_brk(base);
	printf("    # brk(%#lx) = %#lx\n", base, r);
	check(r == base, "brk_shrinks", NULL);
	w = write(1, heap, 1);
	printf("    # write(1, %#lx, 1) = %s\n", base, result_str(w));
	check(fails_with(w, EFAULT), "brk_shrunk_pages_gone", NULL);
	r = sys_brk(top);
	check(r == top && all_zero(heap, 2 * PAGE_SIZE), "brk_regrown_memory_zeroed", NULL);
	sys_brk(b0);
	r = sys_brk(TASK_SIZE + PAGE_SIZE);
	printf("    # brk(%#lx) = %#lx\n", TASK_SIZE + PAGE_SIZE, r);
	check(r == b0 && sys_brk(0) == b0, "brk_into_kernel_refused", NULL);
	r = sys_brk(LOW_ADDR);
	printf("    # brk(%#lx) = %#lx\n", LOW_ADDR, r);
	check(r == b0 && sys_brk(0) == b0, "brk_below_start_refused", NULL);
}

/* ---- mmap2 (anonymous) ---- */
static void suite_mmap(void)
{
	unsigned char *p = map(3 * PAGE_SIZE, PROT_READ | PROT_WRITE), *q;
	void *r;

	printf("    # mmap(3 pages, RW) = %s\n", result_str((long)p));
	check(p != MAP_FAILED && !((unsigned long)p & (PAGE_SIZE - 1)) &&
	      (unsigned long)p + 3 * PAGE_SIZE <= TASK_SIZE, "mmap_anon_rw", NULL);
	if (p == MAP_FAILED)
		return;
	check(all_zero(p, 3 * PAGE_SIZE), "mmap_anon_zeroed", NULL);
	check(fill_and_verify(p, 3 * PAGE_SIZE), "mmap_anon_writable", NULL);
	q = map(PAGE_SIZE, PROT_READ | PROT_WRITE);
	printf("    # a second mmap(1 page, RW) = %s\n", result_str((long)q));
	check(q != MAP_FAILED && (q + PAGE_SIZE <= p || q >= p + 3 * PAGE_SIZE),
	      "mmap_second_does_not_overlap", NULL);
	if (q != MAP_FAILED)
		munmap(q, PAGE_SIZE);
	munmap(p, 3 * PAGE_SIZE);

	r = map(0, PROT_READ);
	printf("    # mmap(length 0) = %s\n", result_str((long)r));
	check(fails_with((long)r, EINVAL), "mmap_zero_length_einval", NULL);
	r = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS, -1, 0);
	printf("    # mmap(neither MAP_PRIVATE nor MAP_SHARED) = %s\n", result_str((long)r));
	check(fails_with((long)r, EINVAL), "mmap_no_type_einval", NULL);
	r = map(0xfffff000UL, PROT_READ);
	printf("    # mmap(length 0xfffff000) = %s\n", result_str((long)r));
	check(fails_with((long)r, ENOMEM), "mmap_huge_length_enomem", NULL);
	r = mmap((void *)0xc0000000UL, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("    # mmap(MAP_FIXED at 0xc0000000) = %s\n", result_str((long)r));
	check(fails_with((long)r, ENOMEM), "mmap_fixed_kernel_half_enomem", NULL);
	r = mmap((void *)0xc0000000UL, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("    # mmap(hint 0xc0000000, no MAP_FIXED) = %s\n", result_str((long)r));
	check(r != MAP_FAILED && (unsigned long)r + PAGE_SIZE <= TASK_SIZE,
	      "mmap_kernel_hint_ignored", NULL);
	if (r != MAP_FAILED)
		munmap(r, PAGE_SIZE);
	r = mmap((void *)0x10000001UL, PAGE_SIZE, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("    # mmap(MAP_FIXED at 0x10000001) = %s\n", result_str((long)r));
	check(fails_with((long)r, EINVAL), "mmap_fixed_unaligned_einval", NULL);
	r = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE, 1000, 0);
	printf("    # mmap(fd 1000, not anonymous) = %s\n", result_str((long)r));
	check(fails_with((long)r, EBADF), "mmap_bad_fd_ebadf", NULL);

	p = map(PAGE_SIZE, PROT_NONE);
	printf("    # mmap(PROT_NONE) = %s\n", result_str((long)p));
	if (p != MAP_FAILED) {
		long w = write(1, p, 1);

		printf("    # write(1, the PROT_NONE page, 1) = %s\n", result_str(w));
		check(fails_with(w, EFAULT), "mmap_prot_none_unreadable", NULL);
		munmap(p, PAGE_SIZE);
	} else {
		check(0, "mmap_prot_none_unreadable", "mmap failed");
	}

	p = map(PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC);
	printf("    # mmap(PROT_READ|PROT_WRITE|PROT_EXEC) = %s\n", result_str((long)p));
	if (linux_policy)
		check(p != MAP_FAILED, "mmap_wx_allowed", "linux only");
	else
		check(fails_with((long)p, EACCES), "mmap_wx_refused_eacces", "ronx only");
	if (p != MAP_FAILED)
		munmap(p, PAGE_SIZE);
}

/* ---- munmap ---- */
static void suite_munmap(void)
{
	unsigned char *p = map(3 * PAGE_SIZE, PROT_READ | PROT_WRITE);
	long r, r2;

	if (p == MAP_FAILED) {
		check(0, "munmap_setup_mmap", "mmap failed");
		return;
	}
	p[0] = p[2 * PAGE_SIZE] = 1;
	r = munmap(p + PAGE_SIZE, PAGE_SIZE);
	printf("    # munmap(the middle one of 3 pages) = %s\n", result_str(r));
	check(r == 0, "munmap_middle_page", NULL);
	r = mprotect(p, PAGE_SIZE, PROT_READ | PROT_WRITE);
	r2 = mprotect(p + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE);
	printf("    # mprotect(first page) = %s, mprotect(last page) = %s\n", result_str(r), result_str(r2));
	check(r == 0 && r2 == 0 && p[0] == 1 && p[2 * PAGE_SIZE] == 1, "munmap_neighbours_stay", NULL);
	r = mprotect(p + PAGE_SIZE, PAGE_SIZE, PROT_READ);
	printf("    # mprotect(the unmapped middle page) = %s\n", result_str(r));
	check(fails_with(r, ENOMEM), "munmap_page_gone_mprotect_enomem", NULL);
	r = write(1, p + PAGE_SIZE, 1);
	printf("    # write(1, the unmapped middle page, 1) = %s\n", result_str(r));
	check(fails_with(r, EFAULT), "munmap_page_gone_write_efault", NULL);
	r = munmap(p, 3 * PAGE_SIZE);
	r2 = write(1, p, 1);
	printf("    # munmap(all 3 pages, one already gone) = %s, then write(1, first page, 1) = %s\n",
	       result_str(r), result_str(r2));
	check(r == 0 && fails_with(r2, EFAULT), "munmap_whole_range", NULL);
	r = munmap(p, 3 * PAGE_SIZE);
	printf("    # munmap(the same range again) = %s\n", result_str(r));
	check(r == 0, "munmap_nothing_mapped_ok", NULL);
	r = munmap(p + 1, PAGE_SIZE);
	printf("    # munmap(unaligned) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "munmap_unaligned_einval", NULL);
	r = munmap(p, 0);
	printf("    # munmap(length 0) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "munmap_zero_length_einval", NULL);
	r = munmap((void *)0xc0000000UL, PAGE_SIZE);
	printf("    # munmap(0xc0000000, 4096) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "munmap_kernel_half_einval", NULL);
}

/* ---- mprotect ---- */
static void suite_mprotect(void)
{
	unsigned char *p = map(PAGE_SIZE, PROT_READ | PROT_WRITE), *hole;
	int (*fn)(void);
	long r;

	if (p == MAP_FAILED) {
		check(0, "mprotect_setup_mmap", "mmap failed");
		return;
	}
	p[0] = 7;
	r = mprotect(p, PAGE_SIZE, PROT_READ);
	printf("    # mprotect(RW page, PROT_READ) = %s\n", result_str(r));
	check(r == 0 && p[0] == 7, "mprotect_read_only", NULL);
	r = mprotect(p, PAGE_SIZE, PROT_READ | PROT_WRITE);
	check(r == 0, "mprotect_back_to_rw", NULL);
	p[0] = 8;
	check(p[0] == 8, "mprotect_rw_writable_again", NULL);
	fn = put_ret42(p);
	r = mprotect(p, PAGE_SIZE, PROT_READ | PROT_EXEC);
	printf("    # code written while RW, mprotect(PROT_READ|PROT_EXEC) = %s\n", result_str(r));
	check(r == 0 && fn() == 42, "mprotect_rx_then_call_returns_42", NULL);
	r = mprotect(p, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC);
	printf("    # mprotect(PROT_READ|PROT_WRITE|PROT_EXEC) = %s\n", result_str(r));
	if (linux_policy)
		check(r == 0, "mprotect_wx_allowed", "linux only");
	else
		check(fails_with(r, EACCES), "mprotect_wx_refused_eacces", "ronx only");
	r = mprotect(p + 1, PAGE_SIZE, PROT_READ);
	printf("    # mprotect(unaligned) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "mprotect_unaligned_einval", NULL);
	r = mprotect(p, PAGE_SIZE, 0x100);
	printf("    # mprotect(prot 0x100) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "mprotect_bad_prot_einval", NULL);
	r = mprotect(p, 0, PROT_READ);
	printf("    # mprotect(length 0) = %s\n", result_str(r));
	check(r == 0, "mprotect_zero_length_ok", NULL);
	munmap(p, PAGE_SIZE);

	hole = map(PAGE_SIZE, PROT_READ);
	if (hole != MAP_FAILED)
		munmap(hole, PAGE_SIZE);
	r = mprotect(hole, PAGE_SIZE, PROT_READ);
	printf("    # mprotect(an unmapped page) = %s\n", result_str(r));
	check(hole != MAP_FAILED && fails_with(r, ENOMEM), "mprotect_unmapped_enomem", NULL);
	r = mprotect((void *)0xc0000000UL, PAGE_SIZE, PROT_READ);
	printf("    # mprotect(0xc0000000, 4096) = %s\n", result_str(r));
	check(fails_with(r, ENOMEM), "mprotect_kernel_half_enomem", NULL);
}

/* ---- nanosleep ---- */
static void suite_nanosleep(void)
{
	struct timespec ts = { 0, 0 };
	long r;

	r = nanosleep(&ts, NULL);
	printf("    # nanosleep({0, 0}) = %s\n", result_str(r));
	check(r == 0, "nanosleep_zero", NULL);
	ts.tv_nsec = 1000000;
	r = nanosleep(&ts, NULL);
	printf("    # nanosleep({0, 1 ms}) = %s\n", result_str(r));
	check(r == 0, "nanosleep_1ms", NULL);
	r = nanosleep(NULL, NULL);
	printf("    # nanosleep(NULL) = %s\n", result_str(r));
	check(fails_with(r, EFAULT), "nanosleep_null_efault", NULL);
	r = nanosleep((void *)KERNEL_ADDR, NULL);
	printf("    # nanosleep(%#lx) = %s\n", KERNEL_ADDR, result_str(r));
	check(fails_with(r, EFAULT), "nanosleep_kernel_address_efault", NULL);
	ts.tv_nsec = 1000000000;
	r = nanosleep(&ts, NULL);
	printf("    # nanosleep({0, 1000000000}) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "nanosleep_nsec_too_big_einval", NULL);
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	r = nanosleep(&ts, NULL);
	printf("    # nanosleep({-1, 0}) = %s\n", result_str(r));
	check(fails_with(r, EINVAL), "nanosleep_negative_einval", NULL);
}

/* ---- the library itself (the same code on both kernels) ---- */
static void suite_lib(void)
{
	char buf[128];
	char *a = malloc(100), *b = malloc(5000);
	uint64_t t0 = rdtsc(), t1 = rdtsc();

	snprintf(buf, sizeof(buf), "%d %u %x %s %c %p %ld %lx %llu|%5d|%-4d|%05u|%08lx", -42, 42u,
		 0xbeefu, "str", 'c', (void *)0x1234, -7L, 0xabcdefUL, 12345678901234ULL, 42, 7, 42u,
		 0xc0ffeeUL);
	printf("    # snprintf: %s\n", buf);
	check(!strcmp(buf, "-42 42 beef str c 00001234 -7 abcdef 12345678901234|   42|7   |00042|00c0ffee"),
	      "snprintf_formats", NULL);
	check(a && b && (a + 100 <= b || b + 5000 <= a), "malloc_distinct_blocks", NULL);
	if (a && b) {
		memset(a, 1, 100);
		memset(b, 2, 5000);
		check(a[99] == 1 && b[0] == 2 && b[4999] == 2, "malloc_blocks_writable", NULL);
	}
	free(a);
	free(b);
	check(t1 > t0, "rdtsc_counts_up", NULL);
}

static const struct {
	const char *name;
	void (*run)(void);
} suites[] = {
	{ "process", suite_process },
	{ "write", suite_write },
	{ "read", suite_read },
	{ "brk", suite_brk },
	{ "mmap", suite_mmap },
	{ "munmap", suite_munmap },
	{ "mprotect", suite_mprotect },
	{ "nanosleep", suite_nanosleep },
	{ "lib", suite_lib },
};

int main(int argc, char **argv, char **envp)
{
	int n = sizeof(suites) / sizeof(suites[0]);

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "ronx") && strcmp(argv[1], "linux"))) {
		printf("usage: usertest [ronx|linux]\n");
		return 2;
	}
	linux_policy = argc == 2 && !strcmp(argv[1], "linux");
	t_argc = argc;
	t_argv = argv;
	t_envp = envp;
	printf("KTAP version 1\n# usertest: %s's policy\n1..%d\n", linux_policy ? "Linux" : "ronx", n);
	for (int i = 0; i < n; i++) {
		n_in_suite = suite_failed = 0;
		printf("    KTAP version 1\n    # Subtest: %s\n", suites[i].name);
		suites[i].run();
		/* the plan at the end: the count is known only once the suite ran */
		printf("    1..%d\n%sok %d %s\n", n_in_suite, suite_failed ? "not " : "", i + 1,
		       suites[i].name);
		n_failed += suite_failed;
	}
	printf("# usertest: %d of %d suites passed\n", n - n_failed, n);
	return n_failed ? 1 : 0;
}
