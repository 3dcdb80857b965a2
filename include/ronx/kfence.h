/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KFENCE, the kernel electric fence (mm/kfence.c; Linux: mm/kfence/):
 * with the boot option kfence.sample_interval=N, every Nth kmalloc is
 * served from a pool of pages in the direct map where each object has a
 * page of its own between two pages that are never mapped (guards). An
 * access past the object faults in a guard, an access after kfree faults
 * on the object's page, which kfree unmapped; the fault handler reports
 * it in KFENCE's words, maps the page and lets the kernel go on.
 *
 * The pool (KFENCE_POOL_SIZE, 2 MiB): page 0 is a guard, then object
 * page and guard page in turn: object i is page 2i+1, its guards pages
 * 2i and 2i+2 (shared with its neighbours). The last page stays a guard.
 * mm/kfence_layout.c has this arithmetic (pure: host-tested).
 */
#ifndef RONX_KFENCE_H
#define RONX_KFENCE_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <ronx/memlayout.h>

#define KFENCE_NUM_OBJECTS	255		/* Linux's default, CONFIG_KFENCE_NUM_OBJECTS */
#define KFENCE_POOL_PAGES	(2 * (KFENCE_NUM_OBJECTS + 1))
#define KFENCE_POOL_SIZE	(KFENCE_POOL_PAGES * PAGE_SIZE)
#define KFENCE_ALIGN		8		/* a right-placed object's alignment (kmalloc's minimum on x86) */
#define KFENCE_STACK_DEPTH	12		/* return addresses kept per allocation and free */

/* mm/kfence_layout.c: pure. */
long kfence_page_object(unsigned long page);	/* object of pool page page, or -1: a guard */
unsigned long kfence_object_page(unsigned long obj);
unsigned long kfence_place(unsigned long page_va, size_t size, bool right);
static inline uint8_t kfence_canary(unsigned long addr)
{
	return (uint8_t)(0xaa ^ (addr & 7));	/* Linux's KFENCE_CANARY_PATTERN */
}
void kfence_fill_canary(uint8_t *from, uint8_t *to);
uint8_t *kfence_check_canary(uint8_t *from, uint8_t *to);	/* first byte not canary, or to */

/* A guard page's two neighbours, as the fault handler sees them. */
struct kfence_side {
	bool valid;			/* there is an object on this side */
	bool allocated;
	unsigned long start, end;	/* the object's bytes [start, end) */
};
int kfence_guard_owner(unsigned long addr, const struct kfence_side *left,
		       const struct kfence_side *right);	/* 0 left, 1 right, -1 none */

/* mm/kfence.c */
extern unsigned long __kfence_pool;		/* the pool's first address; 0: KFENCE off */

static inline bool is_kfence_address(const void *p)
{
	return __kfence_pool && (unsigned long)p - __kfence_pool < KFENCE_POOL_SIZE;
}

struct trap_frame;
void kfence_init(void);
void *kfence_alloc(size_t size, unsigned cache_size);	/* NULL: not this one (not sampled, pool full) */
void kfence_free(const void *p);
size_t kfence_ksize(const void *p);
bool kfence_object_extent(const void *p, unsigned long *offset, unsigned *cache_size);
bool kfence_handle_page_fault(unsigned long addr, struct trap_frame *f);
unsigned long kfence_sample_interval(void);
const char *kfence_object_info(const void *p, char *buf, size_t size);	/* the crash types */

struct kfence_stats {
	unsigned long allocated;	/* objects in use now */
	unsigned long allocs, frees;	/* since boot */
	unsigned long skipped_full;	/* sampled, but the pool had no free object */
	unsigned long bugs;		/* reports printed */
	unsigned long unprotected;	/* pages a report mapped so that the access could go on */
};
extern struct kfence_stats kfence_stats;
#endif
