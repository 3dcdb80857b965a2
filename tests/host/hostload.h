/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hostload.h - the module loader's pure pipeline, run on the host:
 * validate, lay out, copy and relocate a module file into plain buffers
 * for the run-time addresses a kernel would use. Shared by the host tests
 * and the fuzz target (which #include the modload .c files first).
 */
#ifndef RONX_HOSTLOAD_H
#define RONX_HOSTLOAD_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_file.h"

#define HOST_CORE_ADDR	0xf8000000u
#define HOST_INIT_ADDR	0xf9000000u

struct host_module {
	void *file;			/* 4-byte aligned copy of the file */
	struct elf_image img;
	struct mod_layout lay;
	uint32_t *place;
	struct mod_dest dest;
	char err[160];
};

/* The kernel's exports, as far as the sample modules need them. */
static const struct { const char *name; uint32_t addr; } host_exports[] = {
	{ "printk", 0xc0101230 },
	{ "provider_add", 0xf8400010 },
	{ "provider_calls", 0xf8401000 },
};

static bool host_lookup(void *ctx, const char *name, uint32_t *addr)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(host_exports) / sizeof(host_exports[0]); i++) {
		if (strcmp(host_exports[i].name, name) == 0) {
			*addr = host_exports[i].addr;
			return true;
		}
	}
	return false;
}

static void host_unload(struct host_module *m)
{
	free(m->file);
	free(m->place);
	free(m->dest.core_buf);
	free(m->dest.init_buf);
	memset(m, 0, sizeof(*m));
}

/* Run the pipeline up to MAX_REGION bytes per region; 0 or -1 with m->err. */
static int host_load(struct host_module *m, const void *data, size_t size, bool ronx,
		     sym_lookup_fn lookup, uint32_t max_region)
{
	struct errmsg e = { m->err, sizeof(m->err) };

	memset(m, 0, sizeof(*m));
	m->file = malloc(size ? size : 1);	/* malloc is aligned enough */
	memcpy(m->file, data, size);
	if (elf_check(&m->img, m->file, size, &e))
		return -1;
	m->place = calloc(m->img.shnum, sizeof(*m->place));
	if (layout_sections(&m->img, ronx, m->place, &m->lay, &e))
		return -1;
	if (m->lay.core.size > max_region || m->lay.init.size > max_region)
		return errf(&e, "region too large for this host run");
	m->dest.core_buf = calloc(1, m->lay.core.size + 1);
	m->dest.init_buf = calloc(1, m->lay.init.size + 1);
	m->dest.core_addr = HOST_CORE_ADDR;
	m->dest.init_addr = HOST_INIT_ADDR;
	if (resolve_symbols(&m->img, lookup, NULL, &e))
		return -1;
	copy_sections(&m->img, m->place, &m->dest);
	return apply_relocations(&m->img, m->place, &m->dest, lookup, NULL, &e);
}

/* host_load() build/modules/NAME.ko; prints the error if it is refused. */
static int host_load_sample(struct host_module *m, const char *name, bool ronx)
{
	char path[128];
	size_t size;
	void *data;
	int ret;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "build/modules/%s.ko", name);
	data = host_read_file(path, &size);
	if (!data)
		return -1;
	ret = host_load(m, data, size, ronx, host_lookup, 1u << 24);
	if (ret)
		printf("# %s: %s\n", name, m->err);
	free(data);
	return ret;
}
#endif
