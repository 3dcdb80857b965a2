/* SPDX-License-Identifier: GPL-2.0-only */
/* The boot sequence's steps, each owned by its own file. */
#ifndef RONX_INIT_H
#define RONX_INIT_H
#include <stdbool.h>

void x86_configure_nx(void);
void x86_report_nx(void);
void free_initmem(void);
extern bool init_mem_freed;
void mark_rodata_ro(void);
void print_policy(void);
void poweroff(int code) __attribute__((noreturn));
#define BOOT_REFUSED	3	/* isa-debug-exit code: QEMU exits with 7 */
void refuse_boot(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#endif
