// SPDX-License-Identifier: GPL-2.0-only
/* Self-tests of change_page_attr: splits, static protections, W^X refusal. */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/recovery.h>
#include <ronx/pageattr.h>
#include <ronx/mm.h>
#include <ronx/ktest.h>

extern bool rodata_enabled;

static pteval_t flags_of(unsigned long va, enum pg_level *level)
{
	pteval_t *pte = lookup_address(va, level);

	return pte ? *pte : 0;
}

/*
 * A page in the 2 MiB-mapped part of the direct map. The allocator hands
 * out low pages first, which sit in the 4K-mapped first 2 MiB: skip those,
 * chaining them through their own first word, and give them back after.
 */
static unsigned long large_mapped_page(void)
{
	unsigned long skipped = 0, pa;
	enum pg_level level;

	while ((pa = alloc_page()) != 0) {
		if (lookup_address((unsigned long)__va(pa), &level) && level == PG_LEVEL_2M)
			break;
		*(unsigned long *)__va(pa) = skipped;
		skipped = pa;
	}
	while (skipped) {
		unsigned long next = *(unsigned long *)__va(skipped);
		free_page(skipped);
		skipped = next;
	}
	return pa;
}

KTEST(pageattr, split_only_the_covered_page)
{
	unsigned long pa = large_mapped_page(), va = (unsigned long)__va(pa);
	unsigned long splits = cpa_stats.splits;
	enum pg_level level;

	if (!pa && !direct_map_large_page())
		return kt_skip(t, "no 2M page in the direct map (under 4M of RAM)");
	KT_EXPECT(t, pa, "no free page in a 2M mapping");
	if (!pa)
		return;
	KT_EXPECT(t, set_memory_ro(va, 1) == 0, "set_memory_ro failed");
	KT_EXPECT(t, cpa_stats.splits == splits + 1, "splits %lu -> %lu", splits, cpa_stats.splits);
	KT_EXPECT(t, !(flags_of(va, &level) & _PAGE_RW) && level == PG_LEVEL_4K, "page not RO 4K");
	KT_EXPECT(t, flags_of(va + PAGE_SIZE, &level) & _PAGE_RW, "neighbour lost RW");
	KT_EXPECT(t, probe_write_same((void *)va) == -EFAULT, "RO page still writable");
	KT_EXPECT(t, set_memory_rw(va, 1) == 0, "set_memory_rw failed");
	KT_EXPECT(t, probe_write_same((void *)va) == 0, "page not writable again");
	KT_EXPECT(t, lookup_address(va, &level) && level == PG_LEVEL_2M,
		  "uniform again but not collapsed back to a 2M page");
	free_page(pa);
}

KTEST(pageattr, whole_large_page_is_not_split)
{
	unsigned long va = direct_map_large_page(), splits = cpa_stats.splits;
	enum pg_level level;

	if (!va)
		return kt_skip(t, "no 2M page in the direct map");
	KT_EXPECT(t, set_memory_ro(va, PTRS_PER_PTE) == 0, "set_memory_ro failed");
	KT_EXPECT(t, cpa_stats.splits == splits, "a whole 2M request split the page");
	KT_EXPECT(t, !(flags_of(va + 5 * PAGE_SIZE, &level) & _PAGE_RW) && level == PG_LEVEL_2M,
		  "2M page not RO");
	KT_EXPECT(t, set_memory_rw(va, PTRS_PER_PTE) == 0, "set_memory_rw failed");
}

KTEST(pageattr, wx_request_is_refused)
{
	unsigned long pa = alloc_page(), va = (unsigned long)__va(pa);
	unsigned long refused = cpa_stats.refused;
	enum pg_level level;

	if (!nx_enabled) {
		free_page(pa);
		return kt_skip(t, "NX is not in use: every page is executable anyway");
	}
	KT_EXPECT(t, set_memory_x(va, 1) == -EPERM, "RW page made executable");
	KT_EXPECT(t, flags_of(va, &level) & _PAGE_NX, "page lost NX");
	KT_EXPECT(t, cpa_stats.refused == refused + 1, "refusal not counted");
	free_page(pa);
}

KTEST(pageattr, text_never_becomes_nx)
{
	unsigned long text = (unsigned long)_text;
	enum pg_level level;

	if (!nx_enabled)
		return kt_skip(t, "NX is not in use");
	KT_EXPECT(t, set_memory_nx(text, 1) == 0, "set_memory_nx failed");
	KT_EXPECT(t, !(flags_of(text, &level) & _PAGE_NX), "kernel text became NX");
}

KTEST(pageattr, rodata_never_becomes_rw)
{
	unsigned long ro = (unsigned long)__start_rodata;
	enum pg_level level;

	if (!rodata_enabled)
		return kt_skip(t, "rodata=off: rodata was never sealed");
	KT_EXPECT(t, set_memory_rw(ro, 1) == 0, "set_memory_rw failed");
	KT_EXPECT(t, !(flags_of(ro, &level) & _PAGE_RW), "rodata became writable");
}

KTEST(pageattr, unmapped_range_changes_nothing)
{
	KT_EXPECT(t, set_memory_ro(0x00400000, 1) == -EFAULT, "unmapped range accepted");
}

/*
 * A page of three contiguous ones (pa) in a 4K mapping, for a test that
 * needs one: the middle page, whose neighbour in the same 2 MiB is made
 * read-only if the middle one is 2M-mapped, which splits the 2M page
 * (the low, 4K-mapped pages may all be taken). *neighbour: that page, to
 * give back with set_memory_rw(), or 0.
 */
static unsigned long split_middle_page(unsigned long pa, unsigned long *neighbour)
{
	unsigned long va = (unsigned long)__va(pa) + PAGE_SIZE;
	enum pg_level level;

	*neighbour = 0;
	if (lookup_address(va, &level) && level == PG_LEVEL_4K)
		return va;
	*neighbour = va & (PMD_SIZE - 1) ? va - PAGE_SIZE : va + PAGE_SIZE;
	if (set_memory_ro(*neighbour, 1))
		return 0;
	return lookup_address(va, &level) && level == PG_LEVEL_4K ? va : 0;
}

/*
 * The CPU caches translations: a change is only in force once the TLB
 * entry is flushed. Load the entry first (write, execute), then change
 * the page and use it again at once.
 */
KTEST(pageattr, ro_takes_effect_at_once)
{
	unsigned long pa = alloc_pages(3), neighbour, va;

	KT_EXPECT(t, pa, "no three free pages");
	if (!pa)
		return;
	va = split_middle_page(pa, &neighbour);
	KT_EXPECT(t, va, "no page of %08lx-%08lx in a 4K mapping", pa, pa + 3 * PAGE_SIZE);
	if (va) {
		KT_EXPECT(t, probe_write_same((void *)va) == 0, "fresh page not writable");
		KT_EXPECT(t, set_memory_ro(va, 1) == 0, "set_memory_ro failed");
		KT_EXPECT(t, probe_write_same((void *)va) == -EFAULT,
			  "page %08lx still writable after set_memory_ro: stale TLB entry?", va);
		KT_EXPECT(t, set_memory_rw(va, 1) == 0, "set_memory_rw failed");
		KT_EXPECT(t, probe_write_same((void *)va) == 0, "page %08lx not writable again", va);
	}
	if (neighbour)
		set_memory_rw(neighbour, 1);
	free_pages(pa, 3);
}

KTEST(pageattr, nx_takes_effect_at_once)
{
	unsigned long pa = alloc_page(), va = (unsigned long)__va(pa);

	if (!nx_enabled) {
		free_page(pa);
		return kt_skip(t, "NX is not in use");
	}
	*(unsigned char *)va = 0xc3;	/* ret */
	KT_EXPECT(t, set_memory_ro(va, 1) == 0 && set_memory_x(va, 1) == 0,
		  "could not make the page RO+X");
	KT_EXPECT(t, probe_exec((void *)va, 0) == 0, "RO+X page %08lx not executable", va);
	KT_EXPECT(t, set_memory_nx(va, 1) == 0, "set_memory_nx failed");
	KT_EXPECT(t, probe_exec((void *)va, 0) == -EFAULT,
		  "page %08lx still executable after set_memory_nx: stale TLB entry?", va);
	KT_EXPECT(t, set_memory_rw(va, 1) == 0, "set_memory_rw failed");
	free_page(pa);
}

/*
 * Past CPA_FLUSH_CEILING pages one full flush replaces the invlpgs: the
 * last page of a long request must be read-only at once too. The pages
 * are low memory below 640K (4K ptes, never handed out; nothing else runs
 * while they are read-only), each written once first to load its entry.
 */
KTEST(pageattr, long_request_flushes_everything)
{
	unsigned long va = PAGE_OFFSET + 0x10000;
	int n = 48;

	for (int i = 0; i < n; i++)
		KT_EXPECT(t, probe_write_same((void *)(va + i * PAGE_SIZE)) == 0,
			  "low page %d not writable", i);
	KT_EXPECT(t, set_memory_ro(va, n) == 0, "set_memory_ro failed");
	KT_EXPECT(t, probe_write_same((void *)(va + (n - 1) * PAGE_SIZE)) == -EFAULT,
		  "page %08lx still writable after set_memory_ro of %d pages: stale TLB entry?",
		  va + (n - 1) * PAGE_SIZE, n);
	KT_EXPECT(t, set_memory_rw(va, n) == 0, "set_memory_rw failed");
	KT_EXPECT(t, probe_write_same((void *)(va + (n - 1) * PAGE_SIZE)) == 0,
		  "page not writable again");
}

/* A split must give all 512 ptes the large page's attributes and frames. */
KTEST(pageattr, split_keeps_attributes)
{
	unsigned long va = direct_map_large_page(), bad = 0;
	enum pg_level level;
	pteval_t *pmd = va ? lookup_address(va, &level) : 0, large;

	if (!pmd || level != PG_LEVEL_2M)
		return kt_skip(t, "no 2M page in the direct map");
	KT_EXPECT(t, set_memory_ro(va, PTRS_PER_PTE) == 0, "set_memory_ro failed");
	large = *pmd;
	KT_EXPECT(t, set_memory_rw(va + 7 * PAGE_SIZE, 1) == 0, "set_memory_rw failed");
	for (int i = 0; i < PTRS_PER_PTE; i++) {
		pteval_t *pte = lookup_address(va + i * PAGE_SIZE, &level);
		pteval_t want = (large & ~PMD_PFN_MASK & ~_PAGE_PSE & ~_PAGE_ACCESSED & ~_PAGE_DIRTY) |
				((large & PMD_PFN_MASK) + ((pteval_t)i << PAGE_SHIFT)) |
				(i == 7 ? _PAGE_RW : 0);

		if (!pte || level != PG_LEVEL_4K ||
		    (*pte & ~(pteval_t)(_PAGE_ACCESSED | _PAGE_DIRTY)) != want) {
			if (!bad++)
				kt_fail(t, __FILE__, __LINE__, "pte %d: %llx, expected %llx", i,
					pte ? *pte : 0, want);
		}
	}
	KT_EXPECT(t, !bad, "%lu of 512 ptes wrong after the split", bad);
	KT_EXPECT(t, set_memory_rw(va, PTRS_PER_PTE) == 0, "set_memory_rw failed");
	KT_EXPECT(t, lookup_address(va, &level) && level == PG_LEVEL_2M,
		  "uniform again but not collapsed back to a 2M page");
}
