/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reloc.h - resolve a module's symbols and apply its i386 REL relocations.
 *
 * Only R_386_32 (S + A) and R_386_PC32 (S + A - P) exist here, the addend
 * A being the 32-bit value already at the place (REL, not RELA); elf_check()
 * has refused every other type. Relocations into sections that are not
 * loaded (debug info) are skipped, as Linux does.
 */
#ifndef RONX_RELOC_H
#define RONX_RELOC_H
#include <stdint.h>
#include <stdbool.h>
#include "elf_check.h"
#include "layout.h"

/*
 * Find an exported symbol (the kernel's, then other modules'): true and
 * *addr set, or false. The kernel implements it with find_symbol().
 */
typedef bool (*sym_lookup_fn)(void *ctx, const char *name, uint32_t *addr);

/*
 * Check that every undefined symbol resolves (a missing weak one is 0).
 * Run before copying anything; the error is "unknown symbol NAME".
 */
int resolve_symbols(const struct elf_image *img, sym_lookup_fn lookup, void *ctx,
		    struct errmsg *e);

/* Run-time address of symbol i, for relocations and for init_module. */
int symbol_address(const struct elf_image *img, const uint32_t *place,
		   const struct mod_dest *d, unsigned int i, sym_lookup_fn lookup,
		   void *ctx, uint32_t *addr, struct errmsg *e);

/* Apply every relocation into the copied sections at d's buffers. */
int apply_relocations(const struct elf_image *img, const uint32_t *place,
		      const struct mod_dest *d, sym_lookup_fn lookup, void *ctx,
		      struct errmsg *e);

#endif
