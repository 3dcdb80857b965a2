/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_MM_H
#define RONX_MM_H
#include <stdbool.h>
#include <ronx/pgtable_types.h>

/* mm/page_alloc.c: physical pages, returned as physical addresses. */
void page_alloc_init(void);
unsigned long alloc_page(void);		/* zeroed; 0 when out of memory */
void free_page(unsigned long phys);
unsigned long alloc_pages(unsigned long n);	/* contiguous, zeroed */
void free_pages(unsigned long phys, unsigned long n);
void free_reserved_page(unsigned long phys);	/* a boot-reserved page joins */
unsigned long nr_free_pages(void);
unsigned long totalram_pages(void);
extern unsigned long max_low_pfn;	/* end of the direct map */

/* mm/pgtable.c: the kernel's PAE page tables. */
extern pteval_t swapper_pg_dir[PTRS_PER_PGD];
extern pteval_t __supported_pte_mask;
extern bool nx_enabled;
pteval_t *lookup_address(unsigned long va, enum pg_level *level);
int map_page(unsigned long va, unsigned long long pa, pteval_t prot);
int unmap_page(unsigned long va);
int split_large_page(unsigned long va);
bool collapse_large_page(unsigned long va);
pteval_t *pmd_table(unsigned pgd);
const pteval_t *pt_read_direct_map(void *ctx, uint64_t phys, unsigned n);
unsigned long alloc_pagetable_page(void);
extern unsigned long nr_pagetable_pages;
void load_page_tables(void);

/* mm/init.c */
void paging_init(void);
unsigned long direct_map_large_page(void);
#endif
