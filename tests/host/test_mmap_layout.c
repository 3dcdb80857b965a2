// SPDX-License-Identifier: GPL-2.0-only
/*
 * mm/mmap_layout.c: the randomized stack top and mmap base stay inside
 * their ranges for every random number, are page-aligned, leave the
 * stack's 8 MiB room and guard page above mmap's end, and norandmaps
 * gives the fixed layout exactly.
 */
#include "check.h"
#include "../../mm/mmap_layout.c"

TEST(fixed_without_randomize)
{
	struct mmap_layout l;

	pick_mmap_layout(&l, 0, 0xffffffffu, 0xffffffffu);
	CHECK_EQ(l.stack_top, 0xc0000000u);
	CHECK_EQ(l.mmap_base, 0x40000000u);
}

TEST(zero_random_is_fixed)
{
	struct mmap_layout l;

	pick_mmap_layout(&l, 2, 0, 0);
	CHECK_EQ(l.stack_top, 0xc0000000u);
	CHECK_EQ(l.mmap_base, 0x40000000u);
}

TEST(extremes)
{
	struct mmap_layout l;

	pick_mmap_layout(&l, 2, 0xffffffffu, 0xffffffffu);
	CHECK_EQ(l.stack_top, 0xc0000000u - 0x7ffu * 4096);	/* 8 MiB - 4 KiB lower */
	CHECK_EQ(l.mmap_base, 0x40000000u + 0xffu * 4096);	/* 1 MiB - 4 KiB higher */
}

/* Every stack offset: aligned, below TASK_SIZE, guard and room above mmap's range. */
TEST(every_stack_offset)
{
	struct mmap_layout l;
	uint32_t seen = 0;

	for (uint32_t r = 0; r <= 0xfffu; r++) {
		pick_mmap_layout(&l, 2, r, r);
		CHECK_EQ(l.stack_top & 0xfffu, 0);
		CHECK(l.stack_top <= 0xc0000000u && l.stack_top > 0xc0000000u - (8u << 20));
		CHECK_EQ(l.mmap_base & 0xfffu, 0);
		CHECK(l.mmap_base >= 0x40000000u && l.mmap_base < 0x40100000u);
		/* guard = top - 8 MiB - 4 KiB, far above mmap's base */
		CHECK(l.stack_top - (8u << 20) - 4096 > l.mmap_base);
		if (l.stack_top == 0xc0000000u - 0x7ffu * 4096)
			seen++;
	}
	CHECK_EQ(seen, 2);	/* the mask wraps: 0x7ff and 0xfff */
}

/* The bits of entropy as documented: 2048 stack tops, 256 mmap bases. */
TEST(entropy)
{
	struct mmap_layout l;
	static uint32_t tops[2048], bases[256];
	uint32_t ntops = 0, nbases = 0;

	for (uint32_t r = 0; r < 65536; r++) {
		pick_mmap_layout(&l, 2, r * 0x9e3779b9u, r * 0x85ebca6bu);
		uint32_t t = (0xc0000000u - l.stack_top) >> 12, b = (l.mmap_base - 0x40000000u) >> 12;

		CHECK(t < 2048 && b < 256);
		ntops += !tops[t]++;
		nbases += !bases[b]++;
	}
	CHECK_EQ(ntops, 2048);
	CHECK_EQ(nbases, 256);
}

int main(void)
{
	RUN(fixed_without_randomize);
	RUN(zero_random_is_fixed);
	RUN(extremes);
	RUN(every_stack_offset);
	RUN(entropy);
	return check_done();
}
