// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical page allocator: every RAM page below the end of the direct
 * map, minus what is already taken (the low 1 MiB, the kernel image, the
 * boot loader's information and modules). Pages are handed out zeroed and
 * reached through the direct map (__va).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/bootinfo.h>
#include <ronx/pfn_bitmap.h>
#include <ronx/mm.h>

static uint32_t pfn_bits[MAXMEM / PAGE_SIZE / 32];
static struct pfn_bitmap frames;
unsigned long max_low_pfn;
static unsigned long total_pages;

static unsigned long __init find_max_low_pfn(void)
{
	unsigned long long top = 0;

	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct mmap_entry *e = &boot_info.mmap[i];
		if (e->type == E820_RAM && e->addr + e->len > top)
			top = e->addr + e->len;
	}
	if (top > MAXMEM)
		top = MAXMEM;
	return (unsigned long)(top >> PAGE_SHIFT);
}

void __init page_alloc_init(void)
{
	max_low_pfn = find_max_low_pfn();
	pfn_bitmap_init(&frames, pfn_bits, max_low_pfn);

	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct mmap_entry *e = &boot_info.mmap[i];
		if (e->type == E820_RAM && e->addr < MAXMEM)
			pfn_bitmap_free_range(&frames, PFN_UP(e->addr),
					      PFN_DOWN(e->addr + e->len));
	}
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
}

unsigned long alloc_page(void)
{
	long pfn = pfn_bitmap_alloc(&frames);

	if (pfn < 0)
		return 0;
	memset(__va(pfn << PAGE_SHIFT), 0, PAGE_SIZE);
	return (unsigned long)pfn << PAGE_SHIFT;
}

void free_page(unsigned long phys)
{
	if (pfn_bitmap_free(&frames, PFN_DOWN(phys)) != 0)
		pr_err("free_page: bad or double free of page %#lx\n", phys);
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
	total_pages++;
	free_page(phys);
}
