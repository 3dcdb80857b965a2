/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The GDT's selectors (one GDT per CPU, in struct cpu; kernel/cpu/gdt.c).
 * A selector is index * 8 | table | RPL: the user ones carry RPL 3.
 */
#ifndef RONX_SEGMENT_H
#define RONX_SEGMENT_H

#define GDT_ENTRY_KERNEL_CS	1
#define GDT_ENTRY_KERNEL_DS	2
#define GDT_ENTRY_USER_CS	3
#define GDT_ENTRY_USER_DS	4
#define GDT_ENTRY_TSS		5
#define GDT_ENTRY_PERCPU	6
#define GDT_ENTRY_DOUBLEFAULT_TSS 7
#define GDT_ENTRIES		8

#define KERNEL_CS	(GDT_ENTRY_KERNEL_CS * 8)	/* 0x08 */
#define KERNEL_DS	(GDT_ENTRY_KERNEL_DS * 8)	/* 0x10 */
#define USER_CS		(GDT_ENTRY_USER_CS * 8 + 3)	/* 0x1b */
#define USER_DS		(GDT_ENTRY_USER_DS * 8 + 3)	/* 0x23 */
#define TSS_SEL		(GDT_ENTRY_TSS * 8)		/* 0x28 */
#define PERCPU_SEL	(GDT_ENTRY_PERCPU * 8)		/* 0x30: %fs in the kernel */
#define DOUBLEFAULT_TSS_SEL (GDT_ENTRY_DOUBLEFAULT_TSS * 8)	/* 0x38: vector 8's task gate */

/* EFLAGS bits the kernel looks at. */
#define X86_EFLAGS_IF	(1u << 9)	/* interrupts enabled */
#define X86_EFLAGS_VM	(1u << 17)	/* virtual-8086 mode (ronx never enters it) */
#define X86_EFLAGS_AC	(1u << 18)	/* SMAP: user access allowed (stac) */
#define X86_EFLAGS_FIXED (1u << 1)	/* always 1 */
#endif
