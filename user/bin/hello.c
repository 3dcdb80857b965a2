// SPDX-License-Identifier: GPL-2.0-only
/* The first user program: says who it is and what it was given. */
#include <ulib.h>

int main(int argc, char **argv)
{
	printf("hello from user space, pid %d\n", getpid());
	printf("argc %d\n", argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d] = \"%s\"\n", i, argv[i]);
	return 0;
}
