/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interval timers (kernel/itimer.c), Linux's i386 ABI: setitimer and
 * getitimer take struct itimerval (include/uapi/linux/time.h, its
 * __kernel_old_itimerval): the interval first, then the value, each a
 * 32-bit timeval.
 */
#ifndef RONX_ITIMER_H
#define RONX_ITIMER_H
#include <stdbool.h>
#include <stdint.h>

#define ITIMER_REAL	0
#define ITIMER_VIRTUAL	1
#define ITIMER_PROF	2

struct timeval {
	int32_t tv_sec;
	int32_t tv_usec;
};

struct itimerval {
	struct timeval it_interval;	/* re-armed with this once it fires; 0: once */
	struct timeval it_value;	/* left until it fires; 0: disarmed */
};
_Static_assert(sizeof(struct itimerval) == 16, "Linux's struct itimerval (i386)");

long sys_alarm(uint32_t seconds);
long sys_setitimer(uint32_t which, uint32_t uvalue, uint32_t uovalue);
long sys_getitimer(uint32_t which, uint32_t uvalue);
void itimer_tick(void);					/* the timer tick: timers due */
struct task;
void itimer_cpu_tick(struct task *t, bool user);	/* a tick of t's CPU time */
#endif
