// SPDX-License-Identifier: GPL-2.0-only
/*
 * fpukeep [ROUNDS]: the FPU registers are the process's own. Each round
 * loads st(0)..st(7) with values naming this pid and the round, sets the
 * x87 control word's rounding mode, and, with SSE, xmm0..xmm7 and MXCSR;
 * then gives the CPU away (sched_yield, or a 1 ms nanosleep every other
 * round) and reads everything back. Several at once, or with other
 * programs, on one CPU or several: any value of another process's shows
 * as a mismatch, named by the pid inside it. Exit 0 if every value came
 * back, 1 if not.
 */
#include <ulib.h>
#include <fpregs.h>

#define MARK_TAG	0x7eLL		/* fpukeep's values; fpusecret's are 0x5e... */

static int64_t mark(int pid, unsigned round, int i)
{
	return MARK_TAG << 56 | (int64_t)(pid & 0xffffff) << 24 | (round & 0xffff) << 8 | i;
}

static void give_cpu_away(unsigned round)
{
	struct timespec ts = { 0, 1000000 };

	if (round & 1)
		nanosleep(&ts, NULL);
	else
		sched_yield();
}

static int lost(int pid, unsigned round, const char *what, int i, uint64_t got, uint64_t want)
{
	printf("fpukeep: pid %d round %u: %s%d = %016llx, expected %016llx (pid %u's?)\n",
	       pid, round, what, i, (unsigned long long)got, (unsigned long long)want,
	       (unsigned)(got >> 24) & 0xffffff);
	return 1;
}

/* One round: load, give the CPU away, check; the number of values lost. */
static int one_round(int pid, unsigned round, int sse)
{
	int64_t st[FP_NREGS], back[FP_NREGS];
	uint8_t xmm[FP_NREGS][16], xback[FP_NREGS][16];
	uint16_t cw = FCW_DEFAULT | (round & 3) << 10, cwback;
	uint32_t csr = MXCSR_DEFAULT | (round & 3) << 13, csrback = 0;
	int bad = 0;

	for (int i = 0; i < FP_NREGS; i++) {
		uint64_t m = (uint64_t)mark(pid, round, i);

		st[i] = (int64_t)m;
		memcpy(xmm[i], &m, 8);
		m = ~m;
		memcpy(xmm[i] + 8, &m, 8);
	}
	fp_set_cw(cw);
	fp_load(st);
	if (sse) {
		mxcsr_set(csr);
		xmm_load(xmm);
	}
	give_cpu_away(round);
	if (sse) {
		xmm_store(xback);
		csrback = mxcsr_get();
	}
	cwback = fp_get_cw();
	fp_pop(back);
	fp_set_cw(FCW_DEFAULT);
	for (int i = 0; i < FP_NREGS; i++) {
		if (back[i] != st[i])
			bad += lost(pid, round, "st", FP_NREGS - 1 - i, back[i], st[i]);
		if (sse && memcmp(xback[i], xmm[i], 16)) {
			uint64_t got, want;

			memcpy(&got, xback[i], 8);
			memcpy(&want, xmm[i], 8);
			bad += lost(pid, round, "xmm", i, got, want);
		}
	}
	if (cwback != cw)
		bad += lost(pid, round, "fcw", 0, cwback, cw);
	if (sse && csrback != csr)
		bad += lost(pid, round, "mxcsr", 0, csrback, csr);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned rounds = 100;
	int pid = getpid(), sse = cpu_has_sse(), bad = 0;

	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &rounds))) {
		printf("usage: fpukeep [ROUNDS]\n");
		return 2;
	}
	printf("fpukeep: pid %d: %u rounds of st0-7 and FCW%s\n", pid, rounds,
	       sse ? ", xmm0-7 and MXCSR" : " (no SSE)");
	for (unsigned r = 0; r < rounds; r++)
		bad += one_round(pid, r, sse);
	if (bad) {
		printf("fpukeep: pid %d: %d values lost in %u rounds\n", pid, bad, rounds);
		return 1;
	}
	printf("fpukeep: pid %d: every value kept in %u rounds\n", pid, rounds);
	return 0;
}
