// SPDX-License-Identifier: GPL-2.0-only
/*
 * The initrd: a cpio archive that GRUB (module2) or QEMU (-initrd) loads
 * next to the kernel. It holds the sample modules and "autoload", the
 * list of modules to load at boot. It stays where the loader put it, in
 * pages the allocator never hands out, reached through the direct map.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/bootinfo.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/initrd.h>

static const void *initrd_start;
static size_t initrd_size;

void __init initrd_init(void)
{
	const struct boot_module *m;
	struct cpio_file f;
	const char *err = 0;
	size_t pos = 0;
	int files = 0, r;

	if (boot_info.nr_mods == 0) {
		pr_info("initrd: none given by the boot loader\n");
		return;
	}
	m = &boot_info.mods[0];
	if (m->end > (max_low_pfn << PAGE_SHIFT) || m->end < m->start) {
		pr_err("initrd: at %08x-%08x, outside the direct map; ignored\n", m->start, m->end);
		return;
	}
	while ((r = cpio_next(__va(m->start), m->end - m->start, &pos, &f, &err)) == 1)
		files++;
	if (r < 0) {
		pr_err("initrd: malformed cpio archive at byte %lu: %s; ignored\n",
		       (unsigned long)pos, err);
		return;
	}
	initrd_start = __va(m->start);
	initrd_size = m->end - m->start;
	pr_info("initrd: %d files, %luk at phys %08x\n", files,
		(unsigned long)initrd_size >> 10, m->start);
}

int initrd_find(const char *name, struct cpio_file *f)
{
	if (!initrd_start)
		return -ENOENT;
	return cpio_find(initrd_start, initrd_size, name, f) ? -ENOENT : 0;
}

int initrd_next(size_t *pos, struct cpio_file *f)
{
	const char *err;

	return initrd_start ? cpio_next(initrd_start, initrd_size, pos, f, &err) : 0;
}

static int cmd_ls(int argc, char **argv)
{
	struct cpio_file f;
	size_t pos = 0;

	(void)argc;
	(void)argv;
	if (!initrd_start) {
		cprintf("ls: no initrd\n");
		return -ENOENT;
	}
	while (initrd_next(&pos, &f) == 1) {
		/* a hard link's bytes come with its last name: show them with each */
		if (!f.size && f.nlink > 1)
			initrd_find(f.name, &f);
		cprintf("%8lu  %s\n", (unsigned long)f.size, f.name);
	}
	return 0;
}
SHELL_COMMAND("ls", cmd_ls, "ls", "list the files in the initrd");
