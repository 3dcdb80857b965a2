// SPDX-License-Identifier: GPL-2.0-only
/*
 * forkprogs: the process programs in one executable, as busybox does.
 * bin/forktest, bin/cowtest, ... are hard links to it (the initrd keeps
 * its bytes once: a 2M machine holds the whole initrd in RAM), and it
 * runs the program its own name names (argv[0]'s last component), or,
 * run under its own name, the one argv[1] names.
 */
#include <ulib.h>

#define PROGS(X) X(forktest) X(cowtest) X(zerotest) X(stackgrow) X(forkbomb) X(oomtouch) X(bench_fork) X(sh) \
	X(ptbomb) X(shmfork)
#define DECLARE(n) int n##_main(int argc, char **argv, char **envp);
#define ENTRY(n) { #n, n##_main },
PROGS(DECLARE)

static const struct {
	const char *name;
	int (*main)(int argc, char **argv, char **envp);
} progs[] = { PROGS(ENTRY) };

static int run(const char *name, int argc, char **argv, char **envp)
{
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (strcmp(progs[i].name, name) == 0)
			return progs[i].main(argc, argv, envp);
	return -1;
}

int main(int argc, char **argv, char **envp)
{
	const char *slash = strrchr(argv[0], '/');
	int ret = run(slash ? slash + 1 : argv[0], argc, argv, envp);

	if (ret >= 0)
		return ret;
	if (argc > 1 && (ret = run(argv[1], argc - 1, argv + 1, envp)) >= 0)
		return ret;
	printf("usage: forkprogs PROG [ARGS]  (PROG: forktest cowtest zerotest stackgrow "
	       "forkbomb oomtouch bench_fork sh ptbomb shmfork), or run it by one of those names\n");
	return 2;
}
