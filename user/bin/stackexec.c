// SPDX-License-Identifier: GPL-2.0-only
/*
 * stackexec: code on the stack, then a call to it. The stack is RW+NX
 * (PT_GNU_STACK says RW_), so the instruction fetch faults: error code
 * 0x15, protection violation on an instruction fetch from user mode.
 */
#include <ulib.h>

int main(void)
{
	unsigned char code[16];
	int (*fn)(void) = put_ret42(code);

	printf("stackexec: calling code on the stack at %p\n", code);
	printf("stackexec: it ran and returned %d: the stack is executable\n", fn());
	return 1;
}
