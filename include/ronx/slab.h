/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmalloc (mm/slab.c; Linux: mm/slab_common.c and mm/slub.c): small
 * objects of power-of-two size classes carved from pages of the page
 * allocator, larger ones straight from it.
 */
#ifndef RONX_SLAB_H
#define RONX_SLAB_H
#include <stddef.h>
#include <stdbool.h>

#define KMALLOC_MIN_SIZE	16
#define KMALLOC_MAX_CACHE_SIZE	2048		/* larger: whole pages */
#define KMALLOC_MAX_ORDER	7		/* so at most 512 KiB */
#define POISON_FREE		0x6b		/* Linux's include/linux/poison.h */

#define GFP_KERNEL		0u		/* ronx never sleeps in kmalloc */

void kmem_cache_init(void);
void *kmalloc(size_t size, unsigned flags);
void *kzalloc(size_t size, unsigned flags);
void kfree(const void *p);
size_t ksize(const void *p);
void kmem_cache_shrink_all(void);	/* empty slabs back to the page allocator */
unsigned long kmem_cache_empty_pages(void);	/* empty slabs kept: free, but not PagesFree */
/* Hardened usercopy (mm/usercopy.c): usercopy_abort() unless [ptr, ptr + n) is in one object. */
void __check_heap_object(const void *ptr, unsigned long n, bool to_user);

/*
 * __check_heap_object()'s arithmetic, pure for the host tests: a slab's
 * objects lie end to end from its page's start, so an address's offset in
 * its object is its distance from the page modulo the size; a copy of n
 * bytes from there stays in the object if n is at most what is left of it.
 * Written as a subtraction, not offset + n <= size: n comes from the
 * caller and offset + n could wrap.
 */
static inline unsigned long slab_object_offset(unsigned long slab, unsigned long va,
					       unsigned long size)
{
	return (va - slab) % size;
}

static inline bool slab_object_holds(unsigned long offset, unsigned long n, unsigned long size)
{
	return offset < size && n <= size - offset;
}

extern bool _init_on_free;		/* the boot option init_on_free=1 */
static inline bool want_init_on_free(void)
{
	return _init_on_free;
}

/* What it refused since boot (the self-tests count them). */
struct slab_stats {
	unsigned long bad_frees;	/* double frees and pointers that are no object */
	unsigned long poison_overwritten;
};
extern struct slab_stats slab_stats;
#endif
