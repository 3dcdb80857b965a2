// SPDX-License-Identifier: GPL-2.0-only
/*
 * bigwrite [N]: one write() of N newlines (default 1 MiB) to the
 * console, then a line saying what write() returned. A long system call
 * on purpose: Ctrl-C or kill must end it part way (issue 20), and the
 * kernel must answer meanwhile. It says "writing" first, so that a test
 * knows the call has begun (and on which CPU), and mmaps its buffer so
 * that N may be large.
 */
#include <ulib.h>

int main(int argc, char **argv)
{
	unsigned int n = 1 << 20;
	unsigned int cpu = 0;
	char *buf;
	long got;

	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &n))) {
		printf("usage: bigwrite [N]\n");
		return 2;
	}
	buf = mmap(0, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		printf("bigwrite: no memory for %u bytes: %s\n", n, errno_name(errno));
		return 1;
	}
	memset(buf, '\n', n);
	syscall6(__NR_getcpu, (long)&cpu, 0, 0, 0, 0, 0);
	printf("bigwrite: pid %d on CPU %u writing %u newlines in one write()\n", getpid(), cpu, n);
	got = write(1, buf, n);
	if (got < 0)
		printf("bigwrite: write(1, %u newlines) failed: %s\n", n, errno_name(errno));
	else
		printf("bigwrite: write(1, %u newlines) returned %ld\n", n, got);
	return got == (long)n ? 0 : 1;
}
