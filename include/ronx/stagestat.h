/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the cycles of a context switch and of a page fault go: TSC
 * counts per stage, kept only when the command line says `stagestat`
 * (kernel/stagestat.c; the shell's `stagestat` prints and clears them).
 * Each CPU keeps the TSC of its last mark; a mark charges the cycles
 * since then to its stage. A switch's marks run on one CPU, on both
 * sides of swtch(), so the stage after it counts the jump between
 * stacks. Off, a mark is one predictable branch.
 */
#ifndef RONX_STAGESTAT_H
#define RONX_STAGESTAT_H
#include <stdbool.h>

enum stage {
	/* a switch (schedule() and the idle loop), in the order they run */
	ST_SCHED_LOCK,		/* yield() until tasks_lock is held */
	ST_SCHED_PICK,		/* the scan of the table for the next task */
	ST_FPU_SAVE,		/* the leaving process's registers saved */
	ST_SWITCH_MM,		/* CR3 (and the CPU masks) */
	ST_FPU_RESTORE,		/* the arriving process's registers loaded (or not) */
	ST_SWTCH,		/* swtch() itself, up to the other stack's next mark */
	ST_SCHED_UNLOCK,	/* the switched-to side's finish and unlock */
	/* a page fault, do_page_fault() to its return */
	ST_FAULT_ENTRY,		/* do_page_fault() until handle_mm_fault() */
	ST_FAULT_VMA,		/* the area lookup and access check */
	ST_FAULT_PTE,		/* the page-table walk to the PTE (a table made if none) */
	ST_FAULT_ZERO_MAP,	/* a read: the zero page mapped */
	ST_FAULT_ANON_ALLOC,	/* a write: a new zeroed frame */
	ST_FAULT_ANON_SET,	/* ... its PTE set (and any flush) */
	ST_FAULT_COW_ALLOC,	/* copy-on-write: the new frame */
	ST_FAULT_COW_COPY,	/* ... the 4K copy */
	ST_FAULT_COW_SET,	/* ... the PTE moved, the flush, the old frame put */
	ST_FAULT_RETURN,	/* handle_mm_fault()'s end to do_page_fault()'s */
	/* a signal: sent (kill or a fault), delivered, returned from */
	ST_SIG_KILL,		/* sys_kill() to the signal queued */
	ST_SIG_FORCE,		/* a fault's signal: its code found and queued */
	ST_SIG_TO_DO_SIGNAL,	/* the rest of the call or trap, to do_signal() */
	ST_SIG_DEQUEUE,		/* the signal taken off with its siginfo and action */
	ST_SIG_FRAME_FILL,	/* the frame placed and built in the kernel */
	ST_SIG_FPU_SAVE,	/* the FPU registers saved and their fnsave view made */
	ST_SIG_FPU_COPY,	/* the rest of the FPU state to the frame, the FPU reset */
	ST_SIG_FRAME_COPY,	/* the frame copied to the user stack, the handler's registers */
	ST_SIGRET_COPY,		/* rt_sigreturn: the frame copied from the user stack */
	ST_SIGRET_REGS,		/* the registers checked and restored */
	ST_SIGRET_FPU,		/* the FPU state copied in and loaded */
	ST_SIGRET_MASK,		/* the mask and the alternate stack */
	ST_SIGACT_COPYIN,	/* rt_sigaction: the new action copied in */
	ST_SIGACT_COPYOUT,	/* ... the old one copied out */
	ST_SIGACT_SET,		/* ... the new one set under tasks_lock */
	NR_STAGES
};

extern bool stagestat_on;
void __stage_start(void);
void __stage_mark(enum stage s);

/* The start of a measured path: no stage is charged. */
static inline void stage_start(void)
{
	if (stagestat_on)
		__stage_start();
}

/* The cycles since this CPU's last mark go to stage s. */
static inline void stage_mark(enum stage s)
{
	if (stagestat_on)
		__stage_mark(s);
}

/*
 * A signal's marks are built in only with `make SIGSTAGES=on`
 * (tools/bench_appel.py stages): under TCG even an off mark's test cost
 * about 100 cycles, and a caught signal passes 14 of them (1.4k of its
 * 12k, docs/bench.md).
 */
#ifdef CONFIG_SIGSTAGES
#define sig_stage_start()	stage_start()
#define sig_stage_mark(s)	stage_mark(s)
#else
#define sig_stage_start()	do { } while (0)
#define sig_stage_mark(s)	do { } while (0)
#endif
#endif
