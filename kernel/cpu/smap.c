// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMEP and SMAP: the CPU's own guard between the kernel and user pages
 * (Linux: setup_smep(), setup_smap() in arch/x86/kernel/cpu/common.c).
 * CPUID leaf 7 says whether the CPU has them (EBX bit 7 SMEP, bit 20
 * SMAP); CR4 bits 20 and 21 turn them on. "nosmep" and "nosmap" (Linux's
 * names) leave them off, so the LKDTM demos can show what they stop.
 *
 * Why both: US=0 keeps user code out of the kernel, but nothing in the
 * page tables keeps the kernel out of user pages. Without SMEP a kernel
 * bug that jumps to a user address runs the attacker's code with ring-0
 * rights; without SMAP one that follows a user pointer by mistake reads
 * or writes what the attacker put there.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/x86.h>
#include <ronx/smap.h>

bool smep_enabled, smep_supported, smap_supported;
uint8_t smap_enabled;
static bool nosmep, nosmap;

static int __init parse_nosmep(const char *val)
{
	nosmep = true;
	return val ? -EINVAL : 0;
}
BOOT_PARAM("nosmep", parse_nosmep, "no value");

static int __init parse_nosmap(const char *val)
{
	nosmap = true;
	return val ? -EINVAL : 0;
}
BOOT_PARAM("nosmap", parse_nosmap, "no value");

static const char *state(bool supported, bool off)
{
	if (!supported)
		return "not supported by this CPU";
	return off ? "off (nosmep/nosmap on the command line)" : "on";
}

void cpu_setup_smep_smap(void)
{
	uint32_t cr4 = read_cr4();

	if (smep_enabled)
		cr4 |= X86_CR4_SMEP;
	if (smap_enabled)
		cr4 |= X86_CR4_SMAP;
	write_cr4(cr4);
}

void __init setup_smep_smap(void)
{
	uint32_t ebx, ecx, edx;

	cpuid_leaf7(&ebx, &ecx, &edx);
	smep_supported = ebx & (1u << 7);
	smap_supported = ebx & (1u << 20);
	smep_enabled = smep_supported && !nosmep;
	smap_enabled = smap_supported && !nosmap;
	cpu_setup_smep_smap();
	pr_info("ronx: SMEP (the kernel cannot execute user pages): %s\n",
		state(smep_supported, nosmep));
	pr_info("ronx: SMAP (the kernel cannot touch user pages outside copy_*_user): %s\n",
		state(smap_supported, nosmap));
}
