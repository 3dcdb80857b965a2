// SPDX-License-Identifier: GPL-2.0-only
/*
 * The task table and the scheduler: round robin over a fixed table
 * (xv6's shape, Linux's names where they fit).
 *
 * A task leaves the CPU only by schedule(), with its state already set:
 * RUNNABLE (yield, or the timer preempted it in ring 3), SLEEPING, or
 * ZOMBIE. __schedule() picks the next runnable task after its slot and
 * switches straight to it (context_switch(): one swtch(), as Linux's
 * schedule()); a task that yielded and finds no other keeps the CPU and
 * returns at once. xv6, and ronx before issue 31, went through the
 * scheduler's own context and back on every switch: two switches, two
 * CR3 writes, for one.
 *
 * Each CPU also has an idle context on a stack of its own (scheduler();
 * kernel/cpu/smpboot.c starts the other CPUs in it), switched to only when
 * nothing can run: it halts, and whoever makes a task runnable wakes one
 * such idle CPU with an IPI (Linux: ttwu and the reschedule IPI); kill
 * wakes the CPU a process runs on, so that it notices at once. A task
 * may run on any CPU, and on another one after each sleep.
 *
 * A dead task's kernel stack can be freed only once nobody runs on it:
 * the side that runs after the switch does it (finish_task_switch(),
 * Linux's name), a task or the idle context alike.
 *
 * Locking: tasks_lock guards every task's state, and is held across
 * every swtch(): taken by the task that leaves (schedule()), released by
 * the one that arrives, on the same CPU, from where its own schedule()
 * left off (a new task: schedule_tail()). So another CPU, which needs
 * tasks_lock to pick a task, can pick the one that left only after its
 * registers are saved: a task never runs on two CPUs at once, and never
 * on a half-saved context.
 *
 * Lifetimes: a slot is reused only when nobody holds a reference on it
 * (t->usage, Linux's get_task_struct()/put_task_struct()). The task holds
 * one from alloc_task() until its parent collects it (free_task()); a
 * shell command that looks at another task takes one with
 * find_get_task(), so the slot cannot become another process while it
 * reads. The count changes under tasks_lock. An orphan (autoreap) has no
 * parent to collect it: the scheduler drops its reference as soon as it
 * is a zombie off its stack (release_task_locked()).
 */
#include <ronx/pti.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/spinlock.h>
#include <ronx/sched.h>
#include <ronx/signal.h>
#include <ronx/process.h>
#include <ronx/pgd.h>
#include <ronx/apic.h>
#include <ronx/smp.h>
#include <ronx/fpu.h>
#include <ronx/stagestat.h>
#include <ronx/vmap_stack.h>

struct task tasks[NR_TASKS];
DEFINE_SPINLOCK(tasks_lock);
static int next_pid;

/* The most processes there ever were at once, new ones included (tests/qemu/test_reap.py reads it). */
int nr_processes_peak;

/*
 * Processes from fork until their parent collects them: every slot but
 * the kernel's own task and the free and collected ones; tasks_lock held.
 * Not "has an mm": an exiting process gives its mm back (mmput, long)
 * before it is a zombie, and uncounted there it let a fork on another
 * CPU pass the limit (Linux counts a process until release_task()).
 */
int nr_processes(void)
{
	int n = 0;

	for (int i = 0; i < NR_TASKS; i++)
		n += tasks[i].state != TASK_UNUSED && tasks[i].state != TASK_DEAD && !tasks[i].kthread;
	return n;
}

/*
 * A free slot, TASK_NEW, if fewer than nproc_max processes exist. The
 * count and the taking of the slot are one hold of tasks_lock: two CPUs
 * forking at once cannot both pass a limit that has room for one (the
 * new slot counts at once, as TASK_NEW).
 */
struct task *alloc_task_limit(const char *comm, int nproc_max)
{
	unsigned long flags;
	struct task *t = 0;
	int procs;

	spin_lock_irqsave(&tasks_lock, flags);
	procs = nr_processes();
	if (procs >= nproc_max)
		goto out;
	for (int i = 0; i < NR_TASKS; i++) {
		if (tasks[i].state == TASK_UNUSED) {
			t = &tasks[i];
			memset(t, 0, sizeof(*t));
			t->state = TASK_NEW;
			t->pid = next_pid++;
			t->usage = 1;
			if (procs + 1 > nr_processes_peak)
				nr_processes_peak = procs + 1;
			break;
		}
	}
out:
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (t) {
		size_t n = strlen(comm);

		if (n >= TASK_COMM_LEN)
			n = TASK_COMM_LEN - 1;
		memcpy(t->comm, comm, n);
		t->comm[n] = '\0';
	}
	return t;
}

/* A free slot, whatever the process count (the shell's own tasks). */
struct task *alloc_task(const char *comm)
{
	return alloc_task_limit(comm, NR_TASKS + 1);
}

/* The kernel stack, if this file gave it (the scheduler calls this for a zombie). */
static void release_task_stack(struct task *t)
{
	if (t->stack_owned && t->stack)
		free_thread_stack(t->stack, t->stack_size);
	t->stack = 0;
}

void get_task_struct(struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	t->usage++;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* Drops a reference; the last one gives the slot back (and the stack, if still there). */
void put_task_struct(struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	if (--t->usage == 0) {
		release_task_stack(t);
		t->state = TASK_UNUSED;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * The parent is done with the task (it read the status, or the task never
 * ran): no lookup finds it any more, and its slot goes back with the last
 * reference. The task must not be running.
 */
void free_task(struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	t->state = TASK_DEAD;
	spin_unlock_irqrestore(&tasks_lock, flags);
	put_task_struct(t);
}

/*
 * A zombie nobody waits for (an orphan, exit_notify() set autoreap) is
 * collected here, as wait4 would: no lookup finds it, and its slot goes
 * back with the last reference. Only once it is off its stack:
 * finish_task_switch(), right after the switch away from it, or
 * exit_notify() for one that was a zombie already (a ZOMBIE seen under
 * tasks_lock is off its stack: tasks_lock is held from task_dead(),
 * across the switch, until after release_task_stack()). tasks_lock
 * held. (Linux: release_task().)
 */
void release_task_locked(struct task *t)
{
	t->state = TASK_DEAD;
	if (--t->usage == 0) {
		release_task_stack(t);
		t->state = TASK_UNUSED;
	}
}

/* CPUs halted in the idle loop (scheduler_loop()) with nothing to run; changed under tasks_lock. */
static cpumask_t idle_cpus;

/* A task just became runnable: wake an idle CPU to run it (tasks_lock held). */
static void kick_idle_cpu(void)
{
	cpumask_t others = idle_cpus & ~(1UL << smp_processor_id());

	if (others)
		smp_send_reschedule(__builtin_ctzl(others));
}

static void make_runnable(struct task *t)
{
	t->state = TASK_RUNNABLE;
	kick_idle_cpu();
}

/* A new task may run; from now on lookups and kills see it (tasks_lock held). */
void wake_up_new_task_locked(struct task *t)
{
	make_runnable(t);
}

void wake_up_new_task(struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	wake_up_new_task_locked(t);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * The context a task that never ran is switched to: on its stack, the
 * registers swtch() pops and then entry as the address it returns to.
 */
void *prepare_first_switch(struct task *t, unsigned long sp, void (*entry)(void))
{
	struct context *c = (struct context *)(sp - sizeof(*c));

	memset(c, 0, sizeof(*c));
	c->eip = (uint32_t)entry;
	t->context = c;
	return c;
}

/* The task to run next after slot *last, round robin; NULL if none. */
static struct task *pick_next_task(int *last)
{
	for (int i = 1; i <= NR_TASKS; i++) {
		int n = (*last + i) % NR_TASKS;

		if (tasks[n].state == TASK_RUNNABLE) {
			*last = n;
			return &tasks[n];
		}
	}
	return 0;
}

/*
 * The task each CPU has just switched away from (NULL: its idle
 * context). Written before swtch() on the leaving stack, read right
 * after it on the arriving one, on the same CPU, tasks_lock held
 * throughout (Linux: switch_to()'s "last").
 */
static struct task *switched_from[NR_CPUS];

/*
 * What the task switched away from leaves behind, done on the stack
 * that runs now, tasks_lock still held: a zombie is off its stack at
 * last, so the stack can go, and an orphan's slot too (Linux:
 * finish_task_switch()).
 */
static void finish_task_switch(void)
{
	struct task *prev = switched_from[this_cpu()->id];

	if (prev && prev->state == TASK_ZOMBIE) {
		release_task_stack(prev);
		if (prev->autoreap)
			release_task_locked(prev);
	}
}

/*
 * next takes this CPU: the kernel stack the CPU enters on from ring 3
 * (TSS.esp0), its address space (CR3; a kernel task and the idle context
 * run on the kernel's) and FPU registers.
 */
static void prepare_next(struct cpu *c, struct task *next)
{
	c->current_task = next;
	if (!next) {
		if (c->active_mm)
			switch_mm(0);
		stage_mark(ST_SWITCH_MM);
		return;
	}
	c->need_resched = false;	/* a fresh slice */
	next->state = TASK_RUNNING;
	next->cpu = c->id;
	load_sp0(c, next->stack + next->stack_size);
	if (next->mm)
		switch_mm(next->mm);
	else if (c->active_mm)
		switch_mm(0);
	stage_mark(ST_SWITCH_MM);
	if (next->mm)
		switch_fpu_finish(next, c->id);
	stage_mark(ST_FPU_RESTORE);
	/* a process must not keep the CPU: its timer ticks while it runs */
	apic_timer_start();
}

/*
 * From prev to next on this CPU, either of them NULL for the CPU's idle
 * context, tasks_lock held. One swtch(): a task hands the CPU straight
 * to the next one, the idle context is only where a CPU with nothing to
 * run waits. Returns when something switches back to prev (on whichever
 * CPU: c is not used after the swtch()).
 */
static void context_switch(struct cpu *c, struct task *prev, struct task *next)
{
	struct context **from = prev ? &prev->context : &c->scheduler;

	/* an exited process has no mm and nothing left to save */
	if (prev && prev->mm)
		switch_fpu_prepare(prev, c->id);
	stage_mark(ST_FPU_SAVE);
	prepare_next(c, next);
	switched_from[c->id] = prev;
	swtch(from, next ? next->context : c->scheduler);
	stage_mark(ST_SWTCH);
	finish_task_switch();
}

/*
 * The idle context's loop; tasks_lock is held at its top and across
 * every switch. It runs only when no task can: a task that gives up the
 * CPU switches straight to the next runnable one (__schedule()).
 */
static void __noreturn scheduler_loop(void)
{
	struct cpu *c = this_cpu();
	int last = 0;

	for (;;) {
		struct task *t = pick_next_task(&last);

		stage_mark(ST_SCHED_PICK);
		if (t) {
			context_switch(c, 0, t);
			continue;
		}
		/*
		 * Nothing to run: halt until an interrupt, a wakeup's IPI among
		 * them, makes something runnable. Work a self-test gave this
		 * CPU (start_cpu_work()) runs first.
		 */
		idle_cpus |= 1UL << c->id;
		spin_unlock(&tasks_lock);
		apic_timer_stop();
		run_cpu_work();
		wait_for_interrupt();
		spin_lock(&tasks_lock);
		stage_start();
		idle_cpus &= ~(1UL << c->id);
	}
}

void __noreturn scheduler(void)
{
	spin_lock(&tasks_lock);
	scheduler_loop();
}

/*
 * The first time a CPU's first task gives up the CPU with nothing else
 * to run (sched_start()), its swtch() lands here on the idle stack,
 * tasks_lock held.
 */
static void __noreturn scheduler_entry(void)
{
	finish_task_switch();
	scheduler_loop();
}

/*
 * A new task's first code after the switch to it (kernel/process.c's
 * ret_from_fork): what it switched from is finished, then tasks_lock,
 * taken by whoever switched here, is let go (Linux: schedule_tail()).
 */
void schedule_tail(void)
{
	finish_task_switch();
	spin_unlock(&tasks_lock);
}

/*
 * Makes the code running now (boot, on its stack) a task called comm,
 * and gives this CPU a scheduler on sched_stack, entered the first time
 * the task sleeps or yields. The boot stack is thus the shell's: no
 * second big stack for it (a 2M machine counts its pages).
 */
void sched_start(const char *comm, unsigned long stack, unsigned long size,
		 void *sched_stack, unsigned long sched_size)
{
	struct cpu *c = this_cpu();
	struct task *t = alloc_task(comm);
	struct context *ctx = (struct context *)((unsigned long)sched_stack + sched_size) - 1;

	memset(ctx, 0, sizeof(*ctx));
	ctx->eip = (uint32_t)scheduler_entry;
	c->scheduler = ctx;
	if (!t)
		return;
	t->kthread = true;
	t->stack = stack;
	t->stack_size = size;
	t->state = TASK_RUNNING;
	c->current_task = t;
	load_sp0(c, stack + size);
}

/*
 * Gives up the CPU, tasks_lock held, current's state already changed:
 * to the next runnable task in the table after current's slot, or, if
 * none, to the idle context. A yield that finds no other task keeps
 * running (Linux's sched_yield() alone returns at once).
 */
static void __schedule(void)
{
	struct cpu *c = this_cpu();
	struct task *prev = c->current_task, *next;
	int last = prev - tasks;

	stage_start();
	next = pick_next_task(&last);
	stage_mark(ST_SCHED_PICK);
	if (next == prev) {
		prev->state = TASK_RUNNING;
		c->need_resched = false;	/* a fresh slice */
		return;
	}
	context_switch(c, prev, next);
}

/* The same, tasks_lock already held (a stop: kernel/signal_stop.c). */
void schedule_locked(void)
{
	__schedule();
}

/* Gives up the CPU; the caller has set current's state (exit does). */
void schedule(void)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	__schedule();
	spin_unlock_irqrestore(&tasks_lock, flags);
}

void yield(void)
{
	unsigned long flags;

	stage_start();
	spin_lock_irqsave(&tasks_lock, flags);
	stage_mark(ST_SCHED_LOCK);
	current->state = TASK_RUNNABLE;
	__schedule();
	spin_unlock_irqrestore(&tasks_lock, flags);
	stage_mark(ST_SCHED_UNLOCK);
}

/*
 * A point in long kernel work for a process (a big write()) where it
 * gives the CPU to the next task if the timer has ended its slice, as it
 * would in ring 3 (Linux: cond_resched()). The kernel is not preemptible
 * otherwise, so on one CPU the shell runs, and reads a typed `kill`, only
 * because of these points. The caller holds no lock: it would keep it
 * across the switch.
 */
void cond_resched(void)
{
	struct cpu *c = this_cpu();

	if (!c->need_resched || !current)
		return;
	if (nr_locks_held()) {
		pr_warn("ronx: cond_resched() with %d spinlocks held: not switching\n",
			nr_locks_held());
		return;
	}
	c->need_resched = false;
	yield();
}

/*
 * Sleeps until wakeup(chan). The state changes under tasks_lock, so a
 * wakeup() cannot fall between it and the switch. Callers re-check what
 * they wait for in a loop: a kill wakes them too.
 */
void sleep_on(void *chan)
{
	struct task *t = current;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	t->chan = chan;
	t->state = TASK_SLEEPING;
	__schedule();
	t->chan = 0;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * sleep_on(chan), unless ready() says there is no need: asked under
 * tasks_lock, which wakeup(chan) takes too, so a wakeup that comes on
 * another CPU after ready() said no finds this task asleep and wakes it
 * (xv6's sleep(chan, lock) rule). ready() may take the lock of what it
 * looks at (tasks_lock before it).
 */
void sleep_on_unless(void *chan, bool (*ready)(void))
{
	struct task *t = current;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	if (!ready() && !t->killed) {
		t->chan = chan;
		t->state = TASK_SLEEPING;
		__schedule();
		t->chan = 0;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* The same, with an argument for ready(): what to wait for. */
void sleep_on_until(void *chan, bool (*ready)(void *), void *arg)
{
	sleep_on_until_signal(chan, ready, arg, false);
}

/*
 * The same, and with interruptible set a signal to act on ends the sleep
 * too (Linux's TASK_INTERRUPTIBLE: wait4's, whose caller then returns
 * -ERESTARTSYS). Asked under tasks_lock, which kill takes to queue the
 * signal and wake the task: none comes between the question and the sleep.
 */
void sleep_on_until_signal(void *chan, bool (*ready)(void *), void *arg, bool interruptible)
{
	struct task *t = current;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	if (!ready(arg) && !t->killed && !(interruptible && signal_pending(t))) {
		t->chan = chan;
		t->state = TASK_SLEEPING;
		__schedule();
		t->chan = 0;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
}

void wakeup_locked(void *chan)
{
	for (int i = 0; i < NR_TASKS; i++)
		if (tasks[i].state == TASK_SLEEPING && tasks[i].chan == chan)
			make_runnable(&tasks[i]);
}

void wakeup(void *chan)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	wakeup_locked(chan);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * A task's last switch: a zombie, its parent woken (it sleeps on itself).
 * exit() comes with interrupts on; they stay off, as for every lock.
 */
void task_dead(void)
{
	local_irq_disable();
	spin_lock(&tasks_lock);
	current->state = TASK_ZOMBIE;
	if (current->parent)
		wakeup_locked(current->parent);
	__schedule();
	__builtin_unreachable();
}

/* Waits, as child's parent, until child is a zombie; its exit status. */
int task_wait_zombie(struct task *child)
{
	unsigned long flags;
	int status;

	spin_lock_irqsave(&tasks_lock, flags);
	while (child->state != TASK_ZOMBIE) {
		current->chan = current;
		current->state = TASK_SLEEPING;
		__schedule();
		current->chan = 0;
	}
	status = child->exit_code;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return status;
}

/*
 * Makes a sleeping task runnable whatever it sleeps on (a kill); one that
 * runs on another CPU gets an IPI, so that it enters the kernel and, on
 * its way back to ring 3, sees why (Linux: kick_process()). tasks_lock
 * held: a kill that walks the table under it wakes each as it goes.
 */
void wake_up_task_locked(struct task *t)
{
	/* a stopped task stays stopped for every signal but SIGKILL (and SIGCONT, below) */
	if (t->state == TASK_SLEEPING || (t->state == TASK_STOPPED && t->killed))
		make_runnable(t);
	else if (t->state == TASK_RUNNING && t->cpu != smp_processor_id())
		smp_send_reschedule(t->cpu);
}

/* SIGCONT: a stopped task runs again (tasks_lock held). */
void wake_up_stopped_locked(struct task *t)
{
	if (t->state == TASK_STOPPED)
		make_runnable(t);
}

void wake_up_task(struct task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	wake_up_task_locked(t);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* The task with this pid, not yet collected by its parent (tasks_lock held to use it safely). */
struct task *find_task(int pid)
{
	for (int i = 0; i < NR_TASKS; i++)
		if (tasks[i].state != TASK_UNUSED && tasks[i].state != TASK_NEW &&
		    tasks[i].state != TASK_DEAD && tasks[i].pid == pid)
			return &tasks[i];
	return 0;
}

/* find_task() with a reference taken (Linux: find_get_task_by_vpid()); put_task_struct() it. */
struct task *find_get_task(int pid)
{
	unsigned long flags;
	struct task *t;

	spin_lock_irqsave(&tasks_lock, flags);
	t = find_task(pid);
	if (t)
		t->usage++;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return t;
}

/*
 * Slot i's process: its mm with a reference taken, its pid and name
 * copied, all under tasks_lock; NULL if the slot holds no live process.
 * For a walk over every process (wxcheck); mmput() the mm after.
 */
struct mm_struct *get_slot_mm(int i, int *pid, char *comm)
{
	struct task *t = &tasks[i];
	struct mm_struct *mm = 0;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	if (t->mm && t->state != TASK_ZOMBIE && t->state != TASK_DEAD) {
		mm = t->mm;
		mmget(mm);
		*pid = t->pid;
		memcpy(comm, t->comm, TASK_COMM_LEN);
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return mm;
}

unsigned long nr_running_tasks(void)
{
	unsigned long n = 0;

	for (int i = 0; i < NR_TASKS; i++)
		n += tasks[i].state == TASK_RUNNABLE || tasks[i].state == TASK_RUNNING;
	return n;
}
