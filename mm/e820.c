// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory map, read in 64 bits: with PAE a machine may have RAM above
 * 4 GiB (QEMU -m 5G puts 1 GiB there), and an entry's end can overflow 32
 * bits. ronx uses only RAM below its direct map's limit (896 MiB); the
 * rest is counted so the boot can say how much is left unused.
 */
#include <ronx/memlayout.h>
#include <ronx/e820.h>

static uint64_t entry_end(const struct mmap_entry *e)
{
	/* a bogus length must not wrap around to a small end */
	return e->len > UINT64_MAX - e->addr ? UINT64_MAX : e->addr + e->len;
}

/* The end of the highest RAM, at most limit. */
uint64_t e820_ram_end(const struct mmap_entry *map, int n, uint64_t limit)
{
	uint64_t top = 0;

	for (int i = 0; i < n; i++) {
		uint64_t end = entry_end(&map[i]);

		if (map[i].type == E820_RAM && end > top)
			top = end;
	}
	return top < limit ? top : limit;
}

/* Bytes of RAM at or above limit: what a kernel without highmem leaves out. */
uint64_t e820_ram_above(const struct mmap_entry *map, int n, uint64_t limit)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++) {
		uint64_t start = map[i].addr, end = entry_end(&map[i]);

		if (map[i].type != E820_RAM || end <= limit)
			continue;
		sum += end - (start > limit ? start : limit);
	}
	return sum;
}

/* The whole pages of a RAM entry below limit, as [start_pfn, end_pfn); false if none. */
bool e820_low_pfns(const struct mmap_entry *e, uint64_t limit,
		   unsigned long *start_pfn, unsigned long *end_pfn)
{
	uint64_t start = (e->addr + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
	uint64_t end = entry_end(e);

	if (e->type != E820_RAM || e->addr > UINT64_MAX - PAGE_SIZE)
		return false;
	if (end > limit)
		end = limit;
	end &= ~(uint64_t)(PAGE_SIZE - 1);
	if (start >= end)
		return false;
	*start_pfn = (unsigned long)(start >> PAGE_SHIFT);
	*end_pfn = (unsigned long)(end >> PAGE_SHIFT);
	return true;
}

static bool overlaps(uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end)
{
	return a < b_end && b < a_end;
}

/*
 * The highest whole RAM page in [low, high) that overlaps none of the
 * n_avoid ranges {start, end} (what the boot loader left there): where
 * the SMP trampoline goes, as high as Linux puts its real-mode code.
 * Returns its physical address, or 0 if there is none.
 */
uint64_t e820_find_low_page(const struct mmap_entry *map, int n, uint64_t low, uint64_t high,
			    const uint64_t (*avoid)[2], int n_avoid)
{
	for (uint64_t pa = (high & ~(uint64_t)(PAGE_SIZE - 1)); pa >= low + PAGE_SIZE; ) {
		bool ok = false;

		pa -= PAGE_SIZE;
		for (int i = 0; i < n && !ok; i++)
			ok = map[i].type == E820_RAM && map[i].addr <= pa &&
			     entry_end(&map[i]) >= pa + PAGE_SIZE;
		for (int i = 0; i < n_avoid && ok; i++)
			ok = !overlaps(pa, pa + PAGE_SIZE, avoid[i][0], avoid[i][1]);
		if (ok)
			return pa;
	}
	return 0;
}
