// SPDX-License-Identifier: GPL-2.0-only
/*
 * mm/mmap_range.c: the lengths that wrap when rounded up to pages
 * (0xfffff001..0xffffffff) and the ranges that pass 4 GiB get Linux's
 * i386 errors (issue 20: they used to round to 0 and return 0). The
 * arithmetic is 32-bit on the host too.
 */
#include "check.h"
#include "../../mm/mmap_range.c"

#define P	0x40000000u	/* a page-aligned user address */

TEST(page_align_wraps_to_zero)
{
	CHECK_EQ(page_align_len(1), 0x1000);
	CHECK_EQ(page_align_len(0x1000), 0x1000);
	CHECK_EQ(page_align_len(0xfffff000u), 0xfffff000u);
	CHECK_EQ(page_align_len(0xfffff001u), 0);
	CHECK_EQ(page_align_len(0xffffffffu), 0);
}

TEST(mmap_lengths)
{
	uint32_t size = 7;

	CHECK_EQ(mmap_len(0, &size), -EINVAL);
	CHECK_EQ(mmap_len(1, &size), 0);
	CHECK_EQ(size, 0x1000);
	CHECK_EQ(mmap_len(0xfffff000u, &size), 0);	/* the caller refuses it: ENOMEM */
	CHECK_EQ(size, 0xfffff000u);
	for (uint32_t len = 0xfffff001u; len; len += len < 0xfffffff0u ? 0x7ff : 1)
		CHECK_EQ(mmap_len(len, &size), -ENOMEM);
}

TEST(munmap_ranges)
{
	uint32_t end = 0;

	CHECK_EQ(munmap_range(P, 0x1000, &end), 0);
	CHECK_EQ(end, P + 0x1000);
	CHECK_EQ(munmap_range(P, 1, &end), 0);
	CHECK_EQ(end, P + 0x1000);
	CHECK_EQ(munmap_range(P, 0, &end), -EINVAL);
	CHECK_EQ(munmap_range(P + 1, 0x1000, &end), -EINVAL);
	CHECK_EQ(munmap_range(P, 0xfffff001u, &end), -EINVAL);
	CHECK_EQ(munmap_range(P, 0xffffffffu, &end), -EINVAL);
	CHECK_EQ(munmap_range(P, 0u - P + 0x1000, &end), -EINVAL);	/* end past 4 GiB */
	CHECK_EQ(munmap_range(P, TASK_SIZE - P, &end), 0);		/* up to the kernel half */
	CHECK_EQ(end, TASK_SIZE);
	CHECK_EQ(munmap_range(P, TASK_SIZE - P + 1, &end), -EINVAL);
	CHECK_EQ(munmap_range(TASK_SIZE, 0x1000, &end), -EINVAL);
	CHECK_EQ(munmap_range(0xfffff000u, 0x1000, &end), -EINVAL);
}

TEST(mprotect_ranges)
{
	uint32_t end = 0;

	CHECK_EQ(mprotect_range(P, 0x1000, &end), 0);
	CHECK_EQ(end, P + 0x1000);
	CHECK_EQ(mprotect_range(P, 0, &end), 0);	/* nothing to do */
	CHECK_EQ(end, P);
	CHECK_EQ(mprotect_range(P + 1, 0x1000, &end), -EINVAL);
	CHECK_EQ(mprotect_range(P, 0xfffff001u, &end), -ENOMEM);
	CHECK_EQ(mprotect_range(P, 0xffffffffu, &end), -ENOMEM);
	CHECK_EQ(mprotect_range(P, 0u - P, &end), -ENOMEM);		/* ends at 4 GiB: 0 */
	CHECK_EQ(mprotect_range(P, 0u - P + 0x1000, &end), -ENOMEM);
	/* within 4 GiB but past TASK_SIZE: the caller finds no area there */
	CHECK_EQ(mprotect_range(P, TASK_SIZE - P + 0x1000, &end), 0);
	CHECK_EQ(end, TASK_SIZE + 0x1000);
}

int main(void)
{
	RUN(page_align_wraps_to_zero);
	RUN(mmap_lengths);
	RUN(munmap_ranges);
	RUN(mprotect_ranges);
	return check_done();
}
