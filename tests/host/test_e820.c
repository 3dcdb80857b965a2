// SPDX-License-Identifier: GPL-2.0-only
/* mm/e820.c: the memory map split at the direct map's end, entries above 4G. */
#include "check.h"
#include "../../mm/e820.c"

#define M (1ULL << 20)
#define G (1ULL << 30)

/* QEMU -m 5G: low RAM, a hole for PCI below 4G, then 1 GiB above 4G */
static const struct mmap_entry qemu5g[] = {
	{ 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
	{ 0x100000, 0xbfee0000, 1 }, { 0xfffc0000, 0x40000, 2 },
	{ 0x100000000ULL, 0x40000000ULL, 1 },
};
#define N5G ((int)(sizeof(qemu5g) / sizeof(qemu5g[0])))

TEST(ram_end_is_clamped_to_the_direct_map)
{
	CHECK_EQ(e820_ram_end(qemu5g, N5G, 896 * M), 896 * M);
	CHECK_EQ(e820_ram_end(qemu5g, N5G, UINT64_MAX), 5 * G);
	CHECK_EQ(e820_ram_end(qemu5g, 3, 896 * M), 0x9fc00);	/* only the low 640K */
	CHECK_EQ(e820_ram_end(qemu5g, 0, 896 * M), 0);
}

TEST(ram_above_counts_both_sides_of_4g)
{
	/* 0x100000 + 0xbfee0000 = 3G - 128K: (3G - 128K - 896M) + 1G above 4G */
	CHECK_EQ(e820_ram_above(qemu5g, N5G, 896 * M), 3 * G - 128 * 1024 - 896 * M + 1 * G);
	CHECK_EQ(e820_ram_above(qemu5g, N5G, 5 * G), 0);
	CHECK_EQ(e820_ram_above(qemu5g, 4, 896 * M), 3 * G - 128 * 1024 - 896 * M);
}

TEST(low_pfns_of_an_entry)
{
	unsigned long s = 0, e = 0;

	CHECK(e820_low_pfns(&qemu5g[3], 896 * M, &s, &e));
	CHECK_EQ(s, 0x100);
	CHECK_EQ(e, (896 * M) >> 12);
	CHECK(!e820_low_pfns(&qemu5g[5], 896 * M, &s, &e));	/* all above 4G */
	CHECK(!e820_low_pfns(&qemu5g[1], 896 * M, &s, &e));	/* reserved */
	CHECK(e820_low_pfns(&qemu5g[0], 896 * M, &s, &e));
	CHECK_EQ(s, 0);
	CHECK_EQ(e, 0x9f);	/* the partial page at 0x9f000 is not RAM */
}

TEST(entries_that_overflow_do_not_wrap)
{
	const struct mmap_entry bad[] = {
		{ 0xfffffffffffff000ULL, 0x2000, 1 },	/* end past 2^64 */
		{ 0x200000, 0xffffffffffffffffULL, 1 },	/* absurd length */
	};
	unsigned long s, e;

	CHECK(!e820_low_pfns(&bad[0], 896 * M, &s, &e));
	CHECK(e820_low_pfns(&bad[1], 896 * M, &s, &e));
	CHECK_EQ(s, 0x200);
	CHECK_EQ(e, (896 * M) >> 12);
	CHECK_EQ(e820_ram_end(bad, 2, 896 * M), 896 * M);
	CHECK_EQ(e820_ram_above(bad, 1, 896 * M), UINT64_MAX - 0xfffffffffffff000ULL);
}

/* The SMP trampoline's page: the highest whole RAM page below 640K, clear of the boot loader's data. */
TEST(trampoline_page_below_640k)
{
	const uint64_t none[][2] = { { 0, 0 } };
	const uint64_t mbi[][2] = { { 0x9d800, 0x9e010 }, { 0x9c000, 0x9c001 } };

	/* 0x9fc00 starts the EBDA: page 0x9f000 is not whole RAM */
	CHECK_EQ(e820_find_low_page(qemu5g, N5G, 0x1000, 0xa0000, none, 0), 0x9e000);
	/* what the loader left there is stepped over, by a byte too */
	CHECK_EQ(e820_find_low_page(qemu5g, N5G, 0x1000, 0xa0000, mbi, 2), 0x9b000);
	CHECK_EQ(e820_find_low_page(qemu5g, N5G, 0x9e000, 0xa0000, mbi, 2), 0);
	CHECK_EQ(e820_find_low_page(qemu5g, 0, 0x1000, 0xa0000, none, 0), 0);
	CHECK_EQ(e820_find_low_page(qemu5g, N5G, 0x1000, 0x2000, none, 0), 0x1000);
	CHECK_EQ(e820_find_low_page(qemu5g, N5G, 0x1000, 0x1fff, none, 0), 0);
}

int main(void)
{
	RUN(ram_end_is_clamped_to_the_direct_map);
	RUN(ram_above_counts_both_sides_of_4g);
	RUN(low_pfns_of_an_entry);
	RUN(entries_that_overflow_do_not_wrap);
	RUN(trampoline_page_below_640k);
	return check_done();
}
