/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PFN_BITMAP_H
#define RONX_PFN_BITMAP_H
#include <stdbool.h>
#include <stdint.h>

struct pfn_bitmap {
	uint32_t *bits;
	unsigned long nr;	/* frames covered */
	unsigned long nr_free;
	unsigned long hint;	/* no free frame below this one */
};

void pfn_bitmap_init(struct pfn_bitmap *b, uint32_t *bits, unsigned long nr);
bool pfn_bitmap_is_free(const struct pfn_bitmap *b, unsigned long pfn);
void pfn_bitmap_free_range(struct pfn_bitmap *b, unsigned long start, unsigned long end);
void pfn_bitmap_reserve_range(struct pfn_bitmap *b, unsigned long start, unsigned long end);
long pfn_bitmap_alloc(struct pfn_bitmap *b);
int pfn_bitmap_free(struct pfn_bitmap *b, unsigned long pfn);
long pfn_bitmap_alloc_range(struct pfn_bitmap *b, unsigned long n);
long pfn_bitmap_alloc_range_next(struct pfn_bitmap *b, unsigned long n, unsigned long *cursor);
#endif
