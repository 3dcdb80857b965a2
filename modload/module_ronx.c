// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seed 003: RO/NX for module memory.
 *
 *   set_section_ro_nx()    at the end of a load: text RO+X, read-only data
 *                          RO+NX, the rest RW+NX
 *   unset_section_ro_nx()  before a region is freed: back to RW+NX
 *   set_all_modules_text_rw()/_ro()  a W+X window for code patching
 *
 * The page arithmetic (which pages, with the seed's partial-page rules) is
 * pure and host-tested: section_ro_nx_ranges() in modload/layout.c. One
 * difference from 2011: ronx maps module memory RW+NX from the start (Linux's
 * module_alloc gave RW+X), so after making the text read-only we make it
 * executable, instead of making everything after the text NX.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pageattr.h>
#include <ronx/spinlock.h>
#include <ronx/module.h>
#include "layout.h"

/*
 * module_mutex (Linux's name; a spinlock here, ronx never sleeps in the
 * kernel): the module list and every module's protections change under
 * it. Taking it twice on one CPU is a bug, reported, not a hang.
 */
static DEFINE_SPINLOCK(module_mutex);
static int module_mutex_depth;

void module_mutex_lock(void)
{
	if (spin_is_locked_by_me(&module_mutex)) {
		pr_err("module: module_mutex taken twice\n");
		module_mutex_depth++;
		return;
	}
	spin_lock(&module_mutex);
	module_mutex_depth = 1;
}

void module_mutex_unlock(void)
{
	if (--module_mutex_depth == 0)
		spin_unlock(&module_mutex);
}

static void apply(const struct page_range *r, int (*set)(unsigned long, int))
{
	if (r->pages)
		set(r->start, (int)r->pages);
}

void set_section_ro_nx(void *base, unsigned long text_size, unsigned long ro_size,
		       unsigned long total_size)
{
	struct mod_region region = { text_size, ro_size, ro_size, total_size };
	struct ronx_ranges r;

	if (!base || !module_ronx)
		return;
	section_ro_nx_ranges((uint32_t)(unsigned long)base, &region, &r);
	/* RO for text and read-only data: never a last partial page */
	apply(&r.ro, set_memory_ro);
	/* NX for the data: never a first partial page, always the last */
	apply(&r.nx, set_memory_nx);
	/* the whole text pages, now read-only, may execute */
	apply(&r.text, set_memory_x);
}

static void region_sizes(struct module *mod, void *region, struct mod_region *out)
{
	if (region == mod->module_core)
		*out = (struct mod_region){ mod->core_text_size, mod->core_ro_size,
					    mod->core_ro_after_init_size, mod->core_size };
	else
		*out = (struct mod_region){ mod->init_text_size, mod->init_ro_size,
					    mod->init_ro_after_init_size, mod->init_size };
}

/* Setting memory back to RW+NX before releasing it (seed 003). */
void unset_section_ro_nx(struct module *mod, void *module_region)
{
	struct mod_region region;
	struct ronx_ranges r;

	if (!module_region)
		return;
	region_sizes(mod, module_region, &region);
	section_ro_nx_ranges((uint32_t)(unsigned long)module_region, &region, &r);
	/* NX first, then RW: never a W+X moment */
	apply(&r.all, set_memory_nx);
	apply(&r.all, set_memory_rw);
}

/* __ro_after_init data is writable while init runs, read-only after. */
void set_ro_after_init(struct module *mod)
{
	struct mod_region region;
	struct ronx_ranges r;

	if (!module_ronx)
		return;
	region_sizes(mod, mod->module_core, &region);
	section_ro_nx_ranges((uint32_t)(unsigned long)mod->module_core, &region, &r);
	apply(&r.ro_after_init, set_memory_ro);
}

static void set_text(int (*set)(unsigned long, int))
{
	for (struct module *mod = modules; mod < modules + MAX_MODULES; mod++) {
		struct mod_region region;
		struct ronx_ranges r;

		if (mod->state == MODULE_STATE_UNUSED || !mod->module_core || !mod->core_text_size)
			continue;
		region_sizes(mod, mod->module_core, &region);
		section_ro_nx_ranges((uint32_t)(unsigned long)mod->module_core, &region, &r);
		apply(&r.text, set);
	}
}

/*
 * Iterate through all modules and make their text writable (seed 003, for
 * ftrace). The text stays executable: this is a W+X window, on purpose,
 * and the CPA layer is told so; wxcheck run inside the window shows it.
 */
void set_all_modules_text_rw(void)
{
	module_mutex_lock();
	set_text(set_memory_rw_allow_wx);
	module_mutex_unlock();
}

void set_all_modules_text_ro(void)
{
	module_mutex_lock();
	set_text(set_memory_ro);
	module_mutex_unlock();
}
