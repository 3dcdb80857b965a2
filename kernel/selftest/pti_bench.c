// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cr3bench [PAGES]`: what one CR3 write costs (make bench, docs/bench.md):
 * PTI writes CR3 twice per entry and exit, and 32-bit x86 has no PCID, so
 * each write drops every translation (and QEMU's TCG flushes its whole
 * software TLB and its jump cache). Timed with the TSC, 1000 times each:
 *   - the write alone (write_cr3(read_cr3()), the same value);
 *   - reading one word from each of PAGES (default 16) pages of the direct
 *     map with their translations warm, and right after a CR3 write: the
 *     difference is what refilling them costs, per page.
 * Measures, asserts nothing.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/kstrtox.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/shell.h>
#include <ronx/spinlock.h>

#define CR3BENCH_RUNS	1000
#define CR3BENCH_MAX	64

static uint64_t touch(volatile uint32_t *const *p, unsigned int n)
{
	uint64_t t0 = rdtsc();

	for (unsigned int i = 0; i < n; i++)
		(void)*p[i];
	return rdtsc() - t0;
}

static int cmd_cr3bench(int argc, char **argv)
{
	static volatile uint32_t *pages[CR3BENCH_MAX];
	unsigned int n = 16;
	uint64_t bare = 0, warm = 0, cold = 0, min = ~0ull;
	unsigned long flags;

	if (argc > 2 || (argc == 2 && kstrtouint_range(argv[1], 1, CR3BENCH_MAX, &n))) {
		cprintf("usage: cr3bench [PAGES] (1-%d)\n", CR3BENCH_MAX);
		return -EINVAL;
	}
	/* consecutive pages from 1 MiB up in the direct map (each its own slot in TCG's TLB) */
	for (unsigned int i = 0; i < n; i++)
		pages[i] = (volatile uint32_t *)__va((1ul << 20) + ((unsigned long)i << 12));
	local_irq_save(flags);
	for (int r = 0; r < CR3BENCH_RUNS; r++) {
		uint64_t t0 = rdtsc(), d;

		write_cr3(read_cr3());
		d = rdtsc() - t0;
		bare += d;
		min = d < min ? d : min;
		touch(pages, n);
		warm += touch(pages, n);
		write_cr3(read_cr3());
		cold += touch(pages, n);
	}
	local_irq_restore(flags);
	cprintf("cr3bench: one CR3 write: %llu cycles (min %llu); %u pages read after it: %llu cycles, "
		"warm %llu: %llu per page refilled (%d runs)\n",
		(unsigned long long)(bare / CR3BENCH_RUNS), (unsigned long long)min, n,
		(unsigned long long)(cold / CR3BENCH_RUNS), (unsigned long long)(warm / CR3BENCH_RUNS),
		(unsigned long long)((cold > warm ? cold - warm : 0) / CR3BENCH_RUNS / n), CR3BENCH_RUNS);
	return 0;
}
SHELL_COMMAND("cr3bench", cmd_cr3bench, "cr3bench [PAGES]",
	      "time one CR3 write, and the refill of PAGES translations after it");
