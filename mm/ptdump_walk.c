// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walk under ptdump: every pmd and pte of a PAE page table in address
 * order, fed to note_page() (mm/ptdump_format.c). Pure: the tables come
 * through read(), so the kernel reads them through its direct map and gdb
 * (tools/gdb/ronx.py, via build/host/libronx-pt.so) reads the guest's
 * physical memory, and both print the same dump.
 */
#include <ronx/memlayout.h>
#include <ronx/pageflags.h>
#include <ronx/walk.h>

const struct ptdump_marker ptdump_address_markers[] = {
	{ 0, "User Space" },
	{ PAGE_OFFSET, "Kernel Mapping" },
	{ MODULES_VADDR, "Modules" },
	{ ALIAS_VADDR, "Text Patching Alias" },
	{ ALIAS_END, "Unused" },
	{ CPU_ENTRY_AREA_BASE, "CPU Entry Area" },
	{ FIXADDR_START, "Fixmap Area" },
	{ 0, 0 },
};

static void walk_pte_table(struct ptdump_state *st, unsigned long va, pteval_t pmd,
			   pt_read_fn read, void *ctx)
{
	const pteval_t *ptes = read(ctx, pmd & PTE_PFN_MASK, PTRS_PER_PTE);

	for (int i = 0; i < PTRS_PER_PTE; i++, va += PAGE_SIZE)
		note_page(st, va, ptes ? ptes[i] : 0, PTDUMP_LEVEL_PTE);
}

static void walk_pmd_table(struct ptdump_state *st, unsigned long va, pteval_t pgd,
			   pt_read_fn read, void *ctx)
{
	const pteval_t *pmds = (pgd & _PAGE_PRESENT) ?
			       read(ctx, pgd & PTE_PFN_MASK, PTRS_PER_PMD) : 0;

	for (int i = 0; i < PTRS_PER_PMD; i++, va += PMD_SIZE) {
		pteval_t pmd = pmds ? pmds[i] : 0;

		if ((pmd & _PAGE_PRESENT) && !(pmd & _PAGE_PSE))
			walk_pte_table(st, va, pmd, read, ctx);
		else
			note_page(st, va, pmd, PTDUMP_LEVEL_PMD);
	}
}

/* Calls note_page() for every pmd and pte under the PDPT at pdpt_phys, then ends the dump. */
void ptdump_walk_tables(struct ptdump_state *st, uint64_t pdpt_phys, pt_read_fn read,
			void *ctx)
{
	const pteval_t *pgds = read(ctx, pdpt_phys, PTRS_PER_PGD);

	for (unsigned i = 0; i < PTRS_PER_PGD; i++)
		walk_pmd_table(st, (unsigned long)i << 30, pgds ? pgds[i] : 0, read, ctx);
	ptdump_end(st);
}
