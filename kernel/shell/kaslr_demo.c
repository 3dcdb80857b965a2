// SPDX-License-Identifier: GPL-2.0-only
/*
 * What KASLR is for (crash EXEC_LINKED): an attacker who learnt where a
 * kernel function is, from System.map (kernel.elf's link address) or from
 * a leak in an earlier boot, calls that address. Without KASLR it is the
 * function, every boot. With `kaslr` the image has moved; the address
 * names whatever the direct map holds there now (ordinary RAM: RW+NX),
 * so the call faults on NX instead of running kernel code.
 */
#include <ronx/printk.h>
#include <ronx/lkdtm.h>
#include <ronx/kaslr.h>
#include <ronx/mm.h>

static noinline void kaslr_demo_target(void)
{
	pr_info("lkdtm: the function at its System.map address ran: KASLR is off\n");
}

static void lkdtm_EXEC_LINKED(void)
{
	unsigned long linked = (unsigned long)kaslr_demo_target - kaslr_offset();
	void (*fn)(void) = (void (*)(void))linked;

	if (!nx_enabled) {
		/* no NX: the call would run whatever bytes lie there now */
		pr_info("lkdtm: EXEC_LINKED needs NX (noexec=on on a CPU with it)\n");
		return;
	}
	pr_info("lkdtm: calling kaslr_demo_target at its link address 0x%08lx (running at 0x%08lx)\n",
		linked, (unsigned long)kaslr_demo_target);
	fn();
}
CRASHTYPE("EXEC_LINKED", lkdtm_EXEC_LINKED,
	  "call a function at its System.map address: runs without KASLR, NX fault with kaslr");
