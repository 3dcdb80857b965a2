/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Page-table isolation (mm/pti.c; Linux: arch/x86/mm/pti.c). While a CPU
 * runs in ring 3 it runs on the process's user set: a second PDPT, in
 * the same page as the kernel set's (at PTI_USER_PGD_OFFSET), whose
 * entries 0-2 are the kernel set's and whose entry 3 is one page
 * directory shared by every process that maps only .entry.text (the
 * trampoline, RO+X) and .entry.data (the per-CPU entry areas and the
 * IDT, RW+NX). Entry flips CR3 to the kernel set (clear bit 11), exit
 * flips it back (set bit 11): no memory is read to find either.
 */
#ifndef RONX_PTI_H
#define RONX_PTI_H
#include <stdint.h>
#include <stdbool.h>
#include <ronx/percpu.h>

#define PTI_USER_PGD_OFFSET	0x800	/* the user PDPT, in the kernel PDPT's page */

/*
 * What the CPU needs mapped to deliver an interrupt from ring 3 and to
 * iret back (Linux: struct cpu_entry_area): one page per CPU, in
 * .entry.data. sp0 is at offset 0 (boot/traps.asm reads it); the entry
 * stack fills the rest of the page, so its top is the next page.
 */
struct cpu_entry_area {
	unsigned long sp0;		/* top of the running task's kernel stack */
	uint64_t gdt[GDT_ENTRIES] __aligned(8);
	struct tss_struct tss __aligned(16);
	struct tss_struct doublefault_tss __aligned(16);	/* kernel/cpu/doublefault_tss.c */
	uint8_t entry_stack[] __aligned(16);
} __aligned(4096);

/*
 * The entry stack has no guard page below it (the TSS and GDT are there),
 * so only boot/traps.asm runs on it, never C: its worst case is counted
 * there (ENTRY_STACK_WORST, the same formula: the exit frame of 19 words
 * and 3 nested ring-0 entries of at most 17 words each) and mm/pti.c
 * checks at build time that the page leaves room for it. pti_init()
 * paints the entry stacks with ENTRY_STACK_PAINT, so that their high-water
 * mark can be read from outside (tests/qemu/test_pti.py).
 */
#define ENTRY_STACK_WORST	(4 * (19 + 3 * 17))
#define ENTRY_STACK_PAINT	0x57acb0b0u

extern struct cpu_entry_area cpu_entry_areas[NR_CPUS];
extern uint8_t pti_active;	/* read by the trampoline: 1 while PTI is on */
extern char __entry_text_start[], __entry_text_end[];
extern char __entry_data_start[], __entry_data_end[];

void pti_init(void);
void pti_clone_pgd(uint64_t *pdpt);
unsigned long pti_user_pgd(unsigned long kernel_pgd);
uint64_t pti_user_kernel_pdpte(void);

/* The kernel stack ring 3 enters on, through the entry stack when PTI is on. */
static inline void load_sp0(struct cpu *c, unsigned long top)
{
	c->cea->sp0 = top;
	c->cea->tss.esp0 = pti_active ? (unsigned long)c->cea + 4096 : top;
}
#endif
