// SPDX-License-Identifier: GPL-2.0-only
/*
 * Out of memory in a fault (Linux: mm/oom_kill.c, much reduced). Linux
 * picks the process with the most memory; ronx kills the one whose
 * fault found no page, with Linux's line, and the kernel goes on: the
 * process's pages come back when it exits.
 *
 *   Out of memory: Killed process 5 (oomtouch) total-vm:33296kB, anon-rss:32768kB, ...
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/mm_types.h>
#include <ronx/memory.h>
#include <ronx/process.h>

/* The areas' sizes, in kB: Linux's total-vm. */
static unsigned long total_vm_kb(const struct mm_struct *mm)
{
	unsigned long pages = 0;

	for (int i = 0; i < mm->vmas.nr; i++)
		pages += (mm->vmas.v[i].vm_end - mm->vmas.v[i].vm_start) / PAGE_SIZE;
	return pages * (PAGE_SIZE / 1024);
}

/*
 * Marks current to die of SIGKILL on its way back to ring 3 (a fault in
 * a system call's copy_to_user() still returns -EFAULT first), after
 * saying so. The caller in ring 3 exits at once.
 */
void oom_kill_current(void)
{
	struct task *t = current;
	struct mm_struct *mm = t->mm;

	__atomic_fetch_add(&fault_stats.oom_kills, 1, __ATOMIC_RELAXED);
	/* %pE: the name is the process's own choice (PR_SET_NAME), bytes of any value */
	pr_err("Out of memory: Killed process %d (%pE) total-vm:%lukB, anon-rss:%lukB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%lukB oom_score_adj:0\n",
	       t->pid, t->comm, total_vm_kb(mm), (unsigned long)mm->total_pages * (PAGE_SIZE / 1024),
	       (unsigned long)mm->pt_pages * (PAGE_SIZE / 1024));
	if (!t->killed)
		t->killed = SIGKILL;
}
