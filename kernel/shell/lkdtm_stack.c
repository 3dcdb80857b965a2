// SPDX-License-Identifier: GPL-2.0-only
/*
 * LKDTM's stack crash types (Linux: drivers/misc/lkdtm/bugs.c), run by the
 * shell on its own kernel stack, which has a guard page below and above
 * it (mm/vmap_stack.c). Each must end in Linux's "BUG: stack guard page
 * was hit" line and an oops (kernel/cpu/doublefault.c); the shell's recovery
 * brings the prompt back. CORRUPT_STACK is the exception: the stack
 * protector's panic stops the machine, as Linux's does.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/sched.h>
#include <ronx/vmap_stack.h>
#include <ronx/lkdtm.h>
#include <ronx/stackprotector.h>

#define FRAME_BYTES	1024

/* 1K of stack per call, written so that the compiler cannot drop it. */
static noinline int recursive_loop(int remaining)
{
	volatile char buf[FRAME_BYTES];

	memset((char *)buf, remaining & 0xff, sizeof(buf));
	if (!remaining)
		return buf[remaining];
	return recursive_loop(remaining - 1) + buf[remaining % FRAME_BYTES];
}

static bool has_guard(void)
{
	if (is_vmap_stack(current->stack))
		return true;
	pr_err("lkdtm: FAIL: the stack at %p is not in the stack area: no guard page\n",
	       (void *)current->stack);
	return false;
}

/* Twice as deep as the stack is big: the guard page must stop it. */
static void lkdtm_EXHAUST_STACK(void)
{
	int depth = (int)(2 * current->stack_size / FRAME_BYTES);

	if (!has_guard())
		return;
	pr_info("lkdtm: Calling function with %d frame size to depth %d ...\n", FRAME_BYTES, depth);
	recursive_loop(depth);
	pr_err("lkdtm: FAIL: survived without exhausting stack?!\n");
}

static void read_byte(const volatile unsigned char *p, const char *where)
{
	pr_info("lkdtm: attempting bad read from the page %s the current stack, at %p\n", where,
		(void *)p);
	(void)*p;
	pr_err("lkdtm: FAIL: read the page %s the stack: it has no guard\n", where);
}

static void lkdtm_STACK_GUARD_PAGE_LEADING(void)
{
	if (has_guard())
		read_byte((const unsigned char *)current->stack - 1, "below");
}

static void lkdtm_STACK_GUARD_PAGE_TRAILING(void)
{
	if (has_guard())
		read_byte((const unsigned char *)current->stack + current->stack_size, "above");
}

/*
 * Where the canary of the frame that holds buf lies: the first word above
 * buf's end that equals it (gcc puts it just above the arrays), or NULL.
 */
static noinline unsigned long *find_canary(char *buf, size_t len)
{
	unsigned long *w = (unsigned long *)ALIGN_UP((unsigned long)buf + len, sizeof(long));

	for (int i = 0; i < 8; i++, w++)
		if (*w == __stack_chk_guard)
			return w;
	return NULL;
}

/* A linear overflow of buf: n bytes, past its end. */
static noinline void overflow(char *buf, size_t n)
{
	memset(buf, 0xff, n);
}

/*
 * A buffer overflow that runs over this frame's canary and stops there,
 * short of the saved registers and the return address: the canary check
 * on the way out must panic (Linux: lkdtm_CORRUPT_STACK). Built without
 * the protector, there is no canary and the demo says FAIL.
 */
static noinline void lkdtm_CORRUPT_STACK(void)
{
	char data[8] __aligned(sizeof(long)) = { 0 };
	unsigned long *canary = find_canary(data, sizeof(data));

	if (!canary) {
		pr_err("lkdtm: FAIL: no canary above the array: the kernel has no stack protector\n");
		return;
	}
	pr_info("lkdtm: Corrupting stack containing char array ...\n");
	overflow(data, (char *)(canary + 1) - data);
}

CRASHTYPE("EXHAUST_STACK", lkdtm_EXHAUST_STACK,
	  "recurse until the kernel stack runs into its guard page: double fault");
CRASHTYPE("STACK_GUARD_PAGE_LEADING", lkdtm_STACK_GUARD_PAGE_LEADING,
	  "read the page below the kernel stack: its guard");
CRASHTYPE("STACK_GUARD_PAGE_TRAILING", lkdtm_STACK_GUARD_PAGE_TRAILING,
	  "read the page above the kernel stack: a guard too");
CRASHTYPE("CORRUPT_STACK", lkdtm_CORRUPT_STACK,
	  "overflow a stack array over its canary: the stack protector panics");
