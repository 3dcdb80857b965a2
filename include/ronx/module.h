/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's view of a loaded module (Linux: struct module, much reduced). */
#ifndef RONX_KMODULE_H
#define RONX_KMODULE_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/export.h>

#define MODULE_NAME_LEN	32
#define MAX_MODULES	16
#define MAX_MODULE_USES	8

enum module_state { MODULE_STATE_UNUSED, MODULE_STATE_COMING, MODULE_STATE_LIVE, MODULE_STATE_GOING };

struct module {
	enum module_state state;
	char name[MODULE_NAME_LEN];
	char args[64];
	char license[32], description[96], author[64];

	/* seed 003's sizes: text, text + read-only data, whole region */
	void *module_core;
	unsigned int core_size, core_text_size, core_ro_size, core_ro_after_init_size;
	void *module_init;
	unsigned int init_size, init_text_size, init_ro_size, init_ro_after_init_size;

	int (*init)(void);
	void (*exit)(void);

	/* its exports, sorted, in its own (read-only) memory */
	const struct kernel_symbol *syms, *syms_end;
	/* modules whose symbols it uses, and how many use it */
	struct module *uses[MAX_MODULE_USES];
	int nr_uses, refcount;
	/* the init region's text and data pages as they were while init ran */
	uint64_t init_text_pte, init_data_pte;
	/* where the init region was: tests check it is gone, a crash demo runs it */
	unsigned long freed_init, freed_init_size;
};

extern struct module modules[MAX_MODULES];
extern bool module_ronx, module_align;

struct module *find_module(const char *name);
int load_module(const char *name, const void *data, unsigned long size, const char *args,
		char *err, unsigned long errlen);
int unload_module(const char *name, char *err, unsigned long errlen);
const struct kernel_symbol *find_symbol(const char *name, struct module **owner);
void sort_kernel_exports(void);
int insmod(const char *name, const char *args);
void module_autoload(void);
bool module_address_name(unsigned long addr, char *buf, unsigned long size);

/* modload/module_ronx.c: seed 003's protections */
void set_section_ro_nx(void *base, unsigned long text_size, unsigned long ro_size,
		       unsigned long total_size);
void unset_section_ro_nx(struct module *mod, void *module_region);
void set_ro_after_init(struct module *mod);
void set_all_modules_text_rw(void);
void set_all_modules_text_ro(void);
void module_mutex_lock(void);
void module_mutex_unlock(void);

/* modload/text_patch.c */
int text_poke(void *addr, const void *bytes, unsigned long len, unsigned long *wx_seen);
void text_poke_write(void *dst, const void *src, unsigned long n);
#endif
