/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PTDUMP_H
#define RONX_PTDUMP_H
#include <ronx/pageflags.h>

void ptdump_walk(struct ptdump_state *st);

struct wx_report {
	unsigned long wx_pages;		/* outside the declared PCI BIOS hole */
	unsigned long hole_pages;	/* inside it */
};
/* PRESENT, RW and NX as they apply to a page mapped by these entries;
 * pte is NULL for a 2 MiB page (mm/effective_prot.c: the audit and
 * `walk VA` both decide with it). */
pteval_t effective_prot(pteval_t pdpte, pteval_t pde, const pteval_t *pte);
/* Logs every W+X range outside the declared hole, and a verdict. */
struct wx_report ptdump_check_wx(void);
/* mm/wx_alias.c: frames writable in one user mapping and executable in another (warnings) */
unsigned long wxcheck_user_aliases(void);
#endif
