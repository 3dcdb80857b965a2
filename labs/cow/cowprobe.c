// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cow lab's test program (labs/cow/checks.py builds it at grade time
 * and puts it in the grade's initrd). The grader reads its page tables
 * and frames from outside (QEMU's info tlb, its PAE walk and xp) while
 * it holds still at each step; a step goes on when the process whose
 * pid it was given (a `park`, which only sleeps) is gone (wait_gone()).
 * The scenario (how many pages, which the child writes, which one the
 * kernel writes for the child, the bytes) comes from the grade's seed,
 * on the command line:
 *
 *   cowprobe hold N MASK K BYTE S1 S2 S3 S4 OFF
 *        the parent fills pages 0..N-1 (page i with BYTE+i), reads a
 *        fresh page (the zero page) and writes one it then makes
 *        PROT_NONE (a frame no PTE maps present), writes two pages of a
 *        sparse area (the first at a 2 MiB boundary with 2 MiB that have
 *        no page table below it, the second OFF pages past it), and forks;
 *        the child writes 'C'^i into each page of MASK, and asks the
 *        kernel to write its name into page K (prctl PR_GET_NAME, a
 *        copy_to_user()) when S1 is gone, reads every page back, and
 *        exits when S2 is gone;
 *        the parent reaps it, then writes 'P'^i into the pages of MASK
 *        when S3 is gone, and exits when S4 is gone
 *   cowprobe tlb N BYTE S1
 *        for each page i of 0..N-1: the parent writes BYTE into it (its
 *        writable entry is now in the TLB), forks, and at once writes
 *        BYTE+1 into it; child i holds until S1 is gone, then says what
 *        it reads at page i; the parent holds too (even if children died)
 *   cowprobe race ROUNDS N BYTE S1
 *        the parent fills pages 0..N-1; ROUNDS times it forks, and it
 *        and the child write every page at once (with two CPUs, two write
 *        faults on one frame: one copies and puts it, the other takes it
 *        back or copies too), the child checks its bytes and exits, the
 *        parent reaps it; then it forks a last child that only holds (its
 *        pages shared, each frame counted twice), says what it saw, holds
 *        until S1 is gone, reaps that child and checks its pages (page i:
 *        BYTE+ROUNDS+i)
 *   cowprobe fill PAGES   write PAGES pages of fresh memory with 0xee
 *                         (frames freed too early are handed out again)
 */
#include "ulib.h"

#define MAXPAGES 32
#define PMD_SIZE (2UL << 20)	/* what one PAE page table maps */
static unsigned char pages[MAXPAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static const unsigned char ro[2 * PAGE_SIZE] __attribute__((aligned(PAGE_SIZE))) = {
	[0] = 'r', [1] = 'o', [PAGE_SIZE] = 'R', [2 * PAGE_SIZE - 1] = 'O',
};

static unsigned int arg(char **argv, int i)
{
	unsigned int v = 0;

	if (parse_uint(argv[i], &v)) {
		printf("cowprobe: bad number %s\n", argv[i]);
		exit(2);
	}
	return v;
}

static void fill_page(int i, unsigned char c)
{
	memset(pages[i], c, PAGE_SIZE);
}

static int page_is(int i, unsigned char c)
{
	for (int j = 0; j < (int)PAGE_SIZE; j++)
		if (pages[i][j] != c)
			return 0;
	return 1;
}

static int child_status(int pid)
{
	int status = -1;

	return wait4(pid, &status, 0, NULL) == pid ? status : -1;
}

/*
 * An area whose first pages have no page table: a whole 2 MiB of it is
 * never touched, then the page at the next 2 MiB boundary (BYTE^0x5a) and
 * the one off pages past it (BYTE^0xa5) are written. fork's walk skips the
 * empty range at once and must land on that boundary, not past it.
 */
static unsigned char *sparse_area(unsigned char byte, unsigned int off)
{
	unsigned char *a = mmap(0, 3 * PMD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	unsigned char *edge;

	if (a == MAP_FAILED)
		return 0;
	edge = (unsigned char *)(((unsigned long)a + 2 * PMD_SIZE) & ~(PMD_SIZE - 1));
	memset(edge, byte ^ 0x5a, PAGE_SIZE);
	memset(edge + off * PAGE_SIZE, byte ^ 0xa5, PAGE_SIZE);
	return edge;
}

static int hold(char **argv)
{
	unsigned int n = arg(argv, 2), mask = arg(argv, 3), k = arg(argv, 4), byte = arg(argv, 5);
	unsigned int off = arg(argv, 10), bad = 0, i;
	volatile unsigned char *edge;
	unsigned char *sparse;
	int pid, status;

	if (n > MAXPAGES || k >= n || off == 0 || off >= PMD_SIZE / PAGE_SIZE)
		return 2;
	for (i = 0; i < n; i++)
		fill_page(i, byte + i);
	/* the edges fork and exit meet: the zero page, a PROT_NONE page's frame */
	edge = mmap(0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (edge == MAP_FAILED)
		return 1;
	(void)edge[0];
	edge[PAGE_SIZE] = byte;
	if (mprotect((void *)(edge + PAGE_SIZE), PAGE_SIZE, PROT_NONE))
		return 1;
	printf("cowprobe: zero page read at %p; PROT_NONE frame at %p\n", (void *)edge,
	       (void *)(edge + PAGE_SIZE));
	sparse = sparse_area(byte, off);
	if (!sparse)
		return 1;
	printf("cowprobe: sparse pages at %p and %p\n", (void *)sparse, (void *)(sparse + off * PAGE_SIZE));
	printf("cowprobe: pages at %p, %u of them; rodata at %p\n", (void *)pages[0], n, (void *)ro);
	pid = fork();
	if (pid < 0) {
		printf("cowprobe: fork failed: %d\n", pid);
		return 1;
	}
	if (pid == 0) {
		printf("cowprobe: child %d of %d: forked\n", getpid(), getppid());
		wait_gone(argv[6]);
		for (i = 0; i < n; i++)
			if (mask & (1u << i))
				fill_page(i, 'C' ^ i);
		syscall6(__NR_prctl, PR_SET_NAME, (long)"cow-child", 0, 0, 0, 0);
		status = syscall6(__NR_prctl, PR_GET_NAME, (long)pages[k], 0, 0, 0, 0);
		/* reads every page, written or not: a read must copy nothing */
		for (i = 0; i < n; i++)
			if (i != k && !page_is(i, mask & (1u << i) ? 'C' ^ i : byte + i))
				bad++;
		printf("cowprobe: child wrote; the kernel's write returned %d\n", status);
		wait_gone(argv[7]);
		_exit(bad || status ? 1 : 0);
	}
	status = child_status(pid);
	for (i = 0; i < n; i++)
		if (!page_is(i, byte + i))
			bad++;
	printf("cowprobe: child exit status %d; the parent's pages: %u differ\n", status, bad);
	wait_gone(argv[8]);
	for (i = 0; i < n; i++)
		if (mask & (1u << i))
			fill_page(i, 'P' ^ i);
	printf("cowprobe: parent wrote\n");
	wait_gone(argv[9]);
	bad = ro[0] != 'r' || ro[1] != 'o' || ro[PAGE_SIZE] != 'R' || ro[2 * PAGE_SIZE - 1] != 'O';
	for (i = 0; i < n; i++)
		if (!page_is(i, mask & (1u << i) ? 'P' ^ i : byte + i))
			bad++;
	printf("cowprobe: parent done: %u pages differ\n", bad);
	return bad ? 1 : 0;
}

static int tlb(char **argv)
{
	unsigned int n = arg(argv, 2), byte = arg(argv, 3), i;
	int pids[MAXPAGES], len;
	char line[64 + 12 * MAXPAGES];

	if (n > MAXPAGES)
		return 2;
	/*
	 * One fork per page, each a chance: a timer tick during fork may
	 * switch CR3 (and so flush) before the parent's write, but not in
	 * every round.
	 */
	for (i = 0; i < n; i++) {
		pages[i][0] = byte;		/* a writable entry in the TLB */
		pids[i] = fork();
		if (pids[i] == 0) {
			wait_gone(argv[4]);
			printf("cowprobe: child reads %u at page %u\n", pages[i][0], i);
			_exit(0);
		}
		pages[i][0] = byte + 1;		/* at once */
	}
	/* one write: a child that a missing flush broke may print over a line made of several */
	len = snprintf(line, sizeof(line), "cowprobe: pages at %p; children", (void *)pages[0]);
	for (i = 0; i < n; i++)
		len += snprintf(line + len, sizeof(line) - len, " %d", pids[i]);
	printf("%s; parent wrote\n", line);
	wait_gone(argv[4]);
	for (i = 0; i < n; i++)
		child_status(pids[i]);
	return 0;
}

static __attribute__((noreturn)) void race_child(unsigned int n, unsigned int r)
{
	unsigned int bad = 0, i;

	for (i = 0; i < n; i++)
		fill_page(i, 'c' ^ r ^ i);
	for (i = 0; i < n; i++)
		bad += !page_is(i, 'c' ^ r ^ i);
	_exit(bad ? 1 : 0);
}

static int race(char **argv)
{
	unsigned int rounds = arg(argv, 2), n = arg(argv, 3), byte = arg(argv, 4);
	unsigned int failed = 0, bad = 0, r, i;
	int pid;

	if (n > MAXPAGES)
		return 2;
	for (i = 0; i < n; i++)
		fill_page(i, byte + i);
	for (r = 0; r < rounds; r++) {
		pid = fork();
		if (pid < 0) {
			printf("cowprobe: fork failed: %d\n", pid);
			return 1;
		}
		if (pid == 0)
			race_child(n, r);
		for (i = 0; i < n; i++)
			fill_page(i, byte + r + 1 + i);
		failed += child_status(pid) != 0;
	}
	pid = fork();
	if (pid == 0) {
		wait_gone(argv[5]);
		_exit(0);
	}
	printf("cowprobe: raced %u rounds of %u pages at %p; %u children failed; holder %d\n",
	       rounds, n, (void *)pages[0], failed, pid);
	wait_gone(argv[5]);
	failed += pid < 0 || child_status(pid) != 0;
	for (i = 0; i < n; i++)
		bad += !page_is(i, byte + rounds + i);
	printf("cowprobe: race done: %u pages differ\n", bad);
	return bad || failed ? 1 : 0;
}

static int fill(char **argv)
{
	unsigned int n = arg(argv, 2);
	unsigned char *p = sbrk(n * PAGE_SIZE);

	if (p == (void *)-1)
		return 1;
	memset(p, 0xee, n * PAGE_SIZE);
	printf("cowprobe: filled %u pages\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 11 && strcmp(argv[1], "hold") == 0)
		return hold(argv);
	if (argc == 5 && strcmp(argv[1], "tlb") == 0)
		return tlb(argv);
	if (argc == 6 && strcmp(argv[1], "race") == 0)
		return race(argv);
	if (argc == 3 && strcmp(argv[1], "fill") == 0)
		return fill(argv);
	printf("usage: cowprobe hold N MASK K BYTE S1 S2 S3 S4 OFF | tlb N BYTE S1 | "
	       "race ROUNDS N BYTE S1 | fill PAGES\n");
	return 2;
}
