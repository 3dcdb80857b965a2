/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's address space: its page tables (a PDPT whose entry 3 is the
 * kernel's page directory) and the list of its areas (VMAs), each with
 * one set of permissions and a name (text, rodata, data, bss, heap,
 * mmap, stack). The VMA list is pure (mm/vma.c, host-tested).
 */
#ifndef RONX_MM_TYPES_H
#define RONX_MM_TYPES_H
#include <stdbool.h>
#include <stdint.h>

#define VM_READ		0x1
#define VM_WRITE	0x2
#define VM_EXEC		0x4
#define VM_SHARED	0x8	/* MAP_SHARED: fork shares its frames writable, never copies */

enum vma_kind { VMA_TEXT, VMA_RODATA, VMA_DATA, VMA_BSS, VMA_HEAP, VMA_MMAP, VMA_STACK,
		VMA_MEMFD };

/*
 * A memfd area names its memfd and the memfd page at vm_start (Linux's
 * vm_file and vm_pgoff), so that a fault finds the page and a shrinking
 * ftruncate finds the area (mm/memfd.c). Twelve bytes, so that 256 of
 * them and the mm still fit one page: the memfd is its slot in memfd.c's
 * table (MAX_MEMFDS, 32), and a page offset at or past VM_PGOFF_MAX is
 * kept as VM_PGOFF_MAX, which is past the end of any memfd
 * (MEMFD_MAX_PAGES, 1024) for good: every touch there is SIGBUS.
 */
#define VM_FILE_BITS	5
#define VM_PGOFF_MAX	2047U

struct vm_area_struct {
	uint32_t vm_start, vm_end;	/* [start, end), page-aligned */
	uint8_t vm_flags;		/* VM_READ | VM_WRITE | VM_EXEC | VM_SHARED */
	uint8_t kind;			/* enum vma_kind */
	uint16_t vm_file : VM_FILE_BITS;	/* VMA_MEMFD: the memfd's slot; else 0 */
	uint16_t vm_pgoff : 11;		/* VMA_MEMFD: its page at vm_start, at most VM_PGOFF_MAX */
};

/*
 * Linux's max_map_count, small: more is -ENOMEM. 256, not fewer: a
 * collector that unprotects pages of a 100-page heap one at a time, in
 * any order (user/bin/bench_appel.c's appel2), needs up to 100 areas
 * there alone. The struct still fits its page (mm_alloc()).
 */
#define MAX_VMAS	256

struct vma_list {
	int nr;
	struct vm_area_struct v[MAX_VMAS];	/* sorted, never overlapping */
};

struct mm_struct {
	uint32_t pgd;			/* physical address of the PDPT: what CR3 holds */
	struct vma_list vmas;
	uint32_t start_code, end_code, entry;
	uint32_t start_brk, brk;
	uint32_t total_pages;		/* user pages mapped (the zero page too) */
	uint32_t pt_pages;		/* PDPT, page directories, page tables, this struct */
	volatile unsigned long cpu_mask;	/* CPUs with these tables in CR3 (mm_cpumask) */
	int mm_users;			/* references: the task, and anyone reading it (mmget) */
	int pt_walkers;			/* readers of its tables from outside (mm_pin_tables) */
	uint32_t stack_top;		/* randomized at exec (mm/mmap_layout.c), kept by fork */
	uint32_t mmap_base;		/* where mmap's search starts, likewise */
	uint32_t memfds;		/* memfd slots its areas name, one reference each (mm/memfd.c) */
	struct mm_struct *memfd_next;	/* the list of mms with memfds != 0 (memfd_map_lock) */
};

/*
 * What a process is charged for, against USER_PAGES_MAX and by the OOM
 * killer: its pages and the kernel's pages that hold its tables (Linux's
 * oom_badness() adds the page tables to the RSS the same way). A read
 * every 2 MiB maps only the zero page, which costs no RAM, but makes the
 * kernel allocate a 4 KiB page table: uncounted, that is how a few
 * processes could pin all of RAM with nothing to show for it.
 */
static inline uint32_t mm_charged_pages(const struct mm_struct *mm)
{
	return mm->total_pages + mm->pt_pages;
}

/*
 * One page more in mm's count. Atomic, as clear_user_pte()'s decrement:
 * a shrinking memfd takes pages from an mm while its owner faults others
 * in on another CPU (mm/memfd_rmap.c), and a plain ++ would lose one.
 */
static inline void mm_inc_pages(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->total_pages, 1, __ATOMIC_RELAXED);
}

/*
 * What follows from the stack top (memlayout.h's STACK_* for the fixed
 * layout): the 8 MiB the stack may grow to, the guard page under that,
 * and mmap's upper end at the guard.
 */
static inline uint32_t mm_stack_limit(const struct mm_struct *mm)
{
	return mm->stack_top - (8u << 20);	/* STACK_RLIMIT */
}

static inline uint32_t mm_stack_guard(const struct mm_struct *mm)
{
	return mm_stack_limit(mm) - 4096u;	/* one page */
}

static inline uint32_t mm_mmap_end(const struct mm_struct *mm)
{
	return mm_stack_guard(mm);
}

/* mm/vma.c (pure) */
const char *vma_kind_name(unsigned kind);
struct vm_area_struct *vma_find(struct vma_list *l, uint32_t addr);
bool vma_range_free(const struct vma_list *l, uint32_t start, uint32_t end);
bool vma_range_covered(const struct vma_list *l, uint32_t start, uint32_t end);
int vma_split(struct vma_list *l, uint32_t addr);
int vma_add(struct vma_list *l, uint32_t start, uint32_t end, unsigned flags, unsigned kind);
void vma_remove(struct vma_list *l, uint32_t start, uint32_t end);
void vma_merge(struct vma_list *l);
uint32_t vma_free_area(const struct vma_list *l, uint32_t len, uint32_t lo, uint32_t hi);
uint32_t vma_pgoff_at(const struct vm_area_struct *v, uint32_t addr);
struct vm_area_struct *vma_grow_down(struct vma_list *l, unsigned kind, uint32_t addr,
				     uint32_t limit);
#endif
