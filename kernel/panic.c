// SPDX-License-Identifier: GPL-2.0-only
/*
 * panic() (Linux: kernel/panic.c): for a bug after which the kernel can no
 * longer trust itself, where an oops that the shell or a process recovers
 * from would run on with corrupted state (a smashed stack canary, a
 * double fault with no stack left, an oops with nobody to return to).
 * It prints Linux's line, stops the other CPUs and halts this one.
 */
#include <stdarg.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/smp.h>
#include <ronx/panic.h>

/* The CPU that panics first; a second one (or a panic within the panic) just halts. */
static int panic_cpu = -1;

void panic(const char *fmt, ...)
{
	int none = -1;
	char buf[160];
	va_list ap;

	local_irq_disable();
	if (!__atomic_compare_exchange_n(&panic_cpu, &none, smp_processor_id(), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		halt_forever();
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", buf);
	smp_send_stop();
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", buf);
	halt_forever();
	__builtin_unreachable();
}
