// SPDX-License-Identifier: GPL-2.0-only
/*
 * `cpabench PAGES [CALLS]`: what a set_memory_ro() costs, and how much of
 * it is the TLB shootdown (make bench, tools/bench.py). A page of the
 * direct map (PAGES=1) or a whole 2 MiB page of it (PAGES=512) is made
 * read-only and writable again CALLS times; only set_memory_ro() is
 * timed, with the TSC, and the cycles flush_tlb_kernel_range() took
 * inside it (on every CPU, waiting for them all) are counted apart.
 * Measures, asserts nothing.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/kstrtox.h>
#include <ronx/printk.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/shell.h>
#include <ronx/smp.h>

static int cmd_cpabench(int argc, char **argv)
{
	unsigned int pages, calls = 200;
	unsigned long va, pa = 0;
	uint64_t total = 0, flush = 0;

	if (argc < 2 || argc > 3 || kstrtouint(argv[1], 10, &pages) ||
	    (pages != 1 && pages != PTRS_PER_PTE) ||
	    (argc == 3 && kstrtouint_range(argv[2], 1, 100000, &calls))) {
		cprintf("usage: cpabench 1|512 [CALLS]\n");
		return -EINVAL;
	}
	if (pages == 1) {
		pa = alloc_page();
		va = pa ? (unsigned long)__va(pa) : 0;
	} else {
		va = direct_map_large_page();
	}
	if (!va) {
		cprintf("cpabench: no %s to use\n", pages == 1 ? "free page" : "2M page in the direct map");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < calls; i++) {
		uint64_t f0 = this_cpu()->tlb.flush_cycles, t0 = rdtsc();

		set_memory_ro(va, (int)pages);
		total += rdtsc() - t0;
		flush += this_cpu()->tlb.flush_cycles - f0;
		set_memory_rw(va, (int)pages);
	}
	cprintf("cpabench: set_memory_ro() of %u page%s on %d CPU%s, %u calls: %llu cycles each, "
		"%llu (%llu%%) in flush_tlb_kernel_range()\n", pages, pages == 1 ? "" : "s",
		num_online_cpus(), num_online_cpus() == 1 ? "" : "s", calls,
		(unsigned long long)(total / calls), (unsigned long long)(flush / calls),
		(unsigned long long)(total ? flush * 100 / total : 0));
	if (pa)
		free_page(pa);
	return 0;
}
SHELL_COMMAND("cpabench", cmd_cpabench, "cpabench 1|512 [CALLS]",
	      "time set_memory_ro() of one page or a 2M page, and its TLB shootdown's share");
