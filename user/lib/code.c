// SPDX-License-Identifier: GPL-2.0-only
/*
 * Six bytes of machine code, "mov eax, 42; ret", for the programs that
 * put code somewhere and call it (stackexec, mmaprwx, mprotectrwx, jit,
 * usertest, wxsegment): whether the call returns 42 or faults is what
 * they show.
 */
#include <ulib.h>

static const unsigned char ret42[] = {
	0xb8, 42, 0, 0, 0,	/* mov eax, 42 */
	0xc3,			/* ret */
};

/* copies the code to dst; returns it as a function to call */
int (*put_ret42(void *dst))(void)
{
	memcpy(dst, ret42, sizeof(ret42));
	return (int (*)(void))dst;
}
