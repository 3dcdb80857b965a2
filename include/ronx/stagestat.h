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
#endif
