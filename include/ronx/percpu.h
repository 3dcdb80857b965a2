/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What each CPU has of its own: its GDT and TSS, the task it runs, the
 * scheduler's saved context. The kernel keeps %fs on the CPU's per-CPU
 * segment (GDT entry 6, its base is the CPU's struct cpu), so this_cpu()
 * is one load from %fs:0 on any CPU (Linux: this_cpu_read() through %fs).
 * cpus[0] is the boot CPU; kernel/cpu/smpboot.c fills the others' as it
 * starts them (cpu ids follow the MADT's order, the boot CPU first).
 */
#ifndef RONX_PERCPU_H
#define RONX_PERCPU_H
#include <stdint.h>
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/segment.h>

#define NR_CPUS		8

/* The 32-bit TSS: the CPU reads ss0:esp0 from it on every entry from ring 3. */
struct tss_struct {
	uint16_t back_link, __blh;
	uint32_t esp0;
	uint16_t ss0, __ss0h;
	uint32_t esp1;
	uint16_t ss1, __ss1h;
	uint32_t esp2;
	uint16_t ss2, __ss2h;
	uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint16_t es, __esh, cs, __csh, ss, __ssh, ds, __dsh, fs, __fsh, gs, __gsh;
	uint16_t ldt, __ldth, trace, io_bitmap_base;
} __attribute__((packed));

struct task;
struct context;
struct recovery;
struct spinlock;
struct mm_struct;
struct cpu_entry_area;

#define MAX_LOCK_DEPTH	8	/* spinlocks one CPU may hold at once */

/* What this CPU did for TLB shootdowns (cpastat). */
struct tlb_stats {
	unsigned long shootdowns;	/* flush_tlb_kernel_range() calls it made */
	unsigned long ipis_sent;	/* call-function IPIs it sent */
	unsigned long ipis_received;	/* calls it ran for another CPU */
	unsigned long served_spinning;	/* ... of which while it spun (cpu_relax) */
	unsigned long flush_one;	/* invlpg, its own or asked */
	unsigned long flush_all;	/* full flushes */
	uint64_t flush_cycles;		/* TSC cycles in set_memory_*()'s flushes (cpabench) */
};

struct cpu {
	struct cpu *self;		/* %fs:0, read by this_cpu() */
	int id;
	uint32_t apic_id;
	struct cpu_entry_area *cea;	/* its GDT, TSS and entry stack (ronx/pti.h) */
	struct task *current_task;	/* NULL: the scheduler (or boot) runs */
	struct context *scheduler;	/* swtch() here to give up the CPU */
	struct recovery *recovery;	/* catch_faults() while no task runs */
	bool online;
	bool need_resched;		/* the timer ended a process's slice */
	unsigned long stack_top;	/* its boot/idle stack (the boot CPU's: boot_stack) */
	struct spinlock *held_locks[MAX_LOCK_DEPTH];
	int nr_held;			/* entries of held_locks[] in use */
	bool in_call;			/* running a cross-CPU call: do not serve another */
	struct tlb_stats tlb;
	struct mm_struct *active_mm;	/* whose page tables CR3 holds; NULL: the kernel's */
	bool apic_timer_on;		/* its APIC timer ticks (a task runs; not CPU 0) */
	void (*volatile work)(void *);	/* start_cpu_work(): its idle loop runs it */
	void *work_arg;
};

extern struct cpu cpus[NR_CPUS];

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__ volatile("movl %%fs:0, %0" : "=r"(c));
	return c;
}

void cpu_init(struct cpu *c, int id);	/* kernel/cpu/gdt.c: GDT, TSS, %fs */
void cpu_reload_gdt(struct cpu *c);	/* ... again, at the CPU entry area */
#endif
