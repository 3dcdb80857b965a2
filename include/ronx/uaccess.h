/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The only way the kernel touches user memory (mm/uaccess.c; Linux:
 * arch/x86/include/asm/uaccess.h). Each checks access_ok() first, so a
 * user pointer can never name kernel memory, and each instruction that
 * touches user memory has an exception-table entry, so a bad user pointer
 * gives -EFAULT (or the bytes not copied), never an oops. With SMAP on,
 * these are the only places EFLAGS.AC is set (stac ... clac).
 */
#ifndef RONX_UACCESS_H
#define RONX_UACCESS_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/smap.h>

#ifndef __user
#define __user		/* a user-space address: only these functions may use it */
#endif

/*
 * An exception-table entry, for inline assembly: if the instruction at
 * `from` faults, the fault handler resumes at `to` instead of oopsing
 * (kernel/cpu/extable.c, Linux's _ASM_EXTABLE). In `asm goto`, `to` may be a
 * C label: _ASM_EXTABLE(1b, %l[efault]).
 */
#define _ASM_EXTABLE(from, to)					\
	".pushsection __ex_table, \"a\"\n"			\
	"	.balign 4\n"					\
	"	.long " #from ", " #to "\n"			\
	".popsection\n"

bool access_ok(const void __user *addr, unsigned long size);
/* Return the number of bytes NOT copied: 0 on success. */
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
/* The same, four bytes a step (mm/uaccess_bulk.c): for a signal's frame and FPU state. */
unsigned long copy_from_user_bulk(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user_bulk(void __user *to, const void *from, unsigned long n);
/* The string's length (< count), count if no NUL came first, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, long count);
/* One value of size bytes: 0, or -EFAULT. */
long get_user_size(void *x, const void __user *ptr, unsigned long size);
long put_user_size(const void *x, void __user *ptr, unsigned long size);
/*
 * Hardened usercopy (mm/usercopy.c): the kernel side of a copy must be a
 * real address, wholly in one stack frame if on the stack, never text.
 * A violation is reported and BUG()s.
 */
bool hardened_usercopy_enabled(void);
void check_object_size(const void *ptr, unsigned long n, bool to_user);
void usercopy_abort(const char *name, const char *detail, bool to_user,
		    unsigned long offset, unsigned long len) __noreturn;
/* The copy itself, with no access_ok(): only the functions above call it. */
unsigned long __copy_user(void *to, const void *from, unsigned long n);

/*
 * One value of *ptr's type (1, 2 or 4 bytes): 0, or -EFAULT with x
 * zeroed (Linux's get_user, put_user). The value goes through an
 * unsigned long, low bytes first: i386 is little-endian.
 */
#define get_user(x, ptr) ({						\
	unsigned long __gu_val = 0;					\
	long __gu_err;							\
	_Static_assert(sizeof(*(ptr)) <= sizeof(__gu_val), "get_user: 4 bytes at most"); \
	__gu_err = get_user_size(&__gu_val, (ptr), sizeof(*(ptr)));	\
	(x) = (__typeof__(*(ptr)))(__gu_err ? 0 : __gu_val);		\
	__gu_err;							\
})
#define put_user(x, ptr) ({						\
	__typeof__(*(ptr)) __pu_val = (x);				\
	put_user_size(&__pu_val, (ptr), sizeof(*(ptr)));		\
})

/*
 * A few words of one user object under one check and one SMAP window
 * (Linux's user_access_begin(), unsafe_get_user(), unsafe_put_user(),
 * user_access_end()): access_ok() on the whole object, then a movl each
 * with an exception-table entry; a fault jumps to label, which must
 * call user_access_end().
 */
static inline bool user_access_begin(const void __user *ptr, unsigned long len)
{
	if (!access_ok(ptr, len))
		return false;
	stac();
	return true;
}

static inline void user_access_end(void)
{
	clac();
}

#define unsafe_get_user(x, ptr, label) do {				\
	uint32_t __ugu_val;						\
	_Static_assert(sizeof(*(ptr)) == 4, "unsafe_get_user: 4 bytes");	\
	__asm__ goto("1:	movl (%1), %0\n"				\
		     _ASM_EXTABLE(1b, %l[label])				\
		     : "=r"(__ugu_val) : "r"(ptr) : "memory" : label);	\
	(x) = (__typeof__(*(ptr)))__ugu_val;				\
} while (0)

#define unsafe_put_user(x, ptr, label) do {				\
	uint32_t __upu_val = (x);					\
	_Static_assert(sizeof(*(ptr)) == 4, "unsafe_put_user: 4 bytes");	\
	__asm__ goto("1:	movl %0, (%1)\n"				\
		     _ASM_EXTABLE(1b, %l[label])				\
		     : : "r"(__upu_val), "r"(ptr) : "memory" : label);	\
} while (0)

/*
 * n words between the kernel and user memory, one access_ok() and one
 * SMAP window, a movl each with its own exception-table entry: 0, or
 * -EFAULT. Inline, for a fixed n the loop is unrolled: no block ends
 * under TCG between the moves.
 */
static __always_inline int user_words(void *kbuf, uint32_t __user *u, unsigned n, bool to_user)
{
	uint32_t *k = kbuf;	/* x86 moves a word at any alignment (packed ABI structs) */

	if (!user_access_begin(u, n * 4))
		return -EFAULT;
#pragma GCC unroll 8
	for (unsigned i = 0; i < n; i++) {
		if (to_user)
			unsafe_put_user(k[i], &u[i], efault);
		else
			unsafe_get_user(k[i], &u[i], efault);
	}
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/* The same out of line (mm/uaccess_bulk.c): its exception-table entries are that file's. */
int __get_user_words(void *to, const uint32_t __user *from, unsigned n);
int __put_user_words(uint32_t __user *to, const void *from, unsigned n);

/*
 * One small fixed-size object whole, a word at a time: 0, or -EFAULT
 * (what was read before the fault is left in *kptr). For what a signal
 * copies on every delivery and return (rt_sigaction's 20 bytes, the
 * ucontext sigreturn reads): under TCG the bulk copy's own work, its
 * call, check_object_size()'s frame walk and a rep movs loop turn a
 * word, cost several times these moves. The length is the object's
 * type's, fixed when this is compiled, so no length bug can reach past
 * it: check_object_size() is there for lengths that come at run time
 * (Linux too skips it for a constant size, checked when compiling).
 * The moves are out of line, so that the exception-table entries are
 * mm/uaccess_bulk.c's, not the caller's (the signals lab's inspection
 * holds kernel/signal_frame.c's __ex_table to the lab's).
 */
#define get_user_struct(kptr, uptr) ({					\
	_Static_assert(sizeof(*(kptr)) % 4 == 0, "get_user_struct: whole words"); \
	__get_user_words((kptr), (const uint32_t __user *)(uptr),	\
			 sizeof(*(kptr)) / 4);					\
})
#define put_user_struct(uptr, kptr) ({					\
	_Static_assert(sizeof(*(kptr)) % 4 == 0, "put_user_struct: whole words"); \
	__put_user_words((uint32_t __user *)(uptr), (kptr),	\
			 sizeof(*(kptr)) / 4);					\
})
/*
 * The same moves inline, at the caller: for a call that is one small
 * copy each way and little else (rt_sigaction: lmbench's lat_sig
 * install), where the out-of-line loop's calls, returns and turns were
 * most of the call's own cost (docs/bench.md). Not for a lab's file.
 */
#define get_user_struct_inline(kptr, uptr) ({				\
	_Static_assert(sizeof(*(kptr)) % 4 == 0, "get_user_struct: whole words"); \
	user_words((void *)(kptr), (uint32_t __user *)(uptr), sizeof(*(kptr)) / 4, false); \
})
#define put_user_struct_inline(uptr, kptr) ({				\
	_Static_assert(sizeof(*(kptr)) % 4 == 0, "put_user_struct: whole words"); \
	user_words((void *)(kptr), (uint32_t __user *)(uptr), sizeof(*(kptr)) / 4, true); \
})
#endif
