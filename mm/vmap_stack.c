// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel stack area (Linux: CONFIG_VMAP_STACK, which puts each stack
 * in vmalloc space). STACK_AREA_VADDR holds NR_STACK_SLOTS slots of 32K;
 * a stack fills its slot from the second page up, and the first page is
 * never mapped. So the page below every stack faults (the guard page),
 * and so does the page above it: it is the next slot's guard, or an
 * unused part of this slot. One page table covers the whole area, and the
 * shell's stack (the first slot taken) keeps it for good.
 *
 * The frames are ordinary pages, also reachable through the direct map,
 * as Linux's are; only the stack's own addresses have guards. Slots are
 * handed out next fit, so a freed stack's addresses are reused as late as
 * possible, and kaslr starts the search at a random slot.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/spinlock.h>
#include <ronx/mm.h>
#include <ronx/kaslr.h>
#include <ronx/random.h>
#include <ronx/sched.h>
#include <ronx/vmap_stack.h>

_Static_assert(NR_STACK_SLOTS <= 64, "the slot bitmap is one 64-bit word");
_Static_assert(STACK_AREA_END - STACK_AREA_VADDR <= PMD_SIZE, "one page table for the area");

static DEFINE_SPINLOCK(stack_area_lock);
static uint64_t slots_used;
static unsigned long next_slot;
static bool next_slot_ready;

/* A free slot's number, next fit, or -1. */
static long take_slot(void)
{
	unsigned long flags;
	long slot = -1;

	spin_lock_irqsave(&stack_area_lock, flags);
	if (!next_slot_ready) {
		next_slot = kaslr_offset() ? arch_get_random_u32() % NR_STACK_SLOTS : 0;
		next_slot_ready = true;
	}
	for (unsigned long i = 0; i < NR_STACK_SLOTS; i++) {
		unsigned long s = (next_slot + i) % NR_STACK_SLOTS;

		if (!(slots_used & (1ULL << s))) {
			slots_used |= 1ULL << s;
			next_slot = (s + 1) % NR_STACK_SLOTS;
			slot = (long)s;
			break;
		}
	}
	spin_unlock_irqrestore(&stack_area_lock, flags);
	return slot;
}

static void put_slot(unsigned long stack)
{
	unsigned long flags, slot = (stack - STACK_AREA_VADDR) / STACK_SLOT_SIZE;

	spin_lock_irqsave(&stack_area_lock, flags);
	slots_used &= ~(1ULL << slot);
	spin_unlock_irqrestore(&stack_area_lock, flags);
}

/* The stack's lowest address in slot: above the slot's guard page. */
static unsigned long slot_stack(long slot)
{
	return STACK_AREA_VADDR + (unsigned long)slot * STACK_SLOT_SIZE + PAGE_SIZE;
}

/*
 * size bytes of stack in a free slot, above its guard page: fresh zeroed
 * frames, or (pa non-zero) the frames from pa on. Its lowest address, or 0.
 */
static unsigned long map_stack(unsigned long size, unsigned long pa)
{
	unsigned long npages = PFN_UP(size), stack;
	long slot;

	if (!npages || size > STACK_SLOT_SIZE - PAGE_SIZE || (slot = take_slot()) < 0)
		return 0;
	stack = slot_stack(slot);
	for (unsigned long i = 0; i < npages; i++) {
		unsigned long frame = pa ? pa + i * PAGE_SIZE : alloc_page();

		if (!frame || map_page(stack + i * PAGE_SIZE, frame, PAGE_KERNEL)) {
			if (frame && !pa)
				free_page(frame);
			unmap_kernel_range(stack, i, pa ? 0 : free_page);
			put_slot(stack);
			return 0;
		}
	}
	return stack;
}

unsigned long alloc_thread_stack(unsigned long size)
{
	return map_stack(size, 0);
}

/*
 * Frames that are a stack already (the boot stack, which becomes the
 * shell's) mapped again in a slot, so that they get a guard page too.
 */
unsigned long map_thread_stack(unsigned long pa, unsigned long size)
{
	return map_stack(size, pa);
}

/*
 * Unmaps a stack alloc_thread_stack() gave, every CPU's TLB flushed before
 * its frames go back. May run under tasks_lock: a CPU spinning on that
 * lock serves the flush (cpu_relax()).
 */
void free_thread_stack(unsigned long stack, unsigned long size)
{
	unmap_kernel_range(stack, PFN_UP(size), free_page);
	put_slot(stack);
}

bool is_vmap_stack(unsigned long stack)
{
	return stack >= STACK_AREA_VADDR && stack < STACK_AREA_END;
}

/* Is addr in the page just below t's stack, or just above it? (Linux: the VMAP_STACK test in no_context()). */
bool stack_guard_hit(const struct task *t, unsigned long addr)
{
	unsigned long end;

	if (!t || !is_vmap_stack(t->stack))
		return false;
	end = t->stack + t->stack_size;
	return (addr < t->stack && t->stack - addr <= PAGE_SIZE) ||
	       (addr >= end && addr - end < PAGE_SIZE);
}
