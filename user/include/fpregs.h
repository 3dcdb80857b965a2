/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpregs.h - the x87 and SSE registers from ring 3, for the programs that
 * check the kernel keeps them per process (user/bin/fpu.c).
 * The programs are built with -mno-80387 -mno-sse, so nothing but these
 * functions touches the registers: what they load stays there across any
 * C code until they read it back.
 */
#ifndef RONX_FPREGS_H
#define RONX_FPREGS_H
#include <stdint.h>

#define FP_NREGS	8
#define FCW_DEFAULT	0x037f		/* what fninit loads */
#define MXCSR_DEFAULT	0x1f80

/* What fxsave writes (512 bytes, 16-byte aligned); fnsave's is in fregs. */
struct fxregs {
	uint16_t cwd, swd, twd, fop;
	uint32_t fip, fcs, foo, fos;
	uint32_t mxcsr, mxcsr_mask;
	uint8_t st[FP_NREGS][16];	/* 10 bytes used in each */
	uint8_t xmm[FP_NREGS][16];
	uint8_t padding[224];
} __attribute__((packed, aligned(16)));

struct fregs {
	uint32_t cwd, swd, twd, fip, fcs, foo, fos;
	uint8_t st[FP_NREGS][10];
} __attribute__((packed));

/* CPUID 1 EDX: FXSR (bit 24); SSE (bit 25) with it */
int cpu_has_fxsr(void);
int cpu_has_sse(void);

/* st(7)..st(0) = v[0]..v[7] (fild: exact for any 64-bit integer) */
void fp_load(const int64_t v[FP_NREGS]);
/* pops all eight: v[0]..v[7] as fp_load() took them (fistp) */
void fp_pop(int64_t v[FP_NREGS]);
void fp_set_cw(uint16_t cw);
uint16_t fp_get_cw(void);

/* xmm0..xmm7 = 16 bytes each from v, and back */
void xmm_load(const uint8_t v[FP_NREGS][16]);
void xmm_store(uint8_t v[FP_NREGS][16]);
void mxcsr_set(uint32_t v);
uint32_t mxcsr_get(void);

void fp_fxsave(struct fxregs *r);
void fp_fnsave(struct fregs *r);		/* also reinitializes the FPU */
#endif
