// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's PAE page tables: walk, map, unmap, split.
 *
 * One PDPT (swapper_pg_dir) with all four entries present, each pointing
 * to a page directory ("pmd" page), as Linux does under PAE. The three
 * user-space directories stay empty. Leaves are 4 KiB ptes or 2 MiB pmds.
 *
 * Every CPU walks these same tables, and each caches what it walked in
 * its own TLB. So a change that takes a permission away, or a mapping,
 * is complete only once every CPU has flushed it
 * (flush_tlb_kernel_range(), mm/tlb.c), and a page table may be freed
 * only after that flush: a CPU may still hold a pointer to it in its
 * paging-structure caches. pgd_lock serializes the changes.
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/tlbflush.h>
#include <ronx/mm.h>

/*
 * Page-aligned, as every mm's PDPT: no kernel-set CR3 after paging_init()
 * has bit 11 set, which PTI's entry code uses to tell the user set
 * (ronx/pti.h). boot/entry.asm's early_pdpt is not page-aligned.
 */
pteval_t swapper_pg_dir[PTRS_PER_PGD] __aligned(4096);
/* NX is a reserved bit unless EFER.NXE is on; ptes never carry it then. */
pteval_t __supported_pte_mask = ~_PAGE_NX;
bool nx_enabled;

unsigned long nr_pagetable_pages;	/* page directories and tables in use */

/* The kernel's page tables: held while they change and while the change is flushed. */
DEFINE_SPINLOCK(pgd_lock);

/* Page-table pages come from the page allocator and are counted (meminfo). */
unsigned long alloc_pagetable_page(void)
{
	unsigned long pa = alloc_page();

	if (pa)
		__atomic_fetch_add(&nr_pagetable_pages, 1, __ATOMIC_RELAXED);
	return pa;
}

void free_pagetable_page(unsigned long pa)
{
	__atomic_fetch_sub(&nr_pagetable_pages, 1, __ATOMIC_RELAXED);
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

/*
 * A new mapping needs no flush on the other CPUs: a CPU caches no
 * translation for a page that was not present. This one flushes anyway,
 * in case the caller replaces a mapping it used itself.
 */
int map_page(unsigned long va, unsigned long long pa, pteval_t prot)
{
	unsigned long flags;
	pteval_t *pmd;
	int ret = 0;

	spin_lock_irqsave(&pgd_lock, flags);
	pmd = pmd_alloc_table(va);
	if (!pmd)
		ret = -ENOMEM;
	else if (*pmd & _PAGE_PSE)
		ret = -EEXIST;
	else
		set_pte_atomic(&pte_table(*pmd)[pte_index(va)],
			       (pa & PTE_PFN_MASK) | (prot & __supported_pte_mask));
	spin_unlock_irqrestore(&pgd_lock, flags);
	if (!ret)
		__flush_tlb_one(va);
	return ret;
}

/* The module and alias areas and user space come and go; the direct map's tables stay. */
static bool table_may_go(unsigned long va)
{
	return va >= MODULES_VADDR || va < PAGE_OFFSET;
}

/* Takes the page table under va's pmd out if nothing in it is mapped; returns it, or 0. */
static unsigned long detach_empty_table(unsigned long va)
{
	pteval_t *pmd = &pmd_table(pgd_index(va))[pmd_index(va)];
	pteval_t *ptes = pte_table(*pmd);
	unsigned long table = *pmd & PTE_PFN_MASK;

	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (ptes[i])
			return 0;
	set_pte_atomic(pmd, 0);
	return table;
}

/*
 * Unmaps one 4 KiB page: when this returns, no CPU can reach it, so its
 * frame may be reused. An emptied page table is freed after the flush
 * where table_may_go().
 */
int unmap_page(unsigned long va)
{
	unsigned long flags, table = 0;
	enum pg_level level;
	pteval_t *pte;

	spin_lock_irqsave(&pgd_lock, flags);
	pte = lookup_address(va, &level);
	if (!pte || level != PG_LEVEL_4K) {
		spin_unlock_irqrestore(&pgd_lock, flags);
		return -EINVAL;
	}
	set_pte_atomic(pte, 0);
	if (table_may_go(va))
		table = detach_empty_table(va);
	flush_tlb_kernel_range(va, va + PAGE_SIZE);
	spin_unlock_irqrestore(&pgd_lock, flags);
	if (table)
		free_pagetable_page(table);
	return 0;
}

/* The pte slot for va, present or not, if a page table is there; or NULL. */
static pteval_t *pte_slot(unsigned long va)
{
	pteval_t *pmds = pmd_table(pgd_index(va)), pmd;

	if (!pmds)
		return 0;
	pmd = pmds[pmd_index(va)];
	if (!(pmd & _PAGE_PRESENT) || (pmd & _PAGE_PSE))
		return 0;
	return &pte_table(pmd)[pte_index(va)];
}

#define MAX_DETACHED	8	/* page tables freed per flush */

/*
 * unmap_page() for npages pages at once (a module's region), with one
 * shootdown instead of one per page: each pte first loses only its
 * present bit, so it still names its frame; after every CPU has flushed,
 * the frames go to release() and the page tables left empty are freed
 * (after a second flush, for the paging-structure caches).
 */
void unmap_kernel_range(unsigned long va, unsigned long npages, void (*release)(unsigned long pa))
{
	unsigned long flags, end = va + npages * PAGE_SIZE, tables[MAX_DETACHED];
	int n = 0;

	spin_lock_irqsave(&pgd_lock, flags);
	for (unsigned long a = va; a < end; a += PAGE_SIZE) {
		pteval_t *pte = pte_slot(a);

		if (pte && (*pte & _PAGE_PRESENT))
			set_pte_atomic(pte, *pte & ~_PAGE_PRESENT);
	}
	flush_tlb_kernel_range(va, end);
	for (unsigned long a = va; a < end; a += PAGE_SIZE) {
		pteval_t *pte = pte_slot(a);
		unsigned long pa;

		if (!pte || !*pte)
			continue;
		pa = (unsigned long)(*pte & PTE_PFN_MASK);
		set_pte_atomic(pte, 0);
		if (release)
			release(pa);
		if ((((a + PAGE_SIZE) & ~PMD_MASK) && a + PAGE_SIZE < end) || !table_may_go(a))
			continue;	/* not the last page of its table in the range */
		if ((tables[n] = detach_empty_table(a)) != 0 && ++n == MAX_DETACHED) {
			flush_tlb_kernel_range(va, end);
			while (n)
				free_pagetable_page(tables[--n]);
		}
	}
	if (n)
		flush_tlb_kernel_range(va, end);
	spin_unlock_irqrestore(&pgd_lock, flags);
	while (n)
		free_pagetable_page(tables[--n]);
}

/*
 * Replace the 2 MiB page that maps va by a page table of 512 ptes with the
 * same attributes, so that part of it can change (Linux: split_large_page).
 * The translations stay what they were, so only this CPU flushes here;
 * the change that needed the split flushes every CPU. pgd_lock held.
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
	/* one 64-bit store: no CPU may walk a pmd that is half old, half new */
	set_pte_atomic(pmd, pt | _PAGE_TABLE);
	__flush_tlb_all();
	return 0;
}

/*
 * The reverse of a split: if the 512 ptes under va's pmd map 2 MiB of
 * contiguous, 2 MiB-aligned memory with one set of attributes, put a
 * large page back and free the table (Linux does this since 6.x).
 * Returns true if it did. Every CPU flushes before the table is freed:
 * their paging-structure caches may still point into it. pgd_lock held.
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
	set_pte_atomic(pmd, first | _PAGE_PSE);
	flush_tlb_kernel_range(va & PMD_MASK, (va & PMD_MASK) + PMD_SIZE);
	free_pagetable_page(pt);
	return true;
}

void load_page_tables(void)
{
	write_cr3(__pa(swapper_pg_dir));
	__flush_tlb_all();
}
