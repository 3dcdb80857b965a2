// SPDX-License-Identifier: GPL-2.0-only
/* Shell commands that show the kernel's state: dmesg, meminfo, cmdline. */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/cmdline.h>
#include <ronx/traps.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/page_ref.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/slab.h>

static void print_log_line(const char *line, int level)
{
	(void)level;
	cprintf("%s\n", line);
}

static int cmd_dmesg(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_dump(print_log_line);
	return 0;
}
SHELL_COMMAND("dmesg", cmd_dmesg, "dmesg", "print the kernel log");

static int cmd_meminfo(int argc, char **argv)
{
	unsigned long total = totalram_pages(), free = nr_free_pages();

	(void)argc;
	(void)argv;
	cprintf("MemTotal:   %8lu kB\n", total * (PAGE_SIZE / 1024));
	cprintf("MemFree:    %8lu kB\n", free * (PAGE_SIZE / 1024));
	cprintf("PagesTotal: %8lu\n", total);
	cprintf("PagesFree:  %8lu\n", free);
	cprintf("PagesUsed:  %8lu\n", total - free);
	/* kmalloc keeps one empty slab per size class: used, but no object lives there */
	cprintf("SlabEmpty:  %8lu\n", kmem_cache_empty_pages());
	cprintf("PageTables: %8lu\n", nr_pagetable_pages);
	cprintf("PageFaults: %8lu\n", page_fault_count);
	cprintf("Oopses:     %8lu\n", oops_count);
	if (debug_pagealloc_enabled())
		cprintf("DebugPagealloc: on: %lu pages unmapped, %lu mapped back, %lu shootdowns\n",
			debug_pagealloc_stats.unmapped, debug_pagealloc_stats.mapped,
			debug_pagealloc_stats.shootdowns);
	meminfo_sharing();
	return 0;
}
SHELL_COMMAND("meminfo", cmd_meminfo, "meminfo", "free and used physical pages");

static int cmd_cmdline(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cprintf("%s\n", boot_command_line);
	return 0;
}
SHELL_COMMAND("cmdline", cmd_cmdline, "cmdline", "print the kernel command line");
