// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_spawn [N] [PROG]: the cost of starting a program and seeing it
 * end. N times: vfork, execve PROG (default /bin/true, ronx's "true"),
 * wait for it; TSC cycles per spawn-to-exit, min and median. The same
 * binary on ronx and on Linux.
 */
#include <ulib.h>

int main(int argc, char **argv, char **envp)
{
	unsigned int n = 1000;
	char *prog = argc > 2 ? argv[2] : "/bin/true";
	char *args[] = { prog, NULL };
	uint32_t *t;

	if (argc > 3 || (argc > 1 && (parse_uint(argv[1], &n) || n == 0))) {
		printf("usage: bench_spawn [N] [PROG]\n");
		return 2;
	}
	t = malloc(n * sizeof(*t));
	if (!t) {
		printf("bench_spawn: no memory for %u samples\n", n);
		return 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rdtsc();
		long pid = vfork_execve(prog, args, envp);
		int status = 0;

		if (pid < 0) {
			printf("bench_spawn: vfork: %s\n", errno_name(errno));
			return 1;
		}
		if (wait4((int)pid, &status, 0, NULL) != pid || status != 0) {
			printf("bench_spawn: %s ended with status %#x\n", prog, status);
			return 1;
		}
		t[i] = (uint32_t)(rdtsc() - t0);
	}
	sort_u32(t, n);
	printf("bench_spawn: %u spawns of %s: min %u median %u cycles per spawn-to-exit\n",
	       n, prog, t[0], t[n / 2]);
	return 0;
}
