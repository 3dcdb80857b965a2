// SPDX-License-Identifier: GPL-2.0-only
/* exit N: ends with status N (the kernel keeps its low 8 bits). */
#include <ulib.h>

int main(int argc, char **argv)
{
	unsigned int n = 0;

	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &n))) {
		printf("usage: exit [N]\n");
		return 2;
	}
	printf("exit: exiting with %u\n", n);
	exit((int)n);
}
