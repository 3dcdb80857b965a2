// SPDX-License-Identifier: GPL-2.0-only
/*
 * cowtest: copy-on-write after fork, seen from inside.
 *
 *   cowtest          16 pages written before fork: the child rewrites
 *                    them and the parent must still read its own bytes;
 *                    then the parent rewrites them and the child must
 *                    still read the old ones; then the kernel writes into
 *                    a shared page for the child (prctl PR_GET_NAME, a
 *                    copy_to_user()) and the parent's page must not change
 *   cowtest kernel   only that last experiment: with CR0.WP cleared
 *                    (ronx's cr0_wp=off) the kernel's write lands in the
 *                    frame the parent still maps, and this says so
 *   cowtest hold S1 S2   for the tests that read the page tables from
 *                    outside: one page; the child writes it when process
 *                    S1 is gone, and exits when S2 is (wait_gone())
 */
#include <ulib.h>

#define NPAGES	16
static char pages[NPAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static char name_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));	/* bss: a small file */
static int passed, failed;

static void check(int ok, const char *name, const char *why)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("cowtest: %s %s%s%s\n", ok ? "ok" : "FAIL", name, ok ? "" : ": ", ok ? "" : why);
}

static void fill(char c)
{
	for (int i = 0; i < NPAGES; i++)
		memset(pages[i], c + i, PAGE_SIZE);
}

static int all(char c)
{
	for (int i = 0; i < NPAGES; i++)
		for (int j = 0; j < (int)PAGE_SIZE; j++)
			if (pages[i][j] != (char)(c + i))
				return 0;
	return 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int child_status(int pid)
{
	int status = -1;

	return wait4(pid, &status, 0, NULL) == pid ? status : -1;
}

static void both_ways(void)
{
	int pid;

	fill('a');
	pid = fork();
	if (pid == 0) {
		fill('A');
		_exit(all('A') ? 0 : 1);
	}
	check(child_status(pid) == 0, "child_writes_its_copy", "the child did not read back its writes");
	check(all('a'), "parent_unchanged_after_child_wrote", "the child's writes reached the parent");
	pid = fork();
	if (pid == 0) {
		sleep_ms(100);		/* the parent writes first */
		_exit(all('a') ? 0 : 1);
	}
	fill('p');
	check(child_status(pid) == 0, "child_unchanged_after_parent_wrote",
	      "the parent's writes reached the child");
	check(all('p'), "parent_reads_its_writes", "the parent lost its writes");
}

/*
 * The child asks the kernel to write into a page it shares with the
 * parent: prctl(PR_GET_NAME) copies the child's name there with
 * copy_to_user(). Returns whether the parent's page still holds its bytes.
 */
static int kernel_write(void)
{
	int pid;

	memcpy(name_page, "parent's bytes", sizeof("parent's bytes"));	/* present before fork */
	pid = fork();

	if (pid == 0) {
		syscall6(__NR_prctl, PR_SET_NAME, (long)"cow-child", 0, 0, 0, 0);
		_exit(syscall6(__NR_prctl, PR_GET_NAME, (long)name_page, 0, 0, 0, 0) == 0 &&
		      strcmp(name_page, "cow-child") == 0 ? 0 : 1);
	}
	if (child_status(pid) != 0)
		printf("cowtest: the child's prctl failed\n");
	printf("cowtest: the parent's page reads \"%s\"\n", name_page);
	return strcmp(name_page, "parent's bytes") == 0;
}

static void hold(char **argv)
{
	int pid;

	memset(pages[0], 'P', PAGE_SIZE);
	printf("cowtest: page at %p holds 'P'\n", (void *)pages[0]);
	pid = fork();
	if (pid == 0) {
		printf("cowtest: child %d of %d: shared; it writes when %s is gone\n", getpid(),
		       getppid(), argv[2]);
		wait_gone(argv[2]);
		memset(pages[0], 'C', PAGE_SIZE);
		printf("cowtest: child wrote 'C'; it exits when %s is gone\n", argv[3]);
		wait_gone(argv[3]);
		_exit(0);
	}
	check(child_status(pid) == 0 && pages[0][0] == 'P' && pages[0][PAGE_SIZE - 1] == 'P',
	      "hold_parent_unchanged", "the child's write reached the parent");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "kernel") == 0) {
		int ok = kernel_write();

		printf("cowtest: %s\n", ok ? "the kernel's write broke the copy: the parent's page is its own"
					   : "the kernel's write reached the parent's page (CR0.WP off?)");
		return ok ? 0 : 1;
	}
	if (argc > 3 && strcmp(argv[1], "hold") == 0) {
		hold(argv);
		return failed;
	}
	both_ways();
	check(kernel_write(), "kernel_write_breaks_cow", "copy_to_user reached the parent's page");
	printf("cowtest: %d of %d checks passed\n", passed, passed + failed);
	return failed ? 1 : 0;
}
