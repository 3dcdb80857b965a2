// SPDX-License-Identifier: GPL-2.0-only
/* nullwrite: a store to address 0 (error code 6: not present, write, user). */
#include <ulib.h>

static volatile unsigned long address = 0;

int main(void)
{
	printf("nullwrite: writing to address %#lx\n", address);
	*(volatile unsigned int *)address = 0;
	printf("nullwrite: the write went through: page 0 is mapped and writable\n");
	return 1;
}
