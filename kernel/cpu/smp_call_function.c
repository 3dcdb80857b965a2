// SPDX-License-Identifier: GPL-2.0-only
/*
 * smp_call_function_many() (Linux: kernel/smp.c): what a TLB shootdown
 * is built on, in a file of its own (lab tlb-shootdown). The call and
 * its acknowledgements are kernel/cpu/smp.c's: call_function_begin(),
 * call_function_send(), call_function_pending(), call_function_end().
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/smp.h>

/*
 * Runs func(info) on every online CPU in mask except this one. With wait,
 * returns once each has run it and acknowledged; without, once each has
 * been sent the IPI (info must then outlive the call). Interrupts may be
 * on or off: the wait is a cpu_relax() loop, which serves calls.
 */
void smp_call_function_many(cpumask_t mask, smp_call_func_t func, void *info, bool wait)
{
	mask &= cpu_online_mask & ~(1UL << smp_processor_id());
	if (!mask)
		return;
	call_function_begin();
	call_function_send(mask, func, info);
	if (wait)
		while (call_function_pending())
			cpu_relax();
	call_function_end();
}
