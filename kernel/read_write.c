// SPDX-License-Identifier: GPL-2.0-only
/*
 * read(2) and write(2). ronx has no files: descriptors 0, 1 and 2 are the
 * console (as a shell's terminal), anything else is -EBADF. read() hands
 * out one edited line at a time, as a terminal in canonical mode does;
 * Ctrl-D on an empty line is end of file. A background process (run ... &)
 * reads end of file at once, as a shell without job control gives it
 * /dev/null. Only the terminal's foreground process group reads
 * (kernel/drivers/tty_jobctrl.c): a background group of its session is
 * sent SIGTTIN and stops, its read restarted when it is continued; it
 * gets -EIO if SIGTTIN cannot stop it (ignored, blocked, an orphaned
 * group), as a process of another session does; never a byte typed for
 * the group in front. A signal to act on ends a wait for a line
 * (-ERESTARTSYS): Ctrl-Z stops a reader, and the line typed so far goes.
 *
 * The line read() hands out is its reader's alone: what it leaves unread
 * belongs to that process (its pid, never reused, not its task slot,
 * which is) and goes when it exits (tty_release_line()). The next process
 * waits for a line typed after; the shell reads its commands from the
 * ring, never from here. docs/user-mode.md says how Linux differs.
 *
 * Why a lock (issue 34): this state was once shared with no lock. Readers
 * on two CPUs that finished together each added their count to line_pos,
 * which passed line_len; line_len - line_pos wrapped to nearly 4G and
 * read() copied 8 KiB from past line[]: the task table, kernel stack
 * addresses. Now one reader at a time takes a line from the ring
 * (ring_reader, a sleeping ownership: tty_read_line() sleeps, so no
 * spinlock can be held over it), the rest of a line is taken and moved
 * only under line_lock, and what a reader gets is copied to its own
 * kernel buffer first: copy_to_user() may fault and sleep, so it runs
 * with no lock, on bytes nobody else can change.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/spinlock.h>
#include <ronx/uaccess.h>
#include <ronx/tty.h>
#include <ronx/sched.h>
#include <ronx/syscall.h>

#define LINE_SIZE	258	/* a line of 256, its newline, tty_read_line()'s NUL */

static DEFINE_SPINLOCK(line_lock);	/* taken alone */
static char line[LINE_SIZE];
static unsigned line_len, line_pos;	/* what is left: line_pos <= line_len, always */
static int line_owner = -1;		/* its reader's pid: nobody else gets the rest */
static int ring_reader = -1;		/* the pid whose read() reads the ring, -1: none */

/* The rest of a line nobody will read: forgotten, as its bytes; line_lock held. */
static void drop_line(void)
{
	memset(line, 0, sizeof(line));
	line_pos = line_len = 0;
	line_owner = -1;
}

/* A process exits: the rest of its line goes with it (never sleeps). */
void tty_release_line(const struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&line_lock, flags);
	if (line_owner == t->pid)
		drop_line();
	spin_unlock_irqrestore(&line_lock, flags);
}

/* At most count bytes of the caller's rest of a line, copied to kbuf; 0 if it has none. */
static unsigned long take_rest(char *kbuf, unsigned long count)
{
	unsigned long flags, n;

	spin_lock_irqsave(&line_lock, flags);
	if (line_owner != current->pid)
		drop_line();
	n = line_len - line_pos;	/* no wrap: line_pos only grows by n <= this */
	if (n > count)
		n = count;
	memcpy(kbuf, line + line_pos, n);
	line_pos += n;
	spin_unlock_irqrestore(&line_lock, flags);
	return n;
}

/* Keep bytes [count, got) of a new line as the caller's rest; line_lock held. */
static void keep_rest(const char *kbuf, unsigned long count, unsigned long got)
{
	drop_line();
	memcpy(line, kbuf + count, got - count);
	line_len = got - count;
	line_pos = 0;
	line_owner = current->pid;
}

/* Wake a reader waiting for the ring: it is free, or this one may no longer read. */
static bool ring_free(void *arg)
{
	(void)arg;
	return __atomic_load_n(&ring_reader, __ATOMIC_RELAXED) < 0 || !tty_is_foreground(current);
}

/* The ring is the caller's until release_ring(); -EINTR if killed, -EIO if sent back. */
static long claim_ring(void)
{
	unsigned long flags;
	bool mine;

	for (;;) {
		spin_lock_irqsave(&line_lock, flags);
		if (ring_reader < 0)
			ring_reader = current->pid;
		mine = ring_reader == current->pid;
		spin_unlock_irqrestore(&line_lock, flags);
		if (mine)
			return 0;
		if (current->killed)
			return -EINTR;
		if (!tty_is_foreground(current))
			return -EIO;
		sleep_on_until(&ring_reader, ring_free, 0);
	}
}

/*
 * A new line from the ring into kbuf (LINE_SIZE bytes), with its newline:
 * count bytes of it are the caller's now, the rest kept for its next read.
 * The byte count, 0 at end of file, or -EINTR / -EIO.
 */
static long read_new_line(char *kbuf, unsigned long count)
{
	unsigned long flags;
	long got = claim_ring();

	if (got)
		return got;
	got = tty_read_line(kbuf, LINE_SIZE - 1);
	if (got >= 0)
		kbuf[got++] = '\n';	/* got <= LINE_SIZE - 2 before: within kbuf */
	spin_lock_irqsave(&line_lock, flags);
	ring_reader = -1;
	if (got > 0 && (unsigned long)got > count) {
		keep_rest(kbuf, count, (unsigned long)got);
		got = (long)count;
	}
	spin_unlock_irqrestore(&line_lock, flags);
	wakeup(&ring_reader);
	if (got == TTY_EOF)
		return 0;
	if (got == TTY_INTR)
		return -EINTR;
	if (got == TTY_EIO)
		return -EIO;
	if (got == TTY_RESTART)
		return -ERESTARTSYS;	/* a stop, or a handler: read again after it */
	return got;
}

long ksys_read(unsigned fd, char *buf, unsigned long count)
{
	char kbuf[LINE_SIZE];
	long n;

	if (fd > 2)
		return -EBADF;
	if (!access_ok(buf, count))
		return -EFAULT;
	if (!count || current->background)
		return 0;
	n = tty_check_read();		/* a background group: SIGTTIN, or -EIO */
	if (n)
		return n;
	n = (long)take_rest(kbuf, count);
	if (!n)
		n = read_new_line(kbuf, count);
	if (n > 0 && copy_to_user(buf, kbuf, (unsigned long)n))
		return -EFAULT;
	return n;
}

/* The next piece of a write: at most n bytes, ending at the first newline. */
static unsigned long console_piece(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (s[i] == '\n')
			return i + 1;
	return n;
}

/*
 * One piece out, unless the writer has been killed: asked under
 * console_lock, which every console line takes, the shell's prompt too.
 * A kill comes before the prompt that follows it (Ctrl-C, then the
 * foreground's exit, then the prompt), so a process killed by then
 * cannot print after the prompt: the check and the bytes are one step.
 */
static bool write_unless_killed(const char *s, unsigned long n)
{
	unsigned long flags = console_lock_irqsave();
	bool killed = fatal_signal_pending(current);

	if (!killed)
		console_write(s, n);
	console_unlock_irqrestore(flags);
	return !killed;
}

/*
 * Copied 128 bytes at a time, written a line at a time: console_write()
 * holds console_lock, interrupts off, for one line, whose newline may
 * scroll the VGA screen (0.4 ms under TCG). Between lines, interrupts are
 * on (the system call runs so): another CPU waiting to print gets the
 * lock (console_handover()), Ctrl-C and kill land, the timer's end of
 * a slice gives the CPU away (cond_resched()), and a kill ends the write
 * as Linux's tty write does: the bytes written so far, or -EINTR if none
 * (Linux's -ERESTARTSYS; a kill is fatal, so no restart: the process
 * dies on its way back to ring 3 anyway).
 */
long ksys_write(unsigned fd, const char *buf, unsigned long count)
{
	char chunk[128];
	unsigned long done = 0;

	if (fd > 2)
		return -EBADF;
	if (!access_ok(buf, count))
		return -EFAULT;
	while (done < count) {
		unsigned long n = count - done < sizeof(chunk) ? count - done : sizeof(chunk);
		unsigned long left = copy_from_user(chunk, buf + done, n);

		for (unsigned long off = 0, piece; off < n - left; off += piece) {
			piece = console_piece(chunk + off, n - left - off);
			if (!write_unless_killed(chunk + off, piece))
				return done ? (long)done : -EINTR;
			done += piece;
			console_handover();
			cond_resched();
		}
		if (left)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}
