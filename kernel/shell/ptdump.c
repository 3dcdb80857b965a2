// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptdump: the kernel's page tables as Linux's dump_pagetables prints them
 * (seed 001's commit message shows two such dumps). The walk reads the
 * real tables (mm/ptdump_walk.c); mm/ptdump_format.c merges it into lines.
 */
#include <ronx/pti.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pageflags.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>
#include <ronx/mm_types.h>
#include <ronx/process.h>
#include <ronx/pgd.h>
#include <ronx/page_ref.h>

/* The kernel's own tables, read through the direct map. */
void ptdump_walk(struct ptdump_state *st)
{
	ptdump_walk_tables(st, __pa(swapper_pg_dir), pt_read_direct_map, 0);
}

/*
 * Without PID, the kernel's tables; with PID, that process's (its user
 * half, then the shared kernel half), then with PTI its user set (the
 * same user half, and the kernel half ring 3 sees: the entry area). The process's task and mm are
 * referenced and its tables pinned for the whole dump, which prints as it
 * walks: the process may exit or unmap meanwhile, its tables stay until
 * the dump ends (docs/design.md, "Lifetimes"). No lock is held.
 */
static int cmd_ptdump(int argc, char **argv)
{
	struct ptdump_state st;
	struct mm_struct *mm;
	struct task *t = 0;

	if (argc > 2) {
		cprintf("usage: ptdump [PID]\n");
		return -EINVAL;
	}
	if (argc == 2 && !(t = get_process_arg("ptdump", argv[1], &mm)))
		return -ENOENT;
	ptdump_begin(&st, ptdump_address_markers, shell_print_line, 0);
	if (!t) {
		ptdump_walk(&st);
		return 0;
	}
	mm_pin_tables(mm);
	ptdump_walk_tables(&st, mm->pgd, pt_read_direct_map, 0);
	ptdump_sharing(t, mm);	/* COW, zero-page and shared runs, if any */
	ptdump_memfd_views(t, mm);	/* each memfd page, and its other views */
	if (pti_active) {	/* Linux's current_user: the tables ring 3 runs on */
		cprintf("---[ PTI user set (CR3 %#lx in ring 3) ]---\n", pti_user_pgd(mm->pgd));
		ptdump_begin(&st, ptdump_address_markers, shell_print_line, 0);
		ptdump_walk_tables(&st, pti_user_pgd(mm->pgd), pt_read_direct_map, 0);
	}
	mm_unpin_tables(mm);
	put_process_arg(t, mm);
	return 0;
}
SHELL_COMMAND("ptdump", cmd_ptdump, "ptdump [PID]",
	      "the page tables as Linux's dump_pagetables: the kernel's, or process PID's");
