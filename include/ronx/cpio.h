/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_CPIO_H
#define RONX_CPIO_H
#include <stddef.h>
#include <stdint.h>

struct cpio_file {
	const char *name;	/* NUL-terminated, inside the archive */
	const void *data;
	size_t size;
	uint32_t ino, nlink;	/* hard links share ino; cpio_find() gives each the bytes */
};

/*
 * Walks a cpio "newc" archive (the initrd). Returns 1 and fills *f with
 * the next file, 0 at the trailer, or -1 if the archive is malformed
 * (*err says how). *pos starts at 0.
 */
int cpio_next(const void *archive, size_t len, size_t *pos, struct cpio_file *f,
	      const char **err);
int cpio_find(const void *archive, size_t len, const char *name, struct cpio_file *f);
#endif
