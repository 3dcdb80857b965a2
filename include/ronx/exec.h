/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Executables: static i386 ELF files of type ET_EXEC (Linux:
 * fs/binfmt_elf.c, load_elf_binary()). elf_exec_check() (pure,
 * kernel/elf_exec_check.c) proves a file loadable or refuses it with one
 * line naming the field; the loader (kernel/exec.c) trusts only what it
 * proved.
 */
#ifndef RONX_EXEC_H
#define RONX_EXEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf32.h"
#include "errmsg.h"

#define EXEC_MAX_PHNUM		64
#define EXEC_MAX_SEGMENTS	8
#define EXEC_MAX_IMAGE		(16u << 20)	/* all segments together */

struct exec_segment {
	uint32_t vaddr, memsz, offset, filesz, flags;	/* from the PT_LOAD */
	unsigned index;					/* its program header's number */
};

struct exec_image {
	const uint8_t *data;
	uint32_t size;
	uint32_t entry;
	struct exec_segment seg[EXEC_MAX_SEGMENTS];
	int nseg;
	uint32_t brk;			/* page-aligned end of the highest segment */
	bool stack_exec_asked;		/* PT_GNU_STACK with PF_X */
};

int elf_exec_check(struct exec_image *img, const void *data, size_t size, struct errmsg *e);
void elf_flags_name(uint32_t p_flags, char buf[4]);
#endif
