// SPDX-License-Identifier: GPL-2.0-only
/*
 * kill(2) between processes (Linux: kernel/signal.c, kill_something_info()).
 *
 * ronx has no signal handlers: a signal whose default action is to end
 * the process ends it (its wait status is the signal number), one whose
 * default is to be ignored (SIGCHLD, SIGCONT, SIGURG, SIGWINCH) does
 * nothing, and the stop signals (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) do
 * nothing either: ronx has no stopped state. Signal 0 only asks whether
 * the process exists.
 *
 *   pid > 0    that process (a zombie too: Linux answers 0 and nothing happens)
 *   pid 0      every process of the caller's group (what one `run` started, or a job: setpgid)
 *   pid -1     every process but the caller
 *   pid < -1   every process of group -pid
 *
 * The shell is a kernel task: -EPERM, as Linux refuses to signal what
 * the caller may not. No such process: -ESRCH.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>

#define _NSIG		64
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGTSTP		20
#define SIGTTIN		21
#define SIGTTOU		22
#define SIGURG		23
#define SIGWINCH	28

static bool sig_ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH ||
	       (sig >= SIGSTOP && sig <= SIGTTOU);
}

/* One process: -ESRCH if it is not one, -EPERM for the kernel's task, else 0. */
static int send_sig(struct task *t, int sig)
{
	if (t->state == TASK_UNUSED || t->state == TASK_NEW)
		return -ESRCH;
	if (!t->mm && t->state != TASK_ZOMBIE)
		return -EPERM;
	if (sig && t->state != TASK_ZOMBIE && !sig_ignored_by_default(sig))
		kill_task(t, sig);
	return 0;
}

/* Every process that match() picks: 0 if one got it, else the first error (-ESRCH if none). */
static int send_sig_all(int sig, int pgid, bool all)
{
	int ret = -ESRCH;

	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];
		int r;

		if (t->state == TASK_UNUSED || t->state == TASK_NEW || t->state == TASK_ZOMBIE ||
		    !t->mm || (all ? t == current : task_pgid(t) != pgid))
			continue;
		r = send_sig(t, sig);
		if (ret)
			ret = r;
	}
	return ret;
}

long sys_kill(uint32_t upid, uint32_t usig)
{
	int pid = (int)upid, sig = (int)usig;
	struct task *t;

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	if (pid > 0) {
		t = find_task(pid);
		return t ? send_sig(t, sig) : -ESRCH;
	}
	if (pid == -1)
		return send_sig_all(sig, 0, true);
	if (pid == INT32_MIN)
		return -ESRCH;
	return send_sig_all(sig, pid ? -pid : task_pgid(current), false);
}

/*
 * Ctrl-C: every process of the foreground job's group gets sig, as a
 * Linux tty signals its foreground process group (the children a
 * foreground program forked die with it).
 */
void kill_pgrp(int pgid, int sig)
{
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->state != TASK_UNUSED && t->state != TASK_NEW && t->state != TASK_ZOMBIE &&
		    t->mm && task_pgid(t) == pgid)
			kill_task(t, sig);
	}
}
