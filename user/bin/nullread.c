// SPDX-License-Identifier: GPL-2.0-only
/*
 * nullread: a load from address 0. Nothing is mapped there, so the CPU
 * faults (error code 4: not present, read, user) and the kernel kills
 * the process. The address is kept in a volatile so that the compiler
 * cannot see the null pointer and replace the load with a trap.
 */
#include <ulib.h>

static volatile unsigned long address = 0;

int main(void)
{
	volatile unsigned int *p = (volatile unsigned int *)address;

	printf("nullread: reading address %#lx\n", address);
	printf("nullread: read %#x: no fault, page 0 is mapped\n", *p);
	return 1;
}
