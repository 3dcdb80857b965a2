/* SPDX-License-Identifier: GPL-2.0-only */
/* Hardware interrupts: the 8259 PIC's IRQ lines 0-15 at vectors 0x20-0x2f. */
#ifndef RONX_IRQ_H
#define RONX_IRQ_H
#include <ronx/traps.h>

#define NR_IRQS		16
#define TIMER_IRQ	0	/* the PIT */
#define CASCADE_IRQ	2	/* the slave 8259 */
#define COM1_IRQ	4
#define FIRST_SYSTEM_VECTOR	0xef	/* the local APIC's: LOCAL_TIMER_VECTOR up (apic.h) */

typedef void (*irq_handler_t)(struct trap_frame *f);

/* kernel/cpu/irq.c */
void request_irq(unsigned irq, irq_handler_t handler);
void do_IRQ(struct trap_frame *f);
void set_apic_vector_handler(unsigned vector, irq_handler_t handler);
extern unsigned long irq_count[NR_IRQS];

/* kernel/cpu/i8259.c */
void init_8259A(void);
void enable_8259A_irq(unsigned irq);
void disable_8259A_irq(unsigned irq);
void ack_8259A_irq(unsigned irq);
bool i8259A_irq_real(unsigned irq);

/* kernel/cpu/time.c */
#define HZ	100
extern volatile unsigned long jiffies;
void time_init(void);
void udelay(unsigned long us);
void update_process_times(struct trap_frame *f);
#endif
