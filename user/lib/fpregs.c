// SPDX-License-Identifier: GPL-2.0-only
/* The x87 and SSE registers from ring 3 (user/include/fpregs.h). */
#include <fpregs.h>

static uint32_t cpuid1_edx(void)
{
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return d;
}

int cpu_has_fxsr(void)
{
	return (cpuid1_edx() >> 24) & 1;
}

int cpu_has_sse(void)
{
	return cpu_has_fxsr() && ((cpuid1_edx() >> 25) & 1);
}

void fp_load(const int64_t v[FP_NREGS])
{
	for (int i = 0; i < FP_NREGS; i++)
		__asm__ volatile("fildll %0" : : "m"(v[i]));
}

void fp_pop(int64_t v[FP_NREGS])
{
	for (int i = FP_NREGS - 1; i >= 0; i--)
		__asm__ volatile("fistpll %0" : "=m"(v[i]));
}

void fp_set_cw(uint16_t cw)
{
	__asm__ volatile("fldcw %0" : : "m"(cw));
}

uint16_t fp_get_cw(void)
{
	uint16_t cw;

	__asm__ volatile("fnstcw %0" : "=m"(cw));
	return cw;
}

/* One asm statement each way: the compiler must not run anything between. */
void xmm_load(const uint8_t v[FP_NREGS][16])
{
	__asm__ volatile("movups 0(%0), %%xmm0\n\tmovups 16(%0), %%xmm1\n\t"
			 "movups 32(%0), %%xmm2\n\tmovups 48(%0), %%xmm3\n\t"
			 "movups 64(%0), %%xmm4\n\tmovups 80(%0), %%xmm5\n\t"
			 "movups 96(%0), %%xmm6\n\tmovups 112(%0), %%xmm7"
			 : : "r"(v) : "memory");
}

void xmm_store(uint8_t v[FP_NREGS][16])
{
	__asm__ volatile("movups %%xmm0, 0(%0)\n\tmovups %%xmm1, 16(%0)\n\t"
			 "movups %%xmm2, 32(%0)\n\tmovups %%xmm3, 48(%0)\n\t"
			 "movups %%xmm4, 64(%0)\n\tmovups %%xmm5, 80(%0)\n\t"
			 "movups %%xmm6, 96(%0)\n\tmovups %%xmm7, 112(%0)"
			 : : "r"(v) : "memory");
}

void mxcsr_set(uint32_t v)
{
	__asm__ volatile("ldmxcsr %0" : : "m"(v));
}

uint32_t mxcsr_get(void)
{
	uint32_t v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

void fp_fxsave(struct fxregs *r)
{
	__asm__ volatile("fxsave %0" : "=m"(*r));
}

void fp_fnsave(struct fregs *r)
{
	__asm__ volatile("fnsave %0" : "=m"(*r));
}
