// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitdual [hold]: a JIT's two views of one memfd, W^X in each. The code
 * is written through a PROT_READ|PROT_WRITE mapping and called through
 * a PROT_READ|PROT_EXEC mapping of the same memfd page: no page is ever
 * writable and executable in one mapping, no mprotect flips it (jit.c's
 * way), yet what the RW view writes the RX view runs at once. Linux's
 * JITs (V8, .NET, Firefox's) do this to keep W^X with code they patch.
 *
 * It calls the code twice: once as written (42), once after patching
 * the immediate through the RW view (43). "hold" then sleeps until
 * killed, the descriptor open, so that `wxcheck`, `ptdump PID` and QEMU's
 * monitor can look at both views (tests/qemu/test_memfd.py).
 */
#include <ulib.h>

static int fail(const char *what)
{
	printf("jitdual: %s: %s\n", what, errno_name(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int fd = memfd_create("jit", MFD_CLOEXEC);
	unsigned char *rw, *rx;
	int (*fn)(void);
	int first;

	if (fd < 0)
		return fail("memfd_create");
	if (ftruncate(fd, PAGE_SIZE))
		return fail("ftruncate");
	rw = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED)
		return fail("mmap RW");
	rx = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (rx == MAP_FAILED)
		return fail("mmap RX");
	printf("jitdual: memfd %d, rw view 0x%08lx, rx view 0x%08lx\n", fd, (unsigned long)rw,
	       (unsigned long)rx);
	put_ret42(rw);				/* written through the RW view only */
	fn = (int (*)(void))rx;			/* run through the RX view only */
	first = fn();
	rw[1] = 43;				/* mov $43, %eax: patched in place */
	printf("jitdual: called through rx: %d, after patching through rw: %d\n", first, fn());
	if (argc == 2 && strcmp(argv[1], "hold") == 0) {
		printf("jitdual: holding, pid %d rw 0x%08lx rx 0x%08lx\n", getpid(),
		       (unsigned long)rw, (unsigned long)rx);
		for (;;) {
			struct timespec ts = { 1, 0 };

			nanosleep(&ts, 0);
		}
	}
	return 0;
}
