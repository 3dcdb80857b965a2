/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System calls: int $0x80 with Linux's i386 numbers and registers (eax the
 * number; ebx, ecx, edx, esi, edi, ebp the arguments; eax the result or
 * -errno), so one binary runs on ronx and on Linux.
 */
#ifndef RONX_SYSCALL_H
#define RONX_SYSCALL_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/traps.h>

#include <ronx/unistd_32.h>

void do_int80_syscall(struct trap_frame *f);
long ksys_read(unsigned fd, char *buf, unsigned long count);
long ksys_write(unsigned fd, const char *buf, unsigned long count);
long sys_newuname(uint32_t name);			/* kernel/utsname.c */
long sys_sethostname(uint32_t name, uint32_t len);
extern unsigned long syscall_count;
extern bool lkdtm_syscall_bug;
#endif
