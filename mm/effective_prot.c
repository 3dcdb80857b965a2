// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a page really allows, from the entries that map it: the one rule
 * both the W^X audit (mm/wxcheck.c) and `walk VA` (mm/walk_format.c,
 * gdb's ronx-walk) decide with. A lab tree where this is the student's
 * function shows it twice: in the audit's verdict, and in `walk`, beside
 * the raw entries read from the hardware.
 *
 * Pure: host-tested, and built into build/host/libronx-pt.so for gdb.
 */
#include <ronx/compiler.h>
#include <ronx/ptdump.h>

/*
 * Under PAE a PDPTE has no RW and no NX bit (they are reserved there), so
 * only the PDE and the PTE take part: writable if both allow it,
 * executable if neither forbids it. pte is NULL when the PDE maps a 2 MiB
 * page itself. Returns PRESENT, RW and NX as they apply to the page (NX
 * as the entries say it; whether EFER.NXE gives it a meaning is the
 * caller's business).
 */
pteval_t effective_prot(pteval_t pdpte, pteval_t pde, const pteval_t *pte)
{
	pteval_t leaf = pte ? *pte : pde;

	if (!(pdpte & _PAGE_PRESENT) || !(pde & _PAGE_PRESENT) || !(leaf & _PAGE_PRESENT))
		return 0;
	return _PAGE_PRESENT | (pde & leaf & _PAGE_RW) | ((pde | leaf) & _PAGE_NX);
}
