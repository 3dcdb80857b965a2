// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memfd object (Linux: mm/memfd.c, whose file is a shmem inode): a
 * name, a size and the frames behind it. ftruncate gives it zeroed
 * frames at once (Linux's shmem gets them on first touch); mmap maps
 * them, so every mapping of one memfd, in one process or in many, sees
 * the same bytes: a JIT's writable view and its executable view.
 *
 * Who keeps a frame: the memfd holds one reference on each of its frames
 * and every PTE that maps it one more (frame_refs[], mm/page_ref.c), so
 * a frame goes back to the allocator when the memfd has let it go (a
 * shrinking ftruncate, or the memfd's end) and the last mapping is gone.
 * The object lives while a descriptor or a mapping refers to it: an mm
 * holds a reference on each memfd its areas name (mm/memfd_rmap.c), as a
 * Linux mapping holds its file. A mapping's page is the memfd's frame
 * from mmap or from its first touch; past the memfd's end it is SIGBUS.
 * A shrink takes the pages past the new end out of every mapping first,
 * a private copy too (memfd_unmap_pages()), as Linux's truncate does,
 * then lets the frames go; a grow gives zeroed frames that every mapping
 * finds on its next touch of the page.
 *
 * A fixed table of objects (older than kmalloc). memfd_lock guards the
 * table and each size; growing and shrinking allocate and free outside
 * it (a free may send a TLB shootdown, which must not wait under a
 * spinlock), so a resize marks its memfd busy instead and a second
 * resize waits for the first.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/spinlock.h>
#include <ronx/sched.h>
#include <ronx/mm.h>
#include <ronx/mman.h>
#include <ronx/page_ref.h>
#include <ronx/memfd.h>
#include <ronx/mm_types.h>

#define MAX_MEMFDS	32	/* system-wide: more is ENFILE, Linux's "file table full" */

struct memfd {
	int refs;			/* descriptors, in any process; 0: the slot is free */
	char name[MEMFD_NAME_LEN];
	uint64_t size;			/* bytes, as ftruncate set it */
	uint32_t nr_pages;		/* frames[0..nr_pages) are held */
	bool resizing;			/* one resize at a time: it owns frames[] past nr_pages */
	uint32_t *frames;		/* physical addresses: one page, MEMFD_MAX_PAGES of them */
};

static DEFINE_SPINLOCK(memfd_lock);	/* taken alone */
static struct memfd memfds[MAX_MEMFDS];
static unsigned long total_pages;	/* every memfd's frames: against MEMFD_TOTAL_PAGES */

/* A new memfd, size 0, one reference; NULL and -ENFILE or -ENOMEM if none. */
struct memfd *memfd_alloc(const char *name, long *err)
{
	unsigned long flags, list = alloc_page();
	struct memfd *m = 0;

	if (!list) {
		*err = -ENOMEM;
		return 0;
	}
	spin_lock_irqsave(&memfd_lock, flags);
	for (int i = 0; i < MAX_MEMFDS && !m; i++) {
		if (memfds[i].refs)
			continue;
		m = &memfds[i];
		memset(m, 0, sizeof(*m));
		m->refs = 1;
		snprintf(m->name, sizeof(m->name), "%s", name);	/* cut short, for display */
		m->frames = __va(list);
		list = 0;
	}
	spin_unlock_irqrestore(&memfd_lock, flags);
	if (list) {
		free_page(list);
		*err = -ENFILE;
	}
	return m;
}

void memfd_get(struct memfd *m)
{
	unsigned long flags;

	spin_lock_irqsave(&memfd_lock, flags);
	m->refs++;
	spin_unlock_irqrestore(&memfd_lock, flags);
}

/* Lets frames[from..to) go: each is freed unless a mapping still holds it. */
static void put_frames(struct memfd *m, uint32_t from, uint32_t to)
{
	unsigned long flags;

	for (uint32_t i = from; i < to; i++) {
		put_user_frame(m->frames[i]);
		m->frames[i] = 0;
	}
	spin_lock_irqsave(&memfd_lock, flags);
	total_pages -= to - from;
	spin_unlock_irqrestore(&memfd_lock, flags);
}

/*
 * A reference goes: a descriptor's, or an address space's whose areas
 * named it (mm/memfd_rmap.c). After the last, its frames are put, then
 * the slot is free. Nobody else can reach it, so no lock is held over
 * the puts.
 */
void memfd_put(struct memfd *m)
{
	unsigned long flags;
	int left;

	spin_lock_irqsave(&memfd_lock, flags);
	left = --m->refs;
	if (!left)
		m->refs = -1;	/* dying: not free for memfd_alloc() until its frames are put */
	spin_unlock_irqrestore(&memfd_lock, flags);
	if (left)
		return;
	put_frames(m, 0, m->nr_pages);
	free_page(__pa(m->frames));
	spin_lock_irqsave(&memfd_lock, flags);
	m->nr_pages = 0;
	m->frames = 0;
	m->refs = 0;
	spin_unlock_irqrestore(&memfd_lock, flags);
}

/* The memfd's resize is the caller's until resize_publish(..., true). */
static void resize_begin(struct memfd *m)
{
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&memfd_lock, flags);
		if (!m->resizing) {
			m->resizing = true;
			spin_unlock_irqrestore(&memfd_lock, flags);
			return;
		}
		spin_unlock_irqrestore(&memfd_lock, flags);
		yield();
	}
}

/* The new size, seen by mmap from now; done: the next resize may begin. */
static void resize_publish(struct memfd *m, uint64_t size, uint32_t pages, bool done)
{
	unsigned long flags;

	spin_lock_irqsave(&memfd_lock, flags);
	m->size = size;
	m->nr_pages = pages;
	if (done)
		m->resizing = false;
	spin_unlock_irqrestore(&memfd_lock, flags);
}

/* May `more` frames be taken, within the memfd budget and the kernel's reserve? */
static bool charge_pages(uint32_t more)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&memfd_lock, flags);
	ok = total_pages + more <= MEMFD_TOTAL_PAGES && more + USER_FREE_RESERVE <= nr_free_pages();
	if (ok)
		total_pages += more;
	spin_unlock_irqrestore(&memfd_lock, flags);
	return ok;
}

/* frames[from..to) allocated and zeroed; false, with none kept, if memory ran out. */
static bool get_frames(struct memfd *m, uint32_t from, uint32_t to)
{
	unsigned long flags;

	if (!charge_pages(to - from))
		return false;
	for (uint32_t i = from; i < to; i++) {
		unsigned long pa = alloc_page();

		if (!pa) {
			put_frames(m, from, i);
			spin_lock_irqsave(&memfd_lock, flags);
			total_pages -= to - i;	/* put_frames() gave back the rest */
			spin_unlock_irqrestore(&memfd_lock, flags);
			return false;
		}
		set_user_frame_ref(pa, 1);	/* the memfd's own reference */
		m->frames[i] = (uint32_t)pa;
	}
	return true;
}

/*
 * A shrink into the middle of a page zeroes the rest of it, as Linux's
 * truncate does: a later grow shows zeros there, never the old bytes.
 */
static void zero_tail(struct memfd *m, uint64_t size)
{
	uint32_t off = (uint32_t)(size % PAGE_SIZE);

	memset((char *)__va(m->frames[size / PAGE_SIZE]) + off, 0, PAGE_SIZE - off);
}

/*
 * ftruncate: the memfd is size bytes now, in whole frames. Growing adds
 * zeroed frames; shrinking zeroes the last page's rest (zero_tail()),
 * takes the pages past it out of every mapping (whose next touch is
 * SIGBUS), then lets them go. 0, -EFBIG or -ENOMEM.
 */
long memfd_resize(struct memfd *m, uint64_t size)
{
	uint32_t old, pages;

	if (size > (uint64_t)MEMFD_MAX_PAGES * PAGE_SIZE)
		return -EFBIG;
	pages = (uint32_t)((size + PAGE_SIZE - 1) / PAGE_SIZE);
	resize_begin(m);
	old = m->nr_pages;
	if (pages > old && !get_frames(m, old, pages)) {
		resize_publish(m, m->size, old, true);
		return -ENOMEM;
	}
	if (size < m->size && size % PAGE_SIZE)
		zero_tail(m, size);
	if (pages < old) {
		memfd_map_lock();
		resize_publish(m, size, pages, false);	/* a fault finds them no more */
		memfd_unmap_pages(m, pages, old);	/* nor does any mapping hold one */
		memfd_map_unlock();
		put_frames(m, pages, old);
	}
	resize_publish(m, size, pages, true);
	return 0;
}

unsigned memfd_slot(const struct memfd *m)
{
	return (unsigned)(m - memfds);
}

struct memfd *memfd_from_slot(unsigned slot)
{
	return &memfds[slot];
}

_Static_assert(MAX_MEMFDS <= 1 << VM_FILE_BITS, "a memfd area's vm_file cannot name every slot");
_Static_assert(MEMFD_MAX_PAGES < VM_PGOFF_MAX, "vm_pgoff's top value must be past every memfd");

/* Frame pgoff of m with one more reference for a PTE about to map it; 0 past its end. */
unsigned long memfd_get_frame(struct memfd *m, uint32_t pgoff)
{
	unsigned long flags, pa = 0;

	spin_lock_irqsave(&memfd_lock, flags);
	if (pgoff < m->nr_pages) {
		pa = m->frames[pgoff];
		get_user_frame(pa);
	}
	spin_unlock_irqrestore(&memfd_lock, flags);
	return pa;
}

/* "memfd:NAME page N" if an open memfd holds the frame at pa (wxcheck, ptdump). */
bool memfd_frame_name(unsigned long pa, char *buf, unsigned long size)
{
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&memfd_lock, flags);
	for (int i = 0; i < MAX_MEMFDS && !found; i++) {
		struct memfd *m = &memfds[i];

		for (uint32_t p = 0; m->refs > 0 && p < m->nr_pages && !found; p++) {
			if (m->frames[p] != pa)
				continue;
			snprintf(buf, size, "memfd:%s page %u", m->name, p);
			found = true;
		}
	}
	spin_unlock_irqrestore(&memfd_lock, flags);
	return found;
}
