// SPDX-License-Identifier: GPL-2.0-only
/* COM1, polled: no interrupts anywhere in ronx, so nothing can race. */
#include <ronx/x86.h>
#include <ronx/console.h>

#define COM1		0x3F8
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20

void serial_init(void)
{
	outb(COM1 + 1, 0x00);	/* no interrupts */
	outb(COM1 + 3, 0x80);	/* DLAB on: set the divisor */
	outb(COM1 + 0, 0x01);	/* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);	/* 8N1 */
	outb(COM1 + 2, 0xC7);	/* FIFO on, cleared */
	outb(COM1 + 4, 0x03);	/* DTR, RTS */
}

void serial_putc(char c)
{
	while (!(inb(COM1 + 5) & LSR_THR_EMPTY))
		;
	outb(COM1, (unsigned char)c);
}

int serial_getc(void)
{
	while (!(inb(COM1 + 5) & LSR_DATA_READY))
		__asm__ volatile("pause");
	return inb(COM1);
}
