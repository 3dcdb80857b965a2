// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user-access layer: the only code that touches user memory (Linux:
 * arch/x86/include/asm/uaccess.h, arch/x86/lib/usercopy_32.c,
 * lib/strncpy_from_user.c).
 *
 * Three rules, each one a kind of attack it stops:
 *   access_ok()     a user pointer, with its length, must lie wholly below
 *                   TASK_SIZE, or a process could make the kernel read or
 *                   write the kernel half for it;
 *   _ASM_EXTABLE    every instruction that touches user memory has an
 *                   exception-table entry, so a pointer to nothing is
 *                   -EFAULT (or a short count), never an oops;
 *   stac ... clac   with SMAP on, the kernel may touch user pages only
 *                   inside that window: open it just before the access and
 *                   close it just after, on the fault path too, so that no
 *                   other kernel code runs with user memory open.
 * And copy_to_user()/copy_from_user() check their kernel side too
 * (check_object_size(), mm/usercopy.c): a length bug must not leak or
 * overwrite the kernel stack or text next to the object.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/smap.h>
#include <ronx/uaccess.h>

/* Is [addr, addr + size) wholly user memory? */
bool access_ok(const void __user *addr, unsigned long size)
{
	return size <= TASK_SIZE && (unsigned long)addr <= TASK_SIZE - size;
}

/*
 * Copies n bytes, either way, with no access_ok(): the caller has checked.
 * Returns the bytes NOT copied (rep movsb leaves them in ecx when a fault
 * stops it), 0 if all were.
 */
unsigned long __copy_user(void *to, const void *from, unsigned long n)
{
	stac();
	__asm__ volatile("1:	rep movsb\n"
			 "2:\n"
			 _ASM_EXTABLE(1b, 2b)
			 : "+c"(n), "+D"(to), "+S"(from) : : "memory");
	clac();
	return n;
}

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	unsigned long left = n;

	check_object_size(to, n, false);
	if (access_ok(from, n))
		left = __copy_user(to, from, n);
	/* what was not copied is zeroed: no stale kernel bytes reach the caller */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	check_object_size(from, n, true);
	if (!access_ok(to, n))
		return n;
	return __copy_user(to, from, n);
}

/* get_user(): one value of size bytes from user memory. */
long get_user_size(void *x, const void __user *ptr, unsigned long size)
{
	if (!access_ok(ptr, size) || __copy_user(x, ptr, size))
		return -EFAULT;
	return 0;
}

/* put_user(): one value of size bytes to user memory. */
long put_user_size(const void *x, void __user *ptr, unsigned long size)
{
	if (!access_ok(ptr, size) || __copy_user(ptr, x, size))
		return -EFAULT;
	return 0;
}

/*
 * A NUL-terminated string from user memory, at most count bytes of it,
 * never reaching TASK_SIZE (the string must lie wholly in user memory).
 */
long strncpy_from_user(char *dst, const char __user *src, long count)
{
	unsigned long max = (unsigned long)src < TASK_SIZE ? TASK_SIZE - (unsigned long)src : 0;
	long n;

	if (count <= 0)
		return 0;
	stac();
	for (n = 0; n < count; n++) {
		if ((unsigned long)n == max)
			goto efault;		/* it ran into the kernel half */
		__asm__ goto("1:	movb (%0), %%al\n"
			     "	movb %%al, (%1)\n"
			     _ASM_EXTABLE(1b, %l[efault])
			     : : "r"(src + n), "r"(dst + n) : "eax", "memory" : efault);
		if (!dst[n])
			break;
	}
	clac();
	return n;
efault:
	clac();
	return -EFAULT;
}
