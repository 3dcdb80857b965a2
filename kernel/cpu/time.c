// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timer: the PIT's channel 0 at HZ interrupts a second, on IRQ 0
 * (Linux: arch/x86/kernel/i8253.c and time.c). jiffies counts them. A tick
 * that interrupts a process, in ring 3 or in a system call (which runs
 * with interrupts on), is also what takes the CPU away from a process
 * that never gives it up (a slice is one tick); one that interrupts the
 * kernel otherwise (waiting: IF is off elsewhere) only counts, and wakes
 * the sleepers.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/shell.h>
#include <ronx/irq.h>
#include <ronx/spinlock.h>
#include <ronx/sched.h>
#include <ronx/signal.h>
#include <ronx/itimer.h>

#define PIT_TICK_RATE	1193182		/* Hz: the PIT's input clock */
#define PIT_CH0		0x40
#define PIT_MODE	0x43
#define LATCH		((PIT_TICK_RATE + HZ / 2) / HZ)

volatile unsigned long jiffies;

/* The latch-and-read sequence is three port accesses: one CPU at a time. */
static DEFINE_SPINLOCK(i8253_lock);

/* Channel 0's current count: it runs down from LATCH to 1, then reloads. */
static unsigned pit_read_count(void)
{
	unsigned long flags;
	unsigned lo, hi;

	spin_lock_irqsave(&i8253_lock, flags);
	outb(PIT_MODE, 0x00);		/* latch channel 0 */
	lo = inb(PIT_CH0);
	hi = inb(PIT_CH0);
	spin_unlock_irqrestore(&i8253_lock, flags);
	return lo | hi << 8;
}

/*
 * Busy-waits us microseconds by the PIT's own clock (1.193182 MHz), read
 * back as it counts: exact without calibration, and it works with
 * interrupts off, before the timer interrupt runs and on any CPU
 * (Linux calibrates the TSC against this same clock).
 */
void udelay(unsigned long us)
{
	uint64_t want = (uint64_t)us * PIT_TICK_RATE / 1000000, got = 0;
	unsigned prev = pit_read_count();

	while (got < want) {
		unsigned now;

		cpu_relax();
		now = pit_read_count();
		got += prev >= now ? prev - now : prev + LATCH - now;
		prev = now;
	}
}

/*
 * A tick on this CPU (the PIT's on the boot CPU, the APIC timer's on the
 * others): a process it interrupted, in ring 3 or in a system call, has
 * had its slice (Linux: update_process_times()). In ring 3 it gives the
 * CPU up on the way back (exit_to_user_mode()); in a call, at the call's
 * next cond_resched() or on its way back.
 */
void update_process_times(struct trap_frame *f)
{
	struct task *t = current;

	if (user_mode(f) || (t && t->mm)) {
		t->runtime++;
		this_cpu()->need_resched = true;
		itimer_cpu_tick(t, user_mode(f));	/* ITIMER_VIRTUAL, ITIMER_PROF */
	}
}

static void timer_interrupt(struct trap_frame *f)
{
	jiffies++;
	wakeup((void *)&jiffies);		/* nanosleep()ers check their deadline */
	itimer_tick();				/* ITIMER_REAL, alarm()'s: SIGALRM */
	update_process_times(f);
}

void __init time_init(void)
{
	outb(PIT_MODE, 0x34);		/* channel 0, lo/hi byte, mode 2 (rate generator) */
	outb(PIT_CH0, LATCH & 0xff);
	outb(PIT_CH0, LATCH >> 8);
	request_irq(TIMER_IRQ, timer_interrupt);
	pr_info("ronx: timer: PIT at %d Hz on IRQ %d, 8259 PIC at vectors %#x-%#x\n",
		HZ, TIMER_IRQ, FIRST_EXTERNAL_VECTOR, FIRST_EXTERNAL_VECTOR + 15);
}

static int cmd_uptime(int argc, char **argv)
{
	unsigned long j = jiffies;

	(void)argc;
	(void)argv;
	cprintf("up %lu.%02lu s (jiffies %lu, HZ %d; the clock runs only while the kernel waits or a process runs)\n",
		j / HZ, j % HZ, j, HZ);
	for (unsigned i = 0; i < NR_IRQS; i++)
		if (irq_count[i])
			cprintf("  IRQ %2u: %lu interrupts\n", i, irq_count[i]);
	return 0;
}
SHELL_COMMAND("uptime", cmd_uptime, "uptime", "jiffies since boot, and interrupts per IRQ");
