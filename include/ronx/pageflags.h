/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PAGEFLAGS_H
#define RONX_PAGEFLAGS_H
#include <stddef.h>
#include <ronx/pgtable_types.h>

/* Level names as in Linux's dump_pagetables. */
#define PTDUMP_LEVEL_PMD 3
#define PTDUMP_LEVEL_PTE 4

void format_page_flags(pteval_t e, enum pg_level level, char *buf, size_t size);
void format_prot(pteval_t prot, int dump_level, char *buf, size_t size);
void format_size(unsigned long long bytes, char *buf, size_t size);
void format_range(unsigned long start, unsigned long long end, pteval_t prot,
		  int dump_level, char *buf, size_t size);
#endif
