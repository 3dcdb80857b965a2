// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running a function on other CPUs (Linux: kernel/smp.c,
 * smp_call_function_many() and on_each_cpu(); kernel/stop_machine.c).
 * smp_call_function_many() itself is in kernel/cpu/smp_call_function.c.
 *
 * One call is in flight at a time (call_lock): its function, its argument
 * and the mask of CPUs that still have to run it. The caller sends each
 * of them an IPI on CALL_FUNCTION_VECTOR and, to wait, spins until the
 * mask is empty: each CPU clears its bit after the function has run. That
 * bit is the acknowledgement a TLB shootdown waits for.
 *
 * The kernel holds every lock with interrupts off (and the shell runs
 * with them off), so an IPI may wait until its target turns them on
 * (idle, user mode, a system call between locks) or spins: cpu_relax()
 * looks for a call addressed to this CPU and runs it. So a CPU never waits for
 * an acknowledgement from a CPU that spins waiting for it (the deadlock
 * docs/design.md's lock rules are about).
 */
#include <ronx/compiler.h>
#include <ronx/x86.h>
#include <ronx/spinlock.h>
#include <ronx/apic.h>
#include <ronx/smp.h>

struct call_function_data {
	smp_call_func_t func;
	void *info;
	volatile cpumask_t pending;	/* CPUs yet to run func and acknowledge */
};

static struct call_function_data cfd;
static DEFINE_SPINLOCK(call_lock);
static unsigned long call_flags;	/* the caller's interrupt flag, under call_lock */

/*
 * Runs the call in flight if this CPU is one of its targets, then clears
 * this CPU's bit: from the IPI, or from cpu_relax() while this CPU spins.
 * in_call keeps a function that itself waits (stop_machine) from being
 * entered again from its own wait.
 */
void generic_smp_call_function_interrupt(void)
{
	struct cpu *c = this_cpu();
	cpumask_t me = 1UL << c->id;
	unsigned long flags;

	/* a spinner may have interrupts on: the IPI must not run it twice */
	local_irq_save(flags);
	if (!c->in_call && (cfd.pending & me)) {
		c->in_call = true;
		cfd.func(cfd.info);
		c->in_call = false;
		c->tlb.ipis_received++;
		__atomic_fetch_and(&cfd.pending, ~me, __ATOMIC_RELEASE);
	}
	local_irq_restore(flags);
}

/* The IPI itself (CALL_FUNCTION_VECTOR). */
void smp_call_function_ipi(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
	generic_smp_call_function_interrupt();
}

/* One turn of a busy wait: a pause, and any call sent to this CPU. */
void cpu_relax(void)
{
	struct cpu *c = this_cpu();

	__asm__ volatile("pause" : : : "memory");
	if (cfd.pending & (1UL << c->id) && !c->in_call) {
		c->tlb.served_spinning++;
		generic_smp_call_function_interrupt();
	}
}

/*
 * The pieces smp_call_function_many() (kernel/cpu/smp_call_function.c) is
 * made of. call_function_begin() takes call_lock once the call before,
 * perhaps sent without waiting, is done; call_function_send() publishes
 * the call and sends its IPIs; call_function_pending() says which CPUs
 * have not acknowledged yet; call_function_end() lets the next call in.
 */
void call_function_begin(void)
{
	unsigned long flags;

	/* irqsave, as every lock: a system call's munmap sends calls too */
	spin_lock_irqsave(&call_lock, flags);
	call_flags = flags;
	while (cfd.pending)
		cpu_relax();
}

void call_function_send(cpumask_t mask, smp_call_func_t func, void *info)
{
	struct cpu *c = this_cpu();

	cfd.func = func;
	cfd.info = info;
	__atomic_store_n(&cfd.pending, mask, __ATOMIC_RELEASE);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (mask & (1UL << cpu)) {
			apic_send_IPI(cpus[cpu].apic_id, CALL_FUNCTION_VECTOR);
			c->tlb.ipis_sent++;
		}
	}
}

/*
 * Every call of call_function_pending(), counted: the tlb-shootdown lab's
 * grader reads it from outside, while it holds one CPU still, to see the
 * caller keep polling (labs/tlb-shootdown/checks.py, HeldFlush).
 */
unsigned long call_function_polls;

cpumask_t call_function_pending(void)
{
	__atomic_fetch_add(&call_function_polls, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(&cfd.pending, __ATOMIC_ACQUIRE);
}

void call_function_end(void)
{
	unsigned long flags = call_flags;

	spin_unlock_irqrestore(&call_lock, flags);
}

/* What a CPU told to stop runs: it leaves the online mask and halts for good. */
static void stop_this_cpu(void *unused)
{
	(void)unused;
	__atomic_fetch_and(&cpu_online_mask, ~(1UL << smp_processor_id()), __ATOMIC_RELEASE);
	halt_forever();
}

/*
 * Linux's smp_send_stop(), for panic(): every other CPU halts. Neither
 * call_lock nor a wait: the panicking CPU may hold the lock, and a CPU
 * that stops never acknowledges. A call in flight is overwritten; nothing
 * runs after a panic to miss it.
 */
void smp_send_stop(void)
{
	cpumask_t others = cpu_online_mask & ~(1UL << smp_processor_id());

	if (others)
		call_function_send(others, stop_this_cpu, 0);
}

int smp_call_function_single(int cpu, smp_call_func_t func, void *info, bool wait)
{
	unsigned long flags;

	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu))
		return -ENODEV;
	if (cpu == smp_processor_id()) {
		local_irq_save(flags);
		func(info);
		local_irq_restore(flags);
		return 0;
	}
	smp_call_function_many(1UL << cpu, func, info, wait);
	return 0;
}

/* func(info) here, with interrupts off, then on every other online CPU. */
void on_each_cpu(smp_call_func_t func, void *info, bool wait)
{
	unsigned long flags;

	local_irq_save(flags);
	func(info);
	local_irq_restore(flags);
	smp_call_function_many(cpu_online_mask, func, info, wait);
}

/*
 * stop_machine(): every other online CPU parks in stop_cpu() with
 * interrupts off, fn runs here, then each CPU serializes (sync_core) and
 * goes on. While the others are parked they may hold any lock, so fn
 * must take none (no printk either) and send no IPI: it writes and
 * returns. Linux 2.6.38's text_poke_smp() patched kernel text this way.
 */
struct stop_state {
	volatile int arrived;
	volatile bool release;
};

/*
 * A parked CPU other than the boot CPU spins a little (the write is
 * usually that short), then halts instead of spinning on (under QEMU a
 * spinning virtual CPU takes a host CPU from the one doing the work): its
 * TPR lets through only the IPI vectors 0xf0-0xff, and no device
 * interrupt is routed to it, so nothing runs there until the wake-up
 * IPI. The boot CPU takes the 8259's interrupts: it spins.
 */
#define PARK_SPINS	200
static bool may_halt_parked(void)
{
	return smp_processor_id() != 0;
}

static void stop_cpu(void *info)
{
	struct stop_state *st = info;
	bool halt = may_halt_parked();

	if (halt)
		apic_write(APIC_TASKPRI, 0xe0);
	__atomic_fetch_add(&st->arrived, 1, __ATOMIC_ACQ_REL);
	for (int spins = 0; !__atomic_load_n(&st->release, __ATOMIC_ACQUIRE); spins++) {
		if (halt && spins >= PARK_SPINS)
			wait_for_interrupt();
		else
			__asm__ volatile("pause" : : : "memory");
	}
	if (halt)
		apic_write(APIC_TASKPRI, 0);
	sync_core();
}

int stop_machine(int (*fn)(void *), void *data)
{
	struct stop_state st = { 0, false };
	cpumask_t others = cpu_online_mask & ~(1UL << smp_processor_id());
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	/* call_lock stays ours until every CPU has left stop_cpu(): no other call can start */
	call_function_begin();
	if (others)
		call_function_send(others, stop_cpu, &st);
	while (st.arrived < __builtin_popcountl(others))
		cpu_relax();
	ret = fn(data);
	sync_core();
	__atomic_store_n(&st.release, true, __ATOMIC_RELEASE);
	for (int cpu = 1; cpu < NR_CPUS; cpu++)		/* the halted ones */
		if (others & (1UL << cpu))
			apic_send_IPI(cpus[cpu].apic_id, RESCHEDULE_VECTOR);
	while (call_function_pending())
		cpu_relax();
	call_function_end();
	local_irq_restore(flags);
	return ret;
}

/*
 * Work for another CPU that runs outside any IPI, so that it can take
 * IPIs itself while it runs (self-tests that keep a CPU busy writing or
 * calling patched code). Its idle loop runs it; RESCHEDULE_VECTOR wakes it.
 */
int start_cpu_work(int cpu, void (*fn)(void *), void *arg)
{
	struct cpu *c = &cpus[cpu];

	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu) || cpu == smp_processor_id())
		return -ENODEV;
	if (c->work)
		return -EBUSY;
	c->work_arg = arg;
	__atomic_store_n(&c->work, fn, __ATOMIC_RELEASE);
	apic_send_IPI(c->apic_id, RESCHEDULE_VECTOR);
	return 0;
}

/* Spins (serving calls) until cpu has finished the work it was given. */
void wait_cpu_work(int cpu)
{
	while (cpus[cpu].work)
		cpu_relax();
}

/* The idle loop's part: run the work given to this CPU, then say it is done. */
void run_cpu_work(void)
{
	struct cpu *c = this_cpu();
	void (*fn)(void *) = __atomic_load_n(&c->work, __ATOMIC_ACQUIRE);

	if (!fn)
		return;
	fn(c->work_arg);
	__atomic_store_n(&c->work, 0, __ATOMIC_RELEASE);
}

/* Wakes cpu from hlt, or takes it out of ring 3 for a moment (kernel/sched.c). */
void smp_send_reschedule(int cpu)
{
	if (apic_mapped && cpu_online(cpu))
		apic_send_IPI(cpus[cpu].apic_id, RESCHEDULE_VECTOR);
}

/* RESCHEDULE_VECTOR: only wakes the CPU; its scheduler loop or exit_to_user_mode() looks why. */
void smp_reschedule_ipi(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
}
