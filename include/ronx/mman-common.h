/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmap's and mprotect's flags, Linux's values (include/uapi/asm-generic/
 * mman-common.h). One list for both sides: mm/mmap.c and the user
 * library (user/include/ulib.h).
 */
#ifndef RONX_MMAN_COMMON_H
#define RONX_MMAN_COMMON_H

#define PROT_NONE	0x0
#define PROT_READ	0x1
#define PROT_WRITE	0x2
#define PROT_EXEC	0x4

#define MAP_SHARED	0x01
#define MAP_PRIVATE	0x02
#define MAP_TYPE	0x0f
#define MAP_FIXED	0x10
#define MAP_ANONYMOUS	0x20

#endif
