// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical page allocator: every RAM page below the end of the direct
 * map, minus what is already taken (the low 1 MiB, the kernel image, the
 * boot loader's information and modules). Pages are handed out zeroed and
 * reached through the direct map (__va). zone_lock (Linux's name) keeps
 * two CPUs from taking the same frame; it is taken last, inside every
 * other lock (docs/design.md).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/bootinfo.h>
#include <ronx/e820.h>
#include <ronx/init.h>
#include <ronx/pfn_bitmap.h>
#include <ronx/spinlock.h>
#include <ronx/mm.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/slab.h>

static uint32_t pfn_bits[MAXMEM / PAGE_SIZE / 32];
static struct pfn_bitmap frames;
unsigned long max_low_pfn;
static unsigned long total_pages;
static DEFINE_SPINLOCK(zone_lock);

/*
 * The fewest free pages ronx runs with: paging_init()'s tables, the
 * autoloaded modules, the shell and every self-test. Measured with QEMU
 * -m: 1600K of RAM leaves 144K free and passes selftest; 1536K leaves 80K
 * and the "big" module no longer loads. tests/qemu/test_refuse.py boots
 * 2M (the smallest size we promise) and 1536K (refused).
 */
#define MIN_FREE_PAGES	32

/* Linux prints "NMB HIGHMEM available."; ronx has no highmem, so it says so. */
static void __init report_highmem(void)
{
	uint64_t high = e820_ram_above(boot_info.mmap, boot_info.nr_mmap, MAXMEM);

	if (high)
		pr_info("%luMB HIGHMEM available, not used: ronx maps only the %luMB LOWMEM of its direct map\n",
			(unsigned long)(high >> 20), max_low_pfn >> (20 - PAGE_SHIFT));
}

void __init page_alloc_init(void)
{
	unsigned long start, end;

	max_low_pfn = (unsigned long)(e820_ram_end(boot_info.mmap, boot_info.nr_mmap, MAXMEM)
				      >> PAGE_SHIFT);
	pfn_bitmap_init(&frames, pfn_bits, max_low_pfn);

	for (int i = 0; i < boot_info.nr_mmap; i++)
		if (e820_low_pfns(&boot_info.mmap[i], MAXMEM, &start, &end))
			pfn_bitmap_free_range(&frames, start, end);
	/* The low 1 MiB holds the BIOS, the IVT and ISA holes: never hand it out. */
	pfn_bitmap_reserve_range(&frames, 0, PFN_DOWN(BIOS_END));
	pfn_bitmap_reserve_range(&frames, PFN_DOWN(__pa(_text)), PFN_UP(__pa(_end)));
	pfn_bitmap_reserve_range(&frames, PFN_DOWN(boot_info.info_start),
				 PFN_UP(boot_info.info_end));
	for (int i = 0; i < boot_info.nr_mods; i++)
		pfn_bitmap_reserve_range(&frames, PFN_DOWN(boot_info.mods[i].start),
					 PFN_UP(boot_info.mods[i].end));
	total_pages = frames.nr_free;
	pr_info("Memory: %luK/%luK available (%luK kernel image)\n",
		frames.nr_free * 4, max_low_pfn * 4,
		(unsigned long)(_end - _text) >> 10);
	report_highmem();
	if (frames.nr_free < MIN_FREE_PAGES)
		refuse_boot(KERN_ERR "ronx: cannot boot: only %luK free after the kernel and initrd (RAM ends at %luK); ronx needs %luK free (2M of RAM will do)\n",
			    frames.nr_free * 4, max_low_pfn * 4, MIN_FREE_PAGES * 4UL);
}

unsigned long alloc_page(void)
{
	return alloc_pages(1);
}

/*
 * n physically contiguous pages as the last owner left them; 0 when
 * there are none. Only for a caller that writes every byte before
 * anyone can read one (a copy-on-write's copy): zeroing first would be
 * the page written twice.
 */
unsigned long __alloc_pages(unsigned long n)
{
	unsigned long flags;
	long pfn;

	spin_lock_irqsave(&zone_lock, flags);
	pfn = n == 1 ? pfn_bitmap_alloc(&frames) : pfn_bitmap_alloc_range(&frames, n);
	spin_unlock_irqrestore(&zone_lock, flags);
	if (pfn < 0)
		return 0;
	/* debug_pagealloc: back in the direct map before anyone writes it */
	debug_pagealloc_map_pages((unsigned long)pfn << PAGE_SHIFT, n);
	return (unsigned long)pfn << PAGE_SHIFT;
}

/* n physically contiguous pages, zeroed (a kernel stack); 0 when there are none. */
unsigned long alloc_pages(unsigned long n)
{
	unsigned long pa = __alloc_pages(n);

	if (pa)
		memset(__va(pa), 0, n * PAGE_SIZE);
	return pa;
}

static void __free_one_page(unsigned long phys)
{
	unsigned long flags;
	int bad;

	spin_lock_irqsave(&zone_lock, flags);
	bad = pfn_bitmap_free(&frames, PFN_DOWN(phys));
	spin_unlock_irqrestore(&zone_lock, flags);
	if (bad)
		pr_err("free_page: bad or double free of page %#lx\n", phys);
}

/*
 * debug_pagealloc: the pages leave the direct map, with one shootdown
 * for all n, before they are free: unmapped after, a page could be
 * another CPU's already, and we would unmap it under its new owner.
 * So the shootdown's call_lock is never taken inside zone_lock.
 */
void free_pages(unsigned long phys, unsigned long n)
{
	/* init_on_free: what the page held is gone before anyone else can have it */
	if (want_init_on_free())
		memset(__va(phys), 0, n * PAGE_SIZE);
	debug_pagealloc_unmap_pages(phys, n);
	for (unsigned long i = 0; i < n; i++)
		__free_one_page(phys + i * PAGE_SIZE);
}

void free_page(unsigned long phys)
{
	free_pages(phys, 1);
}

/* Is this frame the allocator's, free? (memview's picture: a snapshot, no lock) */
bool page_is_free(unsigned long pfn)
{
	return pfn < frames.nr && pfn_bitmap_is_free(&frames, pfn);
}

unsigned long nr_free_pages(void)
{
	return frames.nr_free;
}

/* Pages the allocator manages (free at boot, or freed into it since). */
unsigned long totalram_pages(void)
{
	return total_pages;
}

/* Init pages join the allocator after boot: count them as RAM too. */
void free_reserved_page(unsigned long phys)
{
	__atomic_fetch_add(&total_pages, 1, __ATOMIC_RELAXED);
	free_page(phys);
}
