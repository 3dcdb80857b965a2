// SPDX-License-Identifier: GPL-2.0-only
/* Self-tests of the page allocator and the page-table layer. */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/recovery.h>
#include <ronx/mm.h>
#include <ronx/ktest.h>
#include <ronx/debug_pagealloc.h>

KTEST(paging, alloc_free_balance)
{
	unsigned long before = nr_free_pages();
	unsigned long a = alloc_page(), b = alloc_page();

	KT_EXPECT(t, a && b && a != b, "pages %lx %lx", a, b);
	KT_EXPECT(t, nr_free_pages() == before - 2, "free %lu, expected %lu",
		  nr_free_pages(), before - 2);
	KT_EXPECT(t, *(unsigned long *)__va(a) == 0, "page not zeroed");
	free_page(a);
	free_page(b);
	KT_EXPECT(t, nr_free_pages() == before, "free %lu, expected %lu", nr_free_pages(), before);
}

KTEST(paging, kernel_image_uses_4k_ptes)
{
	enum pg_level level;
	pteval_t *pte = lookup_address((unsigned long)_text, &level);

	KT_EXPECT(t, pte && level == PG_LEVEL_4K, "level %d", level);
	KT_EXPECT(t, pte && (*pte & PTE_PFN_MASK) == __pa(_text), "pfn %llx",
		  pte ? *pte & PTE_PFN_MASK : 0);
}

KTEST(paging, direct_map_uses_2m_pages)
{
	/* paging_init() maps every whole 2M of RAM above the image with one pmd */
	unsigned long first = PMD_SIZE * ((__pa(_end) + PMD_SIZE - 1) / PMD_SIZE);
	unsigned long end = max_low_pfn << PAGE_SHIFT;
	enum pg_level level;

	if (first + PMD_SIZE > end)
		return kt_skip(t, "no whole 2M of RAM above the kernel image");
	if (debug_pagealloc_enabled())
		return kt_skip(t, "debug_pagealloc maps RAM with 4K ptes");
	KT_EXPECT(t, lookup_address(PAGE_OFFSET + first, &level) && level == PG_LEVEL_2M,
		  "0x%08lx: level %d", PAGE_OFFSET + first, level);
	KT_EXPECT(t, direct_map_large_page() != 0, "no 2M page anywhere in the direct map");
}

KTEST(paging, nothing_below_page_offset)
{
	enum pg_level level;

	KT_EXPECT(t, !lookup_address(0, &level), "0 is mapped");
	KT_EXPECT(t, !lookup_address(0x100000, &level), "1 MiB is mapped (identity left?)");
}

KTEST(paging, map_write_unmap)
{
	unsigned long before = nr_free_pages(), va = ALIAS_VADDR, pa = alloc_page();
	unsigned char v;

	KT_EXPECT(t, pa != 0, "no page");
	if (!pa)
		return;
	KT_EXPECT(t, map_page(va, pa, PAGE_KERNEL) == 0, "map_page failed");
	*(volatile unsigned long *)va = 0x5a5a1234;
	KT_EXPECT(t, *(unsigned long *)__va(pa) == 0x5a5a1234, "alias does not reach the page");
	KT_EXPECT(t, unmap_page(va) == 0, "unmap_page failed");
	KT_EXPECT(t, probe_read((void *)va, &v) == -EFAULT, "still readable after unmap");
	free_page(pa);
	/* the page table map_page() needed went with the last mapping in it */
	KT_EXPECT(t, nr_free_pages() == before, "pages leaked: %lu != %lu", nr_free_pages(), before);
}
