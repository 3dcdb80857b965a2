// SPDX-License-Identifier: GPL-2.0-only
/*
 * park: prints its pid, then sleeps until it is killed. A token for a
 * test to hold and kill (cowprobe's wait_gone() steps on when one is
 * gone): unlike spin it leaves the CPU idle, so a test that only needs
 * a process to exist does not keep a host core busy for its whole run.
 */
#include <ulib.h>

int main(void)
{
	struct timespec ts = { 24 * 3600, 0 };

	printf("park: pid %d parked\n", getpid());
	for (;;)
		nanosleep(&ts, NULL);	/* a kill ends the sleep (-EINTR), and the process */
}
