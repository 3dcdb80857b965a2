// SPDX-License-Identifier: GPL-2.0-only
/*
 * The console's job control (Linux: drivers/tty/tty_jobctrl.c): which
 * session the terminal belongs to, and which of that session's process
 * groups is in the foreground. Only the foreground group reads what is
 * typed (kernel/drivers/tty.c); Ctrl-C kills that group (kernel/process.c).
 *
 * `run PROG` makes PROG a session of its own and gives it the terminal
 * with PROG's group in front, as a login does (Linux: setsid, then the
 * first open of the tty makes it the controlling one). When PROG, the
 * session's leader, exits, the console goes back to the kernel's shell.
 * `run PROG &` is a session without the terminal: it reads end of file
 * (kernel/read_write.c) and its ioctls are -ENOTTY.
 *
 * A background group of the session that reads is sent SIGTTIN and
 * stops (tty_check_read()); Ctrl-Z sends SIGTSTP to the group in front
 * (kernel/drivers/tty.c). Writes are allowed from any group, Linux's
 * default (no TOSTOP: ronx has no termios to set it), so SIGTTOU is
 * never sent by a write.
 *
 * ioctl(2) on fds 0-2 knows two requests, with Linux's rules and errnos:
 *   TIOCGPGRP  the foreground group; -ENOTTY outside the terminal's session
 *   TIOCSPGRP  make a group of the caller's session the foreground one:
 *              -ENOTTY outside the session, -EINVAL for a negative group,
 *              -ESRCH for no such group, -EPERM for another session's.
 * Linux sends SIGTTOU to a background group that calls TIOCSPGRP (it
 * stops, unless it ignores SIGTTOU: a shell does, so it may take the
 * terminal back). ronx sends no SIGTTOU here (an older rule, kept): a
 * caller outside the foreground group gets -ENOTTY, Linux's answer when SIGTTOU
 * cannot stop it (an orphaned group), except the session's leader, which
 * is allowed as a shell ignoring SIGTTOU is, and the group that gave the
 * terminal to a group that is now gone (a sh started by sh takes it back
 * from its ended job; any other background group still cannot, so it
 * cannot grab what is typed next). Every other request: -ENOTTY.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/uaccess.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/syscall.h>
#include <ronx/tty.h>

#define TIOCGPGRP	0x540F
#define TIOCSPGRP	0x5410

/* taken alone, or inside tasks_lock (a reader's sleep test) */
static DEFINE_SPINLOCK(tty_pgrp_lock);
static int tty_session;		/* its leader's pid; 0: the kernel's shell has the console */
static int tty_pgrp;		/* the foreground group; 0: none */
static int tty_gave_pgrp;	/* the group that put tty_pgrp in front */

/* `run PROG` in the foreground: the terminal is PROG's session's, PROG's group in front. */
void tty_set_session(const struct task *leader)
{
	unsigned long flags;

	spin_lock_irqsave(&tty_pgrp_lock, flags);
	tty_session = task_sid(leader);
	tty_pgrp = task_pgid(leader);
	tty_gave_pgrp = 0;
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
}

/*
 * t exits: if it led the terminal's session, the console goes back to
 * the kernel's shell, and a reader left in that session wakes to -EIO.
 */
void tty_session_exit(const struct task *t)
{
	unsigned long flags;
	bool was_leader;

	spin_lock_irqsave(&tty_pgrp_lock, flags);
	was_leader = tty_session && tty_session == t->pid;
	if (was_leader)
		tty_session = tty_pgrp = 0;
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	if (was_leader)
		tty_wakeup_readers();
}

/* The foreground group, 0 if none (Ctrl-C). */
int tty_foreground_pgrp(void)
{
	unsigned long flags;
	int pgrp;

	spin_lock_irqsave(&tty_pgrp_lock, flags);
	pgrp = tty_pgrp;
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	return pgrp;
}

/* Is t's group the one in front? (pgids are pids, never reused: no session check needed) */
bool tty_is_foreground(const struct task *t)
{
	int pgrp = tty_foreground_pgrp();

	return pgrp && task_pgid(t) == pgrp;
}

/* The terminal is the caller's: its session holds it (Linux: current->signal->tty). */
static bool tty_is_ours(void)
{
	return tty_session && tty_session == task_sid(current);
}

/*
 * May current read the terminal? (Linux: job_control(), __tty_check_change())
 * Its group in front: yes. Another session's process: -EIO, as ever. A
 * background group of the terminal's session is sent SIGTTIN and the
 * read is restarted once the group is continued (-ERESTARTSYS): by then
 * the shell may have put it in front (fg). If SIGTTIN cannot stop it
 * (ignored, blocked, or the group orphaned), -EIO.
 */
long tty_check_read(void)
{
	unsigned long flags;
	bool ours;
	int pgrp = task_pgid(current);

	if (tty_is_foreground(current))
		return 0;
	spin_lock_irqsave(&tty_pgrp_lock, flags);
	ours = tty_is_ours();
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	if (!ours || sig_ignored_or_blocked(current, SIGTTIN) || pgrp_orphaned(pgrp))
		return -EIO;
	kill_pgrp(pgrp, SIGTTIN);
	return -ERESTARTSYS;
}

static long tiocgpgrp(int __user *p)
{
	unsigned long flags;
	int pgrp = -1;

	spin_lock_irqsave(&tty_pgrp_lock, flags);
	if (tty_is_ours())
		pgrp = tty_pgrp;
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	if (pgrp < 0)
		return -ENOTTY;
	return put_user(pgrp, p) ? -EFAULT : 0;
}

/*
 * Did the caller's group give the terminal to a group that has since
 * gone? pgids are pids, never reused, so a group with no process left
 * stays empty: the answer cannot change between here and the switch.
 */
static bool tty_takes_back(void)
{
	unsigned long flags;
	int front, gave;

	spin_lock_irqsave(&tty_pgrp_lock, flags);
	front = tty_pgrp;
	gave = tty_gave_pgrp;
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	return gave && gave == task_pgid(current) && pgrp_session(front) < 0;
}

static long tiocspgrp(const int __user *p)
{
	unsigned long flags;
	int pgrp, sid = task_sid(current), group_sid;
	long ret = 0;

	/* Linux's tty_check_change(): a background caller would get SIGTTOU */
	if (!tty_is_foreground(current) && current->pid != sid && !tty_takes_back())
		return -ENOTTY;
	if (get_user(pgrp, p))
		return -EFAULT;
	if (pgrp < 0)
		return -EINVAL;
	group_sid = pgrp_session(pgrp);
	spin_lock_irqsave(&tty_pgrp_lock, flags);
	if (!tty_is_ours())
		ret = -ENOTTY;
	else if (group_sid < 0)
		ret = -ESRCH;
	else if (group_sid != sid)
		ret = -EPERM;
	else if (pgrp != tty_pgrp) {
		tty_gave_pgrp = task_pgid(current);
		tty_pgrp = pgrp;
	}
	spin_unlock_irqrestore(&tty_pgrp_lock, flags);
	/* readers of the group that lost the terminal leave with -EIO */
	if (!ret)
		tty_wakeup_readers();
	return ret;
}

long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg)
{
	if (fd > 2)
		return -EBADF;
	switch (cmd) {
	case TIOCGPGRP:
		return tiocgpgrp((int __user *)arg);
	case TIOCSPGRP:
		return tiocspgrp((const int __user *)arg);
	}
	return -ENOTTY;
}
