// SPDX-License-Identifier: GPL-2.0-only
/* kernel/cpio.c against archives made by the real cpio(1), and broken ones. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "../../kernel/cpio.c"

static char archive[8192];
static size_t archive_len;

static void make_archive(void)
{
	FILE *p = popen("d=$(mktemp -d) && cd $d && printf hello > a.ko && "
			"printf 'a\\nb\\n' > autoload && printf '' > empty && "
			"ls | cpio -o -H newc --quiet; rm -rf $d", "r");
	archive_len = fread(archive, 1, sizeof(archive), p);
	pclose(p);
}

TEST(walks_real_archive)
{
	struct cpio_file f;
	size_t pos = 0;
	const char *err = 0;
	int n = 0;

	while (cpio_next(archive, archive_len, &pos, &f, &err) == 1)
		n++;
	CHECK_EQ(n, 3);
	CHECK(err == 0);
	CHECK_EQ(cpio_find(archive, archive_len, "a.ko", &f), 0);
	CHECK(f.size == 5 && memcmp(f.data, "hello", 5) == 0);
	CHECK_EQ(cpio_find(archive, archive_len, "empty", &f), 0);
	CHECK_EQ(f.size, 0);
	CHECK_EQ(cpio_find(archive, archive_len, "nope", &f), -1);
}

/* Two names of one file: cpio(1) stores the bytes with the last name only. */
TEST(hard_links_share_the_bytes)
{
	static char hl[4096];
	struct cpio_file f;
	FILE *p = popen("d=$(mktemp -d) && cd $d && mkdir bin && printf program > bin/multi && "
			"ln bin/multi bin/one && ln bin/multi bin/two && printf x > bin/z && "
			"find . -mindepth 1 -type f -printf '%P\\n' | LC_ALL=C sort | "
			"cpio -o -H newc --quiet; rm -rf $d", "r");
	size_t n = fread(hl, 1, sizeof(hl), p);

	pclose(p);
	for (const char *name = "bin/multi"; name; name = !strcmp(name, "bin/multi") ? "bin/one" :
	     !strcmp(name, "bin/one") ? "bin/two" : 0) {
		CHECK_EQ(cpio_find(hl, n, name, &f), 0);
		CHECK(f.size == 7 && memcmp(f.data, "program", 7) == 0 && !strcmp(f.name, name));
	}
	CHECK_EQ(cpio_find(hl, n, "bin/z", &f), 0);
	CHECK(f.size == 1 && f.nlink == 1);
}

TEST(every_truncation_is_refused_or_clean)
{
	/* any prefix parses without reading past its end (ASan watches the
	 * reads); every file it yields lies inside the prefix; and once a
	 * prefix holds the whole trailer entry, every longer one ends cleanly
	 * (cpio pads the archive to 512 bytes after the trailer) */
	size_t clean_from = 0;
	for (size_t len = 0; len < archive_len; len++) {
		char *copy = malloc(len ? len : 1);
		struct cpio_file f;
		size_t pos = 0;
		const char *err;
		int r;

		memcpy(copy, archive, len);
		while ((r = cpio_next(copy, len, &pos, &f, &err)) == 1)
			CHECK((const char *)f.data + f.size <= copy + len);
		if (r == 0 && !clean_from)
			clean_from = len;
		CHECK_EQ(r, clean_from ? 0 : -1);
		free(copy);
	}
	CHECK(clean_from > 120 && clean_from <= archive_len);
}

TEST(bad_magic_and_sizes)
{
	struct cpio_file f;
	size_t pos = 0;
	const char *err = 0;
	char copy[8192];

	memcpy(copy, archive, archive_len);
	copy[0] = 'X';
	CHECK_EQ(cpio_next(copy, archive_len, &pos, &f, &err), -1);
	CHECK(err && strstr(err, "magic"));
	memcpy(copy, archive, archive_len);
	memcpy(copy + 6 + 6 * 8, "7fffffff", 8);	/* file size far past the end */
	CHECK_EQ(cpio_next(copy, archive_len, &pos, &f, &err), -1);
	CHECK(err && strstr(err, "data runs past"));
}

int main(void)
{
	make_archive();
	RUN(walks_real_archive);
	RUN(hard_links_share_the_bytes);
	RUN(every_truncation_is_refused_or_clean);
	RUN(bad_magic_and_sizes);
	return check_done();
}
