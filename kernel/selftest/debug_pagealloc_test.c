// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of debug_pagealloc (mm/debug_pagealloc.c): a freed page
 * leaves the direct map and faults, an allocated one is back, and the
 * pages absent from the direct map are the free ones. Skipped on a boot
 * without the option. tests/qemu/test_pagealloc.py checks the same from
 * outside, with QEMU's `info tlb`.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/recovery.h>
#include <ronx/mm.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/ktest.h>

static bool mapped(unsigned long pa)
{
	enum pg_level level;

	return lookup_address((unsigned long)__va(pa), &level) != 0;
}

KTEST(debug_pagealloc, free_page_leaves_direct_map)
{
	unsigned long pa;
	unsigned char v;

	if (!debug_pagealloc_enabled())
		return kt_skip(t, "booted without debug_pagealloc");
	pa = alloc_page();
	KT_EXPECT(t, pa != 0, "no page");
	if (!pa)
		return;
	KT_EXPECT(t, mapped(pa), "an allocated page %#lx is not in the direct map", pa);
	*(volatile unsigned char *)__va(pa) = 0x5a;
	free_page(pa);
	KT_EXPECT(t, !mapped(pa), "a freed page %#lx is still in the direct map", pa);
	KT_EXPECT(t, probe_read(__va(pa), &v) == -EFAULT, "a freed page %#lx is still readable", pa);
}

KTEST(debug_pagealloc, absent_pages_are_the_free_ones)
{
	unsigned long absent = 0, free_mapped = 0, free = nr_free_pages();

	if (!debug_pagealloc_enabled())
		return kt_skip(t, "booted without debug_pagealloc");
	for (unsigned long pfn = 0; pfn < max_low_pfn; pfn++) {
		bool m = mapped(pfn << PAGE_SHIFT);

		absent += !m;
		free_mapped += m && page_is_free(pfn);
	}
	KT_EXPECT(t, absent == free && !free_mapped,
		  "%lu pages absent, %lu free, %lu free but mapped", absent, free, free_mapped);
}
