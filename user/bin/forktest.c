// SPDX-License-Identifier: GPL-2.0-only
/*
 * forktest: processes that make processes, checked against Linux's
 * answers. fork's two returns, getppid, wait4's status for an exit and
 * for a kill, copy-on-write isolation both ways (data, heap, stack, an
 * anonymous mmap), vfork + execve, kill between processes, and the
 * errors: ECHILD, EINVAL, EFAULT, ESRCH, ENOENT. One line per check,
 * "forktest: ok NAME" or "forktest: FAIL NAME: why"; exit 0 if all pass.
 *
 * execve runs the "exit" program from the directory forktest itself was
 * run from (/bin on ronx, /ubin on the Linux peer, ./ under qemu-user).
 */
#include <ulib.h>

static int passed, failed;
static volatile int data_word = 100;
static char exit_path[64], self_path[64];

static void check(int ok, const char *name, const char *fmt, ...)
{
	char why[160] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (ok) {
		passed++;
		printf("forktest: ok %s\n", name);
	} else {
		failed++;
		printf("forktest: FAIL %s: %s\n", name, why);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* fork's returns, the child's pid and parent, and an exit status */
static void test_fork_and_status(void)
{
	int me = getpid(), status = -1;
	int pid = fork();

	if (pid == 0) {
		/* the child: its own pid, its parent's */
		_exit(getppid() == me && getpid() != me ? 42 : 1);
	}
	check(pid > 0 && pid != me, "fork_returns_child_pid", "fork() = %d, errno %s", pid,
	      errno_name(errno));
	check(wait4(pid, &status, 0, NULL) == pid, "wait4_returns_pid", "errno %s", errno_name(errno));
	check(status == 42 << 8 && WIFEXITED(status) && WEXITSTATUS(status) == 42,
	      "wait4_status_exit_42", "status %#x (the child's getppid/getpid were %s)", status,
	      WEXITSTATUS(status) == 1 ? "wrong" : "?");
}

/* a child's writes stay in the child, the parent's in the parent */
static void test_cow_isolation(void)
{
	volatile int stack_word = 200;
	volatile int *heap = malloc(64);
	volatile int *anon = mmap(NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status = -1, pid;

	if (!heap || anon == MAP_FAILED) {
		check(0, "cow_setup", "malloc or mmap failed");
		return;
	}
	*heap = 300;
	anon[0] = 400;
	pid = fork();
	if (pid == 0) {
		data_word = 1;
		stack_word = 2;
		*heap = 3;
		anon[0] = 4;
		anon[PAGE_SIZE / 4] = 5;	/* a page the parent never touched */
		/* then read the parent's writes: we must not see them */
		sleep_ms(100);
		_exit(data_word == 1 && stack_word == 2 && *heap == 3 && anon[0] == 4 ? 0 : 1);
	}
	/* the parent writes too, while the child runs */
	data_word = 101;
	sleep_ms(50);
	check(pid > 0 && wait4(pid, &status, 0, NULL) == pid && status == 0,
	      "cow_child_keeps_its_writes", "status %#x", status);
	check(data_word == 101 && stack_word == 200 && *heap == 300 && anon[0] == 400 &&
	      anon[PAGE_SIZE / 4] == 0, "cow_parent_unchanged_by_child",
	      "data %d stack %d heap %d anon %d %d", data_word, stack_word, *heap, anon[0],
	      anon[PAGE_SIZE / 4]);
	munmap((void *)anon, 3 * PAGE_SIZE);
}

/* a child killed by a fault, and one killed by its parent */
static void test_signals(void)
{
	int status = -1, pid = fork();

	if (pid == 0) {
		*(volatile int *)0 = 1;
		_exit(0);
	}
	check(wait4(pid, &status, 0, NULL) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGSEGV, "wait4_status_sigsegv", "status %#x", status);
	pid = fork();
	if (pid == 0) {
		for (;;)
			sleep_ms(10);
	}
	check(kill(pid, 0) == 0, "kill_sig0_live_child", "errno %s", errno_name(errno));
	check(kill(pid, SIGTERM) == 0, "kill_sigterm", "errno %s", errno_name(errno));
	status = -1;
	check(wait4(pid, &status, 0, NULL) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM, "wait4_status_sigterm", "status %#x", status);
	check(kill(pid, 0) == -1 && errno == ESRCH, "kill_reaped_esrch", "errno %s",
	      errno_name(errno));
	check(kill(getpid(), -1) == -1 && errno == EINVAL, "kill_bad_signal_einval", "errno %s",
	      errno_name(errno));
}

/* WNOHANG, several children, wait for any */
static void test_wait_any(void)
{
	int pids[3], status, got = 0, sum = 0, pid;

	for (int i = 0; i < 3; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			sleep_ms(30 * (i + 1));
			_exit(10 + i);
		}
	}
	check(wait4(-1, &status, WNOHANG, NULL) == 0, "wait4_wnohang_running_zero", "errno %s",
	      errno_name(errno));
	while ((pid = wait4(-1, &status, 0, NULL)) > 0) {
		got++;
		sum += WEXITSTATUS(status);
	}
	check(got == 3 && sum == 33 && errno == ECHILD, "wait4_any_collects_all_then_echild",
	      "got %d, sum %d, errno %s", got, sum, errno_name(errno));
	(void)pids;
}

static void test_wait_errors(void)
{
	int status, pid;

	check(wait4(-1, &status, 0, NULL) == -1 && errno == ECHILD, "wait4_no_children_echild",
	      "errno %s", errno_name(errno));
	check(waitpid(1, &status, 0) == -1 && errno == ECHILD, "waitpid_not_a_child_echild",
	      "errno %s", errno_name(errno));
	check(wait4(-1, &status, 0x100, NULL) == -1 && errno == EINVAL, "wait4_bad_options_einval",
	      "errno %s", errno_name(errno));
	pid = fork();
	if (pid == 0)
		_exit(5);
	/* a status pointer into the kernel: EFAULT, and the child is reaped all the same */
	check(wait4(pid, (int *)0xc0000000UL, 0, NULL) == -1 && errno == EFAULT,
	      "wait4_bad_status_efault", "errno %s", errno_name(errno));
	check(wait4(pid, &status, WNOHANG, NULL) == -1 && errno == ECHILD,
	      "wait4_efault_still_reaped", "errno %s", errno_name(errno));
	pid = fork();
	if (pid == 0)
		_exit(6);
	status = -1;
	check(waitpid(pid, &status, 0) == pid && status == 6 << 8, "waitpid_status_exit_6",
	      "status %#x", status);
}

static void test_exec(void)
{
	char *args[] = { "exit", "7", NULL }, *env[] = { NULL };
	int status = -1, pid;
	long vp = vfork_execve(exit_path, args, env);

	check(vp > 0 && wait4((int)vp, &status, 0, NULL) == vp && status == 7 << 8,
	      "vfork_execve_exit_7", "%s: pid %ld, status %#x, errno %s", exit_path, vp, status,
	      errno_name(errno));
	pid = fork();
	if (pid == 0) {
		execve(exit_path, args, env);
		_exit(99);
	}
	status = -1;
	check(wait4(pid, &status, 0, NULL) == pid && status == 7 << 8, "fork_execve_exit_7",
	      "status %#x", status);
	pid = fork();
	if (pid == 0) {
		char *self[] = { "forktest", "envcheck", NULL }, *e[] = { "RONX_TEST=42", NULL };

		execve(self_path, self, e);
		_exit(99);
	}
	status = -1;
	check(wait4(pid, &status, 0, NULL) == pid && status == 0, "execve_passes_envp",
	      "%s envcheck: status %#x", self_path, status);
	check(execve("/no/such/program", args, env) == -1 && errno == ENOENT, "execve_enoent",
	      "errno %s", errno_name(errno));
	check(execve((char *)0xc0000000UL, args, env) == -1 && errno == EFAULT,
	      "execve_kernel_path_efault", "errno %s", errno_name(errno));
	check(execve(exit_path, (char **)0xc0000000UL, env) == -1 && errno == EFAULT,
	      "execve_kernel_argv_efault", "errno %s", errno_name(errno));
}

/* forktest envcheck: run by execve with one environment string; exit 0 if it came */
static int envcheck(char **envp)
{
	return envp[0] && strcmp(envp[0], "RONX_TEST=42") == 0 && !envp[1] ? 0 : 1;
}

static void dir_of_self(const char *argv0, const char *name, char *out, size_t size)
{
	const char *slash = strrchr(argv0, '/');
	size_t dir = slash ? (size_t)(slash - argv0) : 0, n = strlen(name) + 1;

	if (slash && dir + 1 + n <= size) {
		memcpy(out, argv0, dir);
		out[dir] = '/';
		memcpy(out + dir + 1, name, n);
	} else {
		memcpy(out, "/bin/", 5);
		memcpy(out + 5, name, n);
	}
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 1 && strcmp(argv[1], "envcheck") == 0)
		return envcheck(envp);
	dir_of_self(argv[0], "exit", exit_path, sizeof(exit_path));
	dir_of_self(argv[0], "forktest", self_path, sizeof(self_path));
	printf("forktest: pid %d, parent %d\n", getpid(), getppid());
	test_fork_and_status();
	test_cow_isolation();
	test_signals();
	test_wait_any();
	test_wait_errors();
	test_exec();
	printf("forktest: %d of %d checks passed\n", passed, passed + failed);
	return failed ? 1 : 0;
}
