// SPDX-License-Identifier: GPL-2.0-only
/*
 * LKDTM's slab use-after-free crash types (Linux: drivers/misc/lkdtm/heap.c,
 * READ_AFTER_FREE and WRITE_AFTER_FREE): a kmalloc object is freed and then
 * used through the pointer that still names it. kfree() fills a freed
 * object with POISON_FREE (0x6b), or zeroes it under init_on_free=1
 * (mm/slab.c), so the read sees the poison instead of the old value; the
 * next kmalloc of the object finds the write in the poison and reports it
 * as SLUB does ("Poison overwritten"). Neither faults: the shell goes on.
 * The middle of the object is used, as Linux's does, clear of the word
 * that links a free object to the next.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/slab.h>
#include <ronx/lkdtm.h>

#define LEN	1024
#define OFFSET	(LEN / sizeof(int) / 2)

/* Where the object is, for a look from outside (QEMU's xp). */
static void show_object(int *base)
{
	pr_info("lkdtm: Allocated memory %08lx-%08lx (phys %08lx)\n", (unsigned long)base,
		(unsigned long)&base[OFFSET * 2], __pa(base));
}

static void lkdtm_READ_AFTER_FREE(void)
{
	int *base = kmalloc(LEN, GFP_KERNEL), *val = kmalloc(LEN, GFP_KERNEL), saw;

	if (!base || !val) {
		pr_info("lkdtm: Unable to allocate base memory.\n");
		kfree(base);
		kfree(val);
		return;
	}
	show_object(base);
	*val = 0x12345678;
	base[OFFSET] = *val;
	pr_info("lkdtm: Value in memory before free: %x\n", base[OFFSET]);
	kfree(base);
	pr_info("lkdtm: Attempting bad read from freed memory\n");
	saw = ((volatile int *)base)[OFFSET];
	if (saw != *val)
		pr_info("lkdtm: Memory correctly poisoned (%x)\n", saw);
	else
		pr_err("lkdtm: FAIL: Memory was not poisoned!\n");
	kfree(val);
}

static void lkdtm_WRITE_AFTER_FREE(void)
{
	int *base = kmalloc(LEN, GFP_KERNEL), *again;
	unsigned long seen = slab_stats.poison_overwritten;

	if (!base)
		return;
	show_object(base);
	pr_info("lkdtm: Attempting bad write to freed memory at %08lx\n",
		(unsigned long)&base[OFFSET]);
	kfree(base);
	((volatile int *)base)[OFFSET] = 0x0abcdef0;
	/* Attempt to notice the overwrite: kmalloc checks the poison. */
	again = kmalloc(LEN, GFP_KERNEL);
	kfree(again);
	if (again != base)
		pr_info("lkdtm: Hmm, didn't get the same memory range.\n");
	if (slab_stats.poison_overwritten != seen)
		pr_info("lkdtm: Write after free detected (the poison was overwritten)\n");
	else if (want_init_on_free())
		pr_warn("lkdtm: This is probably expected, since this kernel was booted with init_on_free=1: a freed object is zeroed, and nothing checks the zeroes\n");
	else
		pr_err("lkdtm: FAIL: the write after free went unnoticed\n");
}

CRASHTYPE("READ_AFTER_FREE", lkdtm_READ_AFTER_FREE,
	  "read a kmalloc object after kfree: sees the poison (0x6b, or 0 with init_on_free=1)");
CRASHTYPE("WRITE_AFTER_FREE", lkdtm_WRITE_AFTER_FREE,
	  "write a kmalloc object after kfree: the next kmalloc reports the poison overwritten");
