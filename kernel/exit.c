// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's parent: wait4(2), waitpid(2), getppid(2), and what becomes
 * of children whose parent exits (Linux: kernel/exit.c).
 *
 * A process that exits is a zombie until its parent collects its status
 * with wait4; its slot then goes back. Linux gives the children of an
 * exiting process to init (pid 1), which always waits for them; ronx has
 * no init process: the shell, the kernel task pid 0, adopts them (so an
 * orphan's getppid() is 0), but it waits only at its own prompt, and
 * under `run sh` that prompt may not come for long. So an orphan is
 * marked autoreap, as Linux's children of a parent that ignores
 * SIGCHLD: its slot goes back the moment it is a zombie off its stack
 * (release_task_locked(), kernel/sched.c), whatever runs in the
 * foreground, and nobody reads its status. The shell's own `run ... &`
 * jobs are not orphans: it still reports them before its prompt
 * ("[7] forktest: exit status 0").
 *
 * The status is Linux's: exit code << 8 for a normal exit, the signal
 * number for a kill (no core dumps, so never 0x80); with WUNTRACED a
 * stop, sig << 8 | 0x7f, with WCONTINUED a SIGCONT, 0xffff, each once
 * (kernel/signal_stop.c).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>
#include <ronx/uaccess.h>
#include <ronx/irq.h>
#include <ronx/process.h>
#include <ronx/signal.h>

#define WNOHANG		0x00000001
#define WUNTRACED	0x00000002
#define WCONTINUED	0x00000008
#define __WNOTHREAD	0x20000000
#define __WALL		0x40000000
#define __WCLONE	0x80000000

/* The task that adopts orphans: the shell, pid 0. */
static struct task *child_reaper(void)
{
	for (int i = 0; i < NR_TASKS; i++)
		if (tasks[i].state != TASK_UNUSED && tasks[i].pid == 0)
			return &tasks[i];
	return 0;
}

/*
 * current is exiting: its children go to the shell, autoreaped (one that
 * is a zombie already goes at once: off its stack, since we see it a
 * zombie under tasks_lock), and a parent that vforked it goes on (Linux:
 * exit_notify(), forget_original_parent()).
 */
void exit_notify(void)
{
	struct task *reaper = child_reaper();
	unsigned long flags;

	vfork_child_done(current);
	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->state == TASK_UNUSED || t->state == TASK_DEAD || t->parent != current)
			continue;
		t->parent = reaper;
		t->autoreap = true;
		if (t->state == TASK_ZOMBIE)
			release_task_locked(t);
	}
	/* a stopped job left with nobody to continue it (sh exits): SIGHUP, SIGCONT */
	for (int i = 0; i < NR_TASKS; i++)
		if (tasks[i].parent == reaper && tasks[i].autoreap && tasks[i].state != TASK_DEAD &&
		    tasks[i].state != TASK_UNUSED && task_pgid(&tasks[i]) != task_pgid(current))
			kill_orphaned_pgrp_locked(task_pgid(&tasks[i]));
	spin_unlock_irqrestore(&tasks_lock, flags);
}

long sys_getppid(void)
{
	struct task *p = current->parent;

	return p ? p->pid : 0;
}

/* What one wait4 looks for, and what it found (tasks_lock held while it looks). */
struct wait_opts {
	int pid;			/* > 0 that child; -1 any; 0 any in the caller's group */
	unsigned options;		/* WUNTRACED, WCONTINUED: stops and continues too */
	struct task *zombie;		/* a child that matched and has exited */
	int stopped_pid, stopped_status;	/* or one that stopped or continued (0: none) */
	bool children;			/* any child matched at all */
};

static bool child_matches(const struct task *t, const struct wait_opts *wo)
{
	if (wo->pid > 0)
		return t->pid == wo->pid;
	if (wo->pid == 0)
		return task_pgid(t) == task_pgid(current);
	return true;
}

/*
 * A stop (WUNTRACED) or continue (WCONTINUED) of t not yet reported:
 * taken, so each is reported once, as Linux's wait_task_stopped() and
 * wait_task_continued() do. Linux's statuses: sig << 8 | 0x7f, 0xffff.
 * tasks_lock held.
 */
static bool job_control_report(struct task *t, struct wait_opts *wo)
{
	if ((wo->options & WUNTRACED) && t->state == TASK_STOPPED && t->stop_report) {
		t->stop_report = false;
		wo->stopped_status = t->stop_sig << 8 | 0x7f;
	} else if ((wo->options & WCONTINUED) && t->cont_report) {
		t->cont_report = false;
		wo->stopped_status = 0xffff;
	} else {
		return false;
	}
	wo->stopped_pid = t->pid;
	return true;
}

static bool wait_ready(void *arg)
{
	struct wait_opts *wo = arg;

	wo->zombie = 0;
	wo->stopped_pid = 0;
	wo->children = false;
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		/* a DEAD slot was collected already: only a reference keeps it */
		if (t->state == TASK_UNUSED || t->state == TASK_NEW || t->state == TASK_DEAD ||
		    t->parent != current || !child_matches(t, wo))
			continue;
		wo->children = true;
		if (t->state == TASK_ZOMBIE) {
			wo->zombie = t;
			return true;
		}
		if (job_control_report(t, wo))
			return true;
	}
	return !wo->children;
}

/* Linux's struct rusage on i386: two timevals and fourteen longs. */
struct rusage32 {
	int32_t ru_utime[2], ru_stime[2];
	int32_t rest[14];
};

/* wait4 found a stop or a continue: the child stays, its status is written. */
static long report_stopped(int pid, int status, uint32_t stat_addr, uint32_t ru)
{
	struct rusage32 r = { 0 };

	if (stat_addr && put_user(status, (int __user *)stat_addr))
		return -EFAULT;
	if (ru && copy_to_user((void __user *)ru, &r, sizeof(r)))
		return -EFAULT;
	return pid;
}

/*
 * wait4(2). The child is reaped even if the status or rusage cannot be
 * written: Linux then returns -EFAULT with the child gone, and so does
 * ronx. rusage is zero but for the user time, in timer ticks (HZ).
 */
long sys_wait4(uint32_t upid, uint32_t stat_addr, uint32_t options, uint32_t ru)
{
	struct wait_opts wo = { .pid = (int)upid, .options = options };
	struct rusage32 r = { 0 };
	unsigned long flags;
	int pid, status;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if ((int)upid == INT32_MIN)
		return -ESRCH;		/* Linux: -INT_MIN does not exist */
	if ((int)upid < -1)
		return -ECHILD;		/* no process groups but the caller's: none match */
	for (;;) {
		if (options & WNOHANG) {
			spin_lock_irqsave(&tasks_lock, flags);
			wait_ready(&wo);
			spin_unlock_irqrestore(&tasks_lock, flags);
		} else {
			sleep_on_until_signal(current, wait_ready, &wo, true);
		}
		if (wo.zombie)
			break;
		if (wo.stopped_pid)
			return report_stopped(wo.stopped_pid, wo.stopped_status, stat_addr, ru);
		if (!wo.children)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		if (signal_pending(current))
			return -ERESTARTSYS;	/* a kill, or a handler's signal */
	}
	pid = wo.zombie->pid;
	status = wo.zombie->exit_code;
	r.ru_utime[0] = (int32_t)(wo.zombie->runtime / HZ);
	r.ru_utime[1] = (int32_t)(wo.zombie->runtime % HZ * (1000000 / HZ));
	free_task(wo.zombie);
	if (stat_addr && put_user(status, (int __user *)stat_addr))
		return -EFAULT;
	if (ru && copy_to_user((void __user *)ru, &r, sizeof(r)))
		return -EFAULT;
	return pid;
}

long sys_waitpid(uint32_t pid, uint32_t stat_addr, uint32_t options)
{
	return sys_wait4(pid, stat_addr, options, 0);
}
