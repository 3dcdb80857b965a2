// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probes run on another CPU through smp_call_function_single(): the
 * caller waits, the other CPU touches the page with its own TLB and
 * reports. A fault there is caught by the probe's exception-table fixup
 * or quiet recovery on that CPU, as it would be here.
 */
#include <ronx/compiler.h>
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
