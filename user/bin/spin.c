// SPDX-License-Identifier: GPL-2.0-only
/*
 * spin: loops forever in user mode, never entering the kernel, so that
 * only a timer interrupt can take the CPU back (and kill or Ctrl-C stop
 * it). While it runs, its page tables can be read from outside: it
 * first prints one address in each of its segments and on its stack.
 */
#include <ulib.h>

static volatile unsigned long counter;	/* .bss: the RW segment */

int main(void)
{
	volatile int on_stack = 0;

	printf("spin: text %#lx rodata %#lx data %#lx stack %#lx\n", (unsigned long)main,
	       (unsigned long)"rodata", (unsigned long)&counter, (unsigned long)&on_stack);
	printf("spin: pid %d looping\n", getpid());
	for (;;)
		counter++;
}
