// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware interrupts: one handler per 8259 line (Linux: do_IRQ()). The
 * line is acknowledged before the handler runs, because a handler may
 * switch to another task (the timer preempting ring 3) and the next
 * interrupt must not wait for that task to come back. Nothing nests: the
 * gates clear IF and the kernel turns it on only while it waits.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/irq.h>

static irq_handler_t irq_handlers[NR_IRQS];
unsigned long irq_count[NR_IRQS];
static unsigned long spurious_count;

void request_irq(unsigned irq, irq_handler_t handler)
{
	irq_handlers[irq] = handler;
	enable_8259A_irq(irq);
}

void do_IRQ(struct trap_frame *f)
{
	unsigned irq = f->vector - FIRST_EXTERNAL_VECTOR;

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
