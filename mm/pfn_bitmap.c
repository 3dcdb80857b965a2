// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bookkeeping for the physical page allocator: one bit per page frame,
 * set = in use. Pure (host-tested); mm/page_alloc.c wraps it with the
 * memory map and the direct map.
 */
#include <ronx/compiler.h>
#include <ronx/pfn_bitmap.h>

#define BITS 32

static bool test_bit(const struct pfn_bitmap *b, unsigned long pfn)
{
	return b->bits[pfn / BITS] & (1u << (pfn % BITS));
}

static void set_bit_(struct pfn_bitmap *b, unsigned long pfn)
{
	b->bits[pfn / BITS] |= 1u << (pfn % BITS);
}

static void clear_bit_(struct pfn_bitmap *b, unsigned long pfn)
{
	b->bits[pfn / BITS] &= ~(1u << (pfn % BITS));
}

/* Starts with every frame in use: only what the memory map says is RAM gets freed. */
void pfn_bitmap_init(struct pfn_bitmap *b, uint32_t *bits, unsigned long nr)
{
	b->bits = bits;
	b->nr = nr;
	b->nr_free = 0;
	b->hint = 0;
	for (unsigned long i = 0; i < (nr + BITS - 1) / BITS; i++)
		bits[i] = ~0u;
}

bool pfn_bitmap_is_free(const struct pfn_bitmap *b, unsigned long pfn)
{
	return pfn < b->nr && !test_bit(b, pfn);
}

/* Marks [start, end) free; frames beyond the bitmap are ignored. */
void pfn_bitmap_free_range(struct pfn_bitmap *b, unsigned long start, unsigned long end)
{
	for (unsigned long pfn = start; pfn < end && pfn < b->nr; pfn++) {
		if (test_bit(b, pfn)) {
			clear_bit_(b, pfn);
			b->nr_free++;
		}
	}
	if (start < b->hint)
		b->hint = start;
}

/* Marks [start, end) in use (a reservation). */
void pfn_bitmap_reserve_range(struct pfn_bitmap *b, unsigned long start, unsigned long end)
{
	for (unsigned long pfn = start; pfn < end && pfn < b->nr; pfn++) {
		if (!test_bit(b, pfn)) {
			set_bit_(b, pfn);
			b->nr_free--;
		}
	}
}

/* Lowest free frame, or -1. Low frames first: early page tables need them. */
long pfn_bitmap_alloc(struct pfn_bitmap *b)
{
	for (unsigned long pfn = b->hint; pfn < b->nr; pfn++) {
		if (b->bits[pfn / BITS] == ~0u) {
			pfn |= BITS - 1;	/* skip a full word */
			continue;
		}
		if (!test_bit(b, pfn)) {
			set_bit_(b, pfn);
			b->nr_free--;
			b->hint = pfn + 1;
			return (long)pfn;
		}
	}
	return -1;
}

/* -EINVAL for a frame out of range or already free (a double free). */
int pfn_bitmap_free(struct pfn_bitmap *b, unsigned long pfn)
{
	if (pfn >= b->nr || !test_bit(b, pfn))
		return -EINVAL;
	clear_bit_(b, pfn);
	b->nr_free++;
	if (pfn < b->hint)
		b->hint = pfn;
	return 0;
}

static long alloc_range_in(struct pfn_bitmap *b, unsigned long n, unsigned long from,
			   unsigned long to)
{
	unsigned long run = 0;

	for (unsigned long i = from; i < to; i++) {
		run = test_bit(b, i) ? 0 : run + 1;
		if (run == n) {
			unsigned long start = i + 1 - n;
			pfn_bitmap_reserve_range(b, start, i + 1);
			if (start == b->hint)
				b->hint = i + 1;
			return (long)start;
		}
	}
	return -1;
}

/* First run of n free entries, marked used; its first index, or -1. */
long pfn_bitmap_alloc_range(struct pfn_bitmap *b, unsigned long n)
{
	return n ? alloc_range_in(b, n, b->hint, b->nr) : -1;
}

/*
 * The same, but searching from *cursor on and wrapping around once (next
 * fit), and moving the cursor past the run: freed entries are reused as
 * late as possible.
 */
long pfn_bitmap_alloc_range_next(struct pfn_bitmap *b, unsigned long n, unsigned long *cursor)
{
	long start;

	if (n == 0)
		return -1;
	start = alloc_range_in(b, n, *cursor, b->nr);
	if (start < 0)
		start = alloc_range_in(b, n, 0, *cursor + n < b->nr ? *cursor + n : b->nr);
	if (start >= 0)
		*cursor = (unsigned long)start + n;
	return start;
}
