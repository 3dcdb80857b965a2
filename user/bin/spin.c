// SPDX-License-Identifier: GPL-2.0-only
/*
 * spin: loops forever in user mode, never entering the kernel, so that
 * only a timer interrupt can take the CPU back (and kill or Ctrl-C stop
 * it); while it runs, its page tables can be read from outside.
 */
#include <ulib.h>

int main(void)
{
	volatile unsigned long n = 0;

	printf("spin: pid %d looping\n", getpid());
	for (;;)
		n++;
}
