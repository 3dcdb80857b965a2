/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The console's input (kernel/tty.c): a ring that COM1's interrupt fills,
 * and a line editor over it (echo, backspace, Ctrl-C, Ctrl-D) that the
 * shell and read(0) share.
 */
#ifndef RONX_TTY_H
#define RONX_TTY_H
#include <stddef.h>
#include <stdbool.h>

#define CTRL_C	0x03
#define CTRL_D	0x04

void tty_receive(char c);		/* from the interrupt handler */
int tty_getc(void);			/* blocks until a byte comes */
bool tty_input_pending(void);		/* a byte is queued (memview -w) */
/*
 * One line, edited and echoed, without its newline; returns its length,
 * TTY_EOF for Ctrl-D on an empty line, TTY_INTR for Ctrl-C.
 */
#define TTY_EOF		(-1)
#define TTY_INTR	(-2)
int tty_read_line(char *buf, size_t size);
extern unsigned long tty_dropped;
/* kernel/read_write.c: the unread rest of t's console line goes (t exits) */
struct task;
void tty_release_line(const struct task *t);
#endif
