/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stack protector's canary (Linux: arch/x86/include/asm/stackprotector.h).
 * The kernel is built with -fstack-protector-strong
 * -mstack-protector-guard=global: a function with an array or a local
 * whose address is taken copies __stack_chk_guard into its frame, between
 * its locals and the saved registers and return address, and compares it
 * before it returns; a difference calls __stack_chk_fail(), which panics.
 */
#ifndef RONX_STACKPROTECTOR_H
#define RONX_STACKPROTECTOR_H
#include <stdint.h>

extern unsigned long __stack_chk_guard;

void boot_init_stack_canary(void);
void __stack_chk_fail(void) __attribute__((noreturn));

/*
 * The canary from a random word and the time-stamp counter (pure, host-
 * tested): the counter's low half added, as Linux's does, so that a weak
 * random source still differs from boot to boot; never 0, the value an
 * unset canary would have. Linux's x86-64 canary keeps a zero low byte, to
 * stop a string copy from writing it back; its 32-bit canary, which has
 * no byte to spare, does not (CANARY_MASK is 0xffffffff there), and
 * neither does ronx's.
 */
static inline uint32_t stack_canary_mix(uint32_t random, uint64_t tsc)
{
	uint32_t canary = random + (uint32_t)tsc;

	return canary ? canary : 0xff0a0dffu;
}
#endif
