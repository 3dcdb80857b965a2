// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cpio "newc" format, as Linux's initramfs uses it: a 110-byte ASCII
 * header ("070701" and thirteen 8-digit hex fields), the name, padding to
 * 4 bytes, the data, padding to 4 bytes; "TRAILER!!!" ends it. The archive
 * comes from the boot loader, so every length is checked. A file with
 * several names (hard links) has its bytes with the last name only.
 * Pure: host-tested.
 */
#include <stdint.h>
#include <ronx/string.h>
#include <ronx/cpio.h>

#define HEADER_LEN	110
#define FIELD_INO	0
#define FIELD_NLINK	4
#define FIELD_FILESIZE	6
#define FIELD_NAMESIZE	11

static int hex_field(const char *h, int field, uint32_t *out)
{
	uint32_t v = 0;

	h += 6 + field * 8;
	for (int i = 0; i < 8; i++) {
		char c = h[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

static size_t align4(size_t x)
{
	return (x + 3) & ~(size_t)3;
}

int cpio_next(const void *archive, size_t len, size_t *pos, struct cpio_file *f,
	      const char **err)
{
	const char *a = archive, *h = a + *pos;
	uint32_t namesize, filesize;
	size_t name_at, data_at;

	if (*pos > len || len - *pos < HEADER_LEN) {
		*err = "truncated header";
		return -1;
	}
	if (memcmp(h, "070701", 6) != 0) {
		*err = "bad magic (not cpio newc)";
		return -1;
	}
	if (hex_field(h, FIELD_NAMESIZE, &namesize) || hex_field(h, FIELD_FILESIZE, &filesize) ||
	    hex_field(h, FIELD_INO, &f->ino) || hex_field(h, FIELD_NLINK, &f->nlink)) {
		*err = "bad hex digit in a header field";
		return -1;
	}
	name_at = *pos + HEADER_LEN;
	if (namesize == 0 || namesize > len - name_at || a[name_at + namesize - 1] != '\0') {
		*err = "file name runs past the archive or is not terminated";
		return -1;
	}
	data_at = align4(name_at + namesize);
	if (data_at > len || filesize > len - data_at) {
		*err = "file data runs past the archive";
		return -1;
	}
	if (strcmp(a + name_at, "TRAILER!!!") == 0)
		return 0;
	f->name = a + name_at;
	f->data = a + data_at;
	f->size = filesize;
	*pos = align4(data_at + filesize);
	return 1;
}

/*
 * A hard link's data: cpio(1) writes the file's bytes once, with the last
 * of its names; the others come earlier with size 0 and the same inode.
 */
static void find_link_data(const void *archive, size_t len, size_t pos, struct cpio_file *f)
{
	struct cpio_file g;
	const char *err;

	while (cpio_next(archive, len, &pos, &g, &err) == 1) {
		if (g.ino == f->ino && g.size) {
			f->data = g.data;
			f->size = g.size;
			return;
		}
	}
}

int cpio_find(const void *archive, size_t len, const char *name, struct cpio_file *f)
{
	size_t pos = 0;
	const char *err;

	while (cpio_next(archive, len, &pos, f, &err) == 1) {
		if (strcmp(f->name, name) == 0) {
			if (!f->size && f->nlink > 1)
				find_link_data(archive, len, pos, f);
			return 0;
		}
	}
	return -1;
}
