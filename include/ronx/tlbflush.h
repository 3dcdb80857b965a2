/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TLB flushes that reach every CPU (Linux: arch/x86/include/asm/tlbflush.h,
 * arch/x86/mm/tlb.c). __flush_tlb_one() and __flush_tlb_all() (x86.h) act
 * on this CPU only; these send the others an IPI and wait for each to
 * acknowledge, so that when they return no CPU holds a stale translation.
 */
#ifndef RONX_TLBFLUSH_H
#define RONX_TLBFLUSH_H
#include <stdbool.h>

/*
 * Up to this many pages a flush invalidates them one by one (invlpg);
 * beyond, it flushes everything (Linux: tlb_single_page_flush_ceiling, 33).
 */
#define TLB_FLUSH_CEILING	32

/* What each CPU flushes (mm/tlb.c), passed to it by IPI. */
struct flush_tlb_info {
	unsigned long start, end;
};

void do_kernel_range_flush(void *info);		/* this CPU's part */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);
void flush_tlb_all(void);			/* mm/tlb_mm.c */
struct mm_struct;
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end);

/* "cpa_shootdown=off" (debug): flush this CPU only, and let the others keep stale entries. */
extern bool cpa_shootdown;
#endif
