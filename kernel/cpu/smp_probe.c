// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probes run on another CPU through smp_call_function_single(): the
 * caller waits, the other CPU touches the page with its own TLB and
 * reports. A fault there is caught by the probe's exception-table fixup
 * or quiet recovery on that CPU, as it would be here.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/kstrtox.h>
#include <ronx/shell.h>
#include <ronx/smp.h>
#include <ronx/smp_probe.h>

struct probe_call {
	void *addr;
	struct fault_info fi;
	int ret;
};

static void write_here(void *info)
{
	struct probe_call *p = info;

	p->ret = probe_write_same(p->addr);
}

static void exec_here(void *info)
{
	struct probe_call *p = info;

	p->ret = probe_exec(p->addr, &p->fi);
}

/* -ENODEV (what p.ret starts as) if cpu never ran the probe: no answer to the call. */
int probe_write_on(int cpu, void *addr)
{
	struct probe_call p = { addr, { 0, 0, 0, 0 }, -ENODEV };

	smp_call_function_single(cpu, write_here, &p, true);
	return p.ret;
}

int probe_exec_on(int cpu, const void *addr, struct fault_info *fi)
{
	struct probe_call p = { (void *)addr, { 0, 0, 0, 0 }, -ENODEV };

	smp_call_function_single(cpu, exec_here, &p, true);
	if (fi)
		*fi = p.fi;
	return p.ret;
}

int next_other_cpu(int after)
{
	for (int i = 1; i <= NR_CPUS; i++) {
		int cpu = (after + i) % NR_CPUS;

		if (cpu_online(cpu) && cpu != smp_processor_id())
			return cpu;
	}
	return -1;
}

/*
 * `cpuwrite CPU ADDR BYTE`: one byte written at ADDR by CPU, through its
 * own TLB, a fault caught (probe_write): what the tlb-shootdown lab's
 * grader, and a student, use to see whether a permission taken away on
 * one CPU holds on another. QEMU's `xp` then says what is in memory.
 */
struct cpuwrite {
	unsigned long addr;
	unsigned char byte;
	int ret;
	struct fault_info fault;
};

static void cpuwrite_here(void *info)
{
	struct cpuwrite *w = info;

	w->ret = probe_write((void *)w->addr, w->byte);
	w->fault = last_fault;
}

static int cmd_cpuwrite(int argc, char **argv)
{
	unsigned int cpu, addr, byte;
	struct cpuwrite w;

	if (argc != 4 || kstrtouint(argv[1], 10, &cpu) || kstrtouint(argv[2], 16, &addr) ||
	    kstrtouint_range(argv[3], 0, 255, &byte)) {
		cprintf("usage: cpuwrite CPU ADDR BYTE (CPU in decimal, ADDR hex, BYTE 0-255)\n");
		return -EINVAL;
	}
	if (cpu >= NR_CPUS || !cpu_online((int)cpu)) {
		cprintf("cpuwrite: CPU %u is not online\n", cpu);
		return -ENODEV;
	}
	w = (struct cpuwrite){ addr, (unsigned char)byte, -ENODEV, { 0, 0, 0, 0 } };
	smp_call_function_single((int)cpu, cpuwrite_here, &w, true);
	if (w.ret == -ENODEV)	/* cpuwrite_here() never ran: nothing was tried */
		cprintf("cpuwrite: CPU %u did not run the write: no answer to the call "
			"(smp_call_function_many() did not reach it)\n", cpu);
	else if (w.ret == 0)
		cprintf("cpuwrite: CPU %u wrote %#x at %08x\n", cpu, byte, addr);
	else
		cprintf("cpuwrite: CPU %u's write at %08x faulted (#PF error %#x)\n", cpu, addr,
			w.fault.error_code);
	return w.ret;
}
SHELL_COMMAND("cpuwrite", cmd_cpuwrite, "cpuwrite CPU ADDR BYTE",
	      "write one byte at ADDR on another CPU, through its own TLB (a fault is caught)");
