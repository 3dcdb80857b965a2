/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The console's input (kernel/drivers/tty.c): a ring that COM1's interrupt fills,
 * and a line editor over it (echo, backspace, Ctrl-C, Ctrl-D) that the
 * shell and read(0) share.
 */
#ifndef RONX_TTY_H
#define RONX_TTY_H
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define CTRL_C	0x03
#define CTRL_D	0x04
#define CTRL_Z	0x1a

void tty_receive(char c);		/* from the interrupt handler */
int tty_getc(void);			/* blocks until a byte comes */
bool tty_input_pending(void);		/* a byte is queued (memview -w) */
/*
 * One line, edited and echoed, without its newline; returns its length,
 * TTY_EOF for Ctrl-D on an empty line, TTY_INTR for Ctrl-C.
 */
#define TTY_EOF		(-1)
#define TTY_INTR	(-2)
#define TTY_EIO		(-3)	/* a process outside the terminal's foreground group */
#define TTY_RESTART	(-4)	/* a signal to act on came (a stop, a handler's): -ERESTARTSYS */
int tty_read_line(char *buf, size_t size);
void tty_wakeup_readers(void);		/* the foreground group changed: readers look again */
extern unsigned long tty_dropped;
/* kernel/read_write.c: the unread rest of t's console line goes (t exits) */
struct task;
void tty_release_line(const struct task *t);
/* kernel/drivers/tty_jobctrl.c: the terminal's session and its foreground process group */
void tty_set_session(const struct task *leader);
void tty_session_exit(const struct task *t);
int tty_foreground_pgrp(void);
bool tty_is_foreground(const struct task *t);
long tty_check_read(void);		/* 0: current may read; -EIO, or -ERESTARTSYS after SIGTTIN */
long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg);
#endif
