/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Getting out of a fault that the exception table does not cover.
 *
 *	struct recovery r;
 *	if (catch_faults(&r, true)) {
 *		... we faulted; r.fault says how ...
 *	} else {
 *		... risky code ...
 *		recovery_pop(&r);
 *	}
 *
 * A quiet recovery is for a fault the caller expects (a self-test): no oops
 * is printed. A loud one (the shell around each command) prints the oops a
 * student should read, then returns to the caller instead of halting.
 */
#ifndef RONX_RECOVERY_H
#define RONX_RECOVERY_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/spinlock.h>

struct jmp_buf {
	uint32_t ebx, esi, edi, ebp, esp, eip;
};

struct fault_info {
	uint32_t vector, error_code;
	unsigned long cr2, eip;
};

struct recovery {
	struct jmp_buf jb;
	bool quiet;
	int locks_held;			/* this CPU's spinlocks when it was armed */
	struct fault_info fault;
	struct recovery *prev;
};

int ronx_setjmp(struct jmp_buf *jb) __attribute__((returns_twice));
void ronx_longjmp(struct jmp_buf *jb, int val) __attribute__((noreturn));

/*
 * The innermost recovery of whoever runs: each task has its own stack of
 * them (so one task's fault never lands in another's catch_faults()), and
 * the CPU has one for when no task runs (boot, the scheduler).
 */
struct recovery **recovery_slot(void);
#define current_recovery (*recovery_slot())

static inline void recovery_push(struct recovery *r, bool quiet)
{
	r->quiet = quiet;
	r->locks_held = nr_locks_held();
	r->prev = current_recovery;
	current_recovery = r;
}

static inline void recovery_pop(struct recovery *r)
{
	current_recovery = r->prev;
}

/* Non-zero when we come back here from a fault. */
#define catch_faults(r, quiet) \
	(recovery_push((r), (quiet)), ronx_setjmp(&(r)->jb))

void recover_from_fault(const struct fault_info *fi) __attribute__((noreturn));

/* boot/probe.asm and kernel/cpu/probe.c: accesses that may fault. */
int probe_read(const void *addr, unsigned char *val);
int probe_write(void *addr, unsigned char val);
int probe_exec(const void *addr, struct fault_info *fi);
int probe_write_same(void *addr);

/* The last page fault, also one that the exception table fixed up. */
extern struct fault_info last_fault;
#endif
