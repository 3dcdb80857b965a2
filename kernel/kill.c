// SPDX-License-Identifier: GPL-2.0-only
/*
 * kill(2) between processes (Linux: kernel/signal.c, kill_something_info()).
 *
 * A signal the process catches, blocks or ignores is its handler's
 * business (kernel/signal_action.c). Otherwise its default action: one
 * that ends the process ends it (its wait status is the signal number),
 * one ignored by default (SIGCHLD, SIGCONT, SIGURG, SIGWINCH) does
 * nothing, and a stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) is
 * queued for the process to stop itself; SIGCONT resumes a stopped one
 * whatever its disposition (kernel/signal_stop.c). Signal 0 only asks
 * whether the process exists.
 *
 *   pid > 0    that process (a zombie too: Linux answers 0 and nothing happens)
 *   pid 0      every process of the caller's group (what one `run` started, or a job: setpgid)
 *   pid -1     every process but the caller
 *   pid < -1   every process of group -pid
 *
 * The shell is a kernel task: -EPERM, as Linux refuses to signal what
 * the caller may not. No such process: -ESRCH.
 *
 * Every lookup and every signal is under tasks_lock, held across the
 * whole walk: a slot cannot become another process between finding a
 * pid and signalling it, and a group kill and fork's last step (the
 * child leaving TASK_NEW, kernel/fork.c) are ordered: either the walk
 * sees the child, or fork sees the parent killed and abandons the child.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/stagestat.h>

#define SIGURG		23
#define SIGWINCH	28

static bool sig_ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

/* A signal whose default action ends the process (neither ignored nor a stop). */
bool sig_kills(int sig)
{
	return sig > 0 && sig <= _NSIG && !sig_ignored_by_default(sig) && !sig_stops(sig);
}

/* A process a kill may reach: set up, not yet a zombie (an exiting one still counts). */
static bool signalable(const struct task *t)
{
	return task_is_process(t) && t->state != TASK_ZOMBIE;
}

/* sig to a live process: a stop or continue's side effects, then queued or acted on. */
static void deliver_locked(struct task *t, int sig, int sender, bool tkill)
{
	prepare_signal_locked(t, sig);
	if (!signal_queue_locked(t, sig, sender, tkill) && sig_kills(sig))
		kill_task_locked(t, sig);
}

/*
 * One process: -ESRCH if it is not one, -EPERM for the kernel's task, else 0;
 * tasks_lock held. sender is si_pid: 0 for the kernel's own signals (the
 * tty's Ctrl-C, the shell's kill), which may come while no process runs.
 */
static int send_sig(struct task *t, int sig, int sender)
{
	if (t->state == TASK_UNUSED || t->state == TASK_NEW || t->state == TASK_DEAD)
		return -ESRCH;
	if (t->kthread)
		return -EPERM;
	if (sig && t->state != TASK_ZOMBIE)
		deliver_locked(t, sig, sender, false);
	return 0;
}

/* The kernel's own signal to t (alarm's SIGALRM): SI_KERNEL; tasks_lock held. */
void send_sig_kernel_locked(struct task *t, int sig)
{
	send_sig(t, sig, 0);
}

/* tgkill: one process, as kill(pid) but its siginfo says SI_TKILL. */
int tkill_pid(int pid, int sig)
{
	unsigned long flags;
	struct task *t;
	int ret;

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	spin_lock_irqsave(&tasks_lock, flags);
	t = find_task(pid);
	ret = t && signalable(t) ? 0 : -ESRCH;
	if (!ret && sig)
		deliver_locked(t, sig, current->pid, true);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}

/* Every process of group pgid, or (all) every one but the caller; tasks_lock held. */
static int send_sig_all_locked(int sig, int pgid, bool all)
{
	int ret = -ESRCH;

	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];
		int r;

		if (!signalable(t) || (all ? t == current : task_pgid(t) != pgid))
			continue;
		r = send_sig(t, sig, current->pid);
		if (ret)
			ret = r;
	}
	return ret;
}

/* 0 if one got it, else the first error (-ESRCH if none matched). */
static int send_sig_all(int sig, int pgid, bool all)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&tasks_lock, flags);
	ret = send_sig_all_locked(sig, pgid, all);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}

/* pid > 0: found and signalled in one hold of the lock, so never a reused slot's new process. */
static int send_sig_pid(int pid, int sig)
{
	unsigned long flags;
	struct task *t;
	int ret;

	spin_lock_irqsave(&tasks_lock, flags);
	/* a process signalling itself (raise(), lat_sig catch) is live: no walk of the table */
	t = pid == current->pid ? current : find_task(pid);
	ret = t ? send_sig(t, sig, current->pid) : -ESRCH;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ret;
}

long sys_kill(uint32_t upid, uint32_t usig)
{
	int pid = (int)upid, sig = (int)usig;
	long ret;

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	if (pid > 0) {
		sig_stage_start();
		ret = send_sig_pid(pid, sig);
		sig_stage_mark(ST_SIG_KILL);
		return ret;
	}
	if (pid == -1)
		return send_sig_all(sig, 0, true);
	if (pid == INT32_MIN)
		return -ESRCH;
	return send_sig_all(sig, pid ? -pid : task_pgid(current), false);
}

/*
 * Every process of group pgid gets sig (Ctrl-C: the foreground job's
 * group, as a Linux tty signals its foreground process group; the
 * shell's `kill -SIG -PGID`, Ctrl-Z's SIGTSTP, a background reader's
 * SIGTTIN); how many there were. A signal the process ignores, by
 * default or SIG_IGN, does nothing.
 */
int kill_pgrp(int pgid, int sig)
{
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (signalable(t) && task_pgid(t) == pgid) {
			send_sig(t, sig, 0);
			n++;
		}
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return n;
}
