// SPDX-License-Identifier: GPL-2.0-only
/*
 * KFENCE's pool arithmetic and canary (mm/kfence.c uses it; pure, so
 * tests/host/test_kfence.c runs it on the host). Which page holds which
 * object, where in its page an object sits, and which object a fault in
 * a guard page is about.
 */
#include <ronx/kfence.h>

/* Object pages are the odd ones; page 0, the even ones and the last page are guards. */
long kfence_page_object(unsigned long page)
{
	if (!(page & 1) || page / 2 >= KFENCE_NUM_OBJECTS)
		return -1;
	return (long)(page / 2);
}

unsigned long kfence_object_page(unsigned long obj)
{
	return 2 * obj + 1;
}

/*
 * Against the left guard: the page's first byte. Against the right one:
 * as close to the page's end as the alignment allows, so a read one
 * byte past an object of a multiple of 8 bytes faults at once; a size
 * that is not leaves a few bytes of canary, checked at kfree.
 */
unsigned long kfence_place(unsigned long page_va, size_t size, bool right)
{
	if (!right)
		return page_va;
	return (page_va + PAGE_SIZE - size) & ~(unsigned long)(KFENCE_ALIGN - 1);
}

void kfence_fill_canary(uint8_t *from, uint8_t *to)
{
	for (uint8_t *p = from; p < to; p++)
		*p = kfence_canary((unsigned long)p);
}

uint8_t *kfence_check_canary(uint8_t *from, uint8_t *to)
{
	uint8_t *p = from;

	while (p < to && *p == kfence_canary((unsigned long)p))
		p++;
	return p;
}

/*
 * A guard page lies between two objects. An access there is about the
 * one in use if only one is; else about the nearer one (its end, for
 * the object on the left; its start, for the one on the right).
 */
int kfence_guard_owner(unsigned long addr, const struct kfence_side *left,
		       const struct kfence_side *right)
{
	if (!left->valid && !right->valid)
		return -1;
	if (!right->valid)
		return 0;
	if (!left->valid)
		return 1;
	if (left->allocated != right->allocated)
		return left->allocated ? 0 : 1;
	return addr - left->end < right->start - addr ? 0 : 1;
}
