// SPDX-License-Identifier: GPL-2.0-only
/*
 * Spinlocks (Linux: kernel/locking/spinlock.c and the x86 arch_spin_lock).
 * A test-and-set lock: xchg takes it, and a waiter spins reading it
 * (which stays in its cache) with cpu_relax(), which also serves the
 * cross-CPU calls sent to this CPU: see include/ronx/spinlock.h for why.
 * A waiter that gives up its spin (a fault in a call it served, recovered
 * outside) leaves nothing behind but a stale count of waiters. Not fair:
 * a CPU that takes a lock in a loop hands it over when it is contended
 * (console_handover()).
 *
 * Each CPU keeps the locks it holds in this_cpu()->held_locks, newest
 * last, so that a fault recovered by catch_faults() can give back what
 * the code that faulted had taken (an oops must not wedge the next
 * command on a lock nobody will ever release).
 *
 * Every lock is taken with interrupts off (docs/design.md, "Locks"): an
 * interrupt handler on this CPU that wanted a lock this CPU holds would
 * spin forever, and the held-lock list above is this CPU's, changed by
 * its handlers too. A lock taken with interrupts on is counted and said
 * once, with who took it: the bug is then one line, not a rare hang.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/percpu.h>
#include <ronx/spinlock.h>
#include <ronx/kallsyms.h>

static void note_held(spinlock_t *l)
{
	struct cpu *c = this_cpu();

	l->owner = c->id;
	if (c->nr_held < MAX_LOCK_DEPTH)
		c->held_locks[c->nr_held] = l;
	c->nr_held++;
}

/* Forgets l; usually the newest, but xv6's scheduler hands tasks_lock over. */
static void note_released(spinlock_t *l)
{
	struct cpu *c = this_cpu();
	int n = c->nr_held < MAX_LOCK_DEPTH ? c->nr_held : MAX_LOCK_DEPTH;

	l->owner = -1;
	for (int i = n - 1; i >= 0; i--) {
		if (c->held_locks[i] == l) {
			for (int j = i; j + 1 < n; j++)
				c->held_locks[j] = c->held_locks[j + 1];
			break;
		}
	}
	if (c->nr_held)
		c->nr_held--;
}

unsigned long lock_irqs_on_count;

static void lock_taken_with_irqs_on(spinlock_t *l, void *caller)
{
	char sym[64];

	lock_irqs_on_count++;
	if (l->warned)
		return;
	l->warned = true;
	sprint_symbol(sym, sizeof(sym), (unsigned long)caller);
	pr_warn("ronx: spinlock %s taken with interrupts on (CPU %d, by %s): an interrupt here could wait on it forever; use spin_lock_irqsave()\n",
		l->name, this_cpu()->id, sym);
}

void spin_lock(spinlock_t *l)
{
	if (!irqs_disabled()) {
		lock_taken_with_irqs_on(l, __builtin_return_address(0));
		local_irq_disable();	/* the held list must not change under us */
		spin_lock(l);
		local_irq_enable();
		return;
	}
	spin_lock_irqs_off(l);
}

/*
 * spin_lock() once interrupts are known to be off: spin_lock_irqsave()
 * has just turned them off, so it does not ask again (a pushf, which TCG
 * computes with a helper). Its uncontended case is inline
 * (__spin_lock_irqs_off() in ronx/spinlock.h); this is the rest: the
 * wait, and a CPU whose held list is full.
 */
void spin_lock_irqs_off(spinlock_t *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&l->waiters, 1, __ATOMIC_RELAXED);
		while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
			while (l->locked)
				cpu_relax();
		__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
	}
	note_held(l);
}

int spin_trylock(spinlock_t *l)
{
	if (!irqs_disabled())
		lock_taken_with_irqs_on(l, __builtin_return_address(0));
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return 0;
	note_held(l);
	return 1;
}

void spin_unlock(spinlock_t *l)
{
	note_released(l);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

int spin_is_locked_by_me(const spinlock_t *l)
{
	return l->locked && l->owner == this_cpu()->id;
}

int nr_locks_held(void)
{
	return this_cpu()->nr_held;
}

/*
 * After a fault, back in the code that armed the recovery: every lock
 * taken since (beyond the first keep) was held by code that will never
 * run to its unlock. Give each back, and say so: the data it guarded
 * may be half-changed, which the oops above explains.
 */
void release_locks_after_fault(int keep)
{
	struct cpu *c = this_cpu();

	while (c->nr_held > keep) {
		spinlock_t *l = c->nr_held <= MAX_LOCK_DEPTH ? c->held_locks[c->nr_held - 1] : 0;

		if (!l) {
			c->nr_held--;
			continue;
		}
		spin_unlock(l);
		pr_warn("ronx: CPU %d: released spinlock %s, held by the code that faulted\n",
			c->id, l->name);
	}
}
