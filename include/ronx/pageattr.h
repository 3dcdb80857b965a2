/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PAGEATTR_H
#define RONX_PAGEATTR_H
#include <stdbool.h>
#include <ronx/pgtable_types.h>

/* Change the attributes of numpages pages from addr (Linux's names). */
int set_memory_ro(unsigned long addr, int numpages);
int set_memory_rw(unsigned long addr, int numpages);
int set_memory_nx(unsigned long addr, int numpages);
int set_memory_x(unsigned long addr, int numpages);
/* Seed 003's text patching needs a W+X window on purpose: it must ask. */
int set_memory_rw_allow_wx(unsigned long addr, int numpages);
int set_memory_x_allow_wx(unsigned long addr, int numpages);
/* wxplant=VA:PAGES: W+X pages planted on purpose for the audit (mm/wxplant.c). */
void wx_plant(void);

struct cpa_stats {
	unsigned long calls, pages_changed, splits, collapses, invlpg, full_flushes, refused;
};
extern struct cpa_stats cpa_stats;

/* After mark_rodata_ro(): .rodata and ro_after_init may never become RW. */
extern bool kernel_set_to_readonly;
extern bool pcibios_enabled;

/*
 * The PCI BIOS hole, which must stay executable while the BIOS is used:
 * [start, end) of the direct map, and whether the policy lets it be RW+X
 * (the seed's 640K-1M, the default) or keeps it read-only (bios_tight).
 */
void declare_bios_hole(unsigned long start, unsigned long end, bool writable);
bool in_bios_hole(unsigned long va);
#endif
