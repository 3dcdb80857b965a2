/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Entropy for the randomized layouts (KASLR, the stack and mmap bases):
 * RDRAND where CPUID says the CPU has it, else the time-stamp counter,
 * mixed so that its low bits change every call. Good enough to move a
 * layout between boots; not a source of keys. Header-only so that code
 * running before paging (the kernel's own relocation) can use it too.
 */
#ifndef RONX_RANDOM_H
#define RONX_RANDOM_H

#include <stdint.h>
#include <ronx/x86.h>

#define X86_FEATURE_RDRAND_ECX	(1u << 30)	/* CPUID.1:ECX */

static inline int cpu_has_rdrand(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return !!(c & X86_FEATURE_RDRAND_ECX);
}

/* The SDM asks for a few retries: RDRAND clears CF while its pool refills. */
static inline int rdrand_u32(uint32_t *v)
{
	for (int i = 0; i < 10; i++) {
		unsigned char ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return 1;
	}
	return 0;
}

/* One round of a multiply-xorshift mix, so nearby TSC readings differ widely. */
static inline uint32_t mix_u32(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* Which source arch_get_random_u32() used, for the boot line. */
static inline const char *random_source(void)
{
	return cpu_has_rdrand() ? "RDRAND" : "RDTSC";
}

static inline uint32_t arch_get_random_u32(void)
{
	uint32_t v;

	if (cpu_has_rdrand() && rdrand_u32(&v))
		return v;
	return mix_u32(rdtsc());
}
#endif
