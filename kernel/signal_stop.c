// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job control's stopped state (Linux: kernel/signal.c, prepare_signal(),
 * do_signal_stop(), do_notify_parent_cldstop()).
 *
 * SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU stop a process by default; the
 * last three may be caught or ignored instead, SIGSTOP never. Like any
 * signal they are queued (kernel/signal_action.c) and acted on by the
 * process itself on its way back to ring 3: do_signal() calls
 * do_signal_stop(), which sets TASK_STOPPED and gives up the CPU. The
 * scheduler runs only TASK_RUNNABLE tasks, so a stopped one stays off
 * every CPU until SIGCONT (or SIGKILL) makes it runnable again. A stop
 * sent from another CPU reaches a process running in ring 3 there by
 * the same IPI as a kill (wake_up_task_locked()).
 *
 * The rules of sending, applied before the signal is queued, whatever
 * its disposition (prepare_signal_locked()):
 *   - a stop signal discards a pending SIGCONT;
 *   - SIGCONT discards every pending stop signal, a stop taken but not
 *     yet done, and resumes a stopped process, even if SIGCONT is caught
 *     or ignored (a handler then runs too).
 * A stop of TSTP, TTIN or TTOU in an orphaned process group is dropped
 * (nobody is left to continue it), as Linux's get_signal() does.
 *
 * The parent learns of a stop and a continue by wait4 (WUNTRACED:
 * status sig << 8 | 0x7f, WCONTINUED: 0xffff, each reported once,
 * kernel/exit.c) and by SIGCHLD, unless its SIGCHLD action has
 * SA_NOCLDSTOP. A group left stopped with nobody to continue it gets
 * SIGHUP and SIGCONT (kill_orphaned_pgrp_locked()). Everything here is
 * under tasks_lock.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>
#include <ronx/signal.h>

#define SA_NOCLDSTOP	0x00000001u

#define STOP_SIGNALS	(sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))

bool sig_stops(int sig)
{
	return sig > 0 && sig <= _NSIG && (STOP_SIGNALS & sigmask(sig));
}

/* t stopped or continued: its parent's wait4 wakes, and it gets SIGCHLD unless SA_NOCLDSTOP. */
static void notify_parent_cldstop_locked(struct task *t)
{
	struct task *p = t->parent;

	if (!p)
		return;
	wakeup_locked(p);		/* wait4 sleeps on the waiting task */
	if (p->kthread || p->state == TASK_ZOMBIE || p->state == TASK_DEAD)
		return;			/* the kernel's shell has no signals */
	if (!(task_signals(p)->action[SIGCHLD - 1].flags & SA_NOCLDSTOP))
		signal_queue_locked(p, SIGCHLD, t->pid, false);
}

/* What sending sig does before it is queued (Linux: prepare_signal()). */
void prepare_signal_locked(struct task *t, int sig)
{
	struct task_signals *s = task_signals(t);

	if (sig_stops(sig)) {
		s->pending &= ~sigmask(SIGCONT);
		return;
	}
	if (sig != SIGCONT)
		return;
	s->pending &= ~STOP_SIGNALS;
	t->stop_pending = 0;
	if (t->state != TASK_STOPPED)
		return;
	t->stop_report = false;
	t->cont_report = true;
	wake_up_stopped_locked(t);
	notify_parent_cldstop_locked(t);
}

/*
 * do_signal() dequeued sig, a stop signal with its default action
 * (tasks_lock held): a stop to do, unless a SIGCONT comes first.
 */
void signal_stop_taken_locked(int sig)
{
	current->stop_pending = sig;
}

/*
 * current stops, unless a SIGCONT came since the stop was taken, or a
 * SIGKILL did, or its group is orphaned (SIGSTOP stops even then).
 * Returns when it runs again.
 */
void do_signal_stop(void)
{
	struct task *t = current;
	unsigned long flags;
	int sig;

	spin_lock_irqsave(&tasks_lock, flags);
	sig = t->stop_pending;
	t->stop_pending = 0;
	if (sig && !t->killed && (sig == SIGSTOP || !pgrp_orphaned_locked(task_pgid(t)))) {
		t->stop_sig = sig;
		t->stop_report = true;
		t->cont_report = false;
		t->state = TASK_STOPPED;
		notify_parent_cldstop_locked(t);
		schedule_locked();	/* back here at SIGCONT or SIGKILL */
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* A live process of group pgid is stopped; tasks_lock held. */
static bool pgrp_has_stopped_locked(int pgid)
{
	for (int i = 0; i < NR_TASKS; i++)
		if (tasks[i].state == TASK_STOPPED && task_pgid(&tasks[i]) == pgid)
			return true;
	return false;
}

/*
 * A parent exits and group pgid, its child's, is orphaned now: if a
 * process of it is stopped, nobody is left to continue it, so the group
 * gets SIGHUP, then SIGCONT (Linux: kill_orphaned_pgrp()). SIGHUP's
 * default ends them; a process that catches it goes on. tasks_lock held.
 */
void kill_orphaned_pgrp_locked(int pgid)
{
	if (!pgrp_has_stopped_locked(pgid) || !pgrp_orphaned_locked(pgid))
		return;
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (task_is_process(t) && t->state != TASK_ZOMBIE && task_pgid(t) == pgid) {
			send_sig_kernel_locked(t, SIGHUP);
			send_sig_kernel_locked(t, SIGCONT);
		}
	}
}

/* Would sig be dropped or left pending, rather than act now? (the tty's SIGTTIN) */
bool sig_ignored_or_blocked(struct task *t, int sig)
{
	const struct task_signals *s = task_signals(t);

	return s->action[sig - 1].handler == SIG_IGN || (s->blocked & sigmask(sig));
}
