/* SPDX-License-Identifier: GPL-2.0-only */
/* host_file.h - read a test's input file whole, for the host tests. */
#ifndef RONX_HOST_FILE_H
#define RONX_HOST_FILE_H
#include <stdio.h>
#include <stdlib.h>

/* Read a whole file; NULL if it cannot be read. */
static void *host_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n ? n : 1);
		if (fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = n;
	}
	fclose(f);
	return buf;
}

#endif
