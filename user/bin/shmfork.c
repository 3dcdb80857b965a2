// SPDX-License-Identifier: GPL-2.0-only
/*
 * shmfork share|alias: MAP_SHARED|MAP_ANONYMOUS memory across fork.
 *
 * share: maps 4 shared pages and touches none of them, then forks.
 *   The child writes page 0 first and exits; the parent, after wait4,
 *   must read it. Then the reverse, in a second child: the child reads
 *   page 1 (its first touch) and waits for it to change; the parent
 *   writes page 1 (its first touch); the child must see it. Each
 *   direction prints one line, "shared" or "NOT SHARED" (the child
 *   gives up after PATIENCE yields: only a kernel that does not share
 *   ever makes it wait that long), and the exit
 *   status is 0 only if both were shared.
 *
 * alias: the W^X alias (issue 34). A shared page, RW in the parent;
 *   after fork the child makes its copy of the mapping PROT_READ|
 *   PROT_EXEC, and runs code the parent writes after the fork. Each
 *   mapping alone is W^X; the frame is both. Linux allows this too; ronx's
 *   wxcheck names it. Both then wait to be killed, after one line with
 *   both pids and the address.
 */
#include <ulib.h>

#define PAGES	4
#define PATIENCE	1000000	/* sched_yield()s a waiter tries before it gives up */

/* Spins until *p is not 0, at most PATIENCE yields; whether it changed. */
static int wait_nonzero(volatile char *p)
{
	for (long i = 0; i < PATIENCE; i++) {
		if (*p)
			return 1;
		sched_yield();
	}
	return 0;
}

static int child_writes_first(volatile char *p)
{
	int pid = fork(), status;

	if (pid == 0) {
		p[0] = 'c';		/* the page's first touch, in the child */
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("shmfork: fork or wait failed\n");
		return 0;
	}
	printf("shmfork: child wrote first, parent reads %s\n", p[0] == 'c' ? "it: shared" :
	       "0: NOT SHARED");
	return p[0] == 'c';
}

static int parent_writes_first(volatile char *p)
{
	int pid = fork(), status;

	if (pid == 0)	/* its first touch: a read, before or after the parent's write */
		_exit(wait_nonzero(&p[PAGE_SIZE]) && p[PAGE_SIZE] == 'p' ? 0 : 1);
	if (pid < 0) {
		printf("shmfork: fork failed\n");
		return 0;
	}
	p[PAGE_SIZE] = 'p';	/* the parent's first touch: a write */
	if (waitpid(pid, &status, 0) != pid) {
		printf("shmfork: wait failed\n");
		return 0;
	}
	printf("shmfork: parent wrote first, child %s\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "read it: shared" :
	       "never saw it: NOT SHARED");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int share(void)
{
	volatile char *p = mmap(NULL, PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ok;

	if (p == MAP_FAILED) {
		printf("shmfork: mmap: %s\n", errno_name(errno));
		return 1;
	}
	ok = child_writes_first(p);
	ok &= parent_writes_first(p);
	return ok ? 0 : 1;
}

static void hold(void)
{
	for (;;) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, 0);
	}
}

/* mov $42, %eax; ret */
static const unsigned char answer[] = { 0xb8, 42, 0, 0, 0, 0xc3 };

static int alias(void)
{
	unsigned char *p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int parent = getpid(), pid;

	if (p == MAP_FAILED) {
		printf("shmfork: mmap: %s\n", errno_name(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		if (mprotect(p, PAGE_SIZE, PROT_READ | PROT_EXEC)) {
			printf("shmfork: mprotect RX: %s\n", errno_name(errno));
			_exit(1);
		}
		if (!wait_nonzero((volatile char *)&p[16])) {
			printf("shmfork: the parent's code never came\n");
			_exit(1);
		}
		printf("shmfork: child %d ran the parent's code: %d\n", getpid(),
		       ((int (*)(void))(p + 16))());
		printf("shmfork: alias: holding, parent %d rw 0x%08lx, child %d rx 0x%08lx\n",
		       parent, (unsigned long)p, getpid(), (unsigned long)p);
		hold();
	}
	if (pid < 0) {
		printf("shmfork: fork: %s\n", errno_name(errno));
		return 1;
	}
	memcpy(p + 17, answer + 1, sizeof(answer) - 1);
	__atomic_store_n(&p[16], answer[0], __ATOMIC_RELEASE);	/* the opcode last */
	hold();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "share") == 0)
		return share();
	if (argc == 2 && strcmp(argv[1], "alias") == 0)
		return alias();
	printf("usage: shmfork share|alias\n");
	return 2;
}
