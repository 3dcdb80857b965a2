// SPDX-License-Identifier: GPL-2.0-only
/*
 * Signal dispositions, masks and delivery (Linux: kernel/signal.c,
 * arch/x86/kernel/signal.c). A process may catch a signal with a handler
 * (rt_sigaction), block it (rt_sigprocmask) or leave it to its default
 * action, which is what ronx always did: kernel/kill.c's kill, and the
 * segfault line of kernel/signal.c. A signal with a handler is queued
 * (one bit a signal, as Linux's standard signals) and delivered on the
 * way back to ring 3 (exit_to_user_mode()): the frame is written on the
 * user stack (kernel/signal_frame.c) and the process goes on in its
 * handler. SIGKILL and SIGSTOP cannot be caught or blocked. A stop
 * signal left to its default action stops the process
 * (kernel/signal_stop.c).
 *
 * Locking: a task's struct task_signals is under tasks_lock, which
 * kill's walk already holds; the task itself reads it on its way out.
 * It lives on the process's kernel stack, just above the FPU save area
 * (kernel/process.c): 64 static slots of it would cost a 2M machine 100K
 * of RAM, and it goes with the stack when the process is gone (only live
 * processes are ever signalled: kill.c's signalable()).
 */
#include <ronx/compiler.h>
#include <ronx/string.h>
#include <ronx/spinlock.h>
#include <ronx/uaccess.h>
#include <ronx/process.h>
#include <ronx/fpu.h>
#include <ronx/signal.h>
#include <ronx/stagestat.h>

static bool sig_uncatchable(int sig)
{
	return sig == SIGKILL || sig == SIGSTOP;
}

void signals_reset(struct task *t)
{
	memset(task_signals(t), 0, sizeof(struct task_signals));
}

/* fork: the handlers and the mask are the parent's, nothing is pending. */
void signals_fork(struct task *child, const struct task *parent)
{
	struct task_signals *c = task_signals(child);

	*c = *task_signals(parent);
	c->pending = 0;
	c->restart_nr = 0;
	c->it_real_at = c->it_real_incr = 0;	/* timers are not inherited (kernel/itimer.c) */
	c->it_virt = c->it_prof = (struct cpu_itimer){ 0, 0 };
	memset(&c->fault, 0, sizeof(c->fault));
}

/*
 * execve: the old program's handlers and alternate stack are gone;
 * ignored stays ignored, the mask stays.
 */
void signals_exec(struct task *t)
{
	struct task_signals *s = task_signals(t);
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	for (int i = 0; i < _NSIG; i++)
		if (s->action[i].handler != SIG_IGN)
			memset(&s->action[i], 0, sizeof(s->action[i]));
	s->sas_ss_sp = s->sas_ss_size = s->sas_ss_flags = 0;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * kill/tgkill: true if the signal is the handler's business (queued, or
 * ignored by SIG_IGN, or blocked and left pending), false if kill.c's
 * default action applies. tasks_lock held.
 */
bool signal_queue_locked(struct task *t, int sig, int sender, bool tkill)
{
	struct task_signals *s = task_signals(t);
	uint32_t h = s->action[sig - 1].handler;

	if (sig == SIGKILL)
		return false;
	if (h == SIG_IGN)
		return true;
	/* a stop is queued too: the process stops itself (kernel/signal_stop.c) */
	if (h == SIG_DFL && !(s->blocked & sigmask(sig)) && !sig_stops(sig))
		return false;
	if (!(s->pending & sigmask(sig))) {
		s->pending |= sigmask(sig);
		s->sender[sig - 1] = sender;
		s->tkill[sig - 1] = tkill;
	}
	wake_up_task_locked(t);
	return true;
}

/*
 * A fault in ring 3 with a handler ready for its signal: queued with its
 * siginfo, and true; false (blocked, ignored or default) and the caller
 * prints the segfault line and kills, as Linux's force_sig_info() does
 * for a signal the process cannot take.
 */
bool force_sig_handled(int sig, int code, uint32_t addr, const struct trap_frame *f)
{
	struct task_signals *s = task_signals(current);
	uint32_t h = s->action[sig - 1].handler;
	unsigned long flags;

	if (h == SIG_DFL || h == SIG_IGN || (s->blocked & sigmask(sig)))
		return false;
	spin_lock_irqsave(&tasks_lock, flags);
	s->pending |= sigmask(sig);
	s->fault = (struct fault_sig){ sig, code, addr, f->vector, f->error_code };
	spin_unlock_irqrestore(&tasks_lock, flags);
	return true;
}

void syscall_set_restart(int nr)
{
	task_signals(current)->restart_nr = nr;
}

/*
 * A system call that a signal ended (-ERESTARTSYS) is called again: eip
 * back onto its 2-byte int 0x80, eax its number again; or, for a handler
 * without SA_RESTART, it fails with -EINTR (Linux: handle_signal()'s
 * switch, and arch_do_signal_or_restart() when no handler runs). Done
 * before the frame is written, so that rt_sigreturn comes back to it.
 */
static void syscall_restart(struct trap_frame *f, const struct k_sigaction *ka)
{
	struct task_signals *s = task_signals(current);

	if (!s->restart_nr)
		return;
	if (ka && !(ka->flags & SA_RESTART)) {
		f->eax = (uint32_t)-EINTR;
	} else {
		f->eax = (uint32_t)s->restart_nr;
		f->eip -= 2;
	}
	s->restart_nr = 0;
}

/*
 * The lowest pending unblocked signal and its siginfo, taken off; 0 if
 * none. For a handler, the mask it runs under is set here, under the same
 * lock (kill reads the mask on other CPUs), and *oldmask is the one its
 * frame saves: its own signal (unless SA_NODEFER) and sa_mask blocked.
 */
static int dequeue_signal(struct siginfo *info, struct k_sigaction *ka, sigset_t *oldmask)
{
	struct task_signals *s = task_signals(current);
	sigset_t ready;
	unsigned long flags;
	int sig = 0;

	spin_lock_irqsave(&tasks_lock, flags);
	ready = s->pending & ~s->blocked;
	if (ready) {
		sig = __builtin_ctzll(ready) + 1;
		s->pending &= ~sigmask(sig);
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		if (s->fault.sig == sig) {
			info->si_code = s->fault.code;
			info->fault.addr = s->fault.addr;
			s->fault.sig = 0;
		} else {
			/* no sender: the kernel's own (Linux: SEND_SIG_PRIV) */
			info->si_code = s->tkill[sig - 1] ? SI_TKILL :
					 s->sender[sig - 1] ? SI_USER : SI_KERNEL;
			info->kill.pid = s->sender[sig - 1];
		}
		*ka = s->action[sig - 1];
		*oldmask = s->blocked;
		if (ka->handler != SIG_DFL && ka->handler != SIG_IGN) {
			s->blocked |= ka->mask & ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
			if (!(ka->flags & SA_NODEFER))
				s->blocked |= sigmask(sig);
		}
		if (ka->handler == SIG_DFL && sig_stops(sig))
			signal_stop_taken_locked(sig);	/* undone by a SIGCONT from now on */
		if (ka->flags & SA_RESETHAND)
			s->action[sig - 1].handler = SIG_DFL;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return sig;
}

/*
 * On the way back to ring 3: every pending signal the process does not
 * block is acted on. A default one ends it (as kill did), an ignored one
 * is dropped, a caught one gets its frame; while the handler runs its
 * own signal (unless SA_NODEFER) and sa_mask are blocked (dequeue_signal()).
 */
void do_signal(struct trap_frame *f)
{
	struct k_sigaction ka;
	struct siginfo info;
	sigset_t oldmask;
	int sig;

	sig_stage_mark(ST_SIG_TO_DO_SIGNAL);
	while ((sig = dequeue_signal(&info, &ka, &oldmask))) {
		sig_stage_mark(ST_SIG_DEQUEUE);
		if (ka.handler == SIG_IGN)
			continue;
		if (ka.handler == SIG_DFL) {
			if (sig_kills(sig))
				do_exit(sig);
			if (sig_stops(sig)) {
				do_signal_stop();	/* returns at SIGCONT or SIGKILL */
				if (current->killed)
					do_exit(current->killed);
			}
			continue;
		}
		syscall_restart(f, &ka);
		/* Linux's choice on i386: the rt frame for SA_SIGINFO, else the old one */
		bool ok = ka.flags & SA_SIGINFO ? setup_rt_frame(f, sig, &ka, &info, oldmask) :
						  setup_frame(f, sig, &ka, &info, oldmask);
		if (!ok)
			do_exit(SIGSEGV);	/* no room for the frame: Linux's force_sigsegv() */
		sig_stage_mark(ST_SIG_FRAME_COPY);
		return;		/* one frame a return; the next on the handler's way back */
	}
	syscall_restart(f, NULL);	/* no handler ran: the call goes on */
}

long sys_rt_sigaction(uint32_t usig, uint32_t act, uint32_t oact, uint32_t size)
{
	struct task_signals *s = task_signals(current);
	int sig = (int)usig;
	struct k_sigaction new, old;
	int err = 0;

	sig_stage_start();
	if (size != sizeof(sigset_t))
		return -EINVAL;
	if (sig < 1 || sig > _NSIG)
		return -EINVAL;
	/* a word at a time: lmbench's lat_sig install is this call alone */
	if (act && get_user_struct_inline(&new, act))
		return -EFAULT;
	sig_stage_mark(ST_SIGACT_COPYIN);
	if (act && sig_uncatchable(sig))
		return -EINVAL;
	/*
	 * The old action needs no lock: only this task writes its own
	 * actions (here, SA_RESETHAND's delivery, execve), other CPUs only
	 * read them. A bad oact is -EFAULT with the new action set, as on
	 * Linux, where the copy-out comes after.
	 */
	old = s->action[sig - 1];
	if (oact)
		err = put_user_struct_inline(oact, &old);
	sig_stage_mark(ST_SIGACT_COPYOUT);
	if (act) {
		/*
		 * Interrupts off from here to the iret, which the way back
		 * (do_int80_syscall()) would turn off next anyway: no sti
		 * between, which under TCG ends a block and goes back to
		 * QEMU's main loop.
		 */
		local_irq_disable();
		__spin_lock_irqs_off(&tasks_lock);	/* kill reads it on other CPUs */
		s->action[sig - 1] = new;
		/* SIG_IGN drops what is pending, as Linux's do_sigaction() */
		if (new.handler == SIG_IGN)
			s->pending &= ~sigmask(sig);
		__spin_unlock(&tasks_lock);
	}
	sig_stage_mark(ST_SIGACT_SET);
	return err ? -EFAULT : 0;
}

long sys_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t oset, uint32_t size)
{
	struct task_signals *s = task_signals(current);
	sigset_t set, old = s->blocked;
	unsigned long flags;

	if (size != sizeof(sigset_t))
		return -EINVAL;
	if (uset) {
		if (copy_from_user(&set, (const void __user *)uset, sizeof(set)))
			return -EFAULT;
		if (how > SIG_SETMASK)
			return -EINVAL;
		set &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
		spin_lock_irqsave(&tasks_lock, flags);	/* kill reads it on other CPUs */
		if (how == SIG_BLOCK)
			s->blocked |= set;
		else if (how == SIG_UNBLOCK)
			s->blocked &= ~set;
		else
			s->blocked = set;
		spin_unlock_irqrestore(&tasks_lock, flags);
	}
	if (oset && copy_to_user((void __user *)oset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* tgkill(tgid, tid, sig): ronx's processes have one thread, tid == pid == tgid. */
long sys_tgkill(uint32_t tgid, uint32_t tid, uint32_t sig)
{
	if ((int)tgid <= 0 || (int)tid <= 0)
		return -EINVAL;
	if (tgid != tid)
		return -ESRCH;
	return tkill_pid((int)tid, (int)sig);
}

long sys_gettid(void)
{
	return current->pid;
}
