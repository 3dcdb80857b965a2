// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_to_user() and copy_from_user() four bytes a step, for the copies
 * of hundreds of bytes every signal makes: its frame and FPU state out
 * (kernel/signal_frame.c), and back at sigreturn. __copy_user()'s rep
 * movsb costs TCG a loop turn a byte: about 8 cycles a byte, two thirds
 * of a caught signal's 22k (docs/bench.md, "Where a signal's cycles
 * go"). Linux's i386 __copy_user() moves words with rep movsl too.
 *
 * The rules are mm/uaccess.c's, unchanged: check_object_size() on the
 * kernel side, access_ok() on the user side, SMAP's window open only
 * around the copy, an exception-table entry on each instruction that
 * touches user memory. A fault in the word copy resumes byte by byte
 * from the word it stopped at, so the count left is as exact as
 * __copy_user()'s: what precedes the first bad byte is copied.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/smap.h>
#include <ronx/uaccess.h>

/* Returns the bytes NOT copied; the caller has checked both sides. */
static unsigned long copy_user_words(void *to, const void *from, unsigned long n)
{
	unsigned long words = n / 4, tail = n % 4;

	stac();
	__asm__ volatile("1:	rep movsl\n"
			 "	mov %3, %0\n"
			 "2:	rep movsb\n"
			 "	jmp 4f\n"
			 /* the word copy faulted: the bytes of the words left, by bytes */
			 "3:	lea (%3, %0, 4), %0\n"
			 "	jmp 2b\n"
			 "4:\n"
			 _ASM_EXTABLE(1b, 3b)
			 _ASM_EXTABLE(2b, 4b)
			 : "+c"(words), "+D"(to), "+S"(from) : "r"(tail) : "memory");
	clac();
	return words;
}

unsigned long copy_to_user_bulk(void __user *to, const void *from, unsigned long n)
{
	check_object_size(from, n, true);
	if (!access_ok(to, n))
		return n;
	return copy_user_words((void *)to, from, n);
}

unsigned long copy_from_user_bulk(void *to, const void __user *from, unsigned long n)
{
	unsigned long left = n;

	check_object_size(to, n, false);
	if (access_ok(from, n))
		left = copy_user_words(to, (const void *)from, n);
	/* what was not copied is zeroed: no stale kernel bytes reach the caller */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

/* get_user_struct() and put_user_struct(): user_words() (ronx/uaccess.h) out of line. */
int __get_user_words(void *to, const uint32_t __user *from, unsigned n)
{
	return user_words(to, (uint32_t __user *)from, n, false);
}

int __put_user_words(uint32_t __user *to, const void *from, unsigned n)
{
	return user_words((uint32_t *)from, to, n, true);
}
