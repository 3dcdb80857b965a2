// SPDX-License-Identifier: GPL-2.0-only
/*
 * The randomized stack top and mmap base of a process (see
 * include/ronx/mmap_layout.h for the ranges and bits). Pure arithmetic on
 * the random numbers the caller draws, so that the host tests can check
 * every boundary. Both offsets are whole pages: the guard page and the
 * stack's 8 MiB room keep their page alignment.
 */
#include <ronx/memlayout.h>
#include <ronx/mmap_layout.h>

void pick_mmap_layout(struct mmap_layout *l, int randomize, uint32_t rnd_stack,
		      uint32_t rnd_mmap)
{
	l->stack_top = STACK_TOP;
	l->mmap_base = TASK_UNMAPPED_BASE;
	if (!randomize)
		return;
	l->stack_top -= (rnd_stack & STACK_RND_MASK) << PAGE_SHIFT;
	l->mmap_base += (rnd_mmap & MMAP_RND_MASK) << PAGE_SHIFT;
}
