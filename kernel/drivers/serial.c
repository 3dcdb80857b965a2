// SPDX-License-Identifier: GPL-2.0-only
/*
 * COM1 (a 16550 UART). Output is polled: printk must work before anything
 * else does and in an oops. Input arrives by interrupt (IRQ 4): the
 * handler moves every received byte into the console's ring (kernel/drivers/tty.c).
 */
#include <ronx/compiler.h>
#include <ronx/x86.h>
#include <ronx/console.h>
#include <ronx/irq.h>
#include <ronx/tty.h>
#include <ronx/spinlock.h>

#define COM1		0x3F8
#define UART_IER	1
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20
#define IER_RDI		0x01	/* interrupt when a byte has been received */
#define MCR_DTR_RTS	0x03
#define MCR_OUT2	0x08	/* on a PC, gates the UART's interrupt to the PIC */

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);	/* no interrupts until the PIC is set up */
	outb(COM1 + UART_LCR, 0x80);	/* DLAB on: set the divisor */
	outb(COM1 + 0, 0x01);		/* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + UART_LCR, 0x03);	/* 8N1 */
	outb(COM1 + UART_FCR, 0x07);	/* FIFO on, cleared, interrupt at every byte */
	outb(COM1 + UART_MCR, MCR_DTR_RTS);
}

void serial_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
		cpu_relax();
	outb(COM1, (unsigned char)c);
}

/*
 * Every byte the UART holds, into the console ring. Both the interrupt
 * (on the boot CPU) and a reader (on any CPU) drain it: one at a time,
 * or two CPUs would each take a byte and queue them in either order.
 */
static DEFINE_SPINLOCK(serial_rx_lock);

void serial_poll_rx(void)
{
	unsigned long flags;

	spin_lock_irqsave(&serial_rx_lock, flags);
	while (inb(COM1 + UART_LSR) & LSR_DATA_READY)
		tty_receive((char)inb(COM1));
	spin_unlock_irqrestore(&serial_rx_lock, flags);
}

static void serial_interrupt(struct trap_frame *f)
{
	(void)f;
	serial_poll_rx();
}

void __init serial_init_irq(void)
{
	request_irq(COM1_IRQ, serial_interrupt);
	outb(COM1 + UART_MCR, MCR_DTR_RTS | MCR_OUT2);
	outb(COM1 + UART_IER, IER_RDI);
}
