// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of who counts as a process for kill, tgkill and process
 * groups: one that is exiting has given its mm back (do_exit() drops it
 * long before the task is a zombie), yet it is still a process until its
 * parent collects it, as in Linux, where kill() reaches it and answers 0.
 * A real exit passes through that window too fast to aim at, so the test
 * builds the state by hand: a task slot that never runs, asleep on a
 * channel nobody wakes, and only signal 0 (the existence check) sent.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/sched.h>
#include <ronx/process.h>
#include <ronx/ktest.h>

static int nobody_wakes_this;

/* A process past exit_mm: no mm, not the kernel's task, not yet a zombie. */
static struct task *fake_exiting_process(void)
{
	struct task *t = alloc_task("kt-exiting");
	unsigned long flags;

	if (!t)
		return 0;
	spin_lock_irqsave(&tasks_lock, flags);
	t->chan = &nobody_wakes_this;
	t->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return t;
}

static void set_state(struct task *t, enum task_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	t->state = state;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

KTEST(process_kill, exiting_process_is_still_a_process)
{
	struct task *p = fake_exiting_process();
	long r;

	if (!p)
		return kt_skip(t, "no free task slot");
	r = sys_kill(p->pid, 0);
	KT_EXPECT(t, r == 0, "kill(pid, 0) of an exiting process: %ld, want 0", r);
	r = sys_kill(-p->pid, 0);
	KT_EXPECT(t, r == 0, "kill(-pgid, 0) of its group: %ld, want 0", r);
	r = tkill_pid(p->pid, 0);
	KT_EXPECT(t, r == 0, "tgkill(pid, 0): %ld, want 0", r);
	r = pgrp_session(p->pid);
	KT_EXPECT(t, r == p->pid, "its group's session: %ld, want %d", r, p->pid);
	free_task(p);
}

KTEST(process_kill, zombie_is_in_its_group_but_not_signalled)
{
	struct task *p = fake_exiting_process();
	long r;

	if (!p)
		return kt_skip(t, "no free task slot");
	set_state(p, TASK_ZOMBIE);
	r = sys_kill(p->pid, 0);
	KT_EXPECT(t, r == 0, "kill(pid, 0) of a zombie: %ld, want 0 (Linux)", r);
	r = tkill_pid(p->pid, 0);
	KT_EXPECT(t, r == -ESRCH, "tgkill(pid, 0) of a zombie: %ld, want -ESRCH", r);
	r = pgrp_session(p->pid);
	KT_EXPECT(t, r == p->pid, "a zombie's group's session: %ld, want %d", r, p->pid);
	free_task(p);
}
