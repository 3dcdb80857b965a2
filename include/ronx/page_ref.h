/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How many user page-table entries map each frame (mm/page_ref.c; Linux:
 * page_ref_count(), page_mapcount()), and the one shared zero page.
 *
 * A user frame is mapped by at least one PTE; fork makes two processes'
 * PTEs point at it (copy-on-write) and counts both. The frame goes back
 * to the allocator when its last PTE goes (put_user_frame()). The zero
 * page is never counted, and freed only with the last mm: every read of
 * a never-written anonymous page maps it, read-only.
 */
#ifndef RONX_PAGE_REF_H
#define RONX_PAGE_REF_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/pgtable_types.h>

int page_ref_mm_get(void);		/* mm_alloc(): the counts and the zero page exist while an mm does */
void page_ref_mm_put(void);		/* an mm's last page is gone */
unsigned long nr_shared_frames(void);
unsigned page_ref_count(unsigned long pa);	/* 0 for the zero page and kernel frames */
void get_user_frame(unsigned long pa);		/* one more PTE maps it (mm/cow.c) */
void put_user_frame(unsigned long pa);		/* one PTE less; freed at 0 (mm/cow.c) */
void set_user_frame_ref(unsigned long pa, unsigned n);	/* a new frame's first PTE */

/*
 * A byte per frame: one process maps a frame once per area, so a memfd
 * frame (mapped in several areas of one process) could reach 255 across
 * forks. mmap of a memfd and fork refuse (-ENOMEM) a frame counted this
 * high: Linux's counts are 32 bits and never need to.
 */
#define PAGE_REF_MAX	240

extern uint8_t *frame_refs;			/* indexed by PFN; NULL while no mm exists */
extern unsigned long zero_page_pa;		/* Linux's ZERO_PAGE(0); 0 while no mm exists */
static inline bool is_zero_frame(unsigned long pa)
{
	return pa == zero_page_pa;
}

/*
 * What a person is told about sharing (kernel/shell/cow_show.c): meminfo's counts,
 * ptdump PID's "Shared frames" section, walk VA PID's frame line. They
 * read live processes' tables without stopping them: numbers for a
 * person, never for the kernel's decisions.
 */
enum frame_share {
	FRAME_PRIVATE,		/* this PTE's alone, writable if the area is */
	FRAME_ZERO,		/* the zero page: read-only, every process's */
	FRAME_COW,		/* shared with another PTE, read-only: a write copies */
	FRAME_COW_LAST,		/* read-only in a writable area, no one else left: a write takes it back */
	FRAME_SHARED,		/* shared read-only (text, rodata) or MAP_SHARED */
};
struct share_stats {
	unsigned long shared_frames;	/* frames mapped by more than one PTE */
	unsigned long cow_ptes;		/* PTEs FRAME_COW or FRAME_COW_LAST */
	unsigned long zero_ptes;	/* PTEs on the zero page */
	unsigned long shared_ptes;	/* PTEs FRAME_SHARED */
};
struct mm_struct;
struct task;
enum frame_share classify_frame(struct mm_struct *mm, uint32_t va, pteval_t pte);
const char *frame_share_name(enum frame_share s);
void count_share_stats(struct share_stats *s);
/* t and mm referenced, mm's tables pinned (docs/design.md, "Lifetimes") */
void ptdump_sharing(struct task *t, struct mm_struct *mm);
void walk_frame_line(struct task *t, struct mm_struct *mm, uint32_t va, char *buf,
		     unsigned long size);
void meminfo_sharing(void);
void ptdump_memfd_views(struct task *t, struct mm_struct *mm);	/* kernel/shell/memfd_show.c */
#endif
