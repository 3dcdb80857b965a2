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
#include <ronx/printk.h>
#include <ronx/irq.h>
#include <ronx/percpu.h>
#include <ronx/apic.h>
#include <ronx/spinlock.h>

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

/*
 * Two writes, destination then command: an interrupt between them whose
 * handler sends an IPI of its own would send ours to its CPU. Interrupts
 * are off across both (Linux's IPI senders do the same).
 */
static void apic_icr_write(uint32_t low, uint32_t apic_id)
{
	unsigned long flags;

	local_irq_save(flags);
	apic_icr_wait_idle();
	apic_write(APIC_ICR2, apic_id << 24);
	apic_write(APIC_ICR, low);
	local_irq_restore(flags);
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

/*
 * The APIC timer, the other CPUs' clock tick (the boot CPU keeps the
 * PIT): HZ interrupts a second while a CPU runs a task, so that a process
 * that never gives its CPU up is preempted there too; off while the CPU
 * idles, so an idle CPU sleeps. Its rate is the APIC bus clock, unknown
 * until measured against the PIT (Linux: calibrate_APIC_clock()).
 */
#define CALIBRATE_US	2000

static uint32_t apic_timer_count;	/* initial count for one tick, divided by 16 */

void __init calibrate_APIC_clock(void)
{
	uint32_t elapsed;

	apic_write(APIC_TDCR, APIC_TDR_DIV_16);
	apic_write(APIC_LVTT, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TMICT, 0xffffffff);
	udelay(CALIBRATE_US);
	elapsed = 0xffffffff - apic_read(APIC_TMCCT);
	apic_write(APIC_TMICT, 0);
	apic_timer_count = (uint32_t)((uint64_t)elapsed * (1000000 / HZ) / CALIBRATE_US);
	pr_info("APIC: timer %u counts a tick at HZ=%d (bus/16, measured against the PIT)\n",
		apic_timer_count, HZ);
}

void apic_timer_start(void)
{
	struct cpu *c = this_cpu();

	if (!apic_timer_count || c->id == 0 || c->apic_timer_on)
		return;
	apic_write(APIC_TDCR, APIC_TDR_DIV_16);
	apic_write(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TMICT, apic_timer_count);
	c->apic_timer_on = true;
}

void apic_timer_stop(void)
{
	struct cpu *c = this_cpu();

	if (!c->apic_timer_on)
		return;
	apic_write(APIC_LVTT, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TMICT, 0);
	c->apic_timer_on = false;
}

/* LOCAL_TIMER_VECTOR: a tick on a CPU other than the boot CPU. */
void smp_apic_timer_interrupt(struct trap_frame *f)
{
	apic_eoi();
	update_process_times(f);
}
