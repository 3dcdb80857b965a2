// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware interrupts: one handler per 8259 line (Linux: do_IRQ()), and
 * the local APIC's own vectors at the top of the IDT (IPIs). The
 * line is acknowledged before the handler runs, because a handler may
 * switch to another task (the timer preempting ring 3) and the next
 * interrupt must not wait for that task to come back. Nothing nests: the
 * gates clear IF, and the kernel turns it on only while it waits and in a
 * process's system call.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/irq.h>
#include <ronx/apic.h>

static irq_handler_t irq_handlers[NR_IRQS];
static irq_handler_t apic_handlers[NR_VECTORS - FIRST_SYSTEM_VECTOR];
unsigned long irq_count[NR_IRQS];
static unsigned long spurious_count;

void request_irq(unsigned irq, irq_handler_t handler)
{
	irq_handlers[irq] = handler;
	enable_8259A_irq(irq);
}

/* A handler for one of the local APIC's vectors; it must send the EOI. */
void set_apic_vector_handler(unsigned vector, irq_handler_t handler)
{
	apic_handlers[vector - FIRST_SYSTEM_VECTOR] = handler;
}

void do_IRQ(struct trap_frame *f)
{
	unsigned irq = f->vector - FIRST_EXTERNAL_VECTOR;

	if (f->vector >= FIRST_SYSTEM_VECTOR && f->vector != SPURIOUS_APIC_VECTOR &&
	    apic_handlers[f->vector - FIRST_SYSTEM_VECTOR]) {
		apic_handlers[f->vector - FIRST_SYSTEM_VECTOR](f);
		return;
	}

	if (irq >= NR_IRQS || !i8259A_irq_real(irq)) {
		/*
		 * the APIC's spurious vector, or a vanished 8259 request (Bochs
		 * sends IRQ 7 at times). Logged once at KERN_DEBUG, as Linux
		 * does: on the console it would cut into the line being typed.
		 */
		if (!spurious_count++)
			printk(KERN_DEBUG "spurious 8259A interrupt: vector %#x (counted, not logged again)\n",
			       f->vector);
		return;
	}
	irq_count[irq]++;
	ack_8259A_irq(irq);
	if (irq_handlers[irq])
		irq_handlers[irq](f);
}
