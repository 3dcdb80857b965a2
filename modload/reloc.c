// SPDX-License-Identifier: GPL-2.0-only
/*
 * reloc.c - symbol resolution and R_386_32 / R_386_PC32 relocation.
 *
 * Reads and writes of the relocated word go through memcpy() because a
 * relocation offset need not be 4-byte aligned (a call's rel32 is not).
 */
#include <ronx/string.h>
#include "reloc.h"

static bool is_weak(const Elf32_Sym *s)
{
	return ELF32_ST_BIND(s->st_info) == STB_WEAK;
}

int resolve_symbols(const struct elf_image *img, sym_lookup_fn lookup, void *ctx,
		    struct errmsg *e)
{
	unsigned int i;
	uint32_t addr;

	for (i = 1; i < img->nsyms; i++) {
		const Elf32_Sym *s = &img->syms[i];

		if (s->st_shndx != SHN_UNDEF || is_weak(s))
			continue;
		if (!lookup || !lookup(ctx, elf_symbol_name(img, i), &addr))
			return errf(e, "unknown symbol %s", elf_symbol_name(img, i));
	}
	return 0;
}

int symbol_address(const struct elf_image *img, const uint32_t *place,
		   const struct mod_dest *d, unsigned int i, sym_lookup_fn lookup,
		   void *ctx, uint32_t *addr, struct errmsg *e)
{
	const Elf32_Sym *s = &img->syms[i];

	if (s->st_shndx == SHN_ABS) {
		*addr = s->st_value;
	} else if (s->st_shndx == SHN_UNDEF) {
		*addr = 0;	/* symbol 0, or a weak undefined one, is 0 */
		if (i && !(lookup && lookup(ctx, elf_symbol_name(img, i), addr)) && !is_weak(s))
			return errf(e, "unknown symbol %s", elf_symbol_name(img, i));
	} else if (place[s->st_shndx] == SEC_NOT_LOADED) {
		return errf(e, "symbol %s is in unloaded section %s", elf_symbol_name(img, i),
			    elf_section_name(img, s->st_shndx));
	} else {
		*addr = section_address(place, d, s->st_shndx) + s->st_value;
	}
	return 0;
}

static int apply_one(const struct elf_image *img, const uint32_t *place,
		     const struct mod_dest *d, const Elf32_Rel *r, unsigned int target,
		     sym_lookup_fn lookup, void *ctx, struct errmsg *e)
{
	uint8_t *loc = section_buffer(place, d, target) + r->r_offset;
	uint32_t p = section_address(place, d, target) + r->r_offset;
	uint32_t s, a;

	if (symbol_address(img, place, d, ELF32_R_SYM(r->r_info), lookup, ctx, &s, e))
		return -1;
	memcpy(&a, loc, 4);
	/* elf_check() let through only these two types */
	if (ELF32_R_TYPE(r->r_info) == R_386_32)
		a = s + a;
	else
		a = s + a - p;
	memcpy(loc, &a, 4);
	return 0;
}

int apply_relocations(const struct elf_image *img, const uint32_t *place,
		      const struct mod_dest *d, sym_lookup_fn lookup, void *ctx,
		      struct errmsg *e)
{
	unsigned int i, n;

	for (i = 1; i < img->shnum; i++) {
		const Elf32_Shdr *s = &img->shdrs[i];
		const Elf32_Rel *rel = (const Elf32_Rel *)(img->data + s->sh_offset);

		if (s->sh_type != SHT_REL || place[s->sh_info] == SEC_NOT_LOADED)
			continue;
		for (n = 0; n < s->sh_size / sizeof(Elf32_Rel); n++)
			if (apply_one(img, place, d, &rel[n], s->sh_info, lookup, ctx, e))
				return -1;
	}
	return 0;
}
