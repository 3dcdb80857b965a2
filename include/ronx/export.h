/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * export.h - EXPORT_SYMBOL(), for the kernel and for modules alike.
 *
 * Each export is a struct kernel_symbol in section __ksymtab, its name in
 * __ksymtab_strings. The kernel's linker script gathers them between
 * __start___ksymtab and __stop___ksymtab; a module's are its own __ksymtab
 * section. Either table is sorted by name once, before it becomes
 * read-only (the kernel at boot, a module at load), and then searched by
 * bisection (modload/symtab.h).
 */
#ifndef RONX_EXPORT_H
#define RONX_EXPORT_H

struct kernel_symbol {
	unsigned long value;
	const char *name;
};

/*
 * The entry is const so that in a module it lands in read-only data; the
 * one-time sort writes it through __start___ksymtab before that data is
 * protected.
 */
#define EXPORT_SYMBOL(sym)							\
	extern __typeof__(sym) sym;						\
	static const char __kstrtab_##sym[]					\
	__attribute__((section("__ksymtab_strings"), aligned(1))) = #sym;	\
	static const struct kernel_symbol __ksymtab_##sym			\
	__attribute__((section("__ksymtab"), used, aligned(sizeof(void *)))) =	\
		{ (unsigned long)&sym, __kstrtab_##sym }

#endif
