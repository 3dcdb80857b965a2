// SPDX-License-Identifier: GPL-2.0-only
/*
 * Processes: start one from bin/NAME in the initrd, end one, wait for one,
 * kill one. The shell's `run` starts one with spawn_process(), fork and
 * exec in one (as posix_spawn); processes make more with fork, vfork and
 * execve (kernel/fork.c, kernel/execve.c).
 *
 * A process's kernel stack (THREAD_SIZE) holds, from the top: its user
 * registers (struct trap_frame, what the CPU and boot/traps.asm push on
 * every entry from ring 3; TSS.esp0 points just above them), then, for
 * its first switch, the address of ret_from_trap and a context whose eip
 * is ret_from_fork: so the first swtch() to it "returns" through
 * ret_from_trap into ring 3 at the ELF's entry point. At the bottom, the
 * lowest 512 bytes (16-byte aligned, as fxsave wants) keep its FPU
 * registers while it is off a CPU (kernel/cpu/fpu.c), and above them its
 * signal handlers, mask and pending set (struct task_signals, 1.6K,
 * kernel/signal_action.c): the stack proper is what is left, about 6K,
 * more than Linux i386's 4K stacks had.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/initrd.h>
#include <ronx/spinlock.h>
#include <ronx/process.h>
#include <ronx/tty.h>
#include <ronx/vmap_stack.h>
#include <ronx/signal.h>
#include <ronx/memfd.h>

struct task *foreground_task;
extern char ret_from_trap[];

/*
 * A new task's first code: the scheduler switched to it holding
 * tasks_lock. A kill may have come between fork making it runnable and
 * now; ret_from_trap goes straight to ring 3, past exit_to_user_mode(),
 * so it dies here instead, before a single user instruction (Linux's
 * ret_from_fork also leaves through the signal check).
 */
static void ret_from_fork(void)
{
	schedule_tail();
	if (current->killed) {
		local_irq_enable();	/* as exit_to_user_mode() runs do_exit() */
		do_exit(current->killed);
	}
}

/* A process's task, if fewer than nproc_max processes exist (fork passes NPROC_MAX). */
struct task *new_process_task(const char *name, int nproc_max)
{
	struct task *t = alloc_task_limit(name, nproc_max);
	unsigned long stack;
	uint32_t *sp;

	if (!t)
		return 0;
	/* in the stack area, below a guard page (mm/vmap_stack.c) */
	stack = alloc_thread_stack(THREAD_SIZE);
	if (!stack) {
		free_task(t);
		return 0;
	}
	t->stack = stack;
	t->stack_size = THREAD_SIZE;
	t->stack_owned = true;
	/* its FPU registers at the stack's bottom, from fninit's state */
	t->fpu = (union fpregs_state *)t->stack;
	fpstate_init(t->fpu);
	fpregs_invalidate(t);	/* the slot's last process may still be in a CPU's registers */
	signals_reset(t);
	t->regs = (struct trap_frame *)(t->stack + THREAD_SIZE) - 1;
	sp = (uint32_t *)t->regs;
	*--sp = (uint32_t)ret_from_trap;	/* where ret_from_fork returns to */
	prepare_first_switch(t, (unsigned long)sp, ret_from_fork);
	return t;
}

struct task *spawn_process(const char *name, int argc, char **argv, bool background)
{
	char path[64];
	struct cpio_file f;
	struct task *t;

	snprintf(path, sizeof(path), "bin/%s", name);
	if (initrd_find(path, &f)) {
		pr_err("run: %pE: no such program in the initrd (try 'ls bin')\n", path);
		return 0;
	}
	if (argc > EXEC_MAX_ARGS) {
		pr_err("run: %pE: at most %d arguments\n", path, EXEC_MAX_ARGS);
		return 0;
	}
	/* its name, as Linux's comm: the file's, without the directories */
	t = new_process_task(strrchr(name, '/') ? strrchr(name, '/') + 1 : name, NR_TASKS);
	if (!t) {
		pr_err("run: %pE: no free task slot or kernel stack\n", path);
		return 0;
	}
	t->mm = load_elf_binary(path, f.data, f.size, argc, argv, t->regs);
	if (!t->mm) {
		free_task(t);
		return 0;
	}
	t->parent = current;
	t->background = background;
	if (!background) {
		foreground_task = t;
		tty_set_session(t);	/* its group reads the terminal, and gets Ctrl-C */
	}
	wake_up_new_task(t);
	return t;
}

/*
 * The mm of task t with a reference taken, or NULL if it has none (a
 * kernel task, or one that exited). t->mm changes under tasks_lock, so
 * the mm read here is alive when mmget() counts it (Linux: get_task_mm()).
 */
struct mm_struct *get_task_mm(struct task *t)
{
	unsigned long flags;
	struct mm_struct *mm;

	spin_lock_irqsave(&tasks_lock, flags);
	mm = t->mm;
	if (mm)
		mmget(mm);
	spin_unlock_irqrestore(&tasks_lock, flags);
	return mm;
}

/*
 * The end of a process: its reference on its address space goes at once
 * (off CR3 first; the address space itself goes with the last reference,
 * which a shell command reading it may hold), the unread rest of its
 * console line too, its kernel stack when the scheduler has switched
 * away from it, its slot when its parent has read the status
 * (wait_task()) and nobody holds a reference on it.
 */
void do_exit(int status)
{
	struct task *t = current;
	struct mm_struct *mm = t->mm;
	unsigned long flags;

	t->exit_code = status;
	files_exit(t);		/* before mmput(): frame_refs[] lives while an mm does */
	if (mm) {
		spin_lock_irqsave(&tasks_lock, flags);
		t->mm = 0;
		spin_unlock_irqrestore(&tasks_lock, flags);
		switch_mm(0);
		mmput(mm);
	}
	tty_release_line(t);
	tty_session_exit(t);
	if (foreground_task == t)
		foreground_task = 0;
	exit_notify();
	task_dead();
}

int wait_task(struct task *child)
{
	int status = task_wait_zombie(child);

	free_task(child);
	return status;
}

/* t dies of sig (the first signal wins) on its way back to ring 3; tasks_lock held. */
void kill_task_locked(struct task *t, int sig)
{
	if (!t->killed)
		t->killed = sig;
	wake_up_task_locked(t);
}

void kill_task(struct task *t, int sig)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	kill_task_locked(t, sig);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * Ctrl-C: the terminal's foreground process group dies of SIGINT (under
 * sh, the job in front, not sh); false if no group has the terminal.
 */
bool tty_intr_foreground(void)
{
	struct task *t = foreground_task;
	int pgrp = tty_foreground_pgrp();

	if (!pgrp)
		return false;
	/* kill_pgrp() skips a task still TASK_NEW: `run`'s process, just spawned */
	if (t && task_pgid(t) == pgrp)
		kill_task(t, SIGINT);
	kill_pgrp(pgrp, SIGINT);
	return true;
}

/*
 * Ctrl-Z: the terminal's foreground process group gets SIGTSTP and
 * stops, unless it catches or ignores it (sh does); false if no group
 * has the terminal.
 */
bool tty_stop_foreground(void)
{
	int pgrp = tty_foreground_pgrp();

	if (!pgrp)
		return false;
	kill_pgrp(pgrp, SIGTSTP);
	return true;
}

/*
 * exit_to_user_mode() found work: a killed process dies here, one whose
 * time slice the timer ended gives the CPU to the next, and signals are
 * acted on.
 */
void exit_to_user_mode_work(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (current->killed)
		do_exit(current->killed);
	if (c->need_resched) {
		c->need_resched = false;
		yield();
		if (current->killed)
			do_exit(current->killed);
	}
	if (signal_pending(current) || syscall_restart_pending(current))
		do_signal(f);		/* a handler's frame, the default action, a restart */
}
