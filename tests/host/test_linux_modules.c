// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_linux_modules.c - the loader's pure pipeline over Debian's real
 * i386 (686-pae) Linux modules, when linux/ has fetched them into
 * $RONX_LINUX_CACHE (default ~/.cache/ronx/linux)/root/lib/modules.
 *
 * Every module must validate, lay out and relocate (symbols resolved to a
 * dummy address), except those with no init_module: Linux allows a module
 * without init, ronx does not (docs/modules.md). Skipped if absent.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <glob.h>
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "check.h"
#include "hostload.h"

static unsigned int seen, loaded, no_init, other;

static bool any_symbol(void *ctx, const char *name, uint32_t *addr)
{
	(void)ctx, (void)name;
	*addr = 0xc1000000u;
	return true;
}

static int one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t len = strlen(path), size;
	struct host_module m;
	void *data;

	(void)st, (void)ftw;
	if (type != FTW_F || len < 3 || strcmp(path + len - 3, ".ko") != 0)
		return 0;
	data = host_read_file(path, &size);
	if (!data)
		return 0;
	seen++;
	if (host_load(&m, data, size, true, any_symbol, 1u << 26) == 0)
		loaded++;
	else if (strstr(m.err, "no init_module symbol"))
		no_init++;
	else if (other++ < 10)
		printf("# %s: %s\n", path, m.err);
	host_unload(&m);
	free(data);
	return 0;
}

static char dir[512];

TEST(debian_686_pae_modules)
{
	nftw(dir, one, 16, FTW_PHYS);
	printf("# %u modules: %u loaded, %u without init_module, %u refused otherwise\n",
	       seen, loaded, no_init, other);
	CHECK(seen > 0);
	CHECK_EQ(other, 0);
}

int main(void)
{
	const char *cache = getenv("RONX_LINUX_CACHE");
	char pattern[sizeof(dir)];
	struct stat st;
	glob_t g;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* linux/fetch.sh unpacks into root-<package version>/ */
	if (cache)
		snprintf(pattern, sizeof(pattern), "%s/root*/lib/modules", cache);
	else
		snprintf(pattern, sizeof(pattern), "%s/.cache/ronx/linux/root*/lib/modules",
			 getenv("HOME") ? getenv("HOME") : "");
	snprintf(dir, sizeof(dir), "%s", pattern);
	if (glob(pattern, 0, NULL, &g) == 0) {
		snprintf(dir, sizeof(dir), "%s", g.gl_pathv[g.gl_pathc - 1]);
		globfree(&g);
	}
	if (stat(dir, &st) != 0) {
		printf("KTAP version 1\nok 1 debian_686_pae_modules # SKIP no %s\n1..1\n", dir);
		return 0;
	}
	RUN(debian_686_pae_modules);
	return check_done();
}
