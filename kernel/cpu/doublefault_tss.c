// SPDX-License-Identifier: GPL-2.0-only
/*
 * The double-fault task (Linux: arch/x86/kernel/doublefault_32.c's
 * doublefault_tss): what the CPU switches to through vector 8's task gate
 * when the stack it was on is gone. kernel/cpu/doublefault.c handles the
 * fault once the CPU is there; this file only sets the task up.
 *
 * A task switch loads every register from the TSS, CR3 included, and
 * saves nothing the new task needs: so the TSS must hold a complete
 * kernel context - a stack of this CPU's own (never the one that
 * overflowed: that is why we are here), the kernel's page tables (the
 * fault may come under a process's, or PTI's user set), the kernel's
 * segments and interrupts off.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/segment.h>
#include <ronx/percpu.h>
#include <ronx/pti.h>
#include <ronx/doublefault.h>

/* global: tests and the kernel-stacks lab find each CPU's stack by its symbol */
char doublefault_stack[NR_CPUS][DOUBLEFAULT_STACK_SIZE] __aligned(16);
extern char doublefault_entry[];	/* boot/doublefault.asm */

/* Fills c's double-fault TSS (GDT entry 7 points at it), ready to be switched to. */
void setup_doublefault_tss(struct cpu *c)
{
	struct tss_struct *t = &c->cea->doublefault_tss;	/* beside the CPU's own TSS */

	memset(t, 0, sizeof(*t));
	t->eip = (uint32_t)doublefault_entry;
	t->esp = (uint32_t)(doublefault_stack[c->id] + DOUBLEFAULT_STACK_SIZE);
	t->eflags = X86_EFLAGS_FIXED;		/* interrupts off */
	t->cr3 = __pa(swapper_pg_dir);
	t->cs = KERNEL_CS;
	t->ss = t->ds = t->es = t->gs = KERNEL_DS;
	t->fs = PERCPU_SEL;			/* this_cpu() works there */
	t->io_bitmap_base = sizeof(*t);
}

/*
 * IDT vector 8: a task gate (present, DPL 0) to the double-fault TSS's
 * GDT entry. An interrupt gate would push the fault's frame on the dead
 * stack: a third fault, and the machine resets.
 */
uint64_t doublefault_gate(void)
{
	return ((uint64_t)DOUBLEFAULT_TSS_SEL << 16) | (0x85ULL << 40);
}
