// SPDX-License-Identifier: GPL-2.0-only
/*
 * The W^X audit: walk every present mapping and report each range that is
 * both writable and executable (Linux: ptdump_walk_pgd_level_checkwx).
 *
 * Linux 6.1 on 32-bit PAE says "passed" with the PCI BIOS hole wide open,
 * because its walk starts from PDPT entries, which under PAE carry no RW
 * bit, so nothing ever looks writable. ronx's walk decides at the leaf,
 * from the levels that really carry permissions (effective_prot(), in
 * mm/effective_prot.c, which `walk VA` uses too), and it names the
 * declared hole instead of hiding it (check_page()).
 */
#include <ronx/pti.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pageattr.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>
#include <ronx/sched.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>

struct wx_walk {
	struct wx_report report;
	unsigned long run_start, run_end;
	bool run_in_hole;
};

static void report_run(struct wx_walk *w)
{
	unsigned long n = (w->run_end - w->run_start) / PAGE_SIZE;

	if (!n)
		return;
	if (w->run_in_hole) {
		w->report.hole_pages += n;
	} else {
		pr_warn("ronx: W+X mapping at 0x%08lx-0x%08lx (%lu pages)\n",
			w->run_start, w->run_end, n);
		w->report.wx_pages += n;
	}
	w->run_start = w->run_end = 0;
}

static bool is_wx(pteval_t e)
{
	return (e & _PAGE_PRESENT) && (e & _PAGE_RW) && !(e & _PAGE_NX);
}

/* One page (or 2 MiB page) of the walk, with its effective permission. */
static void check_page(struct wx_walk *w, unsigned long va, pteval_t e, unsigned long size)
{
	bool hole = pcibios_enabled && in_bios_hole(va);

	if (!is_wx(e) || !nx_enabled) {
		report_run(w);
		return;
	}
	if (w->run_end != va || w->run_in_hole != hole)
		report_run(w);
	if (!w->run_end) {
		w->run_start = va;
		w->run_in_hole = hole;
	}
	w->run_end = va + size;
}

/* Every page under one PDPT entry, from va (the start of its gigabyte). */
static void walk_pgd(struct wx_walk *w, pteval_t pdpte, unsigned long va)
{
	pteval_t *pmds = (pdpte & _PAGE_PRESENT) ? __va(pdpte & PTE_PFN_MASK) : 0;

	for (int i = 0; pmds && i < PTRS_PER_PMD; i++, va += PMD_SIZE) {
		pteval_t pmd = pmds[i];

		if (!(pmd & _PAGE_PRESENT) || (pmd & _PAGE_PSE)) {
			check_page(w, va, effective_prot(pdpte, pmd, 0), PMD_SIZE);
			continue;
		}
		pteval_t *ptes = __va(pmd & PTE_PFN_MASK);
		for (int j = 0; j < PTRS_PER_PTE; j++)
			check_page(w, va + j * PAGE_SIZE,
				   effective_prot(pdpte, pmd, &ptes[j]), PAGE_SIZE);
	}
}

struct wx_report ptdump_check_wx(void)
{
	struct wx_walk w = { 0 };

	for (unsigned pgd = 0; pgd < PTRS_PER_PGD; pgd++)
		walk_pgd(&w, swapper_pg_dir[pgd], (unsigned long)pgd << 30);
	report_run(&w);
	if (!nx_enabled)
		pr_info("ronx: W+X check: skipped, NX is not in use (every page is executable)\n");
	else if (w.report.wx_pages && w.report.hole_pages)
		pr_warn("ronx: W+X check: FAILED, %lu W+X pages found (and %lu in the declared PCI BIOS hole)\n",
			w.report.wx_pages, w.report.hole_pages);
	else if (w.report.wx_pages)
		pr_warn("ronx: W+X check: FAILED, %lu W+X pages found\n", w.report.wx_pages);
	else if (w.report.hole_pages)
		pr_info("ronx: W+X check: %lu W+X pages, all in the declared PCI BIOS hole 0x%08lx-0x%08lx\n",
			w.report.hole_pages, PAGE_OFFSET + BIOS_BEGIN, PAGE_OFFSET + BIOS_END);
	else
		pr_info("ronx: W+X check: passed, no W+X pages found\n");
	return w.report;
}

/*
 * The user half of every live process, from its own PDPT (Linux's W+X
 * check walks the user half too). The loader and mmap never make a W+X
 * user page; this is the proof from the page tables themselves. Each
 * process's mm is referenced and its tables pinned while they are read:
 * one that exits meanwhile keeps them until the walk ends.
 */
static unsigned long wxcheck_processes(void)
{
	unsigned long bad = 0;
	int n = 0;

	for (int i = 0; i < NR_TASKS; i++) {
		struct wx_walk w = { 0 };
		char comm[TASK_COMM_LEN];
		struct mm_struct *mm;
		pteval_t *pdpt;
		int pid;

		if (!(mm = get_slot_mm(i, &pid, comm)))
			continue;
		n++;
		mm_pin_tables(mm);
		pdpt = __va(mm->pgd);
		for (unsigned pgd = 0; pgd < pgd_index(TASK_SIZE); pgd++)
			walk_pgd(&w, pdpt[pgd], (unsigned long)pgd << 30);
		mm_unpin_tables(mm);
		mmput(mm);
		report_run(&w);
		if (w.report.wx_pages)
			pr_warn("ronx: W+X check: %pE[%d]: FAILED, %lu W+X user pages\n", comm, pid,
				w.report.wx_pages);
		bad += w.report.wx_pages;
	}
	if (!nx_enabled)
		return 0;
	if (!bad)
		pr_info("ronx: W+X check: user space of %d process%s: passed, no W+X pages found\n",
			n, n == 1 ? "" : "es");
	return bad;
}

/*
 * PTI's user set: its user half is each process's own (walked above);
 * its kernel half is one directory shared by every process (Linux's W+X
 * check walks the user copy too).
 */
static unsigned long wxcheck_pti_user_set(void)
{
	struct wx_walk w = { 0 };

	if (!pti_active || !nx_enabled)
		return 0;
	walk_pgd(&w, pti_user_kernel_pdpte(), TASK_SIZE);
	report_run(&w);
	if (w.report.wx_pages)
		pr_warn("ronx: W+X check: PTI user set: FAILED, %lu W+X pages\n", w.report.wx_pages);
	else
		pr_info("ronx: W+X check: PTI user set (entry text and entry area): passed, no W+X pages found\n");
	return w.report.wx_pages;
}

static int cmd_wxcheck(int argc, char **argv)
{
	unsigned long bad;

	(void)argc;
	(void)argv;
	bad = ptdump_check_wx().wx_pages;
	bad += wxcheck_processes();
	bad += wxcheck_pti_user_set();
	wxcheck_user_aliases();		/* warnings only: mm/wx_alias.c says why */
	return bad ? -EPERM : 0;
}
SHELL_COMMAND("wxcheck", cmd_wxcheck, "wxcheck", "audit every mapping for W+X pages");
