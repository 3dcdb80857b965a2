// SPDX-License-Identifier: GPL-2.0-only
/*
 * readkernel: a load from 0xc0100000, the kernel's half (ronx's kernel
 * text; Linux's direct map of physical 1 MiB). Kernel pages are
 * supervisor-only (US=0), so a user read faults: error code 5.
 */
#include <ulib.h>

static volatile unsigned long address = 0xc0100000;

int main(void)
{
	volatile unsigned int *p = (volatile unsigned int *)address;

	printf("readkernel: reading kernel address %#lx\n", address);
	printf("readkernel: read %#x: kernel memory is readable from user mode\n", *p);
	return 1;
}
