/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The double fault (kernel/cpu/doublefault.c; Linux: arch/x86/kernel/
 * doublefault_32.c): vector 8 is a task gate, so the CPU switches to a
 * TSS of its own, with its own stack and CR3, even when the kernel stack
 * it was on is gone. One such TSS per CPU, in .entry.data.
 */
#ifndef RONX_DOUBLEFAULT_H
#define RONX_DOUBLEFAULT_H
#include <stdint.h>
#include <ronx/percpu.h>

#define DOUBLEFAULT_STACK_SIZE	2048
/* room a stack overflow's oops needs below where it runs (kernel/cpu/doublefault.c) */
#define OVERFLOW_OOPS_ROOM	2048

struct trap_frame;

/* An IDT task gate: the CPU switches to the TSS that selector names. */
static inline uint64_t task_gate(uint16_t tss_selector)
{
	return ((uint64_t)tss_selector << 16) | (0x85ULL << 40);	/* present, DPL 0, task gate */
}

struct tss_struct *setup_doublefault_tss(struct cpu *c);
void doublefault_shim(void);
void stack_overflow_oops(struct trap_frame *f, unsigned long addr, const char *message)
	__attribute__((noreturn));
void handle_stack_overflow(struct trap_frame *f, unsigned long addr, const char *message)
	__attribute__((noreturn));
#endif
