/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_TRAPS_H
#define RONX_TRAPS_H
#include <stdint.h>
#include <stdbool.h>

/* What boot/traps.asm pushes, lowest address first. */
struct trap_frame {
	uint32_t edi, esi, ebp, esp_dummy, ebx, edx, ecx, eax;	/* pusha */
	uint32_t vector, error_code;
	uint32_t eip, cs, eflags;	/* pushed by the CPU; no ss:esp in ring 0 */
};

/* The stack pointer when the fault hit: just above the CPU's frame. */
static inline uint32_t frame_esp(const struct trap_frame *f)
{
	return (uint32_t)(uintptr_t)&f->eflags + 4;
}

#define X86_TRAP_PF	14

/* Page-fault error code bits (Intel SDM vol. 3, 4.7). */
#define X86_PF_PROT	(1u << 0)	/* 0: page not present */
#define X86_PF_WRITE	(1u << 1)
#define X86_PF_USER	(1u << 2)
#define X86_PF_RSVD	(1u << 3)
#define X86_PF_INSTR	(1u << 4)	/* instruction fetch (needs NX on) */

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10

void trap_init(void);
void do_page_fault(struct trap_frame *f);
void recover_quietly(const struct trap_frame *f, unsigned long cr2);
void die(const char *what, struct trap_frame *f, unsigned long cr2);
bool fixup_exception(struct trap_frame *f);
void decode_pf_error(uint32_t error_code, char *buf, unsigned long size);
extern unsigned long oops_count;
extern unsigned long page_fault_count;
#endif
