// SPDX-License-Identifier: GPL-2.0-only
/*
 * DEBUG_PAGEALLOC (Linux: the debug_pagealloc boot option, and x86's
 * __kernel_map_pages() in arch/x86/mm/pageattr.c).
 *
 * Booted with `debug_pagealloc`, the kernel keeps every page the
 * allocator holds free out of the direct map: free_pages() clears the
 * present bit of the page's pte and flushes every CPU's TLB before the
 * page goes back to the allocator; __alloc_pages() sets it again before
 * the page is handed out. So a read or write through a pointer to a page
 * already freed faults at once, with an oops that says the page is free
 * (kernel/cpu/fault.c), instead of reading or corrupting whatever the
 * page's next owner keeps there. `crash READ_BUDDY_AFTER_FREE` shows it.
 *
 * Single pages can only be unmapped where the direct map has 4 KiB ptes,
 * so under the option paging_init() builds all of it from ptes (mm/init.c)
 * and CPA never puts a 2 MiB page back (mm/pageattr.c). Those page tables
 * stay for the life of the kernel: the pte of a page is always there.
 *
 * Locking: none of our own. Several CPUs allocate and free at once, each
 * a different page, and CPA may change other ptes of the same page table
 * under pgd_lock: each present bit flips with one cmpxchg of the whole
 * 64-bit PAE entry, so no update is lost and no CPU's page walk sees half
 * an entry. The free's shootdown takes call_lock (kernel/cpu/smp.c) and
 * nothing else, never under zone_lock: a page is unmapped and flushed
 * first, and only then marked free (mm/page_alloc.c), so no CPU can be
 * handed a page that another still reaches. Callers may hold any lock
 * that comes before call_lock in docs/design.md's order, or tasks_lock
 * (that documented exception); refs_lock frees outside itself.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/cmdline.h>
#include <ronx/tlbflush.h>
#include <ronx/mm.h>
#include <ronx/init.h>
#include <ronx/debug_pagealloc.h>

bool _debug_pagealloc_enabled;
bool _debug_pagealloc_armed;
struct debug_pagealloc_stats debug_pagealloc_stats;

static int __init parse_debug_pagealloc(const char *val)
{
	if (!val) {
		_debug_pagealloc_enabled = true;
		return 0;
	}
	return parse_on_off(val, &_debug_pagealloc_enabled);
}
BOOT_PARAM("debug_pagealloc", parse_debug_pagealloc, "nothing, on or off");

/* The direct map's pte for the page at pa, or NULL (a 2 MiB page, or beyond the map). */
static pteval_t *direct_map_pte(unsigned long pa)
{
	unsigned long va = (unsigned long)__va(pa);
	pteval_t *pmds, pmd;

	if (PFN_DOWN(pa) >= max_low_pfn || !(pmds = pmd_table(pgd_index(va))))
		return 0;
	pmd = pmds[pmd_index(va)];
	if (!(pmd & _PAGE_PRESENT) || (pmd & _PAGE_PSE))
		return 0;
	return &((pteval_t *)__va(pmd & PTE_PFN_MASK))[pte_index(va)];
}

/*
 * Sets or clears the present bit, and nothing else, in one cmpxchg8b:
 * the entry may change meanwhile (CPA on a neighbour is another entry,
 * but a lost race on this one is retried). Returns whether it changed.
 * KFENCE (mm/kfence.c) flips its pool's pages with it too.
 */
bool set_pte_present(pteval_t *pte, bool present)
{
	pteval_t old = *(volatile pteval_t *)pte, new, seen;

	for (;;) {
		new = present ? old | _PAGE_PRESENT : old & ~(pteval_t)_PAGE_PRESENT;
		if (new == old)
			return false;
		seen = __sync_val_compare_and_swap(pte, old, new);
		if (seen == old)
			return true;
		old = seen;
	}
}

/* Flips n pages; returns how many changed. */
static unsigned long flip_pages(unsigned long pa, unsigned long n, bool enable)
{
	unsigned long changed = 0;

	for (unsigned long i = 0; i < n; i++) {
		pteval_t *pte = direct_map_pte(pa + i * PAGE_SIZE);

		if (pte && set_pte_present(pte, enable))
			changed++;
	}
	return changed;
}

/*
 * Mapping needs no flush: a CPU never caches a translation whose pte is
 * not present. Unmapping does: any CPU may hold the page's translation
 * from before, and would go on reaching a free page through it.
 */
void __kernel_map_pages(unsigned long pa, unsigned long n, bool enable)
{
	unsigned long changed = flip_pages(pa, n, enable);
	unsigned long va = (unsigned long)__va(pa);

	if (enable) {
		__atomic_fetch_add(&debug_pagealloc_stats.mapped, changed, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&debug_pagealloc_stats.unmapped, changed, __ATOMIC_RELAXED);
	if (changed) {
		__atomic_fetch_add(&debug_pagealloc_stats.shootdowns, 1, __ATOMIC_RELAXED);
		flush_tlb_kernel_range(va, va + n * PAGE_SIZE);
	}
}

/*
 * After paging_init(), on the boot CPU alone: every page free by then
 * leaves the direct map, then one flush; from here on the allocator's
 * hooks keep "absent" and "free" the same set of pages.
 */
void __init debug_pagealloc_init(void)
{
	unsigned long n = 0;

	if (!_debug_pagealloc_enabled)
		return;
	for (unsigned long pfn = 0; pfn < max_low_pfn; pfn++)
		if (page_is_free(pfn))
			n += flip_pages(pfn << PAGE_SHIFT, 1, false);
	__flush_tlb_all();
	debug_pagealloc_stats.unmapped = n;
	_debug_pagealloc_armed = true;
	pr_info("debug_pagealloc: %lu free pages unmapped from the direct map (4K ptes: %lu page tables)\n",
		n, nr_pagetable_pages);
}

bool debug_pagealloc_free_page_hit(unsigned long va)
{
	return _debug_pagealloc_armed && va >= PAGE_OFFSET &&
	       PFN_DOWN(__pa(va)) < max_low_pfn && page_is_free(PFN_DOWN(__pa(va)));
}

/* CPA: the absent pte of a free page at va, whose attributes may change too; or NULL. */
pteval_t *debug_pagealloc_lookup(unsigned long va)
{
	pteval_t *pte;

	if (!debug_pagealloc_free_page_hit(va) || !(pte = direct_map_pte(__pa(va))))
		return 0;
	return (*pte & _PAGE_PRESENT) ? 0 : pte;
}
