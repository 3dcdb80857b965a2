// SPDX-License-Identifier: GPL-2.0-only
/*
 * jobctl: the stopped state (issue 30 item 7), the same binary on ronx
 * and on Linux. Each case prints "ok N - what" or "not ok N - what"
 * (TAP), then "jobctl: N passed, M failed". The statuses are Linux's
 * numbers, written out: a stop is sig << 8 | 0x7f, a continue 0xffff.
 *
 *   kill -STOP: wait4(WUNTRACED) says 0x137f, once; SIGCHLD comes
 *   kill -CONT, even ignored: wait4(WCONTINUED) says 0xffff, once
 *   SA_NOCLDSTOP: no SIGCHLD for a stop
 *   SIGKILL ends a stopped child: status 9
 *   SIGCONT discards a pending (blocked) SIGTSTP: the child never stops
 *   SIGTSTP caught: the handler runs, nothing stops
 *
 * The child spins in ring 3 without a system call: on a machine with two
 * CPUs, only the IPI that goes with the signal gets it to stop.
 */
#include <ulib.h>

static int passed, failed, nr;
static volatile int sigchld_hits, usr1_hits;

static void report(int ok, const char *what, int got)
{
	printf("%sok %d - %s (got %#x)\n", ok ? "" : "not ", ++nr, what, got);
	if (ok)
		passed++;
	else
		failed++;
}

static void on_sigchld(int sig, struct siginfo *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	sigchld_hits++;
}

static void on_usr1(int sig, struct siginfo *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	usr1_hits++;
}

static void on_tstp(int sig, struct siginfo *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	_exit(7);
}

/*
 * A child that spins until killed, or with until_usr1 until SIGUSR1
 * came: then it unblocks every signal and exits 0.
 */
static int spinner(bool until_usr1)
{
	sigset_t none = 0;
	int pid = fork();

	/*
	 * A group of its own, in the parent's session, is not orphaned: its
	 * parent is outside it. A stop of SIGTSTP would be dropped in jobctl's
	 * own group, whose parent on ronx is the kernel's shell.
	 */
	if (pid > 0)
		setpgid(pid, pid);
	if (pid == 0) {
		setpgid(0, 0);
		while (!until_usr1 || !usr1_hits)
			;
		sigprocmask(SIG_SETMASK, &none, NULL);
		_exit(0);
	}
	return pid;
}

/* wait4 of pid with options: its status, or -1 if wait4 did not return pid. */
static int wait_status(int pid, int options)
{
	int status = 0;
	long r = wait4(pid, &status, options, NULL);

	return r == pid ? status : (r == 0 ? 0 : -1);
}

static void test_stop_cont(void)
{
	int pid, st;

	sigaction_handler(SIGCHLD, on_sigchld, SA_RESTART);
	sigaction_disposition(SIGCONT, SIG_IGN);	/* the child's: it still continues */
	pid = spinner(false);
	sigaction_disposition(SIGCONT, SIG_DFL);
	sigchld_hits = 0;
	kill(pid, SIGSTOP);
	st = wait_status(pid, WUNTRACED);
	report(st == 0x137f && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
	       "kill(SIGSTOP): wait4(WUNTRACED) reports the stop, status 0x137f", st);
	report(sigchld_hits == 1, "the parent got SIGCHLD for the stop", sigchld_hits);
	st = wait_status(pid, WUNTRACED | WNOHANG);
	report(st == 0, "the stop is reported once: wait4(WUNTRACED|WNOHANG) then says 0", st);
	kill(pid, SIGCONT);
	st = wait_status(pid, WCONTINUED);
	report(st == 0xffff && WIFCONTINUED(st),
	       "kill(SIGCONT), ignored by the child: wait4(WCONTINUED) reports 0xffff", st);
	st = wait_status(pid, WCONTINUED | WNOHANG);
	report(st == 0, "the continue is reported once", st);
	st = wait_status(pid, WUNTRACED | WNOHANG);
	report(st == 0, "it runs again: no stop to report", st);

	/* SIGKILL ends a stopped process */
	kill(pid, SIGSTOP);
	st = wait_status(pid, WUNTRACED);
	report(st == 0x137f, "stopped again", st);
	kill(pid, SIGKILL);
	st = wait_status(pid, 0);
	report(st == SIGKILL && WIFSIGNALED(st), "SIGKILL ends the stopped child: status 9", st);
}

static void test_nocldstop(void)
{
	int pid, st;

	sigaction_handler(SIGCHLD, on_sigchld, SA_RESTART | 1 /* SA_NOCLDSTOP */);
	pid = spinner(false);
	sigchld_hits = 0;
	kill(pid, SIGTSTP);
	st = wait_status(pid, WUNTRACED);
	report(st == 0x147f, "kill(SIGTSTP) stops by default: status 0x147f", st);
	report(sigchld_hits == 0, "SA_NOCLDSTOP: no SIGCHLD for the stop", sigchld_hits);
	kill(pid, SIGKILL);
	wait_status(pid, 0);
	sigaction_disposition(SIGCHLD, SIG_DFL);
}

/*
 * The child starts with SIGTSTP blocked (fork keeps the mask), so the
 * SIGTSTP waits; the SIGCONT sent after it discards it. At SIGUSR1 the
 * child unblocks everything and exits: a SIGTSTP still pending would
 * stop it there instead (status 0x147f).
 */
static void test_cont_discards_stop(void)
{
	sigset_t tstp = sigmask(SIGTSTP), old;
	int pid, st;

	sigaction_handler(SIGUSR1, on_usr1, 0);
	usr1_hits = 0;
	sigprocmask(SIG_BLOCK, &tstp, &old);
	pid = spinner(true);
	sigprocmask(SIG_SETMASK, &old, NULL);
	kill(pid, SIGTSTP);		/* blocked: pending */
	kill(pid, SIGCONT);		/* discards it */
	kill(pid, SIGUSR1);		/* the child ends its loop */
	st = wait_status(pid, WUNTRACED);
	report(st == 0, "SIGCONT discards a pending SIGTSTP: the child exits 0, never stopped", st);
	if (WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		wait_status(pid, 0);
	}
}

/* A caught SIGTSTP runs its handler (here: exit 7) instead of stopping. */
static void test_tstp_caught(void)
{
	int pid, st;

	sigaction_handler(SIGTSTP, on_tstp, 0);
	pid = spinner(false);
	sigaction_disposition(SIGTSTP, SIG_DFL);
	kill(pid, SIGTSTP);
	st = wait_status(pid, WUNTRACED);
	report(WIFEXITED(st) && WEXITSTATUS(st) == 7,
	       "SIGTSTP with a handler: the handler runs (exit 7), no stop", st);
	if (WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		wait_status(pid, 0);
	}
}

int main(void)
{
	test_stop_cont();
	test_nocldstop();
	test_cont_discards_stop();
	test_tstp_caught();
	printf("jobctl: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
