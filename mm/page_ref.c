// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame reference counts for user memory, and the zero page (Linux:
 * struct page's _mapcount, mm/memory.c's ZERO_PAGE).
 *
 * One byte per frame below the end of the direct map (a 128 MiB machine
 * spends 8 pages on it, 896 MiB 56): a frame can be mapped at most once
 * per process, and there are at most NR_TASKS processes, so a byte never
 * overflows. The table and the zero page exist only while an mm does
 * (page_ref_mm_get() in mm_alloc(), page_ref_mm_put() when an mm's last
 * page goes): a machine running no process keeps every page, which the
 * 2 MiB machine's self-tests count on. The counts change with atomic
 * operations: two processes that share a frame may fault on it on two
 * CPUs at once, each dropping its own reference after it has its own
 * copy. Taking and dropping a reference (get_user_frame(),
 * put_user_frame()) is copy-on-write's business: mm/cow.c, the cow lab's.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/spinlock.h>
#include <ronx/mm.h>
#include <ronx/page_ref.h>

uint8_t *frame_refs;		/* one count per frame; get/put in mm/cow.c */
static unsigned long refs_pages, nr_mms;
unsigned long zero_page_pa;
/* guards nr_mms, and the table and the zero page coming and going; taken before zone_lock */
static DEFINE_SPINLOCK(refs_lock);

/*
 * A new mm: the first makes the table and the zero page; -ENOMEM if it
 * cannot. Pages are freed after refs_lock is given back (here and in
 * page_ref_mm_put()): under debug_pagealloc a free sends a shootdown,
 * and call_lock comes before refs_lock in docs/design.md's order.
 */
int page_ref_mm_get(void)
{
	unsigned long flags, pa = 0, pages = 0;
	int ret = 0;

	spin_lock_irqsave(&refs_lock, flags);
	if (!nr_mms) {
		unsigned long zero;

		pages = PFN_UP(max_low_pfn);
		pa = alloc_pages(pages);
		zero = pa ? alloc_page() : 0;
		if (zero) {
			frame_refs = __va(pa);
			refs_pages = pages;
			zero_page_pa = zero;
			pa = 0;		/* kept */
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret)
		nr_mms++;
	spin_unlock_irqrestore(&refs_lock, flags);
	if (pa)
		free_pages(pa, pages);
	return ret;
}

/* An mm is gone, every frame of it put: the last one takes the table and the zero page. */
void page_ref_mm_put(void)
{
	unsigned long flags, table = 0, pages = 0, zero = 0;

	spin_lock_irqsave(&refs_lock, flags);
	if (!--nr_mms) {
		table = __pa(frame_refs);
		pages = refs_pages;
		zero = zero_page_pa;
		frame_refs = 0;
		zero_page_pa = 0;
	}
	spin_unlock_irqrestore(&refs_lock, flags);
	if (zero) {
		free_pages(table, pages);
		free_page(zero);
	}
}

/* Frames mapped by more than one PTE (meminfo); 0 while no mm exists. */
unsigned long nr_shared_frames(void)
{
	unsigned long flags, n = 0;

	spin_lock_irqsave(&refs_lock, flags);
	for (unsigned long pfn = 0; frame_refs && pfn < max_low_pfn; pfn++)
		n += frame_refs[pfn] > 1;
	spin_unlock_irqrestore(&refs_lock, flags);
	return n;
}

unsigned page_ref_count(unsigned long pa)
{
	unsigned long pfn = PFN_DOWN(pa);

	return frame_refs && pfn < max_low_pfn ? __atomic_load_n(&frame_refs[pfn], __ATOMIC_RELAXED) : 0;
}

void set_user_frame_ref(unsigned long pa, unsigned n)
{
	__atomic_store_n(&frame_refs[PFN_DOWN(pa)], (uint8_t)n, __ATOMIC_RELAXED);
}
