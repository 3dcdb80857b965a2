// SPDX-License-Identifier: GPL-2.0-only
/*
 * include/ronx/slab.h: hardened usercopy's heap arithmetic (mm/slab.c's
 * __check_heap_object()): which object of a slab an address is in, and
 * whether a copy from there stays inside that object.
 */
#include <stdint.h>
#include "check.h"
#include <ronx/slab.h>

#define SLAB	0xc0123000UL	/* a slab page's address */

TEST(offset_in_its_object)
{
	CHECK_EQ(slab_object_offset(SLAB, SLAB, 1024), 0);
	CHECK_EQ(slab_object_offset(SLAB, SLAB + 16, 1024), 16);
	CHECK_EQ(slab_object_offset(SLAB, SLAB + 1024 + 16, 1024), 16);	/* the second object */
	CHECK_EQ(slab_object_offset(SLAB, SLAB + 4095, 1024), 1023);	/* the page's last byte */
	CHECK_EQ(slab_object_offset(SLAB, SLAB + 4095, 16), 15);
	CHECK_EQ(slab_object_offset(SLAB, SLAB + 2048, 2048), 0);
}

/* The whole object, and anything that ends exactly at its end, fits; one byte more does not. */
TEST(ends_exactly_at_the_object_end)
{
	for (unsigned long size = 16; size <= 2048; size <<= 1) {
		CHECK(slab_object_holds(0, size, size));
		CHECK(!slab_object_holds(0, size + 1, size));
		CHECK(slab_object_holds(16 % size, size - 16 % size, size));
		CHECK(!slab_object_holds(16 % size, size - 16 % size + 1, size));
		CHECK(slab_object_holds(size - 1, 1, size));
		CHECK(!slab_object_holds(size - 1, 2, size));
	}
}

/* LKDTM's USERCOPY_HEAP_SIZE_*: half the object at offset 16 fits, the object's size does not. */
TEST(lkdtm_heap_size)
{
	unsigned long off = slab_object_offset(SLAB, SLAB + 16, 1024);

	CHECK(slab_object_holds(off, 512, 1024));
	CHECK(!slab_object_holds(off, 1024, 1024));
}

/* A huge n from a caller never wraps round into "fits". */
TEST(huge_lengths_refused)
{
	CHECK(!slab_object_holds(16, ~0UL, 1024));
	CHECK(!slab_object_holds(16, ~0UL - 15, 1024));
	CHECK(!slab_object_holds(0, 1UL << 31, 2048));
	CHECK(!slab_object_holds(1024, 1, 1024));	/* an offset past the object: never */
}

int main(void)
{
	RUN(offset_in_its_object);
	RUN(ends_exactly_at_the_object_end);
	RUN(lkdtm_heap_size);
	RUN(huge_lengths_refused);
	return check_done();
}
