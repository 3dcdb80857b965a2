// SPDX-License-Identifier: GPL-2.0-only
/* A system call's result as the test programs print it. */
#include <ulib.h>

/*
 * "-1 EFAULT" or "0x1234". Call it right after the call (errno is read
 * here); each of up to four calls in one printf gets its own buffer.
 */
const char *result_str(long r)
{
	static char bufs[4][32];
	static int next;
	char *buf = bufs[next++ % 4];

	if (r == -1)
		snprintf(buf, sizeof(bufs[0]), "-1 %s", errno_name(errno));
	else
		snprintf(buf, sizeof(bufs[0]), "%#lx", (unsigned long)r);
	return buf;
}

/* The call failed with errno e. */
int fails_with(long r, int e)
{
	return r == -1 && errno == e;
}
