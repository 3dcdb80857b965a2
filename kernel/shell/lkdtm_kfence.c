// SPDX-License-Identifier: GPL-2.0-only
/*
 * Crash types for KFENCE (mm/kfence.c). The names are ronx's, after the
 * cases of Linux's mm/kfence/kfence_test.c (out-of-bounds read and
 * write, use-after-free read and write, invalid and double free, a
 * corrupted canary); Linux's LKDTM has none for KFENCE. Each kmallocs
 * until it gets a KFENCE object placed against the guard it needs, so
 * they want a boot with kfence.sample_interval=N (1 samples every
 * kmalloc). Each prints where its object is, for a look from outside
 * (QEMU's `info tlb`), does one bad thing, and returns: KFENCE reports
 * and the kernel goes on.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/slab.h>
#include <ronx/kfence.h>
#include <ronx/lkdtm.h>

#define SIZE		32
#define MAX_TRIES	4096	/* kmallocs before giving up: far above any sane N */

/* A KFENCE object of SIZE bytes against its right (or left) guard, or NULL. */
static char *kfence_object(bool right)
{
	char buf[128];

	if (!kfence_sample_interval()) {
		pr_err("lkdtm: KFENCE is off: boot with kfence.sample_interval=N (N > 0)\n");
		return 0;
	}
	for (int i = 0; i < MAX_TRIES; i++) {
		char *p = kmalloc(SIZE, GFP_KERNEL);

		if (!p)
			break;
		if (is_kfence_address(p) && (((unsigned long)p & ~PAGE_MASK) != 0) == right) {
			pr_info("lkdtm: %s\n", kfence_object_info(p, buf, sizeof(buf)));
			return p;
		}
		kfree(p);
	}
	pr_err("lkdtm: no KFENCE object in %d kmallocs (is the pool full?)\n", MAX_TRIES);
	return 0;
}

static void lkdtm_KFENCE_OOB_READ(void)
{
	char *p = kfence_object(true);

	if (!p)
		return;
	pr_info("lkdtm: Attempting read one byte past the object at %08lx\n",
		(unsigned long)&p[SIZE]);
	pr_info("lkdtm: read 0x%02x: the kernel went on\n", ((volatile char *)p)[SIZE] & 0xff);
	kfree(p);
}

static void lkdtm_KFENCE_OOB_WRITE(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	pr_info("lkdtm: Attempting write one byte before the object at %08lx\n",
		(unsigned long)(p - 1));
	((volatile char *)p)[-1] = 0x2a;
	pr_info("lkdtm: wrote: the kernel went on\n");
	kfree(p);
}

static void lkdtm_KFENCE_UAF_READ(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	kfree(p);
	pr_info("lkdtm: Attempting read from freed memory at %08lx\n", (unsigned long)p);
	pr_info("lkdtm: read 0x%02x: the kernel went on\n", ((volatile char *)p)[0] & 0xff);
}

static void lkdtm_KFENCE_UAF_WRITE(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	kfree(p);
	pr_info("lkdtm: Attempting write to freed memory at %08lx\n", (unsigned long)p);
	((volatile char *)p)[0] = 0x2a;
	pr_info("lkdtm: wrote: the kernel went on\n");
}

static void lkdtm_KFENCE_INVALID_FREE(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	pr_info("lkdtm: Attempting kfree of %08lx, one byte into the object\n",
		(unsigned long)(p + 1));
	kfree(p + 1);
	kfree(p);
}

static void lkdtm_KFENCE_DOUBLE_FREE(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	kfree(p);
	pr_info("lkdtm: Attempting second kfree of %08lx\n", (unsigned long)p);
	kfree(p);
}

static void lkdtm_KFENCE_CORRUPTION(void)
{
	char *p = kfence_object(false);

	if (!p)
		return;
	pr_info("lkdtm: Attempting write one byte past the object, into its page's canary, at %08lx\n",
		(unsigned long)&p[SIZE]);
	((volatile char *)p)[SIZE] = 0x2a;
	kfree(p);
}

CRASHTYPE("KFENCE_OOB_READ", lkdtm_KFENCE_OOB_READ,
	  "read 1 byte past a KFENCE object: its right guard faults, KFENCE reports (ronx's name)");
CRASHTYPE("KFENCE_OOB_WRITE", lkdtm_KFENCE_OOB_WRITE,
	  "write 1 byte before a KFENCE object: its left guard faults, KFENCE reports (ronx's name)");
CRASHTYPE("KFENCE_UAF_READ", lkdtm_KFENCE_UAF_READ,
	  "read a KFENCE object after kfree: its unmapped page faults (ronx's name)");
CRASHTYPE("KFENCE_UAF_WRITE", lkdtm_KFENCE_UAF_WRITE,
	  "write a KFENCE object after kfree: its unmapped page faults (ronx's name)");
CRASHTYPE("KFENCE_INVALID_FREE", lkdtm_KFENCE_INVALID_FREE,
	  "kfree a pointer into a KFENCE object, not its start: invalid free (ronx's name)");
CRASHTYPE("KFENCE_DOUBLE_FREE", lkdtm_KFENCE_DOUBLE_FREE,
	  "kfree a KFENCE object twice: invalid free (ronx's name)");
CRASHTYPE("KFENCE_CORRUPTION", lkdtm_KFENCE_CORRUPTION,
	  "write the canary beside a KFENCE object: kfree reports memory corruption (ronx's name)");
