// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptdump: the kernel's page tables as Linux's dump_pagetables prints them
 * (seed 001's commit message shows two such dumps). The walk reads the
 * real tables (mm/ptdump_walk.c); mm/ptdump_format.c merges it into lines.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pageflags.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>
#include <ronx/mm_types.h>
#include <ronx/process.h>
#include <ronx/page_ref.h>

/* The kernel's own tables, read through the direct map. */
void ptdump_walk(struct ptdump_state *st)
{
	ptdump_walk_tables(st, __pa(swapper_pg_dir), pt_read_direct_map, 0);
}

/* Without PID, the kernel's tables; with PID, that process's (its user half, then the shared kernel half). */
static int cmd_ptdump(int argc, char **argv)
{
	struct ptdump_state st;
	struct task *t = 0;

	if (argc > 2) {
		cprintf("usage: ptdump [PID]\n");
		return -EINVAL;
	}
	if (argc == 2 && !(t = find_process_arg("ptdump", argv[1])))
		return -ENOENT;
	ptdump_begin(&st, ptdump_address_markers, shell_print_line, 0);
	if (t) {
		ptdump_walk_tables(&st, t->mm->pgd, pt_read_direct_map, 0);
		ptdump_sharing(t);	/* COW, zero-page and shared runs, if any */
	} else {
		ptdump_walk(&st);
	}
	return 0;
}
SHELL_COMMAND("ptdump", cmd_ptdump, "ptdump [PID]",
	      "the page tables as Linux's dump_pagetables: the kernel's, or process PID's");
