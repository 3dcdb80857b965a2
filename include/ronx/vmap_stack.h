/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel stacks in a virtual area of their own (mm/vmap_stack.c; Linux:
 * CONFIG_VMAP_STACK). Each stack sits in a 32K slot of STACK_AREA_VADDR
 * whose first page is never mapped: an overflow faults there instead of
 * writing over whatever lies below. kernel/cpu/doublefault.c reports it.
 */
#ifndef RONX_VMAP_STACK_H
#define RONX_VMAP_STACK_H
#include <stdbool.h>
#include <ronx/memlayout.h>

#define STACK_SLOT_SIZE		(32UL << 10)	/* a guard page, then at most 7 pages of stack */
#define NR_STACK_SLOTS		((STACK_AREA_END - STACK_AREA_VADDR) / STACK_SLOT_SIZE)

struct task;

unsigned long alloc_thread_stack(unsigned long size);
unsigned long map_thread_stack(unsigned long pa, unsigned long size);
void free_thread_stack(unsigned long stack, unsigned long size);
bool is_vmap_stack(unsigned long stack);
bool stack_guard_hit(const struct task *t, unsigned long addr);
#endif
