// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of kmalloc (mm/slab.c): size classes, alignment, reuse,
 * ksize, poison (or zero under init_on_free) in a freed object, a double
 * free and a pointer inside an object refused without harm to the free
 * lists, slabs across many pages, and every page back after freeing.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/slab.h>
#include <ronx/string.h>
#include <ronx/smp.h>
#include <ronx/smp_probe.h>
#include <ronx/ktest.h>

#define MANY	600		/* 64-byte objects: ten slabs */

KTEST(slab, size_classes_and_ksize)
{
	static const struct { size_t want, ksize; } cases[] = {
		{ 1, 16 }, { 16, 16 }, { 17, 32 }, { 100, 128 }, { 1000, 1024 },
		{ 2048, 2048 }, { 2049, 4096 }, { 5000, 8192 },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		void *p = kmalloc(cases[i].want, GFP_KERNEL);

		KT_EXPECT(t, p, "kmalloc(%u) failed", (unsigned)cases[i].want);
		KT_EXPECT(t, ksize(p) == cases[i].ksize, "ksize(kmalloc(%u)) is %u, want %u",
			  (unsigned)cases[i].want, (unsigned)ksize(p), (unsigned)cases[i].ksize);
		/* a size class is aligned to its size; pages to a page */
		size_t align = cases[i].ksize < PAGE_SIZE ? cases[i].ksize : PAGE_SIZE;

		KT_EXPECT(t, ((unsigned long)p & (align - 1)) == 0,
			  "kmalloc(%u) at %08lx is not aligned to %u", (unsigned)cases[i].want,
			  (unsigned long)p, (unsigned)align);
		kfree(p);
	}
	KT_EXPECT(t, !kmalloc(0, GFP_KERNEL), "kmalloc(0) gave memory");
	KT_EXPECT(t, !kmalloc(PAGE_SIZE << (KMALLOC_MAX_ORDER + 1), GFP_KERNEL),
		  "kmalloc beyond KMALLOC_MAX_ORDER gave memory");
	kfree(0);	/* a no-op */
}

KTEST(slab, freed_object_is_reused_and_poisoned)
{
	uint8_t *p = kmalloc(200, GFP_KERNEL), *q;
	uint8_t want = want_init_on_free() ? 0 : POISON_FREE;
	unsigned bad = 0;

	KT_EXPECT(t, p, "kmalloc(200) failed");
	if (!p)
		return;
	for (unsigned i = 0; i < 256; i++)
		p[i] = 0x5a;
	kfree(p);
	/* reading a freed object: on purpose, the point of the poison */
	for (unsigned i = sizeof(void *); i < 256; i++)
		bad += ((volatile uint8_t *)p)[i] != want;
	KT_EXPECT(t, !bad, "%u bytes of the freed object are not 0x%02x", bad, want);
	q = kmalloc(256, GFP_KERNEL);
	KT_EXPECT(t, q == p, "kmalloc-256 gave %08lx, not the object just freed %08lx",
		  (unsigned long)q, (unsigned long)p);
	bad = 0;
	for (unsigned i = 0; i < 256; i++)
		bad += q[i] != want;
	KT_EXPECT(t, !bad, "%u bytes of the new object are not 0x%02x", bad, want);
	kfree(q);
}

KTEST(slab, double_free_and_bad_pointer_are_refused)
{
	unsigned long before = slab_stats.bad_frees;
	char *p = kmalloc(64, GFP_KERNEL), *a, *b;
	int x;

	KT_EXPECT(t, p, "kmalloc(64) failed");
	if (!p)
		return;
	kfree(p + 8);		/* not an object start: the BUG lines it prints are expected */
	KT_EXPECT(t, slab_stats.bad_frees == before + 1, "a pointer inside an object was freed");
	kfree(p);
	kfree(p);		/* the double free */
	KT_EXPECT(t, slab_stats.bad_frees == before + 2, "a double free went through");
	kfree(&x);		/* a stack address: kmalloc never gave it */
	KT_EXPECT(t, slab_stats.bad_frees == before + 3, "a stack pointer was freed");
	/* had the double free gone on the list twice, both would be p */
	a = kmalloc(64, GFP_KERNEL);
	b = kmalloc(64, GFP_KERNEL);
	KT_EXPECT(t, a && b && a != b, "two kmallocs gave %08lx and %08lx",
		  (unsigned long)a, (unsigned long)b);
	kfree(a);
	kfree(b);
}

KTEST(slab, many_objects_and_pages_back)
{
	unsigned long before, got = 0, bad = 0;
	void **objs;

	kmem_cache_shrink_all();
	before = nr_free_pages();
	/* the table of pointers is a kmalloc too (a page: no bss for a test) */
	objs = kmalloc(MANY * sizeof(void *), GFP_KERNEL);
	KT_EXPECT(t, objs, "kmalloc of the table failed");
	if (!objs)
		return;
	for (int i = 0; i < MANY; i++) {
		objs[i] = kmalloc(64, GFP_KERNEL);
		if (!objs[i])
			break;
		got++;
		for (int j = 0; j < 64; j++)
			((uint8_t *)objs[i])[j] = (uint8_t)i;
	}
	KT_EXPECT(t, got == MANY, "only %lu of %d kmalloc(64) succeeded", got, MANY);
	KT_EXPECT(t, before - nr_free_pages() >= MANY * 64 / PAGE_SIZE,
		  "%d objects of 64 bytes took %lu pages", MANY, before - nr_free_pages());
	/* no two objects overlap: each still holds its own index */
	for (unsigned long i = 0; i < got; i++)
		for (int j = 0; j < 64; j++)
			bad += ((uint8_t *)objs[i])[j] != (uint8_t)i;
	KT_EXPECT(t, !bad, "%lu bytes were overwritten by another object", bad);
	for (unsigned long i = 0; i < got; i++)
		kfree(objs[i]);
	kfree(objs);
	kmem_cache_shrink_all();
	KT_EXPECT(t, nr_free_pages() == before, "free pages %lu after freeing all, %lu before",
		  nr_free_pages(), before);
}

/* meminfo's SlabEmpty: pages of slabs no object lives in, and only those. */
KTEST(slab, empty_slabs_are_counted)
{
	char *p;

	kmem_cache_shrink_all();
	KT_EXPECT(t, kmem_cache_empty_pages() == 0, "%lu empty slabs after a shrink",
		  kmem_cache_empty_pages());
	p = kmalloc(512, GFP_KERNEL);
	KT_EXPECT(t, p, "kmalloc(512) failed");
	if (!p)
		return;
	KT_EXPECT(t, kmem_cache_empty_pages() == 0, "p's slab counted empty while p lives");
	kfree(p);
	KT_EXPECT(t, kmem_cache_empty_pages() == 1, "%lu empty slabs after the kfree, not 1",
		  kmem_cache_empty_pages());
	kmem_cache_shrink_all();
	KT_EXPECT(t, kmem_cache_empty_pages() == 0, "the empty slab still counted after a shrink");
}

KTEST(slab, large_allocations_are_pages)
{
	unsigned long before = nr_free_pages();
	char *p = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);

	KT_EXPECT(t, p, "kmalloc(12K) failed");
	if (!p)
		return;
	KT_EXPECT(t, ksize(p) == 4 * PAGE_SIZE, "ksize %u, want 16K", (unsigned)ksize(p));
	KT_EXPECT(t, before - nr_free_pages() == 4, "took %lu pages, want 4",
		  before - nr_free_pages());
	kfree(p + PAGE_SIZE);	/* refused: not where the allocation starts */
	kfree(p);
	KT_EXPECT(t, nr_free_pages() == before, "%lu pages not given back",
		  before - nr_free_pages());
}

/*
 * Two CPUs kmalloc and kfree the same classes at once, each object
 * filled with its CPU's tag and checked before it is freed: an object
 * handed to both, or a free list broken by a race on it, shows as a
 * foreign tag, a refused free or a page not given back.
 */
#define SMP_ROUNDS	2000
#define SMP_BATCH	24

struct slab_race {
	unsigned long clobbered;	/* bytes found with another CPU's tag */
	unsigned long failed;		/* kmallocs that gave nothing */
};

static void slab_race_run(struct slab_race *r, uint8_t tag)
{
	uint8_t *p[SMP_BATCH];

	for (int round = 0; round < SMP_ROUNDS; round++) {
		for (int i = 0; i < SMP_BATCH; i++) {
			size_t size = 16 << (i % 4);	/* 16..128: slabs fill and empty */

			p[i] = kmalloc(size, GFP_KERNEL);
			if (!p[i]) {
				r->failed++;
				continue;
			}
			memset(p[i], tag, size);
		}
		for (int i = 0; i < SMP_BATCH; i++) {
			if (!p[i])
				continue;
			for (size_t j = 0; j < (size_t)16 << (i % 4); j++)
				r->clobbered += p[i][j] != tag;
			kfree(p[i]);
		}
	}
}

static void slab_race_other(void *arg)
{
	slab_race_run(arg, 0xb0);
}

KTEST(slab, two_cpus_at_once)
{
	struct slab_race mine = { 0, 0 }, theirs = { 0, 0 };
	unsigned long before, bad = slab_stats.bad_frees;
	int other = next_other_cpu(0);

	if (other < 0)
		return kt_skip(t, "one CPU online");
	kmem_cache_shrink_all();
	before = nr_free_pages();
	if (start_cpu_work(other, slab_race_other, &theirs)) {
		KT_EXPECT(t, false, "CPU %d is busy with other work", other);
		return;
	}
	slab_race_run(&mine, 0xa0);
	wait_cpu_work(other);
	KT_EXPECT(t, !mine.clobbered && !theirs.clobbered,
		  "%lu and %lu bytes held the other CPU's tag: an object handed out twice",
		  mine.clobbered, theirs.clobbered);
	KT_EXPECT(t, !mine.failed && !theirs.failed, "%lu and %lu kmallocs failed",
		  mine.failed, theirs.failed);
	KT_EXPECT(t, slab_stats.bad_frees == bad, "%lu frees refused", slab_stats.bad_frees - bad);
	kmem_cache_shrink_all();
	KT_EXPECT(t, nr_free_pages() == before, "free pages %lu after, %lu before",
		  nr_free_pages(), before);
}
