// SPDX-License-Identifier: GPL-2.0-only
/*
 * getcpu [N]: asks the kernel N times (default 100) which CPU it runs
 * on, and checks each answer against something the kernel cannot choose:
 * the CPU's own GDT. Every CPU has a GDT of its own (ronx's struct cpu,
 * Linux's per-CPU gdt_page), and sgdt reads its base in ring 3 (qemu32
 * has no UMIP; with it, kernel/cpu/umip.c, sgdt kills getcpu), so the base
 * names the CPU. An answer counts only when sgdt read
 * the same base before and after the call (no move to another CPU in
 * between). Between asks it runs on in user mode until the scheduler
 * moves it to another CPU (the base changes) or for 20 million TSC
 * cycles, so that on a busy machine with several CPUs it asks on many of
 * them. It prints one line per (answer, GDT) pair it saw; the test
 * compares them with the GDT QEMU reads on each CPU.
 */
#include <ulib.h>

#define MAX_PAIRS	16
#define MOVE_WAIT	20000000ULL	/* TSC cycles: a few timer ticks */

struct pair {
	unsigned int cpu;
	unsigned long gdt;
	unsigned int seen;
};

/* Runs in user mode until this process is on another CPU, or for MOVE_WAIT cycles. */
static void wait_to_move(unsigned long gdt)
{
	uint64_t end = rdtsc() + MOVE_WAIT;

	while (gdt_base() == gdt && rdtsc() < end)
		;
}

int main(int argc, char **argv)
{
	static struct pair pairs[MAX_PAIRS];
	unsigned int asks = 100, moved = 0, npairs = 0;

	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &asks))) {
		printf("usage: getcpu [N]\n");
		return 2;
	}
	printf("getcpu: asking %u times\n", asks);
	for (unsigned int i = 0; i < asks; i++) {
		unsigned int cpu = ~0u, j;
		unsigned long before = gdt_base();
		long r = syscall6(__NR_getcpu, (long)&cpu, 0, 0, 0, 0, 0);

		if (r) {
			printf("getcpu: getcpu() returned %ld\n", r);
			return 1;
		}
		if (gdt_base() != before) {
			moved++;
			continue;
		}
		for (j = 0; j < npairs; j++)
			if (pairs[j].cpu == cpu && pairs[j].gdt == before)
				break;
		if (j == npairs) {
			if (npairs == MAX_PAIRS) {
				printf("getcpu: more than %d different answers\n", MAX_PAIRS);
				return 1;
			}
			pairs[npairs++] = (struct pair){ cpu, before, 0 };
		}
		pairs[j].seen++;
		wait_to_move(before);
	}
	for (unsigned int j = 0; j < npairs; j++)
		printf("getcpu: CPU %u with GDT at %#lx, %u times\n", pairs[j].cpu, pairs[j].gdt,
		       pairs[j].seen);
	printf("getcpu: %u answers not counted (moved during the call)\n", moved);
	return 0;
}
