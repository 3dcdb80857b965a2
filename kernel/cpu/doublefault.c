// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel stack overflows, caught (Linux: handle_stack_overflow() and
 * arch/x86/kernel/doublefault_32.c).
 *
 * Every task's kernel stack has an unmapped page below and above it
 * (mm/vmap_stack.c). An access there is a page fault; if the stack
 * pointer itself went into the guard, the CPU cannot push the page
 * fault's frame either, and that second fault is a double fault. With an
 * interrupt gate the double fault would be pushed on the same dead stack:
 * a third fault, and the machine resets. So vector 8 is a task gate: the
 * CPU saves the task's registers in this CPU's TSS and loads the
 * double-fault TSS (one per CPU, below), with its own stack and the
 * kernel's CR3 (kernel/cpu/doublefault_tss.c sets it up). The double-fault
 * TSS is in the CPU's cpu_entry_area, as its own TSS is: the CPU reads it
 * under whichever CR3 it faulted on.
 *
 * Both ways end in handle_stack_overflow(), run by the task itself but
 * lower on its stack than any frame it will return to: just below its
 * innermost recovery (the shell's catch_faults(), which then takes it
 * back), or else just below its user registers (a process, which dies of
 * the oops). It prints Linux's two lines and dies as any kernel oops does.
 * From the double-fault task the way back is its iret: the task's saved
 * state in the TSS is first rewritten to resume there, with the CR3 the
 * CPU had (a task switch does not save CR3: this CPU's active_mm says it).
 * A double fault that is not a stack overflow cannot be undone: it prints
 * Linux's panic line and halts this CPU, never a silent triple fault.
 */
#include <stddef.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/segment.h>
#include <ronx/percpu.h>
#include <ronx/pti.h>
#include <ronx/cpu_entry_area.h>
#include <ronx/recovery.h>
#include <ronx/sched.h>
#include <ronx/traps.h>
#include <ronx/vmap_stack.h>
#include <ronx/fpu.h>
#include <ronx/doublefault.h>
#include <ronx/panic.h>

/*
 * Where t's oops runs: below every frame it will come back to, and
 * 16-byte aligned; 0 if that leaves less than OVERFLOW_OOPS_ROOM.
 */
static unsigned long overflow_sp(const struct task *t)
{
	unsigned long top = t->stack + t->stack_size;
	const struct recovery *r = t->recovery;

	if (r && r->jb.esp > t->stack && r->jb.esp <= top)
		top = r->jb.esp - 16;
	else if (t->regs)
		top = (unsigned long)t->regs;
	top &= ~15UL;
	return top - t->stack >= OVERFLOW_OOPS_ROOM ? top : 0;
}

/* Writes handle_stack_overflow()'s call on t's stack at sp; returns the new esp. */
static uint32_t *push_overflow_call(unsigned long sp, const struct trap_frame *f,
				    unsigned long addr, const char *message)
{
	struct trap_frame *copy = (struct trap_frame *)sp - 1;
	uint32_t *esp = (uint32_t *)copy;

	*copy = *f;
	*--esp = (uint32_t)message;
	*--esp = addr;
	*--esp = (uint32_t)copy;
	*--esp = 0;			/* no return address: it never returns */
	return esp;
}

static void __noreturn no_room(const struct task *t, unsigned long addr)
{
	printk(KERN_EMERG "BUG: stack guard page was hit at %p (stack is %p..%p)\n", (void *)addr,
	       (void *)t->stack, (void *)(t->stack + t->stack_size - 1));
	panic("kernel stack overflow with no room left below its recovery to report it");
}

/* From the page-fault handler, on the stack that overflowed: the rest runs further up. */
void stack_overflow_oops(struct trap_frame *f, unsigned long addr, const char *message)
{
	struct task *t = current;
	unsigned long sp = overflow_sp(t);
	uint32_t *esp;

	if (!sp)
		no_room(t, addr);
	f->esp_dummy = frame_esp(f);	/* the copy is elsewhere: keep where the stack was */
	esp = push_overflow_call(sp, f, addr, message);
	__asm__ volatile("mov %0, %%esp\n\t"
			 "jmp *%1"
			 : : "r"(esp), "r"(handle_stack_overflow) : "memory");
	__builtin_unreachable();
}

/* Run by the task that overflowed, on its own stack: Linux's lines, then the oops. */
void handle_stack_overflow(struct trap_frame *f, unsigned long addr, const char *message)
{
	struct task *t = current;

	/* the task switches set CR0.TS; ronx keeps it clear (kernel/cpu/fpu.c) */
	write_cr0(read_cr0() & ~X86_CR0_TS);
	printk(KERN_EMERG "BUG: stack guard page was hit at %p (stack is %p..%p)\n", (void *)addr,
	       (void *)t->stack, (void *)(t->stack + t->stack_size - 1));
	printk(KERN_EMERG "ronx: %pE[%d] ran off its kernel stack (esp was %08x); the page there is never mapped (mm/vmap_stack.c)\n",
	       t->comm, t->pid, f->esp_dummy);
	die(message, f, addr);
	halt_forever();
	__builtin_unreachable();
}

/* The registers the task switch saved in old, as a trap frame for the oops. */
static void frame_from_tss(struct trap_frame *f, const struct tss_struct *old)
{
	memset(f, 0, sizeof(*f));
	f->gs = old->gs;
	f->fs = old->fs;
	f->es = old->es;
	f->ds = old->ds;
	f->edi = old->edi;
	f->esi = old->esi;
	f->ebp = old->ebp;
	f->esp_dummy = old->esp;
	f->ebx = old->ebx;
	f->edx = old->edx;
	f->ecx = old->ecx;
	f->eax = old->eax;
	f->vector = X86_TRAP_DF;
	f->eip = old->eip;
	f->cs = old->cs;
	f->eflags = old->eflags;
}

/* Rewrites old so that the iret resumes its task in handle_stack_overflow(). */
static void resume_in_oops(struct cpu *c, struct tss_struct *old, uint32_t *esp)
{
	old->eip = (uint32_t)handle_stack_overflow;
	old->esp = (uint32_t)esp;
	old->ebp = 0;
	old->eflags = X86_EFLAGS_FIXED;		/* interrupts off, as in a trap handler */
	old->cs = KERNEL_CS;
	old->ss = old->ds = old->es = old->gs = KERNEL_DS;
	old->fs = PERCPU_SEL;
	old->cr3 = c->active_mm ? c->active_mm->pgd : __pa(swapper_pg_dir);
}

/* In the double-fault task (boot/doublefault.asm); returns only to resume the task. */
void doublefault_shim(void)
{
	struct cpu *c = this_cpu();
	struct tss_struct *old = &c->cea->tss;
	struct task *t = c->current_task;
	unsigned long cr2 = read_cr2(), sp;
	struct trap_frame f;

	if (t && !(old->cs & 3) && stack_guard_hit(t, cr2)) {
		sp = overflow_sp(t);
		if (!sp)
			no_room(t, cr2);
		frame_from_tss(&f, old);
		resume_in_oops(c, old, push_overflow_call(sp, &f, cr2, "kernel stack overflow (double-fault)"));
		return;
	}
	printk(KERN_EMERG "PANIC: double fault, error_code: 0x0\n");
	printk(KERN_EMERG "EIP: %04x:%08x ESP: %08x CR2: %08lx CPU: %d task: %pE[%d]\n", old->cs,
	       old->eip, old->esp, cr2, c->id, t ? t->comm : "(none)", t ? t->pid : -1);
	panic("Machine halted.");
}
