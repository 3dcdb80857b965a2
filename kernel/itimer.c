// SPDX-License-Identifier: GPL-2.0-only
/*
 * ITIMER_REAL: setitimer, getitimer and alarm(2) on one timer per
 * process, as Linux's (kernel/time/itimer.c, alarm is setitimer in whole
 * seconds). SIGALRM goes to the process once a deadline in jiffies has
 * passed, as the kernel's own kill (SI_KERNEL): a handler catches it, or
 * it ends the process. A timer with an interval is armed again by the
 * tick that fires it; expiries the process slept through are dropped, as
 * Linux's hrtimer_forward() drops them (one SIGALRM stays pending
 * anyway). Times are kept in jiffies: a timeval is rounded up to the
 * next tick, so a timer never fires early, and read back in whole ticks.
 *
 * The timer tick looks at the deadlines under tasks_lock, only while
 * some process may have one (timers_armed, set when one is armed and
 * cleared by the tick that finds none). A sleep SIGALRM interrupts
 * returns as for any signal (nanosleep -EINTR; wait4 restarted, or
 * EINTR). fork's child starts with no timer (signals_fork()); execve
 * keeps it, as Linux's do. The deadline lives with the rest of the
 * signal state.
 *
 * ITIMER_VIRTUAL and ITIMER_PROF count the process's own CPU time, in
 * ticks, as Linux's tick-based accounting does: a tick that finds the
 * process in ring 3 takes one from both, a tick that finds it in a
 * system call one from ITIMER_PROF only (itimer_cpu_tick(), from the
 * tick of the CPU it runs on). At zero the timer sends SIGVTALRM or
 * SIGPROF and starts again from its interval.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/irq.h>
#include <ronx/uaccess.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/itimer.h>

#define USEC_PER_SEC	1000000
#define USEC_PER_JIFFY	(USEC_PER_SEC / HZ)
/* Seconds a deadline in jiffies can be ahead and still compare right: longer ones are cut to it. */
#define ITIMER_MAX_SECONDS	(0x7fffffffUL / HZ - 1)

static volatile bool timers_armed;

/* Linux's timeval_valid(): what setitimer accepts. */
static bool timeval_valid(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < USEC_PER_SEC;
}

/* A valid timeval in jiffies, rounded up: a timer never fires before its time. */
static unsigned long timeval_to_jiffies(const struct timeval *tv)
{
	if ((unsigned long)tv->tv_sec >= ITIMER_MAX_SECONDS)
		return ITIMER_MAX_SECONDS * HZ;
	return (unsigned long)tv->tv_sec * HZ +
	       ((unsigned long)tv->tv_usec + USEC_PER_JIFFY - 1) / USEC_PER_JIFFY;
}

static struct timeval jiffies_to_timeval(unsigned long j)
{
	return (struct timeval){ (int32_t)(j / HZ), (int32_t)(j % HZ * USEC_PER_JIFFY) };
}

/* A deadline ticks from now; 0 means none, so a deadline that wraps to 0 is a tick later. */
static unsigned long deadline_in(unsigned long ticks)
{
	unsigned long at = jiffies + ticks;

	return at ? at : 1;
}

/*
 * ITIMER_REAL as getitimer reads it (Linux's do_getitimer()): what is
 * left, at least 1 us while it is armed (a tick may be on its way to
 * fire it), and the interval. tasks_lock held.
 */
static struct itimerval real_timer_get(const struct task_signals *s)
{
	struct itimerval v = { jiffies_to_timeval(s->it_real_incr), { 0, 0 } };

	if (s->it_real_at) {
		long left = (long)(s->it_real_at - jiffies);

		v.it_value = left > 0 ? jiffies_to_timeval((unsigned long)left) :
					(struct timeval){ 0, 1 };
	}
	return v;
}

/* Arms ITIMER_REAL value ticks from now, then every incr (0: once); value 0 disarms. tasks_lock held. */
static void real_timer_set(struct task_signals *s, unsigned long value, unsigned long incr)
{
	s->it_real_at = value ? deadline_in(value) : 0;
	s->it_real_incr = value ? incr : 0;
	if (value)
		timers_armed = true;
}

/* ITIMER_VIRTUAL or ITIMER_PROF: its ticks left (none: 0) and interval as a timeval. */
static struct itimerval cpu_timer_get(const struct cpu_itimer *c)
{
	return (struct itimerval){ jiffies_to_timeval(c->incr), jiffies_to_timeval(c->left) };
}

static void cpu_timer_set(struct cpu_itimer *c, unsigned long value, unsigned long incr)
{
	c->left = value;
	c->incr = value ? incr : 0;
}

/* The process's CPU-time timer which is (ITIMER_VIRTUAL or ITIMER_PROF), or NULL. */
static struct cpu_itimer *cpu_timer(struct task_signals *s, uint32_t which)
{
	return which == ITIMER_VIRTUAL ? &s->it_virt : which == ITIMER_PROF ? &s->it_prof : 0;
}

long sys_setitimer(uint32_t which, uint32_t uvalue, uint32_t uovalue)
{
	struct task_signals *s = task_signals(current);
	struct itimerval new = { { 0, 0 }, { 0, 0 } }, old;
	struct cpu_itimer *c = cpu_timer(s, which);
	unsigned long flags, value, incr;

	/* Linux's order: the new value is read and checked first; NULL disarms */
	if (uvalue && copy_from_user(&new, (const void __user *)uvalue, sizeof(new)))
		return -EFAULT;
	if (!timeval_valid(&new.it_value) || !timeval_valid(&new.it_interval))
		return -EINVAL;
	if (which != ITIMER_REAL && !c)
		return -EINVAL;
	value = timeval_to_jiffies(&new.it_value);
	incr = timeval_to_jiffies(&new.it_interval);
	spin_lock_irqsave(&tasks_lock, flags);
	if (c) {
		old = cpu_timer_get(c);
		cpu_timer_set(c, value, incr);
	} else {
		old = real_timer_get(s);
		real_timer_set(s, value, incr);
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	/* as Linux: the timer is set even if the old value cannot be written */
	if (uovalue && copy_to_user((void __user *)uovalue, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_getitimer(uint32_t which, uint32_t uvalue)
{
	struct task_signals *s = task_signals(current);
	struct cpu_itimer *c = cpu_timer(s, which);
	struct itimerval v;
	unsigned long flags;

	if (which != ITIMER_REAL && !c)
		return -EINVAL;
	spin_lock_irqsave(&tasks_lock, flags);
	v = c ? cpu_timer_get(c) : real_timer_get(s);
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (copy_to_user((void __user *)uvalue, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

/*
 * alarm(seconds) is setitimer(ITIMER_REAL) with no interval (Linux's
 * alarm_setitimer()): it returns what was left of the timer before, in
 * whole seconds rounded to the nearest, at least 1 while it was armed.
 */
long sys_alarm(uint32_t seconds)
{
	struct task_signals *s = task_signals(current);
	struct timeval left;
	unsigned long flags;

	if (seconds > ITIMER_MAX_SECONDS)
		seconds = ITIMER_MAX_SECONDS;
	spin_lock_irqsave(&tasks_lock, flags);
	left = real_timer_get(s).it_value;
	real_timer_set(s, seconds * HZ, 0);
	spin_unlock_irqrestore(&tasks_lock, flags);
	if ((!left.tv_sec && left.tv_usec) || left.tv_usec >= USEC_PER_SEC / 2)
		left.tv_sec++;
	return left.tv_sec;
}

/* A process whose signal state is there to read: alive, on its stack. */
static bool timer_holder(const struct task *t)
{
	return t->mm && (t->state == TASK_RUNNABLE || t->state == TASK_RUNNING ||
			 t->state == TASK_SLEEPING || t->state == TASK_STOPPED);
}

/* t's ITIMER_REAL has fired: SIGALRM, and the next deadline if it has an interval. */
static void real_timer_fire(struct task *t, struct task_signals *s)
{
	send_sig_kernel_locked(t, SIGALRM);
	if (!s->it_real_incr) {
		s->it_real_at = 0;
		return;
	}
	s->it_real_at += s->it_real_incr;
	if ((long)(jiffies - s->it_real_at) >= 0)	/* slept through some: from now on */
		s->it_real_at = deadline_in(s->it_real_incr);
	s->it_real_at = s->it_real_at ? s->it_real_at : 1;
}

/* The timer tick: SIGALRM to every process whose timer is due. */
void itimer_tick(void)
{
	unsigned long flags;
	bool armed = false;

	if (!timers_armed)
		return;
	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];
		struct task_signals *s;

		if (!timer_holder(t) || !(s = task_signals(t))->it_real_at)
			continue;
		if ((long)(jiffies - s->it_real_at) >= 0)
			real_timer_fire(t, s);
		armed |= s->it_real_at != 0;
	}
	timers_armed = armed;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* One tick of c: at zero, sig to t and the interval again. tasks_lock held. */
static void cpu_timer_tick(struct task *t, struct cpu_itimer *c, int sig)
{
	if (!c->left || --c->left)
		return;
	send_sig_kernel_locked(t, sig);
	c->left = c->incr;
}

/*
 * A tick of the CPU that runs process t (update_process_times()): user
 * is true if it found t in ring 3. Its own timers only, so the only
 * writer of them besides setitimer, which holds tasks_lock with this
 * CPU's interrupts off.
 */
void itimer_cpu_tick(struct task *t, bool user)
{
	struct task_signals *s = task_signals(t);
	unsigned long flags;

	if (!s->it_prof.left && !s->it_virt.left)
		return;
	spin_lock_irqsave(&tasks_lock, flags);
	if (user)
		cpu_timer_tick(t, &s->it_virt, SIGVTALRM);
	cpu_timer_tick(t, &s->it_prof, SIGPROF);
	spin_unlock_irqrestore(&tasks_lock, flags);
}
