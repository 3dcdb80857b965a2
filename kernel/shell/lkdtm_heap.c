// SPDX-License-Identifier: GPL-2.0-only
/*
 * LKDTM's page use-after-free crash types (Linux: drivers/misc/lkdtm/heap.c,
 * READ_BUDDY_AFTER_FREE and WRITE_BUDDY_AFTER_FREE): a page is taken from
 * the allocator, written, freed, and then used through the pointer that
 * still names it. Booted with debug_pagealloc the freed page is no longer
 * in the direct map (mm/debug_pagealloc.c), so the access faults and the
 * oops says the page is free; the shell's recovery brings the prompt
 * back. Without it the access goes through, as on Linux without
 * DEBUG_PAGEALLOC, and the demo says that the bug went unnoticed.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/lkdtm.h>

#define BUDDY_VALUE	0x12345678u

/* Linux's pr_expected_config(): why a FAIL may be what this boot should show. */
static void went_unnoticed(void)
{
	if (debug_pagealloc_enabled())
		pr_err("lkdtm: Unexpected! This kernel was booted with debug_pagealloc: the freed page should have faulted\n");
	else
		pr_warn("lkdtm: This is probably expected, since this kernel was booted without debug_pagealloc: the use after free went unnoticed\n");
}

/* A page of the allocator holding BUDDY_VALUE, freed: its old address, or NULL. */
static volatile uint32_t *freed_page(void)
{
	unsigned long pa = alloc_page();
	volatile uint32_t *p;

	if (!pa) {
		pr_info("lkdtm: Unable to allocate free page\n");
		return 0;
	}
	p = __va(pa);
	*p = BUDDY_VALUE;
	pr_info("lkdtm: Value in memory before free: %x\n", (unsigned)*p);
	free_page(pa);
	return p;
}

static void lkdtm_READ_BUDDY_AFTER_FREE(void)
{
	volatile uint32_t *p = freed_page();
	uint32_t saw;

	if (!p)
		return;
	pr_info("lkdtm: Attempting to read from freed memory at %08lx\n", (unsigned long)p);
	saw = *p;
	if (saw != BUDDY_VALUE) {
		pr_info("lkdtm: Memory correctly poisoned (%x)\n", (unsigned)saw);
		return;
	}
	pr_err("lkdtm: FAIL: Buddy page was not poisoned\n");
	went_unnoticed();
}

/* One word, not Linux's whole page: without the option the page may be someone's already. */
static void lkdtm_WRITE_BUDDY_AFTER_FREE(void)
{
	volatile uint32_t *p = freed_page();

	if (!p)
		return;
	pr_info("lkdtm: Attempting bad write to the buddy page after free at %08lx\n",
		(unsigned long)p);
	*p = 0x78787878u;
	pr_err("lkdtm: FAIL: wrote to the buddy page after free\n");
	went_unnoticed();
}

CRASHTYPE("READ_BUDDY_AFTER_FREE", lkdtm_READ_BUDDY_AFTER_FREE,
	  "read a page after freeing it: faults under debug_pagealloc");
CRASHTYPE("WRITE_BUDDY_AFTER_FREE", lkdtm_WRITE_BUDDY_AFTER_FREE,
	  "write a page after freeing it: faults under debug_pagealloc");
