// SPDX-License-Identifier: GPL-2.0-only
/*
 * sh: a small shell that is itself a process. Each line is a command:
 * a built-in, or PROG ARGS, run by fork + execve + wait4 (with a trailing
 * "&", in the background: its pid is printed and the prompt comes back).
 * Ended background jobs are reaped (and reported) before each prompt, so
 * none stays a zombie.
 *
 * PROG is found in sh's own directory (argv[0]'s, as "./sh" under
 * qemu-i386 or "/ubin/sh" in the Linux guest), else in /bin (ronx's
 * initrd: `run sh` gives argv[0] "sh"); a PROG with a '/' is used as is.
 *
 * Input is read one byte at a time, so a child started by this line gets
 * the lines after it (a pipe's bytes are not swallowed by a buffer here).
 * ronx's console hands out whole lines and echoes them; under qemu-i386
 * or Linux, stdin is what the test wrote.
 *
 * Job control, the minimum: each job is a process group of its own
 * (setpgid in the child and in the parent, so it holds whichever runs
 * first). When sh's stdin is a terminal and sh's group is in front, a
 * foreground job is given the terminal (tcsetpgrp) and sh takes it back
 * after wait4: what is typed goes to the job, and Ctrl-C kills the job,
 * not sh, and Ctrl-Z stops it: sh reports it stopped and takes the
 * terminal back. A background job's group never has the terminal: its
 * read(0) stops it (SIGTTIN), reported before the next prompt ("[7]
 * stopped (tty input): cat"). `jobs` lists the jobs, `fg [PID]` gives
 * one the terminal and continues it (SIGCONT), then waits for it, `bg
 * [PID]` continues it in the background. sh itself ignores SIGTSTP,
 * SIGTTIN and SIGTTOU, as an interactive shell does; its jobs get their
 * default actions back.
 */
#include <stdbool.h>
#include <ulib.h>

#define LINE_MAX	256
#define ARGS_MAX	16
#define JOBS_MAX	16
#define PATH_MAX_SH	128

static char bindir[PATH_MAX_SH] = "/bin";
static char **environ_sh;

/* the jobs not in front: pid, name, and whether stopped */
static struct job {
	int pid;
	bool stopped;
	char name[32];
} jobs[JOBS_MAX];

static const char *signame(int sig)
{
	switch (sig) {
	case 2: return "SIGINT";
	case 4: return "SIGILL";
	case 5: return "SIGTRAP";
	case 6: return "SIGABRT";
	case 7: return "SIGBUS";
	case 8: return "SIGFPE";
	case 9: return "SIGKILL";
	case 11: return "SIGSEGV";
	case 13: return "SIGPIPE";
	case 15: return "SIGTERM";
	default: return "a signal";
	}
}

/* "PROG: exit status N" or "PROG: killed by SIGSEGV (signal 11)" */
static void report(const char *name, int status)
{
	if (WIFSIGNALED(status))
		printf("%s: killed by %s (signal %d)\n", name, signame(WTERMSIG(status)),
		       WTERMSIG(status));
	else
		printf("%s: exit status %d\n", name, WEXITSTATUS(status));
}

static struct job *find_job(int pid)
{
	for (int i = 0; i < JOBS_MAX; i++)
		if (jobs[i].pid == pid)
			return &jobs[i];
	return NULL;
}

/* A background job ended: "[PID] done: PROG: exit status N", its slot free. */
static void job_done(int pid, int status)
{
	struct job *j = find_job(pid);

	printf("[%d] done: ", pid);
	report(j ? j->name : "?", status);
	if (j)
		j->pid = 0;
}

/* Why a job stopped, as a shell says it */
static const char *stop_reason(int sig)
{
	switch (sig) {
	case SIGTSTP: return "SIGTSTP";
	case SIGSTOP: return "SIGSTOP";
	case SIGTTIN: return "tty input";
	case SIGTTOU: return "tty output";
	default: return "a signal";
	}
}

static void add_job(int pid, const char *name, bool stopped);

/* A job stopped: "[PID] stopped (tty input): PROG", kept in the table as stopped. */
static void job_stopped(int pid, const char *name, int status)
{
	struct job *j = find_job(pid);

	printf("[%d] stopped (%s): %s\n", pid, stop_reason(WSTOPSIG(status)), j ? j->name : name);
	if (j)
		j->stopped = true;
	else
		add_job(pid, name, true);
}

/* Reap every child that has ended, and note every stop, without waiting (before each prompt). */
static void reap_zombies(void)
{
	int status, pid;

	while ((pid = (int)wait4(-1, &status, WNOHANG | WUNTRACED, NULL)) > 0) {
		if (WIFSTOPPED(status))
			job_stopped(pid, "?", status);
		else
			job_done(pid, status);
	}
}

/* One line from fd 0 without its newline; -1 at end of file (or on error). */
static int read_line(char *buf, int size)
{
	int n = 0;
	char c;

	for (;;) {
		long got = read(0, &c, 1);

		if (got <= 0)
			return n ? n : -1;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return n;
}

/* Splits line in place at spaces and tabs; a trailing "&" sets *bg. */
static int parse(char *line, char **argv, bool *bg)
{
	int argc = 0;
	char *p = line;

	*bg = false;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == ARGS_MAX) {
			printf("sh: more than %d words\n", ARGS_MAX);
			return -1;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (argc) {
		size_t len = strlen(argv[argc - 1]);

		if (argv[argc - 1][len - 1] == '&') {
			*bg = true;
			argv[argc - 1][len - 1] = '\0';
			if (len == 1)
				argc--;
		}
	}
	argv[argc] = NULL;
	return argc;
}

/* The file execve is given for PROG. */
static void prog_path(const char *prog, char *path, size_t size)
{
	if (strchr(prog, '/'))
		snprintf(path, size, "%s", prog);
	else
		snprintf(path, size, "%s/%s", bindir, prog);
}

static void add_job(int pid, const char *name, bool stopped)
{
	struct job *j = find_job(0);

	if (!j) {
		printf("sh: [%d] %s: more than %d jobs, not tracked (wait reaps it)\n", pid, name,
		       JOBS_MAX);
		return;
	}
	j->pid = pid;
	j->stopped = stopped;
	snprintf(j->name, sizeof(j->name), "%s", name);
}

/* sh ignores the stop signals of the terminal, its jobs get them back (SIG_DFL) */
static void job_control_signals(uint32_t handler)
{
	sigaction_disposition(SIGTSTP, handler);
	sigaction_disposition(SIGTTIN, handler);
	sigaction_disposition(SIGTTOU, handler);
}

/*
 * Waits for the job in front, pid (WUNTRACED: a stop ends the wait too),
 * then takes the terminal back if it gave it (tty). It ended: reported;
 * it stopped (Ctrl-Z): kept as a stopped job.
 */
static void wait_foreground(int pid, const char *name, bool tty)
{
	int status;

	pid = (int)wait4(pid, &status, WUNTRACED, NULL) == pid ? pid : -1;
	if (tty && tcsetpgrp(0, getpgrp()) < 0)
		printf("sh: tcsetpgrp (back to sh): %s\n", errno_name(errno));
	if (pid < 0) {
		printf("sh: wait4: %s\n", errno_name(errno));
		return;
	}
	if (WIFSTOPPED(status))
		job_stopped(pid, name, status);
	/* the child said why it could not run: no second line */
	else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127))
		report(name, status);
}

/*
 * A foreground child waits until sh has given its group the terminal:
 * ronx lets only the group in front (or the session's leader) move it,
 * so the child cannot take it itself as a real shell's child does, and
 * a read before then would be -EIO.
 */
static void wait_for_terminal(void)
{
	while (tcgetpgrp(0) != getpid())
		sched_yield();
}

/* fork, execve in the child; the parent waits for it unless bg. */
static void run(char **argv, bool bg)
{
	char path[PATH_MAX_SH];
	int pid;
	/* sh's group holds the terminal: a foreground job gets it */
	int front = tcgetpgrp(0);
	bool tty = !bg && front >= 0 && front == getpgrp();

	prog_path(argv[0], path, sizeof(path));
	pid = fork();
	if (pid < 0) {
		printf("sh: fork: %s\n", errno_name(errno));
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		job_control_signals(SIG_DFL);
		if (tty)
			wait_for_terminal();
		execve(path, argv, environ_sh);
		if (errno == ENOENT)
			printf("sh: %s: command not found (no %s)\n", argv[0], path);
		else
			printf("sh: %s: cannot run %s: %s\n", argv[0], path, errno_name(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (bg) {
		printf("[%d] %s\n", pid, argv[0]);
		add_job(pid, argv[0], false);
		return;
	}
	if (tty && tcsetpgrp(0, pid) < 0) {
		/* it would wait for the terminal for ever */
		printf("sh: tcsetpgrp %d: %s\n", pid, errno_name(errno));
		kill(pid, SIGKILL);
	}
	wait_foreground(pid, argv[0], tty);
}

/* wait [PID]: one job, or every child, reported as each ends */
static void builtin_wait(int argc, char **argv)
{
	unsigned int want = 0;
	int status, pid;

	if (argc > 1 && parse_uint(argv[1], &want)) {
		printf("sh: wait: '%s' is not a pid\n", argv[1]);
		return;
	}
	while ((pid = (int)wait4(want ? (int)want : -1, &status, 0, NULL)) > 0) {
		job_done(pid, status);
		if (want)
			return;
	}
	if (want)
		printf("sh: wait: %u: %s\n", want, errno_name(errno));
}

static void builtin_jobs(void)
{
	for (int i = 0; i < JOBS_MAX; i++)
		if (jobs[i].pid)
			printf("[%d] %s: %s\n", jobs[i].pid, jobs[i].stopped ? "stopped" : "running",
			       jobs[i].name);
}

/* fg's and bg's job: PID's, else the last one in the table; NULL (said why) if none. */
static struct job *job_arg(const char *cmd, int argc, char **argv)
{
	unsigned int want = 0;
	struct job *j = NULL;

	if (argc > 1 && parse_uint(argv[1], &want)) {
		printf("sh: %s: '%s' is not a pid\n", cmd, argv[1]);
		return NULL;
	}
	for (int i = 0; i < JOBS_MAX; i++)
		if (jobs[i].pid && (!want || jobs[i].pid == (int)want))
			j = &jobs[i];
	if (!j)
		printf("sh: %s: no such job\n", cmd);
	return j;
}

/* fg [PID]: the job gets the terminal and SIGCONT, and sh waits for it */
static void builtin_fg(int argc, char **argv)
{
	struct job *j = job_arg("fg", argc, argv);
	char name[sizeof(j->name)];
	int front = tcgetpgrp(0), pid;
	bool tty = front >= 0 && front == getpgrp();

	if (!j)
		return;
	pid = j->pid;
	memcpy(name, j->name, sizeof(name));
	j->pid = 0;		/* in front now: not a job of the table */
	if (tty && tcsetpgrp(0, pid) < 0)
		printf("sh: fg: tcsetpgrp %d: %s\n", pid, errno_name(errno));
	if (kill(-pid, SIGCONT) < 0)
		printf("sh: fg: kill %d: %s\n", -pid, errno_name(errno));
	printf("%s\n", name);	/* after: what is typed from now on is the job's */
	wait_foreground(pid, name, tty);
}

/* bg [PID]: a stopped job goes on in the background (SIGCONT) */
static void builtin_bg(int argc, char **argv)
{
	struct job *j = job_arg("bg", argc, argv);

	if (!j)
		return;
	if (kill(-j->pid, SIGCONT) < 0) {
		printf("sh: bg: kill %d: %s\n", -j->pid, errno_name(errno));
		return;
	}
	j->stopped = false;
	printf("[%d] %s &\n", j->pid, j->name);
}

static void builtin_help(void)
{
	printf("sh: PROG [ARGS] [&] runs %s/PROG (fork, execve, wait4); with &, in the background\n"
	       "built-ins: echo ARGS, wait [PID], jobs, fg [PID], bg [PID], pid, help, exit [N]\n"
	       "Ctrl-Z stops the job in front; Ctrl-D on an empty line ends sh as exit does\n",
	       bindir);
}

/* A built-in ran: true; exit does not return. */
static bool builtin(int argc, char **argv)
{
	const char *cmd = argv[0];

	if (strcmp(cmd, "exit") == 0) {
		unsigned int n = 0;

		if (argc > 1 && parse_uint(argv[1], &n))
			printf("sh: exit: '%s' is not a number, exiting with 0\n", argv[1]);
		exit((int)n & 0xff);
	}
	if (strcmp(cmd, "echo") == 0) {
		for (int i = 1; i < argc; i++)
			printf("%s%s", argv[i], i + 1 < argc ? " " : "");
		printf("\n");
	} else if (strcmp(cmd, "wait") == 0) {
		builtin_wait(argc, argv);
	} else if (strcmp(cmd, "jobs") == 0) {
		builtin_jobs();
	} else if (strcmp(cmd, "fg") == 0) {
		builtin_fg(argc, argv);
	} else if (strcmp(cmd, "bg") == 0) {
		builtin_bg(argc, argv);
	} else if (strcmp(cmd, "pid") == 0) {
		printf("sh: pid %d, parent %d\n", getpid(), getppid());
	} else if (strcmp(cmd, "help") == 0) {
		builtin_help();
	} else {
		return false;
	}
	return true;
}

/* bindir: the directory argv[0] names, if it names one */
static void set_bindir(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	size_t len = slash ? (size_t)(slash - argv0) : 0;

	if (!slash || len + 1 > sizeof(bindir))
		return;
	if (len == 0)
		len = 1;		/* "/sh": the root */
	memcpy(bindir, argv0, len);
	bindir[len] = '\0';
}

int main(int argc, char **argv, char **envp)
{
	char line[LINE_MAX];
	char *args[ARGS_MAX + 1];

	(void)argc;
	environ_sh = envp;
	set_bindir(argv[0]);
	job_control_signals(SIG_IGN);
	for (;;) {
		bool bg;
		int n;

		reap_zombies();
		printf("$ ");
		if (read_line(line, sizeof(line)) < 0) {
			printf("\n");
			break;
		}
		n = parse(line, args, &bg);
		if (n <= 0)
			continue;
		if (!bg && builtin(n, args))
			continue;
		run(args, bg);
	}
	return 0;
}
