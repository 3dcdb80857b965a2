/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Probes run on another CPU (kernel/cpu/smp_probe.c), for the SMP self-tests
 * and crash demos: what does that CPU's TLB let it do with a page?
 */
#ifndef RONX_SMP_PROBE_H
#define RONX_SMP_PROBE_H
#include <ronx/recovery.h>

/* probe_write_same(): 0 or -EFAULT; -ENODEV if cpu never ran the probe (no answer to the call) */
int probe_write_on(int cpu, void *addr);
int probe_exec_on(int cpu, const void *addr, struct fault_info *fi);	/* probe_exec(); -ENODEV too */
int next_other_cpu(int after);		/* the next online CPU after after, not this one; -1 if none */
#endif
