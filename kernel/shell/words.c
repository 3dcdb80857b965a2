// SPDX-License-Identifier: GPL-2.0-only
/* Splitting a shell line into words. Pure: host-tested. */
#include <ronx/shell.h>

/* Cuts line into argv in place; -1 if it has more than max words. */
int split_words(char *line, char **argv, int max)
{
	int argc = 0;

	for (;;) {
		while (*line == ' ' || *line == '\t')
			*line++ = '\0';
		if (!*line)
			return argc;
		if (argc == max)
			return -1;
		argv[argc++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
	}
}
