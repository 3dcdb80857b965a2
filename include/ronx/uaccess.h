/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The only way the kernel touches user memory (mm/uaccess.c,
 * boot/usercopy.asm; Linux: arch/x86/include/asm/uaccess.h). Each checks
 * access_ok() first, so a user pointer can never name kernel memory, and
 * each faulting instruction has an exception-table entry, so a bad user
 * pointer gives -EFAULT (or the bytes not copied), never an oops. With
 * SMAP on, these are the only places EFLAGS.AC is set (stac ... clac).
 */
#ifndef RONX_UACCESS_H
#define RONX_UACCESS_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/compiler.h>

#ifndef __user
#define __user		/* a user-space address: only these functions may use it */
#endif

bool access_ok(const void __user *addr, unsigned long size);
/* Return the number of bytes NOT copied: 0 on success. */
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
/* The string's length (< count), count if no NUL came first, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, long count);

/* One value of x's size: 0 or -EFAULT. */
#define get_user(x, ptr) \
	(copy_from_user(&(x), (ptr), sizeof(*(ptr))) ? -EFAULT : 0)
#define put_user(x, ptr) ({						\
	__typeof__(*(ptr)) __pu_val = (x);				\
	copy_to_user((ptr), &__pu_val, sizeof(*(ptr))) ? -EFAULT : 0;	\
})

/* boot/usercopy.asm */
unsigned long __copy_user(void *to, const void *from, unsigned long n);
long __strncpy_from_user(char *dst, const char __user *src, long count);
#endif
