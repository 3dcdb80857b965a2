// SPDX-License-Identifier: GPL-2.0-only
/*
 * UMIP, user-mode instruction prevention (Linux: setup_umip() in
 * arch/x86/kernel/cpu/common.c). Without it any ring-3 program may run
 * sgdt, sidt, sldt, smsw and str: sgdt and sidt give the GDT's and the
 * IDT's linear addresses. ronx keeps those at a fixed address (the CPU
 * entry area, mm/cpu_entry_area.c), so they tell nothing of kaslr's
 * offset; UMIP takes even that away, as on Linux. CPUID leaf 7 ECX bit 2
 * says the CPU has UMIP; CR4 bit 11 turns it on, and the five instructions
 * then #GP in ring 3. Linux emulates sgdt, sidt and smsw for old programs
 * with made-up values; ronx does not: the program gets SIGSEGV. QEMU's
 * qemu32 model has no UMIP (`-cpu qemu32,+umip` has); the boot says which.
 * The application processors copy the boot CPU's CR4.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/init.h>
#include <ronx/x86.h>
#include <ronx/umip.h>

#define X86_CR4_UMIP		(1u << 11)
#define CPUID7_ECX_UMIP		(1u << 2)

bool umip_enabled;

void __init setup_umip(void)
{
	uint32_t b, c, d;

	cpuid_leaf7(&b, &c, &d);
	umip_enabled = c & CPUID7_ECX_UMIP;
	if (!umip_enabled) {
		pr_info("ronx: UMIP: not on this CPU: ring 3's sgdt and sidt read where the GDT and IDT are (the CPU entry area, a fixed address)\n");
		return;
	}
	write_cr4(read_cr4() | X86_CR4_UMIP);
	pr_info("x86/cpu: User Mode Instruction Prevention (UMIP) activated\n");
}
