// SPDX-License-Identifier: GPL-2.0-only
/*
 * Out of memory (Linux: mm/oom_kill.c, much reduced), with Linux's line:
 *
 *   Out of memory: Killed process 5 (ptbomb) total-vm:2064636kB, anon-rss:3716kB, ... pgtables:3492kB ...
 *
 * Two ways to run out, two answers:
 *
 *   its own limit   a process charged USER_PAGES_MAX (its pages and its
 *                   page tables, mm_charged_pages()) that faults for one
 *                   more is killed itself: oom_kill_current().
 *   the machine's   below the kernel's reserve (USER_FREE_RESERVE) no
 *                   page goes to any process. mm_charge() then calls
 *                   out_of_memory(): the process whose death gives back
 *                   the most, pages plus page tables (Linux's
 *                   oom_badness()), is killed, and the one that asked
 *                   waits until that memory is back and tries again. So
 *                   whoever pins the memory dies, not whoever asks next:
 *                   a new program (`run`), or a small process's fault,
 *                   goes on. If the asker is itself the largest, its
 *                   request fails: a fault kills it (oom_kill_current()),
 *                   exec and fork return -ENOMEM.
 *
 * Counting page tables is what stops the page-table bomb (user/bin/ptbomb.c):
 * a read every 2 MiB maps only the zero page but costs a page table, and a
 * killer that looked at pages alone would pick anyone but the bomb.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/mm_types.h>
#include <ronx/mman.h>
#include <ronx/memory.h>
#include <ronx/pgd.h>
#include <ronx/process.h>
#include <ronx/sched.h>
#include <ronx/irq.h>
#include <ronx/spinlock.h>

#define OOM_WAIT	(10 * HZ)	/* a victim that has not exited by then is not waited for */

/* The areas' sizes, in kB: Linux's total-vm. */
static unsigned long total_vm_kb(const struct mm_struct *mm)
{
	unsigned long pages = 0;

	for (int i = 0; i < mm->vmas.nr; i++)
		pages += (mm->vmas.v[i].vm_end - mm->vmas.v[i].vm_start) / PAGE_SIZE;
	return pages * (PAGE_SIZE / 1024);
}

static void oom_report(int pid, const char *comm, const struct mm_struct *mm)
{
	__atomic_fetch_add(&fault_stats.oom_kills, 1, __ATOMIC_RELAXED);
	/* %pE: the name is the process's own choice (PR_SET_NAME), bytes of any value */
	pr_err("Out of memory: Killed process %d (%pE) total-vm:%lukB, anon-rss:%lukB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%lukB oom_score_adj:0\n",
	       pid, comm, total_vm_kb(mm), (unsigned long)mm->total_pages * (PAGE_SIZE / 1024),
	       (unsigned long)mm->pt_pages * (PAGE_SIZE / 1024));
}

/*
 * Marks current to die of SIGKILL on its way back to ring 3 (a fault in
 * a system call's copy_to_user() still returns -EFAULT first), after
 * saying so, unless it is dying already. The caller in ring 3 exits at once.
 */
void oom_kill_current(void)
{
	struct task *t = current;

	if (t->killed)
		return;
	oom_report(t->pid, t->comm, t->mm);
	t->killed = SIGKILL;
}

/* A process that has not exited yet (kernel tasks have no user registers). */
static bool is_live_process(const struct task *t)
{
	return t->regs && t->state != TASK_UNUSED && t->state != TASK_NEW &&
	       t->state != TASK_ZOMBIE && t->state != TASK_DEAD;
}

/*
 * The process to kill, with a reference on it, under tasks_lock (Linux:
 * select_bad_process()): one already killed and not yet exited, if any
 * (wait for that memory rather than kill twice), else the one with the
 * most pages and page tables. NULL if there is none, or if it would be
 * the asker's own (mm).
 */
static struct task *select_bad_process(const struct mm_struct *mm)
{
	struct task *victim = 0;
	unsigned long flags;
	uint32_t most = 0;

	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (!is_live_process(t) || (mm && t->mm == mm))
			continue;
		if (t->killed == SIGKILL) {
			victim = t;
			most = ~0u;
			break;
		}
		if (t->mm && mm_charged_pages(t->mm) > most) {
			most = mm_charged_pages(t->mm);
			victim = t;
		}
	}
	if (victim && mm && mm_charged_pages(mm) > most)
		victim = 0;	/* the asker gives back the most */
	if (victim)
		victim->usage++;	/* the slot stays this process's until put_task_struct() */
	spin_unlock_irqrestore(&tasks_lock, flags);
	return victim;
}

/* Has t exited? Its pages went back before it became a zombie (do_exit()). */
static bool has_exited(const struct task *t)
{
	int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

	return state == TASK_ZOMBIE || state == TASK_DEAD;
}

/* Kills victim with Linux's line unless it is dying already; its mm is read with a reference. */
static void oom_kill_process(struct task *victim)
{
	struct mm_struct *mm = 0;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	if (!victim->killed && victim->mm) {
		mm = victim->mm;
		mmget(mm);
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (!mm)
		return;
	oom_report(victim->pid, victim->comm, mm);
	mmput(mm);
	kill_task(victim, SIGKILL);
}

/*
 * Memory is short for mm's process (NULL: a new program the kernel is
 * making): kill the largest process and wait for its memory. True if
 * it is back and the caller may try again.
 */
bool out_of_memory(const struct mm_struct *mm)
{
	unsigned long until = jiffies + OOM_WAIT;
	struct task *victim;
	bool gone;

	if ((current && current->killed) || nr_locks_held())
		return false;	/* dying, or may not sleep: fail the request */
	victim = select_bad_process(mm);
	if (!victim)
		return false;
	oom_kill_process(victim);
	/*
	 * It dies on its CPU, or on this one while this task sleeps: a tick at
	 * a time, never spinning, since a fault may have come here with
	 * interrupts off and the ticks must go on.
	 */
	while (!has_exited(victim) && !(current && current->killed) && (long)(jiffies - until) < 0)
		sleep_on((void *)&jiffies);
	gone = has_exited(victim);
	put_task_struct(victim);
	return gone;
}

/*
 * May mm be charged npages more? Within its own limit, and from the
 * pages above the kernel's reserve; when those have run out, after the
 * OOM kill of the largest process (out_of_memory()) has given some back.
 */
bool mm_charge(struct mm_struct *mm, uint32_t npages)
{
	while (!mm_may_charge(mm, npages)) {
		if (mm_charged_pages(mm) + npages > USER_PAGES_MAX || !out_of_memory(mm))
			return false;
	}
	return true;
}
