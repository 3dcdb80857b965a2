// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap (anonymous only), munmap, mprotect and brk (Linux: mm/mmap.c,
 * mm/mprotect.c). The area list (mm/vma.c) says what is mapped. The
 * pages of brk's heap and of a private mmap arrive on first touch
 * (mm/memory.c): a read maps the zero page, a write a fresh frame. An
 * executable's segments and its first stack are mapped whole at exec
 * (map_area()).
 *
 * A MAP_SHARED|MAP_ANONYMOUS area is mapped whole at mmap, every page a
 * zeroed frame charged to the process (map_area()). Shared memory is
 * shared through its frames: fork gives the child the parent's PTEs
 * (mm/cow.c), so a page must have its frame before the fork, or parent
 * and child would each fault in a frame of their own after it and never
 * see each other's writes. Linux keeps a shmem object behind the area
 * instead, whose pages every mapping finds on its own first touch; ronx
 * has no such object, and populating at mmap is the simplest rule that is
 * right whichever process touches a page first, and whenever.
 *
 * A memfd (mm/memfd.c) is mapped at mmap too, every page the memfd has
 * then: each PTE points at the memfd's own frame and holds a reference
 * on it, so two MAP_SHARED mappings in one process (a JIT's RW view and
 * its RX view) or in two see the same bytes. The area names the memfd
 * and its page offset (vm_file, vm_pgoff) and holds a reference on the
 * memfd (mm/memfd_rmap.c), so a mapping outlives the descriptor, and a
 * page that is not mapped, past the memfd's end at mmap or taken by a
 * shrink since, is found at its next touch (mm/memory.c): the memfd's
 * frame if the memfd has grown over it, else SIGBUS, as Linux's. A
 * MAP_PRIVATE mapping maps the same frames read-only in a private area:
 * it sees the memfd's bytes, and writes through a shared view, until its
 * first write to a page copies it (do_wp_page(), mm/cow.c; the memfd's
 * own reference makes the count 2 at least, so it is always a copy while
 * the memfd holds the frame). A shrink takes its pages past the new end
 * from every mapping, copies too. mmap, munmap, mprotect and brk of an
 * address space that maps a memfd hold memfd_map_lock() (the locking
 * rule is mm/memfd_rmap.c's): a shrink in another process reads its
 * areas and changes their PTEs.
 *
 * The policy, beyond Linux's: a request for PROT_WRITE|PROT_EXEC is
 * refused with -EACCES (Linux leaves that to SELinux's execmem). Writing
 * code into an RW page and then making it RX, what a JIT does, works: the
 * page is never both at once. The guard page under the stack is never
 * mapped, not even by MAP_FIXED.
 *
 * Lengths are 32 bits: rounded up to pages they may wrap to 0, and
 * addr + len may pass 4 GiB. mm/mmap_range.c checks both as Linux does.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/sched.h>
#include <ronx/page_ref.h>
#include <ronx/memfd.h>

unsigned prot_to_vm_flags(unsigned prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* User W^X: writable and executable at once is never granted. */
static bool wants_wx(unsigned prot)
{
	return (prot & PROT_WRITE) && (prot & PROT_EXEC);
}

/* Would npages more be within the process's limit and leave the kernel its reserve? */
static bool may_grow(struct mm_struct *mm, uint32_t npages)
{
	return mm_charge(mm, npages);
}

/* Adds [start, end) as an area and maps every page of it; 0 or -ENOMEM, nothing left behind. */
int map_area(struct mm_struct *mm, uint32_t start, uint32_t end, unsigned flags, unsigned kind)
{
	pteval_t prot = vm_get_page_prot(flags);

	if (!may_grow(mm, (end - start) / PAGE_SIZE) || vma_add(&mm->vmas, start, end, flags, kind))
		return -ENOMEM;
	for (uint32_t va = start; va < end; va += PAGE_SIZE) {
		cond_resched();		/* 32 MiB takes half a second under TCG */
		if (install_user_page(mm, va, prot)) {
			zap_user_range(mm, start, end);
			vma_remove(&mm->vmas, start, end);
			return -ENOMEM;
		}
	}
	vma_merge(&mm->vmas);
	return 0;
}

/* Areas [start, end) split out, removed and unmapped. */
static long unmap_range(struct mm_struct *mm, uint32_t start, uint32_t end)
{
	if (vma_split(&mm->vmas, start) || vma_split(&mm->vmas, end))
		return -ENOMEM;
	vma_remove(&mm->vmas, start, end);
	zap_user_range(mm, start, end);
	vma_merge(&mm->vmas);
	if (mm->memfds)
		memfd_mm_sync(mm);	/* under memfd_map_lock(): an area gone may have been a memfd's */
	return 0;
}

/*
 * [start, end) as an area on m's pages from pgoff, each mapped now if m
 * has it (a page past m's end is SIGBUS until m grows to it, mm/memory.c);
 * nothing left behind on error. A private area's PTEs are read-only
 * whatever it asked for: its first write to a page copies it
 * (copy-on-write), never writing the memfd's frame. Under
 * memfd_map_lock(): from vma_add() on, a shrink may read the area.
 */
static int map_memfd(struct mm_struct *mm, uint32_t start, uint32_t end, unsigned flags,
		     struct memfd *m, uint32_t pgoff)
{
	struct vm_area_struct *v;
	int err = 0;

	if (!may_grow(mm, (end - start) / PAGE_SIZE) ||
	    vma_add(&mm->vmas, start, end, flags, VMA_MEMFD))
		return -ENOMEM;
	v = vma_find(&mm->vmas, start);
	v->vm_file = memfd_slot(m) & ((1u << VM_FILE_BITS) - 1);
	v->vm_pgoff = (pgoff < VM_PGOFF_MAX ? pgoff : VM_PGOFF_MAX) & VM_PGOFF_MAX;
	memfd_mm_sync(mm);	/* the area's reference on m */
	for (uint32_t va = start; va < end && err != -ENOMEM; va += PAGE_SIZE)
		err = memfd_install_page(mm, v, va);
	if (err == -ENOMEM) {
		unmap_range(mm, start, end);
		return err;
	}
	vma_merge(&mm->vmas);
	return 0;
}

/*
 * The memfd behind a file mapping, or why not: EBADF for no descriptor,
 * ENODEV for the console, EOVERFLOW if the page offset wraps. A range
 * past the memfd's size is mapped (a touch there is SIGBUS).
 */
static long mmap_file(int fd, uint32_t len, uint32_t pgoff, struct memfd **mp)
{
	struct memfd *m = fget_memfd(fd);
	uint32_t pages = len / PAGE_SIZE + !!(len % PAGE_SIZE);

	if (!m)
		return fd >= 0 && fd <= 2 ? -ENODEV : -EBADF;
	if (pgoff + pages < pgoff)
		return -EOVERFLOW;
	*mp = m;
	return 0;
}

/*
 * Adds [start, end) as an area whose pages come on first touch (Linux's
 * mmap: nothing is mapped until a fault). The area alone must fit the
 * process's limit; the pages are counted against it as they arrive.
 */
static int add_area(struct mm_struct *mm, uint32_t start, uint32_t end, unsigned flags,
		    unsigned kind)
{
	if ((end - start) / PAGE_SIZE > USER_PAGES_MAX || vma_add(&mm->vmas, start, end, flags, kind))
		return -ENOMEM;
	vma_merge(&mm->vmas);
	return 0;
}

static bool touches_guard(const struct mm_struct *mm, uint32_t start, uint32_t end)
{
	uint32_t guard = mm_stack_guard(mm);

	return start < guard + PAGE_SIZE && end > guard;
}

static long __do_mmap_pgoff(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
			    unsigned flags, int fd, uint32_t pgoff)
{
	struct memfd *m = 0;
	uint32_t size, start;
	long err;

	if (!(flags & MAP_ANONYMOUS)) {
		err = mmap_file(fd, len, pgoff, &m);	/* the memfd, or why not */
		if (err)
			return err;
	}
	if ((flags & MAP_TYPE) != MAP_PRIVATE && (flags & MAP_TYPE) != MAP_SHARED)
		return -EINVAL;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	err = mmap_len(len, &size);	/* 0: EINVAL; wraps when rounded up: ENOMEM */
	if (err)
		return err;
	if (size > TASK_SIZE - MMAP_MIN_ADDR)
		return -ENOMEM;
	if (wants_wx(prot))
		return -EACCES;
	if (flags & MAP_FIXED) {
		if (addr & ~PAGE_MASK)
			return -EINVAL;
		if (addr < MMAP_MIN_ADDR)
			return -EPERM;
		if (addr > TASK_SIZE - size || touches_guard(mm, addr, addr + size))
			return -ENOMEM;
		start = addr;
		if (unmap_range(mm, start, start + size))
			return -ENOMEM;
	} else {
		start = (addr & ~PAGE_MASK) || addr < mm->mmap_base ||
			(uint64_t)addr + size > mm_mmap_end(mm) ||
			!vma_range_free(&mm->vmas, addr, addr + size) ? 0 : addr;
		if (!start)
			start = vma_free_area(&mm->vmas, size, mm->mmap_base, mm_mmap_end(mm));
		if (!start)
			return -ENOMEM;
	}
	if (m)
		err = map_memfd(mm, start, start + size, prot_to_vm_flags(prot) |
				((flags & MAP_TYPE) == MAP_SHARED ? VM_SHARED : 0), m, pgoff);
	else if ((flags & MAP_TYPE) == MAP_SHARED)
		err = map_area(mm, start, start + size, prot_to_vm_flags(prot) | VM_SHARED, VMA_MMAP);
	else
		err = add_area(mm, start, start + size, prot_to_vm_flags(prot), VMA_MMAP);
	return err ? -ENOMEM : (long)start;
}

/*
 * mmap, munmap, mprotect and brk change mm's areas under
 * memfd_map_lock() when a shrinking memfd may read them: mm maps a
 * memfd, or is about to (mm/memfd_rmap.c, the locking rule).
 */
long do_mmap_pgoff(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
		   unsigned flags, int fd, uint32_t pgoff)
{
	bool locked = memfd_map_lock_mm(mm, !(flags & MAP_ANONYMOUS));
	long ret = __do_mmap_pgoff(mm, addr, len, prot, flags, fd, pgoff);

	if (locked)
		memfd_map_unlock();
	return ret;
}

long do_mmap(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
	     unsigned flags, int fd)
{
	return do_mmap_pgoff(mm, addr, len, prot, flags, fd, 0);
}

long do_munmap(struct mm_struct *mm, uint32_t addr, uint32_t len)
{
	uint32_t end;
	long err = munmap_range(addr, len, &end);	/* mm/mmap_range.c */
	bool locked;

	if (err)
		return err;
	locked = memfd_map_lock_mm(mm, false);
	err = unmap_range(mm, addr, end);
	if (locked)
		memfd_map_unlock();
	return err;
}

static long __do_mprotect(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot)
{
	unsigned flags = prot_to_vm_flags(prot);
	uint32_t end;
	long err;

	if ((addr & ~PAGE_MASK) || prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	err = mprotect_range(addr, len, &end);	/* ENOMEM if addr + len wraps */
	if (err)
		return err;
	if (end > TASK_SIZE)
		return -ENOMEM;
	if (!len)
		return 0;
	if (wants_wx(prot))
		return -EACCES;
	if (!vma_range_covered(&mm->vmas, addr, end))
		return -ENOMEM;
	if (vma_split(&mm->vmas, addr) || vma_split(&mm->vmas, end))
		return -ENOMEM;
	for (int i = 0; i < mm->vmas.nr; i++) {
		struct vm_area_struct *v = &mm->vmas.v[i];

		if (v->vm_start >= addr && v->vm_end <= end)
			v->vm_flags = (uint8_t)(flags | (v->vm_flags & VM_SHARED));
	}
	change_user_prot(mm, addr, (uint32_t)end, vm_get_page_prot(flags));
	vma_merge(&mm->vmas);
	return 0;
}

long do_mprotect(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot)
{
	bool locked = memfd_map_lock_mm(mm, false);
	long ret = __do_mprotect(mm, addr, len, prot);

	if (locked)
		memfd_map_unlock();
	return ret;
}

/* brk(2): the heap ends at newbrk if it can; returns where it ends now. */
static uint32_t __do_brk(struct mm_struct *mm, uint32_t newbrk)
{
	uint32_t old_end = PFN_ALIGN(mm->brk), new_end = PFN_ALIGN(newbrk);

	if (newbrk < mm->start_brk || newbrk > TASK_UNMAPPED_BASE)
		return mm->brk;
	if (new_end > old_end) {
		if (!vma_range_free(&mm->vmas, old_end, new_end) ||
		    add_area(mm, old_end, new_end, VM_READ | VM_WRITE, VMA_HEAP))
			return mm->brk;
	} else if (new_end < old_end && unmap_range(mm, new_end, old_end)) {
		return mm->brk;
	}
	mm->brk = newbrk;
	return mm->brk;
}

uint32_t do_brk(struct mm_struct *mm, uint32_t newbrk)
{
	bool locked = memfd_map_lock_mm(mm, false);
	uint32_t ret = __do_brk(mm, newbrk);

	if (locked)
		memfd_map_unlock();
	return ret;
}
