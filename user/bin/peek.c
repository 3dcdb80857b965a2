// SPDX-License-Identifier: GPL-2.0-only
/*
 * peek ADDR: reads the 32-bit word at ADDR and prints it. Given another
 * process's address (seen with ptdump PID), it shows that the same
 * virtual address means this process's page, or nothing.
 */
#include <ulib.h>

int main(int argc, char **argv)
{
	unsigned int addr;

	if (argc != 2 || parse_uint(argv[1], &addr)) {
		printf("usage: peek ADDR (decimal, or hex with 0x)\n");
		return 2;
	}
	printf("peek: reading %#010x\n", addr);
	printf("peek: %#010x: %#010x\n", addr, *(volatile unsigned int *)(unsigned long)addr);
	return 0;
}
