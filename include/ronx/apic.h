/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The local APIC (Linux: arch/x86/kernel/apic/apic.c): each CPU's own
 * interrupt controller, which ronx uses to start the other CPUs
 * (INIT, STARTUP) and to interrupt them (IPIs). Its registers are 4 KiB of
 * MMIO at the physical address the MADT gives (0xfee00000 on every PC),
 * mapped uncached, RW+NX, at FIX_APIC_BASE; every CPU sees its own APIC
 * at the same address.
 */
#ifndef RONX_APIC_H
#define RONX_APIC_H
#include <stdbool.h>
#include <stdint.h>

/* Register offsets (Intel SDM vol. 3, table 11-1). */
#define APIC_ID		0x20
#define APIC_LVR	0x30	/* version */
#define APIC_TASKPRI	0x80
#define APIC_EOI	0xB0
#define APIC_SPIV	0xF0	/* spurious vector; bit 8 enables the APIC */
#define APIC_ESR	0x280
#define APIC_ICR	0x300	/* interrupt command, low half: writing it sends */
#define APIC_ICR2	0x310	/* ... high half: the destination APIC id << 24 */
#define APIC_LVTT	0x320
#define APIC_LVT0	0x350
#define APIC_LVT1	0x360
#define APIC_LVTERR	0x370
#define APIC_TMICT	0x380	/* timer: initial count */
#define APIC_TMCCT	0x390	/* timer: current count */
#define APIC_TDCR	0x3E0	/* timer: divide configuration */

#define APIC_SPIV_APIC_ENABLED	(1u << 8)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_TIMER_PERIODIC	(1u << 17)
#define APIC_DM_NMI		0x00400
#define APIC_DM_INIT		0x00500
#define APIC_DM_STARTUP		0x00600
#define APIC_DM_EXTINT		0x00700
#define APIC_ICR_BUSY		(1u << 12)	/* delivery status: not yet sent */
#define APIC_INT_ASSERT		(1u << 14)
#define APIC_INT_LEVELTRIG	(1u << 15)
#define APIC_TDR_DIV_16		0x3

#define MSR_IA32_APICBASE		0x1B
#define MSR_IA32_APICBASE_BSP		(1u << 8)
#define MSR_IA32_APICBASE_ENABLE	(1u << 11)
#define X86_FEATURE_APIC		(1u << 9)	/* CPUID 1, EDX */

/* Vectors (the top of the IDT, as Linux: arch/x86/include/asm/irq_vectors.h). */
#define LOCAL_TIMER_VECTOR	0xef
#define CALL_FUNCTION_VECTOR	0xfc
#define RESCHEDULE_VECTOR	0xfd
#define SPURIOUS_APIC_VECTOR	0xff

extern bool apic_mapped;		/* the MMIO is mapped (there are CPUs to start) */
extern uint64_t apic_phys;

bool boot_cpu_has_apic(void);
void apic_map(uint64_t phys);
uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t v);
uint32_t read_apic_id(void);		/* this CPU's APIC id */
void setup_local_APIC(bool boot_cpu);
void apic_eoi(void);
void apic_send_IPI(uint32_t apic_id, uint32_t vector);
void apic_send_init(uint32_t apic_id);
void apic_send_startup(uint32_t apic_id, unsigned long phys);
bool apic_icr_wait_idle(void);
void calibrate_APIC_clock(void);
void apic_timer_start(void);
void apic_timer_stop(void);
struct trap_frame;
void smp_apic_timer_interrupt(struct trap_frame *f);
#endif
