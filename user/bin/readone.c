// SPDX-License-Identifier: GPL-2.0-only
/*
 * readone: one read() of one byte from standard input, then exit. The
 * rest of the line the terminal handed out is left unread: ronx drops it
 * when this process exits, so the next reader waits for a new line
 * (tests/qemu/test_tty.py, docs/user-mode.md).
 */
#include <ulib.h>

int main(void)
{
	char c;
	long n = read(0, &c, 1);

	if (n < 0) {
		printf("readone: read: %s\n", errno_name(errno));
		return 1;
	}
	if (n == 0) {
		printf("readone: end of file\n");
		return 0;
	}
	if (c >= ' ' && c < 0x7f)
		printf("readone: read 1 byte: \"%c\"\n", c);
	else
		printf("readone: read 1 byte: \"\\x%02x\"\n", (unsigned char)c);
	return 0;
}
