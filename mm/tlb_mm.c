// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rest of TLB flushing (mm/tlb.c has the kernel's range): a whole
 * flush on every CPU, a process's range on the CPUs that have its page
 * tables loaded, and the debug option cpa_shootdown=off, which makes
 * every flush stay on the CPU that asks for it, to show what the
 * shootdown prevents (`crash SMP_STALE_WRITE`).
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
