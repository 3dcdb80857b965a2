// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process groups and sessions (Linux: kernel/sys.c): setpgid(2),
 * getpgid(2), getpgrp(2), setsid(2).
 *
 * A session is what one `run` started: the process and everything it
 * forks (t->sid, copied by fork). A group is a job inside it (t->pgid):
 * the shell puts each job in a group of its own, and the terminal reads
 * for one group at a time (kernel/drivers/tty_jobctrl.c). Both are named by
 * their first process's pid, and pids are never reused.
 *
 * setpgid's rules are Linux's: only the caller or its child (-ESRCH),
 * a child of the same session (-EPERM), never a session leader (-EPERM),
 * and into an existing group of the caller's session or a new one named
 * by the process's own pid (-EPERM). Linux also refuses a child that has
 * called execve (-EACCES); ronx does not remember that, so a shell's
 * late setpgid of its child, which Linux refuses, succeeds here to the
 * same effect.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>

/* The session of group pgid's processes; tasks_lock held. -ESRCH: no such group. */
static int pgrp_session_locked(int pgid)
{
	for (int i = 0; i < NR_TASKS; i++)
		if (task_is_process(&tasks[i]) && task_pgid(&tasks[i]) == pgid)
			return task_sid(&tasks[i]);
	return -ESRCH;
}

int pgrp_session(int pgid)
{
	unsigned long flags;
	int sid;

	spin_lock_irqsave(&tasks_lock, flags);
	sid = pgrp_session_locked(pgid);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return sid;
}

/*
 * Is group pgid orphaned: has none of its living processes a parent in
 * another group of the same session? Then no shell is left to continue
 * it, and job control must not stop it: the tty's read is -EIO, a
 * SIGTSTP is dropped (Linux: is_current_pgrp_orphaned()). The kernel's
 * shell, a parent of no session, counts as outside. tasks_lock held.
 */
bool pgrp_orphaned_locked(int pgid)
{
	for (int i = 0; i < NR_TASKS; i++) {
		const struct task *t = &tasks[i], *p = t->parent;

		if (!task_is_process(t) || t->state == TASK_ZOMBIE || task_pgid(t) != pgid)
			continue;
		if (p && task_is_process(p) && p->state != TASK_ZOMBIE &&
		    task_pgid(p) != pgid && task_sid(p) == task_sid(t))
			return false;
	}
	return true;
}

bool pgrp_orphaned(int pgid)
{
	unsigned long flags;
	bool orphaned;

	spin_lock_irqsave(&tasks_lock, flags);
	orphaned = pgrp_orphaned_locked(pgid);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return orphaned;
}

static long setpgid_locked(int pid, int pgid)
{
	struct task *t = pid ? find_task(pid) : current;

	if (!t || !task_is_process(t) || (t != current && t->parent != current))
		return -ESRCH;
	if (!pgid)
		pgid = t->pid;
	if (task_sid(t) != task_sid(current) || task_sid(t) == t->pid)
		return -EPERM;
	if (pgid != t->pid && pgrp_session_locked(pgid) != task_sid(current))
		return -EPERM;
	t->pgid = pgid;
	return 0;
}

long sys_setpgid(uint32_t upid, uint32_t upgid)
{
	int pid = (int)upid, pgid = (int)upgid;
	unsigned long flags;
	long ret;

	if (pgid < 0)
		return -EINVAL;		/* a negative pid is nobody's: -ESRCH below */
	spin_lock_irqsave(&tasks_lock, flags);
	ret = setpgid_locked(pid, pgid);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}

long sys_getpgid(uint32_t upid)
{
	int pid = (int)upid;
	unsigned long flags;
	struct task *t;
	long ret = -ESRCH;

	if (pid < 0)
		return -ESRCH;
	spin_lock_irqsave(&tasks_lock, flags);
	t = pid ? find_task(pid) : current;
	if (t && task_is_process(t))
		ret = task_pgid(t);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}

long sys_getpgrp(void)
{
	return task_pgid(current);
}

/*
 * A new session, with a new group, both named by the caller's pid; not
 * for a group's leader (-EPERM), whose group would be left in the old
 * session. The new session has no terminal: its read(0) is -EIO.
 */
long sys_setsid(void)
{
	struct task *t = current;
	unsigned long flags;
	long ret = -EPERM;

	spin_lock_irqsave(&tasks_lock, flags);
	if (pgrp_session_locked(t->pid) < 0) {
		t->pgid = t->sid = t->pid;
		ret = t->pid;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}
