// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shell's process commands: run, ps, kill (one process, or with a
 * negative number a whole process group, as Linux's kill(1)), and the
 * background jobs' end reports, before each prompt.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/kstrtox.h>
#include <ronx/mm_types.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/memlayout.h>
#include <ronx/shell.h>
#include <ronx/process.h>
#include <ronx/x86.h>

/* "[3] hello: exit status 0", "[4] spin: killed by SIGINT" */
static void report_status(const struct task *t, int status)
{
	if (status & 0x7f)
		cprintf("[%d] %pE: killed by %s\n", t->pid, t->comm, signal_name(status & 0x7f));
	else
		cprintf("[%d] %pE: exit status %d\n", t->pid, t->comm, (status >> 8) & 0xff);
}

/*
 * The shell's background children that have ended: their status, their
 * slot back. Orphans it adopted are not among them: they are autoreaped
 * (kernel/exit.c), never waited for here.
 */
void reap_background(void)
{
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->state == TASK_ZOMBIE && t->parent == current && !t->autoreap) {
			int status = t->exit_code;

			report_status(t, status);
			wait_task(t);
		}
	}
}

/*
 * The live process whose pid is arg, for cmd's PID argument, with a
 * reference on its task and one on its mm (*mm), so that neither goes
 * while the command reads them, however soon the process exits: give
 * them back with put_process_arg(). NULL after saying why not.
 */
struct task *get_process_arg(const char *cmd, const char *arg, struct mm_struct **mm)
{
	unsigned int pid;
	struct task *t;

	*mm = 0;
	if (kstrtouint(arg, 10, &pid)) {
		cprintf("%s: '%s' is not a pid (see ps)\n", cmd, arg);
		return 0;
	}
	t = find_get_task((int)pid);
	if (t && t->state != TASK_ZOMBIE)
		*mm = get_task_mm(t);
	if (!*mm) {
		/* a kernel task (the shell) has no user registers; a process may just have exited */
		if (t && t->state != TASK_ZOMBIE && !t->regs)
			cprintf("%s: pid %u is %pE, a kernel task: it has no user half\n", cmd, pid,
				t->comm);
		else
			cprintf("%s: no process with pid %u\n", cmd, pid);
		if (t)
			put_task_struct(t);
		return 0;
	}
	return t;
}

void put_process_arg(struct task *t, struct mm_struct *mm)
{
	mmput(mm);
	put_task_struct(t);
}

/*
 * run -n N PROG [ARGS]: N runs one after the other, one summary line (the
 * spawn/exit cycle test: meminfo's free pages before and after must match).
 * The line ends with the TSC cycles of one spawn-to-exit (spawn, run, wait)
 * over the first SPAWN_SAMPLES runs, for make bench; no test reads them.
 */
#define SPAWN_SAMPLES	1000
static uint64_t spawn_cycles[SPAWN_SAMPLES];

static void sort_u64(uint64_t *a, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uint64_t v = a[i];
		unsigned j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static void report_spawn_cycles(unsigned n)
{
	if (!n)
		return;
	sort_u64(spawn_cycles, n);
	cprintf("run: min %llu median %llu cycles per spawn-to-exit (%u runs)\n",
		spawn_cycles[0], spawn_cycles[n / 2], n);
}

static int run_many(unsigned n, int argc, char **argv)
{
	unsigned ok = 0, failed = 0, killed = 0, sampled = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();
		struct task *t = spawn_process(argv[0], argc, argv, false);
		int status;

		if (!t) {
			failed++;
			break;
		}
		status = wait_task(t);
		if (sampled < SPAWN_SAMPLES)
			spawn_cycles[sampled++] = rdtsc() - t0;
		if (status & 0x7f)
			killed++;
		else if (status)
			failed++;
		else
			ok++;
	}
	cprintf("run: %u runs of %s: %u exit status 0, %u other status, %u killed\n",
		ok + failed + killed, argv[0], ok, failed, killed);
	report_spawn_cycles(sampled);
	return ok == n ? 0 : -EINTR;
}

static int cmd_run(int argc, char **argv)
{
	bool background = argc > 2 && strcmp(argv[argc - 1], "&") == 0;
	unsigned int n;
	struct task *t;
	int status;

	if (background)
		argc--;
	if (argc >= 4 && !background && strcmp(argv[1], "-n") == 0) {
		if (kstrtouint_range(argv[2], 1, 100000, &n)) {
			cprintf("run: -n wants a count 1-100000, not '%s'\n", argv[2]);
			return -EINVAL;
		}
		return run_many(n, argc - 3, argv + 3);
	}
	if (argc < 2) {
		cprintf("usage: run [-n N] PROG [ARGS] [&]  (PROG is bin/PROG in the initrd: 'ls bin')\n");
		return -EINVAL;
	}
	t = spawn_process(argv[1], argc - 1, argv + 1, background);
	if (!t)
		return -ENOENT;
	if (background) {
		/* the name as typed: the program may rename itself before we print */
		cprintf("[%d] %pE\n", t->pid, argv[1]);
		return 0;
	}
	status = wait_task(t);
	report_status(t, status);
	return status ? -EINTR : 0;
}
SHELL_COMMAND("run", cmd_run, "run [-n N] PROG [ARGS] [&]",
	      "run bin/PROG as a process; with &, in the background; -n N: N times, one summary");

static const char *state_name(enum task_state s)
{
	switch (s) {
	case TASK_RUNNING: return "running";
	case TASK_RUNNABLE: return "runnable";
	case TASK_SLEEPING: return "sleeping";
	case TASK_STOPPED: return "stopped";
	case TASK_ZOMBIE: return "zombie";
	default: return "new";
	}
}

/* One line of ps, copied under tasks_lock: printing is slow, the tasks may change meanwhile. */
struct ps_line {
	int pid;
	enum task_state state;
	unsigned long cr3, runtime, pages;
	bool kernel;
	char comm[TASK_COMM_LEN];
};

static int snapshot_tasks(struct ps_line *out)
{
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		const struct task *t = &tasks[i];
		struct ps_line *l = &out[n];

		if (t->state == TASK_UNUSED || t->state == TASK_NEW || t->state == TASK_DEAD)
			continue;
		/* t->mm changes under tasks_lock: alive while we hold it */
		l->pid = t->pid;
		l->state = t->state;
		l->cr3 = t->mm ? t->mm->pgd : __pa(swapper_pg_dir);
		l->pages = t->mm ? t->mm->total_pages + t->mm->pt_pages : 0;
		l->runtime = t->runtime;
		l->kernel = t->kthread;	/* not "no mm": an exiting process has none */
		memcpy(l->comm, t->comm, TASK_COMM_LEN);
		n++;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return n;
}

static int cmd_ps(int argc, char **argv)
{
	static struct ps_line lines[NR_TASKS];
	int n = snapshot_tasks(lines);

	(void)argc;
	(void)argv;
	cprintf("  PID STATE     CR3         TICKS  PAGES NAME\n");
	for (int i = 0; i < n; i++) {
		const struct ps_line *l = &lines[i];

		cprintf("%5d %-9s 0x%08lx %6lu %6lu %pE%s\n", l->pid, state_name(l->state), l->cr3,
			l->runtime, l->pages, l->comm, l->kernel ? " (kernel task)" : "");
	}
	return 0;
}
SHELL_COMMAND("ps", cmd_ps, "ps",
	      "the tasks: pid, state, CR3 (its page tables), timer ticks run, pages held, name");

/* -9, -KILL, -SIGKILL: the signal a `kill -SIG` names; 0 if none ronx acts on. */
static int parse_signal(const char *arg)
{
	static const int named[] = { SIGINT, SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGKILL, SIGSEGV };
	unsigned int n;

	if (*arg++ != '-')
		return 0;
	if (!kstrtouint_range(arg, 1, 64, &n))
		return sig_kills((int)n) ? (int)n : 0;
	if (strncmp(arg, "SIG", 3) == 0)
		arg += 3;
	for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strcmp(arg, signal_name(named[i]) + 3) == 0)
			return named[i];
	return 0;
}

/* "SIGKILL", or "signal 15" for one without a name here. */
static const char *sig_label(int sig, char *buf, size_t size)
{
	if (strcmp(signal_name(sig), "signal") != 0)
		return signal_name(sig);
	snprintf(buf, size, "signal %d", sig);
	return buf;
}

/* One process: with a reference, so the slot cannot become another process before the kill. */
static int kill_one(unsigned int pid, int sig)
{
	struct task *t = find_get_task((int)pid);
	char buf[16];
	int ret = 0;

	if (!t || t->state == TASK_ZOMBIE) {
		cprintf("kill: no process with pid %u\n", pid);
		ret = -ENOENT;
	} else if (!t->regs) {
		cprintf("kill: pid %u is %pE, a kernel task: refused\n", pid, t->comm);
		ret = -EPERM;
	} else {
		kill_task(t, sig);
		cprintf("kill: %s sent to %pE[%d]\n", sig_label(sig, buf, sizeof(buf)), t->comm, t->pid);
	}
	if (t)
		put_task_struct(t);
	return ret;
}

/*
 * A whole process group in one step (a fork bomb: every process of it,
 * and every child it is still making, see kernel/fork.c's fork_commit()).
 * The shell, pid 0, is in no group a process can join.
 */
static int kill_group(unsigned int pgid, int sig)
{
	int n = kill_pgrp((int)pgid, sig);
	char buf[16];

	if (!n) {
		cprintf("kill: no process in group %u\n", pgid);
		return -ENOENT;
	}
	cprintf("kill: %s sent to %d processes of group %u\n", sig_label(sig, buf, sizeof(buf)), n,
		pgid);
	return 0;
}

/* kill PID, kill -SIG PID, kill -SIG -PGID: Linux's kill(1), SIGKILL by default. */
static int cmd_kill(int argc, char **argv)
{
	const char *target = argv[argc - 1];
	int sig = argc == 3 ? parse_signal(argv[1]) : SIGKILL;
	bool group = *target == '-';
	unsigned int id;

	if ((argc != 2 && argc != 3) || (argc == 2 && group) || !sig ||
	    kstrtouint(target + group, 10, &id) || (group && id == 0)) {
		cprintf("usage: kill [-SIG] PID | kill -SIG -PGID  (SIG: 9, KILL, INT, SEGV, ...)\n");
		return -EINVAL;
	}
	return group ? kill_group(id, sig) : kill_one(id, sig);
}
SHELL_COMMAND("kill", cmd_kill, "kill [-SIG] PID|-PGID",
	      "send a signal (SIGKILL by default) to a process, or to a whole process group");
