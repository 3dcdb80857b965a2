// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IDT and trap_dispatch(), where every vector arrives (boot/traps.asm):
 *
 *   0x00-0x1f  CPU exceptions          interrupt gates, DPL 0
 *   0x20-0x2f  the 8259's IRQs 0-15    (kernel/cpu/irq.c)
 *   0x80       the system call         DPL 3: int $0x80 is allowed from
 *                                      ring 3; every other gate is not, and
 *                                      "int N" from user mode gets a #GP
 *   0xff       spurious
 *
 * Every gate is an interrupt gate (IF cleared on entry), so the kernel
 * runs with interrupts off (docs/design.md), except in a process's system
 * call: without PTI its gate is a trap gate (syscall_gate_init()), with
 * PTI trap_common turns them on for it (boot/traps.asm).
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/percpu.h>
#include <ronx/traps.h>
#include <ronx/irq.h>
#include <ronx/recovery.h>
#include <ronx/syscall.h>
#include <ronx/process.h>
#include <ronx/cpu_entry_area.h>
#include <ronx/doublefault.h>
#include <ronx/pti.h>

struct desc_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

/* in .entry.data: the CPU reads it on delivery from ring 3, in the user set too */
static uint64_t idt[NR_VECTORS] __aligned(4096) __attribute__((section(".entry.data")));
extern const uint32_t trap_stubs[NR_VECTORS];
extern char entry_INT80_32[];

const char *const trap_names[32] = {
	"divide error", "debug", "NMI", "int3", "overflow", "bounds",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack segment", "general protection fault", "page fault", "spurious",
	"coprocessor error", "alignment check", "machine check",
	"SIMD exception", "virtualization exception", "control protection",
};

#define GATE_INTERRUPT	0x8E	/* present, 32-bit interrupt gate: IF cleared on entry */
#define GATE_TRAP	0x8F	/* present, 32-bit trap gate: IF left as it was */

static uint64_t gate(uint32_t handler, unsigned type, unsigned dpl)
{
	return (handler & 0xFFFF) | ((uint64_t)KERNEL_CS << 16) |
	       ((uint64_t)(type | dpl << 5) << 40) | ((uint64_t)(handler >> 16) << 48);
}

void __init trap_init(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };

	for (int i = 0; i < NR_VECTORS; i++)
		idt[i] = gate(trap_stubs[i], GATE_INTERRUPT, i == IA32_SYSCALL_VECTOR ? 3 : 0);
	/* a double fault switches task, onto a stack of its own (kernel/cpu/doublefault_tss.c) */
	idt[X86_TRAP_DF] = doublefault_gate();
	__asm__ volatile("lidt %0" : : "m"(p));
}

/*
 * Without PTI, int $0x80's gate is a trap gate, as Linux 2.6.38's
 * set_system_trap_gate(): interrupts stay on from the call's first
 * instruction, and nothing on the way needs an sti (under TCG an sti
 * ends the block and goes back to QEMU's main loop: a tenth of a getpid,
 * docs/bench.md). It leads to entry_INT80_32 (boot/traps.asm), the
 * call's own short way. With PTI it stays an interrupt gate on the common
 * stub: the entry runs on the entry stack, sized for what can nest there
 * (ENTRY_STACK_WORST), and under the user set until pti_enter has
 * switched; no IRQ may land there (trap_common turns them on once it has).
 */
void __init syscall_gate_init(void)
{
	if (!pti_active)
		idt[IA32_SYSCALL_VECTOR] = gate((uint32_t)entry_INT80_32, GATE_TRAP, 3);
}

/* Loads the IDT on a CPU that did not run trap_init() (SMP). */
void load_idt(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uint32_t)(uintptr_t)cea_alias(idt) };

	__asm__ volatile("lidt %0" : : "m"(p));
}

static void do_trap(struct trap_frame *f)
{
	const char *name = f->vector < 32 && trap_names[f->vector] ? trap_names[f->vector] :
			   "exception";

	if (user_mode(f)) {
		user_trap(f, name);	/* returns only to deliver to a handler */
		return;
	}
	if (fixup_exception(f))
		return;
	recover_quietly(f, 0);
	die(name, f, 0);
}

void trap_dispatch(struct trap_frame *f)
{
	/* trap_common calls do_int80_syscall() itself; an int $0x80 from ring 0 comes here */
	if (f->vector == IA32_SYSCALL_VECTOR) {
		do_int80_syscall(f);	/* refused: not from a process */
		return;
	}
	if (f->vector == X86_TRAP_PF)
		do_page_fault(f);
	else if (f->vector == X86_TRAP_DB && do_debug(f))
		return;		/* a kernel breakpoint, handled: ring 0, nothing more to do */
	else if (f->vector == X86_TRAP_NMI)
		do_nmi(f);
	else if (f->vector >= FIRST_EXTERNAL_VECTOR)
		do_IRQ(f);
	else
		do_trap(f);
	if (user_mode(f)) {
		if (v8086_mode(f))
			v8086_kill(f);
		exit_to_user_mode(f);
	}
}
