/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Each process's x87/MMX/SSE registers (kernel/cpu/fpu.c; Linux:
 * arch/x86/include/asm/fpu/types.h). The kernel itself never uses them
 * (it is built with -mno-80387 -mno-mmx -mno-sse), so the registers a CPU
 * holds are always those of the last process that ran on it: saved when
 * that process leaves the CPU, replaced when the next one arrives. The
 * save area is at the bottom of the process's kernel stack (task->fpu):
 * nothing for the 64 task slots to carry in the kernel's image.
 */
#ifndef RONX_FPU_H
#define RONX_FPU_H
#include <stdint.h>
#include <stdbool.h>
#include <ronx/compiler.h>

/* What fnsave writes: 108 bytes, the 32-bit protected-mode format. */
struct fregs_state {
	uint32_t cwd, swd, twd, fip, fcs, foo, fos;
	uint8_t st_space[80];		/* st(0)..st(7), 10 bytes each */
} __attribute__((packed));

/* What fxsave writes: 512 bytes, 16-byte aligned. */
struct fxregs_state {
	uint16_t cwd, swd, twd, fop;	/* twd: the abridged tag, 1 bit a register */
	uint32_t fip, fcs, foo, fos;
	uint32_t mxcsr, mxcsr_mask;
	uint8_t st_space[128];		/* st(0)..st(7), 16 bytes each */
	uint8_t xmm_space[128];		/* xmm0..xmm7 */
	uint8_t padding[224];
} __attribute__((packed));

union fpregs_state {
	struct fregs_state fsave;
	struct fxregs_state fxsave;
	uint8_t raw[512];
} __aligned(16);

#define X86_CR0_MP	(1u << 1)	/* wait/fwait obeys TS */
#define X86_CR0_EM	(1u << 2)	/* emulate: every x87 instruction traps (#NM) */
#define X86_CR0_TS	(1u << 3)	/* task switched: the next x87 instruction traps */
#define X86_CR0_NE	(1u << 5)	/* x87 errors as #MF, not the PC's IRQ 13 */
#define X86_CR4_OSFXSR		(1u << 9)	/* fxsave/fxrstor carry SSE; SSE allowed */
#define X86_CR4_OSXMMEXCPT	(1u << 10)	/* SSE errors as #XM, not #UD */
#define MXCSR_DEFAULT	0x1f80		/* every SSE exception masked, round to nearest */
#define FCW_DEFAULT	0x037f		/* what fninit loads */

struct task;
extern bool boot_cpu_has_fxsr, boot_cpu_has_xmm;

void fpu_init(void);			/* the boot CPU, once */
void fpu_init_cpu(void);		/* every CPU: CR0, CR4, fninit */
void fpstate_init(union fpregs_state *fps);
void fpu_save(union fpregs_state *fps);
void fpu_restore(const union fpregs_state *fps);
void restore_fpregs_from_init_fpstate(void);
void fnsave_regs(struct fregs_state *fs);
void frstor_regs(const struct fregs_state *fs);
int fxsave_to_user(void *buf);
int fxrstor_from_user(const void *buf);
void switch_fpu_prepare(struct task *prev, int cpu);
void switch_fpu_finish(struct task *next, int cpu);
void fpregs_invalidate(struct task *t);
#endif
