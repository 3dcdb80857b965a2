// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptdump: the kernel's page tables as Linux's dump_pagetables prints them
 * (seed 001's commit message shows two such dumps). The walk reads the
 * real tables; mm/ptdump_format.c merges it into lines.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/pageflags.h>
#include <ronx/shell.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>

static const struct ptdump_marker address_markers[] = {
	{ 0, "User Space" },
	{ PAGE_OFFSET, "Kernel Mapping" },
	{ MODULES_VADDR, "Modules" },
	{ ALIAS_VADDR, "Text Patching Alias" },
	{ ALIAS_END, "Unused" },
	{ 0, 0 },
};

static void walk_pte_table(struct ptdump_state *st, unsigned long va, pteval_t pmd)
{
	pteval_t *ptes = __va(pmd & PTE_PFN_MASK);

	for (int i = 0; i < PTRS_PER_PTE; i++, va += PAGE_SIZE)
		note_page(st, va, ptes[i], PTDUMP_LEVEL_PTE);
}

/* Calls note_page() for every pmd and pte of the kernel's tables, in order. */
void ptdump_walk(struct ptdump_state *st)
{
	for (unsigned pgd = 0; pgd < PTRS_PER_PGD; pgd++) {
		pteval_t *pmds = pmd_table(pgd);
		unsigned long va = (unsigned long)pgd << 30;

		for (int i = 0; i < PTRS_PER_PMD; i++, va += PMD_SIZE) {
			pteval_t pmd = pmds ? pmds[i] : 0;

			if ((pmd & _PAGE_PRESENT) && !(pmd & _PAGE_PSE))
				walk_pte_table(st, va, pmd);
			else
				note_page(st, va, pmd, PTDUMP_LEVEL_PMD);
		}
	}
	ptdump_end(st);
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	cprintf("%s\n", line);
}

static int cmd_ptdump(int argc, char **argv)
{
	struct ptdump_state st;

	(void)argc;
	(void)argv;
	ptdump_begin(&st, address_markers, print_line, 0);
	ptdump_walk(&st);
	return 0;
}
SHELL_COMMAND("ptdump", cmd_ptdump, "ptdump",
	      "the kernel page tables, as Linux's dump_pagetables");
