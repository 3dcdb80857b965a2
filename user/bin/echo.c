// SPDX-License-Identifier: GPL-2.0-only
/* echo ARGS: the arguments, one space between them, then a newline. */
#include <ulib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	printf("\n");
	return 0;
}
