// SPDX-License-Identifier: GPL-2.0-only
/*
 * The debug exception (#DB, vector 1) and the one hardware breakpoint ronx
 * sets (Linux: exc_debug() in arch/x86/kernel/traps.c, hw_breakpoint.c).
 *
 * From ring 3 a #DB is a single step or a breakpoint the process set up:
 * SIGTRAP, as before. In the kernel the only breakpoint is the demo
 * `crash PTI_EXIT_WINDOW`: DR0 on pti_exit_window (boot/traps.asm), the
 * first instruction after the exit path switched CR3 to the user set, on
 * this CPU. Every exit to ring 3 then takes a #DB in ring 0 on the entry
 * stack under the user set, the case entry_common must survive: it
 * switches to the kernel set for this handler and back to the user set for
 * the iret into the window. The handler sets EFLAGS.RF in the frame (an
 * instruction breakpoint is a fault: without RF the CPU would take it
 * again on the same instruction) and counts the hit. The test
 * (tests/qemu/test_pti.py) then stops the CPU in ring 3 and reads CR3.
 * Like every handler, it runs on the task's kernel stack, not the entry
 * stack (boot/traps.asm moves it there).
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/percpu.h>
#include <ronx/traps.h>
#include <ronx/pti.h>
#include <ronx/lkdtm.h>

#define DR6_B0		(1u << 0)	/* DR0's condition was met */
#define DR7_L0		(1u << 0)	/* DR0 enabled (R/W0 = LEN0 = 0: execution) */
#define DR7_GE		(1u << 9)	/* exact breakpoints, as the SDM recommends */
#define X86_EFLAGS_RF	(1u << 16)

extern char pti_exit_window[];

static unsigned long window_hits;
static int window_cpu = -1;

#define DEBUGREG(n)								\
static inline uint32_t get_dr##n(void)						\
{ uint32_t v; __asm__ volatile("mov %%db" #n ", %0" : "=r"(v)); return v; }	\
static inline void set_dr##n(uint32_t v)					\
{ __asm__ volatile("mov %0, %%db" #n : : "r"(v)); }
DEBUGREG(0)
DEBUGREG(6)
DEBUGREG(7)

/* True if it was the window's breakpoint (then the frame resumes past it). */
static bool window_breakpoint(struct trap_frame *f, uint32_t dr6)
{
	if (!(dr6 & DR6_B0) || f->eip != (uint32_t)(uintptr_t)pti_exit_window)
		return false;
	window_hits++;
	f->eflags |= X86_EFLAGS_RF;
	return true;
}

/* #DB: DR6 says why; it is sticky, so it is cleared for the next one. */
bool do_debug(struct trap_frame *f)
{
	uint32_t dr6 = get_dr6();

	set_dr6(0);
	return !user_mode(f) && window_breakpoint(f, dr6);
}

/* Arms DR0 on this CPU's exit window; a second call disarms it and says how many hits. */
static void lkdtm_PTI_EXIT_WINDOW(void)
{
	if (window_cpu >= 0) {
		if (window_cpu != this_cpu()->id) {
			pr_err("lkdtm: PTI_EXIT_WINDOW is armed on CPU %d: disarm it there\n", window_cpu);
			return;
		}
		set_dr7(0);
		window_cpu = -1;
		pr_info("lkdtm: PTI_EXIT_WINDOW disarmed after %lu hits\n", window_hits);
		return;
	}
	if (!pti_active) {
		pr_err("lkdtm: PTI is off: there is no exit window (boot with pti=on)\n");
		return;
	}
	window_hits = 0;
	window_cpu = this_cpu()->id;
	set_dr0((uint32_t)(uintptr_t)pti_exit_window);
	set_dr6(0);
	set_dr7(DR7_L0 | DR7_GE);
	pr_info("lkdtm: armed on CPU %d: a #DB at pti_exit_window (%p, CR3 the user set) on every exit to ring 3; again to disarm\n",
		window_cpu, pti_exit_window);
}
CRASHTYPE("PTI_EXIT_WINDOW", lkdtm_PTI_EXIT_WINDOW,
	  "arm: a #DB in PTI's exit window on every exit to ring 3 (again: disarm)");
