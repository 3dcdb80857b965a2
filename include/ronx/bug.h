/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BUG(): a state the kernel must never reach. Linux's line, then ud2, so
 * the trap code prints the oops ("invalid opcode") and does what it does
 * with any kernel bug: the shell's recovery takes it, or the process whose
 * system call it was dies (kernel/oops.c).
 */
#ifndef RONX_BUG_H
#define RONX_BUG_H
#include <ronx/printk.h>

#define BUG() do {							\
	printk(KERN_EMERG "kernel BUG at %s:%d!\n", __FILE__, __LINE__);	\
	__builtin_trap();						\
} while (0)
#endif
