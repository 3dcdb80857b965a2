// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-stage TSC counts of a switch, a page fault and a signal
 * (include/ronx/stagestat.h): the kernel's own view of where the cycles
 * go, for docs/bench.md, tools/bench_switch.py and tools/bench_appel.py.
 * Boot with `stagestat`, run a benchmark, then the shell's `stagestat`
 * prints each stage's count and mean and clears them. The marks' own
 * rdtsc is part of what they measure (tens of cycles under TCG). A
 * sample of a million cycles or more is the host's doing (QEMU's thread
 * was not running: no stage takes a tenth of it) and is counted apart,
 * not in the mean: on a loaded host a few of them made a 2k-cycle
 * stage's mean 9k. Measures, asserts nothing.
 */
#include <ronx/compiler.h>
#include <ronx/cmdline.h>
#include <ronx/errno.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/percpu.h>
#include <ronx/shell.h>
#include <ronx/stagestat.h>

bool stagestat_on;

#define STAGE_HOST_STALL	1000000ull

/* Each CPU's own: no lock, no shared cache line written by two CPUs. */
static struct {
	uint64_t last;
	uint64_t cycles[NR_STAGES];
	unsigned long count[NR_STAGES];
	unsigned long stalls[NR_STAGES];	/* samples of STAGE_HOST_STALL or more */
} stat[NR_CPUS];

static const char *const stage_names[NR_STAGES] = {
	[ST_SCHED_LOCK] = "switch: lock",
	[ST_SCHED_PICK] = "switch: pick next",
	[ST_FPU_SAVE] = "switch: fpu save",
	[ST_SWITCH_MM] = "switch: switch_mm",
	[ST_FPU_RESTORE] = "switch: fpu restore",
	[ST_SWTCH] = "switch: swtch",
	[ST_SCHED_UNLOCK] = "switch: finish+unlock",
	[ST_FAULT_ENTRY] = "fault: entry",
	[ST_FAULT_VMA] = "fault: vma lookup",
	[ST_FAULT_PTE] = "fault: pte walk",
	[ST_FAULT_ZERO_MAP] = "fault: zero page map",
	[ST_FAULT_ANON_ALLOC] = "fault: anon alloc",
	[ST_FAULT_ANON_SET] = "fault: anon set pte",
	[ST_FAULT_COW_ALLOC] = "fault: cow alloc",
	[ST_FAULT_COW_COPY] = "fault: cow copy",
	[ST_FAULT_COW_SET] = "fault: cow set pte",
	[ST_FAULT_RETURN] = "fault: return",
	[ST_SIG_KILL] = "signal: kill",
	[ST_SIG_FORCE] = "signal: fault's signal queued",
	[ST_SIG_TO_DO_SIGNAL] = "signal: to do_signal",
	[ST_SIG_DEQUEUE] = "signal: dequeue",
	[ST_SIG_FPU_SAVE] = "signal: fpu save",
	[ST_SIG_FPU_COPY] = "signal: fpu out, the handler's fpu",
	[ST_SIG_FRAME_FILL] = "signal: frame fill",
	[ST_SIG_FRAME_COPY] = "signal: frame out, the handler's registers",
	[ST_SIGRET_COPY] = "sigreturn: frame copy in",
	[ST_SIGRET_REGS] = "sigreturn: registers",
	[ST_SIGRET_FPU] = "sigreturn: fpu",
	[ST_SIGRET_MASK] = "sigreturn: mask, altstack",
	[ST_SIGACT_COPYIN] = "rt_sigaction: copy in",
	[ST_SIGACT_COPYOUT] = "rt_sigaction: copy out",
	[ST_SIGACT_SET] = "rt_sigaction: set",
};

static int __init parse_stagestat(const char *val)
{
	stagestat_on = true;
	return val ? -EINVAL : 0;
}
BOOT_PARAM("stagestat", parse_stagestat, "no value");

void __stage_start(void)
{
	stat[this_cpu()->id].last = rdtsc();
}

void __stage_mark(enum stage s)
{
	int cpu = this_cpu()->id;
	uint64_t now = rdtsc();

	if (now - stat[cpu].last >= STAGE_HOST_STALL) {
		stat[cpu].stalls[s]++;
	} else {
		stat[cpu].cycles[s] += now - stat[cpu].last;
		stat[cpu].count[s]++;
	}
	stat[cpu].last = now;
}

static int cmd_stagestat(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return -EINVAL;
	if (!stagestat_on) {
		cprintf("stagestat: off (boot with stagestat)\n");
		return 0;
	}
	for (int s = 0; s < NR_STAGES; s++) {
		uint64_t cycles = 0;
		unsigned long n = 0, stalls = 0;

		for (int c = 0; c < NR_CPUS; c++) {
			cycles += stat[c].cycles[s];
			n += stat[c].count[s];
			stalls += stat[c].stalls[s];
			stat[c].cycles[s] = 0;
			stat[c].count[s] = 0;
			stat[c].stalls[s] = 0;
		}
		if (!n)
			continue;
		cprintf("stagestat: %s: %lu times, mean %llu cycles", stage_names[s], n,
			(unsigned long long)(cycles / n));
		if (stalls)
			cprintf(" (%lu host stalls left out)", stalls);
		cprintf("\n");
	}
	return 0;
}
SHELL_COMMAND("stagestat", cmd_stagestat, "stagestat",
	      "per-stage TSC counts of switches, page faults and signals since the last call (boot with stagestat)");
