// SPDX-License-Identifier: GPL-2.0-only
/*
 * The console's input. COM1's interrupt puts each byte in a ring; readers
 * take them out, sleeping while it is empty (or, before the scheduler
 * runs, waiting with interrupts on). A full ring drops what comes (a real
 * tty does the same) and counts it. Ctrl-C does not go into the ring
 * while a process group has the terminal: it kills that group (Linux's
 * tty sends SIGINT to its foreground group), nor does Ctrl-Z: it sends
 * SIGTSTP to that group, which stops (kernel/signal_stop.c).
 *
 * A process takes bytes only while its group is the terminal's
 * foreground group (kernel/drivers/tty_jobctrl.c), checked before each byte: one
 * that is not, or stops being while it waits, gets TTY_EIO and nothing
 * typed for another. The kernel's own readers (its shell, memview) are
 * not processes and always may. Whole lines go to one reader at a time:
 * read(0) serializes its readers (kernel/read_write.c).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/console.h>
#include <ronx/spinlock.h>
#include <ronx/tty.h>
#include <ronx/sched.h>
#include <ronx/process.h>
#include <ronx/signal.h>

#define TTY_RING	256	/* a power of two */

static char ring[TTY_RING];
static unsigned ring_head, ring_tail;	/* free-running: tail - head bytes queued */
static DEFINE_SPINLOCK(tty_lock);
unsigned long tty_dropped;

void tty_receive(char c)
{
	unsigned long flags;

	if (c == CTRL_C && tty_intr_foreground()) {
		console_write("^C\n", 3);
		return;
	}
	if (c == CTRL_Z && tty_stop_foreground()) {
		console_write("^Z\n", 3);
		return;
	}
	spin_lock_irqsave(&tty_lock, flags);
	if (ring_tail - ring_head < TTY_RING)
		ring[ring_tail++ % TTY_RING] = c;
	else
		tty_dropped++;
	spin_unlock_irqrestore(&tty_lock, flags);
	wakeup(ring);
}

/* May current take a typed byte? */
static bool may_read(void)
{
	return !current || !current->mm || tty_is_foreground(current);
}

/* Is a byte queued? (asked under tasks_lock before the reader sleeps) */
static bool tty_has_input(void)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&tty_lock, flags);
	any = ring_head != ring_tail;
	spin_unlock_irqrestore(&tty_lock, flags);
	return any;
}

/* A process with a signal to act on (a stop, a handler) leaves its read to take it. */
static bool reader_signalled(void)
{
	return current && current->mm && signal_pending(current);
}

/*
 * Wake a reader: a byte came, or (asked under tasks_lock too) it may no
 * longer read, or a signal came for it (kill's wakeup would be lost).
 */
static bool tty_reader_wakes(void)
{
	return tty_has_input() || !may_read() || reader_signalled();
}

void tty_wakeup_readers(void)
{
	wakeup(ring);
}

/* A key is waiting (memview -w stops at one). */
bool tty_input_pending(void)
{
	serial_poll_rx();
	return tty_has_input();
}

/* The next byte, or -1 if none is queued. */
static int tty_trygetc(void)
{
	unsigned long flags;
	int c = -1;

	spin_lock_irqsave(&tty_lock, flags);
	if (ring_head != ring_tail)
		c = (unsigned char)ring[ring_head++ % TTY_RING];
	spin_unlock_irqrestore(&tty_lock, flags);
	return c;
}

/*
 * The next byte; TTY_INTR if the reader was killed while it waited,
 * TTY_EIO if its group is not (or no longer) the one in front.
 */
int tty_getc(void)
{
	int c;

	/* a byte that came before its interrupt was enabled raises no edge: poll too */
	serial_poll_rx();
	for (;;) {
		if (!may_read())
			return TTY_EIO;
		c = tty_trygetc();
		if (c >= 0)
			return c;
		if (!current)
			wait_for_interrupt();
		else if (current->killed)
			return TTY_INTR;
		else if (reader_signalled())
			return TTY_RESTART;
		else
			sleep_on_unless(ring, tty_reader_wakes);
	}
}

int tty_read_line(char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		int got = tty_getc();
		char c = (char)got;

		if (got < 0) {		/* killed, or sent to the background: the line goes */
			buf[0] = '\0';
			return got;
		}
		if (c == '\r' || c == '\n') {
			console_write("\n", 1);
			break;
		}
		if (c == CTRL_C) {
			console_write("^C\n", 3);
			buf[0] = '\0';
			return TTY_INTR;
		}
		if (c == CTRL_D && n == 0) {
			buf[0] = '\0';
			return TTY_EOF;
		}
		if (c == 0x7f || c == '\b') {
			if (n) {
				n--;
				console_write("\b \b", 3);
			}
			continue;
		}
		if (c >= ' ' && n + 1 < size) {
			buf[n++] = c;
			console_write(&c, 1);
		}
	}
	buf[n] = '\0';
	return (int)n;
}
