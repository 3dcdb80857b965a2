/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spinlocks with Linux's names. The kernel runs with interrupts off except
 * while it waits (docs/design.md), so on one CPU a lock only has to keep
 * interrupt handlers out: the irqsave variants save IF and clear it. With
 * CONFIG_SMP the lock word is taken for real (xchg); without, it is left
 * alone, so that a fault recovered while a lock is held cannot wedge a
 * uniprocessor kernel.
 */
#ifndef RONX_SPINLOCK_H
#define RONX_SPINLOCK_H
#include <stdint.h>
#include <ronx/segment.h>

#ifndef CONFIG_SMP
#define CONFIG_SMP 0
#endif

typedef struct {
	volatile uint32_t locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED	{ 0 }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED

static inline unsigned long arch_local_save_flags(void)
{
	unsigned long flags;

	__asm__ volatile("pushfl; popl %0" : "=r"(flags) : : "memory");
	return flags;
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

static inline void spin_lock(spinlock_t *l)
{
	if (!CONFIG_SMP)
		return;
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			__asm__ volatile("pause");
}

static inline void spin_unlock(spinlock_t *l)
{
	if (CONFIG_SMP)
		__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock_irqsave(l, flags)	do { local_irq_save(flags); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { spin_unlock(l); local_irq_restore(flags); } while (0)
#endif
