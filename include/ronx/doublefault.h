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

void setup_doublefault_tss(struct cpu *c);	/* kernel/cpu/doublefault_tss.c */
uint64_t doublefault_gate(void);
extern char doublefault_stack[NR_CPUS][DOUBLEFAULT_STACK_SIZE];
void doublefault_shim(void);
void stack_overflow_oops(struct trap_frame *f, unsigned long addr, const char *message)
	__attribute__((noreturn));
void handle_stack_overflow(struct trap_frame *f, unsigned long addr, const char *message)
	__attribute__((noreturn));
#endif
