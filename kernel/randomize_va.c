// SPDX-License-Identifier: GPL-2.0-only
/*
 * ASLR of processes on or off (Linux: randomize_va_space, and the
 * norandmaps boot option that sets it to 0). On by default, as in Linux;
 * norandmaps gives every process the fixed layout of memlayout.h.
 */
#include <ronx/compiler.h>
#include <ronx/cmdline.h>
#include <ronx/errno.h>
#include <ronx/mmap_layout.h>
#include <ronx/mm_types.h>
#include <ronx/random.h>

int randomize_va_space = 2;

static int __init parse_norandmaps(const char *val)
{
	if (val)
		return -EINVAL;
	randomize_va_space = 0;
	return 0;
}
BOOT_PARAM("norandmaps", parse_norandmaps, "no value");

void arch_pick_mmap_layout(struct mm_struct *mm)
{
	struct mmap_layout l;

	pick_mmap_layout(&l, randomize_va_space, arch_get_random_u32(), arch_get_random_u32());
	mm->stack_top = l.stack_top;
	mm->mmap_base = l.mmap_base;
}
