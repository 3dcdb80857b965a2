// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_image.c - look things up in a module file that elf_check() accepted.
 *
 * Every index and offset used here was range-checked by elf_check(), so
 * these lookups do no checking of their own beyond what a lookup needs.
 */
#include <stdbool.h>
#include <ronx/string.h>
#include "elf_check.h"

const char *elf_section_name(const struct elf_image *img, unsigned int i)
{
	return img->shstrtab + img->shdrs[i].sh_name;
}

const char *elf_symbol_name(const struct elf_image *img, unsigned int i)
{
	return img->strtab + img->syms[i].st_name;
}

unsigned int elf_find_section(const struct elf_image *img, const char *name)
{
	unsigned int i;

	for (i = 1; i < img->shnum; i++)
		if (strcmp(elf_section_name(img, i), name) == 0)
			return i;
	return 0;
}

unsigned int elf_find_symbol(const struct elf_image *img, const char *name)
{
	unsigned int i;

	for (i = 1; i < img->nsyms; i++) {
		const Elf32_Sym *s = &img->syms[i];

		if (s->st_shndx != SHN_UNDEF && ELF32_ST_BIND(s->st_info) != STB_LOCAL &&
		    strcmp(elf_symbol_name(img, i), name) == 0)
			return i;
	}
	return 0;
}

/* .modinfo is a run of "key=value\0" strings, perhaps with NUL padding. */
const char *elf_modinfo(const struct elf_image *img, const char *key)
{
	unsigned int i = elf_find_section(img, ".modinfo");
	size_t klen = strlen(key);
	const char *p, *end;

	if (!i || img->shdrs[i].sh_type != SHT_PROGBITS)
		return NULL;
	p = (const char *)img->data + img->shdrs[i].sh_offset;
	end = p + img->shdrs[i].sh_size;
	/* elf_check() proved the last byte is NUL, so strlen() stays inside */
	for (; p < end; p += strlen(p) + 1)
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return p + klen + 1;
	return NULL;
}

const char *reloc_type_name(unsigned int type)
{
	static const struct { unsigned int type; const char *name; } names[] = {
		{ R_386_NONE, "R_386_NONE" },	{ R_386_32, "R_386_32" },
		{ R_386_PC32, "R_386_PC32" },	{ R_386_GOT32, "R_386_GOT32" },
		{ R_386_PLT32, "R_386_PLT32" },	{ R_386_COPY, "R_386_COPY" },
		{ R_386_GLOB_DAT, "R_386_GLOB_DAT" }, { R_386_JMP_SLOT, "R_386_JMP_SLOT" },
		{ R_386_RELATIVE, "R_386_RELATIVE" }, { R_386_GOTOFF, "R_386_GOTOFF" },
		{ R_386_GOTPC, "R_386_GOTPC" },	{ R_386_32PLT, "R_386_32PLT" },
		{ R_386_16, "R_386_16" },	{ R_386_PC16, "R_386_PC16" },
		{ R_386_8, "R_386_8" },		{ R_386_PC8, "R_386_PC8" },
		{ R_386_GOT32X, "R_386_GOT32X" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	return NULL;
}
