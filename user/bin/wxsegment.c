// SPDX-License-Identifier: GPL-2.0-only
/*
 * wxsegment: a program whose only PT_LOAD is RWE (user/wxsegment.ld).
 * ronx's loader refuses to run it and names the segment. Where it runs
 * (Linux), it shows what W+X allows: the program rewrites one of its own
 * functions and calls it.
 */
#include <ulib.h>

static __attribute__((noinline)) int patched(void)
{
	return 1;
}

/* called through a volatile pointer, so the compiler cannot fold it to 1 */
static int (*volatile call)(void) = patched;

int main(void)
{
	printf("wxsegment: running from a writable and executable segment\n");
	printf("wxsegment: patched() returns %d\n", call());
	put_ret42((void *)(unsigned long)patched);
	printf("wxsegment: rewrote its own code: patched() returns %d\n", call());
	return 0;
}
