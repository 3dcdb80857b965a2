/* SPDX-License-Identifier: GPL-2.0-only */
/* Hardware glue: port I/O, control registers, MSRs and the TLB. */
#ifndef RONX_X86_H
#define RONX_X86_H
#include <stdint.h>
#include <stdbool.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

#define X86_CR0_WP	(1u << 16)
#define X86_CR0_PG	(1u << 31)
#define X86_CR4_PAE	(1u << 5)
#define X86_CR4_PGE	(1u << 7)
#define MSR_EFER	0xC0000080
#define EFER_NX		(1u << 11)

#define DEFINE_CR(n) \
static inline uint32_t read_cr##n(void) { uint32_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
static inline void write_cr##n(uint32_t v) { __asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

/* Leaf 7's feature words (SMEP, SMAP, UMIP, ARCH_CAPABILITIES); false, all 0, if the CPU has no leaf 7. */
static inline bool cpuid_leaf7(uint32_t *b, uint32_t *c, uint32_t *d)
{
	uint32_t max, a, unused;

	*b = *c = *d = 0;
	cpuid(0, &max, &unused, &unused, &unused);
	if (max < 7)
		return false;
	cpuid(7, &a, b, c, d);
	return true;
}

/*
 * Makes this CPU discard instructions it may have fetched before another
 * CPU (or this one, through another mapping) changed them: x86 keeps
 * fetch coherent with stores, but only a serializing instruction such as
 * cpuid guarantees that no stale prefetch runs (Linux: sync_core()).
 */
static inline void sync_core(void)
{
	uint32_t a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	__asm__ volatile("" : : : "memory");
}

static inline void __flush_tlb_one(unsigned long addr)
{
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

/*
 * Global pages survive a CR3 reload; toggling CR4.PGE drops them too.
 * With CR4.PGE already clear (PTI, mm/pti.c) writing it back unchanged
 * flushes nothing: then a CR3 reload drops everything.
 */
static inline void __flush_tlb_all(void)
{
	uint32_t cr4 = read_cr4();

	if (!(cr4 & X86_CR4_PGE)) {
		write_cr3(read_cr3());
		return;
	}
	write_cr4(cr4 & ~X86_CR4_PGE);
	write_cr4(cr4);
}

/* The time-stamp counter: cycles, for make bench's readings only. */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}
#endif
