// SPDX-License-Identifier: GPL-2.0-only
/*
 * forkloop MODE: processes made and ended fast, for the races of issue 34
 * (tests/qemu/test_reap.py).
 *
 *   forkloop race     forks (one in four a vfork) in a tight loop; each child spins
 *                     a moment, sleeps 30 ms, prints "forkloop: marker PID"
 *                     and exits.
 *                     Ctrl-C must end every one of them: a marker after
 *                     the prompt is a child the kill missed.
 *   forkloop bomb     every process forks forever (after EAGAIN it sleeps
 *                     20 ms and tries again): only a kill ends it.
 *   forkloop fill     every process forks until EAGAIN, then sleeps: none
 *                     ever exits, so the count in ps is the most there
 *                     ever were (never more than the process limit).
 *   forkloop churn    every process forks (at once again after EAGAIN),
 *                     reaps, and exits after four tries: the count stays
 *                     at the process limit, the last slot always fought
 *                     for, until a kill.
 *   forkloop orphans N  forks N children that exit at once and exits
 *                     without waiting: N orphans, zombies until someone
 *                     collects them.
 *   forkloop child    what race's vfork child execs: spin, marker, exit.
 */
#include <ulib.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static void spin(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

/*
 * A short spin, then a sleep: the children leave the CPU to the parent,
 * so a Ctrl-C finds it in fork as often as it can.
 */
static void __attribute__((noreturn)) marker_child(void)
{
	spin(100000);
	sleep_ms(30);
	printf("forkloop: marker %d\n", getpid());
	_exit(0);
}

/*
 * A megabyte the parent has touched: fork shares each of its pages, so
 * the child spends longer being made (TASK_NEW), where the kill used to
 * miss it.
 */
static char ballast[1 << 20];

static int race(void)
{
	static char *child_argv[] = { "forkloop", "child", NULL };
	static char *env[] = { NULL };
	int status;

	for (unsigned i = 0; i < sizeof(ballast); i += 4096)
		ballast[i] = 1;
	printf("forkloop: race: forking\n");
	for (unsigned i = 0;; i++) {
		long pid;

		while (wait4(-1, &status, WNOHANG, NULL) > 0)
			;
		if (i % 4) {
			pid = fork();
			if (pid == 0)
				marker_child();
		} else {
			pid = vfork_execve("/bin/forkloop", child_argv, env);
		}
		if (pid < 0)
			wait4(-1, &status, 0, NULL);	/* at the limit: one slot back */
	}
}

static int __attribute__((noreturn)) bomb(void)
{
	for (;;)
		if (fork() < 0)
			sleep_ms(20);
}

static int __attribute__((noreturn)) fill(void)
{
	while (fork() >= 0)
		;
	for (;;)
		sleep_ms(1000);
}

static int __attribute__((noreturn)) churn(void)
{
	int status;

	for (unsigned i = 0;; i++) {
		if (fork() == 0)
			i = 0;		/* the child is a new churner */
		while (wait4(-1, &status, WNOHANG, NULL) > 0)
			;
		if (i % 4 == 3)
			_exit(0);
	}
}

static int orphans(unsigned n)
{
	unsigned made = 0;
	int err = 0;

	for (unsigned i = 0; i < n; i++) {
		int pid = fork();

		if (pid == 0) {
			spin(i % 2 ? 200000 : 0);	/* some exit before the parent, some after */
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			continue;
		}
		made++;
	}
	printf("forkloop: orphans: %u of %u forks%s%s\n", made, n, err ? ", error " : "",
	       err ? errno_name(err) : "");
	return made == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned n;

	if (argc == 2 && strcmp(argv[1], "race") == 0)
		return race();
	if (argc == 2 && strcmp(argv[1], "bomb") == 0)
		bomb();
	if (argc == 2 && strcmp(argv[1], "fill") == 0)
		fill();
	if (argc == 2 && strcmp(argv[1], "churn") == 0)
		churn();
	if (argc == 2 && strcmp(argv[1], "child") == 0)
		marker_child();
	if (argc == 3 && strcmp(argv[1], "orphans") == 0 && !parse_uint(argv[2], &n) && n <= 64)
		return orphans(n);
	printf("usage: forkloop race | bomb | fill | churn | orphans N (N <= 64)\n");
	return 2;
}
