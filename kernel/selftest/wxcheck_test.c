// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the W^X audit: effective_prot() on made-up entries (the
 * PAE cases Linux's walk gets wrong), then the audit against an
 * independent count made with lookup_address().
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/pageattr.h>
#include <ronx/mm.h>
#include <ronx/ptdump.h>
#include <ronx/ktest.h>

#define P	_PAGE_PRESENT
#define RW	_PAGE_RW
#define NX	_PAGE_NX

static const pteval_t pte_rw = P | RW, pte_ro = P, pte_rw_nx = P | RW | NX, pte_none = 0;

KTEST(wxcheck, pdpte_has_no_rw_bit)
{
	/* a PAE PDPTE is just "present": it must not make the page read-only */
	KT_EXPECT(t, effective_prot(P, P | RW, &pte_rw) & RW, "RW lost to the PDPTE");
	KT_EXPECT(t, !(effective_prot(P, P | RW, &pte_rw) & NX), "NX out of nowhere");
}

KTEST(wxcheck, pde_and_pte_both_decide)
{
	KT_EXPECT(t, !(effective_prot(P, P, &pte_rw) & RW), "RO PDE ignored");
	KT_EXPECT(t, !(effective_prot(P, P | RW, &pte_ro) & RW), "RO PTE ignored");
	KT_EXPECT(t, effective_prot(P, P | RW | NX, &pte_rw) & NX, "NX PDE ignored");
	KT_EXPECT(t, effective_prot(P, P | RW, &pte_rw_nx) & NX, "NX PTE ignored");
}

KTEST(wxcheck, large_page_is_its_own_leaf)
{
	pteval_t e = effective_prot(P, P | RW | _PAGE_PSE, 0);

	KT_EXPECT(t, (e & P) && (e & RW) && !(e & NX), "2M RW+X page read as %llx", e);
	KT_EXPECT(t, effective_prot(P, P | _PAGE_PSE | NX, 0) & NX, "2M NX page executable");
}

KTEST(wxcheck, not_present_is_not_mapped)
{
	KT_EXPECT(t, !(effective_prot(P, P | RW, &pte_none) & P), "absent PTE present");
	KT_EXPECT(t, !(effective_prot(P, 0, 0) & P), "absent PDE present");
	KT_EXPECT(t, !(effective_prot(0, P | RW, &pte_rw) & P), "absent PDPTE present");
}

/* W+X pages in [start, end), counted with lookup_address(). */
static unsigned long count_wx(unsigned long start, unsigned long end)
{
	unsigned long n = 0;

	for (unsigned long va = start; va < end && va >= start; va += PAGE_SIZE) {
		enum pg_level level;
		pteval_t *e = lookup_address(va, &level);

		if (e && (*e & RW) && !(*e & NX))
			n++;
	}
	return n;
}

KTEST(wxcheck, audit_agrees_with_lookup_address)
{
	unsigned long hole_lo = PAGE_OFFSET + BIOS_BEGIN, hole_hi = PAGE_OFFSET + BIOS_END;
	unsigned long in_hole, outside;
	struct wx_report r;

	if (!nx_enabled)
		return kt_skip(t, "NX is not in use: the audit has nothing to say");
	in_hole = pcibios_enabled ? count_wx(hole_lo, hole_hi) : 0;
	outside = count_wx(PAGE_OFFSET, 0xfffff000) + count_wx(0xfffff000, 0xffffffff) - in_hole;
	r = ptdump_check_wx();
	KT_EXPECT(t, r.hole_pages == in_hole, "hole: audit %lu, lookup_address %lu",
		  r.hole_pages, in_hole);
	KT_EXPECT(t, r.wx_pages == outside, "outside the hole: audit %lu, lookup_address %lu",
		  r.wx_pages, outside);
}
