// SPDX-License-Identifier: GPL-2.0-only
/*
 * Our own flat GDT and an IDT for the 32 CPU exceptions. Interrupts stay
 * off for ronx's whole life (the console is polled), so there is no PIC.
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/traps.h>
#include <ronx/recovery.h>

struct desc_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

static const uint64_t gdt[] __aligned(8) = {
	0,
	0x00CF9A000000FFFFULL,	/* 0x08: code, base 0, 4 GiB, ring 0 */
	0x00CF92000000FFFFULL,	/* 0x10: data, base 0, 4 GiB, ring 0 */
};

static uint64_t idt[32] __aligned(8);
extern const uint32_t trap_stubs[32];

static const char *const trap_names[32] = {
	"divide error", "debug", "NMI", "int3", "overflow", "bounds",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack segment", "general protection fault", "page fault", "spurious",
	"coprocessor error", "alignment check", "machine check",
	"SIMD exception", "virtualization exception", "control protection",
};

static void __init load_gdt(void)
{
	struct desc_ptr p = { sizeof(gdt) - 1, (uint32_t)(uintptr_t)gdt };

	__asm__ volatile("lgdt %0\n\t"
			 "ljmp %1, $1f\n"
			 "1:\n\t"
			 "mov %2, %%ax\n\t"
			 "mov %%ax, %%ds\n\t"
			 "mov %%ax, %%es\n\t"
			 "mov %%ax, %%ss\n\t"
			 "mov %%ax, %%fs\n\t"
			 "mov %%ax, %%gs"
			 : : "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS) : "eax", "memory");
}

static uint64_t interrupt_gate(uint32_t handler)
{
	return (handler & 0xFFFF) | ((uint64_t)KERNEL_CS << 16) |
	       ((uint64_t)0x8E << 40) |			/* present, ring 0, 32-bit interrupt gate */
	       ((uint64_t)(handler >> 16) << 48);
}

void __init trap_init(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };

	load_gdt();
	for (int i = 0; i < 32; i++)
		idt[i] = interrupt_gate(trap_stubs[i]);
	__asm__ volatile("lidt %0" : : "m"(p));
}

void trap_dispatch(struct trap_frame *f)
{
	const char *name;

	if (f->vector == X86_TRAP_PF) {
		do_page_fault(f);
		return;
	}
	if (fixup_exception(f))
		return;
	recover_quietly(f, 0);
	name = f->vector < 32 && trap_names[f->vector] ? trap_names[f->vector] : "exception";
	die(name, f, 0);
}
