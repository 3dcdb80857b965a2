// SPDX-License-Identifier: GPL-2.0-only
/*
 * fpu keep [ROUNDS] | secret | clean [spin | signal]: the FPU registers
 * are the process's own (one program, three runs, so that the initrd of
 * the smallest machine holds one file, not three).
 *
 * keep: each round loads st(0)..st(7) with values naming this pid and the
 * round, sets the x87 control word's rounding mode, and, with SSE,
 * xmm0..xmm7 and MXCSR; then gives the CPU away (sched_yield, or a 1 ms
 * nanosleep every other round) and reads everything back. Several at
 * once, or with other programs, on one CPU or several: any value of
 * another process's shows as a mismatch, named by the pid inside it.
 *
 * secret: loads st(0)..st(7) (and xmm0..xmm7) with values naming its pid,
 * sets a rounding mode in the x87 control word and in MXCSR, and exits
 * with them in the registers. "fpu clean", run next, must see none.
 *
 * clean: a new process's FPU registers are clean. Before anything else
 * (main saves them before it looks at its arguments) it checks them
 * against what fninit and a zeroed register file give: control word 037f,
 * status 0, every register empty and zero, and with SSE MXCSR 1f80 and
 * xmm0..xmm7 zero. Any other value, the secret's among them, is printed.
 * With "spin" it then loops, so that the registers can be read from
 * outside (QEMU's info registers) while it runs. With "signal" it
 * loads the secret's values, sends itself SIGUSR1, and checks the
 * registers its handler starts with instead: the same clean state
 * (Linux's restore_fpregs_from_init_fpstate()), no value of the
 * interrupted code's in them.
 *
 * Exit 0 if every value came back or the registers were clean, 1 if not.
 */
#include <ulib.h>
#include <fpregs.h>

/* ---- keep ---- */
#define MARK_TAG	0x7eLL		/* keep's values; secret's are 0x5e... */

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
	printf("fpu keep: pid %d round %u: %s%d = %016llx, expected %016llx (pid %u's?)\n",
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

static int keep_main(int argc, char **argv)
{
	unsigned rounds = 100;
	int pid = getpid(), sse = cpu_has_sse(), bad = 0;

	if (argc > 2 || (argc == 2 && parse_uint(argv[1], &rounds))) {
		printf("usage: fpu keep [ROUNDS]\n");
		return 2;
	}
	printf("fpu keep: pid %d: %u rounds of st0-7 and FCW%s\n", pid, rounds,
	       sse ? ", xmm0-7 and MXCSR" : " (no SSE)");
	for (unsigned r = 0; r < rounds; r++)
		bad += one_round(pid, r, sse);
	if (bad) {
		printf("fpu keep: pid %d: %d values lost in %u rounds\n", pid, bad, rounds);
		return 1;
	}
	printf("fpu keep: pid %d: every value kept in %u rounds\n", pid, rounds);
	return 0;
}

/* ---- secret ---- */
#define SECRET_TAG	0x5eLL

/* The secret's values in the registers: st0-7 (xmm0-7) naming pid, the rounding modes set. */
static void load_secret(int pid, int sse)
{
	int64_t st[FP_NREGS];
	uint8_t xmm[FP_NREGS][16];

	for (int i = 0; i < FP_NREGS; i++) {
		uint64_t m = (uint64_t)(SECRET_TAG << 56 | (int64_t)(pid & 0xffffff) << 24 | 0xc0de00 | i);

		st[i] = (int64_t)m;
		memcpy(xmm[i], &m, 8);
		memcpy(xmm[i] + 8, &m, 8);
	}
	fp_set_cw(FCW_DEFAULT | 3 << 10);	/* round toward zero */
	fp_load(st);
	if (sse) {
		mxcsr_set(MXCSR_DEFAULT | 3 << 13);
		xmm_load(xmm);
	}
}

static int secret_main(void)
{
	int pid = getpid(), sse = cpu_has_sse();

	load_secret(pid, sse);
	printf("fpu secret: pid %d: st0-7%s hold %016llx..., FCW %04x%s; exiting with them\n",
	       pid, sse ? " and xmm0-7" : "",
	       (unsigned long long)(SECRET_TAG << 56 | (int64_t)(pid & 0xffffff) << 24 | 0xc0de00), fp_get_cw(),
	       sse ? ", MXCSR 7f80" : "");
	return 0;
}

/* ---- clean ---- */
static struct fxregs fx;
static struct fregs fn;

static int all_zero(const uint8_t *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static int dirty(const char *what, int i, const uint8_t *p, int n)
{
	printf("fpu clean: %s%d =", what, i);
	for (int k = n - 1; k >= 0; k--)
		printf("%s%02x", k == 7 ? " " : "", p[k]);
	printf(" (not zero)\n");
	return 1;
}

static int check_fxsave(int sse)
{
	int bad = 0;

	if (fx.cwd != FCW_DEFAULT || fx.swd || fx.twd)
		bad += printf("fpu clean: FCW %04x FSW %04x tags %02x (want 037f 0000 00)\n",
			      fx.cwd, fx.swd, fx.twd) > 0;
	for (int i = 0; i < FP_NREGS; i++)
		if (!all_zero(fx.st[i], 10))
			bad += dirty("st", i, fx.st[i], 10);
	if (sse) {
		if (fx.mxcsr != MXCSR_DEFAULT)
			bad += printf("fpu clean: MXCSR %04x (want 1f80)\n", (unsigned)fx.mxcsr) > 0;
		for (int i = 0; i < FP_NREGS; i++)
			if (!all_zero(fx.xmm[i], 16))
				bad += dirty("xmm", i, fx.xmm[i], 16);
	}
	return bad;
}

static int check_fnsave(void)
{
	int bad = 0;

	if ((fn.cwd & 0xffff) != FCW_DEFAULT || (fn.swd & 0xffff) || (fn.twd & 0xffff) != 0xffff)
		bad += printf("fpu clean: FCW %04x FSW %04x tags %04x (want 037f 0000 ffff)\n",
			      fn.cwd & 0xffff, fn.swd & 0xffff, fn.twd & 0xffff) > 0;
	for (int i = 0; i < FP_NREGS; i++)
		if (!all_zero(fn.st[i], 10))
			bad += dirty("st", i, fn.st[i], 10);
	return bad;
}

/* The registers a handler starts with, saved first thing, as main saves a new process's. */
static void on_usr1(int sig, struct siginfo *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	if (cpu_has_fxsr())
		fp_fxsave(&fx);
	else
		fp_fnsave(&fn);
}

static int clean_main(int argc, char **argv)
{
	int fxsr = cpu_has_fxsr(), sse = cpu_has_sse(), bad;
	bool signal = argc == 2 && !strcmp(argv[1], "signal");

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "spin") && !signal)) {
		printf("usage: fpu clean [spin | signal]\n");
		return 2;
	}
	if (signal) {
		memset(&fx, 0xff, sizeof(fx));
		memset(&fn, 0xff, sizeof(fn));
		if (sigaction_handler(SIGUSR1, on_usr1, 0))
			return 1;
		load_secret(getpid(), sse);
		kill(getpid(), SIGUSR1);
	}
	bad = fxsr ? check_fxsave(sse) : check_fnsave();
	printf("fpu clean: pid %d: %s (%s%s%s)\n", getpid(), bad ? "NOT CLEAN" : "clean",
	       fxsr ? "fxsave" : "fnsave", sse ? ", with SSE" : "", signal ? ", in a handler" : "");
	if (argc == 2 && !signal) {
		printf("fpu clean: spinning\n");
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	/* first thing: the registers as the kernel gave them, for clean */
	if (cpu_has_fxsr())
		fp_fxsave(&fx);
	else
		fp_fnsave(&fn);
	if (argc >= 2 && !strcmp(argv[1], "keep"))
		return keep_main(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "secret"))
		return secret_main();
	if (argc >= 2 && !strcmp(argv[1], "clean"))
		return clean_main(argc - 1, argv + 1);
	printf("usage: fpu keep [ROUNDS] | secret | clean [spin | signal]\n");
	return 2;
}
