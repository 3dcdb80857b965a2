// SPDX-License-Identifier: GPL-2.0-only
/* kernel/kaslr_slots.c: KASLR's slots and its boot-line words. */
#include <stdint.h>
#include "check.h"
#include "../../kernel/kaslr_slots.c"

#define K 1024ULL
#define M (1024 * K)

/* QEMU -m 128M's map */
static const struct mmap_entry qemu128[] = {
	{ 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
	{ 0x100000, 0x7ee0000, 1 }, { 0x7fe0000, 0x20000, 2 }, { 0xfffc0000, 0x40000, 2 },
};
#define N128 ((int)(sizeof(qemu128) / sizeof(qemu128[0])))

static struct kaslr_mem mem(const struct phys_range *busy, int nbusy, uint64_t size)
{
	return (struct kaslr_mem){ qemu128, N128, busy, nbusy, 1 * M, 64 * M, size, 4 * K };
}

static uint64_t slot(const struct kaslr_mem *m, uint64_t pick)
{
	uint64_t base = 0;

	kaslr_slots(m, pick, &base);
	return base;
}

TEST(no_busy_range_every_4k_base_that_fits)
{
	struct kaslr_mem m = mem(0, 0, 352 * K);
	uint64_t n = kaslr_slots(&m, UINT64_MAX, &(uint64_t){ 0 });

	CHECK_EQ(n, (64 * M - 352 * K - 1 * M) / (4 * K) + 1);
	CHECK_EQ(slot(&m, 0), 1 * M);
	CHECK_EQ(slot(&m, n - 1), 64 * M - 352 * K);	/* ends exactly at the limit */
}

TEST(busy_ranges_are_never_touched)
{
	/* the loaded image, the loader's info, an initrd */
	const struct phys_range busy[] = {
		{ 1 * M, 1 * M + 352 * K }, { 0x10000, 0x10400 }, { 0x15e000, 0x1d7000 },
	};
	struct kaslr_mem m = mem(busy, 3, 352 * K);
	uint64_t n = kaslr_slots(&m, UINT64_MAX, &(uint64_t){ 0 });

	CHECK(n > 0);
	for (uint64_t i = 0; i < n; i += 97) {
		uint64_t b = slot(&m, i);

		CHECK(b % (4 * K) == 0 && b >= 1 * M && b + 352 * K <= 64 * M);
		for (int j = 0; j < 3; j++)
			CHECK(b + 352 * K <= busy[j].start || b >= busy[j].end);
	}
	CHECK_EQ(slot(&m, 0), 0x1d7000);	/* the first base past the initrd */
	/* each slot once: consecutive picks are 4K apart inside a run */
	CHECK_EQ(slot(&m, 1) - slot(&m, 0), 4 * K);
}

TEST(reserved_and_too_small_ram_give_no_slot)
{
	const struct phys_range all[] = { { 0, 64 * M } };
	struct kaslr_mem m = mem(all, 1, 352 * K);
	uint64_t base = 42;

	CHECK_EQ(kaslr_slots(&m, 0, &base), 0);
	CHECK_EQ(base, 42);			/* untouched when there is none */
	m = mem(0, 0, 128 * M);			/* bigger than the range */
	CHECK_EQ(kaslr_slots(&m, UINT64_MAX, &base), 0);
	m = mem(0, 0, 0);			/* nonsense sizes count nothing */
	CHECK_EQ(kaslr_slots(&m, UINT64_MAX, &base), 0);
	m.nr_map = 3;				/* only the low 640K and the BIOS */
	m.size = 4 * K;
	CHECK_EQ(kaslr_slots(&m, UINT64_MAX, &base), 0);
}

TEST(unaligned_ram_rounds_up_and_wrapping_entries_are_skipped)
{
	const struct mmap_entry map[] = {
		{ 0x200123, 0x3000, 1 },		/* 0x201000-0x203123: two 4K bases for 4K */
		{ 0xfffffffffffff000ULL, 0x2000, 1 },	/* wraps: ignored */
	};
	struct kaslr_mem m = { map, 2, 0, 0, 1 * M, 64 * M, 4 * K, 4 * K };

	CHECK_EQ(kaslr_slots(&m, UINT64_MAX, &(uint64_t){ 0 }), 2);
	CHECK_EQ(slot(&m, 1), 0x202000);
}

TEST(boot_line_words)
{
	CHECK(!cmdline_wants_kaslr(""));
	CHECK(cmdline_wants_kaslr("kaslr"));
	CHECK(cmdline_wants_kaslr("pci=nobios  kaslr "));
	CHECK(!cmdline_wants_kaslr("kaslr nokaslr"));
	CHECK(cmdline_wants_kaslr("nokaslr kaslr"));
	CHECK(!cmdline_wants_kaslr("kaslrx xkaslr kasl nokaslr=1 kaslr=1"));
}

int main(void)
{
	RUN(no_busy_range_every_4k_base_that_fits);
	RUN(busy_ranges_are_never_touched);
	RUN(reserved_and_too_small_ram_give_no_slot);
	RUN(unaligned_ram_rounds_up_and_wrapping_entries_are_skipped);
	RUN(boot_line_words);
	return check_done();
}
