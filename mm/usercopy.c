// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardened usercopy (Linux: mm/usercopy.c, CONFIG_HARDENED_USERCOPY).
 * access_ok() checks the user side of a copy; this checks the kernel side.
 * A length bug in a system call (a size from the user, an off-by-n) turns
 * copy_to_user() into a leak of whatever lies next to the object, and
 * copy_from_user() into an overwrite of it. So before every copy the
 * kernel range must be
 *   - a real address: not 0-ish, not wrapping round the address space;
 *   - if on the current task's kernel stack, wholly inside it and inside
 *     one frame of the callers: never across a saved ebp and return address;
 *   - if in a slab page (kmalloc's), wholly inside one object of its size
 *     class (mm/slab.c's __check_heap_object(), as Linux's is mm/slub.c's);
 *   - not the kernel's text, and, for an overwrite, not its rodata either.
 * `hardened_usercopy=off` turns all of it off (to show what it stops).
 */
#include <ronx/compiler.h>
#include <ronx/cmdline.h>
#include <ronx/init.h>
#include <ronx/sections.h>
#include <ronx/sched.h>
#include <ronx/fpu.h>
#include <ronx/bug.h>
#include <ronx/uaccess.h>
#include <ronx/slab.h>

/* Written by the boot option only: no bug can turn the checks off later. */
static bool enable_checks __ro_after_init = true;

static int __init parse_hardened_usercopy(const char *val)
{
	return parse_on_off(val, &enable_checks);
}
BOOT_PARAM("hardened_usercopy", parse_hardened_usercopy, "on or off");

bool hardened_usercopy_enabled(void)
{
	return enable_checks;
}

/* What check_stack_object() found (Linux's names). */
enum { NOT_STACK, GOOD_FRAME, GOOD_STACK, BAD_STACK };

/* Linux's ZERO_SIZE_PTR: what kmalloc(0) returns, never a real object. */
#define ZERO_SIZE_PTR	16UL

void __noreturn usercopy_abort(const char *name, const char *detail, bool to_user,
			       unsigned long offset, unsigned long len)
{
	printk(KERN_EMERG "usercopy: Kernel memory %s attempt detected %s %s%s%s%s (offset %lu, size %lu)!\n",
		 to_user ? "exposure" : "overwrite", to_user ? "from" : "to",
		 name ? name : "unknown?!", detail ? " '" : "", detail ? detail : "",
		 detail ? "'" : "", offset, len);
	BUG();
}

/* Does [ptr, ptr + n) overlap [low, high)? */
static bool overlaps(unsigned long ptr, unsigned long n, unsigned long low, unsigned long high)
{
	return ptr < high && ptr + n > low;
}

static void check_bogus_address(unsigned long ptr, unsigned long n, bool to_user)
{
	if (ptr + (n - 1) < ptr)
		usercopy_abort("wrapped address", 0, to_user, 0, ptr + n);
	if (ptr <= ZERO_SIZE_PTR)
		usercopy_abort("null address", 0, to_user, ptr, n);
}

/*
 * Is [obj, obj + len) inside one frame? Frames are chained by saved ebp
 * (the kernel keeps frame pointers). Above a frame pointer lie the saved
 * ebp and the return address, then the arguments and the caller's locals
 * up to the caller's frame pointer: an object must lie in one such gap.
 * The walk starts at check_object_size()'s own frame, so the checking
 * code's frames (and the dead frames below them) are never good. When a
 * saved ebp leads off the stack (the entry code's, a user ebp) the object
 * was in no frame: above the last C frame is the trap frame, which system
 * calls copy out field by field with put_user(), as Linux does.
 */
static int within_stack_frames(unsigned long stack, unsigned long stackend,
			       unsigned long obj, unsigned long len, unsigned long oldframe)
{
	unsigned long frame = *(unsigned long *)oldframe;

	while (stack <= frame && frame < stackend && frame > oldframe) {
		if (obj + len <= frame)
			return obj >= oldframe + 2 * sizeof(void *) ? GOOD_FRAME : BAD_STACK;
		oldframe = frame;
		frame = *(unsigned long *)frame;
	}
	return BAD_STACK;
}

/*
 * A process keeps its FPU registers at its stack's bottom (kernel/process.c),
 * where Linux keeps them in task_struct: they are not stack, so the stack
 * proper starts above them.
 */
static unsigned long stack_start(const struct task *t)
{
	if (t->fpu && (unsigned long)t->fpu == t->stack)
		return t->stack + sizeof(union fpregs_state);
	return t->stack;
}

static int check_stack_object(unsigned long obj, unsigned long len, unsigned long frame)
{
	const struct task *t = current;
	unsigned long stack, stackend;

	if (!t || !t->stack)
		return NOT_STACK;
	stack = stack_start(t);
	stackend = t->stack + t->stack_size;
	if (obj + len <= stack || stackend <= obj)
		return NOT_STACK;
	/* one end is on the stack: the other must be too */
	if (obj < stack || stackend < obj + len)
		return BAD_STACK;
	return within_stack_frames(stack, stackend, obj, len, frame);
}

/*
 * Text is never copied either way. Rodata may be copied out (LKDTM's own
 * "good copy" is from rodata) but never over: a copy_from_user() into it
 * would be a write the page tables refuse anyway, and a bug.
 */
static void check_kernel_image_object(unsigned long ptr, unsigned long n, bool to_user)
{
	unsigned long text = (unsigned long)_text;

	if (overlaps(ptr, n, text, (unsigned long)_etext))
		usercopy_abort("kernel text", 0, to_user, ptr - text, n);
	if (!to_user && overlaps(ptr, n, (unsigned long)__start_rodata, (unsigned long)__end_rodata))
		usercopy_abort("kernel rodata", 0, to_user, ptr - (unsigned long)__start_rodata, n);
}

/* Linux's __check_object_size(): noinline, as the frame walk starts here. */
noinline void check_object_size(const void *ptr, unsigned long n, bool to_user)
{
	unsigned long p = (unsigned long)ptr, sp;

	if (!enable_checks || !n)
		return;
	check_bogus_address(p, n, to_user);
	switch (check_stack_object(p, n, (unsigned long)__builtin_frame_address(0))) {
	case NOT_STACK:
		break;
	case GOOD_FRAME:
	case GOOD_STACK:
		return;
	default:
		__asm__ volatile("mov %%esp, %0" : "=r"(sp));
		usercopy_abort("process stack", 0, to_user, sp - p, n);
	}
	__check_heap_object(ptr, n, to_user);
	check_kernel_image_object(p, n, to_user);
}
