/* SPDX-License-Identifier: GPL-2.0-only */
/* Mapping device registers and firmware tables (mm/ioremap.c). */
#ifndef RONX_IOREMAP_H
#define RONX_IOREMAP_H
#include <stdint.h>

void set_fixmap_nocache(unsigned long va, uint64_t phys);
void *early_memremap(uint64_t phys, unsigned long size);	/* NULL if it cannot */
void early_memunmap(void *addr, unsigned long size);
#endif
