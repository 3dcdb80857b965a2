// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of SMP: every CPU set up like the boot CPU, and TLB
 * shootdowns that reach every CPU before set_memory_*() returns. Each
 * test that needs a second CPU skips, with the reason, on one.
 *
 * The stale-entry tests repeat thousands of times: another CPU loads the
 * page into its TLB (it writes it, or runs code there), this CPU takes the
 * permission away, the other CPU tries again. Once is a fault; a write
 * or a call that goes through is a stale TLB entry, and the test fails
 * with how often it happened. Booted with cpa_shootdown=off they fail:
 * tests/qemu/test_smp.py checks that they can.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/spinlock.h>
#include <ronx/tlbflush.h>
#include <ronx/module.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/uaccess.h>
#include <ronx/smp.h>
#include <ronx/smp_probe.h>
#include <ronx/ktest.h>

#define STALE_REPS	2000	/* per stale-entry test, over all the other CPUs */
#define RACE_REPS	200
/*
 * text_poke() rounds: each is a stop_machine() of every CPU (about 4 ms
 * of host CPU with four vCPUs: it was most of the suite's cost). A poke
 * that lands in the wrong place fails at any count (the site never calls
 * the new target); a poke without stop_machine() never failed this test
 * in 2000 rounds (five runs on four CPUs), and the module window's test
 * catches it: within its 500 rounds in 4 runs of 4 (within 50 or 200,
 * 4 runs of 5), so it keeps them (docs/bench.md).
 */
#define PATCH_REPS	200
#define WINDOW_REPS	500
#define STRESS_REPS	40	/* a cpu_relax() that serves no call deadlocks in round 0 */
#define RET		0xc3

static const char *const one_cpu = "one CPU online: no other CPU's TLB can go stale";

/* A zeroed page of the direct map; 4K-mapped if the allocator has one. */
static unsigned long test_page(void)
{
	unsigned long pa = alloc_page();

	return pa ? (unsigned long)__va(pa) : 0;
}

static void free_test_page(unsigned long va)
{
	set_memory_nx(va, 1);
	set_memory_rw(va, 1);
	free_page(__pa(va));
}

struct regs {
	uint32_t cr0, cr3, cr4;
	uint64_t efer;
};

static struct regs cpu_regs[NR_CPUS];
extern unsigned char nx_supported;

static void read_my_regs(void *info)
{
	struct regs *r = &cpu_regs[smp_processor_id()];

	(void)info;
	*r = (struct regs){ read_cr0(), read_cr3(), read_cr4(),
			    nx_supported ? rdmsr(MSR_EFER) : 0 };
}

KTEST(smp, every_cpu_runs_with_the_boot_cpus_control_registers)
{
	int cpu;

	if (num_online_cpus() < 2)
		return kt_skip(t, one_cpu);
	memset(cpu_regs, 0, sizeof(cpu_regs));
	on_each_cpu(read_my_regs, 0, true);
	for_each_online_cpu(cpu) {
		const struct regs *r = &cpu_regs[cpu], *b = &cpu_regs[0];

		KT_EXPECT(t, r->cr0 == b->cr0 && r->cr4 == b->cr4 && r->efer == b->efer,
			  "CPU %d: CR0 %08x CR4 %08x EFER %llx, CPU 0: %08x %08x %llx", cpu,
			  r->cr0, r->cr4, r->efer, b->cr0, b->cr4, b->efer);
		KT_EXPECT(t, r->cr3 == __pa(swapper_pg_dir), "CPU %d: CR3 %08x, not the kernel's %08lx",
			  cpu, r->cr3, __pa(swapper_pg_dir));
		KT_EXPECT(t, (r->cr0 & X86_CR0_WP) && (r->cr4 & X86_CR4_PAE),
			  "CPU %d: WP or PAE off", cpu);
		KT_EXPECT(t, !nx_enabled || (r->efer & EFER_NX), "CPU %d: EFER.NXE off", cpu);
	}
}

static volatile int calls_seen[NR_CPUS];

static void count_call(void *info)
{
	(void)info;
	calls_seen[smp_processor_id()]++;
}

KTEST(smp, every_online_cpu_answers_a_call)
{
	int cpu;

	if (num_online_cpus() < 2)
		return kt_skip(t, one_cpu);
	memset((void *)calls_seen, 0, sizeof(calls_seen));
	for (int i = 0; i < 100; i++)
		on_each_cpu(count_call, 0, true);
	for_each_online_cpu(cpu)
		KT_EXPECT(t, calls_seen[cpu] == 100, "CPU %d ran %d of 100 calls", cpu,
			  calls_seen[cpu]);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KT_EXPECT(t, cpu_online(cpu) || !calls_seen[cpu], "offline CPU %d ran a call", cpu);
}

KTEST(smp, no_stale_write_after_set_memory_ro)
{
	unsigned long va = test_page();
	int stale = 0, cpu = 0, first = -1, denied = 0;

	if (num_online_cpus() < 2) {
		free_test_page(va);
		return kt_skip(t, one_cpu);
	}
	for (int i = 0; i < STALE_REPS; i++) {
		cpu = next_other_cpu(cpu);
		denied += probe_write_on(cpu, (void *)va) != 0;
		set_memory_ro(va, 1);
		if (probe_write_on(cpu, (void *)va) == 0 && !stale++)
			first = cpu;
		set_memory_rw(va, 1);
	}
	KT_EXPECT(t, !denied, "%d of %d writes of the RW page failed on another CPU", denied,
		  STALE_REPS);
	KT_EXPECT(t, !stale,
		  "%d of %d writes went through on another CPU (first on CPU %d) after set_memory_ro() on CPU %d: stale TLB entries",
		  stale, STALE_REPS, first, smp_processor_id());
	free_test_page(va);
}

KTEST(smp, no_stale_exec_after_set_memory_nx)
{
	unsigned long va = test_page();
	int stale = 0, cpu = 0, first = -1, denied = 0;

	if (num_online_cpus() < 2 || !nx_enabled) {
		free_test_page(va);
		return kt_skip(t, !nx_enabled ? "NX is not in use" : one_cpu);
	}
	*(unsigned char *)va = RET;
	set_memory_ro(va, 1);
	for (int i = 0; i < STALE_REPS; i++) {
		cpu = next_other_cpu(cpu);
		set_memory_x(va, 1);
		denied += probe_exec_on(cpu, (void *)va, 0) != 0;
		set_memory_nx(va, 1);
		if (probe_exec_on(cpu, (void *)va, 0) == 0 && !stale++)
			first = cpu;
	}
	KT_EXPECT(t, !denied, "%d of %d calls of the RO+X page faulted on another CPU", denied,
		  STALE_REPS);
	KT_EXPECT(t, !stale,
		  "%d of %d calls ran on another CPU (first on CPU %d) after set_memory_nx() on CPU %d: stale TLB entries",
		  stale, STALE_REPS, first, smp_processor_id());
	free_test_page(va);
}

/*
 * Every page of a request must be flushed on every CPU: one by one up to
 * TLB_FLUSH_CEILING pages, everything past it (not the first page only,
 * nor the first 32). Another CPU writes all n pages, this one takes RW
 * from their ptes and calls flush_tlb_kernel_range(), the other tries the
 * first, one in the middle and the last.
 *
 * The pages are mapped in the alias area, 4K pages far from any 2 MiB
 * one: QEMU turns an invlpg inside the span of the 2 MiB entries a CPU
 * holds (the direct map's) into a whole flush, which would hide a flush
 * of the first page only (it did, once the kernel's allocations moved).
 */
#define STALE_VA	(ALIAS_VADDR + 512 * PAGE_SIZE)

static void set_range_rw(pteval_t **ptes, int n, bool rw)
{
	for (int i = 0; i < n; i++)
		set_pte_atomic(ptes[i], rw ? *ptes[i] | _PAGE_RW : *ptes[i] & ~(pteval_t)_PAGE_RW);
}

static int stale_pages_of_request(struct kt *t, int n, int rounds)
{
	static pteval_t *ptes[TLB_FLUSH_CEILING + 16];
	unsigned long pa = alloc_pages((unsigned long)n), va = STALE_VA;
	const int tried[] = { 0, n / 2, n - 1 };
	int cpu = next_other_cpu(0), stale = 0, mapped = 0;
	enum pg_level level;

	if (!pa || n > (int)ARRAY_SIZE(ptes)) {
		kt_fail(t, __FILE__, __LINE__, "no %d contiguous free pages", n);
		goto out;
	}
	for (; mapped < n; mapped++) {
		if (map_page(va + mapped * PAGE_SIZE, pa + mapped * PAGE_SIZE, PAGE_KERNEL)) {
			kt_fail(t, __FILE__, __LINE__, "cannot map page %d of %d in the alias area", mapped, n);
			goto out;
		}
		ptes[mapped] = lookup_address(va + mapped * PAGE_SIZE, &level);
	}
	for (int rep = 0; rep < rounds; rep++, cpu = next_other_cpu(cpu)) {
		for (int i = 0; i < n; i++)
			probe_write_on(cpu, (void *)(va + i * PAGE_SIZE));
		set_range_rw(ptes, n, false);
		flush_tlb_kernel_range(va, va + n * PAGE_SIZE);
		for (unsigned i = 0; i < ARRAY_SIZE(tried); i++)
			if (probe_write_on(cpu, (void *)(va + tried[i] * PAGE_SIZE)) == 0 && !stale++)
				kt_fail(t, __FILE__, __LINE__,
					"page %d of %d written on CPU %d after flush_tlb_kernel_range() of all %d: stale TLB entry",
					tried[i], n, cpu, n);
		set_range_rw(ptes, n, true);
		flush_tlb_kernel_range(va, va + n * PAGE_SIZE);
	}
out:
	while (mapped)
		unmap_page(va + --mapped * PAGE_SIZE);
	if (pa)
		free_pages(pa, (unsigned long)n);
	return stale;
}

KTEST(smp, every_page_of_a_short_request_is_flushed_on_every_cpu)
{
	if (num_online_cpus() < 2)
		return kt_skip(t, one_cpu);
	KT_EXPECT(t, !stale_pages_of_request(t, 8, 20), "stale writes in 20 rounds of 8 pages");
}

KTEST(smp, a_long_request_is_flushed_whole_on_every_cpu)
{
	if (num_online_cpus() < 2)
		return kt_skip(t, one_cpu);
	KT_EXPECT(t, !stale_pages_of_request(t, TLB_FLUSH_CEILING + 16, 20),
		  "stale writes in 20 rounds of %d pages", TLB_FLUSH_CEILING + 16);
}

/*
 * Which flush did each CPU do, page by page or everything? A canary page
 * outside the range is loaded writable into every CPU's TLB, then loses
 * RW in its pte with no flush. A CPU that invalidated only the range's
 * pages still writes it through its old entry; one that flushed
 * everything faults. So a request of up to TLB_FLUSH_CEILING pages must
 * leave the canary writable on every CPU (in one of a few rounds: an
 * entry may also be evicted), one of more pages on none. Every size from
 * 1 to TLB_FLUSH_CEILING + 1 is tried, and one well past it: this tells
 * an off-by-one at the ceiling, or a flush that picks its way by one
 * size, which flush every page correctly and so leave no stale entry the
 * other tests could see.
 *
 * The canary and the range are in the alias area: QEMU turns an invlpg
 * near a 2 MiB entry it holds into a whole flush. A first round with a
 * bare invlpg of the range on every CPU checks that the canary survives
 * one here; on a machine where it does not, the test skips. A CPU that
 * does not write the canary before the flush has not run the call that
 * asks it to: that is a failure, not this machine's way.
 */
#define CANARY_VA	(ALIAS_VADDR + 256 * PAGE_SIZE)
#define RANGE_VA	(CANARY_VA + PAGE_SIZE)
#define CANARY_ROUNDS	5

static int canary_write_on(int cpu)
{
	if (cpu == smp_processor_id())
		return probe_write_same((void *)CANARY_VA);
	return probe_write_on(cpu, (void *)CANARY_VA);
}

static void invlpg_range_start(void *info)
{
	(void)info;
	__flush_tlb_one(RANGE_VA);
}

static void invlpg_canary(void *info)
{
	(void)info;
	__flush_tlb_one(CANARY_VA);
}

/*
 * One round: the CPUs that still wrote the canary after a flush of n
 * pages (0: a bare invlpg); *loaded, those that wrote it before.
 */
static cpumask_t canary_kept(pteval_t *pte, int n, cpumask_t *loaded)
{
	cpumask_t kept = 0;
	int cpu;

	*loaded = 0;
	for_each_online_cpu(cpu)
		if (canary_write_on(cpu) == 0)
			*loaded |= 1UL << cpu;
	set_pte_atomic(pte, *pte & ~(pteval_t)_PAGE_RW);
	if (n)
		flush_tlb_kernel_range(RANGE_VA, RANGE_VA + n * PAGE_SIZE);
	else
		on_each_cpu(invlpg_range_start, 0, true);
	for_each_online_cpu(cpu)
		if (canary_write_on(cpu) == 0)
			kept |= 1UL << cpu;
	set_pte_atomic(pte, *pte | _PAGE_RW);
	on_each_cpu(invlpg_canary, 0, true);
	return kept;
}

/* The CPUs (online) that kept the canary in one of CANARY_ROUNDS rounds of n pages. */
static cpumask_t canary_rounds(struct kt *t, pteval_t *pte, int n, bool *bad)
{
	cpumask_t kept = 0, loaded;

	for (int i = 0; i < CANARY_ROUNDS && kept != cpu_online_mask; i++) {
		kept |= canary_kept(pte, n, &loaded);
		if (loaded != cpu_online_mask && !*bad) {
			*bad = true;
			kt_fail(t, __FILE__, __LINE__,
				"CPUs %#lx did not write the canary before %s %d: they did not run the call that asked them to",
				cpu_online_mask & ~loaded, n ? "a flush of pages:" : "a bare invlpg, round", n ? n : i + 1);
		}
	}
	return kept;
}

KTEST(smp, the_ceiling_decides_page_by_page_or_everything_on_every_cpu)
{
	unsigned long pa = alloc_page();
	const int past[] = { TLB_FLUSH_CEILING + 1, 2 * TLB_FLUSH_CEILING + 7 };
	cpumask_t precise;
	enum pg_level level;
	bool bad = false;
	pteval_t *pte;

	if (num_online_cpus() < 2 || !pa || map_page(CANARY_VA, pa, PAGE_KERNEL)) {
		if (pa)
			free_page(pa);
		return kt_skip(t, pa ? one_cpu : "no free page");
	}
	pte = lookup_address(CANARY_VA, &level);
	precise = canary_rounds(t, pte, 0, &bad);
	if (bad)
		goto out;
	if (precise != cpu_online_mask) {
		kt_skip(t, "a bare invlpg of another page flushed the canary too, though every CPU "
			   "wrote it first: this machine's flushes cannot be told apart");
		goto out;
	}
	for (int n = 1; n <= TLB_FLUSH_CEILING && !bad; n++) {
		cpumask_t by_page = canary_rounds(t, pte, n, &bad);

		KT_EXPECT(t, bad || by_page == cpu_online_mask,
			  "a request of %d pages flushed everything on CPUs %#lx in all %d rounds "
			  "(expected one invlpg per page up to TLB_FLUSH_CEILING, %d)",
			  n, cpu_online_mask & ~by_page, CANARY_ROUNDS, TLB_FLUSH_CEILING);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(past) && !bad; i++) {
		cpumask_t whole = 0, loaded;

		for (int r = 0; r < CANARY_ROUNDS; r++)
			whole |= canary_kept(pte, past[i], &loaded);
		KT_EXPECT(t, !whole,
			  "a request of %d pages left another page's entry on CPUs %#lx "
			  "(expected the whole TLB past TLB_FLUSH_CEILING, %d)", past[i], whole,
			  TLB_FLUSH_CEILING);
	}
out:
	unmap_page(CANARY_VA);
	free_page(pa);
}

/*
 * flush_tlb_kernel_range() may run on two CPUs at once (a process's
 * mprotect on one, flush_tlb_all() or an unmap on another): each must
 * flush its own range everywhere. Two alias pages are loaded writable into
 * every CPU's TLB and lose RW with no flush; then this CPU flushes the
 * first while another flushes the second, started together. Afterwards no
 * CPU may write either: a flush that shares its request with another
 * (one static flush_tlb_info) or a call sent without call_lock (the other
 * CPU's call overwrites it) leaves one of them stale somewhere.
 */
#define PAIR_VA		(ALIAS_VADDR + 300 * PAGE_SIZE)
#define PAIR_ROUNDS	100

struct pair_flush {
	unsigned long va;
	volatile int go;
};

static void flush_when_told(void *arg)
{
	struct pair_flush *p = arg;

	while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE))
		cpu_relax();
	flush_tlb_kernel_range(p->va, p->va + PAGE_SIZE);
}

static void invlpg_pair(void *info)
{
	(void)info;
	__flush_tlb_one(PAIR_VA);
	__flush_tlb_one(PAIR_VA + 2 * PAGE_SIZE);
}

static int pair_write_on(int cpu, unsigned long va)
{
	if (cpu == smp_processor_id())
		return probe_write_same((void *)va);
	return probe_write_on(cpu, (void *)va);
}

KTEST(smp, two_cpus_flushing_at_once_each_flush_their_own_range)
{
	unsigned long pa[2] = { alloc_page(), alloc_page() }, va[2] = { PAIR_VA, PAIR_VA + 2 * PAGE_SIZE };
	int other = next_other_cpu(0), stale[2] = { 0, 0 }, unloaded = 0, cpu;
	pteval_t *pte[2];
	enum pg_level level;

	if (other < 0 || !pa[0] || !pa[1] || map_page(va[0], pa[0], PAGE_KERNEL) ||
	    map_page(va[1], pa[1], PAGE_KERNEL)) {
		kt_skip(t, other < 0 ? one_cpu : "no free page");
		goto out;
	}
	for (int i = 0; i < 2; i++)
		pte[i] = lookup_address(va[i], &level);
	for (int r = 0; r < PAIR_ROUNDS; r++) {
		struct pair_flush theirs = { va[1], 0 };

		for_each_online_cpu(cpu)
			for (int i = 0; i < 2; i++)
				unloaded += pair_write_on(cpu, va[i]) != 0;
		for (int i = 0; i < 2; i++)
			set_pte_atomic(pte[i], *pte[i] & ~(pteval_t)_PAGE_RW);
		if (start_cpu_work(other, flush_when_told, &theirs)) {
			kt_fail(t, __FILE__, __LINE__, "CPU %d is busy with other work", other);
			break;
		}
		__atomic_store_n(&theirs.go, 1, __ATOMIC_RELEASE);
		flush_tlb_kernel_range(va[0], va[0] + PAGE_SIZE);
		wait_cpu_work(other);
		for_each_online_cpu(cpu)
			for (int i = 0; i < 2; i++)
				stale[i] += pair_write_on(cpu, va[i]) == 0;
		for (int i = 0; i < 2; i++)
			set_pte_atomic(pte[i], *pte[i] | _PAGE_RW);
		on_each_cpu(invlpg_pair, 0, true);
	}
	KT_EXPECT(t, !unloaded, "%d writes of the RW pages failed before the flushes: a CPU did not run the call",
		  unloaded);
	KT_EXPECT(t, !stale[0] && !stale[1],
		  "after CPU %d flushed %08lx while CPU %d flushed %08lx, %d writes of the first and %d of the second went through in %d rounds: stale TLB entries",
		  smp_processor_id(), va[0], other, va[1], stale[0], stale[1], PAIR_ROUNDS);
out:
	for (int i = 0; i < 2; i++) {
		if (pa[i] && lookup_address(va[i], &level))
			unmap_page(va[i]);
		if (pa[i])
			free_page(pa[i]);
	}
}

/*
 * The other CPU writes the page in a loop, on its own, while this one
 * makes it read-only and then says so (phase). Every write it starts
 * after it has seen the new phase must fault: set_memory_ro() may return
 * only when that CPU has flushed, not merely been sent the IPI. The
 * writer takes calls only every RACE_BURST writes, as a CPU busy with
 * interrupts off does: a caller that does not wait for the
 * acknowledgement runs ahead of the flush.
 */
#define RACE_BURST	64

struct race {
	unsigned long va;
	volatile int phase;		/* 0: RW, 1: set_memory_ro() has returned */
	volatile int ack;		/* the phase the writer's last whole write saw */
	volatile int seen_ro;		/* writes the other CPU tried in phase 1 */
	volatile int stale;
	volatile bool stop;
};

static void race_writer(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		for (int i = 0; i < RACE_BURST; i++) {
			int phase = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
			int ok = probe_write_same((void *)r->va) == 0;

			if (phase) {
				if (ok)
					r->stale++;
				r->seen_ro++;
			}
			__atomic_store_n(&r->ack, phase, __ATOMIC_RELEASE);
		}
		cpu_relax();
	}
}

KTEST(smp, set_memory_ro_waits_for_every_cpu)
{
	struct race r = { test_page(), 0, 0, 0, 0, false };
	int cpu = next_other_cpu(0);

	if (cpu < 0) {
		free_test_page(r.va);
		return kt_skip(t, one_cpu);
	}
	if (start_cpu_work(cpu, race_writer, &r)) {
		free_test_page(r.va);
		return kt_fail(t, __FILE__, __LINE__, "CPU %d is busy with other work", cpu);
	}
	for (int i = 0; i < RACE_REPS; i++) {
		int seen;

		set_memory_ro(r.va, 1);
		__atomic_store_n(&r.phase, 1, __ATOMIC_RELEASE);
		seen = r.seen_ro;
		while (r.seen_ro < seen + 2)	/* two whole writes in phase 1 */
			cpu_relax();
		__atomic_store_n(&r.phase, 0, __ATOMIC_RELEASE);
		while (r.ack)			/* no write of phase 1 still under way */
			cpu_relax();
		set_memory_rw(r.va, 1);
	}
	r.stop = true;
	wait_cpu_work(cpu);
	KT_EXPECT(t, !r.stale,
		  "%d writes went through on CPU %d after set_memory_ro() had returned on CPU %d: it did not wait for the flush",
		  r.stale, cpu, smp_processor_id());
	free_test_page(r.va);
}

/*
 * The deadlock the lock rules prevent: a CPU that holds a lock and waits
 * for a shootdown's acknowledgement, while another spins on that lock
 * with interrupts off. Up to STRESS_CPUS CPUs here take one lock, and
 * inside it change a page of their own (a shootdown to every CPU), as
 * fast as they can; pgd_lock and call_lock are contended the same way.
 * Finishing is the test. (More CPUs spinning at once than the host has
 * cores only makes QEMU slow, not the test stronger.)
 */
#define STRESS_CPUS	3
static DEFINE_SPINLOCK(stress_lock);

struct stress {
	unsigned long va;
	volatile int done;
};

static void stress_loop(void *arg)
{
	struct stress *s = arg;

	for (int i = 0; i < STRESS_REPS; i++) {
		unsigned long flags;

		spin_lock_irqsave(&stress_lock, flags);
		set_memory_ro(s->va, 1);
		set_memory_rw(s->va, 1);
		spin_unlock_irqrestore(&stress_lock, flags);
		set_memory_ro(s->va, 1);
		set_memory_rw(s->va, 1);
		s->done++;
	}
}

KTEST(smp_stress, shootdowns_while_others_spin_on_locks)
{
	static struct stress st[NR_CPUS];
	int me = smp_processor_id(), cpu, busy = 0;

	if (num_online_cpus() < 2)
		return kt_skip(t, one_cpu);
	memset(st, 0, sizeof(st));
	for (int n = 0, c = me; n < STRESS_CPUS && n < num_online_cpus(); n++, c = next_other_cpu(c))
		st[c] = (struct stress){ test_page(), 0 };
	for_each_online_cpu(cpu)
		if (cpu != me && st[cpu].va && start_cpu_work(cpu, stress_loop, &st[cpu]))
			st[cpu].done = -1, busy++;
	stress_loop(&st[me]);
	for_each_online_cpu(cpu) {
		if (!st[cpu].va)
			continue;
		if (cpu != me && st[cpu].done >= 0)
			wait_cpu_work(cpu);
		KT_EXPECT(t, st[cpu].done == STRESS_REPS, "CPU %d did %d of %d rounds%s", cpu,
			  st[cpu].done, STRESS_REPS, st[cpu].done < 0 ? " (busy with other work)" : "");
		free_test_page(st[cpu].va);
	}
	(void)busy;
}

/*
 * Text patching on SMP: another CPU calls patch_site_call() in a loop,
 * with interrupts on, while this one rewrites the call at patch_site
 * through text_poke() (stop_machine() inside), PATCH_REPS times. Every
 * call must return 1 or 2 (a_calls, b_calls) and nothing may fault.
 */
extern int patch_site_call(void);
extern unsigned char patch_site[], patch_target_a[], patch_target_b[];

struct caller {
	int (*fn)(void);
	volatile bool stop;
	volatile unsigned long calls[3], wrong;
};

static void call_loop(void *arg)
{
	struct caller *c = arg;

	local_irq_enable();	/* the stop IPI may land anywhere */
	while (!c->stop) {
		int v = c->fn();

		if (v == 1 || v == 2)
			c->calls[v]++;
		else
			c->wrong++;
	}
	local_irq_disable();
}

static void call_to(unsigned char *site, const void *target, unsigned char out[5])
{
	int rel = (int)((unsigned long)target - (unsigned long)(site + 5));

	out[0] = 0xe8;
	memcpy(out + 1, &rel, 4);
}

KTEST(smp_stress, text_poke_while_another_cpu_runs_the_site)
{
	struct caller c = { patch_site_call, false, { 0, 0, 0 }, 0 };
	unsigned char to_a[5], to_b[5];
	int cpu = next_other_cpu(0), errors = 0;

	if (cpu < 0)
		return kt_skip(t, one_cpu);
	call_to(patch_site, patch_target_a, to_a);
	call_to(patch_site, patch_target_b, to_b);
	KT_EXPECT(t, memcmp(patch_site, to_a, 5) == 0, "patch_site does not call patch_target_a");
	if (start_cpu_work(cpu, call_loop, &c))
		return kt_fail(t, __FILE__, __LINE__, "CPU %d is busy with other work", cpu);
	for (int i = 0; i < PATCH_REPS; i++)
		errors += text_poke(patch_site, i % 2 ? to_a : to_b, 5, 0) != 0;
	text_poke(patch_site, to_a, 5, 0);
	c.stop = true;
	wait_cpu_work(cpu);
	KT_EXPECT(t, !errors, "%d text_poke() calls failed", errors);
	KT_EXPECT(t, !c.wrong, "%lu calls returned neither 1 nor 2", c.wrong);
	KT_EXPECT(t, c.calls[1] && c.calls[2],
		  "CPU %d ran the old target %lu times and the new one %lu times: both should show",
		  cpu, c.calls[1], c.calls[2]);
	KT_EXPECT(t, memcmp(patch_site, to_a, 5) == 0, "patch_site not restored");
}

/*
 * Seed 003's way on SMP: patchme's call site, rewritten inside
 * set_all_modules_text_rw()/_ro() while another CPU runs patchme_run().
 * Each call bumps exactly one of two counters: patchme_counter (the
 * original target) or ours.
 */
static volatile unsigned long probe_calls;

static void count_probe(void)
{
	probe_calls++;
}

static unsigned int (*patchme_run_fn)(unsigned int);

static int run_patchme_once(void)
{
	unsigned long before = probe_calls;
	unsigned int counter = patchme_run_fn(0), after;

	after = patchme_run_fn(1);
	return (after - counter) + (unsigned)(probe_calls - before) == 1 ?
		(probe_calls != before ? 2 : 1) : 3;
}

KTEST(smp_stress, module_text_window_while_another_cpu_runs_the_site)
{
	struct caller c = { run_patchme_once, false, { 0, 0, 0 }, 0 };
	const struct kernel_symbol *site, *run;
	unsigned char orig[5], probe[5];
	struct module *owner;
	int cpu = next_other_cpu(0);

	if (cpu < 0)
		return kt_skip(t, one_cpu);
	if (!module_ronx)
		return kt_skip(t, "module_ronx=off: module text is always writable");
	if (!find_module("patchme") && insmod("patchme", "") != 0)
		return kt_skip(t, "patchme.ko did not load");
	site = find_symbol("patchme_site", &owner);
	run = find_symbol("patchme_run", &owner);
	KT_EXPECT(t, site && run, "patchme exports no patchme_site/patchme_run");
	if (!site || !run)
		return;
	patchme_run_fn = (unsigned int (*)(unsigned int))run->value;
	memcpy(orig, (void *)site->value, 5);
	call_to((unsigned char *)site->value, count_probe, probe);
	if (start_cpu_work(cpu, call_loop, &c))
		return kt_fail(t, __FILE__, __LINE__, "CPU %d is busy with other work", cpu);
	for (int i = 0; i < WINDOW_REPS; i++) {
		set_all_modules_text_rw();
		text_poke_write((void *)site->value, i % 2 ? orig : probe, 5);
		set_all_modules_text_ro();
	}
	set_all_modules_text_rw();
	text_poke_write((void *)site->value, orig, 5);
	set_all_modules_text_ro();
	c.stop = true;
	wait_cpu_work(cpu);
	KT_EXPECT(t, !c.wrong, "%lu runs of patchme's site counted other than once", c.wrong);
	KT_EXPECT(t, c.calls[1] && c.calls[2],
		  "CPU %d ran the original %lu times and the patched site %lu times: both should show",
		  cpu, c.calls[1], c.calls[2]);
	KT_EXPECT(t, memcmp((void *)site->value, orig, 5) == 0, "patchme_site not restored");
}

/*
 * A process's page-table changes reach the other CPUs that have its
 * tables in CR3 (mm->cpu_mask): here another CPU loads a test process's
 * tables and writes its page (copy_to_user()), while this CPU takes the
 * permission away (mprotect's change_user_prot()): read-only, then
 * PROT_NONE (not present, as munmap leaves it). Its next write must
 * fault. mmput() must then make that CPU leave the tables before freeing
 * them.
 */
#define MM_TEST_ADDR	0x20000000UL

struct mm_call {
	struct mm_struct *mm;
	int ret;
	uint32_t cr3;
};

static void load_mm_here(void *info)
{
	switch_mm(((struct mm_call *)info)->mm);
}

static void user_write_here(void *info)
{
	struct mm_call *c = info;
	unsigned char v = 0x5a;

	c->ret = copy_to_user((void *)MM_TEST_ADDR, &v, 1) ? -EFAULT : 0;
	c->cr3 = read_cr3();
}

static int user_write_on(int cpu, struct mm_call *c)
{
	smp_call_function_single(cpu, user_write_here, c, true);
	return c->ret;
}

KTEST(smp, process_mapping_changes_reach_a_cpu_that_has_it_loaded)
{
	struct mm_call c = { mm_alloc(), -1, 0 };
	int cpu = next_other_cpu(0), stale = 0, stale_none = 0, denied = 0;

	if (!c.mm)
		return kt_fail(t, __FILE__, __LINE__, "no memory for a test process");
	if (cpu < 0) {
		mmput(c.mm);
		return kt_skip(t, one_cpu);
	}
	KT_EXPECT(t, map_area(c.mm, MM_TEST_ADDR, MM_TEST_ADDR + PAGE_SIZE, VM_READ | VM_WRITE,
			      VMA_MMAP) == 0, "map_area failed");
	smp_call_function_single(cpu, load_mm_here, &c, true);
	KT_EXPECT(t, c.mm->cpu_mask & (1UL << cpu), "CPU %d is not in the process's cpu_mask", cpu);
	for (int i = 0; i < STALE_REPS / 4; i++) {
		denied += user_write_on(cpu, &c) != 0;
		change_user_prot(c.mm, MM_TEST_ADDR, MM_TEST_ADDR + PAGE_SIZE, vm_get_page_prot(VM_READ));
		stale += user_write_on(cpu, &c) == 0;
		change_user_prot(c.mm, MM_TEST_ADDR, MM_TEST_ADDR + PAGE_SIZE,
				 vm_get_page_prot(VM_READ | VM_WRITE));
		user_write_on(cpu, &c);
		change_user_prot(c.mm, MM_TEST_ADDR, MM_TEST_ADDR + PAGE_SIZE, vm_get_page_prot(0));
		stale_none += user_write_on(cpu, &c) == 0;
		change_user_prot(c.mm, MM_TEST_ADDR, MM_TEST_ADDR + PAGE_SIZE,
				 vm_get_page_prot(VM_READ | VM_WRITE));
	}
	KT_EXPECT(t, !denied, "%d of %d writes of the RW user page failed on CPU %d", denied,
		  STALE_REPS / 4, cpu);
	KT_EXPECT(t, !stale && !stale_none,
		  "writes on CPU %d went through after mprotect on CPU %d: %d of %d after PROT_READ, %d after PROT_NONE: stale TLB entries",
		  cpu, smp_processor_id(), stale, STALE_REPS / 4, stale_none);
	mmput(c.mm);
	smp_call_function_single(cpu, user_write_here, &c, true);
	KT_EXPECT(t, c.cr3 == __pa(swapper_pg_dir),
		  "after mmput() CPU %d still has CR3 %08x, not the kernel's %08lx", cpu, c.cr3,
		  __pa(swapper_pg_dir));
}
