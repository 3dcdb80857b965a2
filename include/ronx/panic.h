/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PANIC_H
#define RONX_PANIC_H
#include <ronx/compiler.h>

/* kernel/panic.c: Linux's last words, then every CPU stops. */
void panic(const char *fmt, ...) __noreturn __printf(1, 2);
#endif
