/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the boot loader's memory map says about RAM, split at the end of
 * the direct map (Linux: LOWMEM below max_low_pfn, HIGHMEM above). Pure:
 * host-tested with entries above 4 GiB (mm/e820.c).
 */
#ifndef RONX_E820_H
#define RONX_E820_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/bootinfo.h>

uint64_t e820_ram_end(const struct mmap_entry *map, int n, uint64_t limit);
uint64_t e820_ram_above(const struct mmap_entry *map, int n, uint64_t limit);
bool e820_low_pfns(const struct mmap_entry *e, uint64_t limit,
		   unsigned long *start_pfn, unsigned long *end_pfn);
uint64_t e820_find_low_page(const struct mmap_entry *map, int n, uint64_t low, uint64_t high,
			    const uint64_t (*avoid)[2], int n_avoid);
#endif
