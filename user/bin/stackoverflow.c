// SPDX-License-Identifier: GPL-2.0-only
/*
 * stackoverflow: recursion without end, 1 KiB of stack per call. The
 * stack has a fixed size with an unmapped guard page below it (ronx: 128
 * KiB; Linux grows it up to RLIMIT_STACK, 8 MiB), so the recursion ends
 * in a fault at the guard page instead of running into other memory.
 */
#include <ulib.h>

static volatile unsigned int never = ~0u;

static __attribute__((noinline)) unsigned int recurse(unsigned int kib)
{
	volatile char frame[1024];

	frame[0] = (char)kib;
	if ((kib & (kib - 1)) == 0)
		printf("stackoverflow: %u KiB deep, frame at %p\n", kib, frame);
	if (kib == never)
		return 0;
	/* the use of frame after the call keeps it from being a tail call */
	return recurse(kib + 1) + (unsigned char)frame[0];
}

int main(void)
{
	printf("stackoverflow: recursing, 1 KiB per call\n");
	printf("stackoverflow: the recursion ended: %u\n", recurse(1));
	return 1;
}
