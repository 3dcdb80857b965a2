// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why CR0.WP exists: the kernel writing into a copy-on-write page.
 *
 * After fork, a private page is read-only in parent and child, sharing
 * one frame. When the child asks the kernel to write into it (read(),
 * prctl(PR_GET_NAME), any copy_to_user()), the write is ring 0's. With
 * CR0.WP set (ronx always sets it) ring 0 faults on a read-only page too,
 * so the fault handler copies the page for the child first
 * (mm/memory.c). With it clear, ring 0 ignores RW: the kernel's write
 * lands in the shared frame, and the parent sees bytes it never wrote:
 * Linux's pre-486 problem, and the family Dirty COW belongs to.
 *
 *   cr0_wp=off               boot option, debug only: clears CR0.WP on
 *                            every CPU (the kernel's own read-only pages
 *                            stop protecting against it too)
 *   crash COW_KERNEL_WRITE   runs `cowtest kernel` and says what happened
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/x86.h>
#include <ronx/lkdtm.h>
#include <ronx/process.h>

static int __init parse_cr0_wp(const char *val)
{
	bool on = true;
	int ret = parse_on_off(val, &on);

	if (ret || on)
		return ret;
	/* before smp_init(): the other CPUs copy this CPU's CR0 */
	write_cr0(read_cr0() & ~X86_CR0_WP);
	pr_warn("cr0_wp=off: CR0.WP is clear: the kernel writes through read-only pages, copy-on-write ones too (debug only)\n");
	return 0;
}
BOOT_PARAM("cr0_wp", parse_cr0_wp, "on|off (off: debug only, the kernel writes through read-only pages)");

static void lkdtm_COW_KERNEL_WRITE(void)
{
	char *argv[] = { "cowtest", "kernel" };
	struct task *t = spawn_process("cowtest", 2, argv, false);
	int status;

	if (!t)
		return;
	status = wait_task(t);
	if (status == 0)
		pr_info("lkdtm: COW_KERNEL_WRITE: the kernel's write faulted (CR0.WP set) and the fault copied the page: the parent kept its bytes\n");
	else
		pr_err("lkdtm: FAIL: the kernel's copy_to_user() wrote into the frame the parent still maps (CR0.WP is %s)\n",
		       read_cr0() & X86_CR0_WP ? "set" : "clear: cr0_wp=off");
}
CRASHTYPE("COW_KERNEL_WRITE", lkdtm_COW_KERNEL_WRITE,
	  "the kernel writes into a copy-on-write page for a child: CR0.WP makes it copy");
