// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NMI. ronx arms no source of its own (no watchdog, no profiler), so
 * every NMI is an unknown one: QEMU's monitor `nmi`, or a board's button.
 * As Linux's default_do_nmi() does for an unknown reason, say so and go on:
 * the interrupted code, kernel or user, resumes where it was.
 *
 * An NMI can land anywhere, an entry stack under either CR3 included
 * (boot/traps.asm's entry from ring 0 handles both), and while this CPU
 * prints: console_lock nests on the CPU that holds it, so the line comes
 * out, as an oops's would.
 */
#include <ronx/percpu.h>
#include <ronx/printk.h>
#include <ronx/traps.h>
#include <ronx/x86.h>

#define NMI_REASON_PORT	0x61	/* system control port B: bits 7 (SERR) and 6 (IOCHK) */

void do_nmi(struct trap_frame *f)
{
	(void)f;
	printk(KERN_EMERG "Uhhuh. NMI received for unknown reason %02x on CPU %d.\n",
	       inb(NMI_REASON_PORT), this_cpu()->id);
	printk(KERN_EMERG "Dazed and confused, but trying to continue\n");
}
