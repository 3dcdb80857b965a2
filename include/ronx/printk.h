/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PRINTK_H
#define RONX_PRINTK_H
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <ronx/compiler.h>

#include <ronx/kern_levels.h>
#define KERN_CONT	KERN_SOH "c"
#define LOGLEVEL_DEFAULT 6
#define LOGLEVEL_WARNING 4

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
#define pr_err(...)	printk(KERN_ERR __VA_ARGS__)
#define pr_warn(...)	printk(KERN_WARNING __VA_ARGS__)
#define pr_info(...)	printk(KERN_INFO __VA_ARGS__)
#define pr_notice(...)	printk(KERN_NOTICE __VA_ARGS__)

/* Raw console output, bypassing the log: for the shell's answers. */
void console_write(const char *s, size_t n);
/* The console's lock (kernel/printk.c): nests on the CPU that holds it. */
unsigned long console_lock_irqsave(void);
void console_unlock_irqrestore(unsigned long flags);
void console_handover(void);
int cprintf(const char *fmt, ...) __printf(1, 2);
void console_set_quiet(bool quiet);	/* errors and worse only, no cprintf */

/* The dmesg ring buffer. */
void log_dump(void (*out)(const char *line, int level));
int printk_get_level(const char *s);
#endif
