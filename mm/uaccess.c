// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_from_user() and friends: access_ok() first (the pointer and the
 * whole range lie below TASK_SIZE, with no wrap-around), then the copy in
 * boot/usercopy.asm, whose faults the exception table turns into a short
 * count. Linux: arch/x86/include/asm/uaccess.h, lib/usercopy.c.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/uaccess.h>

bool access_ok(const void __user *addr, unsigned long size)
{
	return size <= TASK_SIZE && (unsigned long)addr <= TASK_SIZE - size;
}

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	unsigned long left = n;

	if (access_ok(from, n))
		left = __copy_user(to, from, n);
	/* what was not copied is zeroed: no stale kernel bytes reach the caller */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	if (!access_ok(to, n))
		return n;
	return __copy_user(to, from, n);
}

long strncpy_from_user(char *dst, const char __user *src, long count)
{
	unsigned long max = (unsigned long)src < TASK_SIZE ? TASK_SIZE - (unsigned long)src : 0;

	if (count <= 0)
		return 0;
	if (!max)
		return -EFAULT;
	if ((unsigned long)count > max) {
		/* the string may not run into the kernel half: stop at TASK_SIZE */
		long n = __strncpy_from_user(dst, src, (long)max);

		return n == (long)max ? -EFAULT : n;
	}
	return __strncpy_from_user(dst, src, count);
}
