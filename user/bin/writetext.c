// SPDX-License-Identifier: GPL-2.0-only
/*
 * writetext: a store into the program's own code. Text is RO+X, so the
 * write faults (error code 7: protection, write, user). It writes back
 * the byte already there, so a kernel that allowed it changes nothing.
 */
#include <ulib.h>

int main(void)
{
	volatile unsigned char *text = (volatile unsigned char *)(unsigned long)main;

	printf("writetext: writing to its own text at %p\n", text);
	*text = *text;
	printf("writetext: the write went through: text is writable\n");
	return 1;
}
