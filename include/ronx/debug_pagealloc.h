/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DEBUG_PAGEALLOC (mm/debug_pagealloc.c; Linux: mm/page_alloc.c's
 * debug_pagealloc and arch/x86/mm/pageattr.c's __kernel_map_pages()):
 * with the boot option `debug_pagealloc`, a page the allocator holds free
 * is absent from the direct map, so a use after free faults at once.
 */
#ifndef RONX_DEBUG_PAGEALLOC_H
#define RONX_DEBUG_PAGEALLOC_H
#include <stdbool.h>

extern bool _debug_pagealloc_enabled;		/* the boot option */
extern bool _debug_pagealloc_armed;		/* free pages unmapped: the hooks act */

/* Was the kernel booted with debug_pagealloc? (paging_init() then maps RAM with 4K ptes) */
static inline bool debug_pagealloc_enabled(void)
{
	return _debug_pagealloc_enabled;
}

void debug_pagealloc_init(void);	/* paging_init(): unmap every free page */
/* pa..pa+n pages present (enable) or absent in the direct map; absent is flushed on every CPU */
void __kernel_map_pages(unsigned long pa, unsigned long n, bool enable);

static inline void debug_pagealloc_map_pages(unsigned long pa, unsigned long n)
{
	if (_debug_pagealloc_armed)
		__kernel_map_pages(pa, n, true);
}

static inline void debug_pagealloc_unmap_pages(unsigned long pa, unsigned long n)
{
	if (_debug_pagealloc_armed)
		__kernel_map_pages(pa, n, false);
}

/* The oops: is va a direct-map address of a page that is free (and so unmapped)? */
bool debug_pagealloc_free_page_hit(unsigned long va);
#include <ronx/pgtable_types.h>
/* CPA (mm/pageattr.c): the pte of a free page taken out of the direct map at va, or NULL */
pteval_t *debug_pagealloc_lookup(unsigned long va);
/* The present bit alone, in one cmpxchg (no flush): whether it changed. */
bool set_pte_present(pteval_t *pte, bool present);

/* What it has done since boot (meminfo). */
struct debug_pagealloc_stats {
	unsigned long unmapped;		/* pages taken out of the direct map */
	unsigned long mapped;		/* pages put back */
	unsigned long shootdowns;	/* flush_tlb_kernel_range() calls for them */
};
extern struct debug_pagealloc_stats debug_pagealloc_stats;
#endif
