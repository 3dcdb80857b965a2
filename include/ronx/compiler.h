/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_COMPILER_H
#define RONX_COMPILER_H

#define __init		__attribute__((section(".init.text"), __noinline__))
#define __initdata	__attribute__((section(".init.data")))
/* Written during boot, read-only once mark_rodata_ro() has run. */
#define __ro_after_init	__attribute__((section(".data..ro_after_init")))
#define __used		__attribute__((used))
#define __maybe_unused	__attribute__((unused))
#define noinline	__attribute__((noinline))
#ifndef __always_inline		/* glibc's, in the host builds of the same files */
#define __always_inline	inline __attribute__((always_inline))
#endif
#define __noreturn	__attribute__((noreturn))
/* the way the compiler lays out a test: the unlikely side out of line */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
/* var as computed, in a register: the compiler cannot split the tests that made it */
#define OPTIMIZER_HIDE_VAR(var)	__asm__("" : "+r"(var))
/*
 * No canary in this function (kernel/stackprotector.c): for the frames
 * that are live while the canary changes at boot, whose check would fail.
 */
#define __no_stack_protector __attribute__((no_stack_protector))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __aligned(x)	__attribute__((aligned(x)))
/*
 * The system call's C entry, linked right after the entry trampoline
 * (linker.ld): where no change elsewhere in the kernel moves it. Under
 * TCG each return and each call through a pointer looks up its target
 * in a 4096-slot direct-mapped cache keyed by address; the same code
 * moved to where two of getpid's targets shared a slot cost it 20%
 * (docs/bench.md, "A ring crossing at a fixed address").
 */
#define __syscall_hot	__attribute__((section(".text.hot")))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define ALIGN_UP(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))

/* Linux's errno values, shared with the user library. */
#include <ronx/errno.h>
#endif
