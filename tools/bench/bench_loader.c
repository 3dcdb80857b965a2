// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loader's pure core on the host, for make bench (run under callgrind,
 * which counts instructions, so the figures repeat exactly).
 *
 *   bench_loader load FILE N         validate, lay out, relocate FILE N times
 *   bench_loader lookup EXPORTS N    N lookups in a sorted table of EXPORTS
 *   bench_loader sizes FILE...       core/init sizes with alignment on and off
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "../../modload/symtab.c"
#include "../../tests/host/hostload.h"

static bool any_symbol(void *ctx, const char *name, uint32_t *addr)
{
	(void)ctx, (void)name;
	*addr = 0xc0100000u;
	return true;
}

static int bench_load(const char *path, int n)
{
	size_t size;
	void *data = host_read_file(path, &size);
	struct host_module m;

	if (!data)
		return 1;
	for (int i = 0; i < n; i++) {
		if (host_load(&m, data, size, true, any_symbol, 1u << 26)) {
			fprintf(stderr, "%s: %s\n", path, m.err);
			return 1;
		}
		host_unload(&m);
	}
	free(data);
	return 0;
}

static int bench_lookup(int exports, int n)
{
	struct kernel_symbol *tab = calloc(exports, sizeof(*tab));
	char (*names)[16] = calloc(exports, 16);
	unsigned long found = 0;

	for (int i = 0; i < exports; i++) {
		snprintf(names[i], 16, "sym_%07d", (i * 7919) % exports);
		tab[i] = (struct kernel_symbol){ (unsigned long)i, names[i] };
	}
	sort_symbols(tab, tab + exports);
	for (int i = 0; i < n; i++)
		found += lookup_symbol(tab, tab + exports, names[i % exports]) != NULL;
	printf("%lu found\n", found);
	free(tab);
	free(names);
	return 0;
}

/*
 * What alignment must cost at the least: the bytes of each group's sections
 * (placed by the aligned layout), each non-empty group rounded up to a page.
 */
static uint32_t minimum(const struct host_module *m, bool init)
{
	const struct mod_region *r = init ? &m->lay.init : &m->lay.core;
	uint32_t bytes[4] = { 0 }, total = 0;

	for (unsigned int i = 1; i < m->img.shnum; i++) {
		uint32_t p = m->place[i];

		if (p == SEC_NOT_LOADED || !!(p & INIT_OFFSET_MASK) != init)
			continue;
		p &= ~INIT_OFFSET_MASK;
		bytes[p < r->text_size ? 0 : p < r->ro_size ? 1 :
		      p < r->ro_after_init_size ? 2 : 3] += m->img.shdrs[i].sh_size;
	}
	for (int g = 0; g < 4; g++)
		total += (bytes[g] + 4095) / 4096 * 4096;
	return total;
}

static int sizes(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct host_module on, off;
		size_t size;
		void *data = host_read_file(argv[i], &size);

		if (!data || host_load(&on, data, size, true, any_symbol, 1u << 26) ||
		    host_load(&off, data, size, false, any_symbol, 1u << 26))
			return 1;
		printf("%s core %u %u %u init %u %u %u\n", argv[i], on.lay.core.size,
		       off.lay.core.size, minimum(&on, false), on.lay.init.size,
		       off.lay.init.size, minimum(&on, true));
		host_unload(&on);
		host_unload(&off);
		free(data);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "load") == 0)
		return bench_load(argv[2], atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "lookup") == 0)
		return bench_lookup(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "sizes") == 0)
		return sizes(argc - 2, argv + 2);
	fprintf(stderr, "usage: bench_loader load FILE N | lookup EXPORTS N | sizes FILE...\n");
	return 2;
}
