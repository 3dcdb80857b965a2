// SPDX-License-Identifier: GPL-2.0-only
/* cat: standard input to standard output until end of file. */
#include <ulib.h>

int main(void)
{
	char buf[512];
	long n;

	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write_all(1, buf, (size_t)n) != n) {
			printf("cat: write: %s\n", errno_name(errno));
			return 1;
		}
	if (n < 0) {
		printf("cat: read: %s\n", errno_name(errno));
		return 1;
	}
	return 0;
}
