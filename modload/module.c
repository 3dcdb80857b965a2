// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading and unloading modules (Linux: kernel/module.c, load_module() and
 * free_module(), as seed 003 left them). The file is untrusted: the pure
 * steps (elf_check, layout_sections, resolve_symbols) run before any
 * memory is taken, and every later failure gives back all it took.
 *
 *   check -> lay out -> resolve -> allocate -> copy -> relocate ->
 *   sort exports -> set_section_ro_nx -> init() -> ro_after_init RO ->
 *   free the init region (RW+NX first)
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/recovery.h>
#include <ronx/module_alloc.h>
#include <ronx/mm.h>
#include <ronx/module.h>
#include "elf_check.h"
#include "layout.h"
#include "reloc.h"
#include "symtab.h"

struct module modules[MAX_MODULES];
bool module_ronx = true;	/* seed 003's CONFIG_DEBUG_SET_MODULE_RONX */
bool module_align = true;	/* its debug_align() */

extern struct kernel_symbol __start___ksymtab[], __stop___ksymtab[];

static int __init parse_module_ronx(const char *val)
{
	if (val && strcmp(val, "on") == 0)
		module_ronx = module_align = true;
	else if (val && strcmp(val, "off") == 0)
		module_ronx = module_align = false;
	else if (val && strcmp(val, "noalign") == 0)
		module_ronx = true, module_align = false;
	else
		return -EINVAL;
	return 0;
}
BOOT_PARAM("module_ronx", parse_module_ronx, "on|off|noalign");

/* Once, at boot, while __ksymtab (in ro_after_init) is still writable. */
void __init sort_kernel_exports(void)
{
	const struct kernel_symbol *dup;

	sort_symbols(__start___ksymtab, __stop___ksymtab);
	dup = find_duplicate_symbol(__start___ksymtab, __stop___ksymtab);
	if (dup)
		pr_err("module: the kernel exports %s twice\n", dup->name);
}

struct module *find_module(const char *name)
{
	for (struct module *m = modules; m < modules + MAX_MODULES; m++)
		if (m->state != MODULE_STATE_UNUSED && strcmp(m->name, name) == 0)
			return m;
	return 0;
}

/* The kernel's exports first, then each live module's: all by bisection. */
const struct kernel_symbol *find_symbol(const char *name, struct module **owner)
{
	const struct kernel_symbol *s = lookup_symbol(__start___ksymtab, __stop___ksymtab, name);

	*owner = 0;
	if (s)
		return s;
	for (struct module *m = modules; m < modules + MAX_MODULES; m++) {
		if (m->state != MODULE_STATE_LIVE || !m->syms)
			continue;
		s = lookup_symbol(m->syms, m->syms_end, name);
		if (s) {
			*owner = m;
			return s;
		}
	}
	return 0;
}

/* What a load has in hand, so that any failure can give it all back. */
struct load_info {
	struct module *mod;
	struct elf_image img;
	struct mod_layout lay;
	uint32_t *place;
	struct mod_dest dest;
	struct errmsg e;
};

static void add_use(struct module *mod, struct module *owner)
{
	for (int i = 0; i < mod->nr_uses; i++)
		if (mod->uses[i] == owner)
			return;
	if (mod->nr_uses < MAX_MODULE_USES) {
		mod->uses[mod->nr_uses++] = owner;
		owner->refcount++;
	}
}

static bool resolve(void *ctx, const char *name, uint32_t *addr)
{
	struct load_info *info = ctx;
	struct module *owner;
	const struct kernel_symbol *s = find_symbol(name, &owner);

	if (!s)
		return false;
	if (owner && info)
		add_use(info->mod, owner);
	*addr = (uint32_t)s->value;
	return true;
}

static void copy_modinfo(struct module *mod, const struct elf_image *img)
{
	static const struct { const char *key; unsigned off, size; } keys[] = {
		{ "license", __builtin_offsetof(struct module, license), sizeof(mod->license) },
		{ "description", __builtin_offsetof(struct module, description),
		  sizeof(mod->description) },
		{ "author", __builtin_offsetof(struct module, author), sizeof(mod->author) },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = elf_modinfo(img, keys[i].key);
		snprintf((char *)mod + keys[i].off, keys[i].size, "%s", v ? v : "");
	}
}

static const char *module_name(const struct elf_image *img, const char *file)
{
	const char *n = elf_modinfo(img, "name");

	return n ? n : file;
}

static struct module *new_module(const char *name, const char *args)
{
	for (struct module *m = modules; m < modules + MAX_MODULES; m++) {
		if (m->state == MODULE_STATE_UNUSED) {
			memset(m, 0, sizeof(*m));
			m->state = MODULE_STATE_COMING;
			snprintf(m->name, sizeof(m->name), "%s", name);
			snprintf(m->args, sizeof(m->args), "%s", args ? args : "");
			return m;
		}
	}
	return 0;
}

static void release_uses(struct module *mod)
{
	for (int i = 0; i < mod->nr_uses; i++)
		mod->uses[i]->refcount--;
	mod->nr_uses = 0;
}

/* Undo a load at any point: the regions go back RW+NX, then to the allocator. */
static void free_module(struct module *mod)
{
	release_uses(mod);
	if (mod->module_init) {
		unset_section_ro_nx(mod, mod->module_init);
		module_memfree(mod->module_init, mod->init_size);
	}
	if (mod->module_core) {
		unset_section_ro_nx(mod, mod->module_core);
		module_memfree(mod->module_core, mod->core_size);
	}
	memset(mod, 0, sizeof(*mod));
}

static int allocate_regions(struct load_info *info)
{
	struct module *mod = info->mod;
	bool exec = !module_ronx;	/* before seed 003: module memory RW+X */

	mod->core_size = info->lay.core.size;
	mod->core_text_size = info->lay.core.text_size;
	mod->core_ro_size = info->lay.core.ro_size;
	mod->core_ro_after_init_size = info->lay.core.ro_after_init_size;
	mod->init_size = info->lay.init.size;
	mod->init_text_size = info->lay.init.text_size;
	mod->init_ro_size = info->lay.init.ro_size;
	mod->init_ro_after_init_size = info->lay.init.ro_after_init_size;
	if (!module_align)
		exec = true;	/* without alignment text shares pages with data */
	mod->module_core = module_alloc(mod->core_size, exec);
	if (mod->core_size && !mod->module_core)
		return errf(&info->e, "out of memory for the core region (%u bytes)", mod->core_size);
	mod->module_init = module_alloc(mod->init_size, exec);
	if (mod->init_size && !mod->module_init)
		return errf(&info->e, "out of memory for the init region (%u bytes)", mod->init_size);
	info->dest = (struct mod_dest){ mod->module_core, mod->module_init,
					(uint32_t)(unsigned long)mod->module_core,
					(uint32_t)(unsigned long)mod->module_init };
	return 0;
}

/* The module's own exports: sorted now, before its read-only data is sealed. */
static int find_exports(struct load_info *info)
{
	struct module *mod = info->mod, *owner;
	unsigned int i = elf_find_section(&info->img, "__ksymtab");
	struct kernel_symbol *start, *end;

	if (!i || info->place[i] == SEC_NOT_LOADED)
		return 0;
	start = (struct kernel_symbol *)section_buffer(info->place, &info->dest, i);
	end = start + info->img.shdrs[i].sh_size / sizeof(*start);
	sort_symbols(start, end);
	for (struct kernel_symbol *s = start; s < end; s++)
		if (find_symbol(s->name, &owner))
			return errf(&info->e, "exports %s, which %s already exports", s->name,
				    owner ? owner->name : "the kernel");
	mod->syms = start;
	mod->syms_end = end;
	return 0;
}

static int symbol_value(struct load_info *info, unsigned int sym, void **out)
{
	uint32_t addr;

	if (symbol_address(&info->img, info->place, &info->dest, sym, resolve, info, &addr,
			   &info->e))
		return -1;
	*out = (void *)(unsigned long)addr;
	return 0;
}

static int prepare(struct load_info *info, const void *data, unsigned long size)
{
	unsigned long place;

	if (elf_check(&info->img, data, size, &info->e))
		return -1;
	/* one page holds place[]: elf_check() allows at most 1024 sections */
	place = alloc_page();
	if (!place)
		return errf(&info->e, "out of memory");
	info->place = __va(place);
	if (layout_sections(&info->img, module_align, info->place, &info->lay, &info->e))
		return -1;
	return resolve_symbols(&info->img, resolve, 0, &info->e);
}

static int place_module(struct load_info *info)
{
	void *init_fn, *exit_fn = 0;

	if (allocate_regions(info))
		return -1;
	copy_sections(&info->img, info->place, &info->dest);
	if (apply_relocations(&info->img, info->place, &info->dest, resolve, info, &info->e))
		return -1;
	if (find_exports(info))
		return -1;
	if (symbol_value(info, info->img.init_sym, &init_fn))
		return -1;
	if (info->img.exit_sym && symbol_value(info, info->img.exit_sym, &exit_fn))
		return -1;
	info->mod->init = (int (*)(void))init_fn;
	info->mod->exit = (void (*)(void))exit_fn;
	return 0;
}

/* What the page tables say about the init region while init runs (for lsmod). */
static void record_init_flags(struct module *mod)
{
	unsigned long base = (unsigned long)mod->module_init;
	enum pg_level level;
	pteval_t *pte;

	if (!base)
		return;
	pte = lookup_address(base, &level);
	mod->init_text_pte = pte && mod->init_text_size ? *pte : 0;
	pte = lookup_address(base + mod->init_ro_after_init_size, &level);
	mod->init_data_pte = pte && mod->init_size > mod->init_ro_after_init_size ? *pte : 0;
}

/* Runs init under a loud recovery: an oops in it unwinds the load. */
static int do_init(struct module *mod, struct errmsg *e)
{
	struct recovery r;
	int ret;

	if (catch_faults(&r, false))
		return errf(e, "init_module oopsed; the load is undone");
	ret = mod->init();
	recovery_pop(&r);
	if (ret)
		return errf(e, "init_module returned %s%u; the load is undone",
			    ret < 0 ? "-" : "", (unsigned)(ret < 0 ? -ret : ret));
	return 0;
}

/*
 * After a successful init (seed 003, sys_init_module): seal ro_after_init,
 * then set the init region back to RW+NX and free it.
 */
static void finish_init(struct module *mod)
{
	set_ro_after_init(mod);
	if (mod->module_init) {
		unset_section_ro_nx(mod, mod->module_init);
		module_memfree(mod->module_init, mod->init_size);
	}
}

/* The init region is gone: keep where it was (lsmod, tests), drop its sizes. */
static void forget_init_region(struct module *mod)
{
	if (!mod->module_init)
		return;
	mod->freed_init = (unsigned long)mod->module_init;
	mod->freed_init_size = mod->init_size;
	mod->module_init = 0;
	mod->init_size = mod->init_text_size = mod->init_ro_size = 0;
	mod->init_ro_after_init_size = 0;
}

int load_module(const char *file, const void *data, unsigned long size, const char *args,
		char *err, unsigned long errlen)
{
	struct load_info info = { .e = { err, errlen } };
	const char *name;
	int ret = -1;

	err[0] = '\0';
	module_mutex_lock();
	if (prepare(&info, data, size))
		goto out;
	name = module_name(&info.img, file);
	if (find_module(name)) {
		errf(&info.e, "module %s already loaded", name);
		goto out;
	}
	info.mod = new_module(name, args);
	if (!info.mod) {
		errf(&info.e, "too many modules (at most %u)", MAX_MODULES);
		goto out;
	}
	copy_modinfo(info.mod, &info.img);
	if (place_module(&info)) {
		free_module(info.mod);
		goto out;
	}
	/* Set RO and NX regions for core and init (seed 003) */
	set_section_ro_nx(info.mod->module_core, info.mod->core_text_size,
			  info.mod->core_ro_size, info.mod->core_size);
	set_section_ro_nx(info.mod->module_init, info.mod->init_text_size,
			  info.mod->init_ro_size, info.mod->init_size);
	record_init_flags(info.mod);
	/* init runs without the lock, as in Linux: it may call anything */
	module_mutex_unlock();
	ret = do_init(info.mod, &info.e);
	module_mutex_lock();
	if (ret) {
		ret = -1;
		free_module(info.mod);
		goto out;
	}
	finish_init(info.mod);
	forget_init_region(info.mod);
	info.mod->state = MODULE_STATE_LIVE;
	ret = 0;
out:
	if (info.place)
		free_page(__pa(info.place));
	module_mutex_unlock();
	return ret;
}

static int __unload_module(const char *name, char *err, unsigned long errlen)
{
	struct module *mod = find_module(name);
	struct errmsg e = { err, errlen };

	if (!mod || mod->state != MODULE_STATE_LIVE)
		return errf(&e, "module %s is not loaded", name);
	if (mod->refcount) {
		char users[96] = "";
		for (struct module *m = modules; m < modules + MAX_MODULES; m++)
			for (int i = 0; m->state == MODULE_STATE_LIVE && i < m->nr_uses; i++)
				if (m->uses[i] == mod)
					snprintf(users + strlen(users), sizeof(users) - strlen(users),
						 "%s%s", users[0] ? " " : "", m->name);
		return errf(&e, "module %s is in use by: %s", name, users);
	}
	if (!mod->exit)
		return errf(&e, "module %s has no module_exit(), so it cannot be unloaded", name);
	mod->state = MODULE_STATE_GOING;
	module_mutex_unlock();
	mod->exit();
	module_mutex_lock();
	free_module(mod);
	return 0;
}

int unload_module(const char *name, char *err, unsigned long errlen)
{
	int ret;

	module_mutex_lock();
	ret = __unload_module(name, err, errlen);
	module_mutex_unlock();
	return ret;
}
