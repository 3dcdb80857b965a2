// SPDX-License-Identifier: GPL-2.0-only
/*
 * memfdtest: memfd_create, ftruncate, close and MAP_SHARED mappings of a
 * memfd, each check one line "memfdtest: NAME: ok" or "...: FAIL (why)",
 * then "memfdtest: N checks, M failed" (tests/qemu/test_memfd.py):
 *
 *   views     two mappings of one memfd in one process see the same bytes
 *   munmap    unmapping one view keeps the other, and the bytes
 *   close     closing the descriptor keeps both mappings alive and shared
 *   private   a MAP_PRIVATE mapping reads the memfd's bytes, and a shared
 *             view's writes, until its first write to a page copies it:
 *             the memfd's bytes stay, and so do fork's and mprotect's
 *   sigbus    a mapping past the memfd's end: mmap takes it, a touch there
 *             is SIGBUS (BUS_ADRERR, si_addr the address; the default
 *             kills), a system call's access EFAULT; once the memfd
 *             grows over the page, the page is the memfd's
 *   sizes     ftruncate64; a shrink takes the pages past the new end
 *             from every mapping, a private copy too (a touch is SIGBUS),
 *             and a grow gives the mappings zeroed pages
 *   fork      the child's descriptor reaches the same memfd: a mapping it
 *             makes after fork sees the parent's bytes and the parent its
 *   cloexec   execve closes an MFD_CLOEXEC descriptor and keeps the other
 *             (the exec'd "memfdtest fdcheck A B" reports what it finds)
 *   errors    Linux's errno for bad flags, names, descriptors and sizes
 *   emfile    descriptors run out with EMFILE, and come back on close
 *   refmax    a frame mapped 50 times per process: the fork that would
 *             count it past 240 gets ENOMEM (ronx's byte-wide counts)
 *
 * The same binary runs on Linux (make linux-check, make user-test) with
 * the same verdicts. Where docs/user-mode.md lists a departure, the check
 * takes the answer of the kernel it runs on (uname's sysname) and no
 * other: ronx refuses MFD_HUGETLB, a memfd past 4 MiB, W+X and a frame
 * counted past 240, where Linux gives a descriptor, grows the memfd, maps
 * W+X and forks on. Those checks say "ronx:" and Linux's answer.
 * "memfdtest hold" keeps a shared and a private view of one memfd, and
 * "memfdtest shrink" shrinks one under two processes on a cue, for
 * tests/qemu/test_memfd.py to read from outside; "memfdtest race N"
 * shrinks and grows one N times under processes that touch it.
 */
#include <ulib.h>

static int checks, failed;
static const char *self;	/* argv[0] */
static int ronx;		/* uname says ronx: its answer where the kernels differ */

static int on_ronx(void)
{
	char u[6 * 65];

	return syscall6(__NR_uname, (long)u, 0, 0, 0, 0, 0) == 0 && strcmp(u, "ronx") == 0;
}

static void check(const char *name, int ok, const char *why)
{
	checks++;
	failed += !ok;
	if (ok)
		printf("memfdtest: %s: ok\n", name);
	else
		printf("memfdtest: %s: FAIL (%s)\n", name, why);
}

/* A memfd of pages pages, or -1 */
static int new_memfd(const char *name, unsigned flags, long pages)
{
	int fd = memfd_create(name, flags);

	if (fd >= 0 && ftruncate(fd, pages * (long)PAGE_SIZE)) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *map(int fd, int prot, long pgoff)
{
	return mmap(NULL, PAGE_SIZE, prot, MAP_SHARED, fd, pgoff * (long)PAGE_SIZE);
}

static void views(void)
{
	int fd = new_memfd("views", 0, 2);
	char *a = map(fd, PROT_READ | PROT_WRITE, 1), *b = map(fd, PROT_READ, 1);

	if (fd < 0 || a == MAP_FAILED || b == MAP_FAILED) {
		check("views", 0, errno_name(errno));
		return;
	}
	check("views", b[0] == 0, "a new memfd reads 0");
	a[0] = 'v';
	check("views", a != b && b[0] == 'v', "the second view sees the first's write");
	munmap(a, PAGE_SIZE);
	check("munmap", b[0] == 'v', "the other view keeps the bytes after munmap of one");
	a = map(fd, PROT_READ | PROT_WRITE, 1);
	check("munmap", a != MAP_FAILED && a[0] == 'v', "a new view of the page finds them too");
	close(fd);
	a[1] = 'c';
	check("close", b[0] == 'v' && b[1] == 'c', "both views still share after close");
	munmap(a, PAGE_SIZE);
	munmap(b, PAGE_SIZE);
}

/*
 * A child reads p and exits 0, or dies: its wait status with 0x100 set
 * if it died of a signal (the signal in the low byte), 0x200 if mmap
 * failed, the exit status otherwise.
 */
static int touch_status(volatile char *p)
{
	int pid, status = -1;

	if ((void *)p == MAP_FAILED)
		return 0x200;
	pid = fork();
	if (pid == 0)
		_exit(p[0] == 0x5a ? 3 : 0);	/* the default action, if the read faults */
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 0x100 | WTERMSIG(status) : WEXITSTATUS(status);
}


/*
 * MAP_PRIVATE of a memfd (Linux: a private file mapping). Two pages,
 * each written through a shared view s; p is the private view.
 */
static void privates(void)
{
	int fd = new_memfd("private", 0, 2), pid, status = -1;
	char *s = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	volatile char *p = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	volatile char *r = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE, fd, PAGE_SIZE);
	char *again;

	if (fd < 0 || s == MAP_FAILED || p == MAP_FAILED || r == MAP_FAILED) {
		check("private", 0, errno_name(errno));
		return;
	}
	s[0] = 'm';
	s[PAGE_SIZE] = 'n';
	check("private", p[0] == 'm' && p[PAGE_SIZE] == 'n' && r[0] == 'n',
	      "the private views read the memfd's bytes");
	s[1] = 'x';
	check("private", p[1] == 'x', "a write through the shared view shows in the private one");
	p[0] = 'P';
	check("private", p[0] == 'P' && s[0] == 'm',
	      "the private write is the private view's only: the memfd keeps its byte");
	s[2] = 'y';
	check("private", p[2] == 0 && p[1] == 'x',
	      "once written, the private page is a copy: the shared view's later writes stay out");
	again = map(fd, PROT_READ, 0);
	check("private", again != MAP_FAILED && again[0] == 'm' && again[1] == 'x',
	      "a new shared view finds the memfd's bytes, not the private write");
	pid = fork();
	if (pid == 0) {
		p[PAGE_SIZE] = 'C';
		p[0] = 'D';
		_exit(p[PAGE_SIZE] == 'C' && s[PAGE_SIZE] == 'n' ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	check("private", WIFEXITED(status) && WEXITSTATUS(status) == 0 && p[PAGE_SIZE] == 'n' &&
	      p[0] == 'P' && s[PAGE_SIZE] == 'n',
	      "after fork the child's private writes are its own, not the parent's or the memfd's");
	check("private", mprotect((void *)r, PAGE_SIZE, PROT_READ | PROT_WRITE) == 0,
	      "mprotect a read-only private view writable");
	r[0] = 'R';
	check("private", r[0] == 'R' && s[PAGE_SIZE] == 'n' && p[PAGE_SIZE] == 'n',
	      "its write after mprotect is a copy too: the memfd keeps its byte");
	close(fd);
	s[PAGE_SIZE + 1] = 'z';
	check("private", p[PAGE_SIZE + 1] == 'z' && r[1] == 0,
	      "after close, an unwritten private page still follows the shared view");
	munmap(again, PAGE_SIZE);
	munmap((void *)r, PAGE_SIZE);
	munmap((void *)p, 2 * PAGE_SIZE);
	munmap(s, 2 * PAGE_SIZE);
}

static volatile uint32_t bus_addr;
static volatile int bus_sig, bus_code, bus_hits;

/* Records the siginfo, and maps an anonymous page over the one past the end: the touch retried */
static void on_bus(int sig, struct siginfo *si, void *uc)
{
	(void)uc;
	bus_hits++;
	bus_sig = sig;
	bus_code = si->si_code;
	bus_addr = si->fault.addr;
	mmap((void *)(si->fault.addr & ~(PAGE_SIZE - 1)), PAGE_SIZE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* A mapping past the memfd's end: Linux's SIGBUS on the touch, not an error at mmap. */
static void sigbus(void)
{
	int fd = new_memfd("sigbus", 0, 1), empty = memfd_create("empty", 0);
	volatile char *p = mmap(NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), *q;
	struct k_sigaction dfl = { 0 };

	check("sigbus", fd >= 0 && p != MAP_FAILED, "a shared mapping of 3 pages of a 1-page memfd");
	if (fd < 0 || p == MAP_FAILED)
		return;
	p[5] = 'b';
	check("sigbus", p[5] == 'b', "its first page, within the size, works");
	check("sigbus", touch_status(p + PAGE_SIZE + 12) == (0x100 | SIGBUS),
	      "a read past the end kills with SIGBUS (the default action)");
	check("sigbus", write(1, (const void *)(p + PAGE_SIZE), 1) == -1 && errno == EFAULT,
	      "write() from the page past the end: EFAULT");
	sigaction_handler(SIGBUS, on_bus, 0);
	p[2 * PAGE_SIZE + 34] = 'w';
	check("sigbus", bus_hits == 1 && bus_sig == SIGBUS && bus_code == BUS_ADRERR &&
	      bus_addr == (uint32_t)(p + 2 * PAGE_SIZE + 34) && p[2 * PAGE_SIZE + 34] == 'w',
	      "a write past the end: SIGBUS, BUS_ADRERR, si_addr the address; retried after the handler");
	sigaction_k(SIGBUS, &dfl, 0);
	check("sigbus", touch_status(mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE, empty, 0)) ==
	      (0x100 | SIGBUS), "a private mapping of a size-0 memfd: mapped, SIGBUS on the read");
	check("sigbus", ftruncate(fd, 2 * PAGE_SIZE) == 0 && p[PAGE_SIZE + 12] == 0,
	      "the page past the end at mmap, after ftruncate grows the memfd: reads 0");
	p[PAGE_SIZE + 13] = 'n';
	q = map(fd, PROT_READ, 1);
	check("sigbus", q != MAP_FAILED && q[13] == 'n',
	      "and is writable, and the memfd's: a new view sees the write");
	munmap((void *)q, PAGE_SIZE);
	munmap((void *)p, 3 * PAGE_SIZE);
	close(fd);
	close(empty);
}

/* A handled SIGBUS at p: was it BUS_ADRERR at p? (on_bus() maps a page there: p is anonymous after) */
static int bus_at(volatile char *p)
{
	bus_hits = 0;
	sigaction_handler(SIGBUS, on_bus, 0);
	(void)p[0];
	return bus_hits == 1 && bus_sig == SIGBUS && bus_code == BUS_ADRERR &&
	       bus_addr == (uint32_t)p;
}

/*
 * ftruncate64's two halves; a shrink under a shared view, a private view
 * that copied its page, and a view of two pages, one of them cut: each
 * touch of a page gone is SIGBUS (Linux's truncate takes even a private
 * copy); then a grow, after which the shared view's page is the memfd's
 * new zeroed page, which a second view shares.
 */
static void sizes(void)
{
	int fd = memfd_create("sizes", 0);
	long r = syscall6(__NR_ftruncate64, fd, 2 * (long)PAGE_SIZE, 0, 0, 0, 0);
	volatile char *p = map(fd, PROT_READ | PROT_WRITE, 1), *q, *w, *v;
	struct k_sigaction dfl = { 0 };

	q = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, PAGE_SIZE);
	w = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check("sizes", r == 0 && p != MAP_FAILED && q != MAP_FAILED && w != MAP_FAILED,
	      "ftruncate64 to 2 pages; page 1 mapped shared and private, pages 0-1 shared");
	check("sizes", syscall6(__NR_ftruncate64, fd, 0, (long)0x80000000, 0, 0, 0) == -EINVAL,
	      "ftruncate64 of a negative length: EINVAL");
	if (p == MAP_FAILED || q == MAP_FAILED || w == MAP_FAILED)
		return;
	p[0] = 's';
	w[0] = 'w';
	q[1] = 'c';
	check("sizes", q[0] == 's' && p[1] == 0 && w[PAGE_SIZE] == 's',
	      "the private view copied the page at its write; the shared ones share");
	check("sizes", ftruncate(fd, PAGE_SIZE) == 0, "ftruncate to 1 page under the views");
	check("sizes", touch_status(p) == (SIGBUS | 0x100) && touch_status(q) == (SIGBUS | 0x100),
	      "page 1 is gone from the shared view and the private copy: a touch is SIGBUS");
	check("sizes", touch_status(w) == 0 && w[0] == 'w' && touch_status(w + PAGE_SIZE) ==
	      (SIGBUS | 0x100), "the 2-page view keeps page 0; its page 1 is SIGBUS");
	check("sizes", bus_at(q + 7) && bus_at(w + PAGE_SIZE + 9),
	      "handled: SIGBUS, BUS_ADRERR, si_addr the address (private copy, shared view)");
	sigaction_k(SIGBUS, &dfl, 0);
	check("sizes", touch_status(map(fd, PROT_READ, 1)) == (SIGBUS | 0x100),
	      "a new mapping of the page gone: mapped, and its touch is SIGBUS");
	check("sizes", ftruncate(fd, 2 * PAGE_SIZE) == 0 && p[0] == 0,
	      "after ftruncate grows it again, the shared view's page reads 0: no SIGBUS");
	p[1] = 'g';
	v = map(fd, PROT_READ, 1);
	check("sizes", v != MAP_FAILED && v[1] == 'g' && v[0] == 0,
	      "and it is writable, and the memfd's: a new view sees the write");
	w[100] = 'k';
	w[3000] = 'z';
	check("sizes", ftruncate(fd, 2000) == 0 && ftruncate(fd, PAGE_SIZE) == 0 &&
	      w[100] == 'k' && w[3000] == 0, "a shrink to 2000 bytes zeroes the rest of "
	      "that page: grown again, byte 100 is kept and byte 3000 reads 0");
	munmap((void *)p, PAGE_SIZE);
	munmap((void *)q, PAGE_SIZE);
	munmap((void *)w, 2 * PAGE_SIZE);
	munmap((void *)v, PAGE_SIZE);
	close(fd);
}

static void forks(void)
{
	int fd = new_memfd("fork", 0, 1), pid, status = -1;
	volatile char *p = map(fd, PROT_READ | PROT_WRITE, 0);

	if (fd < 0 || p == MAP_FAILED) {
		check("fork", 0, errno_name(errno));
		return;
	}
	p[0] = 'p';
	pid = fork();
	if (pid == 0) {
		/* a mapping made after fork, from the inherited descriptor */
		char *q = map(fd, PROT_READ | PROT_WRITE, 0);

		if (q == MAP_FAILED || q[0] != 'p')
			_exit(1);
		q[1] = 'c';
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		check("fork", 0, "fork or wait failed");
		return;
	}
	check("fork", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's new mapping sees the parent's byte");
	check("fork", p[1] == 'c', "the parent sees the child's byte");
	munmap((void *)p, PAGE_SIZE);
	close(fd);
}

static int number(const char *s)
{
	int n = 0;

	while (*s >= '0' && *s <= '9')
		n = n * 10 + *s++ - '0';
	return n;
}

/* The exec'd half: which of the two descriptors are still open. */
static int fdcheck(const char *a, const char *b)
{
	int cloexec = number(a), kept = number(b);
	long r1 = ftruncate(cloexec, PAGE_SIZE), e1 = errno;
	long r2 = ftruncate(kept, PAGE_SIZE);

	printf("memfdtest: after execve, fd %d (MFD_CLOEXEC): %s, fd %d: %s\n", cloexec,
	       r1 ? errno_name((int)e1) : "open", kept, r2 ? errno_name(errno) : "open");
	return r1 == -1 && e1 == EBADF && r2 == 0 ? 0 : 1;
}

static void cloexec(void)
{
	int a = memfd_create("cloexec", MFD_CLOEXEC), b = memfd_create("kept", 0), pid, status = -1;
	char sa[4], sb[4];
	char *argv[] = { "memfdtest", "fdcheck", sa, sb, 0 };
	char *envp[] = { 0 };

	snprintf(sa, sizeof(sa), "%d", a);
	snprintf(sb, sizeof(sb), "%d", b);
	pid = fork();
	if (pid == 0) {
		execve("/bin/memfdtest", argv, envp);
		execve(self, argv, envp);	/* on a host, where /bin has no memfdtest */
		_exit(2);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	check("cloexec", a >= 0 && b >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "execve closes MFD_CLOEXEC and only it");
	close(a);
	close(b);
}

#define VIEWS	50	/* mappings of one page in one process */

/*
 * A frame's count is a byte on ronx: one page mapped VIEWS times, then
 * forks that each hold VIEWS more, until fork says ENOMEM rather than
 * let the count pass PAGE_REF_MAX (240). Linux has no such limit.
 */
static void refmax(void)
{
	int fd = new_memfd("refmax", 0, 1), pids[8], n = 0, err = 0, status;
	volatile char *go = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *v[VIEWS];

	for (int i = 0; i < VIEWS; i++)
		v[i] = map(fd, PROT_READ, 0);
	while (n < 8) {
		int pid = fork();

		if (pid == 0) {
			while (!*go)
				sched_yield();
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		pids[n++] = pid;
	}
	*go = 1;
	for (int i = 0; i < n; i++)
		waitpid(pids[i], &status, 0);
	check("refmax", ronx ? n == 3 && err == ENOMEM : n == 8 && err == 0,
	      "ronx: the fork that would count a frame past 240 gets ENOMEM, after 3 forks "
	      "(Linux: all 8 forks)");
	for (int i = 0; i < VIEWS; i++)
		munmap(v[i], PAGE_SIZE);
	munmap((void *)go, PAGE_SIZE);
	close(fd);
}

static void expect(const char *what, long r, int e)
{
	char why[96];

	snprintf(why, sizeof(why), "%s: %s, want %s", what, result_str(r), errno_name(e));
	check("errors", fails_with(r, e), why);
}

/* A departure: ronx's errno e, Linux's success (r >= 0). */
static void expect_ronx(const char *what, long r, int e)
{
	char why[96];

	snprintf(why, sizeof(why), "ronx: %s: %s, want %s", what, result_str(r),
		 ronx ? errno_name(e) : "success (Linux)");
	check("errors", ronx ? fails_with(r, e) : r >= 0 || r < -4095, why);
}

static void errors(void)
{
	static char longname[300];
	int fd = new_memfd("errors", 0, 1);

	memset(longname, 'n', 250);
	expect("memfd_create flags 0x100", memfd_create("x", 0x100), EINVAL);
	expect("memfd_create name of 250", memfd_create(longname, 0), EINVAL);
	expect("memfd_create name NULL", memfd_create(NULL, 0), EFAULT);
	long huge = memfd_create("x", MFD_HUGETLB);

	expect_ronx("memfd_create MFD_HUGETLB", huge, EINVAL);
	if (huge >= 0)
		close(huge);
	expect("close 99", close(99), EBADF);
	expect("close -1", close(-1), EBADF);
	expect("close 12 (never opened)", close(12), EBADF);
	expect("ftruncate -1", ftruncate(fd, -1), EINVAL);
	expect("ftruncate bad fd", ftruncate(13, PAGE_SIZE), EBADF);
	expect("ftruncate stdin (not a memfd or a file)", ftruncate(0, PAGE_SIZE), EINVAL);
	expect_ronx("ftruncate past 4 MiB", ftruncate(fd, 5L << 20), EFBIG);
	expect("mmap bad fd", (long)mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, 13, 0), EBADF);
	expect("mmap length 0", (long)mmap(NULL, 0, PROT_READ, MAP_SHARED, fd, 0), EINVAL);
	expect("mmap bad type", (long)mmap(NULL, PAGE_SIZE, PROT_READ, 0, fd, 0), EINVAL);
	expect_ronx("mmap RWX", (long)mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
					   MAP_SHARED, fd, 0), EACCES);
	expect("mmap offset wraps", (long)mmap(NULL, 2 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd,
					       -(long)PAGE_SIZE), EOVERFLOW);
	close(fd);
	expect("mmap a closed fd", (long)map(fd, PROT_READ, 0), EBADF);
}

/* Descriptors run out with EMFILE (16 on ronx, RLIMIT_NOFILE's 1024 on Linux). */
static void emfile(void)
{
	static int fds[4096];
	int n = 0, last, again;

	while (n < 4096 && (fds[n] = memfd_create("many", 0)) >= 0)
		n++;
	last = errno;
	check("emfile", n > 0 && n < 4096 && last == EMFILE, "memfd_create until EMFILE");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	again = memfd_create("again", 0);
	check("emfile", n > 0 && again == fds[0], "the lowest descriptor is free again");
	close(again);
}

/*
 * A shared view of 3 pages of a 2-page memfd (page 2 past its end) and a
 * private view of its 2 pages whose page 0 is written (a copy) and page 1
 * not (the memfd's frame, read-only), held until killed: test_memfd.py
 * reads the frames and bytes under both from outside.
 */
static int hold(void)
{
	int fd = new_memfd("priv", 0, 2);
	char *s = mmap(NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	volatile char *p = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	if (fd < 0 || s == MAP_FAILED || p == MAP_FAILED) {
		printf("memfdtest: hold: %s\n", errno_name(errno));
		return 1;
	}
	s[0] = 'M';
	s[PAGE_SIZE] = 'N';
	p[0] = 'P';
	printf("memfdtest: holding, pid %d shared 0x%08lx private 0x%08lx\n", getpid(),
	       (unsigned long)s, (unsigned long)p);
	for (;;) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, 0);
	}
}

static void sleep_forever(void)
{
	for (;;) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, 0);
	}
}

/*
 * "memfdtest shrink": a shared and a private view of a 2-page memfd,
 * page 1 written through both (the private write a copy), held by this
 * process and a forked child; when a third, which maps nothing, is
 * killed, the memfd shrinks to 1 page. tests/qemu/test_memfd.py reads
 * both holders' tables, and the frames' counts, from outside before the
 * kill and after. (The shell's kill cannot run a handler: it only kills.)
 */
static int shrink_hold(void)
{
	int fd = new_memfd("shrink", 0, 2), trigger = fork(), child;
	char *s;
	volatile char *p;

	if (trigger == 0)
		sleep_forever();
	s = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	p = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (fd < 0 || trigger < 0 || s == MAP_FAILED || p == MAP_FAILED) {
		printf("memfdtest: shrink: %s\n", errno_name(errno));
		return 1;
	}
	s[0] = 'M';
	s[PAGE_SIZE] = 'N';
	(void)p[0];
	p[PAGE_SIZE] = 'C';
	child = fork();
	if (child == 0)
		sleep_forever();
	printf("memfdtest: shrink holding, pid %d child %d trigger %d shared 0x%08lx "
	       "private 0x%08lx\n", getpid(), child, trigger, (unsigned long)s, (unsigned long)p);
	waitpid(trigger, 0, 0);
	printf("memfdtest: shrunk: %s\n", ftruncate(fd, PAGE_SIZE) == 0 ? "ok" : errno_name(errno));
	sleep_forever();
	return 0;
}

static volatile int race_bus;

static void on_race_bus(int sig, struct siginfo *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	race_bus++;	/* the page is past the end for now: the retry faults until a grow */
}

/* Writes and reads every page of the shared and the private view, forever. */
static void race_toucher(volatile char *s, volatile char *p)
{
	sigaction_handler(SIGBUS, on_race_bus, 0);
	for (unsigned n = 0;; n++)
		for (int i = 0; i < 4; i++) {
			s[i * PAGE_SIZE] = (char)n;
			p[i * PAGE_SIZE + 1] = (char)n;
			(void)s[i * PAGE_SIZE + 2];
		}
}

/* Forks children that touch both views and exit, forever: fork of an mm a shrink walks. */
static void race_forker(volatile char *s, volatile char *p)
{
	for (;;) {
		int pid = fork();

		if (pid == 0) {
			sigaction_handler(SIGBUS, on_race_bus, 0);
			s[0] = 'f';
			p[1] = 'f';
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, 0, 0);
	}
}

/*
 * "memfdtest race N": a 4-page memfd shrunk to 1 page and grown back N
 * times while one child writes every page of a shared and a private view
 * (each touch past the end a handled SIGBUS, retried) and another forks
 * children that touch them. tests/qemu/test_memfd.py runs it on 2 CPUs:
 * no oops, no count below zero, every page back.
 */
static int race(int rounds)
{
	int fd = new_memfd("race", 0, 4), kids[2], i, bad = 0;
	char *s = mmap(NULL, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	if (fd < 0 || s == MAP_FAILED || p == MAP_FAILED) {
		printf("memfdtest: race: %s\n", errno_name(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			if (i == 0)
				race_toucher(s, p);
			race_forker(s, p);
		}
	}
	for (i = 0; i < rounds; i++)
		bad += ftruncate(fd, PAGE_SIZE) != 0 || ftruncate(fd, 4 * PAGE_SIZE) != 0;
	for (i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], 0, 0);
	}
	printf("memfdtest: race: %d shrinks and grows, %d failed\n", rounds, bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	unsigned int rounds;

	self = argv[0];
	ronx = on_ronx();
	if (argc == 4 && strcmp(argv[1], "fdcheck") == 0)
		return fdcheck(argv[2], argv[3]);
	if (argc == 2 && strcmp(argv[1], "hold") == 0)
		return hold();
	if (argc == 2 && strcmp(argv[1], "shrink") == 0)
		return shrink_hold();
	if (argc == 3 && strcmp(argv[1], "race") == 0 && parse_uint(argv[2], &rounds) == 0)
		return race((int)rounds);
	views();
	privates();
	sigbus();
	sizes();
	forks();
	cloexec();
	errors();
	emfile();
	refmax();
	printf("memfdtest: %d checks, %d failed\n", checks, failed);
	return failed ? 1 : 0;
}
