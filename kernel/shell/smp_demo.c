// SPDX-License-Identifier: GPL-2.0-only
/*
 * Crash demos for SMP (`crash SMP_STALE_WRITE`, `crash SMP_STALE_EXEC`):
 * the bug a TLB shootdown prevents, shown on two CPUs.
 *
 * Another CPU uses a page, so its TLB holds the translation; this CPU
 * takes a permission away (set_memory_ro, set_memory_nx); the other CPU
 * uses the page again, with a plain access as LKDTM does, so the oops is
 * the real one, printed by that CPU and recovered there. By default the
 * shootdown has flushed its TLB and it faults. Booted with
 * cpa_shootdown=off it still has the old entry, and the access goes
 * through: the log says so.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/recovery.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/tlbflush.h>
#include <ronx/lkdtm.h>
#include <ronx/smp.h>
#include <ronx/smp_probe.h>

#define RET 0xc3

struct remote_touch {
	void *addr;
	bool exec;
	bool faulted;
	bool ran;		/* the other CPU ran touch_loudly(): it answered the call */
};

/* On the other CPU, under a loud recovery of its own: the oops prints there. */
static void touch_loudly(void *info)
{
	struct remote_touch *d = info;
	struct recovery r;

	d->ran = true;
	if (catch_faults(&r, false)) {
		d->faulted = true;
		return;
	}
	if (d->exec)
		((void (*)(void))d->addr)();
	else
		*(volatile unsigned char *)d->addr = 0x5a;
	recovery_pop(&r);
}

static int partner_cpu(const char *demo)
{
	int cpu = other_online_cpu();

	if (cpu < 0)
		pr_info("lkdtm: %s needs a second CPU: boot with -smp 2 or more (nosmp and maxcpus=1 leave one)\n",
			demo);
	return cpu;
}

/* The other CPU never answered: say so, not what it would have seen. */
static bool answered(int cpu, int ret, const char *what)
{
	if (ret != -ENODEV)
		return true;
	pr_err("lkdtm: FAIL: CPU %d did not run the %s: no answer to the call (smp_call_function_many() did not reach it)\n",
	       cpu, what);
	return false;
}

static const char *shootdown_state(void)
{
	return cpa_shootdown ? "on" : "OFF: cpa_shootdown=off";
}

static void lkdtm_SMP_STALE_WRITE(void)
{
	int cpu = partner_cpu("SMP_STALE_WRITE"), me = smp_processor_id();
	unsigned long pa = cpu < 0 ? 0 : alloc_page(), va = (unsigned long)__va(pa);
	struct remote_touch d = { (void *)va, false, false, false };

	if (!pa)
		return;
	if (!answered(cpu, probe_write_on(cpu, (void *)va), "first write")) {
		free_page(pa);
		return;
	}
	pr_info("lkdtm: CPU %d wrote to %08lx: its TLB holds the page, writable\n", cpu, va);
	set_memory_ro(va, 1);
	pr_info("lkdtm: CPU %d: set_memory_ro(%08lx, 1) returned (TLB shootdown %s)\n", me, va,
		shootdown_state());
	pr_info("lkdtm: attempting bad write at %08lx on CPU %d\n", va, cpu);
	smp_call_function_single(cpu, touch_loudly, &d, true);
	if (!d.ran)
		answered(cpu, -ENODEV, "write");
	else if (d.faulted)
		pr_info("lkdtm: the write faulted on CPU %d: set_memory_ro() on CPU %d flushed its TLB too\n",
			cpu, me);
	else
		pr_err("lkdtm: FAIL: write went through on CPU %d after set_memory_ro() on CPU %d: stale TLB entry\n",
		       cpu, me);
	set_memory_rw(va, 1);
	free_page(pa);
}

static void lkdtm_SMP_STALE_EXEC(void)
{
	int cpu = partner_cpu("SMP_STALE_EXEC"), me = smp_processor_id();
	unsigned long pa = cpu < 0 ? 0 : alloc_page(), va = (unsigned long)__va(pa);
	struct remote_touch d = { (void *)va, true, false, false };

	if (!pa)
		return;
	if (!nx_enabled) {
		pr_info("lkdtm: SMP_STALE_EXEC needs NX, which is not in use\n");
		free_page(pa);
		return;
	}
	*(unsigned char *)va = RET;
	set_memory_ro(va, 1);
	set_memory_x(va, 1);
	if (!answered(cpu, probe_exec_on(cpu, (void *)va, 0), "first call")) {
		set_memory_nx(va, 1);
		set_memory_rw(va, 1);
		free_page(pa);
		return;
	}
	pr_info("lkdtm: CPU %d ran code at %08lx: its TLB holds the page, executable\n", cpu, va);
	set_memory_nx(va, 1);
	pr_info("lkdtm: CPU %d: set_memory_nx(%08lx, 1) returned (TLB shootdown %s)\n", me, va,
		shootdown_state());
	pr_info("lkdtm: attempting bad execution at %08lx on CPU %d\n", va, cpu);
	smp_call_function_single(cpu, touch_loudly, &d, true);
	if (!d.ran)
		answered(cpu, -ENODEV, "call");
	else if (d.faulted)
		pr_info("lkdtm: the call faulted on CPU %d: set_memory_nx() on CPU %d flushed its TLB too\n",
			cpu, me);
	else
		pr_err("lkdtm: FAIL: code ran on CPU %d after set_memory_nx() on CPU %d: stale TLB entry\n",
		       cpu, me);
	set_memory_rw(va, 1);
	free_page(pa);
}

CRASHTYPE("SMP_STALE_WRITE", lkdtm_SMP_STALE_WRITE,
	  "another CPU writes a page set_memory_ro() just made RO (faults unless cpa_shootdown=off)");
CRASHTYPE("SMP_STALE_EXEC", lkdtm_SMP_STALE_EXEC,
	  "another CPU runs code set_memory_nx() just made NX (faults unless cpa_shootdown=off)");
