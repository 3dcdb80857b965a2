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
 * when its pages agree again. Then cpa_flush() makes the change hold on
 * every CPU: each flushes the range, one page at a time up to a ceiling,
 * else all at once, and the caller waits for all of them (mm/tlb.c).
 * Without that a CPU that had the page in its TLB would go on using the
 * old permissions: the bug `crash SMP_STALE_WRITE` shows.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/tlbflush.h>
#include <ronx/smp.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/shell.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/kfence.h>

#define CPA_FLUSH_CEILING	TLB_FLUSH_CEILING	/* more pages than this: flush everything */

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
 * RO+X (kernel/drivers/pcbios.c). Only a writable hole is exempt from W^X.
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

/*
 * The entry that maps va; under debug_pagealloc also the absent pte of a
 * free page (mm/debug_pagealloc.c): a range of the direct map may hold
 * free pages (the freed init memory inside mark_nxdata_nx()'s), and their
 * attributes change with the rest, to hold when they are mapped back.
 */
static pteval_t *cpa_lookup(unsigned long va, enum pg_level *level)
{
	pteval_t *pte = lookup_address(va, level);

	if (!pte && (pte = debug_pagealloc_lookup(va)) != 0)
		*level = PG_LEVEL_4K;
	return pte;
}

/*
 * prot's attributes with the present bit as the pte has it now: another
 * CPU's debug_pagealloc may flip that bit meanwhile (an allocation or a
 * free of the page), and one cmpxchg keeps either change from being lost.
 */
static void cpa_set_pte(pteval_t *pte, pteval_t prot)
{
	pteval_t old = *(volatile pteval_t *)pte, seen;

	for (;;) {
		pteval_t new = (prot & ~(pteval_t)_PAGE_PRESENT) | (old & _PAGE_PRESENT);

		seen = __sync_val_compare_and_swap(pte, old, new);
		if (seen == old)
			return;
		old = seen;
	}
}

/* Pass 1: every page must be mapped and must not become W+X. */
static int cpa_check(struct cpa_request *cpa)
{
	for (int i = 0; i < cpa->numpages; i++) {
		unsigned long va = cpa->start + i * PAGE_SIZE;
		enum pg_level level;
		pteval_t *pte = cpa_lookup(va, &level), prot;

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
	pteval_t *pte = cpa_lookup(va, &level), prot;

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
		cpa_set_pte(pte, prot);
		cpa->changed++;
	}
	return 1;
}

/*
 * The change holds once no CPU has the old entries in its TLB: flush the
 * request's range on every online CPU and wait for them (Linux:
 * cpa_flush()).
 */
static void cpa_flush(const struct cpa_request *cpa)
{
	flush_tlb_kernel_range(cpa->start, cpa->start + cpa->numpages * PAGE_SIZE);
}

/* cpastat's counters (this CPU's share of the flush) and cpabench's cycles. */
static void count_flush(const struct cpa_request *cpa, uint64_t cycles)
{
	if (cpa->numpages > CPA_FLUSH_CEILING)
		cpa_stats.full_flushes++;
	else
		cpa_stats.invlpg += cpa->numpages;
	this_cpu()->tlb.flush_cycles += cycles;
}

/*
 * Give back page tables the request made redundant: a split 2 MiB page
 * whose ptes are uniform again becomes one large page. Only the direct
 * map outside the first 2 MiB and the kernel image's regions, which
 * always need ptes (mm/init.c; the image sits anywhere under KASLR).
 * Never under debug_pagealloc: each page of the direct map must keep a
 * pte of its own to leave the map when it is freed (mm/debug_pagealloc.c).
 * Nor KFENCE's pool, whose page table mm/kfence.c keeps pointers into.
 */
static bool collapsible_region(unsigned long va)
{
	return !debug_pagealloc_enabled() && !is_kfence_address((void *)va) &&
	       va >= PAGE_OFFSET + PMD_SIZE && va < PAGE_OFFSET + (max_low_pfn << PAGE_SHIFT) &&
	       (va + PMD_SIZE <= (unsigned long)_text || va >= PFN_ALIGN(_end));
}

static void collapse_touched(const struct cpa_request *cpa)
{
	unsigned long end = cpa->start + cpa->numpages * PAGE_SIZE;

	for (unsigned long va = cpa->start & PMD_MASK; va < end; va += PMD_SIZE)
		if (collapsible_region(va) && collapse_large_page(va))
			cpa_stats.collapses++;
}

static int __change_page_attr_set_clr(struct cpa_request *cpa)
{
	int ret = cpa_check(cpa);

	if (ret)
		return ret;
	for (int i = 0; i < cpa->numpages; ) {
		int done = cpa_apply(cpa, i);
		if (done < 0) {
			ret = done;	/* what changed before the failure is flushed too */
			break;
		}
		i += done;
	}
	if (cpa->changed) {
		uint64_t t0 = rdtsc();

		cpa_flush(cpa);
		count_flush(cpa, rdtsc() - t0);
	}
	cpa_stats.pages_changed += cpa->changed;
	if (!ret)
		collapse_touched(cpa);
	return ret;
}

/* One request at a time: pgd_lock covers the change and its shootdown. */
static int change_page_attr_set_clr(unsigned long addr, int numpages, pteval_t set,
				    pteval_t clear, bool allow_wx)
{
	struct cpa_request cpa = { addr & PAGE_MASK, numpages, set, clear, allow_wx, 0 };
	unsigned long flags;
	int ret;

	if (numpages <= 0) {
		cpa_stats.calls++;
		return 0;
	}
	spin_lock_irqsave(&pgd_lock, flags);
	cpa_stats.calls++;
	ret = __change_page_attr_set_clr(&cpa);
	spin_unlock_irqrestore(&pgd_lock, flags);
	return ret;
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

/* Per CPU: what it asked of the others, what it did for them (mm/tlb.c, kernel/cpu/smp.c). */
static void print_shootdown_stats(void)
{
	int cpu;

	cprintf("TLB shootdowns:     %s, %d CPU%s online\n",
		cpa_shootdown ? "on" : "OFF (cpa_shootdown=off: other CPUs keep stale entries)",
		num_online_cpus(), num_online_cpus() == 1 ? "" : "s");
	cprintf("CPU  shootdowns  IPIs sent  calls run  (while spinning)     invlpg  full flushes\n");
	for_each_online_cpu(cpu) {
		const struct tlb_stats *t = &cpus[cpu].tlb;

		cprintf("%3d  %10lu  %9lu  %9lu  %16lu  %9lu  %12lu\n", cpu, t->shootdowns,
			t->ipis_sent, t->ipis_received, t->served_spinning, t->flush_one,
			t->flush_all);
	}
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
	print_shootdown_stats();
	return 0;
}
SHELL_COMMAND("cpastat", cmd_cpastat, "cpastat",
	      "what change_page_attr has done: splits, flushes, refusals; shootdowns per CPU");
