// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's PAE page tables: walk, map, unmap, split.
 *
 * One PDPT (swapper_pg_dir) with all four entries present, each pointing
 * to a page directory ("pmd" page), as Linux does under PAE. The three
 * user-space directories stay empty. Leaves are 4 KiB ptes or 2 MiB pmds.
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/mm.h>

pteval_t swapper_pg_dir[PTRS_PER_PGD] __aligned(32);
/* NX is a reserved bit unless EFER.NXE is on; ptes never carry it then. */
pteval_t __supported_pte_mask = ~_PAGE_NX;
bool nx_enabled;

unsigned long nr_pagetable_pages;	/* page directories and tables in use */

/* Page-table pages come from the page allocator and are counted (meminfo). */
unsigned long alloc_pagetable_page(void)
{
	unsigned long pa = alloc_page();

	if (pa)
		nr_pagetable_pages++;
	return pa;
}

static void free_pagetable_page(unsigned long pa)
{
	nr_pagetable_pages--;
	free_page(pa);
}

pteval_t *pmd_table(unsigned pgd)
{
	pteval_t e = swapper_pg_dir[pgd];

	return (e & _PAGE_PRESENT) ? __va(e & PTE_PFN_MASK) : 0;
}

static pteval_t *pte_table(pteval_t pmd)
{
	return __va(pmd & PTE_PFN_MASK);
}

/* A pt_read_fn: page tables live in low memory, which the direct map covers. */
const pteval_t *pt_read_direct_map(void *ctx, uint64_t phys, unsigned n)
{
	(void)ctx;
	if (phys + 8ULL * n > ((uint64_t)max_low_pfn << PAGE_SHIFT))
		return 0;
	return (const pteval_t *)__va((unsigned long)phys);
}

/* Linux's lookup_address(): the entry that maps va, and its level. */
pteval_t *lookup_address(unsigned long va, enum pg_level *level)
{
	pteval_t *pmds = pmd_table(pgd_index(va)), *pmd, *pte;

	*level = PG_LEVEL_NONE;
	if (!pmds)
		return 0;
	pmd = &pmds[pmd_index(va)];
	if (!(*pmd & _PAGE_PRESENT))
		return 0;
	if (*pmd & _PAGE_PSE) {
		*level = PG_LEVEL_2M;
		return pmd;
	}
	pte = &pte_table(*pmd)[pte_index(va)];
	if (!(*pte & _PAGE_PRESENT))
		return 0;
	*level = PG_LEVEL_4K;
	return pte;
}

/* The pmd entry for va, with a page table under it (allocated if none). */
static pteval_t *pmd_alloc_table(unsigned long va)
{
	pteval_t *pmd = &pmd_table(pgd_index(va))[pmd_index(va)];

	if (!(*pmd & _PAGE_PRESENT)) {
		unsigned long pt = alloc_pagetable_page();
		if (!pt)
			return 0;
		*pmd = pt | _PAGE_TABLE;
	}
	return pmd;
}

int map_page(unsigned long va, unsigned long long pa, pteval_t prot)
{
	pteval_t *pmd = pmd_alloc_table(va);

	if (!pmd)
		return -ENOMEM;
	if (*pmd & _PAGE_PSE)
		return -EEXIST;
	pte_table(*pmd)[pte_index(va)] = (pa & PTE_PFN_MASK) | (prot & __supported_pte_mask);
	__flush_tlb_one(va);
	return 0;
}

/* Frees the page table under va's pmd if nothing in it is mapped any more. */
static void free_empty_table(unsigned long va)
{
	pteval_t *pmd = &pmd_table(pgd_index(va))[pmd_index(va)];
	pteval_t *ptes = pte_table(*pmd);

	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (ptes[i])
			return;
	free_pagetable_page(*pmd & PTE_PFN_MASK);
	*pmd = 0;
}

int unmap_page(unsigned long va)
{
	enum pg_level level;
	pteval_t *pte = lookup_address(va, &level);

	if (!pte || level != PG_LEVEL_4K)
		return -EINVAL;
	*pte = 0;
	__flush_tlb_one(va);
	/* the module and alias areas come and go; the direct map stays */
	if (va >= MODULES_VADDR)
		free_empty_table(va);
	return 0;
}

/*
 * Replace the 2 MiB page that maps va by a page table of 512 ptes with the
 * same attributes, so that part of it can change (Linux: split_large_page).
 */
int split_large_page(unsigned long va)
{
	enum pg_level level;
	pteval_t *pmd = lookup_address(va, &level), *ptes;
	unsigned long pt;
	pteval_t attrs;

	if (!pmd || level != PG_LEVEL_2M)
		return 0;
	pt = alloc_pagetable_page();
	if (!pt)
		return -ENOMEM;
	ptes = __va(pt);
	attrs = *pmd & ~PMD_PFN_MASK & ~_PAGE_PSE;
	for (int i = 0; i < PTRS_PER_PTE; i++)
		ptes[i] = (*pmd & PMD_PFN_MASK) + ((pteval_t)i << PAGE_SHIFT) + attrs;
	*pmd = pt | _PAGE_TABLE;
	__flush_tlb_all();
	return 0;
}

/*
 * The reverse of a split: if the 512 ptes under va's pmd map 2 MiB of
 * contiguous, 2 MiB-aligned memory with one set of attributes, put a
 * large page back and free the table (Linux does this since 6.x).
 * Returns true if it did.
 */
bool collapse_large_page(unsigned long va)
{
	pteval_t *pmd = &pmd_table(pgd_index(va))[pmd_index(va)], *ptes, first;
	unsigned long pt;

	if (!(*pmd & _PAGE_PRESENT) || (*pmd & _PAGE_PSE))
		return false;
	ptes = __va(*pmd & PTE_PFN_MASK);
	first = ptes[0];
	if (!(first & _PAGE_PRESENT) || (first & PTE_PFN_MASK) % PMD_SIZE)
		return false;
	for (int i = 1; i < PTRS_PER_PTE; i++)
		if (ptes[i] != first + ((pteval_t)i << PAGE_SHIFT))
			return false;
	pt = *pmd & PTE_PFN_MASK;
	*pmd = first | _PAGE_PSE;
	__flush_tlb_all();
	free_pagetable_page(pt);
	return true;
}

void load_page_tables(void)
{
	write_cr3(__pa(swapper_pg_dir));
	__flush_tlb_all();
}
