// SPDX-License-Identifier: GPL-2.0-only
/* sleep MS: nanosleep for MS milliseconds. */
#include <ulib.h>

int main(int argc, char **argv)
{
	unsigned int ms;
	struct timespec ts;

	if (argc != 2 || parse_uint(argv[1], &ms)) {
		printf("usage: sleep MS\n");
		return 2;
	}
	ts.tv_sec = (long)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	printf("sleep: nanosleep(%ld s, %ld ns)\n", ts.tv_sec, ts.tv_nsec);
	if (nanosleep(&ts, NULL)) {
		printf("sleep: nanosleep: %s\n", errno_name(errno));
		return 1;
	}
	printf("sleep: woke up\n");
	return 0;
}
