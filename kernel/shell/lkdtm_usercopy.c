// SPDX-License-Identifier: GPL-2.0-only
/*
 * LKDTM's usercopy crash types (Linux: drivers/misc/lkdtm/usercopy.c): each
 * does a good copy, then a bad one that hardened usercopy (mm/usercopy.c)
 * must stop with its report and a BUG(). The
 * user side is the shell's demo page (kernel/shell/user_demo.c), as
 * Linux's LKDTM maps a page into the process that asked. Booted with
 * hardened_usercopy=off the bad copy goes through and the demo says FAIL.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/sched.h>
#include <ronx/mm_types.h>
#include <ronx/uaccess.h>
#include <ronx/user_demo.h>
#include <ronx/slab.h>
#include <ronx/lkdtm.h>

/* Never 0 as far as the compiler knows: it cannot see the copies' sizes. */
static volatile unsigned int unconst;

static const unsigned char test_text[] = "This is a test.\n";

/* Linux's pr_expected_config_param(CONFIG_HARDENED_USERCOPY, "hardened_usercopy"). */
static void went_through(void)
{
	if (hardened_usercopy_enabled())
		pr_err("lkdtm: Unexpected! This kernel was booted with hardened_usercopy=on\n");
	else
		pr_warn("lkdtm: This is probably expected, since this kernel was booted with hardened_usercopy=off\n");
}

static noinline unsigned char *trick_compiler(unsigned char *stack)
{
	return stack + unconst;
}

/* The address of a local of a frame that is gone by the time it is used. */
static noinline unsigned char *do_usercopy_stack_callee(int value)
{
	unsigned char buf[128];

	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = value & 0xff;
	/* in the middle, clear of whatever frames come next */
	return trick_compiler(&buf[128 / 2 - 32]);
}

static noinline void do_usercopy_stack(bool to_user, bool bad_frame)
{
	unsigned char good_stack[32];
	unsigned char *bad_stack;
	void __user *user_addr;

	for (unsigned i = 0; i < sizeof(good_stack); i++)
		good_stack[i] = test_text[i % sizeof(test_text)];
	if (bad_frame)		/* a dead callee's frame: outside ours */
		bad_stack = do_usercopy_stack_callee((uintptr_t)&bad_stack);
	else			/* starts just inside the stack's top, ends past it */
		bad_stack = (unsigned char *)(current->stack + current->stack_size) - sizeof(unsigned long);
	pr_info("lkdtm: good_stack: %p-%p\n", good_stack, good_stack + sizeof(good_stack));
	pr_info("lkdtm: bad_stack : %p-%p\n", bad_stack, bad_stack + sizeof(good_stack));

	user_addr = map_user_demo_page(VM_READ | VM_WRITE, test_text, sizeof(test_text));
	if (!user_addr) {
		pr_warn("lkdtm: Failed to allocate user memory\n");
		return;
	}
	if (to_user) {
		pr_info("lkdtm: attempting good copy_to_user of local stack\n");
		if (copy_to_user(user_addr, good_stack, unconst + sizeof(good_stack))) {
			pr_warn("lkdtm: copy_to_user failed unexpectedly?!\n");
			return;
		}
		pr_info("lkdtm: attempting bad copy_to_user of distant stack\n");
		if (copy_to_user(user_addr, bad_stack, unconst + sizeof(good_stack))) {
			pr_warn("lkdtm: copy_to_user failed, but lacked Oops\n");
			return;
		}
	} else {
		pr_info("lkdtm: attempting good copy_from_user of local stack\n");
		if (copy_from_user(good_stack, user_addr, unconst + sizeof(good_stack))) {
			pr_warn("lkdtm: copy_from_user failed unexpectedly?!\n");
			return;
		}
		pr_info("lkdtm: attempting bad copy_from_user of distant stack\n");
		if (copy_from_user(bad_stack, user_addr, unconst + sizeof(good_stack))) {
			pr_warn("lkdtm: copy_from_user failed, but lacked Oops\n");
			return;
		}
	}
	pr_err("lkdtm: FAIL: bad usercopy not detected!\n");
	went_through();
}

static void lkdtm_USERCOPY_STACK_FRAME_TO(void)
{
	do_usercopy_stack(true, true);
}
CRASHTYPE("USERCOPY_STACK_FRAME_TO", lkdtm_USERCOPY_STACK_FRAME_TO,
	  "copy_to_user() of a dead stack frame: hardened usercopy");

static void lkdtm_USERCOPY_STACK_FRAME_FROM(void)
{
	do_usercopy_stack(false, true);
}
CRASHTYPE("USERCOPY_STACK_FRAME_FROM", lkdtm_USERCOPY_STACK_FRAME_FROM,
	  "copy_from_user() into a dead stack frame: hardened usercopy");

static void lkdtm_USERCOPY_STACK_BEYOND(void)
{
	do_usercopy_stack(true, false);
}
CRASHTYPE("USERCOPY_STACK_BEYOND", lkdtm_USERCOPY_STACK_BEYOND,
	  "copy_to_user() across the kernel stack's top: hardened usercopy");

static void lkdtm_USERCOPY_KERNEL(void)
{
	void __user *user_addr = map_user_demo_page(VM_READ | VM_WRITE, test_text, sizeof(test_text));

	if (!user_addr) {
		pr_warn("lkdtm: Failed to allocate user memory\n");
		return;
	}
	pr_info("lkdtm: attempting good copy_to_user from kernel rodata: %p\n", test_text);
	if (copy_to_user(user_addr, test_text, unconst + sizeof(test_text))) {
		pr_warn("lkdtm: copy_to_user failed unexpectedly?!\n");
		return;
	}
	pr_info("lkdtm: attempting bad copy_to_user from kernel text: %p\n", do_usercopy_stack);
	if (copy_to_user(user_addr, (const void *)do_usercopy_stack, unconst + PAGE_SIZE)) {
		pr_warn("lkdtm: copy_to_user failed, but lacked Oops\n");
		return;
	}
	pr_err("lkdtm: FAIL: bad copy_to_user() not detected!\n");
	went_through();
}
CRASHTYPE("USERCOPY_KERNEL", lkdtm_USERCOPY_KERNEL,
	  "copy_to_user() of kernel text: hardened usercopy");

/* One copy either way: the bytes not copied, as copy_*_user() returns them. */
static unsigned long copy_user(bool to_user, void *kern, void __user *user, unsigned long n)
{
	return to_user ? copy_to_user(user, kern, n) : copy_from_user(kern, user, n);
}

/*
 * Two kmalloc objects side by side (one, then two, from one slab); a copy
 * of one's size from 16 bytes into one runs 16 bytes into two. Before it,
 * two good copies: half the object from there (Linux's), and the whole
 * object from its start, which ends exactly at its end. The objects are
 * the shell's to free (lkdtm_objects): the bad copy oopses.
 */
static noinline void do_usercopy_slab_size(bool to_user)
{
	const char *way = to_user ? "to" : "from";
	size_t size = unconst + 1024;
	unsigned char *one, *two;
	unsigned char __user *user_addr;

	one = lkdtm_objects[0] = kmalloc(size, GFP_KERNEL);
	two = lkdtm_objects[1] = kmalloc(size, GFP_KERNEL);
	user_addr = map_user_demo_page(VM_READ | VM_WRITE, test_text, sizeof(test_text));
	if (!one || !two || !user_addr) {
		pr_warn("lkdtm: Failed to allocate kernel or user memory\n");
		return;
	}
	if (two < one) {	/* one below two: a free list in any order still gives neighbours */
		one = two;
		two = lkdtm_objects[0];
	}
	memset(one, 'A', size);
	memset(two, 'B', size);
	pr_info("lkdtm: objects %p and %p, %u bytes each\n", one, two, (unsigned)size);
	pr_info("lkdtm: attempting good copy_%s_user of correct size\n", way);
	if (copy_user(to_user, one + 16, user_addr + 16, size / 2) ||
	    copy_user(to_user, one, user_addr, size)) {
		pr_warn("lkdtm: copy_%s_user failed unexpectedly?!\n", way);
		return;
	}
	pr_info("lkdtm: attempting bad copy_%s_user of too large size\n", way);
	if (copy_user(to_user, one + 16, user_addr + 16, size)) {
		pr_warn("lkdtm: copy_%s_user failed, but lacked Oops\n", way);
		return;
	}
	if (!to_user)
		pr_info("lkdtm: the next object now starts with 0x%02x, not 'B' (0x42)\n", two[0]);
	pr_err("lkdtm: FAIL: bad usercopy not detected!\n");
	went_through();
}

static void lkdtm_USERCOPY_HEAP_SIZE_TO(void)
{
	do_usercopy_slab_size(true);
}
CRASHTYPE("USERCOPY_HEAP_SIZE_TO", lkdtm_USERCOPY_HEAP_SIZE_TO,
	  "copy_to_user() past a kmalloc object's end: hardened usercopy");

static void lkdtm_USERCOPY_HEAP_SIZE_FROM(void)
{
	do_usercopy_slab_size(false);
}
CRASHTYPE("USERCOPY_HEAP_SIZE_FROM", lkdtm_USERCOPY_HEAP_SIZE_FROM,
	  "copy_from_user() past a kmalloc object's end: hardened usercopy");
