// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who maps a memfd, and what a shrink does to them (Linux: the shmem
 * inode's i_mmap tree and i_mmap_rwsem, shmem_fault(), and
 * truncate_pagecache()'s unmap_mapping_range() with even_cows).
 *
 * A memfd area names its memfd and page offset (vm_file, vm_pgoff,
 * mm_types.h). An mm holds one reference on each memfd its areas name
 * (mm->memfds, a bit per slot of mm/memfd.c's table), so the memfd, and
 * its frames, live while a mapping does, as a Linux file does while it is
 * mapped; an mm with any is on one list (memfd_mms). A page of a memfd
 * area is found when it is touched and not mapped: the memfd's frame,
 * read-only in a MAP_PRIVATE area (the first write copies it, mm/cow.c),
 * or SIGBUS past the memfd's end. A shrinking ftruncate walks the list
 * and, in every area of that memfd, takes every page at or past the new
 * end out of the mapping, a private copy too: the pte cleared, every CPU
 * that has the mm loaded flushed, then the frame put. The next touch
 * faults, finds the page past the end, and is SIGBUS.
 *
 * The locking rule: memfd_map_lock(), one lock for all memfds, guards
 * the list, every listed mm's areas, and the ptes of every memfd area.
 * It is held by
 *   - a shrink, from publishing the new size until every mapping has
 *     lost the pages past it;
 *   - a fault in a memfd area (handle_mm_fault(), mm/memory.c), from
 *     reading the size through installing or copying the pte;
 *   - mmap, munmap, mprotect and brk of an mm that is listed or is about
 *     to be (memfd_map_lock_mm(), mm/mmap.c), across the change of its
 *     areas and ptes and memfd_mm_sync();
 *   - fork of a listed mm, from copying its areas until the child is
 *     listed (dup_mm()), so the child is listed before a shrink can miss
 *     it, and has none of the pages a shrink took first;
 *   - the last mmput() of a listed mm, to take it off the list before
 *     its tables are freed.
 * Why that is enough: a shrink and a fault (or mmap's eager map) are
 * ordered by the lock, so either the fault sees the new size, or its pte
 * is there when the shrink walks; a shrink reads another mm's areas only
 * while the owner cannot change them, and its tables only while they
 * cannot be freed (munmap takes the lock, and exit takes the mm off the
 * list first). Anything else an owner does meanwhile touches no memfd
 * area's pte: first touch of an anonymous page, copy-on-write of one,
 * stack growth (which moves the stack area's start in place). A fault
 * may make a page table under a shrink's walk, so a shrink frees no page
 * table (zap_user_pages()); munmap or exit does.
 *
 * It is a sleeping lock in the way a resize is (mm/memfd.c): a waiter
 * yields, and serves cross-CPU calls (a fault waits with interrupts
 * off). A shrink frees frames and sends TLB shootdowns under it, and
 * fork copies a whole mm, neither of which may happen under a spinlock.
 * So it is never taken with a spinlock held; nothing that holds it
 * touches user memory (which could fault and take it again).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sched.h>
#include <ronx/spinlock.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/page_ref.h>
#include <ronx/memfd.h>

static bool map_locked;
static struct mm_struct *memfd_mms;	/* every mm with memfds != 0, through memfd_next */

/*
 * A fault waits here with interrupts off, perhaps for a holder that is
 * waiting for this CPU to flush its TLB: cpu_relax() serves that call
 * (docs/design.md, rule 1), as a spin on a spinlock does.
 */
void memfd_map_lock(void)
{
	while (__atomic_exchange_n(&map_locked, true, __ATOMIC_ACQUIRE)) {
		cpu_relax();
		yield();
	}
}

void memfd_map_unlock(void)
{
	__atomic_store_n(&map_locked, false, __ATOMIC_RELEASE);
}

/*
 * The lock, for a change to mm's areas, if a shrink may read them: mm is
 * listed, or adding (a memfd mapping) may list it. Only the owner lists
 * its mm, so an unlisted one stays unlisted without the lock.
 */
bool memfd_map_lock_mm(struct mm_struct *mm, bool adding)
{
	if (!adding && !mm->memfds)
		return false;
	memfd_map_lock();
	return true;
}

static void list_mm(struct mm_struct *mm)
{
	mm->memfd_next = memfd_mms;
	memfd_mms = mm;
}

static void unlist_mm(struct mm_struct *mm)
{
	struct mm_struct **p = &memfd_mms;

	while (*p && *p != mm)
		p = &(*p)->memfd_next;
	if (*p)
		*p = mm->memfd_next;
	mm->memfd_next = 0;
}

/* A reference on each memfd in `slots`, or (put) one dropped. */
static void ref_slots(uint32_t slots, bool put)
{
	for (unsigned i = 0; slots; i++, slots >>= 1) {
		if (!(slots & 1))
			continue;
		if (put)
			memfd_put(memfd_from_slot(i));
		else
			memfd_get(memfd_from_slot(i));
	}
}

/*
 * Under the lock, after mm's areas changed: a reference on each memfd
 * they name, none on another, and mm listed if it holds any. A memfd an
 * area has just named is held meanwhile by its caller's descriptor.
 */
void memfd_mm_sync(struct mm_struct *mm)
{
	uint32_t want = 0, had = mm->memfds;

	for (int i = 0; i < mm->vmas.nr; i++)
		if (mm->vmas.v[i].kind == VMA_MEMFD)
			want |= 1u << mm->vmas.v[i].vm_file;
	ref_slots(want & ~had, false);
	if (want && !had)
		list_mm(mm);
	else if (!want && had)
		unlist_mm(mm);
	mm->memfds = want;
	ref_slots(had & ~want, true);	/* the last may free frames: no spinlock is held */
}

/* The last mmput(): off the list before its tables go, then its memfds put. */
void memfd_mm_exit(struct mm_struct *mm)
{
	uint32_t had = mm->memfds;

	if (!had)
		return;
	memfd_map_lock();
	unlist_mm(mm);
	mm->memfds = 0;
	memfd_map_unlock();
	ref_slots(had, true);
}

/*
 * Page va of memfd area v mapped to the memfd's frame, under the lock:
 * writable as the area is if it is MAP_SHARED, read-only if private
 * (its first write copies). 0; -ENOENT past the memfd's end (a touch
 * is SIGBUS); -ENOMEM without a page table or over mm's limit.
 */
int memfd_install_page(struct mm_struct *mm, const struct vm_area_struct *v, uint32_t va)
{
	pteval_t prot = vm_get_page_prot(v->vm_flags);
	unsigned long pa = memfd_get_frame(memfd_from_slot(v->vm_file), vma_pgoff_at(v, va));

	if (!pa)
		return -ENOENT;
	if (!(v->vm_flags & VM_SHARED))
		prot &= ~(pteval_t)_PAGE_RW;
	if (page_ref_count(pa) > PAGE_REF_MAX || install_user_frame(mm, va, pa, prot)) {
		put_user_frame(pa);
		return -ENOMEM;
	}
	return 0;
}

/* The part of area v at memfd pages [from, to): [*start, *end); false if none. */
static bool area_pages(const struct vm_area_struct *v, uint32_t from, uint32_t to,
		       uint32_t *start, uint32_t *end)
{
	uint32_t first = v->vm_pgoff, last = vma_pgoff_at(v, v->vm_end - PAGE_SIZE);

	if (last < from || first >= to)
		return false;
	*start = v->vm_start + (first < from ? from - first : 0) * PAGE_SIZE;
	*end = v->vm_start + ((last < to ? last + 1 : to) - first) * PAGE_SIZE;
	return true;
}

/*
 * A shrink of m from `to` pages to `from`, which it has published under
 * the lock: pages [from, to) leave every mapping of m, in every mm, and
 * a private area's copies of them too (Linux's even_cows). No pte of m
 * lies at or past `to`: each shrink took those before.
 */
void memfd_unmap_pages(struct memfd *m, uint32_t from, uint32_t to)
{
	unsigned slot = memfd_slot(m);

	for (struct mm_struct *mm = memfd_mms; mm; mm = mm->memfd_next) {
		if (!(mm->memfds & (1u << slot)))
			continue;
		for (int i = 0; i < mm->vmas.nr; i++) {
			const struct vm_area_struct *v = &mm->vmas.v[i];
			uint32_t start, end;

			if (v->kind == VMA_MEMFD && v->vm_file == slot &&
			    area_pages(v, from, to, &start, &end))
				zap_user_pages(mm, start, end);
		}
	}
}
