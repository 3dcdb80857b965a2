// SPDX-License-Identifier: GPL-2.0-only
/* mm/kfence_layout.c: which pool page is which, where an object sits, the canary. */
#include <stdlib.h>
#include "check.h"
#include "../../mm/kfence_layout.c"

TEST(pages_alternate_guard_object)
{
	CHECK_EQ(kfence_page_object(0), -1);		/* the first page: a guard */
	CHECK_EQ(kfence_page_object(1), 0);
	CHECK_EQ(kfence_page_object(2), -1);
	CHECK_EQ(kfence_page_object(3), 1);
	CHECK_EQ(kfence_page_object(2 * KFENCE_NUM_OBJECTS - 1), KFENCE_NUM_OBJECTS - 1);
	CHECK_EQ(kfence_page_object(2 * KFENCE_NUM_OBJECTS), -1);
	CHECK_EQ(kfence_page_object(KFENCE_POOL_PAGES - 1), -1);	/* the last page: a guard */
	CHECK_EQ(kfence_page_object(KFENCE_POOL_PAGES + 1), -1);	/* beyond the pool */
	for (unsigned long i = 0; i < KFENCE_NUM_OBJECTS; i++)
		CHECK_EQ(kfence_page_object(kfence_object_page(i)), (long)i);
	CHECK_EQ(KFENCE_POOL_SIZE, 2UL << 20);
}

TEST(placement)
{
	unsigned long page = 0xc0403000UL;

	CHECK_EQ(kfence_place(page, 32, false), page);
	CHECK_EQ(kfence_place(page, 32, true), page + PAGE_SIZE - 32);	/* ends at the guard */
	CHECK_EQ(kfence_place(page, 25, true), page + PAGE_SIZE - 32);	/* 8-aligned: 7 canary bytes */
	CHECK_EQ(kfence_place(page, 40, true), page + PAGE_SIZE - 40);	/* 8, not its size class */
	CHECK_EQ(kfence_place(page, 8, true), page + PAGE_SIZE - 8);
	CHECK_EQ(kfence_place(page, PAGE_SIZE, true), page);
	CHECK_EQ(kfence_place(page, 1, true) % KFENCE_ALIGN, 0);
}

TEST(canary_finds_first_changed_byte)
{
	uint8_t *buf = malloc(64);

	kfence_fill_canary(buf, buf + 64);
	CHECK(kfence_check_canary(buf, buf + 64) == buf + 64);
	for (int i = 0; i < 64; i++)
		CHECK_EQ(buf[i], 0xaa ^ (((unsigned long)&buf[i]) & 7));
	buf[40] ^= 1;
	CHECK(kfence_check_canary(buf, buf + 64) == buf + 40);
	CHECK(kfence_check_canary(buf, buf + 40) == buf + 40);	/* the end is not checked */
	free(buf);
}

TEST(guard_owner)
{
	struct kfence_side none = { 0 };
	struct kfence_side l = { true, true, 0x1000, 0x1020 }, r = { true, true, 0x3fe0, 0x4000 };
	struct kfence_side lf = l, rf = r;

	lf.allocated = rf.allocated = false;
	CHECK_EQ(kfence_guard_owner(0x2000, &none, &none), -1);
	CHECK_EQ(kfence_guard_owner(0x2000, &l, &none), 0);
	CHECK_EQ(kfence_guard_owner(0x2000, &none, &r), 1);
	CHECK_EQ(kfence_guard_owner(0x2000, &l, &rf), 0);	/* the one in use */
	CHECK_EQ(kfence_guard_owner(0x2fff, &lf, &r), 1);
	CHECK_EQ(kfence_guard_owner(0x2000, &l, &r), 0);	/* both in use: the nearer */
	CHECK_EQ(kfence_guard_owner(0x2fff, &l, &r), 1);
	CHECK_EQ(kfence_guard_owner(0x2fff, &lf, &rf), 1);	/* both freed: the nearer */
}

int main(void)
{
	RUN(pages_alternate_guard_object);
	RUN(placement);
	RUN(canary_finds_first_changed_byte);
	RUN(guard_owner);
	return check_done();
}
