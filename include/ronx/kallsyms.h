/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_KALLSYMS_H
#define RONX_KALLSYMS_H
#include <stddef.h>

/* Generated at link time by tools/kallsyms.py from the kernel's text symbols. */
extern const unsigned long kallsyms_addresses[];
extern const char *const kallsyms_names[];
extern const unsigned long kallsyms_num;

const char *kallsyms_lookup(unsigned long addr, unsigned long *size,
			    unsigned long *offset);
void sprint_symbol(char *buf, size_t size, unsigned long addr);
void sprint_backtrace(char *buf, size_t size, unsigned long addr);
unsigned long kallsyms_lookup_name(const char *name);
#endif
