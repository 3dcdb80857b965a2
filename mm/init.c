// SPDX-License-Identifier: GPL-2.0-only
/*
 * paging_init: build the direct map of low RAM and switch to it.
 *
 * 2 MiB pages wherever a whole 2 MiB of RAM has one set of permissions;
 * 4 KiB ptes for the region holding the low 1 MiB, those of the kernel image,
 * whose pages get different permissions later (mm/init_32.c), and for a
 * last partial region. Kernel text starts executable; everything else is
 * RW+NX from the start (seed 001: is_kernel_text() begins at _text, not
 * at PAGE_OFFSET, so the low 1 MiB is NX).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/init.h>
#include <ronx/debug_pagealloc.h>

static bool is_kernel_text(unsigned long addr)
{
	return addr >= (unsigned long)_text && addr < (unsigned long)__init_end;
}

/*
 * The first 2 MiB (the low 1 MiB), the 2 MiB regions the image touches
 * (anywhere under KASLR) and a last partial region; under debug_pagealloc
 * every region, so that any single free page can leave the map (it costs
 * a page table per 2 MiB of RAM: 64 pages for 128 MiB).
 */
static bool needs_ptes(unsigned long pa, unsigned long end)
{
	return debug_pagealloc_enabled() || pa < PMD_SIZE ||
	       (pa < __pa(_end) && pa + PMD_SIZE > __pa(_text)) || pa + PMD_SIZE > end;
}

static void __init map_region_ptes(unsigned long pa, unsigned long end)
{
	for (unsigned long p = pa; p < pa + PMD_SIZE && p < end; p += PAGE_SIZE) {
		unsigned long va = (unsigned long)__va(p);
		pteval_t prot = is_kernel_text(va) ? PAGE_KERNEL_EXEC : PAGE_KERNEL;

		if (map_page(va, p, prot))
			refuse_boot(KERN_ERR "ronx: cannot boot: no free page for the direct map's page tables\n");
	}
}

static void __init kernel_physical_mapping_init(unsigned long end)
{
	for (unsigned long pa = 0; pa < end; pa += PMD_SIZE) {
		if (needs_ptes(pa, end)) {
			map_region_ptes(pa, end);
		} else {
			pteval_t *pmd = &pmd_table(pgd_index((unsigned long)__va(pa)))
					[pmd_index((unsigned long)__va(pa))];
			*pmd = pa | ((PAGE_KERNEL | _PAGE_PSE) & __supported_pte_mask);
		}
	}
}

void __init paging_init(void)
{
	unsigned long end = max_low_pfn << PAGE_SHIFT;

	for (int i = 0; i < PTRS_PER_PGD; i++) {
		unsigned long pmds = alloc_pagetable_page();
		if (!pmds)
			refuse_boot(KERN_ERR "ronx: cannot boot: no free page for the direct map's page tables\n");
		/* under PAE a PDPT entry has only present, PWT and PCD */
		swapper_pg_dir[i] = pmds | _PAGE_PRESENT;
	}
	kernel_physical_mapping_init(end);
	load_page_tables();
	pr_info("Direct map: 0x%08lx-0x%08lx (%luM of low memory)\n",
		PAGE_OFFSET, PAGE_OFFSET + end, end >> 20);
	debug_pagealloc_init();
}

/* The highest 2 MiB page of the direct map (the self-tests use one), or 0. */
unsigned long direct_map_large_page(void)
{
	enum pg_level level;

	for (unsigned long pa = (max_low_pfn << PAGE_SHIFT) & PMD_MASK; pa >= PMD_SIZE; pa -= PMD_SIZE) {
		unsigned long va = (unsigned long)__va(pa - PMD_SIZE);

		if (lookup_address(va, &level) && level == PG_LEVEL_2M)
			return va;
	}
	return 0;
}
