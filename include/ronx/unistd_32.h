/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linux's i386 system-call numbers (arch/x86/entry/syscalls/syscall_32.tbl),
 * the ones ronx answers. One list for both sides: the kernel's table
 * (kernel/syscall.c) and the user library (user/include/ulib.h).
 */
#ifndef RONX_UNISTD_32_H
#define RONX_UNISTD_32_H

#define __NR_exit		1
#define __NR_fork		2
#define __NR_read		3
#define __NR_write		4
#define __NR_close		6
#define __NR_waitpid		7
#define __NR_execve		11
#define __NR_getpid		20
#define __NR_alarm		27
#define __NR_kill		37
#define __NR_brk		45
#define __NR_ioctl		54
#define __NR_setpgid		57
#define __NR_getppid		64
#define __NR_getpgrp		65
#define __NR_setsid		66
#define __NR_sethostname	74
#define __NR_munmap		91
#define __NR_ftruncate		93
#define __NR_setitimer		104
#define __NR_getitimer		105
#define __NR_wait4		114
#define __NR_sigreturn		119
#define __NR_uname		122
#define __NR_mprotect		125
#define __NR_getpgid		132
#define __NR_sched_yield	158
#define __NR_nanosleep		162
#define __NR_prctl		172
#define __NR_rt_sigreturn	173
#define __NR_rt_sigaction	174
#define __NR_rt_sigprocmask	175
#define __NR_sigaltstack	186
#define __NR_vfork		190
#define __NR_mmap2		192
#define __NR_ftruncate64	194
#define __NR_gettid		224
#define __NR_exit_group		252
#define __NR_tgkill		270
#define __NR_getcpu		318
#define __NR_memfd_create	356
#define NR_syscalls		357
#endif
