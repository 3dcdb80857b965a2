/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_CONSOLE_H
#define RONX_CONSOLE_H
#include <stddef.h>

void serial_init(void);
void serial_init_irq(void);	/* input by interrupt, once the PIC is set up */
void serial_putc(char c);
void serial_poll_rx(void);	/* received bytes into the tty ring */
void vga_init(void);
void vga_putc(char c);
void console_write(const char *s, size_t n);
#endif
