/* SPDX-License-Identifier: GPL-2.0-only */
/* mmap, munmap, mprotect and brk: Linux's i386 values, and mm/mmap.c. */
#ifndef RONX_MMAN_H
#define RONX_MMAN_H
#include <stdint.h>
#include <ronx/mm_types.h>

#define PROT_NONE	0x0
#define PROT_READ	0x1
#define PROT_WRITE	0x2
#define PROT_EXEC	0x4

#define MAP_SHARED	0x01
#define MAP_PRIVATE	0x02
#define MAP_TYPE	0x0f
#define MAP_FIXED	0x10
#define MAP_ANONYMOUS	0x20

/* At most this much user memory per process (Linux's RLIMIT_AS, fixed). */
#define USER_PAGES_MAX	8192	/* 32 MiB */
/* Never hand user space the kernel's last pages. */
#define USER_FREE_RESERVE	16

long do_mmap(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
	     unsigned flags, int fd);
long do_munmap(struct mm_struct *mm, uint32_t addr, uint32_t len);
long do_mprotect(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot);
uint32_t do_brk(struct mm_struct *mm, uint32_t newbrk);
int map_area(struct mm_struct *mm, uint32_t start, uint32_t end, unsigned flags,
	     unsigned kind);
unsigned prot_to_vm_flags(unsigned prot);
#endif
