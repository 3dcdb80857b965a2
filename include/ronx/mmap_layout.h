/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's randomized layout (Linux: arch_pick_mmap_layout() and
 * randomize_stack_top()), chosen at exec and inherited by fork:
 *
 *   stack top  = TASK_SIZE - (r & STACK_RND_MASK) pages: 11 bits, up to
 *                8 MiB - 4 KiB below 0xc0000000 (Linux i386's STACK_RND_MASK)
 *   mmap base  = TASK_UNMAPPED_BASE + (r & MMAP_RND_MASK) pages: 8 bits,
 *                up to 1 MiB - 4 KiB above 0x40000000 (Linux i386's
 *                mmap_rnd_bits default, legacy bottom-up layout)
 *
 * Everything else follows the stack top: the 8 MiB of room to grow in
 * below it, the guard page under that room, and mmap's upper end at the
 * guard. norandmaps (randomize_va_space = 0) gives the fixed layout of
 * memlayout.h exactly. Pure: host-tested in tests/host/test_mmap_layout.c.
 */
#ifndef RONX_MMAP_LAYOUT_H
#define RONX_MMAP_LAYOUT_H
#include <stdint.h>

#define STACK_RND_MASK	0x7ffu	/* pages: 11 bits */
#define MMAP_RND_MASK	0xffu	/* pages: 8 bits */

struct mmap_layout {
	uint32_t stack_top;	/* one past the stack's top word */
	uint32_t mmap_base;	/* where mmap's first-fit search starts */
};

/* The layout for two random numbers; randomize 0 gives the fixed one. */
void pick_mmap_layout(struct mmap_layout *l, int randomize, uint32_t rnd_stack,
		      uint32_t rnd_mmap);

/* Linux's /proc/sys/kernel/randomize_va_space: 2 by default, 0 with norandmaps. */
extern int randomize_va_space;

/* At exec: mm's stack top and mmap base, random unless norandmaps (kernel/randomize_va.c). */
struct mm_struct;
void arch_pick_mmap_layout(struct mm_struct *mm);
#endif
