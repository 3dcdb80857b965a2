// SPDX-License-Identifier: GPL-2.0-only
/*
 * fpusecret: loads st(0)..st(7) (and, with SSE, xmm0..xmm7) with values
 * naming this pid, sets a rounding mode in the x87 control word and in
 * MXCSR, and exits with them in the registers. fpuclean, run next, must
 * see none of them.
 */
#include <ulib.h>
#include <fpregs.h>

#define SECRET_TAG	0x5eLL

int main(void)
{
	int pid = getpid(), sse = cpu_has_sse();
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
	printf("fpusecret: pid %d: st0-7%s hold %016llx..., FCW %04x%s; exiting with them\n",
	       pid, sse ? " and xmm0-7" : "", (unsigned long long)st[0], fp_get_cw(),
	       sse ? ", MXCSR 7f80" : "");
	return 0;
}
