// SPDX-License-Identifier: GPL-2.0-only
/*
 * The console's input. COM1's interrupt puts each byte in a ring; readers
 * take them out, waiting with interrupts on while it is empty. A full
 * ring drops what comes (a real tty does the same) and counts it.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/console.h>
#include <ronx/spinlock.h>
#include <ronx/tty.h>

#define TTY_RING	256	/* a power of two */

static char ring[TTY_RING];
static unsigned ring_head, ring_tail;	/* free-running: tail - head bytes queued */
static DEFINE_SPINLOCK(tty_lock);
unsigned long tty_dropped;

void tty_receive(char c)
{
	unsigned long flags;

	spin_lock_irqsave(&tty_lock, flags);
	if (ring_tail - ring_head < TTY_RING)
		ring[ring_tail++ % TTY_RING] = c;
	else
		tty_dropped++;
	spin_unlock_irqrestore(&tty_lock, flags);
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

int tty_getc(void)
{
	int c;

	/* a byte that came before its interrupt was enabled raises no edge: poll too */
	serial_poll_rx();
	while ((c = tty_trygetc()) < 0)
		wait_for_interrupt();
	return c;
}

int tty_read_line(char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		char c = (char)tty_getc();

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
