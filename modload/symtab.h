/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symtab.h - sorted export tables searched by bisection.
 *
 * A table is the array [start, stop) of struct kernel_symbol. The kernel
 * sorts its own once at boot (before marking it read-only) and each
 * module's at load (before set_section_ro_nx); lookups never scan.
 */
#ifndef RONX_SYMTAB_H
#define RONX_SYMTAB_H
#include <ronx/export.h>

/* Sort by name; heapsort, so no recursion and no memory. */
void sort_symbols(struct kernel_symbol *start, struct kernel_symbol *stop);

/* The entry called NAME in a sorted table, or NULL. */
const struct kernel_symbol *lookup_symbol(const struct kernel_symbol *start,
					  const struct kernel_symbol *stop,
					  const char *name);

/* In a sorted table, the first of two entries with one name, or NULL. */
const struct kernel_symbol *find_duplicate_symbol(const struct kernel_symbol *start,
						  const struct kernel_symbol *stop);

#endif
