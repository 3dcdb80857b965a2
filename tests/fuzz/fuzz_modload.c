// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_modload.c - libFuzzer target over the loader's pure pipeline:
 * elf_check(), layout_sections() (with and without module RO/NX), copy,
 * symbol resolution and relocation into host buffers, then the page
 * ranges. Any input may be refused; none may crash or read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "../host/hostload.h"

/* Exercise the kernel-side helpers on an image that loaded. */
static void after_load(struct host_module *m)
{
	struct ronx_ranges r;
	uint32_t addr;
	char err[80];
	struct errmsg e = { err, sizeof(err) };

	section_ro_nx_ranges(m->dest.core_addr, &m->lay.core, &r);
	section_ro_nx_ranges(m->dest.init_addr, &m->lay.init, &r);
	symbol_address(&m->img, m->place, &m->dest, m->img.init_sym, host_lookup, NULL, &addr, &e);
	elf_modinfo(&m->img, "name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_module m;
	int ronx;

	for (ronx = 0; ronx < 2; ronx++) {
		if (host_load(&m, data, size, ronx, host_lookup, 1u << 20) == 0)
			after_load(&m);
		host_unload(&m);
	}
	return 0;
}
