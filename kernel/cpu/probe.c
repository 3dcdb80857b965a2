// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probes for self-tests: can this page be executed, can it be written?
 * Each answers with 0 or -EFAULT and never brings the kernel down.
 */
#include <ronx/compiler.h>
#include <ronx/sched.h>
#include <ronx/recovery.h>

struct fault_info last_fault;

/* The running task's recoveries, or the CPU's when no task runs. */
struct recovery **recovery_slot(void)
{
	struct task *t = current;

	return t ? &t->recovery : &this_cpu()->recovery;
}

void recover_from_fault(const struct fault_info *fi)
{
	struct recovery *r = current_recovery;

	r->fault = *fi;
	recovery_pop(r);
	release_locks_after_fault(r->locks_held);
	ronx_longjmp(&r->jb, 1);
}

/*
 * Calls addr. The caller puts a "ret" (0xc3) there, so an executable page
 * simply returns; an NX one faults with the instruction-fetch bit set, at
 * EIP == addr, which no exception-table entry can name: hence a recovery.
 */
int probe_exec(const void *addr, struct fault_info *fi)
{
	struct recovery r;

	if (catch_faults(&r, true)) {
		if (fi)
			*fi = r.fault;
		return -EFAULT;
	}
	((void (*)(void))addr)();
	recovery_pop(&r);
	return 0;
}

/* Writes back the byte that is there: tests writability without damage. */
int probe_write_same(void *addr)
{
	unsigned char v;

	if (probe_read(addr, &v))
		return -EFAULT;
	return probe_write(addr, v);
}
