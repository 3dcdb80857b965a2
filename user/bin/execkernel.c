// SPDX-License-Identifier: GPL-2.0-only
/*
 * execkernel: a call to 0xc0100000. The instruction fetch from a
 * supervisor page faults in user mode (error code 0x15 if the page is
 * present: protection, instruction fetch, user).
 */
#include <ulib.h>

static volatile unsigned long address = 0xc0100000;

int main(void)
{
	void (*fn)(void) = (void (*)(void))address;

	printf("execkernel: calling kernel address %#lx\n", address);
	fn();
	printf("execkernel: the call returned: kernel code runs in user mode\n");
	return 1;
}
