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
 * shell keeps the last task slots for `run`.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>
#include <ronx/pgd.h>
#include <ronx/memory.h>
#include <ronx/process.h>

unsigned long total_forks;

/* Processes alive or zombie (every task but the kernel's shell); tasks_lock held. */
static int nr_processes(void)
{
	int n = 0;

	for (int i = 0; i < NR_TASKS; i++)
		n += tasks[i].state != TASK_UNUSED && (tasks[i].mm || tasks[i].state == TASK_ZOMBIE ||
						       tasks[i].state == TASK_NEW);
	return n;
}

static bool under_nproc_limit(void)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&tasks_lock, flags);
	ok = nr_processes() < NPROC_MAX;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return ok;
}

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

	if (!under_nproc_limit()) {
		*err = -EAGAIN;
		return 0;
	}
	c = new_process_task(p->comm);
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
	c->pgid = task_pgid(p);
	c->sid = task_sid(p);
	c->background = p->background;		/* a background job's children read EOF too */
	return c;
}

long sys_fork(void)
{
	long err = 0;
	struct task *c = copy_process(&err);

	if (!c)
		return err;
	__atomic_fetch_add(&total_forks, 1, __ATOMIC_RELAXED);
	wake_up_new_task(c);
	return c->pid;
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
	__atomic_fetch_add(&total_forks, 1, __ATOMIC_RELAXED);
	pid = c->pid;
	current->vfork_child = c;
	wake_up_new_task(c);
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
