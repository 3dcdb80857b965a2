// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two cascaded 8259A interrupt controllers (Linux:
 * arch/x86/kernel/i8259.c). The BIOS leaves their IRQs on vectors 0x08-0x0f,
 * which are CPU exceptions in protected mode, so we move them to 0x20-0x2f.
 * Every line starts masked; request_irq() unmasks the ones with a handler.
 * Present on every PC, -M isapc and Bochs included (they have no APIC).
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/x86.h>
#include <ronx/irq.h>

#define PIC_MASTER_CMD	0x20
#define PIC_MASTER_IMR	0x21
#define PIC_SLAVE_CMD	0xa0
#define PIC_SLAVE_IMR	0xa1
#define PIC_EOI		0x20
#define OCW3_READ_ISR	0x0b

static uint16_t cached_irq_mask = 0xffff;

static void write_masks(void)
{
	outb(PIC_MASTER_IMR, cached_irq_mask & 0xff);
	outb(PIC_SLAVE_IMR, cached_irq_mask >> 8);
}

void __init init_8259A(void)
{
	outb(PIC_MASTER_IMR, 0xff);
	outb(PIC_SLAVE_IMR, 0xff);
	outb(PIC_MASTER_CMD, 0x11);		/* ICW1: edge, cascade, ICW4 follows */
	outb(PIC_MASTER_IMR, FIRST_EXTERNAL_VECTOR);	/* ICW2: IRQ 0-7 -> 0x20-0x27 */
	outb(PIC_MASTER_IMR, 1 << CASCADE_IRQ);	/* ICW3: slave on IRQ 2 */
	outb(PIC_MASTER_IMR, 0x01);		/* ICW4: 8086 mode, normal EOI */
	outb(PIC_SLAVE_CMD, 0x11);
	outb(PIC_SLAVE_IMR, FIRST_EXTERNAL_VECTOR + 8);	/* IRQ 8-15 -> 0x28-0x2f */
	outb(PIC_SLAVE_IMR, CASCADE_IRQ);	/* its cascade identity */
	outb(PIC_SLAVE_IMR, 0x01);
	cached_irq_mask = 0xffff & ~(1 << CASCADE_IRQ);
	write_masks();
}

void enable_8259A_irq(unsigned irq)
{
	cached_irq_mask &= ~(1u << irq);
	write_masks();
}

void disable_8259A_irq(unsigned irq)
{
	cached_irq_mask |= 1u << irq;
	write_masks();
}

void ack_8259A_irq(unsigned irq)
{
	if (irq >= 8)
		outb(PIC_SLAVE_CMD, PIC_EOI);
	outb(PIC_MASTER_CMD, PIC_EOI);
}

/*
 * IRQ 7 and 15 are also what an 8259 reports when a request vanished
 * before the CPU took it. A real one is marked in service (ISR); a
 * spurious one is not and must not be acknowledged, except that the
 * master did put the cascade line in service for a spurious IRQ 15.
 */
bool i8259A_irq_real(unsigned irq)
{
	unsigned port = irq < 8 ? PIC_MASTER_CMD : PIC_SLAVE_CMD;
	bool real;

	if ((irq & 7) != 7)
		return true;
	outb(port, OCW3_READ_ISR);
	real = inb(port) & 0x80;
	if (!real && irq == 15)
		outb(PIC_MASTER_CMD, PIC_EOI);
	return real;
}
