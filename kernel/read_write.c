// SPDX-License-Identifier: GPL-2.0-only
/*
 * read(2) and write(2). ronx has no files: descriptors 0, 1 and 2 are the
 * console (as a shell's terminal), anything else is -EBADF. read() hands
 * out one edited line at a time, as a terminal in canonical mode does;
 * Ctrl-D on an empty line is end of file. A background process (run ... &)
 * reads end of file at once, as a shell without job control gives it
 * /dev/null.
 *
 * The line read() hands out is its reader's alone: what it leaves unread
 * belongs to that process (its pid, never reused, not its task slot,
 * which is) and goes when it exits (tty_release_line()). The next process
 * waits for a line typed after; the shell reads its commands from the
 * ring, never from here. docs/user-mode.md says how Linux differs.
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/uaccess.h>
#include <ronx/tty.h>
#include <ronx/sched.h>
#include <ronx/syscall.h>

static char line[258];
static int line_len, line_pos;		/* what the last line has left to hand out */
static int line_owner = -1;		/* its reader's pid: nobody else gets the rest */

/* The rest of a line nobody will read: forgotten, as its bytes. */
static void drop_line(void)
{
	memset(line, 0, sizeof(line));
	line_pos = line_len = 0;
	line_owner = -1;
}

/* A process exits: the rest of its line goes with it. */
void tty_release_line(const struct task *t)
{
	if (line_owner == t->pid)
		drop_line();
}

long ksys_read(unsigned fd, char *buf, unsigned long count)
{
	unsigned long n;

	if (fd > 2)
		return -EBADF;
	if (!access_ok(buf, count))
		return -EFAULT;
	if (!count || current->background)
		return 0;
	if (line_owner != current->pid)
		drop_line();
	if (line_pos == line_len) {
		int got = tty_read_line(line, sizeof(line) - 1);

		if (got == TTY_EOF)
			return 0;
		if (got == TTY_INTR)
			return -EINTR;
		line[got] = '\n';
		line_len = got + 1;
		line_pos = 0;
		line_owner = current->pid;
	}
	n = (unsigned long)(line_len - line_pos);
	if (n > count)
		n = count;
	if (copy_to_user(buf, line + line_pos, n))
		return -EFAULT;
	line_pos += (int)n;
	return (long)n;
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
 * (Linux's -ERESTARTSYS; ronx has no handlers, so no restart, and the
 * process dies on its way back to ring 3 anyway).
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
