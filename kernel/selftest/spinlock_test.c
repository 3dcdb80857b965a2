// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the rule that keeps the lock order true now that system
 * calls run with interrupts on (docs/design.md, "Locks"): every spinlock
 * is held with interrupts off, and one taken with them on is reported
 * (once per lock, with who took it) instead of waiting for the rare
 * interrupt that would spin on it forever.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/ktest.h>

static DEFINE_SPINLOCK(kt_irqs_on_lock);
static DEFINE_SPINLOCK(kt_irqsave_lock);

KTEST(locking, spin_lock_with_irqs_on_is_reported)
{
	unsigned long before = lock_irqs_on_count, flags;

	local_irq_save(flags);
	local_irq_enable();
	spin_lock(&kt_irqs_on_lock);	/* the bug on purpose: the line it prints is expected */
	KT_EXPECT(t, !irqs_disabled(), "spin_lock() changed the caller's interrupt flag");
	spin_unlock(&kt_irqs_on_lock);
	local_irq_restore(flags);
	KT_EXPECT(t, lock_irqs_on_count == before + 1, "counted %lu, want %lu",
		  lock_irqs_on_count, before + 1);
	KT_EXPECT(t, kt_irqs_on_lock.warned, "no line named the lock");
	KT_EXPECT(t, kt_irqs_on_lock.owner == -1 && !kt_irqs_on_lock.locked, "left held");
}

KTEST(locking, irqsave_with_irqs_on_is_silent)
{
	unsigned long before = lock_irqs_on_count, flags, outer;

	local_irq_save(outer);
	local_irq_enable();
	spin_lock_irqsave(&kt_irqsave_lock, flags);
	KT_EXPECT(t, irqs_disabled(), "interrupts on inside spin_lock_irqsave()");
	spin_unlock_irqrestore(&kt_irqsave_lock, flags);
	KT_EXPECT(t, !irqs_disabled(), "spin_unlock_irqrestore() left interrupts off");
	local_irq_restore(outer);
	KT_EXPECT(t, lock_irqs_on_count == before, "an irqsave lock was counted");
	KT_EXPECT(t, !kt_irqsave_lock.warned, "an irqsave lock was reported");
}
