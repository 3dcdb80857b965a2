// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame reference counts for user memory, and the zero page (Linux:
 * struct page's _mapcount, mm/memory.c's ZERO_PAGE).
 *
 * One byte per frame below the end of the direct map, allocated once at
 * boot from the allocator itself (a 2 MiB machine spends one page on it,
 * 896 MiB 56 pages): a frame can be mapped at most once per process, and
 * there are at most NR_TASKS processes, so a byte never overflows. The
 * count is changed with atomic operations: two processes that share a
 * frame may fault on it on two CPUs at once, each dropping its own
 * reference after it has its own copy (mm/memory.c, do_wp_page()).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/init.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/page_ref.h>

static uint8_t *frame_refs;
unsigned long zero_page_pa;

void __init page_ref_init(void)
{
	unsigned long pages = PFN_UP(max_low_pfn), pa = alloc_pages(pages);

	zero_page_pa = alloc_page();
	if (!pa || !zero_page_pa)
		refuse_boot(KERN_ERR "ronx: cannot boot: no memory for %lu frame counts and the zero page\n",
			    max_low_pfn);
	frame_refs = __va(pa);
}

unsigned page_ref_count(unsigned long pa)
{
	unsigned long pfn = PFN_DOWN(pa);

	return pfn < max_low_pfn ? __atomic_load_n(&frame_refs[pfn], __ATOMIC_RELAXED) : 0;
}

void set_user_frame_ref(unsigned long pa, unsigned n)
{
	__atomic_store_n(&frame_refs[PFN_DOWN(pa)], (uint8_t)n, __ATOMIC_RELAXED);
}

void get_user_frame(unsigned long pa)
{
	if (!is_zero_frame(pa))
		__atomic_fetch_add(&frame_refs[PFN_DOWN(pa)], 1, __ATOMIC_SEQ_CST);
}

/*
 * A PTE no longer maps pa. The caller has flushed every TLB that could
 * hold that PTE: the frame may be another process's a moment later.
 */
void put_user_frame(unsigned long pa)
{
	uint8_t left;

	if (is_zero_frame(pa))
		return;
	left = __atomic_sub_fetch(&frame_refs[PFN_DOWN(pa)], 1, __ATOMIC_SEQ_CST);
	if (left == 0)
		free_page(pa);
	else if (left == 0xff)
		pr_err("page_ref: frame %#lx dropped below zero references\n", pa);
}
