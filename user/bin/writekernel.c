// SPDX-License-Identifier: GPL-2.0-only
/* writekernel: a store to 0xc0100000 from user mode: error code 7. */
#include <ulib.h>

static volatile unsigned long address = 0xc0100000;

int main(void)
{
	printf("writekernel: writing to kernel address %#lx\n", address);
	*(volatile unsigned int *)address = 0;
	printf("writekernel: the write went through: kernel memory is writable from user mode\n");
	return 1;
}
