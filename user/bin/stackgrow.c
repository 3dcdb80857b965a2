// SPDX-License-Identifier: GPL-2.0-only
/*
 * stackgrow [KiB]: the stack grows on faults below it. Recursion with 64
 * KiB frames to KiB deep (default 6144: 6 MiB, under Linux's 8 MiB
 * RLIMIT_STACK), each frame written and checked on the way back; then a
 * child touches 8 MiB and 64 KiB below main's frame, beyond the limit,
 * and must die of SIGSEGV.
 *
 *   stackgrow hold S1 S2   grows to 1 MiB, waits until process S1 is
 *                    gone, to 2 MiB, waits for S2 (for the tests that
 *                    watch the pages appear from outside)
 */
#include <ulib.h>

#define FRAME	(64 << 10)

static char **hold;

static void wait_step(unsigned kib)
{
	const char *pid = hold[kib == 1024 ? 2 : 3];

	printf("stackgrow: %u KiB deep; goes on when %s is gone\n", kib, pid);
	wait_gone(pid);
}

static __attribute__((noinline)) int grow(unsigned kib, unsigned target)
{
	volatile char frame[FRAME];
	int ok;

	for (unsigned i = 0; i < FRAME; i += PAGE_SIZE)
		frame[i] = (char)(kib + i / PAGE_SIZE);
	if (hold && (kib == 1024 || kib == 2048))
		wait_step(kib);
	ok = kib >= target ? 1 : grow(kib + 64, target);
	for (unsigned i = 0; i < FRAME; i += PAGE_SIZE)
		ok &= frame[i] == (char)(kib + i / PAGE_SIZE);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned target = 6144;
	volatile char here = 1;
	int status = -1, pid;

	hold = argc > 3 && strcmp(argv[1], "hold") == 0 ? argv : 0;
	if (hold)
		target = 2048;
	else if (argc > 1 && (parse_uint(argv[1], &target) || target < 64 || target > 7168)) {
		printf("usage: stackgrow [KiB 64-7168 | hold]\n");
		return 2;
	}
	printf("stackgrow: growing the stack to %u KiB, 64 KiB per call\n", target);
	if (!grow(64, target)) {
		printf("stackgrow: FAIL: a frame lost its bytes\n");
		return 1;
	}
	printf("stackgrow: grew to %u KiB and read every frame back\n", target);
	if (hold)
		return 0;
	pid = fork();
	if (pid == 0) {
		/* computed as a number: the compiler may not reason about it as an array */
		volatile char *beyond = (volatile char *)((unsigned long)&here - (8 << 20) - (64 << 10));

		printf("stackgrow: touching %p, beyond the 8 MiB limit\n", (void *)beyond);
		*beyond = 1;
		printf("stackgrow: FAIL: the touch beyond the limit went through\n");
		_exit(1);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid) {
		printf("stackgrow: fork or wait4 failed: %s\n", errno_name(errno));
		return 1;
	}
	printf("stackgrow: the child beyond the limit: %s %d\n",
	       WIFSIGNALED(status) ? "killed by signal" : "exit", WIFSIGNALED(status) ?
	       WTERMSIG(status) : WEXITSTATUS(status));
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? 0 : 1;
}
