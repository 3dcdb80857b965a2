// SPDX-License-Identifier: GPL-2.0-only
/*
 * TLB shootdown for kernel mappings (Linux: arch/x86/mm/tlb.c,
 * flush_tlb_kernel_range()).
 *
 * Each CPU caches translations in its own TLB, and invlpg or a CR4.PGE
 * toggle flushes only the CPU that runs it. When the kernel's page tables
 * lose a permission or a mapping (set_memory_ro/nx, an unmap), every
 * other CPU may still hold the old entry and use it: a write to a page
 * that is now read-only, a jump into a page that is now NX. So the CPU
 * that changed the tables asks every online CPU, itself included, to
 * flush the range, and waits until each has acknowledged
 * (on_each_cpu(..., wait): kernel/cpu/smp.c). Linux 2.6.38's CPA did the same
 * (cpa_flush_range() called on_each_cpu()).
 *
 * The rest of ronx's flushing (a process's range, the debug option
 * cpa_shootdown=off) is in mm/tlb_mm.c; this file is lab tlb-shootdown's.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/smp.h>
#include <ronx/spinlock.h>	/* local_irq_save(): a CPU's part runs with interrupts off */
#include <ronx/tlbflush.h>

/*
 * One CPU's part, run on every CPU with interrupts off: the range's pages
 * one by one up to TLB_FLUSH_CEILING, else the whole TLB, global entries
 * too. Counted for cpastat.
 */
void do_kernel_range_flush(void *info)
{
	const struct flush_tlb_info *f = info;
	struct tlb_stats *s = &this_cpu()->tlb;

	if ((f->end - f->start) >> PAGE_SHIFT > TLB_FLUSH_CEILING) {
		__flush_tlb_all();
		s->flush_all++;
		return;
	}
	for (unsigned long addr = f->start; addr < f->end; addr += PAGE_SIZE) {
		__flush_tlb_one(addr);
		s->flush_one++;
	}
}

/* When this returns, no online CPU holds a translation for [start, end). */
void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	struct flush_tlb_info info = { start & PAGE_MASK, PFN_ALIGN(end) };
	unsigned long flags;

	if (!cpa_shootdown) {
		local_irq_save(flags);	/* this CPU's part runs with interrupts off, as on_each_cpu's */
		do_kernel_range_flush(&info);
		local_irq_restore(flags);
		return;
	}
	if (num_online_cpus() > 1)
		this_cpu()->tlb.shootdowns++;
	on_each_cpu(do_kernel_range_flush, &info, true);
}
