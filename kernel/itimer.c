// SPDX-License-Identifier: GPL-2.0-only
/*
 * alarm(2) (Linux: kernel/time/itimer.c, its ITIMER_REAL): SIGALRM to the
 * process once a deadline in jiffies has passed. The timer tick looks at
 * the deadlines under tasks_lock, only while some process may have one
 * (alarms_armed, set by alarm() and cleared by the tick that finds none),
 * and sends SIGALRM as the kernel's own kill (SI_KERNEL): a handler
 * catches it, or it ends the process. A sleep it interrupts returns as
 * for any signal (nanosleep -EINTR; wait4 restarted, or EINTR). fork's
 * child starts with no alarm (signals_fork()); execve keeps it, as
 * Linux's do. The deadline lives with the rest of the signal state.
 */
#include <ronx/compiler.h>
#include <ronx/spinlock.h>
#include <ronx/irq.h>
#include <ronx/process.h>
#include <ronx/signal.h>

/* Seconds a deadline in jiffies can be ahead and still compare right. */
#define ALARM_MAX_SECONDS	(0x7fffffffUL / HZ)

static volatile bool alarms_armed;

/* Whole seconds left, rounded as Linux's alarm() rounds: to the nearest, at least 1. */
static unsigned long seconds_left(unsigned long at)
{
	unsigned long j = (long)(at - jiffies) > 0 ? at - jiffies : 0;
	unsigned long secs = j / HZ, rem = j % HZ;

	if ((!secs && rem) || rem >= HZ / 2)
		secs++;
	return secs;
}

long sys_alarm(uint32_t seconds)
{
	struct task_signals *s = task_signals(current);
	unsigned long flags, left = 0;

	if (seconds > ALARM_MAX_SECONDS)
		seconds = ALARM_MAX_SECONDS;
	spin_lock_irqsave(&tasks_lock, flags);
	if (s->alarm_at)
		left = seconds_left(s->alarm_at);
	s->alarm_at = seconds ? (jiffies + seconds * HZ) | 1 : 0;	/* 0 means none */
	if (seconds)
		alarms_armed = true;
	spin_unlock_irqrestore(&tasks_lock, flags);
	return (long)left;
}

/* A process whose signal state is there to read: alive, on its stack. */
static bool alarm_holder(const struct task *t)
{
	return t->mm && (t->state == TASK_RUNNABLE || t->state == TASK_RUNNING ||
			 t->state == TASK_SLEEPING || t->state == TASK_STOPPED);
}

/* The timer tick: SIGALRM to every process whose alarm is due. */
void itimer_tick(void)
{
	unsigned long flags;
	bool armed = false;

	if (!alarms_armed)
		return;
	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < NR_TASKS; i++) {
		struct task *t = &tasks[i];
		struct task_signals *s;

		if (!alarm_holder(t) || !(s = task_signals(t))->alarm_at)
			continue;
		if ((long)(jiffies - s->alarm_at) >= 0) {
			s->alarm_at = 0;
			send_sig_kernel_locked(t, SIGALRM);
		} else {
			armed = true;
		}
	}
	alarms_armed = armed;
	spin_unlock_irqrestore(&tasks_lock, flags);
}
