// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of KFENCE (mm/kfence.c), for a boot with
 * kfence.sample_interval=N (skipped without): every Nth kmalloc is a
 * KFENCE object, its ksize is what was asked, its guards and its page
 * once freed fault (probed through the exception table: no report), a
 * freed object is handed out again only after every other free one, and
 * a full pool sends kmalloc back to the slabs. They assume no other task
 * kmallocs meanwhile (none does: the kernel has no kmalloc caller yet).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/recovery.h>
#include <ronx/slab.h>
#include <ronx/kfence.h>
#include <ronx/ktest.h>

#define SIZE	40

/* The next KFENCE object of size bytes; the slab objects on the way are freed. */
static uint8_t *next_kfence_object(size_t size)
{
	for (unsigned long i = 0; i <= kfence_sample_interval(); i++) {
		uint8_t *p = kmalloc(size, GFP_KERNEL);

		if (is_kfence_address(p))
			return p;
		kfree(p);
	}
	return 0;
}

static bool same_page(const void *p, const void *q)
{
	return ((unsigned long)p & PAGE_MASK) == ((unsigned long)q & PAGE_MASK);
}

static bool faults(const void *addr)
{
	unsigned char c;

	return probe_read(addr, &c) != 0;
}

KTEST(kfence, every_nth_kmalloc_is_sampled)
{
	unsigned long n = kfence_sample_interval(), hits = 0, rounds = 4;
	void *p[64];

	if (!n)
		return kt_skip(t, "booted without kfence.sample_interval");
	if (n * rounds > 64)
		rounds = 64 / n;
	if (!rounds)
		return kt_skip(t, "sample interval above 64");
	for (unsigned long i = 0; i < n * rounds; i++)
		hits += is_kfence_address(p[i] = kmalloc(16, GFP_KERNEL));
	for (unsigned long i = 0; i < n * rounds; i++)
		kfree(p[i]);
	KT_EXPECT(t, hits == rounds, "%lu of %lu kmallocs were KFENCE objects, want %lu",
		  hits, n * rounds, rounds);
}

KTEST(kfence, ksize_kzalloc_and_guards)
{
	unsigned long bugs = kfence_stats.bugs;
	uint8_t *p, *z;
	unsigned nonzero = 0;

	if (!kfence_sample_interval())
		return kt_skip(t, "booted without kfence.sample_interval");
	p = next_kfence_object(SIZE);
	KT_EXPECT(t, p, "no KFENCE object in %lu kmallocs", kfence_sample_interval() + 1);
	if (!p)
		return;
	KT_EXPECT(t, ksize(p) == SIZE, "ksize of a KFENCE object is %u, want %u",
		  (unsigned)ksize(p), SIZE);
	KT_EXPECT(t, !faults(p) && !faults(p + SIZE - 1), "the object's own bytes fault");
	KT_EXPECT(t, faults((void *)(((unsigned long)p & PAGE_MASK) - 1)),
		  "the page before the object's is mapped (no left guard)");
	KT_EXPECT(t, faults((void *)(((unsigned long)p & PAGE_MASK) + PAGE_SIZE)),
		  "the page after the object's is mapped (no right guard)");
	kfree(p);
	KT_EXPECT(t, faults(p), "a freed KFENCE object's page is still mapped");
	z = 0;
	for (unsigned long i = 0; i <= kfence_sample_interval() && !is_kfence_address(z); i++) {
		kfree(z);
		z = kzalloc(SIZE, GFP_KERNEL);
	}
	KT_EXPECT(t, is_kfence_address(z), "kzalloc gave no KFENCE object");
	for (unsigned i = 0; z && i < SIZE; i++)
		nonzero += z[i] != 0;
	KT_EXPECT(t, !nonzero, "kzalloc's KFENCE object has %u bytes that are not zero", nonzero);
	kfree(z);
	KT_EXPECT(t, kfence_stats.bugs == bugs, "the probes printed %lu reports",
		  kfence_stats.bugs - bugs);
}

/*
 * Free A, then take every other free object: A comes back only last.
 * Then the pool is full: the next sampled kmalloc comes from the slabs.
 */
KTEST(kfence, quarantine_is_fifo_and_full_pool_falls_back)
{
	static uint8_t *held[KFENCE_NUM_OBJECTS];
	unsigned long full = kfence_stats.skipped_full, nfree;
	uint8_t *a, *last = 0, *extra;
	unsigned n = 0, early = 0;

	if (!kfence_sample_interval())
		return kt_skip(t, "booted without kfence.sample_interval");
	a = next_kfence_object(SIZE);
	KT_EXPECT(t, a, "no KFENCE object");
	if (!a)
		return;
	kfree(a);
	nfree = KFENCE_NUM_OBJECTS - kfence_stats.allocated;
	while (n < nfree && (held[n] = next_kfence_object(SIZE)) != 0)
		early += same_page(held[n++], a) && n < nfree;
	if (n)
		last = held[n - 1];
	KT_EXPECT(t, n == nfree, "only %u of %lu free objects came", n, nfree);
	KT_EXPECT(t, !early, "the freed object came back before the %lu others", nfree - 1);
	KT_EXPECT(t, last && same_page(last, a),
		  "the last object taken is not the one freed first");
	extra = 0;
	for (unsigned long i = 0; i <= kfence_sample_interval(); i++) {
		kfree(extra);
		extra = kmalloc(SIZE, GFP_KERNEL);
	}
	KT_EXPECT(t, extra && !is_kfence_address(extra) && kfence_stats.skipped_full > full,
		  "with the pool full, a sampled kmalloc did not fall back to the slabs");
	kfree(extra);
	while (n)
		kfree(held[--n]);
}
