// SPDX-License-Identifier: GPL-2.0-only
/*
 * fpuclean [spin]: a new process's FPU registers are clean. Before
 * anything else it saves them (fxsave, or fnsave without FXSR) and checks
 * them against what fninit and a zeroed register file give: control word
 * 037f, status 0, every register empty and zero, and with SSE MXCSR 1f80
 * and xmm0..xmm7 zero. Any other value, fpusecret's among them, is
 * printed. Exit 0 if clean, 1 if not. With "spin" it then loops, so that
 * the registers can be read from outside (QEMU's info registers) while it
 * runs.
 */
#include <ulib.h>
#include <fpregs.h>

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
	printf("fpuclean: %s%d =", what, i);
	for (int k = n - 1; k >= 0; k--)
		printf("%s%02x", k == 7 ? " " : "", p[k]);
	printf(" (not zero)\n");
	return 1;
}

static int check_fxsave(int sse)
{
	int bad = 0;

	if (fx.cwd != FCW_DEFAULT || fx.swd || fx.twd)
		bad += printf("fpuclean: FCW %04x FSW %04x tags %02x (want 037f 0000 00)\n",
			      fx.cwd, fx.swd, fx.twd) > 0;
	for (int i = 0; i < FP_NREGS; i++)
		if (!all_zero(fx.st[i], 10))
			bad += dirty("st", i, fx.st[i], 10);
	if (sse) {
		if (fx.mxcsr != MXCSR_DEFAULT)
			bad += printf("fpuclean: MXCSR %04x (want 1f80)\n", (unsigned)fx.mxcsr) > 0;
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
		bad += printf("fpuclean: FCW %04x FSW %04x tags %04x (want 037f 0000 ffff)\n",
			      fn.cwd & 0xffff, fn.swd & 0xffff, fn.twd & 0xffff) > 0;
	for (int i = 0; i < FP_NREGS; i++)
		if (!all_zero(fn.st[i], 10))
			bad += dirty("st", i, fn.st[i], 10);
	return bad;
}

int main(int argc, char **argv)
{
	int fxsr = cpu_has_fxsr(), sse = cpu_has_sse(), bad;

	if (fxsr)
		fp_fxsave(&fx);
	else
		fp_fnsave(&fn);
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "spin"))) {
		printf("usage: fpuclean [spin]\n");
		return 2;
	}
	bad = fxsr ? check_fxsave(sse) : check_fnsave();
	printf("fpuclean: pid %d: %s (%s%s)\n", getpid(), bad ? "NOT CLEAN" : "clean",
	       fxsr ? "fxsave" : "fnsave", sse ? ", with SSE" : "");
	if (argc == 2) {
		printf("fpuclean: spinning\n");
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	return bad ? 1 : 0;
}
