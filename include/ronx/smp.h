/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Several CPUs (Linux: include/linux/smp.h, cpumask.h, stop_machine.h).
 *
 * CPU ids are 0..NR_CPUS-1 (cpus[id]); the boot CPU is 0. A cpumask_t is
 * one bit per id. kernel/cpu/smpboot.c starts the CPUs; kernel/cpu/smp.c runs a
 * function on other CPUs (an IPI, then a wait for each to acknowledge).
 */
#ifndef RONX_SMP_H
#define RONX_SMP_H
#include <stdbool.h>
#include <ronx/percpu.h>
#include <ronx/traps.h>

typedef unsigned long cpumask_t;

extern volatile cpumask_t cpu_online_mask;	/* running, answering IPIs */
extern int nr_cpus_present;			/* listed by the firmware (MADT) */

static inline int smp_processor_id(void)
{
	return this_cpu()->id;
}

static inline bool cpu_online(int cpu)
{
	return cpu_online_mask & (1UL << cpu);
}

static inline int num_online_cpus(void)
{
	return __builtin_popcountl(cpu_online_mask);
}

#define for_each_online_cpu(cpu) \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++) if (cpu_online(cpu))

/* A function another CPU runs for us, with interrupts off; it must not take locks. */
typedef void (*smp_call_func_t)(void *info);

/* kernel/cpu/smp_call_function.c, kernel/cpu/smp.c */
void smp_call_function_many(cpumask_t mask, smp_call_func_t func, void *info, bool wait);
int smp_call_function_single(int cpu, smp_call_func_t func, void *info, bool wait);
void on_each_cpu(smp_call_func_t func, void *info, bool wait);
void generic_smp_call_function_interrupt(void);
void call_function_begin(void);
void call_function_send(cpumask_t mask, smp_call_func_t func, void *info);
cpumask_t call_function_pending(void);
void call_function_end(void);
void smp_call_function_ipi(struct trap_frame *f);
int stop_machine(int (*fn)(void *), void *data);
int start_cpu_work(int cpu, void (*fn)(void *), void *arg);
void wait_cpu_work(int cpu);
void run_cpu_work(void);
void smp_reschedule_ipi(struct trap_frame *f);
void smp_send_reschedule(int cpu);
void smp_send_stop(void);

/* kernel/cpu/smpboot.c */
void smp_init(void);
int other_online_cpu(void);		/* an online CPU that is not this one, or -1 */
#endif
