/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's memory on demand (mm/memory.c; Linux: mm/memory.c):
 * the fault handler behind copy-on-write, the zero page, first-touch
 * anonymous memory and stack growth, and the page-table copy of fork.
 */
#ifndef RONX_MEMORY_H
#define RONX_MEMORY_H
#include <stdint.h>
#include <ronx/mm_types.h>
#include <ronx/pgtable_types.h>

/* What handle_mm_fault() did (Linux's vm_fault_t, reduced). */
enum vm_fault {
	VM_FAULT_DONE,		/* the PTE now allows the access: retry it */
	VM_FAULT_SIGSEGV,	/* no area, or the area forbids it */
	VM_FAULT_ACCERR,	/* SIGSEGV: an area holds the address but forbids the access */
	VM_FAULT_OOM,		/* a page was needed and there is none */
	VM_FAULT_SIGBUS,	/* a memfd area's page past the memfd's end */
};

enum vm_fault handle_mm_fault(struct mm_struct *mm, uint32_t address, uint32_t error_code);
/* fork's copy: dst shares every frame of src, private writable ones read-only in both (mm/cow.c) */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src);
/* mm/cow.c: a write to a read-only page of a private writable area: copy, or take it back */
struct vm_area_struct;
enum vm_fault do_wp_page(struct mm_struct *mm, const struct vm_area_struct *v, uint32_t va,
			 pteval_t *pte, uint32_t ec);
/* mm/cow.c: an mm going away: every frame of one of its page tables put */
void zap_pte_range(struct mm_struct *mm, pteval_t *ptes);
/* mm/memory.c, for mm/cow.c */
unsigned long alloc_user_frame(struct mm_struct *mm);	/* counted 1; 0 past the limits */
unsigned long alloc_user_frame_uninit(struct mm_struct *mm);	/* ... not zeroed: copy into it whole */
void count_fault(unsigned long *stat);
/* an mm for a child: src's areas, its frames shared copy-on-write; NULL if out of memory */
struct mm_struct *dup_mm(struct mm_struct *src);

/* What the fault handler has done since boot (meminfo; the bench reads its deltas). */
struct fault_stats {
	unsigned long cow_copies;	/* a write to a shared frame: a copy */
	unsigned long cow_reuses;	/* a write to a frame no one else maps any more: RW again */
	unsigned long zero_maps;	/* a first read: the zero page, read-only */
	unsigned long anon_pages;	/* a first write (or a write to the zero page): a new frame */
	unsigned long stack_grows;	/* a fault below the stack that grew it */
	unsigned long oom_kills;	/* Out of memory: Killed process */
};
extern struct fault_stats fault_stats;

/* mm/oom_kill.c: current dies of SIGKILL, with Linux's "Out of memory: Killed process" line */
void oom_kill_current(void);
/* mm/oom_kill.c: RAM ran short for mm (NULL: a new program): kill the largest, wait; may retry? */
bool out_of_memory(const struct mm_struct *mm);
#endif
