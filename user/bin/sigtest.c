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
 *   the FPU: a handler using the x87 does not disturb the interrupted code;
 *     an MXCSR with a bit the CPU reserves, written into the frame by the
 *     handler: the return clears that bit, keeps the rest, and does not
 *     oops (fxrstor would fault on it in the kernel)
 *   fork: the child keeps the handler; a pending signal stays the parent's
 *   forged frames (SROP): ring-0 cs or ss, kernel ds, IOPL 3 + VM + NT:
 *     the process never gets more than ring 3 (killed by SIGSEGV, or goes
 *     on with IOPL 0, where cli faults)
 *   the alternate stack (sigaltstack, SA_ONSTACK): its errors, a handler
 *     on it, a stack overflow caught there (and fatal without it), and
 *     nested handlers that would run off its bottom: SIGSEGV instead
 *   a handler without SA_SIGINFO: Linux's old frame (sig, the sigcontext,
 *     extramask), and sigreturn restores registers, mask and x87 state;
 *     the same forged frames through sigreturn are refused alike
 *   SA_RESTART: a waitpid a handled signal interrupts is called again;
 *     without SA_RESTART it fails with EINTR
 *   alarm: SIGALRM to the handler ends a longer nanosleep (EINTR), and
 *     alarm() says what was left of the one before; without a handler
 *     SIGALRM ends the process; fork's child has no alarm
 *   setitimer/getitimer (ITIMER_REAL): a periodic timer fires again and
 *     again, getitimer reads what is left, alarm() shares the timer, and
 *     Linux's EINVAL and EFAULT
 *   ITIMER_VIRTUAL: SIGVTALRM from ring 3 time only (a sleep costs it
 *     nothing); ITIMER_PROF: SIGPROF from ring 3 and system call time
 *   rt_sigaction's EINVAL and EFAULT, and what each leaves set
 */
#include <ulib.h>
#include <fpregs.h>

#define CASES 36

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

/* The fxsave image's MXCSR in the frame: after the 112-byte fnsave view, at byte 24. */
static void on_signal_mxcsr(int sig, struct siginfo *si, void *uc)
{
	uint32_t *mxcsr = (uint32_t *)(((struct ucontext *)uc)->uc_mcontext.fpstate + 112 + 24);

	(void)sig; (void)si;
	*mxcsr = MXCSR_DEFAULT | 1u << 13 | 1u << 31;	/* round down, and a reserved bit */
	hits++;
}

static void test_fpu_mxcsr(void)
{
	uint32_t back;

	if (!cpu_has_sse()) {
		report(1, "no SSE here (the fsave lane): no MXCSR to forge");
		return;
	}
	sigaction_handler(SIGUSR1, on_signal_mxcsr, 0);
	hits = 0;
	mxcsr_set(MXCSR_DEFAULT);
	kill(getpid(), SIGUSR1);
	back = mxcsr_get();
	mxcsr_set(MXCSR_DEFAULT);
	printf("# MXCSR after the return: %x\n", back);
	report(hits == 1 && back == (MXCSR_DEFAULT | 1u << 13),
	       "a frame's MXCSR with a reserved bit: sigreturn clears it and keeps the rest");
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

static void forge_sigcontext(struct sigcontext *sc)
{
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

static void on_forge(int sig, struct siginfo *si, void *uc)
{
	(void)sig; (void)si;
	forge_sigcontext(&((struct ucontext *)uc)->uc_mcontext);
}

/*
 * The old frame as its handler finds it: above its own return address
 * (frame pointers are on). The empty asm hides where the pointer came
 * from: gcc would drop stores it sees going to a frame about to return.
 */
static struct sigframe *old_frame(void *fp)
{
	__asm__("" : "+r"(fp));
	return (struct sigframe *)((uint32_t *)fp + 1);
}

static void __attribute__((noinline)) on_forge_old(int sig)
{
	(void)sig;
	forge_sigcontext(&old_frame(__builtin_frame_address(0))->sc);
}

/* the data selector the process holds now */
static uint32_t ds_now(void)
{
	uint32_t v;

	__asm__ volatile("movl %%ds, %0" : "=r"(v));
	return v & 0xffff;
}

/*
 * ok: the forged value never took effect. ronx refuses the frame in
 * sigreturn (SIGSEGV, "bad frame"); Linux takes the selectors with RPL 3
 * and lets the return fault on them: an iret on a bad cs or ss is
 * SIGILL there, and a ds it cannot load is replaced, so the process goes
 * on with a ds it may hold. Never with the forged one, never a
 * privileged exit.
 */
static int run_forged(enum forge f, int old)
{
	int status = -1, pid = fork();

	if (pid == 0) {
		forge = f;
		if (old)
			sigaction_old(SIGUSR2, on_forge_old, 0);	/* the frame sigreturn reads */
		else
			sigaction_handler(SIGUSR2, on_forge, 0);
		kill(getpid(), SIGUSR2);
		/* the forged return came back here */
		_exit(f == FORGE_EFLAGS ? 4 : (ds_now() & ~3u) == 0x10 ? 2 : 5);
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGSEGV ||
		       (WTERMSIG(status) == SIGILL && (f == FORGE_CS || f == FORGE_SS));
	return f == FORGE_DS && WIFEXITED(status) && WEXITSTATUS(status) == 5;
}

static void test_forged(void)
{
	report(run_forged(FORGE_CS, 0),
	       "forged frame, cs = 0x08 (ring 0): killed by SIGSEGV (Linux: SIGILL at its iret), never ring 0");
	report(run_forged(FORGE_SS, 0), "forged frame, ss = 0x10 (ring 0): killed by SIGSEGV (Linux: SIGILL)");
	report(run_forged(FORGE_DS, 0),
	       "forged frame, ds = 0x10 (the kernel's): killed by SIGSEGV (Linux: goes on without it)");
	report(run_forged(FORGE_EFLAGS, 0),
	       "forged frame, EFLAGS IOPL=3 VM NT: still IOPL 0 in ring 3, cli faults (SIGSEGV)");
}

/*
 * A handler without SA_SIGINFO: Linux's old frame. It reads the frame
 * from its own stack: pretcode (its return address), sig, the
 * sigcontext of kill's int 0x80 (ebx the pid, ecx the signal, eax 0,
 * eip just past int 0x80), the mask split in oldmask and extramask.
 * Then it rewrites edx, eip's neighbours untouched, and both mask words,
 * and fills the x87 stack: sigreturn must take all of it from the frame.
 */
static volatile uint32_t old_ret, old_bx, old_cx, old_ax, old_cs, old_ss, old_mask[2];
static volatile uint32_t old_ip_ok, old_fp_ok, old_blocked_own;
static volatile int old_sig;

static void __attribute__((noinline)) on_old(int sig)
{
	void *fp = __builtin_frame_address(0);
	struct sigframe *fr = old_frame(fp);
	const uint8_t *ip = (const uint8_t *)fr->sc.ip;
	sigset_t now = 0;

	hits++;
	old_sig = sig;
	old_ret = ((uint32_t *)fp)[1];
	old_bx = fr->sc.bx;
	old_cx = fr->sc.cx;
	old_ax = fr->sc.ax;
	old_cs = fr->sc.cs;
	old_ss = fr->sc.ss;
	old_mask[0] = fr->sc.oldmask;
	old_mask[1] = fr->extramask[0];
	old_ip_ok = ip[-2] == 0xcd && ip[-1] == 0x80;
	/* above the frame, as both kernels place it (Linux aligns its fxsave part, not fpstate) */
	old_fp_ok = fr->sc.fpstate >= (uint32_t)(fr + 1) && fr->sc.fpstate - (uint32_t)fr < 4096;
	sigprocmask(SIG_BLOCK, 0, &now);
	old_blocked_own = (now & sigmask(sig)) != 0;
	fr->sc.dx = 0xfeedf00d;
	fr->sc.oldmask |= sigmask(SIGTERM);
	fr->extramask[0] |= 1u << (41 - 33);
	__asm__ volatile("fldpi; fldpi; fldpi; fldpi; fldpi; fldpi; fldpi; fldpi");
}

/* kill(getpid(), sig) by hand, for the registers around it: eax, ecx, edx after */
static void kill_regs(int sig, uint32_t *ax, uint32_t *cx, uint32_t *dx)
{
	uint32_t a = __NR_kill, c = (uint32_t)sig, d = 0x11223344;

	__asm__ volatile("push %%ebx\n\tmov %3, %%ebx\n\tint $0x80\n\tpop %%ebx"
			 : "+a"(a), "+c"(c), "+d"(d) : "r"((uint32_t)getpid()) : "memory");
	*ax = a;
	*cx = c;
	*dx = d;
}

static void test_old_frame(void)
{
	sigset_t set = sigmask(SIGUSR2) | sigmask(40), after = 0;
	uint32_t ax, cx, dx, bits[2] = { 0, 0 }, cs, ss;

	__asm__ volatile("mov %%cs, %0; mov %%ss, %1" : "=r"(cs), "=r"(ss));
	sigaction_old(SIGUSR1, on_old, 0);
	sigprocmask(SIG_SETMASK, &set, 0);
	hits = 0;
	__asm__ volatile("fninit; fld1");
	kill_regs(SIGUSR1, &ax, &cx, &dx);
	__asm__ volatile("fstpl %0" : "=m"(bits));
	sigprocmask(SIG_SETMASK, 0, &after);
	report(hits == 1 && old_sig == SIGUSR1 && old_ret == (uint32_t)__restore &&
	       old_bx == (uint32_t)getpid() && old_cx == SIGUSR1 && old_ax == 0 && old_ip_ok &&
	       old_cs == cs && old_ss == ss && old_fp_ok && old_blocked_own &&
	       old_mask[0] == sigmask(SIGUSR2) && old_mask[1] == 1u << (40 - 33),
	       "without SA_SIGINFO: handler(sig) on Linux's old frame: pretcode the restorer, the "
	       "sigcontext of the kill (ebx pid, ecx sig, eax 0, eip past int 0x80, cs, ss, fpstate), "
	       "the mask in oldmask + extramask");
	report(ax == 0 && cx == SIGUSR1 && dx == 0xfeedf00d,
	       "sigreturn restores the registers from the frame: eax kill's 0, ecx kept, edx as the "
	       "handler rewrote it");
	report(after == (set | sigmask(SIGTERM) | sigmask(41)),
	       "sigreturn restores the mask from both words, oldmask and extramask, as the handler left them");
	report(bits[1] == 0x3ff00000 && bits[0] == 0,
	       "sigreturn restores the x87 state: st(0) is still 1.0 after a handler that filled the stack");
	sigprocmask(SIG_SETMASK, &after, 0);
	set = 0;
	sigprocmask(SIG_SETMASK, &set, 0);
	sigaction_handler(SIGUSR1, on_signal, 0);

	report(run_forged(FORGE_CS, 1),
	       "forged old frame (sigreturn), cs = 0x08: killed by SIGSEGV (Linux: SIGILL), never ring 0");
	report(run_forged(FORGE_SS, 1), "forged old frame (sigreturn), ss = 0x10: killed by SIGSEGV (Linux: SIGILL)");
	report(run_forged(FORGE_DS, 1),
	       "forged old frame (sigreturn), ds = 0x10: killed by SIGSEGV (Linux: goes on without it)");
	report(run_forged(FORGE_EFLAGS, 1),
	       "forged old frame (sigreturn), EFLAGS IOPL=3 VM NT: still IOPL 0, cli faults (SIGSEGV)");
}

static char altstack[16384] __attribute__((aligned(16)));
static volatile uint32_t handler_sp;
static volatile int uc_ss_flags, inner_flags, inner_err;

static int on_altstack_sp(void)
{
	return handler_sp > (uint32_t)altstack && handler_sp <= (uint32_t)altstack + sizeof(altstack);
}

static void on_where(int sig, struct siginfo *si, void *uc)
{
	stack_t now, again = { (uint32_t)altstack, 0, sizeof(altstack) };
	int here;

	(void)sig; (void)si;
	hits++;
	handler_sp = (uint32_t)&here;
	uc_ss_flags = ((struct ucontext *)uc)->uc_stack.ss_flags;
	sigaltstack(0, &now);
	inner_flags = now.ss_flags;
	inner_err = sigaltstack(&again, 0) == -1 ? errno : 0;
}

static void test_altstack(void)
{
	stack_t ss = { (uint32_t)altstack, 0, MINSIGSTKSZ - 1 }, old = { 1, 0, 1 };
	int first = sigaltstack(0, &old) == 0 && old.ss_flags == SS_DISABLE && old.ss_size == 0;
	int small = sigaltstack(&ss, 0) == -1 && errno == ENOMEM;

	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 4;
	int badflag = sigaltstack(&ss, 0) == -1 && errno == EINVAL;
	report(first && small && badflag,
	       "sigaltstack: none at first (SS_DISABLE); below MINSIGSTKSZ ENOMEM, an unknown flag EINVAL");

	ss.ss_flags = 0;
	sigaltstack(&ss, 0);
	sigaction_handler(SIGUSR1, on_where, SA_ONSTACK);
	hits = 0;
	kill(getpid(), SIGUSR1);
	int on = hits == 1 && on_altstack_sp() && uc_ss_flags == 0 && inner_flags == SS_ONSTACK &&
		 inner_err == EPERM;
	sigaction_handler(SIGUSR1, on_where, 0);
	kill(getpid(), SIGUSR1);
	report(on && hits == 2 && !on_altstack_sp() && inner_flags == 0 && inner_err == 0,
	       "SA_ONSTACK: the handler runs on the alternate stack, sigaltstack() there says SS_ONSTACK "
	       "and refuses a change (EPERM); without SA_ONSTACK it runs on the process's stack");
	sigaction_handler(SIGUSR1, on_signal, 0);
}

/* A stack overflow: esp in page 0, which nothing maps, and a push. */
static volatile uint32_t saved_esp;
extern char overflow_resume[];

static void __attribute__((noinline)) overflow_stack(void)
{
	__asm__ volatile("movl %%esp, saved_esp\n\t"
			 "movl $0x1000, %%esp\n\t"
			 "pushl %%eax\n\t"		/* faults: 0xffc */
			 ".globl overflow_resume\n"
			 "overflow_resume:\n\t"
			 "movl saved_esp, %%esp" ::: "memory");
}

static void on_overflow(int sig, struct siginfo *si, void *uc)
{
	int here;

	hits++;
	last_sig = sig;
	last_code = si->si_code;
	last_addr = si->fault.addr;
	handler_sp = (uint32_t)&here;
	/* on past the push, where esp is put back */
	((struct ucontext *)uc)->uc_mcontext.ip = (uint32_t)overflow_resume;
}

/* Nested handlers on a small alternate stack, in a shared page whose first half must stay intact. */
static volatile int *nest_depth;

static void on_nest(int sig, struct siginfo *si, void *uc)
{
	(void)si; (void)uc;
	(*nest_depth)++;
	kill(getpid(), sig);		/* SA_NODEFER: the next frame goes below this one */
}

static int killed_by_segv(int pid)
{
	int status = -1;

	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static void test_overflow(void)
{
	sigaction_handler(SIGSEGV, on_overflow, SA_ONSTACK);
	hits = 0;
	overflow_stack();
	report(hits == 1 && last_sig == SIGSEGV && last_code == SEGV_MAPERR && last_addr == 0xffc &&
	       on_altstack_sp(),
	       "a stack overflow (esp 0x1000, a push): SIGSEGV at 0xffc, handled on the alternate stack, and on");

	int pid = fork();
	if (pid == 0) {
		stack_t none = { 0, SS_DISABLE, 0 };
		sigaltstack(&none, 0);
		overflow_stack();
		_exit(0);
	}
	report(killed_by_segv(pid),
	       "the same overflow without an alternate stack: no room for the frame, killed by SIGSEGV");

	uint8_t *area = mmap(0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	nest_depth = (volatile int *)(area + PAGE_SIZE);
	memset(area, 0x5a, PAGE_SIZE / 2);
	pid = fork();
	if (pid == 0) {
		stack_t small = { (uint32_t)area + PAGE_SIZE - MINSIGSTKSZ, 0, MINSIGSTKSZ };
		sigaltstack(&small, 0);
		sigaction_handler(SIGUSR2, on_nest, SA_ONSTACK | SA_NODEFER);
		kill(getpid(), SIGUSR2);
		_exit(0);
	}
	int dead = killed_by_segv(pid), intact = 1;
	for (unsigned i = 0; i < PAGE_SIZE / 2; i++)
		intact &= area[i] == 0x5a;
	report(dead && *nest_depth >= 1 && intact,
	       "nested handlers run off a MINSIGSTKSZ alternate stack: killed by SIGSEGV, nothing written below it");
	munmap(area, 2 * PAGE_SIZE);
	struct k_sigaction dfl = { 0 };
	sigaction_k(SIGSEGV, &dfl, 0);
}

/*
 * A child signals its parent, again and again, until the parent's handler
 * finds that the signal came while the parent slept in waitpid: the
 * handler's sigcontext then shows the call being restarted (eax its
 * number, eip on its int 0x80) or failed (eax -EINTR, just after it). So
 * the case does not hang on when the signal happens to land.
 */
static volatile int *waitcase;		/* [0] seen in waitpid, [1] the ax the handler saw */

static void on_wait_signal(int sig, struct siginfo *si, void *uc)
{
	const struct sigcontext *sc = &((const struct ucontext *)uc)->uc_mcontext;
	const uint8_t *ip = (const uint8_t *)sc->ip;

	(void)sig; (void)si;
	if ((sc->ax == __NR_waitpid && ip[0] == 0xcd && ip[1] == 0x80) ||
	    (sc->ax == (uint32_t)-EINTR && ip[-2] == 0xcd && ip[-1] == 0x80)) {
		waitcase[1] = (int)sc->ax;
		waitcase[0] = 1;
	}
}

/* waitpid for a child that signals until the handler saw the wait; its EINTRs counted. */
static int wait_while_signalled(unsigned flags, int *eintr, int *status)
{
	struct timespec ms = { 0, 5000000 };
	int pid, r;

	waitcase[0] = waitcase[1] = 0;
	sigaction_handler(SIGUSR1, on_wait_signal, flags);
	pid = fork();
	if (pid == 0) {
		while (!waitcase[0]) {
			kill(getppid(), SIGUSR1);
			nanosleep(&ms, 0);
		}
		_exit(7);
	}
	*eintr = 0;
	while ((r = waitpid(pid, status, 0)) == -1 && errno == EINTR)
		(*eintr)++;
	sigaction_handler(SIGUSR1, on_signal, 0);
	return r == pid;
}

static void test_restart(void)
{
	int eintr, status = -1, got;

	waitcase = mmap(0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	got = wait_while_signalled(SA_RESTART, &eintr, &status);
	report(got && eintr == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 7 &&
	       waitcase[1] == __NR_waitpid,
	       "SA_RESTART: a waitpid the handler's signal interrupted is called again (eax its number, "
	       "eip on its int 0x80) and returns the child");
	got = wait_while_signalled(0, &eintr, &status);
	report(got && eintr >= 1 && WIFEXITED(status) && WEXITSTATUS(status) == 7 &&
	       waitcase[1] == -EINTR,
	       "without SA_RESTART: the interrupted waitpid fails with EINTR, and the next one returns the child");
	munmap((void *)waitcase, PAGE_SIZE);
}

/*
 * Deadlines on one clock (jiffies): an alarm of 1 s always comes before
 * the end of a 3 s nanosleep, however slow the machine.
 */
static void test_alarm(void)
{
	struct timespec three = { 3, 0 };
	int status = -1, pid;

	sigaction_handler(SIGALRM, on_signal, 0);
	hits = 0;
	unsigned none = alarm(5), was = alarm(1);
	int r = nanosleep(&three, 0), err = errno;
	report(none == 0 && was == 5 && r == -1 && err == EINTR && hits == 1 &&
	       last_sig == SIGALRM && last_code == SI_KERNEL && alarm(0) == 0,
	       "alarm(1): SIGALRM (SI_KERNEL) to the handler ends a 3 s nanosleep with EINTR; "
	       "alarm() returns the seconds left of the one before, 0 once it fired");

	pid = fork();
	if (pid == 0) {
		struct k_sigaction dfl = { 0 };
		sigaction_k(SIGALRM, &dfl, 0);
		alarm(1);
		nanosleep(&three, 0);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
	sigaction_handler(SIGALRM, on_signal, SA_RESTART);	/* the parent's waitpid goes on */
	alarm(1);
	pid = fork();
	if (pid == 0) {
		struct timespec two = { 2, 0 };
		nanosleep(&two, 0);		/* the parent's alarm fires meanwhile, not ours */
		_exit(hits == 1 ? 0 : 1);	/* hits: the fork's copy, 1 from the case above */
	}
	waitpid(pid, &status, 0);		/* the alarm interrupts it, and it is restarted */
	report(killed && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "without a handler SIGALRM ends the process (status SIGALRM); fork's child has no alarm");
	sigaction_handler(SIGALRM, on_signal, 0);
	alarm(0);
}

static long usecs(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

/*
 * setitimer(ITIMER_REAL) with an interval of 20 ms: SIGALRM again and
 * again. Each ends a 10 s nanosleep, so a timer that does not re-arm
 * shows as a nanosleep that ran out (a deadline on jiffies, as the
 * timer's), never as a hang.
 */
static void test_itimer_periodic(void)
{
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, zero = { { 0, 0 }, { 0, 0 } }, old;
	struct timespec ten = { 10, 0 };
	int armed, ran_out = 0;

	sigaction_handler(SIGALRM, on_signal, 0);
	hits = 0;
	armed = setitimer(ITIMER_REAL, &every, 0) == 0;
	while (armed && hits < 5 && !ran_out)
		ran_out = nanosleep(&ten, 0) == 0;
	int n = hits, code = last_code;
	int cancelled = setitimer(ITIMER_REAL, &zero, &old) == 0;
	report(armed && !ran_out && n >= 5 && code == SI_KERNEL && cancelled &&
	       old.it_interval.tv_sec == 0 && old.it_interval.tv_usec == 20000 &&
	       usecs(&old.it_value) > 0 && usecs(&old.it_value) <= 20000,
	       "setitimer(ITIMER_REAL) every 20 ms: SIGALRM (SI_KERNEL) 5 times, each ending a 10 s "
	       "nanosleep; setitimer's old value gives the interval and what was left");
}

static void test_itimer_get(void)
{
	struct itimerval five = { { 0, 0 }, { 5, 0 } }, zero = { { 0, 0 }, { 0, 0 } }, old, now, after;

	int set = setitimer(ITIMER_REAL, &five, &old) == 0 && usecs(&old.it_value) == 0 &&
		  usecs(&old.it_interval) == 0;
	int got = getitimer(ITIMER_REAL, &now) == 0;
	int off = setitimer(ITIMER_REAL, &zero, &old) == 0 && getitimer(ITIMER_REAL, &after) == 0;
	report(set && got && usecs(&now.it_value) > 0 && usecs(&now.it_value) <= 5000000 &&
	       now.it_value.tv_usec < 1000000 && usecs(&now.it_interval) == 0 && off &&
	       usecs(&old.it_value) > 0 && usecs(&old.it_value) <= usecs(&now.it_value) &&
	       usecs(&after.it_value) == 0 && usecs(&after.it_interval) == 0,
	       "getitimer reads what is left of a 5 s timer (0 < left <= 5 s, no interval); "
	       "disarmed, it reads 0");
}

/* alarm() is setitimer(ITIMER_REAL) in seconds: each sees and replaces the other's timer. */
static void test_itimer_alarm(void)
{
	struct itimerval seven = { { 0, 0 }, { 7, 0 } }, every = { { 1, 0 }, { 1, 0 } }, now, after;

	setitimer(ITIMER_REAL, &seven, 0);
	unsigned left = alarm(0);
	int none = getitimer(ITIMER_REAL, &now) == 0 && usecs(&now.it_value) == 0;
	setitimer(ITIMER_REAL, &every, 0);
	unsigned was = alarm(3);
	getitimer(ITIMER_REAL, &after);
	unsigned rest = alarm(0);
	report(left >= 1 && left <= 7 && none && was == 1 && usecs(&after.it_interval) == 0 &&
	       usecs(&after.it_value) > 0 && usecs(&after.it_value) <= 3000000 && rest >= 1 && rest <= 3,
	       "alarm() and setitimer share one timer: alarm returns setitimer's seconds left and "
	       "disarms it; alarm(3) replaces a periodic timer (no interval), getitimer reads it");
}

static void test_itimer_errors(void)
{
	struct itimerval v = { { 0, 0 }, { 0, 1000000 } }, ok = { { 0, 0 }, { 1, 0 } }, now;
	void *kernel = (void *)0xc0000000;
	int e[9];

	e[0] = setitimer(ITIMER_REAL, &v, 0) == -1 ? errno : 0;
	v.it_value.tv_usec = -1;
	e[1] = setitimer(ITIMER_REAL, &v, 0) == -1 ? errno : 0;
	v.it_value = (struct timeval){ -1, 0 };
	e[2] = setitimer(ITIMER_REAL, &v, 0) == -1 ? errno : 0;
	v = (struct itimerval){ { 0, 1000000 }, { 1, 0 } };
	e[3] = setitimer(ITIMER_REAL, &v, 0) == -1 ? errno : 0;
	e[4] = setitimer(3, &ok, 0) == -1 ? errno : 0;
	e[5] = getitimer(-1, &now) == -1 ? errno : 0;
	e[6] = setitimer(ITIMER_REAL, kernel, 0) == -1 ? errno : 0;
	e[7] = getitimer(ITIMER_REAL, kernel) == -1 ? errno : 0;
	e[8] = setitimer(ITIMER_REAL, &ok, kernel) == -1 ? errno : 0;	/* set, as Linux: then EFAULT */
	int armed = getitimer(ITIMER_REAL, &now) == 0 && usecs(&now.it_value) > 0;
	alarm(0);
	report(e[0] == EINVAL && e[1] == EINVAL && e[2] == EINVAL && e[3] == EINVAL &&
	       e[4] == EINVAL && e[5] == EINVAL && e[6] == EFAULT && e[7] == EFAULT &&
	       e[8] == EFAULT && armed,
	       "setitimer/getitimer: tv_usec outside 0..999999, tv_sec < 0, a bad which: EINVAL; "
	       "a kernel pointer: EFAULT (the old value's after the timer is set, as Linux)");
	sigaction_handler(SIGALRM, on_signal, 0);
}

static volatile int expired;
/* Linux rounds a CPU-time timer up to its tick (4 ms at Debian's HZ=250): up to one more, read back */
#define ONE_TICK 10000

static void on_watchdog(int sig, struct siginfo *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	expired = 1;
}

/* Spins in ring 3 until hits reaches n or the 10 s watchdog (ITIMER_REAL) goes off. */
static void spin_until(int n, int syscalls)
{
	expired = 0;
	sigaction_handler(SIGALRM, on_watchdog, 0);
	alarm(10);
	while (hits < n && !expired)
		if (syscalls)
			getpid();
	alarm(0);
	sigaction_handler(SIGALRM, on_signal, 0);
}

/*
 * ITIMER_VIRTUAL counts the process's time in ring 3 only: every 20 ms
 * of it a SIGVTALRM (SI_KERNEL), three times in a busy loop; a 300 ms
 * nanosleep, no user time, leaves it where it was (give or take the
 * tick that may land on the loop around it).
 */
static void test_itimer_virtual(void)
{
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, zero = { { 0, 0 }, { 0, 0 } };
	struct itimerval before, after, old;
	struct timespec nap = { 0, 300000000 };

	sigaction_handler(SIGVTALRM, on_signal, 0);
	hits = 0;
	int armed = setitimer(ITIMER_VIRTUAL, &every, 0) == 0;
	spin_until(3, 0);
	int n = hits, sig = last_sig, code = last_code, timed_out = expired;
	struct itimerval slow = { { 0, 0 }, { 100, 0 } };
	setitimer(ITIMER_VIRTUAL, &slow, 0);
	getitimer(ITIMER_VIRTUAL, &before);
	nanosleep(&nap, 0);
	getitimer(ITIMER_VIRTUAL, &after);
	int off = setitimer(ITIMER_VIRTUAL, &zero, &old) == 0;
	long slept = usecs(&before.it_value) - usecs(&after.it_value);
	printf("# ITIMER_VIRTUAL: %d signals (last %d, si_code %d), watchdog %s; the sleep took %ld us; "
	       "old value %ld us\n", n, sig, code, timed_out ? "expired" : "quiet", slept,
	       usecs(&old.it_value));
	report(armed && !timed_out && n >= 3 && sig == SIGVTALRM && code == SI_KERNEL &&
	       slept >= 0 && slept < 100000 && off && usecs(&old.it_value) > 0 &&
	       usecs(&old.it_value) <= 100000000 + ONE_TICK,
	       "setitimer(ITIMER_VIRTUAL) every 20 ms: SIGVTALRM (SI_KERNEL) 3 times in a busy loop; "
	       "a 300 ms nanosleep takes less than 100 ms from it");
}

/* ITIMER_PROF counts ring 3 and the system calls both: SIGPROF in a loop of getpid(). */
static void test_itimer_prof(void)
{
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, zero = { { 0, 0 }, { 0, 0 } }, now;

	sigaction_handler(SIGPROF, on_signal, 0);
	hits = 0;
	int armed = setitimer(ITIMER_PROF, &every, 0) == 0;
	int got = getitimer(ITIMER_PROF, &now) == 0 && now.it_interval.tv_sec == 0 &&
		  now.it_interval.tv_usec == 20000 && usecs(&now.it_value) > 0 &&
		  usecs(&now.it_value) <= 20000 + ONE_TICK;
	printf("# ITIMER_PROF: getitimer right after setitimer: value %ld us, interval %ld us\n",
	       usecs(&now.it_value), usecs(&now.it_interval));
	spin_until(3, 1);
	int n = hits, sig = last_sig, timed_out = expired;
	int off = setitimer(ITIMER_PROF, &zero, 0) == 0 && getitimer(ITIMER_PROF, &now) == 0 &&
		  usecs(&now.it_value) == 0 && usecs(&now.it_interval) == 0;
	printf("# ITIMER_PROF: %d signals (last %d), watchdog %s\n", n, sig,
	       timed_out ? "expired" : "quiet");
	report(armed && got && !timed_out && n >= 3 && sig == SIGPROF && off,
	       "setitimer(ITIMER_PROF) every 20 ms: getitimer reads it back, SIGPROF 3 times in a "
	       "loop of getpid(); disarmed, it reads 0");
}

/*
 * rt_sigaction's refusals, as Linux's: a wrong sigset size, a signal
 * outside 1..64, SIGKILL given a handler: EINVAL; a bad act: EFAULT and
 * nothing set; a bad oact: EFAULT with the new action set (Linux copies
 * the old one out after setting the new).
 */
static void test_sigaction_errors(void)
{
	struct k_sigaction act = { (uint32_t)on_signal, SA_SIGINFO | SA_RESTORER,
				   (uint32_t)__restore_rt, 0 }, old;
	long kernel = (long)0xc0000000, set = sizeof(sigset_t), e[6];
	uint32_t after_bad_act, after_bad_oact;

	sigaction_disposition(SIGUSR2, SIG_DFL);
	e[0] = syscall6(__NR_rt_sigaction, SIGUSR2, (long)&act, 0, 4, 0, 0);
	e[1] = syscall6(__NR_rt_sigaction, 0, (long)&act, 0, set, 0, 0);
	e[2] = syscall6(__NR_rt_sigaction, 65, 0, (long)&old, set, 0, 0);
	e[3] = syscall6(__NR_rt_sigaction, SIGKILL, (long)&act, 0, set, 0, 0);
	e[4] = syscall6(__NR_rt_sigaction, SIGUSR2, kernel, 0, set, 0, 0);
	after_bad_act = sigaction_k(SIGUSR2, 0, &old) == 0 ? old.handler : 1;
	e[5] = syscall6(__NR_rt_sigaction, SIGUSR2, (long)&act, kernel, set, 0, 0);
	after_bad_oact = sigaction_k(SIGUSR2, 0, &old) == 0 ? old.handler : 1;
	int kill_read = sigaction_k(SIGKILL, 0, &old) == 0;
	sigaction_disposition(SIGUSR2, SIG_DFL);
	report(e[0] == -EINVAL && e[1] == -EINVAL && e[2] == -EINVAL && e[3] == -EINVAL &&
	       e[4] == -EFAULT && after_bad_act == SIG_DFL && e[5] == -EFAULT &&
	       after_bad_oact == (uint32_t)on_signal && kill_read,
	       "rt_sigaction: a wrong sigset size, signal 0 or 65, SIGKILL with a handler: EINVAL; "
	       "a kernel act: EFAULT, nothing set; a kernel oact: EFAULT, the new action set "
	       "(as Linux); SIGKILL's action may be read");
}

int main(void)
{
	printf("TAP version 13\n1..%d\n", CASES);
	test_kill();
	test_mask();
	test_segv();
	test_fpu();
	test_fpu_mxcsr();
	test_fork();
	test_forged();
	test_old_frame();
	test_altstack();
	test_overflow();
	test_restart();
	test_alarm();
	test_itimer_periodic();
	test_itimer_get();
	test_itimer_alarm();
	test_itimer_errors();
	test_itimer_virtual();
	test_itimer_prof();
	test_sigaction_errors();
	printf("sigtest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
