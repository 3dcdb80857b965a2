// SPDX-License-Identifier: GPL-2.0-only
/* PAE index math and the dump's attribute text (mm/ptdump_format.c). */
#include <string.h>
#include "check.h"
#include <ronx/pgtable_types.h>
#include "../../kernel/vsprintf.c"
#include "../../mm/ptdump_format.c"

TEST(index_math)
{
	CHECK_EQ(pgd_index(0xC0100000), 3);
	CHECK_EQ(pmd_index(0xC0100000), 0);
	CHECK_EQ(pte_index(0xC0100000), 256);
	CHECK_EQ(pgd_index(0xFFFFFFFF), 3);
	CHECK_EQ(pmd_index(0xFFFFFFFF), 511);
	CHECK_EQ(pte_index(0xFFFFFFFF), 511);
	CHECK_EQ(pmd_index(0xC0600000), 3);
}

TEST(sizes_like_linux)
{
	char b[32];
	format_size(640 << 10, b, sizeof(b));
	CHECK(!strcmp(b, "      640K"));
	format_size(3ULL << 30, b, sizeof(b));
	CHECK(!strcmp(b, "        3G"));
	format_size(884 << 20, b, sizeof(b));
	CHECK(!strcmp(b, "      884M"));
	format_size(2908 << 10, b, sizeof(b));
	CHECK(!strcmp(b, "     2908K"));
}

/* The exact lines of seed 001's "after" dump. */
TEST(lines_match_seed_dump)
{
	char b[128];
	format_range(0xc0000000, 0xc00a0000, PAGE_KERNEL, 4, b, sizeof(b));
	CHECK(!strcmp(b, "0xc0000000-0xc00a0000         640K     RW             GLB NX pte"));
	format_range(0xc0100000, 0xc0318000, PAGE_KERNEL_RX, 4, b, sizeof(b));
	CHECK(!strcmp(b, "0xc0100000-0xc0318000        2144K     ro             GLB x  pte"));
	format_range(0xc0600000, 0xf7a00000, PAGE_KERNEL | _PAGE_PSE, 3, b, sizeof(b));
	CHECK(!strcmp(b, "0xc0600000-0xf7a00000         884M     RW         PSE GLB NX pmd"));
	format_range(0x00000000, 0xc0000000, 0, 3, b, sizeof(b));
	CHECK(!strcmp(b, "0x00000000-0xc0000000           3G                           pmd"));
}

TEST(oops_flags)
{
	char b[64];
	format_page_flags(PAGE_KERNEL_RO, PG_LEVEL_4K, b, sizeof(b));
	CHECK(!strcmp(b, "ro GLB NX pte (4K)"));
}

int main(void)
{
	RUN(index_math);
	RUN(sizes_like_linux);
	RUN(lines_match_seed_dump);
	RUN(oops_flags);
	return check_done();
}
