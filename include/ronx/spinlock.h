/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spinlocks with Linux's names (kernel/spinlock.c). A process's system
 * call runs with interrupts on (docs/design.md, "Interrupts"), but never
 * while it holds a spinlock: every lock is taken with interrupts off (the
 * irqsave variants), so no interrupt handler can spin on a lock its own
 * CPU holds, and the rules below, written for a kernel that held every
 * lock with interrupts off, stay true. spin_lock() with interrupts on
 * says so once per lock (lock_taken_with_irqs_on()).
 *
 * Two rules make them safe with interrupts off (docs/design.md, "Locks"):
 *
 *  - A CPU that spins, on a lock or on anything else, calls cpu_relax(),
 *    which also runs the cross-CPU calls (TLB shootdowns) sent to this
 *    CPU. A CPU waiting for a shootdown's acknowledgement while holding a
 *    lock therefore never waits for a CPU that spins on that lock.
 *  - Locks are taken in one order (the table in docs/design.md).
 *
 * Each CPU remembers the locks it holds, so that a fault recovered while
 * one is held (an oops in a command) gives it back instead of leaving the
 * next taker spinning forever (release_locks_after_fault()).
 */
#ifndef RONX_SPINLOCK_H
#define RONX_SPINLOCK_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/segment.h>
#include <ronx/percpu.h>

typedef struct spinlock {
	volatile uint32_t locked;
	const char *name;		/* for the oops that gives it back */
	volatile int owner;		/* CPU id of the holder, -1 if free */
	bool warned;			/* taken with interrupts on, and said so */
	volatile uint16_t waiters;	/* CPUs spinning for it (spin_is_contended()) */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(x)	{ 0, #x, -1, false, 0 }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

static inline unsigned long arch_local_save_flags(void)
{
	unsigned long flags;

	__asm__ volatile("pushfl; popl %0" : "=r"(flags) : : "memory");
	return flags;
}

static inline bool irqs_disabled(void)
{
	return !(arch_local_save_flags() & X86_EFLAGS_IF);
}

static inline void local_irq_disable(void) { __asm__ volatile("cli" : : : "memory"); }
static inline void local_irq_enable(void) { __asm__ volatile("sti" : : : "memory"); }

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = arch_local_save_flags();

	local_irq_disable();
	return flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	if (flags & X86_EFLAGS_IF)
		local_irq_enable();
}

#define local_irq_save(flags)		((flags) = arch_local_irq_save())
#define local_irq_restore(flags)	arch_local_irq_restore(flags)

/* Wait for the next interrupt with interrupts on, then turn them off again.
 * "sti; hlt" is one step: sti takes effect after the next instruction, so no
 * interrupt can slip in between and leave us halted with nothing to wake us. */
static inline void wait_for_interrupt(void)
{
	__asm__ volatile("sti; hlt; cli" : : : "memory");
}

/* kernel/cpu/smp.c: one turn of a busy wait; serves cross-CPU calls. */
void cpu_relax(void);

void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
int spin_trylock(spinlock_t *l);		/* 1 if taken */
int spin_is_locked_by_me(const spinlock_t *l);

/*
 * Does a CPU spin for l? A test-and-set lock is not fair: a CPU that
 * gives it back and takes it again at once can starve the others, so
 * one that does so in a loop asks this first (Linux: spin_is_contended()).
 */
static inline bool spin_is_contended(const spinlock_t *l)
{
	return l->waiters != 0;
}

void spin_lock_irqs_off(spinlock_t *l);		/* spin_lock() without its check: they are off */

/*
 * The irqsave pair's uncontended case inline: under TCG each call into
 * kernel/spinlock.c and its return is a lookup of the next block, and a
 * signal's delivery and return take tasks_lock three times
 * (docs/bench.md). The rest, waiting and an out-of-order release, is
 * spin_lock_irqs_off()'s and spin_unlock()'s.
 */
static inline void __spin_lock_irqs_off(spinlock_t *l)
{
	struct cpu *c = this_cpu();

	if (c->nr_held >= MAX_LOCK_DEPTH || __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		spin_lock_irqs_off(l);
		return;
	}
	l->owner = c->id;
	c->held_locks[c->nr_held++] = l;
}

static inline void __spin_unlock(spinlock_t *l)
{
	struct cpu *c = this_cpu();
	int n = c->nr_held;

	if (n < 1 || n > MAX_LOCK_DEPTH || c->held_locks[n - 1] != l) {
		spin_unlock(l);
		return;
	}
	c->nr_held = n - 1;
	l->owner = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock_irqsave(l, flags)	do { local_irq_save(flags); __spin_lock_irqs_off(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { __spin_unlock(l); local_irq_restore(flags); } while (0)

/* How many locks this CPU holds; recovery gives back those taken since. */
int nr_locks_held(void);
/* Locks taken with interrupts on (each said once); the locking self-test reads it. */
extern unsigned long lock_irqs_on_count;
void release_locks_after_fault(int keep);
#endif
