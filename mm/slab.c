// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmalloc: small objects (Linux: mm/slab_common.c's kmalloc caches, and
 * mm/slub.c's free-list checks and poison).
 *
 * Sizes 16..2048 bytes are rounded up to a power of two, a size class
 * (kmalloc-16 ... kmalloc-2048). Each class carves whole pages of the page
 * allocator into objects of its size: a slab. A free object holds the
 * next free object of its slab in its first word; the rest of it is
 * POISON_FREE (0x6b), or zero with init_on_free=1, so a use after free
 * reads something visibly wrong. kmalloc checks the poison again when it
 * hands the object out: a write after free is reported there, as SLUB's
 * poison check does. Larger sizes are 2^order pages straight from the
 * page allocator.
 *
 * What each page is lives in slabs[], one struct slab per page frame
 * (Linux's struct slab lives in struct page), so kfree() and ksize() of
 * any pointer find its class, and a pointer that is not an object start,
 * or an object already free, is reported and refused instead of being
 * linked into a free list twice.
 *
 * A class keeps one empty slab for the next kmalloc (Linux's
 * min_partial); more empty slabs go back to the page allocator.
 *
 * Locking: slab_lock guards slabs[] and every class's lists. It is taken
 * alone: a page is allocated before it and freed after it, since a free
 * under debug_pagealloc sends a shootdown (call_lock) and zone_lock comes
 * after every lock (docs/design.md).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/spinlock.h>
#include <ronx/cmdline.h>
#include <ronx/init.h>
#include <ronx/panic.h>
#include <ronx/mm.h>
#include <ronx/slab.h>
#include <ronx/uaccess.h>
#include <ronx/kfence.h>

struct slab {			/* one per page frame */
	void *freelist;		/* a slab's first free object */
	struct slab *next;	/* its class's slabs with a free object */
	uint16_t inuse;		/* objects handed out */
	uint8_t cls;		/* 1 + size class: a slab page */
	uint8_t large;		/* 1 + order: the first page of a large kmalloc */
};

struct kmem_cache {
	const char *name;
	unsigned size;
	struct slab *partial;	/* slabs with a free object, empty ones too */
	unsigned nr_empty;	/* of them, slabs with no object in use */
};

#define NR_KMALLOC_CLASSES	8	/* 16 << 7 == 2048 */

static struct kmem_cache kmalloc_caches[NR_KMALLOC_CLASSES] = {
	{ .name = "kmalloc-16", .size = 16 },	{ .name = "kmalloc-32", .size = 32 },
	{ .name = "kmalloc-64", .size = 64 },	{ .name = "kmalloc-128", .size = 128 },
	{ .name = "kmalloc-256", .size = 256 },	{ .name = "kmalloc-512", .size = 512 },
	{ .name = "kmalloc-1024", .size = 1024 }, { .name = "kmalloc-2048", .size = 2048 },
};

static struct slab *slabs;
static unsigned long nr_slab_pfns;
static DEFINE_SPINLOCK(slab_lock);
bool _init_on_free;
struct slab_stats slab_stats;

/* Linux's kstrtobool(): init_on_free=1 or 0 (on, off, y, n too). */
static int __init parse_init_on_free(const char *val)
{
	if (val && (!strcmp(val, "1") || !strcmp(val, "y")))
		_init_on_free = true;
	else if (val && (!strcmp(val, "0") || !strcmp(val, "n")))
		_init_on_free = false;
	else
		return parse_on_off(val, &_init_on_free);
	return 0;
}
BOOT_PARAM("init_on_free", parse_init_on_free, "1 or 0 (on or off)");

/* One struct slab per page of the direct map, from the page allocator itself. */
void __init kmem_cache_init(void)
{
	unsigned long bytes = max_low_pfn * sizeof(struct slab);
	unsigned long pa = alloc_pages(PFN_UP(bytes));

	if (!pa)
		panic("kmem_cache_init: no %lu bytes for the slab table", bytes);
	slabs = __va(pa);
	nr_slab_pfns = max_low_pfn;
}

static inline uint8_t free_byte(void)
{
	return want_init_on_free() ? 0 : POISON_FREE;
}

static int size_index(size_t size)
{
	int i = 0;

	while ((size_t)KMALLOC_MIN_SIZE << i < size)
		i++;
	return i;
}

/* The struct slab of p's page, or NULL if p is not in the direct map. */
static struct slab *virt_to_slab(const void *p)
{
	unsigned long va = (unsigned long)p;

	if (va < PAGE_OFFSET || PFN_DOWN(__pa(va)) >= nr_slab_pfns)
		return 0;
	return &slabs[PFN_DOWN(__pa(va))];
}

static unsigned long slab_address(struct slab *s)
{
	return (unsigned long)__va((unsigned long)(s - slabs) << PAGE_SHIFT);
}

/* Linux's slab_bug(): the banner every report starts with. */
static void slab_bug(struct kmem_cache *c, const char *what, const void *p)
{
	pr_err("=============================================================================\n");
	pr_err("BUG %s (Not tainted): %s 0x%08lx\n", c ? c->name : "kmalloc", what,
	       (unsigned long)p);
	pr_err("-----------------------------------------------------------------------------\n\n");
}

/* A fresh slab: every object free, in address order, its bytes poisoned. */
static void init_slab(struct slab *s, int cls, unsigned long va)
{
	unsigned size = kmalloc_caches[cls].size;

	memset((void *)va, free_byte(), PAGE_SIZE);
	for (unsigned off = 0; off < PAGE_SIZE; off += size)
		*(void **)(va + off) = off + size < PAGE_SIZE ? (void *)(va + off + size) : 0;
	s->freelist = (void *)va;
	s->inuse = 0;
	s->cls = cls + 1;
	s->next = 0;
}

/*
 * SLUB's check_bytes_and_report() for POISON_FREE: a byte that is no
 * longer poison was written after the object was freed. Reported, and
 * the poison put back, so the next owner's bytes are as a free left them.
 */
static void check_poison(struct kmem_cache *c, uint8_t *obj)
{
	unsigned first = sizeof(void *), last;

	if (want_init_on_free())
		return;
	while (first < c->size && obj[first] == POISON_FREE)
		first++;
	if (first == c->size)
		return;
	for (last = c->size; obj[last - 1] == POISON_FREE; last--)
		;
	slab_stats.poison_overwritten++;
	pr_err("=============================================================================\n");
	pr_err("BUG %s (Not tainted): Poison overwritten\n", c->name);
	pr_err("-----------------------------------------------------------------------------\n\n");
	pr_err("0x%08lx-0x%08lx @offset=%u. First byte 0x%x instead of 0x%x\n",
	       (unsigned long)(obj + first), (unsigned long)(obj + last - 1), first,
	       obj[first], POISON_FREE);
	pr_err("FIX %s: Restoring Poison 0x%08lx-0x%08lx=0x%x\n", c->name,
	       (unsigned long)(obj + first), (unsigned long)(obj + last - 1), POISON_FREE);
	memset(obj + first, POISON_FREE, last - first);
}

/* An object of class cls from its first slab with one free; NULL if it has none. */
static void *take_object(int cls)
{
	struct kmem_cache *c = &kmalloc_caches[cls];
	struct slab *s = c->partial;
	uint8_t *obj;

	if (!s)
		return 0;
	obj = s->freelist;
	s->freelist = *(void **)obj;
	if (s->inuse++ == 0)
		c->nr_empty--;
	if (!s->freelist)
		c->partial = s->next;	/* full: off the list until a kfree */
	check_poison(c, obj);
	/* the free-list word too: a new object is all poison (or all zero) */
	*(void **)obj = 0;
	memset(obj, free_byte(), sizeof(void *));
	return obj;
}

static void *kmalloc_large(size_t size)
{
	unsigned order = 0;
	unsigned long pa, flags;

	while ((PAGE_SIZE << order) < size)
		order++;
	if (order > KMALLOC_MAX_ORDER)
		return 0;
	pa = alloc_pages(1UL << order);
	if (!pa)
		return 0;
	spin_lock_irqsave(&slab_lock, flags);
	slabs[PFN_DOWN(pa)].large = order + 1;
	spin_unlock_irqrestore(&slab_lock, flags);
	return __va(pa);
}

/* size bytes, aligned to their size class; NULL for 0 bytes or none left. flags: GFP_KERNEL. */
void *kmalloc(size_t size, unsigned flags)
{
	unsigned long pa, irq;
	void *obj;
	int cls;

	(void)flags;
	if (!size)
		return 0;
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large(size);
	cls = size_index(size);
	/* every Nth, with kfence.sample_interval=N: a page of its own between guards */
	obj = kfence_alloc(size, kmalloc_caches[cls].size);
	if (obj)
		return obj;
	spin_lock_irqsave(&slab_lock, irq);
	obj = take_object(cls);
	spin_unlock_irqrestore(&slab_lock, irq);
	if (obj)
		return obj;

	/* No free object: a new slab, made outside the lock (see the top). */
	pa = alloc_page();
	if (!pa)
		return 0;
	spin_lock_irqsave(&slab_lock, irq);
	init_slab(&slabs[PFN_DOWN(pa)], cls, (unsigned long)__va(pa));
	slabs[PFN_DOWN(pa)].next = kmalloc_caches[cls].partial;
	kmalloc_caches[cls].partial = &slabs[PFN_DOWN(pa)];
	kmalloc_caches[cls].nr_empty++;
	obj = take_object(cls);
	spin_unlock_irqrestore(&slab_lock, irq);
	return obj;
}

void *kzalloc(size_t size, unsigned flags)
{
	void *p = kmalloc(size, flags);

	if (p)
		memset(p, 0, ksize(p));
	return p;
}

static bool on_freelist(struct slab *s, const void *p)
{
	for (void *q = s->freelist; q; q = *(void **)q)
		if (q == p)
			return true;
	return false;
}

static void unlink_slab(struct kmem_cache *c, struct slab *s)
{
	struct slab **pp = &c->partial;

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
}

/*
 * p back on its slab's free list, poisoned. Returns the page to give
 * back to the page allocator (an empty slab the class need not keep), or 0.
 */
static unsigned long free_object(struct slab *s, void *p)
{
	struct kmem_cache *c = &kmalloc_caches[s->cls - 1];
	unsigned long pa;

	memset(p, free_byte(), c->size);
	*(void **)p = s->freelist;
	if (!s->freelist) {		/* was full: back on the list */
		s->next = c->partial;
		c->partial = s;
	}
	s->freelist = p;
	if (--s->inuse)
		return 0;
	if (!c->nr_empty) {
		c->nr_empty++;		/* kept for the next kmalloc */
		return 0;
	}
	unlink_slab(c, s);
	pa = __pa(slab_address(s));
	s->cls = 0;
	s->freelist = 0;
	return pa;
}

/* Linux's checks before a free (free_consistency_checks()): 0 if p is refused. */
static bool valid_object(struct slab *s, const void *p)
{
	struct kmem_cache *c;

	if (!s || (!s->cls && !s->large)) {
		slab_bug(0, "kfree of a pointer kmalloc never gave:", p);
		return false;
	}
	if (s->large)
		return ((unsigned long)p & (PAGE_SIZE - 1)) == 0 ||
		       (slab_bug(0, "Invalid object pointer", p), false);
	c = &kmalloc_caches[s->cls - 1];
	if ((unsigned long)p & (c->size - 1)) {
		slab_bug(c, "Invalid object pointer", p);
		return false;
	}
	if (on_freelist(s, p)) {
		slab_bug(c, "Object already free", p);
		return false;
	}
	return true;
}

/* Frees what kmalloc gave; NULL is nothing to free. Anything else is reported and left alone. */
void kfree(const void *p)
{
	struct slab *s = virt_to_slab(p);
	unsigned long pa = 0, n = 1, flags;

	if (!p)
		return;
	if (is_kfence_address(p)) {
		kfence_free(p);
		return;
	}
	spin_lock_irqsave(&slab_lock, flags);
	if (!valid_object(s, p)) {
		slab_stats.bad_frees++;
		spin_unlock_irqrestore(&slab_lock, flags);
		return;
	}
	if (s->large) {
		n = 1UL << (s->large - 1);
		s->large = 0;
		pa = __pa(p);
	} else {
		pa = free_object(s, (void *)p);
	}
	spin_unlock_irqrestore(&slab_lock, flags);
	if (pa)
		free_pages(pa, n);	/* zeroed there under init_on_free */
}

/* How many bytes p may use: its size class, or its pages; 0 if p is no object. */
size_t ksize(const void *p)
{
	struct slab *s = virt_to_slab(p);

	if (is_kfence_address(p))
		return kfence_ksize(p);
	if (!p || !s)
		return 0;
	if (s->large)
		return PAGE_SIZE << (s->large - 1);
	return s->cls ? kmalloc_caches[s->cls - 1].size : 0;
}

/* Every class's empty slabs back to the page allocator (self-tests count pages). */
void kmem_cache_shrink_all(void)
{
	for (int i = 0; i < NR_KMALLOC_CLASSES; i++) {
		struct kmem_cache *c = &kmalloc_caches[i];
		unsigned long flags, pa = 0;

		spin_lock_irqsave(&slab_lock, flags);
		for (struct slab *s = c->partial; s; s = s->next)
			if (!s->inuse) {
				unlink_slab(c, s);
				c->nr_empty--;
				s->cls = 0;
				s->freelist = 0;
				pa = __pa(slab_address(s));
				break;
			}
		spin_unlock_irqrestore(&slab_lock, flags);
		if (pa)
			free_page(pa);
	}
}

/* Pages of empty slabs the classes keep for their next kmalloc (meminfo's SlabEmpty). */
unsigned long kmem_cache_empty_pages(void)
{
	unsigned long flags, n = 0;

	spin_lock_irqsave(&slab_lock, flags);
	for (int i = 0; i < NR_KMALLOC_CLASSES; i++)
		n += kmalloc_caches[i].nr_empty;
	spin_unlock_irqrestore(&slab_lock, flags);
	return n;
}

/*
 * Hardened usercopy's heap check (Linux: __check_heap_object() in
 * mm/slub.c, called by mm/usercopy.c): a copy whose kernel side starts in
 * a slab page must end inside the object it starts in, or it would leak
 * or overwrite the next one. The page's size class is read without
 * slab_lock: a caller copying its own object keeps the slab in use, and
 * one racing a free of what it copies has a bug of its own.
 */
/* A copy at a KFENCE object, held to its size class as a slab object is (Linux does both). */
static void check_kfence_object(const void *ptr, unsigned long n, bool to_user)
{
	unsigned long offset;
	unsigned size;

	if (!kfence_object_extent(ptr, &offset, &size))
		return;
	if (!slab_object_holds(offset, n, size))	/* size is its class's: kmalloc gave it */
		usercopy_abort("SLUB object", kmalloc_caches[size_index(size)].name, to_user, offset, n);
}

void __check_heap_object(const void *ptr, unsigned long n, bool to_user)
{
	struct slab *s = virt_to_slab(ptr);
	struct kmem_cache *c;
	unsigned long offset;
	uint8_t cls;

	if (is_kfence_address(ptr)) {
		check_kfence_object(ptr, n, to_user);
		return;
	}
	if (!s)
		return;
	cls = __atomic_load_n(&s->cls, __ATOMIC_RELAXED);
	if (!cls)
		return;		/* not a slab page: a large kmalloc or any other page */
	c = &kmalloc_caches[cls - 1];
	offset = slab_object_offset(slab_address(s), (unsigned long)ptr, c->size);
	if (!slab_object_holds(offset, n, c->size))
		usercopy_abort("SLUB object", c->name, to_user, offset, n);
}
