// SPDX-License-Identifier: GPL-2.0-only
/*
 * insmod, rmmod, lsmod, modinfo, and loading the initrd's "autoload" list
 * at boot. Module files come from the initrd.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/initrd.h>
#include <ronx/shell.h>
#include <ronx/module.h>
#include <ronx/pgtable_types.h>

static bool autoload = true;

static int __init parse_autoload(const char *val)
{
	return parse_on_off(val, &autoload);
}
BOOT_PARAM("autoload", parse_autoload, "on|off");

/* NAME, or NAME.ko, in the initrd. */
static int find_module_file(const char *name, struct cpio_file *f, char *file, size_t size)
{
	snprintf(file, size, "%s", name);
	if (initrd_find(file, f) == 0)
		return 0;
	snprintf(file, size, "%s.ko", name);
	return initrd_find(file, f);
}

int insmod(const char *name, const char *args)
{
	char file[64], err[160];
	struct cpio_file f;

	if (find_module_file(name, &f, file, sizeof(file))) {
		pr_err("insmod: %s: no such file in the initrd (try 'ls')\n", name);
		return -ENOENT;
	}
	if (load_module(name, f.data, f.size, args, err, sizeof(err))) {
		pr_err("insmod: %s: %s\n", file, err);
		return -EINVAL;
	}
	return 0;
}

static int cmd_insmod(int argc, char **argv)
{
	char args[64] = "";

	if (argc < 2) {
		cprintf("usage: insmod NAME [ARGS...]\n");
		return -EINVAL;
	}
	for (int i = 2; i < argc; i++)
		snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s%s",
			 i > 2 ? " " : "", argv[i]);
	return insmod(argv[1], args);
}
SHELL_COMMAND("insmod", cmd_insmod, "insmod NAME [ARGS]",
	      "load a module from the initrd (ARGS are kept, shown by modinfo)");

static int cmd_rmmod(int argc, char **argv)
{
	char err[160];

	if (argc != 2) {
		cprintf("usage: rmmod NAME\n");
		return -EINVAL;
	}
	if (unload_module(argv[1], err, sizeof(err))) {
		pr_err("rmmod: %s\n", err);
		return -EBUSY;
	}
	return 0;
}
SHELL_COMMAND("rmmod", cmd_rmmod, "rmmod NAME", "unload a module");

static void print_region(const struct module *m, const char *which, unsigned long base,
			 unsigned text, unsigned ro, unsigned roai, unsigned size)
{
	/* one line per region, the format tools/memmap.py reads */
	cprintf("%s %s text 0x%08lx %u ro 0x%08lx %u ro_after_init 0x%08lx %u rw 0x%08lx %u\n",
		m->name, which, base, text, base + text, ro - text, base + ro, roai - ro,
		base + roai, size - roai);
}

static const char *perm(uint64_t pte)
{
	static const char *const names[] = { "RO+X", "RW+X", "RO+NX", "RW+NX" };

	if (!(pte & _PAGE_PRESENT))
		return "none";
	return names[!!(pte & _PAGE_RW) + 2 * !!(pte & _PAGE_NX)];
}

static int cmd_lsmod(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cprintf("Module                  Size  Used by\n");
	for (struct module *m = modules; m < modules + MAX_MODULES; m++) {
		if (m->state != MODULE_STATE_LIVE)
			continue;
		cprintf("%-20s %7u  %d", m->name, m->core_size + m->init_size, m->refcount);
		for (struct module *u = modules; u < modules + MAX_MODULES; u++)
			for (int i = 0; u->state == MODULE_STATE_LIVE && i < u->nr_uses; i++)
				if (u->uses[i] == m)
					cprintf(" %s", u->name);
		cprintf("\n");
	}
	for (struct module *m = modules; m < modules + MAX_MODULES; m++) {
		if (m->state != MODULE_STATE_LIVE)
			continue;
		print_region(m, "core", (unsigned long)m->module_core, m->core_text_size,
			     m->core_ro_size, m->core_ro_after_init_size, m->core_size);
		if (m->module_init)
			print_region(m, "init", (unsigned long)m->module_init, m->init_text_size,
				     m->init_ro_size, m->init_ro_after_init_size, m->init_size);
		else
			cprintf("%s init freed 0x%08lx %lu\n", m->name, m->freed_init,
				m->freed_init_size);
		cprintf("%s init while running: text %s data %s\n", m->name,
			perm(m->init_text_pte), perm(m->init_data_pte));
	}
	return 0;
}
SHELL_COMMAND("lsmod", cmd_lsmod, "lsmod",
	      "loaded modules: size, users, and each region's groups");

static int cmd_modinfo(int argc, char **argv)
{
	struct module *m = argc == 2 ? find_module(argv[1]) : 0;

	if (argc != 2) {
		cprintf("usage: modinfo NAME\n");
		return -EINVAL;
	}
	if (!m) {
		cprintf("modinfo: module %s is not loaded\n", argv[1]);
		return -ENOENT;
	}
	cprintf("name:        %s\nlicense:     %s\ndescription: %s\nauthor:      %s\n"
		"parameters:  %s\nexports:     %u\n", m->name, m->license, m->description,
		m->author, m->args, (unsigned)(m->syms_end - m->syms));
	for (const struct kernel_symbol *s = m->syms; s < m->syms_end; s++)
		cprintf("  %08lx %s\n", s->value, s->name);
	return 0;
}
SHELL_COMMAND("modinfo", cmd_modinfo, "modinfo NAME", "a loaded module's .modinfo and exports");

/* The initrd's "autoload" file: one module name per line. */
void module_autoload(void)
{
	static char list[256];
	struct cpio_file f;
	char *p;

	if (!autoload || initrd_find("autoload", &f))
		return;
	snprintf(list, sizeof(list), "%.*s", (int)f.size, (const char *)f.data);
	for (p = list; *p; ) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p && *p != '#')
			insmod(p, "");
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* For oopses: "[hello core+0x1f]" for an address in a module. */
bool module_address_name(unsigned long addr, char *buf, unsigned long size)
{
	for (struct module *m = modules; m < modules + MAX_MODULES; m++) {
		unsigned long core = (unsigned long)m->module_core;

		if (m->state == MODULE_STATE_UNUSED)
			continue;
		if (addr >= core && addr < core + m->core_size) {
			snprintf(buf, size, "[%s core+0x%lx]", m->name, addr - core);
			return true;
		}
		if (!m->module_init && addr >= m->freed_init &&
		    addr < m->freed_init + m->freed_init_size) {
			snprintf(buf, size, "[%s init, freed, +0x%lx]", m->name, addr - m->freed_init);
			return true;
		}
	}
	return false;
}
