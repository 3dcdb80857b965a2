/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System calls: int $0x80 with Linux's i386 numbers and registers (eax the
 * number; ebx, ecx, edx, esi, edi, ebp the arguments; eax the result or
 * -errno), so one binary runs on ronx and on Linux.
 */
#ifndef RONX_SYSCALL_H
#define RONX_SYSCALL_H
#include <stdbool.h>
#include <ronx/traps.h>

#define __NR_exit		1
#define __NR_read		3
#define __NR_write		4
#define __NR_getpid		20
#define __NR_brk		45
#define __NR_munmap		91
#define __NR_mprotect		125
#define __NR_sched_yield	158
#define __NR_nanosleep		162
#define __NR_mmap2		192
#define __NR_exit_group		252
#define NR_syscalls		253

void do_int80_syscall(struct trap_frame *f);
long ksys_read(unsigned fd, char *buf, unsigned long count);
long ksys_write(unsigned fd, const char *buf, unsigned long count);
extern unsigned long syscall_count;
extern bool lkdtm_syscall_bug;
#endif
