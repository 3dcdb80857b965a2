// SPDX-License-Identifier: GPL-2.0-only
/*
 * fork(2) and vfork(2) (Linux: kernel/fork.c).
 *
 * The child is a new task whose user registers are the parent's, but
 * with eax 0, and whose address space is a copy-on-write copy of the
 * parent's (dup_mm(), mm/memory.c): every frame is shared, a private
 * writable one read-only in both until one of them writes it. The child
 * returns to ring 3 through ret_from_fork and ret_from_trap, exactly as
 * a process that `run` started does, just with other registers.
 *
 * vfork: Linux's child borrows the parent's mm until it calls execve or
 * _exit, and the parent sleeps until then. ronx's child gets its own
 * copy-on-write mm, as with fork, and the parent sleeps the same way:
 * what POSIX promises for vfork (a child that only calls execve or _exit)
 * behaves the same; a child that writes memory changes only its copy.
 *
 * The process limit (Linux's RLIMIT_NPROC, one user): at most NPROC_MAX
 * processes, zombies included, so a fork bomb gets EAGAIN while the
 * shell keeps the last task slots for `run`. The count and the taking
 * of the slot are one step under tasks_lock (alloc_task_limit()), so
 * CPUs forking at once never pass it together.
 *
 * A kill of the parent's group while it forks never misses the child:
 * see fork_commit().
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>
#include <ronx/pgd.h>
#include <ronx/memory.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/memfd.h>

unsigned long total_forks;

int task_pgid(const struct task *t)
{
	return t->pgid ? t->pgid : t->pid;
}

int task_sid(const struct task *t)
{
	return t->sid ? t->sid : t->pid;
}

/*
 * The child, set up but not yet runnable; -EAGAIN at the process limit
 * or with no task slot (Linux's answers), -ENOMEM without memory.
 */
static struct task *copy_process(long *err)
{
	struct task *p = current, *c;

	c = new_process_task(p->comm, NPROC_MAX);	/* limit checked and slot taken at once */
	if (!c) {
		*err = -EAGAIN;
		return 0;
	}
	c->mm = dup_mm(p->mm);
	if (!c->mm) {
		free_task(c);
		*err = -ENOMEM;
		return 0;
	}
	*c->regs = *p->regs;
	c->regs->eax = 0;			/* fork returns 0 in the child */
	c->parent = p;
	c->background = p->background;		/* a background job's children read EOF too */
	signals_fork(c, p);
	files_fork(c, p);
	return c;
}

/*
 * The child becomes visible to signals: TASK_NEW to RUNNABLE, unless
 * the parent was killed meanwhile; then the child is abandoned, all its
 * memory given back, and fork fails with -EINTR (Linux's copy_process()
 * re-checks fatal_signal_pending() under the tasklist lock and fails
 * with -ERESTARTNOINTR; the parent dies on its way out anyway).
 *
 * Why no kill can miss the child: a group kill (kill_pgrp(), kill(2)
 * with pid <= 0) walks the whole table under tasks_lock, and this check
 * and the state change are one hold of that lock. The child is in its
 * parent's group (copied here, under the lock, so a setpgid() of the
 * parent cannot move it away first), so a kill that reaches the child's
 * group reaches the parent. If the kill's walk holds the lock first, it has set
 * parent->killed before we look; if we hold it first, the kill's walk
 * comes after and finds the child RUNNABLE, and kills it too (it dies
 * in ret_from_fork if it has not run yet). Either the kill sees the
 * child or fork sees the kill.
 */
static bool fork_commit(struct task *c)
{
	unsigned long flags;
	bool killed;

	spin_lock_irqsave(&tasks_lock, flags);
	killed = fatal_signal_pending(current);
	if (!killed) {
		/* the group now, under the lock setpgid() takes: never a group the parent just left */
		c->pgid = task_pgid(current);
		c->sid = task_sid(current);
		wake_up_new_task_locked(c);
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (killed) {
		files_exit(c);		/* while an mm exists: its frames' counts are there */
		mmput(c->mm);
		c->mm = 0;
		free_task(c);
		return false;
	}
	__atomic_fetch_add(&total_forks, 1, __ATOMIC_RELAXED);
	return true;
}

long sys_fork(void)
{
	long err = 0;
	struct task *c = copy_process(&err);
	int pid;

	if (!c)
		return err;
	pid = c->pid;		/* c may run, exit and be collected once committed */
	return fork_commit(c) ? pid : -EINTR;
}

static void stop_waiting_for_vfork(struct task *parent)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	parent->vfork_child = 0;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

static bool vfork_done(void *arg)
{
	(void)arg;
	return !current->vfork_child;
}

long sys_vfork(void)
{
	long err = 0;
	struct task *c = copy_process(&err);
	int pid;

	if (!c)
		return err;
	pid = c->pid;
	current->vfork_child = c;
	if (!fork_commit(c)) {
		current->vfork_child = 0;
		return -EINTR;
	}
	while (current->vfork_child && !current->killed)
		sleep_on_until(&current->vfork_child, vfork_done, 0);
	stop_waiting_for_vfork(current);	/* killed while waiting: it dies on its way out */
	return pid;
}

/*
 * The child has exec'd or is exiting: a parent that vforked it may go on
 * (Linux: mm_release()'s complete_vfork_done()).
 */
void vfork_child_done(struct task *child)
{
	unsigned long flags;
	struct task *p;

	spin_lock_irqsave(&tasks_lock, flags);
	p = child->parent;
	if (p && p->vfork_child == child)
		p->vfork_child = 0;
	else
		p = 0;
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (p)
		wakeup(&p->vfork_child);
}
