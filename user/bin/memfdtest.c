// SPDX-License-Identifier: GPL-2.0-only
/*
 * memfdtest: memfd_create, ftruncate, close and MAP_SHARED mappings of a
 * memfd, each check one line "memfdtest: NAME: ok" or "...: FAIL (why)",
 * then "memfdtest: N checks, M failed" (tests/qemu/test_memfd.py):
 *
 *   views     two mappings of one memfd in one process see the same bytes
 *   munmap    unmapping one view keeps the other, and the bytes
 *   close     closing the descriptor keeps both mappings alive and shared
 *   sizes     ftruncate64; a shrink leaves a mapping its frame (ronx)
 *   fork      the child's descriptor reaches the same memfd: a mapping it
 *             makes after fork sees the parent's bytes and the parent its
 *   cloexec   execve closes an MFD_CLOEXEC descriptor and keeps the other
 *             (the exec'd "memfdtest fdcheck A B" reports what it finds)
 *   errors    Linux's errno for bad flags, names, descriptors and sizes
 *   emfile    descriptors run out with EMFILE, and come back on close
 *   refmax    a frame mapped 50 times per process: the fork that would
 *             count it past 240 gets ENOMEM (ronx's byte-wide counts)
 *
 * Linux gives the same answers except where docs/user-mode.md says: ronx
 * refuses MAP_PRIVATE of a memfd, a mapping past its size, MFD_HUGETLB,
 * a memfd past 4 MiB, W+X and a frame counted past 240, and it leaves a
 * frame a shrink took from the memfd in the mappings that hold it
 * ("ronx:" marks those nine checks; under qemu-i386 on a Linux host,
 * with `ulimit -n 64`, only they fail).
 */
#include <ulib.h>

static int checks, failed;
static const char *self;	/* argv[0] */

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

/* ftruncate64's two halves, and a shrink under a mapping. */
static void sizes(void)
{
	int fd = memfd_create("sizes", 0), pid, status = -1;
	long r = syscall6(__NR_ftruncate64, fd, 2 * (long)PAGE_SIZE, 0, 0, 0, 0);
	volatile char *p = map(fd, PROT_READ | PROT_WRITE, 1);

	check("sizes", r == 0 && p != MAP_FAILED, "ftruncate64 to 2 pages, page 1 mapped");
	check("sizes", syscall6(__NR_ftruncate64, fd, 0, (long)0x80000000, 0, 0, 0) == -EINVAL,
	      "ftruncate64 of a negative length: EINVAL");
	if (p == MAP_FAILED)
		return;
	p[0] = 's';
	check("sizes", ftruncate(fd, 0) == 0, "ftruncate to 0 under a mapping");
	pid = fork();
	if (pid == 0)	/* Linux: SIGBUS, the page is gone from the mapping too */
		_exit(p[0] == 's' ? 0 : 1);
	if (pid > 0)
		waitpid(pid, &status, 0);
	check("sizes", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "ronx: the mapping keeps its frame and bytes after the shrink");
	check("sizes", map(fd, PROT_READ, 1) == MAP_FAILED && errno == ENXIO,
	      "ronx: a new mapping of the page gone: ENXIO");
	munmap((void *)p, PAGE_SIZE);
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
	check("refmax", n == 3 && err == ENOMEM,
	      "ronx: the fork that would count a frame past 240 gets ENOMEM, after 3 forks");
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

static void errors(void)
{
	static char longname[300];
	int fd = new_memfd("errors", 0, 1), empty = memfd_create("empty", 0);

	memset(longname, 'n', 250);
	expect("memfd_create flags 0x100", memfd_create("x", 0x100), EINVAL);
	expect("memfd_create name of 250", memfd_create(longname, 0), EINVAL);
	expect("memfd_create name NULL", memfd_create(NULL, 0), EFAULT);
	expect("ronx: memfd_create MFD_HUGETLB", memfd_create("x", MFD_HUGETLB), EINVAL);
	expect("close 99", close(99), EBADF);
	expect("close -1", close(-1), EBADF);
	expect("close 12 (never opened)", close(12), EBADF);
	expect("ftruncate -1", ftruncate(fd, -1), EINVAL);
	expect("ftruncate bad fd", ftruncate(13, PAGE_SIZE), EBADF);
	expect("ftruncate the console", ftruncate(1, PAGE_SIZE), EINVAL);
	expect("ronx: ftruncate past 4 MiB", ftruncate(fd, 5L << 20), EFBIG);
	expect("mmap bad fd", (long)mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, 13, 0), EBADF);
	expect("mmap length 0", (long)mmap(NULL, 0, PROT_READ, MAP_SHARED, fd, 0), EINVAL);
	expect("mmap bad type", (long)mmap(NULL, PAGE_SIZE, PROT_READ, 0, fd, 0), EINVAL);
	expect("ronx: mmap RWX", (long)mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
				      MAP_SHARED, fd, 0), EACCES);
	expect("ronx: mmap MAP_PRIVATE", (long)mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0),
	       EINVAL);
	expect("ronx: mmap size 0 memfd", (long)map(empty, PROT_READ, 0), ENXIO);
	expect("ronx: mmap past the size", (long)map(fd, PROT_READ, 1), ENXIO);
	close(fd);
	close(empty);
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

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 4 && strcmp(argv[1], "fdcheck") == 0)
		return fdcheck(argv[2], argv[3]);
	views();
	sizes();
	forks();
	cloexec();
	errors();
	emfile();
	refmax();
	printf("memfdtest: %d checks, %d failed\n", checks, failed);
	return failed ? 1 : 0;
}
