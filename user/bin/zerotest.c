// SPDX-License-Identifier: GPL-2.0-only
/*
 * zerotest: memory that arrives on first touch. An anonymous mmap and
 * brk's heap read as zeros before anything is written (on ronx and
 * Linux every such read maps the one shared zero page, read-only), then
 * take writes page by page, and the pages written read back while the
 * ones only read still read zero.
 *
 *   zerotest         the checks
 *   zerotest hold S0 S1 S2   for the tests that read the page tables
 *                    from outside: it reads when process S0 is gone,
 *                    writes when S1 is, ends when S2 is (wait_gone())
 */
#include <ulib.h>

#define NPAGES	8
static int passed, failed;

static void check(int ok, const char *name)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("zerotest: %s %s\n", ok ? "ok" : "FAIL", name);
}

static int zeros(const volatile char *p, size_t n)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < n; i += 64)
		sum |= p[i];
	return sum == 0;
}

static void step(char **argv, int i, const char *done)
{
	printf("zerotest: %s; goes on when %s is gone\n", done, argv[2 + i]);
	wait_gone(argv[2 + i]);
}

int main(int argc, char **argv)
{
	int hold = argc > 4 && strcmp(argv[1], "hold") == 0;
	volatile char *m = mmap(NULL, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *h = sbrk(NPAGES * PAGE_SIZE);

	if (m == MAP_FAILED || h == (void *)-1) {
		printf("zerotest: mmap or sbrk failed: %s\n", errno_name(errno));
		return 1;
	}
	printf("zerotest: mmap at %p, heap at %p, %d pages each\n", (void *)m, (void *)h, NPAGES);
	if (hold)
		step(argv, 0, "mapped, nothing touched");
	check(zeros(m, NPAGES * PAGE_SIZE), "mmap_untouched_reads_zero");
	check(zeros(h, NPAGES * PAGE_SIZE), "brk_untouched_reads_zero");
	if (hold)
		step(argv, 1, "read every page");
	for (int i = 0; i < NPAGES; i += 2) {
		m[i * PAGE_SIZE + 1] = (char)(i + 1);
		h[i * PAGE_SIZE + 1] = (char)(i + 1);
	}
	if (hold)
		step(argv, 2, "wrote the even pages");
	int ok_m = 1, ok_h = 1;

	for (int i = 0; i < NPAGES; i++) {
		char want = i % 2 ? 0 : (char)(i + 1);

		ok_m &= m[i * PAGE_SIZE + 1] == want && zeros(m + i * PAGE_SIZE + 64, PAGE_SIZE - 64);
		ok_h &= h[i * PAGE_SIZE + 1] == want && zeros(h + i * PAGE_SIZE + 64, PAGE_SIZE - 64);
	}
	check(ok_m, "mmap_written_pages_hold_writes_others_zero");
	check(ok_h, "brk_written_pages_hold_writes_others_zero");
	/* a page read first, then written: the write must take (the zero page is not written) */
	m[PAGE_SIZE * 1 + 100] = 7;
	check(m[PAGE_SIZE * 1 + 100] == 7 && zeros(m + PAGE_SIZE * 3, PAGE_SIZE),
	      "read_then_write_takes_and_zero_page_stays_zero");
	printf("zerotest: %d of %d checks passed\n", passed, passed + failed);
	return failed ? 1 : 0;
}
