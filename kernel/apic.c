// SPDX-License-Identifier: GPL-2.0-only
/*
 * The local APIC, what ronx needs of it (Linux: arch/x86/kernel/apic/):
 * enable it on each CPU, acknowledge its interrupts, and send the
 * interprocessor interrupts that start a CPU (INIT, STARTUP) or ask it to
 * run something (CALL_FUNCTION_VECTOR).
 *
 * Device interrupts stay with the 8259 on the boot CPU: its output reaches
 * the boot CPU through LINT0 programmed as ExtINT ("virtual wire mode", as
 * the BIOS left it and as Linux keeps it without an I/O APIC); the other
 * CPUs mask LINT0, so no device interrupt ever goes to them.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/ioremap.h>
#include <ronx/apic.h>

bool apic_mapped;
uint64_t apic_phys;

static volatile uint32_t *apic_reg(uint32_t reg)
{
	return (volatile uint32_t *)(FIX_APIC_BASE + reg);
}

uint32_t apic_read(uint32_t reg)
{
	return *apic_reg(reg);
}

void apic_write(uint32_t reg, uint32_t v)
{
	*apic_reg(reg) = v;
}

bool boot_cpu_has_apic(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return d & X86_FEATURE_APIC;
}

/* The registers, uncached and NX, at FIX_APIC_BASE; the APIC globally enabled. */
void apic_map(uint64_t phys)
{
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	if (!(base & MSR_IA32_APICBASE_ENABLE))
		wrmsr(MSR_IA32_APICBASE, base | MSR_IA32_APICBASE_ENABLE);
	set_fixmap_nocache(FIX_APIC_BASE, phys);
	apic_phys = phys;
	apic_mapped = true;
}

uint32_t read_apic_id(void)
{
	return apic_read(APIC_ID) >> 24;
}

/*
 * Software-enable this CPU's APIC with its spurious vector, accept every
 * priority, and route LINT0/LINT1: the 8259 (ExtINT) and NMI to the boot
 * CPU only (Linux: setup_local_APIC()).
 */
void setup_local_APIC(bool boot_cpu)
{
	apic_write(APIC_TASKPRI, 0);
	apic_write(APIC_SPIV, APIC_SPIV_APIC_ENABLED | SPURIOUS_APIC_VECTOR);
	apic_write(APIC_LVT0, boot_cpu ? APIC_DM_EXTINT : APIC_LVT_MASKED);
	apic_write(APIC_LVT1, boot_cpu ? APIC_DM_NMI : APIC_LVT_MASKED);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_LVTERR, APIC_LVT_MASKED);
	/* the error status register latches on a write: write twice to clear */
	apic_write(APIC_ESR, 0);
	apic_write(APIC_ESR, 0);
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* Waits (briefly: the APIC sends in microseconds) until the ICR is free. */
bool apic_icr_wait_idle(void)
{
	for (int i = 0; i < 1000000; i++) {
		if (!(apic_read(APIC_ICR) & APIC_ICR_BUSY))
			return true;
		__asm__ volatile("pause");
	}
	return false;
}

static void apic_icr_write(uint32_t low, uint32_t apic_id)
{
	apic_icr_wait_idle();
	apic_write(APIC_ICR2, apic_id << 24);
	apic_write(APIC_ICR, low);
}

/* A fixed interrupt on vector at one CPU, named by its APIC id. */
void apic_send_IPI(uint32_t apic_id, uint32_t vector)
{
	apic_icr_write(vector, apic_id);
}

/* INIT, asserted then deasserted (the deassert is for the 82489DX's sake, as Linux). */
void apic_send_init(uint32_t apic_id)
{
	apic_icr_write(APIC_INT_LEVELTRIG | APIC_INT_ASSERT | APIC_DM_INIT, apic_id);
	apic_icr_wait_idle();
	apic_icr_write(APIC_INT_LEVELTRIG | APIC_DM_INIT, apic_id);
	apic_icr_wait_idle();
}

/* STARTUP: the CPU starts in real mode at CS = phys >> 4, IP = 0 (phys page-aligned, < 1M). */
void apic_send_startup(uint32_t apic_id, unsigned long phys)
{
	apic_icr_write(APIC_DM_STARTUP | (uint32_t)(phys >> 12), apic_id);
	apic_icr_wait_idle();
}
