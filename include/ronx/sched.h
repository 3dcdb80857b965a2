/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tasks and the scheduler (kernel/sched.c), xv6's shape with Linux's names.
 *
 * A task is a kernel stack and a saved context; a process is a task with
 * an address space (mm) that returns to ring 3. The shell is a kernel
 * task (pid 0). A task gives up the CPU by schedule() (it sleeps,
 * yields, is preempted by the timer in ring 3, or exits), which switches
 * straight to the next runnable task; each CPU's idle context,
 * scheduler() on its own stack, runs only when no task can.
 */
#ifndef RONX_SCHED_H
#define RONX_SCHED_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/percpu.h>
#include <ronx/traps.h>
#include <ronx/spinlock.h>
#include <ronx/fpu.h>

#define NR_TASKS	64
#define TASK_COMM_LEN	16
#define THREAD_SIZE	8192	/* a process's kernel stack: two pages, as Linux i386 */

enum task_state {
	TASK_UNUSED,
	TASK_NEW,		/* being set up */
	TASK_RUNNABLE,		/* waiting for a CPU */
	TASK_RUNNING,		/* on a CPU */
	TASK_SLEEPING,		/* waiting for wakeup(chan) */
	TASK_STOPPED,		/* stopped by a stop signal until SIGCONT (kernel/signal_stop.c) */
	TASK_ZOMBIE,		/* exited; its parent has not collected the status */
	TASK_DEAD,		/* collected; the slot waits for its last reference */
};

/* What swtch() saves: the callee-saved registers; eip is its return address. */
struct context {
	uint32_t edi, esi, ebx, ebp, eip;
};

struct mm_struct;
struct recovery;

#define NR_OPEN		16	/* Linux's RLIMIT_NOFILE, small: more is EMFILE */
struct memfd;
struct task {
	enum task_state state;
	int pid;
	char comm[TASK_COMM_LEN];	/* Linux's name for the program's name */
	unsigned long stack;		/* kernel stack, THREAD_SIZE bytes (kernel va) */
	unsigned long stack_size;
	bool stack_owned;		/* allocated here, freed at exit */
	struct context *context;	/* saved by swtch() while off the CPU */
	struct trap_frame *regs;	/* a process's user registers, at its stack top */
	struct mm_struct *mm;		/* NULL: a kernel task, or a process past exit_mm */
	bool kthread;			/* the kernel's own task (the shell), never a process (Linux's PF_KTHREAD) */
	struct task *parent;
	void *chan;			/* what it sleeps on */
	int killed;			/* a signal number: it dies on its way back to ring 3 */
	int exit_code;			/* wait status: code << 8, or the signal */
	bool background;		/* `run PROG &`: reads EOF */
	struct recovery *recovery;	/* its catch_faults() stack */
	unsigned long runtime;		/* timer ticks it was running for */
	int cpu;			/* the CPU it runs on, or ran on last */
	union fpregs_state *fpu;	/* a process's x87/SSE registers while off a CPU (its stack's bottom) */
	int fpu_cpu;			/* the CPU it last saved them on; -1: none holds them (kernel/cpu/fpu.c) */
	int usage;			/* references that keep the slot (tasks_lock) */
	int pgid;			/* its process group (kill(0, sig)); 0: its own pid */
	int sid;			/* its session (the process `run` started); 0: its own pid */
	struct task *vfork_child;	/* a vfork parent: the child it waits for (exec or exit) */
	bool autoreap;			/* an orphan: its slot goes back as soon as it is a zombie */
	struct memfd *files[NR_OPEN];	/* descriptors 3 and up (kernel/file_table.c); 0-2: the console */
	uint32_t close_on_exec;		/* one bit per descriptor: MFD_CLOEXEC */
	/* job control (kernel/signal_stop.c), under tasks_lock */
	int stop_pending;		/* a stop signal taken to act on, 0: none (SIGCONT clears it) */
	int stop_sig;			/* the signal that stopped it, for wait4 */
	bool stop_report;		/* a stop wait4(WUNTRACED) has not reported yet */
	bool cont_report;		/* a SIGCONT wait4(WCONTINUED) has not reported yet */
};

extern struct task tasks[NR_TASKS];

static inline struct task *get_current(void)
{
	return this_cpu()->current_task;
}
#define current get_current()

/* kernel/sched.c */
void sched_init(void);
void scheduler(void) __attribute__((noreturn));
void sched_start(const char *comm, unsigned long stack, unsigned long size,
		 void *sched_stack, unsigned long sched_size);
void schedule(void);
void yield(void);
void cond_resched(void);
void sleep_on(void *chan);
void sleep_on_unless(void *chan, bool (*ready)(void));
void sleep_on_until(void *chan, bool (*ready)(void *), void *arg);
void sleep_on_until_signal(void *chan, bool (*ready)(void *), void *arg, bool interruptible);
void wakeup(void *chan);
void wake_up_task(struct task *t);
void wake_up_task_locked(struct task *t);
void wake_up_stopped_locked(struct task *t);
void wakeup_locked(void *chan);
void schedule_locked(void);
void task_dead(void) __attribute__((noreturn));
void schedule_tail(void);
int task_wait_zombie(struct task *child);
void *prepare_first_switch(struct task *t, unsigned long sp, void (*entry)(void));
extern spinlock_t tasks_lock;
struct task *alloc_task(const char *comm);
struct task *alloc_task_limit(const char *comm, int nproc_max);
int nr_processes(void);
extern int nr_processes_peak;		/* the most processes at once, for tests */
void release_task_locked(struct task *t);
void free_task(struct task *t);
void wake_up_new_task(struct task *t);
void wake_up_new_task_locked(struct task *t);
struct task *find_task(int pid);
struct task *find_get_task(int pid);
void get_task_struct(struct task *t);
void put_task_struct(struct task *t);
unsigned long nr_running_tasks(void);
struct mm_struct *get_slot_mm(int i, int *pid, char *comm);
/*
 * A kill (Ctrl-C's SIGINT, kill's SIGKILL) waits for t on its way back to
 * ring 3. ronx has no signal handlers, so every signal is fatal: long
 * kernel work for a process stops early when this says so (Linux's
 * fatal_signal_pending()).
 */
/*
 * A process, from the end of fork's setup until its parent collects it:
 * alive, exiting or a zombie, never the kernel's own task. Not "has an
 * mm": an exiting process gives its mm back before it is a zombie, and
 * it is still a process there (Linux tells by PF_KTHREAD, not by ->mm).
 */
static inline bool task_is_process(const struct task *t)
{
	return t->state != TASK_UNUSED && t->state != TASK_NEW && t->state != TASK_DEAD &&
	       !t->kthread;
}

static inline bool fatal_signal_pending(const struct task *t)
{
	return t->killed != 0;
}

/* boot/switch.asm */
void swtch(struct context **old, struct context *new);
#endif
