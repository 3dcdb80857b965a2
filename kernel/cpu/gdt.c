// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each CPU's GDT and TSS, kept in its struct cpu (Linux: cpu_init(),
 * arch/x86/kernel/cpu/common.c). Flat 4 GiB segments: paging does all the
 * protecting, segments only say which ring runs.
 *
 *   0x08 kernel code, 0x10 kernel data      DPL 0
 *   0x1b user code,   0x23 user data        DPL 3: what ring 3 may load
 *   0x28 the TSS: where the CPU finds the kernel stack (esp0) on entry
 *        from ring 3; its I/O bitmap is empty, so user in/out faults
 *   0x30 the per-CPU segment: base = this struct cpu, kept in %fs
 *   0x38 the double-fault TSS: vector 8's task gate switches to it, onto
 *        a stack of its own (kernel/cpu/doublefault_tss.c)
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/percpu.h>
#include <ronx/segment.h>
#include <ronx/pti.h>
#include <ronx/cpu_entry_area.h>
#include <ronx/doublefault.h>

struct cpu cpus[NR_CPUS];
/* Mapped in the user set too when PTI is on: see ronx/pti.h. */
struct cpu_entry_area cpu_entry_areas[NR_CPUS] __attribute__((section(".entry.data")));

struct desc_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

/* A segment descriptor; flags: G (4K units) and D/B (32-bit) in bits 55 and 54. */
static uint64_t gdt_entry(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	return (limit & 0xffffULL) | ((uint64_t)(base & 0xffffff) << 16) |
	       ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       ((uint64_t)(flags & 0xf) << 52) | ((uint64_t)(base >> 24) << 56);
}

#define SEG_4G		0xc	/* G=1, D/B=1: 4 GiB in pages, 32-bit */
#define SEG_BYTES	0x4	/* G=0, D/B=1: limit in bytes */
#define ACC_CODE(dpl)	(0x9a | (dpl) << 5)	/* present, code, readable */
#define ACC_DATA(dpl)	(0x92 | (dpl) << 5)	/* present, data, writable */
#define ACC_TSS		0x89			/* present, 32-bit TSS, available */

static void fill_gdt(struct cpu *c)
{
	c->cea->gdt[0] = 0;
	c->cea->gdt[GDT_ENTRY_KERNEL_CS] = gdt_entry(0, 0xfffff, ACC_CODE(0), SEG_4G);
	c->cea->gdt[GDT_ENTRY_KERNEL_DS] = gdt_entry(0, 0xfffff, ACC_DATA(0), SEG_4G);
	c->cea->gdt[GDT_ENTRY_USER_CS] = gdt_entry(0, 0xfffff, ACC_CODE(3), SEG_4G);
	c->cea->gdt[GDT_ENTRY_USER_DS] = gdt_entry(0, 0xfffff, ACC_DATA(3), SEG_4G);
	c->cea->gdt[GDT_ENTRY_TSS] = gdt_entry((uint32_t)&c->cea->tss, sizeof(c->cea->tss) - 1, ACC_TSS, 0);
	c->cea->gdt[GDT_ENTRY_PERCPU] = gdt_entry((uint32_t)c, sizeof(*c) - 1, ACC_DATA(0), SEG_BYTES);
	c->cea->gdt[GDT_ENTRY_DOUBLEFAULT_TSS] = gdt_entry((uint32_t)&c->cea->doublefault_tss,
							    sizeof(struct tss_struct) - 1, ACC_TSS, 0);
}

/* Loads c's GDT, reloads every segment register from it, and its TSS. */
static void load_gdt(struct cpu *c)
{
	struct desc_ptr p = { sizeof(c->cea->gdt) - 1, (uint32_t)c->cea->gdt };

	__asm__ volatile("lgdt %0\n\t"
			 "ljmp %1, $1f\n"
			 "1:\n\t"
			 "mov %2, %%ax\n\t"
			 "mov %%ax, %%ds\n\t"
			 "mov %%ax, %%es\n\t"
			 "mov %%ax, %%ss\n\t"
			 "mov %%ax, %%gs\n\t"
			 "mov %3, %%ax\n\t"
			 "mov %%ax, %%fs\n\t"
			 "mov %4, %%ax\n\t"
			 "ltr %%ax\n\t"
			 /*
			  * No LDT: a CPU leaves LDTR as reset made it (base 0,
			  * limit 0xffff), so an LDT selector loaded in ring 3
			  * would read its descriptor from linear 0-0xffff, the
			  * process's own half. Only mmap_min_addr keeps that
			  * unmapped; a null LDTR makes it #GP (Linux: lldt 0).
			  */
			 "xor %%eax, %%eax\n\t"
			 "lldt %%ax"
			 : : "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS), "i"(PERCPU_SEL), "i"(TSS_SEL)
			 : "eax", "memory");
}

void cpu_init(struct cpu *c, int id)
{
	c->self = c;
	c->cea = get_cpu_entry_area(id);
	c->id = id;
	c->cea->tss.ss0 = KERNEL_DS;
	/* no I/O permission bitmap: the offset points past the TSS's end */
	c->cea->tss.io_bitmap_base = sizeof(c->cea->tss);
	fill_gdt(c);
	load_gdt(c);
	setup_doublefault_tss(c);	/* once %fs works: a lab's stub may printk */
	c->online = true;
}

/* This CPU's GDT and TSS again, at the address get_cpu_entry_area() gives now. */
void cpu_reload_gdt(struct cpu *c)
{
	c->cea = get_cpu_entry_area(c->id);
	fill_gdt(c);
	load_gdt(c);
	setup_doublefault_tss(c);
}
