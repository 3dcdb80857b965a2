/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Signal handlers on Linux's i386 ABI (kernel/signal_action.c,
 * kernel/signal_frame.c). The structures a process sees are Linux's,
 * field for field (arch/x86/include/uapi/asm/sigcontext.h, ucontext.h,
 * siginfo.h; the frame of arch/x86/kernel/signal_32.c), so that one
 * static binary runs on ronx and on Linux.
 */
#ifndef RONX_SIGNAL_H
#define RONX_SIGNAL_H
#include <stdint.h>
#include <stdbool.h>
struct trap_frame;

#define _NSIG		64
#define SIGHUP		1
#define SIGALRM		14
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGTSTP		20
#define SIGTTIN		21
#define SIGTTOU		22
#define SIGVTALRM	26
#define SIGPROF		27
#define SIG_DFL		0u
#define SIG_IGN		1u

#define SA_SIGINFO	0x00000004u
#define SA_ONSTACK	0x08000000u
#define SA_RESTART	0x10000000u
#define SA_NODEFER	0x40000000u
#define SA_RESETHAND	0x80000000u
#define SA_RESTORER	0x04000000u

/* sigaltstack's ss_flags, and the least stack it takes (i386: 2048) */
#define SS_ONSTACK	1
#define SS_DISABLE	2
#define SS_AUTODISARM	(1u << 31)
#define MINSIGSTKSZ	2048

#define SIG_BLOCK	0
#define SIG_UNBLOCK	1
#define SIG_SETMASK	2

/* si_code values */
#define SI_USER		0
#define SI_KERNEL	0x80
#define SI_TKILL	(-6)
#define SEGV_MAPERR	1
#define SEGV_ACCERR	2
#define ILL_ILLOPN	2
#define FPE_INTDIV	1
#define TRAP_BRKPT	1
#define TRAP_TRACE	2
#define BUS_ADRALN	1
#define BUS_ADRERR	2

typedef uint64_t sigset_t;
#define sigmask(sig)	(1ull << ((sig) - 1))

/* rt_sigaction's struct on i386: handler, flags, restorer, then the mask */
struct k_sigaction {
	uint32_t handler, flags, restorer;
	sigset_t mask;
} __attribute__((packed));

/* siginfo_t: 128 bytes; the union starts at byte 12 */
struct siginfo {
	int32_t si_signo, si_errno, si_code;
	union {
		struct { int32_t pid; uint32_t uid; } kill;
		struct { uint32_t addr; } fault;
		uint8_t pad[116];
	};
};

/* struct sigcontext (32-bit): the trap frame's order, with sp twice */
struct sigcontext {
	uint16_t gs, __gsh, fs, __fsh, es, __esh, ds, __dsh;
	uint32_t di, si, bp, sp, bx, dx, cx, ax;
	uint32_t trapno, err, ip;
	uint16_t cs, __csh;
	uint32_t flags, sp_at_signal;
	uint16_t ss, __ssh;
	uint32_t fpstate;		/* user address of struct _fpstate_32, or 0 */
	uint32_t oldmask, cr2;
};

/* stack_t: an alternate signal stack */
struct sigaltstack {
	uint32_t ss_sp;
	int32_t ss_flags;
	uint32_t ss_size;
};

struct ucontext {
	uint32_t uc_flags, uc_link;
	struct sigaltstack uc_stack;	/* the alternate stack when the signal came */
	struct sigcontext uc_mcontext;
	sigset_t uc_sigmask;
};

/*
 * struct _fpstate_32: fnsave's 112-byte view (env, st(0)-st(7), status,
 * magic), then with FXSR fxsave's 512 bytes whole (magic 0; 0xffff:
 * fnsave's view only).
 */
#define FPSTATE_HDR	112
#define FPSTATE_SIZE	(FPSTATE_HDR + 512)
#define X86_FXSR_MAGIC	0x0000
#define FPSTATE_FSAVE_MAGIC 0xffff

struct rt_sigframe {
	uint32_t pretcode;
	int32_t sig;
	uint32_t pinfo, puc;
	struct siginfo info;
	struct ucontext uc;
	uint8_t retcode[8];
};
/*
 * The old frame (struct sigframe_ia32), for a handler without
 * SA_SIGINFO: its one argument, the sigcontext, then a 624-byte slot
 * Linux keeps for the offset of extramask (the FPU state itself lies
 * above, as in the rt frame), the mask's upper word, the retcode.
 */
struct sigframe {
	uint32_t pretcode;
	int32_t sig;
	struct sigcontext sc;
	uint8_t fpstate_unused[FPSTATE_SIZE];
	uint32_t extramask[1];		/* signals 33-64 of the mask; sc.oldmask has 1-32 */
	uint8_t retcode[8];
};
_Static_assert(sizeof(struct sigframe) == 732, "Linux's struct sigframe_ia32");
_Static_assert(sizeof(struct siginfo) == 128, "Linux's siginfo_t");
_Static_assert(sizeof(struct sigcontext) == 88, "Linux's struct sigcontext_32");
_Static_assert(sizeof(struct ucontext) == 116, "Linux's struct ucontext (i386)");

/* A process's signal state, under tasks_lock (kernel/signal_action.c). */
struct fault_sig {
	int sig, code;
	uint32_t addr, trapno, err;
};
struct task_signals {
	struct k_sigaction action[_NSIG];
	sigset_t blocked, pending;
	int sender[_NSIG];		/* si_pid of a pending kill */
	bool tkill[_NSIG];		/* sent by tgkill: SI_TKILL */
	struct fault_sig fault;		/* a fault's signal, pending: its siginfo */
	/* sigaltstack's: the task's own, no lock (Linux's sas_ss_*) */
	uint32_t sas_ss_sp, sas_ss_size, sas_ss_flags;
	int restart_nr;			/* a system call that returned -ERESTARTSYS, 0: none */
	/* ITIMER_REAL, alarm()'s too (kernel/itimer.c): the deadline in jiffies (0: none), the interval */
	unsigned long it_real_at, it_real_incr;
	/* ITIMER_VIRTUAL (ring 3 ticks) and ITIMER_PROF (every tick of the process's): ticks left, interval */
	struct cpu_itimer { unsigned long left, incr; } it_virt, it_prof;
};

struct task;
void signals_reset(struct task *t);			/* a new process: all default */
void signals_fork(struct task *child, const struct task *parent);
void signals_exec(struct task *t);			/* handlers back to default */
bool signal_queue_locked(struct task *t, int sig, int sender, bool tkill);
bool force_sig_handled(int sig, int code, uint32_t addr, const struct trap_frame *f);
void syscall_set_restart(int nr);			/* nr returned -ERESTARTSYS */
void do_signal(struct trap_frame *f);			/* exit_to_user_mode(): deliver */
bool setup_rt_frame(struct trap_frame *f, int sig, const struct k_sigaction *ka,
		    const struct siginfo *info, sigset_t oldmask);
long sys_rt_sigaction(uint32_t sig, uint32_t act, uint32_t oact, uint32_t size);
long sys_rt_sigprocmask(uint32_t how, uint32_t set, uint32_t oset, uint32_t size);
bool setup_frame(struct trap_frame *f, int sig, const struct k_sigaction *ka,
		 const struct siginfo *info, sigset_t oldmask);
long sys_rt_sigreturn(void);
long sys_sigreturn(void);
long sys_sigaltstack(uint32_t uss, uint32_t uoss);
void send_sig_kernel_locked(struct task *t, int sig);	/* kernel/kill.c */
long sys_tgkill(uint32_t tgid, uint32_t pid, uint32_t sig);
/* kernel/signal_stop.c: job control's stopped state, tasks_lock held where _locked */
bool sig_stops(int sig);				/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU */
void prepare_signal_locked(struct task *t, int sig);	/* a stop or a SIGCONT's side effects */
void signal_stop_taken_locked(int sig);
void do_signal_stop(void);
bool sig_ignored_or_blocked(struct task *t, int sig);
void kill_orphaned_pgrp_locked(int pgid);		/* a parent exits: stopped orphans hang up */
long sys_gettid(void);
#endif
