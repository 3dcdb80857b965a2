// SPDX-License-Identifier: GPL-2.0-only
/*
 * forkbomb [N | tree]: a fork bomb that ends.
 *
 *   forkbomb N     forks children that sleep, until fork fails or N of
 *                  them live (default 1000); then kills them all, reaps
 *                  them, and says which came first. ronx's process limit
 *                  (Linux's RLIMIT_NPROC) gives EAGAIN; Linux's root has
 *                  no such limit and reaches N.
 *   forkbomb tree  the classic bomb: every process forks until fork
 *                  fails, then waits for its children and exits. Only
 *                  for a kernel with a process limit (ronx): it ends
 *                  when every process has seen EAGAIN.
 */
#include <ulib.h>

#define MAX_CHILDREN	1000

static int children[MAX_CHILDREN];

static void sleep_forever(void)
{
	struct timespec ts = { 1, 0 };

	for (;;)
		nanosleep(&ts, NULL);
}

static int tree(void)
{
	int forks = 0, depth = 0, err = 0, status, pid;

	while (forks < 64 && depth < 64) {
		pid = fork();
		if (pid < 0) {
			err = errno;
			break;
		}
		if (pid == 0) {
			forks = 0;
			depth++;
			continue;
		}
		forks++;
	}
	while (wait4(-1, &status, 0, NULL) > 0)
		;
	if (depth == 0)
		printf("forkbomb: tree: the first process stopped after %d forks: %s\n", forks,
		       err ? errno_name(err) : "its own cap");
	_exit(err == EAGAIN ? 0 : 1);
}

int main(int argc, char **argv)
{
	unsigned int cap = MAX_CHILDREN;
	int n = 0, err = 0, status, reaped = 0;

	if (argc > 1 && strcmp(argv[1], "tree") == 0)
		return tree();
	if (argc > 1 && (parse_uint(argv[1], &cap) || cap == 0 || cap > MAX_CHILDREN)) {
		printf("usage: forkbomb [N 1-%d | tree]\n", MAX_CHILDREN);
		return 2;
	}
	while ((unsigned)n < cap) {
		int pid = fork();

		if (pid == 0)
			sleep_forever();
		if (pid < 0) {
			err = errno;
			break;
		}
		children[n++] = pid;
	}
	if (err)
		printf("forkbomb: fork failed with %s after %d children\n", errno_name(err), n);
	else
		printf("forkbomb: %d children and no failure: no process limit here\n", n);
	for (int i = 0; i < n; i++)
		kill(children[i], SIGKILL);
	while (wait4(-1, &status, 0, NULL) > 0)
		reaped += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	printf("forkbomb: killed and reaped %d of %d children\n", reaped, n);
	return reaped == n && (!err || err == EAGAIN) ? 0 : 1;
}
