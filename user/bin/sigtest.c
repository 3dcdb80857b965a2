// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigtest: signal handlers on Linux's i386 ABI, the same binary on ronx
 * and on Linux (issue 30). Each case prints "ok N - what" or "not ok N -
 * what" (TAP), then a last line "sigtest: N passed, M failed".
 *
 *   kill to a handler: si_signo, si_code SI_USER, si_pid the sender
 *   tgkill: si_code SI_TKILL
 *   a blocked signal waits, and arrives when unblocked
 *   SIGSEGV to a handler: SEGV_ACCERR/SEGV_MAPERR, si_addr the fault address,
 *     the handler repairs the page and the access is retried
 *   the FPU: a handler using the x87 does not disturb the interrupted code
 *   fork: the child keeps the handler; a pending signal stays the parent's
 *   forged frames (SROP): ring-0 cs or ss, kernel ds, IOPL 3 + VM + NT:
 *     the process never gets more than ring 3 (killed by SIGSEGV, or goes
 *     on with IOPL 0, where cli faults)
 */
#include <ulib.h>

static int passed, failed, nr;
static volatile int hits, last_sig, last_code, last_pid;
static volatile uint32_t last_addr;

static void report(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++nr, what);
	if (ok)
		passed++;
	else
		failed++;
}

static void on_signal(int sig, struct siginfo *si, void *uc)
{
	(void)uc;
	hits++;
	last_sig = sig;
	last_code = si->si_code;
	last_pid = si->kill.pid;
}

static void test_kill(void)
{
	sigaction_handler(SIGUSR1, on_signal, 0);
	hits = 0;
	kill(getpid(), SIGUSR1);
	report(hits == 1 && last_sig == SIGUSR1 && last_code == SI_USER && last_pid == getpid(),
	       "kill(getpid(), SIGUSR1) runs the handler: si_signo, SI_USER, si_pid");
	hits = 0;
	tgkill(getpid(), gettid(), SIGUSR1);
	report(hits == 1 && last_code == SI_TKILL, "tgkill to the handler: si_code SI_TKILL");
}

static void test_mask(void)
{
	sigset_t set = sigmask(SIGUSR1), old = 0;

	hits = 0;
	sigprocmask(SIG_BLOCK, &set, 0);
	kill(getpid(), SIGUSR1);
	int blocked_hits = hits;
	sigprocmask(SIG_UNBLOCK, &set, &old);
	report(blocked_hits == 0 && hits == 1 && (old & sigmask(SIGUSR1)),
	       "a blocked SIGUSR1 waits, and runs the handler once unblocked");
}

static char *volatile page;	/* the handler reads it: stored before the fault */

static void on_segv(int sig, struct siginfo *si, void *uc)
{
	(void)uc;
	hits++;
	last_sig = sig;
	last_code = si->si_code;
	last_addr = si->fault.addr;
	if (si->si_code == SEGV_ACCERR)
		mprotect(page, PAGE_SIZE, PROT_READ | PROT_WRITE);
	else
		mmap(page, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static void test_segv(void)
{
	sigaction_handler(SIGSEGV, on_segv, 0);
	page = mmap(0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hits = 0;
	((volatile char *)page)[100] = 7;
	report(hits == 1 && last_sig == SIGSEGV && last_code == SEGV_ACCERR &&
	       last_addr == (uint32_t)page + 100 && page[100] == 7,
	       "a write to a read-only page: SIGSEGV, SEGV_ACCERR, si_addr; mprotect in the handler, the write retried");
	munmap(page, PAGE_SIZE);
	hits = 0;
	((volatile char *)page)[8] = 9;
	report(hits == 1 && last_code == SEGV_MAPERR && last_addr == (uint32_t)page + 8 && page[8] == 9,
	       "a write to an unmapped page: SEGV_MAPERR, si_addr; mmap in the handler, the write retried");
	munmap(page, PAGE_SIZE);
	struct k_sigaction dfl = { 0 };
	sigaction_k(SIGSEGV, &dfl, 0);
}

static void on_signal_fpu(int sig, struct siginfo *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	/* fills the x87 stack with pi: without the save in the frame, main's 1.0 is lost */
	__asm__ volatile("fldpi; fldpi; fldpi; fldpi; fldpi; fldpi; fldpi; fldpi");
	hits++;
}

static void test_fpu(void)
{
	uint32_t bits[2] = { 0, 0 };

	sigaction_handler(SIGUSR1, on_signal_fpu, 0);
	hits = 0;
	__asm__ volatile("fninit; fld1");
	kill(getpid(), SIGUSR1);
	__asm__ volatile("fstpl %0" : "=m"(bits));
	report(hits == 1 && bits[1] == 0x3ff00000 && bits[0] == 0,
	       "x87 state across a handler that uses the x87: st(0) is still 1.0");
	sigaction_handler(SIGUSR1, on_signal, 0);
}

static void test_fork(void)
{
	sigset_t set = sigmask(SIGUSR1);
	int status = -1, pid;

	sigprocmask(SIG_BLOCK, &set, 0);
	hits = 0;
	kill(getpid(), SIGUSR1);		/* pending, in the parent */
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &set, 0);	/* nothing pending here */
		int none = hits == 0;
		kill(getpid(), SIGUSR1);		/* the inherited handler */
		_exit(none && hits == 1 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	sigprocmask(SIG_UNBLOCK, &set, 0);
	report(WIFEXITED(status) && WEXITSTATUS(status) == 0 && hits == 1,
	       "fork: the child has the handler and mask, not the parent's pending signal");
}

/* The forged frames: what the handler writes into its own sigcontext. */
enum forge { FORGE_CS, FORGE_SS, FORGE_DS, FORGE_EFLAGS };
static volatile enum forge forge;

/* Where the IOPL frame sends the process: with IOPL 0, VM 0, cli must fault (#GP, SIGSEGV). */
static void __attribute__((noreturn)) landing(void)
{
	uint32_t fl;

	__asm__ volatile("pushf; pop %0" : "=r"(fl));
	if (fl & (0x3000u | 0x20000u | 0x4000u))
		_exit(2);			/* IOPL, VM or NT reached ring 3 */
	__asm__ volatile("cli");
	_exit(3);				/* cli ran: IOPL was raised */
}

static void on_forge(int sig, struct siginfo *si, void *uc)
{
	struct sigcontext *sc = &((struct ucontext *)uc)->uc_mcontext;

	(void)sig; (void)si;
	switch (forge) {
	case FORGE_CS: sc->cs = 0x08; break;		/* the kernel's code segment */
	case FORGE_SS: sc->ss = 0x10; break;		/* the kernel's data segment */
	case FORGE_DS: sc->ds = 0x10; break;
	case FORGE_EFLAGS:
		sc->flags |= 0x3000u | 0x20000u | 0x4000u;	/* IOPL 3, VM, NT */
		sc->ip = (uint32_t)landing;
		break;
	}
}

/* ok: killed by SIGSEGV (the frame refused or the return faulted), never a privileged exit */
static int run_forged(enum forge f)
{
	int status = -1, pid = fork();

	if (pid == 0) {
		forge = f;
		sigaction_handler(SIGUSR2, on_forge, 0);
		kill(getpid(), SIGUSR2);
		_exit(f == FORGE_EFLAGS ? 4 : 5);	/* the forged return came back here */
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static void test_forged(void)
{
	report(run_forged(FORGE_CS), "forged frame, cs = 0x08 (ring 0): killed by SIGSEGV, never ring 0");
	report(run_forged(FORGE_SS), "forged frame, ss = 0x10 (ring 0): killed by SIGSEGV");
	report(run_forged(FORGE_DS), "forged frame, ds = 0x10 (the kernel's): killed by SIGSEGV");
	report(run_forged(FORGE_EFLAGS),
	       "forged frame, EFLAGS IOPL=3 VM NT: still IOPL 0 in ring 3, cli faults (SIGSEGV)");
}

int main(void)
{
	printf("TAP version 13\n1..11\n");
	test_kill();
	test_mask();
	test_segv();
	test_fpu();
	test_fork();
	test_forged();
	printf("sigtest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
