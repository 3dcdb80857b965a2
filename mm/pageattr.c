// SPDX-License-Identifier: GPL-2.0-only
/*
 * Change page attributes (Linux: arch/x86/mm/pageattr.c, "CPA").
 *
 * A request names a virtual range and bits to set and clear. Each page's
 * new attributes go through static_protections(), which removes what the
 * policy forbids whatever the caller asked: kernel text never NX, rodata
 * never RW once sealed, the PCI BIOS hole never NX while the BIOS is used.
 * Then, further than 2.6.38 went (Linux refuses these since 6.x), a
 * request that would leave a page writable and executable is refused
 * whole, with a warning, unless it is the declared RW+X BIOS hole or a
 * caller asked for a W+X window on purpose.
 *
 * A 2 MiB page is split into 4 KiB ptes only if the request covers part
 * of it or the policy treats its pages differently, and put back together
 * when its pages agree again. TLB entries are flushed one by one up to a
 * ceiling, then all at once.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/shell.h>

#define CPA_FLUSH_CEILING	32	/* more pages than this: flush everything */

struct cpa_stats cpa_stats;
bool kernel_set_to_readonly;
bool pcibios_enabled;

struct cpa_request {
	unsigned long start;
	int numpages;
	pteval_t set, clear;
	bool allow_wx;
	int changed;
};

static bool within(unsigned long a, const void *start, const void *end)
{
	return a >= (unsigned long)start && a < (unsigned long)end;
}

/*
 * The PCI BIOS hole as the policy in force declares it: by default the
 * seed's 640K-1M, RW+X; pci=bios_tight declares only the BIOS code pages,
 * RO+X (kernel/pcbios.c). Only a writable hole is exempt from W^X.
 */
static unsigned long bios_hole_start = PAGE_OFFSET + BIOS_BEGIN;
static unsigned long bios_hole_end = PAGE_OFFSET + BIOS_END;
static bool bios_hole_writable = true;

void declare_bios_hole(unsigned long start, unsigned long end, bool writable)
{
	bios_hole_start = start;
	bios_hole_end = end;
	bios_hole_writable = writable;
}

bool in_bios_hole(unsigned long va)
{
	return va >= bios_hole_start && va < bios_hole_end;
}

/* May this page be writable and executable? Only in a declared RW+X hole. */
static bool in_wx_bios_hole(unsigned long va)
{
	return pcibios_enabled && bios_hole_writable && in_bios_hole(va);
}

/* What the policy forbids for the page at va, whatever was asked. */
static pteval_t static_protections(pteval_t prot, unsigned long va)
{
	pteval_t forbidden = 0;

	/* PCI BIOS calls execute in 640K-1M (seed 001) */
	if (pcibios_enabled && in_bios_hole(va))
		forbidden |= _PAGE_NX;
	/* the kernel text needs to be executable for obvious reasons */
	if (within(va, _text, _etext))
		forbidden |= _PAGE_NX;
	/* .rodata and ro_after_init stay read-only once sealed */
	if (kernel_set_to_readonly && within(va, __start_rodata, __end_ro_after_init))
		forbidden |= _PAGE_RW;
	return prot & ~forbidden;
}

static pteval_t new_prot(const struct cpa_request *cpa, pteval_t old, unsigned long va)
{
	pteval_t prot = (old & ~cpa->clear) | cpa->set;

	return static_protections(prot, va) & (__supported_pte_mask | ~_PAGE_NX);
}

static bool is_wx(pteval_t prot)
{
	return (prot & _PAGE_RW) && !(prot & _PAGE_NX) && nx_enabled;
}

/* Pass 1: every page must be mapped and must not become W+X. */
static int cpa_check(struct cpa_request *cpa)
{
	for (int i = 0; i < cpa->numpages; i++) {
		unsigned long va = cpa->start + i * PAGE_SIZE;
		enum pg_level level;
		pteval_t *pte = lookup_address(va, &level), prot;

		if (!pte) {
			pr_warn("CPA: %08lx is not mapped; nothing changed\n", va);
			return -EFAULT;
		}
		prot = new_prot(cpa, *pte, va);
		if (is_wx(prot) && !is_wx(*pte) && !cpa->allow_wx && !in_wx_bios_hole(va)) {
			pr_warn("CPA refused W^X violation: %08lx-%08lx would be writable and executable\n",
				cpa->start, cpa->start + cpa->numpages * PAGE_SIZE);
			cpa_stats.refused++;
			return -EPERM;
		}
	}
	return 0;
}

/* Can the 2 MiB page at va change as a whole? Only if all of it is in the request
 * and the policy gives each of its 4 KiB pages the same result. */
static bool large_page_stays(const struct cpa_request *cpa, unsigned long va, pteval_t old)
{
	unsigned long base = va & PMD_MASK, end = cpa->start + cpa->numpages * PAGE_SIZE;
	pteval_t first = new_prot(cpa, old, base);

	if (base < cpa->start || base + PMD_SIZE > end)
		return false;
	for (unsigned long p = base; p < base + PMD_SIZE; p += PAGE_SIZE)
		if (new_prot(cpa, old, p) != first)
			return false;
	return true;
}

/* Pass 2: apply, splitting large pages where needed; returns pages done. */
static int cpa_apply(struct cpa_request *cpa, int i)
{
	unsigned long va = cpa->start + i * PAGE_SIZE;
	enum pg_level level;
	pteval_t *pte = lookup_address(va, &level), prot;

	if (level == PG_LEVEL_2M) {
		if (large_page_stays(cpa, va, *pte)) {
			prot = new_prot(cpa, *pte, va);
			if (prot != *pte) {
				*pte = prot;
				cpa->changed += PTRS_PER_PTE;
			}
			return PTRS_PER_PTE - pte_index(va);
		}
		if (split_large_page(va))
			return -ENOMEM;
		cpa_stats.splits++;
		pte = lookup_address(va, &level);
	}
	prot = new_prot(cpa, *pte, va);
	if (prot != *pte) {
		*pte = prot;
		cpa->changed++;
		if (cpa->changed <= CPA_FLUSH_CEILING) {
			__flush_tlb_one(va);
			cpa_stats.invlpg++;
		}
	}
	return 1;
}

/*
 * Give back page tables the request made redundant: a split 2 MiB page
 * whose ptes are uniform again becomes one large page. Only the direct
 * map beyond the kernel image: its first region always needs ptes.
 */
static void collapse_touched(const struct cpa_request *cpa)
{
	unsigned long end = cpa->start + cpa->numpages * PAGE_SIZE;

	for (unsigned long va = cpa->start & PMD_MASK; va < end; va += PMD_SIZE)
		if (va >= PFN_ALIGN(_end) && va < PAGE_OFFSET + (max_low_pfn << PAGE_SHIFT) &&
		    collapse_large_page(va))
			cpa_stats.collapses++;
}

static int change_page_attr_set_clr(unsigned long addr, int numpages, pteval_t set,
				    pteval_t clear, bool allow_wx)
{
	struct cpa_request cpa = { addr & PAGE_MASK, numpages, set, clear, allow_wx, 0 };
	int ret;

	cpa_stats.calls++;
	if (numpages <= 0)
		return 0;
	ret = cpa_check(&cpa);
	if (ret)
		return ret;
	for (int i = 0; i < numpages; ) {
		int done = cpa_apply(&cpa, i);
		if (done < 0)
			return done;
		i += done;
	}
	if (cpa.changed > CPA_FLUSH_CEILING) {
		__flush_tlb_all();
		cpa_stats.full_flushes++;
	}
	cpa_stats.pages_changed += cpa.changed;
	collapse_touched(&cpa);
	return 0;
}

int set_memory_ro(unsigned long addr, int numpages)
{
	return change_page_attr_set_clr(addr, numpages, 0, _PAGE_RW, false);
}

int set_memory_rw(unsigned long addr, int numpages)
{
	return change_page_attr_set_clr(addr, numpages, _PAGE_RW, 0, false);
}

int set_memory_rw_allow_wx(unsigned long addr, int numpages)
{
	return change_page_attr_set_clr(addr, numpages, _PAGE_RW, 0, true);
}

/* W+X on purpose: wxplant= (mm/wxplant.c) gives the audit something to find. */
int set_memory_x_allow_wx(unsigned long addr, int numpages)
{
	return change_page_attr_set_clr(addr, numpages, 0, _PAGE_NX, true);
}

int set_memory_nx(unsigned long addr, int numpages)
{
	if (!nx_enabled)
		return 0;
	return change_page_attr_set_clr(addr, numpages, _PAGE_NX, 0, false);
}

int set_memory_x(unsigned long addr, int numpages)
{
	return change_page_attr_set_clr(addr, numpages, 0, _PAGE_NX, false);
}

static int cmd_cpastat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cprintf("set_memory calls:   %lu\n", cpa_stats.calls);
	cprintf("pages changed:      %lu\n", cpa_stats.pages_changed);
	cprintf("large pages split:  %lu\n", cpa_stats.splits);
	cprintf("large pages merged: %lu\n", cpa_stats.collapses);
	cprintf("invlpg flushes:     %lu\n", cpa_stats.invlpg);
	cprintf("full TLB flushes:   %lu\n", cpa_stats.full_flushes);
	cprintf("W^X refusals:       %lu\n", cpa_stats.refused);
	return 0;
}
SHELL_COMMAND("cpastat", cmd_cpastat, "cpastat",
	      "what change_page_attr has done: splits, flushes, refusals");
