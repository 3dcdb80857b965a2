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
 * (on_each_cpu(..., wait): kernel/smp.c). Linux 2.6.38's CPA did the same
 * (cpa_flush_range() called on_each_cpu()).
 *
 * A process's mappings (munmap, mprotect, exit) are flushed the same way
 * on the CPUs that have its page tables loaded (flush_tlb_mm_range()).
 *
 * The debug option "cpa_shootdown=off" flushes only the calling CPU, to
 * show what the shootdown prevents (`crash SMP_STALE_WRITE`).
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/cmdline.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/smp.h>
#include <ronx/mm_types.h>
#include <ronx/tlbflush.h>

bool cpa_shootdown = true;

static int __init parse_cpa_shootdown(const char *val)
{
	return parse_on_off(val, &cpa_shootdown);
}
BOOT_PARAM("cpa_shootdown", parse_cpa_shootdown, "on|off (off: debug only, leaves stale TLB entries)");

struct flush_tlb_info {
	unsigned long start, end;
};

/*
 * One CPU's part, run on every CPU: the range's pages one by one up to
 * TLB_FLUSH_CEILING, else the whole TLB (global entries too).
 */
static void do_kernel_range_flush(void *info)
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
	uint64_t t0 = rdtsc();

	if (num_online_cpus() > 1 && cpa_shootdown)
		this_cpu()->tlb.shootdowns++;
	if (cpa_shootdown)
		on_each_cpu(do_kernel_range_flush, &info, true);
	else
		do_kernel_range_flush(&info);
	this_cpu()->tlb.flush_cycles += rdtsc() - t0;
}

void flush_tlb_all(void)
{
	flush_tlb_kernel_range(0, 0xfffff000UL);
}

/*
 * A process's mapping of [start, end) changed: every CPU whose CR3 holds
 * its page tables flushes it (Linux: flush_tlb_mm_range(), to
 * mm_cpumask()). Another CPU that ran it has switched away since, and
 * that CR3 write flushed its user pages, which are never global. The
 * fence orders the caller's pte writes before the read of the mask
 * (switch_mm() sets a CPU's bit before it loads CR3).
 */
void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct flush_tlb_info info = { start & PAGE_MASK, PFN_ALIGN(end) };
	cpumask_t mask, me = 1UL << smp_processor_id();
	unsigned long flags;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	mask = mm->cpu_mask;
	local_irq_save(flags);
	if (mask & me)
		do_kernel_range_flush(&info);
	local_irq_restore(flags);
	if (!(mask & ~me) || !cpa_shootdown)
		return;
	this_cpu()->tlb.shootdowns++;
	smp_call_function_many(mask & ~me, do_kernel_range_flush, &info, true);
}
