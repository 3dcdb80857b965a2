// SPDX-License-Identifier: GPL-2.0-only
/*
 * aslrprobe: prints where exec put its stack and where its first mmap
 * landed, writes a mark into both pages, then loops in user mode so that
 * its page tables can be read from outside (tests/qemu/test_aslr.py).
 * With ASLR (the default) two runs print different addresses; with
 * norandmaps the fixed ones (a stack page under 0xc0000000, 0x40000000).
 */
#include <ulib.h>

static volatile unsigned long counter;

int main(void)
{
	volatile unsigned long on_stack = 0x5a5a5a5a;
	volatile unsigned long *m = mmap(0, 4096, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((long)m < 0 && (long)m > -4096) {
		printf("aslrprobe: mmap failed: %ld\n", (long)m);
		return 1;
	}
	*m = 0xa5a5a5a5;	/* first touch: a frame of its own */
	printf("aslrprobe: stack %#lx mmap %#lx pid %d looping\n", (unsigned long)&on_stack,
	       (unsigned long)m, getpid());
	for (;;)
		counter++;
}
