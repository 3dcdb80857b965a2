/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_check.h - validate a whole module file before anything is allocated.
 *
 * elf_check() reads an untrusted ET_REL EM_386 object in a buffer and
 * either fills a struct elf_image (pointers into that buffer, every one of
 * them proven in bounds) or refuses it with a one-line reason. Everything
 * after it (layout, relocation) trusts only what elf_check() has proven.
 *
 * The module's entry point is the global symbol `init_module`, defined in
 * executable allocated code; <ronx/module.h>'s module_init(fn) makes it an
 * alias of fn (as Linux 2.6 did). `cleanup_module` (module_exit) is optional.
 */
#ifndef RONX_ELF_CHECK_H
#define RONX_ELF_CHECK_H
#include <stdint.h>
#include <stddef.h>
#include "elf32.h"
#include "errmsg.h"

/* More sections than this is refused: overlap checking is quadratic. */
#define ELF_MAX_SECTIONS	1024
/* A module section may ask for at most page alignment (regions are pages). */
#define ELF_MAX_ALIGN		4096

struct elf_image {
	const uint8_t *data;
	uint32_t size;
	const Elf32_Ehdr *ehdr;
	const Elf32_Shdr *shdrs;
	unsigned int shnum;
	const char *shstrtab;
	uint32_t shstrtab_size;
	unsigned int symtab_index;	/* section index of SHT_SYMTAB */
	const Elf32_Sym *syms;
	unsigned int nsyms;
	const char *strtab;
	uint32_t strtab_size;
	unsigned int init_sym;		/* symbol index of init_module */
	unsigned int exit_sym;		/* of cleanup_module, or 0 if none */
};

/*
 * Validate SIZE bytes at DATA (which must be 4-byte aligned and must stay
 * unchanged while IMG is used). Returns 0 and fills IMG, or -1 with the
 * reason in E.
 */
int elf_check(struct elf_image *img, const void *data, size_t size, struct errmsg *e);

/* The part every ELF file ronx reads shares: magic, class, byte order, version. */
int elf_check_ident(const Elf32_Ehdr *h, struct errmsg *e);

/* Accessors, valid only on an image that passed elf_check(). */
const char *elf_section_name(const struct elf_image *img, unsigned int i);
const char *elf_symbol_name(const struct elf_image *img, unsigned int i);
/* Index of the section called NAME, or 0 if there is none. */
unsigned int elf_find_section(const struct elf_image *img, const char *name);
/* Index of the defined global symbol called NAME, or 0 if there is none. */
unsigned int elf_find_symbol(const struct elf_image *img, const char *name);
/* The value of "KEY=value" in .modinfo, or NULL. */
const char *elf_modinfo(const struct elf_image *img, const char *key);
/* "R_386_GOTPC" for 10, etc.; NULL for a number with no name here. */
const char *reloc_type_name(unsigned int type);

#endif
