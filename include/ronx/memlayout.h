/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's virtual address space (3G/1G split, as in Linux i386):
 *
 *   0x00000000 - 0xbfffffff   user space: each process's own (below)
 *   0xc0000000 - ...          direct map of low RAM, at most 896 MiB;
 *                             the kernel image sits in it at 0xc0100000
 *   0xf8000000 - 0xfbffffff   module area, 4 KiB pages only
 *   0xfc000000 - 0xfdffffff   scratch area for temporary alias mappings
 *   0xfe000000 - 0xfe1fffff   kernel stacks: 64 slots of 32K, each an
 *                             unmapped guard page, then the stack
 *                             (mm/vmap_stack.c; Linux: VMAP_STACK)
 *   0xffc00000 - 0xffdfffff   CPU entry area: .entry.data again, at a fixed
 *                             address (the GDT, TSS and IDT sgdt/sidt name)
 *   0xffe00000 - 0xffffffff   fixmap: one page per fixed use (the local APIC)
 */
#ifndef RONX_MEMLAYOUT_H
#define RONX_MEMLAYOUT_H

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PMD_SHIFT	21
#define PMD_SIZE	(1UL << PMD_SHIFT)	/* one PAE large page: 2 MiB */
#define PMD_MASK	(~(PMD_SIZE - 1))

#define PAGE_OFFSET	0xC0000000UL
#define MAXMEM		(896UL << 20)
#define MODULES_VADDR	0xF8000000UL
#define MODULES_END	0xFC000000UL
#define ALIAS_VADDR	0xFC000000UL
#define ALIAS_END	0xFE000000UL
#define STACK_AREA_VADDR	0xFE000000UL
#define STACK_AREA_END		0xFE200000UL
/* Slots of the alias area with a fixed user (others: tests and demos). */
#define POKE_ALIAS	(ALIAS_VADDR + 16 * PAGE_SIZE)	/* text_poke() */
#define EARLY_MAP_VADDR	(ALIAS_VADDR + 64 * PAGE_SIZE)	/* early_memremap(): firmware tables */
#define EARLY_MAP_PAGES	16
/* mm/cpu_entry_area.c; boot/traps.asm has the same two numbers */
#define CPU_ENTRY_AREA_BASE	0xFFC00000UL
#define CPU_ENTRY_AREA_END	0xFFE00000UL
/* Linux's fixmap: addresses known at compile time for what has to be mapped. */
#define FIXADDR_START	0xFFE00000UL
#define FIX_APIC_BASE	FIXADDR_START			/* the local APIC's registers */

/* The PCI BIOS hole: 640K to 1M (Linux's BIOS_BEGIN/BIOS_END). */
#define BIOS_BEGIN	0x000a0000UL
#define BIOS_END	0x00100000UL

/*
 * A process's half (docs/user-mode.md), Linux i386's legacy layout:
 *
 *   0x00000000 - 0x0000ffff   never mapped: NULL and small offsets fault
 *   0x08048000 ...            the ELF's segments, then brk's heap
 *   0x40000000 ...            anonymous mmap, first fit upwards (by default
 *                             exec moves this base and the stack top:
 *                             ronx/mmap_layout.h; norandmaps: as here)
 *   0xbf7ff000                the guard page: never mapped
 *   0xbf800000 - 0xbffdffff   room for the stack to grow into, on faults
 *                             (8 MiB in all, Linux's RLIMIT_STACK); mmap
 *                             never picks an address here
 *   0xbffe0000 - 0xbfffffff   the stack, 128K, mapped whole at exec
 */
#define TASK_SIZE		PAGE_OFFSET
#define MMAP_MIN_ADDR		0x00010000UL
#define TASK_UNMAPPED_BASE	0x40000000UL	/* TASK_SIZE / 3, as Linux i386 */
#define USER_STACK_SIZE		(128UL << 10)
#define STACK_TOP		TASK_SIZE
#define STACK_BOTTOM		(STACK_TOP - USER_STACK_SIZE)
#define STACK_RLIMIT		(8UL << 20)	/* Linux's default RLIMIT_STACK */
#define STACK_LIMIT		(STACK_TOP - STACK_RLIMIT)	/* the lowest the stack grows to */
#define STACK_GUARD		(STACK_LIMIT - PAGE_SIZE)
#define MMAP_END		STACK_GUARD

#define __pa(x)		((unsigned long)(x) - PAGE_OFFSET)
#define __va(x)		((void *)((unsigned long)(x) + PAGE_OFFSET))
#define PFN_DOWN(x)	((unsigned long)(x) >> PAGE_SHIFT)
#define PFN_UP(x)	(((unsigned long)(x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_ALIGN(x)	(((unsigned long)(x) + PAGE_SIZE - 1) & PAGE_MASK)
#endif
