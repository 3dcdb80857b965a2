/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_TRAPS_H
#define RONX_TRAPS_H
#include <stdint.h>
#include <stdbool.h>
#include <ronx/segment.h>

/*
 * What the entry path (boot/traps.asm) saves, lowest address first: the
 * data segments, pusha's registers, the vector and error code, then what
 * the CPU pushed. Coming from ring 3 the CPU also pushed the user's esp
 * and ss (it switched to TSS.esp0 first); from ring 0 it did not, and
 * those two fields are not there. Segment pushes write 16 bits only on
 * some CPUs, hence the padding halves (Linux's pt_regs does the same).
 */
struct trap_frame {
	uint16_t gs, __gsh, fs, __fsh, es, __esh, ds, __dsh;
	uint32_t edi, esi, ebp, esp_dummy, ebx, edx, ecx, eax;	/* pusha */
	uint32_t vector, error_code;
	uint32_t eip;
	uint16_t cs, __csh;
	uint32_t eflags;
	uint32_t esp;			/* only if user_mode() */
	uint16_t ss, __ssh;		/* only if user_mode() */
};

/*
 * Virtual-8086 mode: ronx never enters it, and a CPU refuses an iret into
 * it from ring 3, but QEMU's TCG does not (tests/qemu/test_redteam.py,
 * iret_vm86): its CS is then any real-mode segment, RPL 0 included.
 */
static inline bool v8086_mode(const struct trap_frame *f)
{
	return f->eflags & X86_EFLAGS_VM;
}

/* From the process: ring 3, or virtual-8086 mode (Linux's user_mode() too). */
static inline bool user_mode(const struct trap_frame *f)
{
	return (f->cs & 3) == 3 || v8086_mode(f);
}

/* The stack pointer when the trap hit: the user's, or just above the
 * CPU's frame in the kernel. */
static inline uint32_t frame_esp(const struct trap_frame *f)
{
	return user_mode(f) ? f->esp : (uint32_t)(uintptr_t)&f->esp;
}

#define X86_TRAP_DE	0
#define X86_TRAP_DB	1
#define X86_TRAP_NMI	2
#define X86_TRAP_UD	6
#define X86_TRAP_DF	8
#define X86_TRAP_GP	13
#define X86_TRAP_PF	14
#define FIRST_EXTERNAL_VECTOR	0x20	/* the 8259's IRQ 0-15: 0x20-0x2f */
#define IA32_SYSCALL_VECTOR	0x80
#define SPURIOUS_VECTOR		0xff
#define NR_VECTORS		256

/* Page-fault error code bits (Intel SDM vol. 3, 4.7). */
#define X86_PF_PROT	(1u << 0)	/* 0: page not present */
#define X86_PF_WRITE	(1u << 1)
#define X86_PF_USER	(1u << 2)
#define X86_PF_RSVD	(1u << 3)
#define X86_PF_INSTR	(1u << 4)	/* instruction fetch (needs NX on) */

void trap_init(void);
void syscall_gate_init(void);
void load_idt(void);
void trap_dispatch(struct trap_frame *f);
void do_page_fault(struct trap_frame *f);
void recover_quietly(const struct trap_frame *f, unsigned long cr2);
void die(const char *what, struct trap_frame *f, unsigned long cr2);
int stack_trace_save_fp(uint32_t ebp, unsigned long *store, int max);	/* kernel/oops.c */
bool fixup_exception(struct trap_frame *f);
bool do_debug(struct trap_frame *f);
void do_nmi(struct trap_frame *f);	/* kernel/cpu/nmi.c */
bool search_exception_tables(uint32_t ip);
void decode_pf_error(uint32_t error_code, char *buf, unsigned long size);
extern const char *const trap_names[32];
extern unsigned long oops_count;
extern unsigned long page_fault_count;
#endif
