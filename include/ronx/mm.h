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
unsigned long __alloc_pages(unsigned long n);	/* ... not zeroed: the caller writes them whole */
void free_pages(unsigned long phys, unsigned long n);
void free_reserved_page(unsigned long phys);	/* a boot-reserved page joins */
unsigned long nr_free_pages(void);
bool page_is_free(unsigned long pfn);	/* memview: a snapshot */
unsigned long totalram_pages(void);
extern unsigned long max_low_pfn;	/* end of the direct map */

/* mm/pgtable.c: the kernel's PAE page tables. */
extern pteval_t swapper_pg_dir[PTRS_PER_PGD];
extern pteval_t __supported_pte_mask;
extern bool nx_enabled;
pteval_t *lookup_address(unsigned long va, enum pg_level *level);
int map_page(unsigned long va, unsigned long long pa, pteval_t prot);
int unmap_page(unsigned long va);
void unmap_kernel_range(unsigned long va, unsigned long npages, void (*release)(unsigned long pa));
int split_large_page(unsigned long va);
bool collapse_large_page(unsigned long va);
pteval_t *pmd_table(unsigned pgd);
const pteval_t *pt_read_direct_map(void *ctx, uint64_t phys, unsigned n);
unsigned long alloc_pagetable_page(void);
void free_pagetable_page(unsigned long pa);
extern unsigned long nr_pagetable_pages;
void load_page_tables(void);
struct spinlock;
extern struct spinlock pgd_lock;	/* the kernel's page tables */

/*
 * Writes a page-table entry in one piece (lock cmpxchg8b). Two 32-bit
 * stores would let another CPU's page walk see the new low half with the
 * old high half: a pmd that is still a 2 MiB page but has lost its NX bit.
 */
static inline void set_pte_atomic(pteval_t *ptep, pteval_t v)
{
	pteval_t old = *(volatile pteval_t *)ptep, seen;

	while ((seen = __sync_val_compare_and_swap(ptep, old, v)) != old)
		old = seen;
}

/* mm/init.c */
void paging_init(void);
unsigned long direct_map_large_page(void);
#endif
