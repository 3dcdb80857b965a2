/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How many user page-table entries map each frame (mm/page_ref.c; Linux:
 * page_ref_count(), page_mapcount()), and the one shared zero page.
 *
 * A user frame is mapped by at least one PTE; fork makes two processes'
 * PTEs point at it (copy-on-write) and counts both. The frame goes back
 * to the allocator when its last PTE goes (put_user_frame()). The zero
 * page is never counted and never freed: every read of a never-written
 * anonymous page maps it, read-only.
 */
#ifndef RONX_PAGE_REF_H
#define RONX_PAGE_REF_H
#include <stdbool.h>

void page_ref_init(void);
unsigned page_ref_count(unsigned long pa);	/* 0 for the zero page and kernel frames */
void get_user_frame(unsigned long pa);		/* one more PTE maps it */
void put_user_frame(unsigned long pa);		/* one PTE less; freed at 0 */
void set_user_frame_ref(unsigned long pa, unsigned n);	/* a new frame's first PTE */

extern unsigned long zero_page_pa;		/* Linux's ZERO_PAGE(0) */
static inline bool is_zero_frame(unsigned long pa)
{
	return pa == zero_page_pa;
}

/* What meminfo prints about sharing: filled by walking every process. */
struct share_stats {
	unsigned long shared_frames;	/* frames mapped by more than one PTE */
	unsigned long cow_ptes;		/* PTEs read-only in a writable area: a write copies */
	unsigned long zero_ptes;	/* PTEs on the zero page */
};
void count_share_stats(struct share_stats *s);
#endif
