// SPDX-License-Identifier: GPL-2.0-only
/* mm/pfn_bitmap.c: the allocator's bookkeeping. */
#include "check.h"
#include "../../mm/pfn_bitmap.c"

static uint32_t bits[4];	/* 128 frames */
static struct pfn_bitmap b;

TEST(starts_all_used)
{
	pfn_bitmap_init(&b, bits, 100);
	CHECK_EQ(b.nr_free, 0);
	CHECK_EQ(pfn_bitmap_alloc(&b), -1);
}

TEST(free_range_then_reserve)
{
	pfn_bitmap_init(&b, bits, 100);
	pfn_bitmap_free_range(&b, 10, 200);	/* clipped at 100 */
	CHECK_EQ(b.nr_free, 90);
	pfn_bitmap_free_range(&b, 10, 20);	/* freeing free frames counts nothing */
	CHECK_EQ(b.nr_free, 90);
	pfn_bitmap_reserve_range(&b, 0, 16);
	CHECK_EQ(b.nr_free, 84);
	CHECK_EQ(pfn_bitmap_alloc(&b), 16);	/* lowest free first */
}

TEST(alloc_free_balance_and_double_free)
{
	pfn_bitmap_init(&b, bits, 64);
	pfn_bitmap_free_range(&b, 0, 64);
	long a = pfn_bitmap_alloc(&b), c = pfn_bitmap_alloc(&b);
	CHECK(a >= 0 && c >= 0 && a != c);
	CHECK_EQ(b.nr_free, 62);
	CHECK_EQ(pfn_bitmap_free(&b, (unsigned long)a), 0);
	CHECK_EQ(pfn_bitmap_free(&b, (unsigned long)a), -EINVAL);
	CHECK_EQ(pfn_bitmap_free(&b, 64), -EINVAL);
	CHECK_EQ(b.nr_free, 63);
	CHECK_EQ(pfn_bitmap_alloc(&b), a);	/* the hint went back down */
}

TEST(exhaustion)
{
	pfn_bitmap_init(&b, bits, 40);
	pfn_bitmap_free_range(&b, 33, 40);
	for (int i = 0; i < 7; i++)
		CHECK(pfn_bitmap_alloc(&b) >= 33);
	CHECK_EQ(pfn_bitmap_alloc(&b), -1);
	CHECK_EQ(b.nr_free, 0);
}

TEST(contiguous_ranges)
{
	pfn_bitmap_init(&b, bits, 64);
	pfn_bitmap_free_range(&b, 0, 64);
	pfn_bitmap_reserve_range(&b, 3, 4);		/* a hole at 3 */
	CHECK_EQ(pfn_bitmap_alloc_range(&b, 3), 0);
	CHECK_EQ(pfn_bitmap_alloc_range(&b, 3), 4);	/* 3 is taken: skip it */
	CHECK_EQ(pfn_bitmap_alloc_range(&b, 100), -1);
	CHECK_EQ(pfn_bitmap_alloc_range(&b, 0), -1);
	CHECK_EQ(b.nr_free, 64 - 1 - 6);
	for (unsigned long i = 0; i < 3; i++)
		CHECK_EQ(pfn_bitmap_free(&b, i), 0);
	CHECK_EQ(pfn_bitmap_alloc_range(&b, 2), 0);	/* reuse of a freed run */
}

TEST(next_fit_reuses_late)
{
	unsigned long cursor = 0;

	pfn_bitmap_init(&b, bits, 16);
	pfn_bitmap_free_range(&b, 0, 16);
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 4, &cursor), 0);
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 4, &cursor), 4);
	for (unsigned long i = 0; i < 4; i++)
		pfn_bitmap_free(&b, i);
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 4, &cursor), 8);	/* not 0 again */
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 4, &cursor), 12);
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 4, &cursor), 0);	/* wraps */
	CHECK_EQ(pfn_bitmap_alloc_range_next(&b, 1, &cursor), -1);	/* full */
}

int main(void)
{
	RUN(starts_all_used);
	RUN(free_range_then_reserve);
	RUN(alloc_free_balance_and_double_free);
	RUN(exhaustion);
	RUN(contiguous_ranges);
	RUN(next_fit_reuses_late);
	return check_done();
}
