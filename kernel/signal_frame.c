// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signal frame on the user stack, and its two returns, rt_sigreturn
 * and sigreturn (Linux: arch/x86/kernel/signal.c, signal_32.c). From the
 * interrupted esp down: the FPU state (struct _fpstate_32, 64-byte
 * aligned), then the frame, placed so that the handler starts with
 * esp + 4 16-byte aligned, as a call would leave it. An SA_SIGINFO
 * handler gets struct rt_sigframe (the return address, its three
 * arguments, the siginfo, the ucontext with the registers and mask);
 * any other the old struct sigframe (the return address, the signal, the
 * sigcontext, the mask's upper word), as Linux's i386 does.
 *
 * The frame is an attack surface both ways. It is written through the
 * user-access layer, four bytes a step (copy_to_user_bulk(), and
 * fxsave_to_user() for the FPU state: SMAP holds; a stack the process
 * cannot write ends it with SIGSEGV). Both sigreturns read back whatever
 * ring 3 left there, through one path (restore_frame()), so they take
 * only what ring 3 may set itself: cs and ss must be the user selectors, ds/es/fs/gs the
 * user data selector or null, EFLAGS only the bits popf may change in
 * ring 3 (never IOPL, VM, NT, IF or a reserved bit), MXCSR only its
 * defined bits (fxrstor faults on the others, and it runs in the
 * kernel). Anything else is a forged frame: the process dies with
 * SIGSEGV and a line, as Linux's "bad frame".
 */
#include <stddef.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>
#include <ronx/uaccess.h>
#include <ronx/fpu.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/stagestat.h>

#define X86_EFLAGS_TF	0x100u
#define X86_EFLAGS_DF	0x400u
/* the EFLAGS bits a frame may set (Linux's FIX_EFLAGS): CF PF AF ZF SF TF DF OF RF AC */
#define FIX_EFLAGS	(0x0001u | 0x0004u | 0x0010u | 0x0040u | 0x0080u | 0x0100u | \
			 0x0400u | 0x0800u | 0x10000u | 0x40000u)

/* fxsave's 512 bytes, or fnsave's 108, and the 112-byte fnsave view in front. */
static unsigned long fpstate_size(void)
{
	return boot_cpu_has_fxsr ? FPSTATE_SIZE : FPSTATE_HDR;
}

/*
 * The process's FPU registers into the frame at ufp; the handler starts
 * from a new process's. With FXSR, fxsave writes them straight to the
 * frame (fxsave_to_user()), and fnsave's 108 bytes in front are the
 * fnsave view Linux's convert_from_fxsr() builds: the same format, and
 * fnsave's tags are the real ones. fxsave leaves sw_reserved (its last
 * 48 bytes) alone: it is zeroed, as Linux does without XSAVE, so no
 * handler reads an xsave magic there. Both small pieces go out a word
 * at a time (put_user_struct()): a bulk copy's own work cost more.
 */
static bool save_fpstate(uint32_t ufp)
{
	struct {
		struct fregs_state env;
		uint16_t status, magic;
	} __attribute__((packed)) hdr;
	static const uint8_t no_sw_bytes[48];
	uint32_t fx = ufp + FPSTATE_HDR;

	_Static_assert(sizeof(hdr) == FPSTATE_HDR, "the fnsave view and its status and magic");
	sig_stage_mark(ST_SIG_FRAME_FILL);	/* the frame's fill before it, its copy after */
	if (boot_cpu_has_fxsr &&
	    (!access_ok((void __user *)fx, 512) || fxsave_to_user((void __user *)fx) ||
	     put_user_struct(fx + 464, &no_sw_bytes)))
		return false;
	fnsave_regs(&hdr.env);		/* the x87 part reinitialized */
	sig_stage_mark(ST_SIG_FPU_SAVE);
	hdr.status = (uint16_t)hdr.env.swd;
	hdr.magic = boot_cpu_has_fxsr ? X86_FXSR_MAGIC : FPSTATE_FSAVE_MAGIC;
	if (put_user_struct(ufp, &hdr)) {
		frstor_regs(&hdr.env);	/* the process dies with its own registers */
		return false;
	}
	restore_fpregs_from_init_fpstate();
	sig_stage_mark(ST_SIG_FPU_COPY);
	return true;
}

static uint32_t mxcsr_mask(void)
{
	static uint32_t mask;

	if (!mask) {
		union fpregs_state tmp;

		fpu_save(&tmp);		/* fxsave: the registers stay as they are */
		mask = tmp.fxsave.mxcsr_mask ? tmp.fxsave.mxcsr_mask : 0xffbf;
	}
	return mask;
}

/*
 * fxrstor may read the frame's fxsave image in place (fxrstor_from_user())
 * if it is aligned and user memory and its MXCSR has no bit the CPU
 * reserves (fxrstor's #GP); true if it did.
 */
static bool restore_fxstate_in_place(uint32_t fx)
{
	uint32_t mxcsr;

	return !(fx & 15) && access_ok((const void __user *)fx, 512) &&
	       !get_user_struct(&mxcsr, fx + offsetof(struct fxregs_state, mxcsr)) &&
	       !(mxcsr & ~mxcsr_mask()) && !fxrstor_from_user((const void __user *)fx);
}

/*
 * The FPU registers from a frame; false if they cannot be read. Where
 * fxrstor cannot read them in place, through the task's own area, the
 * reserved MXCSR bits cleared.
 */
static bool restore_fpstate(uint32_t ufp)
{
	union fpregs_state *fps = current->fpu;

	if (!ufp) {
		restore_fpregs_from_init_fpstate();
		return true;
	} else if (boot_cpu_has_fxsr) {
		if (restore_fxstate_in_place(ufp + FPSTATE_HDR))
			return true;
		if (copy_from_user_bulk(fps, (const void __user *)(ufp + FPSTATE_HDR), 512))
			return false;
		fps->fxsave.mxcsr &= mxcsr_mask();	/* a reserved bit: fxrstor's #GP in the kernel */
	} else if (copy_from_user_bulk(&fps->fsave, (const void __user *)ufp, sizeof(fps->fsave))) {
		return false;
	}
	fpu_restore(fps);
	return true;
}

static void fill_sigcontext(struct sigcontext *sc, const struct trap_frame *f, uint32_t ufp,
			    sigset_t mask, const struct siginfo *info)
{
	memset(sc, 0, sizeof(*sc));
	sc->gs = f->gs;
	sc->fs = f->fs;
	sc->es = f->es;
	sc->ds = f->ds;
	sc->di = f->edi;
	sc->si = f->esi;
	sc->bp = f->ebp;
	sc->sp = f->esp;
	sc->bx = f->ebx;
	sc->dx = f->edx;
	sc->cx = f->ecx;
	sc->ax = f->eax;
	sc->trapno = f->vector;
	sc->err = f->error_code;
	sc->ip = f->eip;
	sc->cs = f->cs;
	sc->flags = f->eflags;
	sc->sp_at_signal = f->esp;
	sc->ss = f->ss;
	sc->fpstate = ufp;
	sc->oldmask = (uint32_t)mask;
	sc->cr2 = info->si_signo == SIGSEGV ? info->fault.addr : 0;
}

/* sp is on the alternate stack (Linux's __on_sig_stack(): it grows down from its top) */
static bool on_sig_stack(const struct task_signals *s, uint32_t sp)
{
	return sp > s->sas_ss_sp && sp - s->sas_ss_sp <= s->sas_ss_size;
}

/* What sigaltstack() and uc_stack report for sp: none, on it, or set but not on it. */
static int sas_ss_flags(const struct task_signals *s, uint32_t sp)
{
	if (!s->sas_ss_size)
		return SS_DISABLE;
	if (s->sas_ss_flags & SS_AUTODISARM)
		return 0;		/* handlers may nest on it: each starts at its top */
	return on_sig_stack(s, sp) ? SS_ONSTACK : 0;
}

/* The alternate stack as sigaltstack() reports it and uc_stack saves it, for a process at sp. */
static struct sigaltstack altstack_seen_from(const struct task_signals *s, uint32_t sp)
{
	return (struct sigaltstack){ s->sas_ss_sp,
		sas_ss_flags(s, sp) | (int32_t)(s->sas_ss_flags & SS_AUTODISARM), s->sas_ss_size };
}

/*
 * Where a frame of size bytes goes (Linux's get_sigframe()), and its FPU
 * state at *ufp above it; 0 if there is no room. Below the interrupted
 * esp, or at the top of the alternate stack for an SA_ONSTACK handler
 * when the process is not on it yet (a handler for a stack overflow has
 * no stack of its own to run on). The frame is placed so that the
 * handler starts with esp + 4 16-byte aligned, as a call would leave it.
 * A frame that would run off the bottom of the alternate stack is
 * refused, with Linux's line: it would write whatever lies below.
 */
static uint32_t get_sigframe(const struct trap_frame *f, const struct k_sigaction *ka,
			     uint32_t size, uint32_t *ufp, bool *alt)
{
	struct task_signals *s = task_signals(current);
	uint32_t sp = f->esp;

	*alt = on_sig_stack(s, sp) && !(s->sas_ss_flags & SS_AUTODISARM);
	if ((ka->flags & SA_ONSTACK) && sas_ss_flags(s, sp) == 0) {
		sp = s->sas_ss_sp + s->sas_ss_size;
		*alt = true;
	}
	*ufp = (sp - fpstate_size()) & ~63u;
	uint32_t uf = ((*ufp - size + 4) & ~15u) - 4;

	if (*ufp > sp || uf > *ufp)
		return 0;			/* wrapped below 0 */
	if (*alt && !on_sig_stack(s, uf)) {
		printk(KERN_INFO "%pE[%d] overflowed sigaltstack\n", current->comm, current->pid);
		return 0;
	}
	return uf;
}

/* The registers that enter handler ka with its frame at uf; eax its signal. */
static void enter_handler(struct trap_frame *f, const struct k_sigaction *ka, int sig,
			  uint32_t uf, bool alt)
{
	struct task_signals *s = task_signals(current);

	/* rt_sigreturn sets it again from uc_stack; the old frame has none, as on Linux */
	if (alt && (s->sas_ss_flags & SS_AUTODISARM))
		s->sas_ss_sp = s->sas_ss_size = s->sas_ss_flags = 0;
	f->esp = uf;
	f->eip = ka->handler;
	f->eax = (uint32_t)sig;
	f->eflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_TF | X86_EFLAGS_AC);
	f->ds = f->es = f->ss = USER_DS;
	f->cs = USER_CS;
}

/*
 * The rt frame, for an SA_SIGINFO handler: handler(sig, &info, &uc),
 * the arguments also in eax/edx/ecx (Linux passes them in registers too,
 * for regparm handlers).
 */
bool setup_rt_frame(struct trap_frame *f, int sig, const struct k_sigaction *ka,
		    const struct siginfo *info, sigset_t oldmask)
{
	struct task_signals *s = task_signals(current);
	struct rt_sigframe fr;
	uint32_t ufp;
	bool alt;
	uint32_t uf = get_sigframe(f, ka, sizeof(fr), &ufp, &alt);
	static const uint8_t retcode[8] = { 0xb8, 173, 0, 0, 0, 0xcd, 0x80, 0 };

	if (!uf)
		return false;
	/* all but the siginfo, which is copied whole: 128 bytes not zeroed for nothing */
	memset(&fr, 0, offsetof(struct rt_sigframe, info));
	memset(&fr.uc, 0, sizeof(fr) - offsetof(struct rt_sigframe, uc));
	fr.sig = sig;
	fr.pinfo = uf + offsetof(struct rt_sigframe, info);
	fr.puc = uf + offsetof(struct rt_sigframe, uc);
	fr.info = *info;
	/* without SA_RESTORER: Linux's retcode, run from the stack (NX stops it: use a restorer) */
	fr.pretcode = ka->flags & SA_RESTORER ? ka->restorer :
		      uf + offsetof(struct rt_sigframe, retcode);
	memcpy(fr.retcode, retcode, sizeof(retcode));
	fr.uc.uc_stack = altstack_seen_from(s, f->esp);
	fill_sigcontext(&fr.uc.uc_mcontext, f, ufp, oldmask, info);
	fr.uc.uc_sigmask = oldmask;
	if (!save_fpstate(ufp) || copy_to_user_bulk((void __user *)uf, &fr, sizeof(fr)))
		return false;
	enter_handler(f, ka, sig, uf, alt);
	f->edx = fr.pinfo;
	f->ecx = fr.puc;
	return true;
}

/*
 * The old frame, for a handler without SA_SIGINFO (Linux's
 * __setup_frame()): handler(sig), the sigcontext after it on the stack,
 * the mask split between sc.oldmask and extramask, and a restorer that
 * pops sig and calls sigreturn.
 */
bool setup_frame(struct trap_frame *f, int sig, const struct k_sigaction *ka,
		 const struct siginfo *info, sigset_t oldmask)
{
	struct sigframe fr;
	uint32_t ufp;
	bool alt;
	uint32_t uf = get_sigframe(f, ka, sizeof(fr), &ufp, &alt);
	/* popl %eax; movl $119, %eax; int $0x80: Linux's, for gdb's eyes and for no restorer */
	static const uint8_t retcode[8] = { 0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80 };

	if (!uf)
		return false;
	memset(&fr, 0, sizeof(fr));
	fr.sig = sig;
	fr.pretcode = ka->flags & SA_RESTORER ? ka->restorer :
		      uf + offsetof(struct sigframe, retcode);
	memcpy(fr.retcode, retcode, sizeof(retcode));
	fill_sigcontext(&fr.sc, f, ufp, oldmask, info);
	fr.extramask[0] = (uint32_t)(oldmask >> 32);
	if (!save_fpstate(ufp) || copy_to_user_bulk((void __user *)uf, &fr, sizeof(fr)))
		return false;
	enter_handler(f, ka, sig, uf, alt);
	f->edx = f->ecx = 0;
	return true;
}

/*
 * sigaltstack's change (Linux's do_sigaltstack()), sp the process's esp:
 * not while it runs on the alternate stack, only the flags Linux knows,
 * at least MINSIGSTKSZ bytes unless it is SS_DISABLE.
 */
static long set_altstack(const struct sigaltstack *ss, uint32_t sp)
{
	struct task_signals *s = task_signals(current);
	uint32_t mode = (uint32_t)ss->ss_flags & ~SS_AUTODISARM;

	if (on_sig_stack(s, sp) && !(s->sas_ss_flags & SS_AUTODISARM))
		return -EPERM;
	if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
		return -EINVAL;
	if (mode == SS_DISABLE) {
		s->sas_ss_sp = s->sas_ss_size = s->sas_ss_flags = 0;
		return 0;
	}
	if (ss->ss_size < MINSIGSTKSZ)
		return -ENOMEM;
	s->sas_ss_sp = ss->ss_sp;
	s->sas_ss_size = ss->ss_size;
	s->sas_ss_flags = (uint32_t)ss->ss_flags & SS_AUTODISARM;
	return 0;
}

long sys_sigaltstack(uint32_t uss, uint32_t uoss)
{
	struct task_signals *s = task_signals(current);
	uint32_t sp = current->regs->esp;
	struct sigaltstack ss, old = altstack_seen_from(s, sp);
	long err = 0;

	if (uss) {
		if (copy_from_user(&ss, (const void __user *)uss, sizeof(ss)))
			return -EFAULT;
		err = set_altstack(&ss, sp);
	}
	if (!err && uoss && copy_to_user((void __user *)uoss, &old, sizeof(old)))
		err = -EFAULT;
	return err;
}

/* A data selector ring 3 could have loaded itself and iret can put back: null or USER_DS. */
static bool data_sel_ok(uint16_t sel)
{
	return sel < 4 || sel == USER_DS;
}

/* The frame's registers, if every one is one ring 3 may hold; false: forged. */
static bool restore_sigcontext(struct trap_frame *f, const struct sigcontext *sc)
{
	if ((sc->cs | 3) != USER_CS || (sc->ss | 3) != USER_DS || !data_sel_ok(sc->ds) ||
	    !data_sel_ok(sc->es) || !data_sel_ok(sc->fs) || !data_sel_ok(sc->gs))
		return false;
	f->gs = sc->gs;
	f->fs = sc->fs;
	f->es = sc->es;
	f->ds = sc->ds;
	f->edi = sc->di;
	f->esi = sc->si;
	f->ebp = sc->bp;
	f->ebx = sc->bx;
	f->edx = sc->dx;
	f->ecx = sc->cx;
	f->eax = sc->ax;
	f->eip = sc->ip;
	f->esp = sc->sp;
	f->cs = USER_CS;
	f->ss = USER_DS;
	/* IF, IOPL, NT, VM and the reserved bits stay the kernel's: what entry saved */
	f->eflags = (f->eflags & ~FIX_EFLAGS) | (sc->flags & FIX_EFLAGS);
	return true;
}

/* Linux's signal_fault() line, then SIGSEGV: the frame was unreadable or forged. */
static void __noreturn bad_frame(const struct trap_frame *f, uint32_t frame, const char *call)
{
	printk(KERN_INFO "%pE[%d] bad frame in %s frame:%08x ip:%x sp:%x\n",
	       current->comm, current->pid, call, frame, f->eip, f->esp);
	do_exit(SIGSEGV);
}

/* The mask a frame saved, back; never SIGKILL or SIGSTOP (Linux's set_current_blocked()). */
static void set_current_blocked(sigset_t mask)
{
	struct task_signals *s = task_signals(current);
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	s->blocked = mask & ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * What both sigreturns restore from a frame at uf, with the same checks:
 * the registers from sc, the FPU state it points to, the mask. A forged
 * frame ends the process.
 */
static void restore_frame(struct trap_frame *f, uint32_t uf, const struct sigcontext *sc,
			  sigset_t mask, const char *call)
{
	if (!restore_sigcontext(f, sc))
		bad_frame(f, uf, call);
	sig_stage_mark(ST_SIGRET_REGS);
	if (!restore_fpstate(sc->fpstate))
		bad_frame(f, uf, call);
	sig_stage_mark(ST_SIGRET_FPU);
	set_current_blocked(mask);
}

long sys_rt_sigreturn(void)
{
	struct trap_frame *f = current->regs;
	uint32_t uf = f->esp - 4;	/* the handler's ret took pretcode */
	struct ucontext uc;

	sig_stage_start();
	/* the whole frame must be user memory, as on Linux; only its ucontext is read, by words */
	if (!access_ok((const void __user *)uf, sizeof(struct rt_sigframe)) ||
	    get_user_struct(&uc, uf + offsetof(struct rt_sigframe, uc)))
		bad_frame(f, uf, "rt_sigreturn");
	sig_stage_mark(ST_SIGRET_COPY);
	restore_frame(f, uf, &uc.uc_mcontext, uc.uc_sigmask, "rt_sigreturn");
	/* the alternate stack as it was, checked as sigaltstack() checks it; refused: left alone */
	(void)set_altstack(&uc.uc_stack, f->esp);
	sig_stage_mark(ST_SIGRET_MASK);
	return (long)f->eax;		/* the syscall path writes it back unchanged */
}

/* The old frame's return: the handler's ret took pretcode, the restorer popped sig. */
long sys_sigreturn(void)
{
	struct trap_frame *f = current->regs;
	uint32_t uf = f->esp - 8;
	struct sigframe fr;

	if (copy_from_user_bulk(&fr, (const void __user *)uf, sizeof(fr)))
		bad_frame(f, uf, "sigreturn");
	restore_frame(f, uf, &fr.sc, fr.sc.oldmask | (sigset_t)fr.extramask[0] << 32, "sigreturn");
	return (long)f->eax;
}
