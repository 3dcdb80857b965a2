/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes: a task with an address space of its own that runs in ring 3
 * (kernel/process.c, kernel/exec.c, kernel/signal.c).
 */
#ifndef RONX_PROCESS_H
#define RONX_PROCESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/sched.h>
#include <ronx/signal.h>

/* Signal numbers (Linux i386): a process killed by one has it as its wait status. */
#define SIGINT	2
#define SIGILL	4
#define SIGTRAP	5
#define SIGBUS	7
#define SIGFPE	8
#define SIGKILL	9
#define SIGSEGV	11

#define EXEC_MAX_ARGS	16
#define EXEC_MAX_ENV	16	/* execve's environment strings */
/* Linux's RLIMIT_NPROC for ronx's one user: fork gets EAGAIN beyond it; the last slots stay the shell's */
#define NPROC_MAX	(NR_TASKS - 8)

/* kernel/process.c */
struct task *spawn_process(const char *name, int argc, char **argv, bool background);
void do_exit(int status) __attribute__((noreturn));
struct mm_struct *get_task_mm(struct task *t);
int wait_task(struct task *child);
void kill_task(struct task *t, int sig);
void kill_task_locked(struct task *t, int sig);
bool tty_intr_foreground(void);
bool tty_stop_foreground(void);
void exit_to_user_mode_work(struct trap_frame *f);
extern struct task *foreground_task;
const char *signal_name(int sig);
/* kernel/shell/process_cmds.c: PID's task and mm, both referenced; put_process_arg() them */
struct task *get_process_arg(const char *cmd, const char *arg, struct mm_struct **mm);
void put_process_arg(struct task *t, struct mm_struct *mm);

/*
 * Inline, as everything the way back to ring 3 asks when it has nothing
 * to do: under TCG a call and its return cost about what the rest of a
 * getpid does (docs/bench.md, issue 31).
 */
static inline struct task_signals *task_signals(const struct task *t)
{
	return (struct task_signals *)(t->stack + sizeof(union fpregs_state));
}

/* a signal to act on now */
static inline bool signal_pending(const struct task *t)
{
	const struct task_signals *s = task_signals(t);

	return t->killed || (s->pending & ~s->blocked);
}

/* a system call that returned -ERESTARTSYS: called again or -EINTR on the way out */
static inline bool syscall_restart_pending(const struct task *t)
{
	return task_signals(t)->restart_nr != 0;
}

/*
 * What the way back to ring 3 must act on (kernel/process.c's
 * exit_to_user_mode_work()): every word it depends on, read and or-ed,
 * nonzero if any is set, so that the caller tests once (under TCG each
 * test ends a block: issue 31).
 */
static inline uint32_t exit_to_user_work(void)
{
	struct cpu *c = this_cpu();
	struct task *t = c->current_task;
	const struct task_signals *s = task_signals(t);
	sigset_t sig = s->pending & ~s->blocked;

	return (uint32_t)c->need_resched | (uint32_t)t->killed | (uint32_t)sig |
	       (uint32_t)(sig >> 32) | (uint32_t)s->restart_nr;
}

/* The last thing before the iret to ring 3: the work, if any. */
static inline void exit_to_user_mode(struct trap_frame *f)
{
	if (unlikely(exit_to_user_work()))
		exit_to_user_mode_work(f);
}

/* kernel/exec.c: a new mm with the executable and its arguments loaded */
struct mm_struct;
struct mm_struct *load_elf_binary(const char *path, const void *data, size_t size, int argc,
				  char **argv, struct trap_frame *regs);
struct mm_struct *load_elf_binary_err(const char *path, const void *data, size_t size,
				      int argc, char **argv, int envc, char **envp,
				      struct trap_frame *regs, long *err);

/* kernel/process.c: a task with a kernel stack whose first switch returns to ring 3 */
struct task *new_process_task(const char *name, int nproc_max);

/* kernel/fork.c, kernel/exit.c, kernel/kill.c, kernel/execve.c: the system calls */
long sys_fork(void);
long sys_vfork(void);
long sys_execve(uint32_t path, uint32_t argv, uint32_t envp);
long sys_wait4(uint32_t pid, uint32_t stat_addr, uint32_t options, uint32_t ru);
long sys_waitpid(uint32_t pid, uint32_t stat_addr, uint32_t options);
long sys_getppid(void);
long sys_kill(uint32_t pid, uint32_t sig);
int tkill_pid(int pid, int sig);		/* tgkill's one process */
bool sig_kills(int sig);			/* its default action ends the process */
int kill_pgrp(int pgid, int sig);		/* Ctrl-C, kill -SIG -PGID: a whole group */
int task_pgid(const struct task *t);		/* kill(0), wait4(0): the process group */
int task_sid(const struct task *t);		/* its session: the process `run` started */
/* kernel/pgrp.c */
int pgrp_session(int pgid);			/* group pgid's session, -ESRCH if none */
bool pgrp_orphaned_locked(int pgid);		/* no parent outside it in its session */
bool pgrp_orphaned(int pgid);
long sys_setpgid(uint32_t pid, uint32_t pgid);
long sys_getpgid(uint32_t pid);
long sys_getpgrp(void);
long sys_setsid(void);
void vfork_child_done(struct task *child);	/* exec or exit: a vfork parent goes on */
void exit_notify(void);				/* exit: children to the shell, vfork parent on */
extern unsigned long total_forks;

/* kernel/signal.c: a user fault kills the process, with Linux's line */
/* ... unless it has a handler for the signal: then they queue it and return */
void force_sig_fault(struct trap_frame *f, unsigned long address, bool accerr);
void force_sig_bus(struct trap_frame *f, unsigned long address);
void user_trap(struct trap_frame *f, const char *name);
void v8086_kill(struct trap_frame *f) __attribute__((noreturn));
#endif
