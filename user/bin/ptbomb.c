// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptbomb [hold]: the page-table bomb (issue 34). Maps as much of its
 * address space as mmap gives, read-only, 32 MiB at a time (mmap takes
 * no memory), then reads one byte every 2 MiB of it. Each read maps
 * just the zero page, but costs the kernel a whole page table: 4 KiB of
 * RAM for one PTE. Several copies at once would pin the machine's
 * memory in page tables if the kernel did not charge them to the
 * process: ronx does (mm_charged_pages()), keeps its reserve, and
 * OOM-kills a bomb with Linux's line, its pgtables:NkB field counting
 * them. It says how many page tables it made; with hold it then waits
 * to be killed (the test runs several side by side), else exits 0.
 */
#include <ulib.h>

#define AREA	(32UL << 20)	/* the most one mmap may ask for on ronx */
#define STRIDE	(2UL << 20)	/* what one page table covers under PAE */
#define MAX_AREAS	96	/* 3 GiB */

int main(int argc, char **argv)
{
	static char *areas[MAX_AREAS];
	int hold = argc > 1 && strcmp(argv[1], "hold") == 0, n = 0;
	unsigned long reads = 0;
	volatile char sum = 0;

	if (argc > 1 && !hold) {
		printf("usage: ptbomb [hold]\n");
		return 2;
	}
	while (n < MAX_AREAS) {
		char *p = mmap(NULL, AREA, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		areas[n++] = p;
	}
	printf("ptbomb: pid %d: %d MiB mapped, reading one byte every 2 MiB\n", getpid(),
	       n * (int)(AREA >> 20));
	for (int i = 0; i < n; i++)
		for (unsigned long off = 0; off < AREA; off += STRIDE, reads++)
			sum += areas[i][off];
	printf("ptbomb: %s, pid %d, %lu reads, %lu page tables\n", hold ? "holding" : "done",
	       getpid(), reads, reads);
	while (hold) {
		struct timespec ts = { 1, 0 };

		nanosleep(&ts, 0);
	}
	return sum;
}
