// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether page tables may use NX (Linux: arch/x86/mm/setup_nx.c).
 * boot/entry.asm turned EFER.NXE on if the CPU has NX; "noexec=off"
 * keeps the bit out of every pte all the same.
 */
#include <stdbool.h>
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/mm.h>

extern unsigned char nx_supported;	/* set by boot/entry.asm */
static bool disable_nx;

static int __init noexec_setup(const char *val)
{
	bool on;

	if (parse_on_off(val, &on))
		return -EINVAL;
	disable_nx = !on;
	return 0;
}
BOOT_PARAM("noexec", noexec_setup, "on|off");

void __init x86_configure_nx(void)
{
	nx_enabled = nx_supported && !disable_nx;
	if (nx_enabled)
		__supported_pte_mask |= _PAGE_NX;
	else
		__supported_pte_mask &= ~_PAGE_NX;
}

void __init x86_report_nx(void)
{
	if (!nx_supported)
		pr_info("NX (Execute Disable) protection: not present\n");
	else if (disable_nx)
		pr_info("NX (Execute Disable) protection: disabled by kernel command line option\n");
	else
		pr_info("NX (Execute Disable) protection: active\n");
}
