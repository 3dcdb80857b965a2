// SPDX-License-Identifier: GPL-2.0-only
/*
 * The system-call table and the int $0x80 entry (Linux:
 * arch/x86/entry/common.c, do_int80_syscall_32()). The gate is DPL 3, so
 * ring 3 may raise it; everything else about the call comes from the
 * registers the process saved in its trap frame. Every pointer argument
 * goes through the user-access layer (mm/uaccess.c: copy_from_user(),
 * copy_to_user(), get_user(), put_user(), strncpy_from_user()): a bad one
 * is -EFAULT, never an oops. Numbers ronx does not implement are -ENOSYS.
 *
 * The call runs with interrupts on, as Linux's does: a trap gate left
 * them on (without PTI), or trap_common turns them on once the frame is
 * saved (PTI's interrupt gate), so the timer, COM1 (Ctrl-C) and the
 * cross-CPU calls may come in while a long call works. They are off again for the way
 * back (exit_to_user_mode()). Code in a call may not hold a spinlock with
 * them on: every lock is the irqsave kind (docs/design.md, "Locks").
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/percpu.h>
#include <ronx/spinlock.h>
#include <ronx/irq.h>
#include <ronx/mman.h>
#include <ronx/uaccess.h>
#include <ronx/process.h>
#include <ronx/tty.h>
#include <ronx/syscall.h>
#include <ronx/traps.h>
#include <ronx/signal.h>
#include <ronx/memfd.h>
#include <ronx/itimer.h>

/*
 * LKDTM's crash point idea: `crash SYSCALL_BUG` arms it, and the next
 * system call of any process dereferences NULL in the kernel, so the
 * oops happens in that process's context: it dies, the kernel goes on.
 */
bool lkdtm_syscall_bug;

static void syscall_crashpoint(void)
{
	if (lkdtm_syscall_bug) {
		lkdtm_syscall_bug = false;
		pr_info("lkdtm: SYSCALL_BUG: a kernel bug in %pE[%d]'s system call\n", current->comm,
			current->pid);
		(void)*(volatile int *)0;
	}
}

typedef long (*syscall_fn)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
unsigned long syscall_count;

static long sys_exit(uint32_t code)
{
	do_exit((int)((code & 0xff) << 8));	/* the wait status of a normal exit */
}

static long sys_read(uint32_t fd, uint32_t buf, uint32_t count)
{
	return ksys_read(fd, (char *)buf, count);
}

static long sys_write(uint32_t fd, uint32_t buf, uint32_t count)
{
	return ksys_write(fd, (const char *)buf, count);
}

static long __syscall_hot sys_getpid(void)
{
	return current->pid;
}

static long sys_brk(uint32_t brk)
{
	return (long)do_brk(current->mm, brk);
}

static long sys_mmap2(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags, uint32_t fd,
		      uint32_t pgoff)
{
	return do_mmap_pgoff(current->mm, addr, len, prot, flags, (int)fd, pgoff);
}

static long sys_munmap(uint32_t addr, uint32_t len)
{
	return do_munmap(current->mm, addr, len);
}

static long sys_mprotect(uint32_t addr, uint32_t len, uint32_t prot)
{
	return do_mprotect(current->mm, addr, len, prot);
}

static long sys_sched_yield(void)
{
	yield();
	return 0;
}

struct timespec32 {
	int32_t tv_sec, tv_nsec;
};

/*
 * Sleeps in whole ticks (HZ), rounded up, as Linux's jiffies-based sleep
 * did. The request is read field by field with get_user(), as Linux's
 * compat_get_timespec() did.
 */
static long sys_nanosleep(uint32_t req)
{
	const struct timespec32 __user *u = (const struct timespec32 __user *)req;
	struct timespec32 ts;
	uint64_t ticks;
	unsigned long deadline;

	if (get_user(ts.tv_sec, &u->tv_sec) || get_user(ts.tv_nsec, &u->tv_nsec))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -EINVAL;
	ticks = (uint64_t)ts.tv_sec * HZ + ((uint64_t)ts.tv_nsec * HZ + 999999999) / 1000000000;
	if (ticks > 0x7fffffff)
		ticks = 0x7fffffff;
	if (!ticks) {
		yield();
		return 0;
	}
	deadline = jiffies + (unsigned long)ticks;
	while ((long)(jiffies - deadline) < 0) {
		if (signal_pending(current))
			return -EINTR;		/* a kill, or a handler to run */
		sleep_on((void *)&jiffies);
	}
	return 0;
}

#define PR_SET_NAME	15
#define PR_GET_NAME	16

/*
 * prctl(2), its two options that name a process (Linux: kernel/sys.c):
 * PR_SET_NAME takes at most TASK_COMM_LEN - 1 bytes of the string,
 * PR_GET_NAME gives the whole comm buffer back.
 */
static long sys_prctl(uint32_t option, uint32_t arg2)
{
	char comm[TASK_COMM_LEN] = { 0 };	/* zeros after the name, as Linux's strscpy_pad */

	switch (option) {
	case PR_SET_NAME:
		if (strncpy_from_user(comm, (const char __user *)arg2, sizeof(comm) - 1) < 0)
			return -EFAULT;
		memcpy(current->comm, comm, sizeof(comm));
		return 0;
	case PR_GET_NAME:
		if (copy_to_user((char __user *)arg2, current->comm, sizeof(current->comm)))
			return -EFAULT;
		return 0;
	}
	return -EINVAL;
}

/* getcpu(2): the CPU the caller runs on, and its NUMA node (always 0). */
static long sys_getcpu(uint32_t cpup, uint32_t nodep)
{
	long err = 0;

	if (cpup)
		err |= put_user((unsigned)this_cpu()->id, (unsigned __user *)cpup);
	if (nodep)
		err |= put_user(0u, (unsigned __user *)nodep);
	return err ? -EFAULT : 0;
}

#define SYSCALL(nr, fn)	[nr] = (syscall_fn)(void *)(fn)

static long sys_ni_syscall(void)
{
	return -ENOSYS;
}

/* every slot filled (Linux's sys_ni_syscall): no test for an empty one on the way */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const syscall_fn sys_call_table[NR_syscalls] = {
	[0 ... NR_syscalls - 1] = (syscall_fn)(void *)sys_ni_syscall,
	SYSCALL(__NR_exit, sys_exit),
	SYSCALL(__NR_fork, sys_fork),
	SYSCALL(__NR_read, sys_read),
	SYSCALL(__NR_write, sys_write),
	SYSCALL(__NR_waitpid, sys_waitpid),
	SYSCALL(__NR_execve, sys_execve),
	SYSCALL(__NR_getpid, sys_getpid),
	SYSCALL(__NR_alarm, sys_alarm),
	SYSCALL(__NR_kill, sys_kill),
	SYSCALL(__NR_brk, sys_brk),
	SYSCALL(__NR_ioctl, sys_ioctl),
	SYSCALL(__NR_setpgid, sys_setpgid),
	SYSCALL(__NR_getppid, sys_getppid),
	SYSCALL(__NR_getpgrp, sys_getpgrp),
	SYSCALL(__NR_setsid, sys_setsid),
	SYSCALL(__NR_sethostname, sys_sethostname),
	SYSCALL(__NR_munmap, sys_munmap),
	SYSCALL(__NR_setitimer, sys_setitimer),
	SYSCALL(__NR_getitimer, sys_getitimer),
	SYSCALL(__NR_wait4, sys_wait4),
	SYSCALL(__NR_sigreturn, sys_sigreturn),
	SYSCALL(__NR_uname, sys_newuname),
	SYSCALL(__NR_mprotect, sys_mprotect),
	SYSCALL(__NR_getpgid, sys_getpgid),
	SYSCALL(__NR_sched_yield, sys_sched_yield),
	SYSCALL(__NR_nanosleep, sys_nanosleep),
	SYSCALL(__NR_mmap2, sys_mmap2),
	SYSCALL(__NR_prctl, sys_prctl),
	SYSCALL(__NR_rt_sigreturn, sys_rt_sigreturn),
	SYSCALL(__NR_rt_sigaction, sys_rt_sigaction),
	SYSCALL(__NR_rt_sigprocmask, sys_rt_sigprocmask),
	SYSCALL(__NR_sigaltstack, sys_sigaltstack),
	SYSCALL(__NR_vfork, sys_vfork),
	SYSCALL(__NR_gettid, sys_gettid),
	SYSCALL(__NR_exit_group, sys_exit),
	SYSCALL(__NR_tgkill, sys_tgkill),
	SYSCALL(__NR_getcpu, sys_getcpu),
	SYSCALL(__NR_close, sys_close),
	SYSCALL(__NR_ftruncate, sys_ftruncate),
	SYSCALL(__NR_ftruncate64, sys_ftruncate64),
	SYSCALL(__NR_memfd_create, sys_memfd_create),
};
#pragma GCC diagnostic pop

/* The way back when it has work: a restart to arm, a signal, the scheduler. */
static noinline void syscall_exit_work(struct trap_frame *f, uint32_t nr, long ret)
{
	/* a sleep a signal ended: called again or made -EINTR on the way out (do_signal()) */
	if (ret == -ERESTARTSYS && nr != __NR_rt_sigreturn && nr != __NR_sigreturn)
		syscall_set_restart((int)nr);
	exit_to_user_mode(f);
}

/* The call's end, tested once: its result, and the way back's work if any. */
static __always_inline void syscall_exit(struct trap_frame *f, uint32_t nr, long ret)
{
	local_irq_disable();
	f->eax = (uint32_t)ret;
	if (unlikely((uint32_t)(ret == -ERESTARTSYS) | exit_to_user_work()))
		syscall_exit_work(f, nr, ret);
}

/*
 * What do_int80_syscall() meets rarely, out of its way: a call from ring
 * 0 (refused: not from a process), from vm86 (the process killed),
 * lkdtm's crash point, a number ronx does not have.
 */
static noinline void do_int80_rare(struct trap_frame *f, uint32_t nr)
{
	long ret = -ENOSYS;

	if (v8086_mode(f))
		v8086_kill(f);		/* ronx has no vm86(): ends before its call runs */
	if (!user_mode(f)) {
		f->eax = (uint32_t)ret;
		return;
	}
	syscall_crashpoint();
	if (current->mm && nr < NR_syscalls)
		ret = sys_call_table[nr](f->ebx, f->ecx, f->edx, f->esi, f->edi, f->ebp);
	syscall_exit(f, nr, ret);
}

/*
 * Interrupts are on (the trap gate, or trap_common's sti with PTI). One
 * test for every rare case and one on the way back: under TCG each test
 * ends a block, and getpid's round trip is measured against Linux's
 * (issue 31).
 */
void __syscall_hot do_int80_syscall(struct trap_frame *f)
{
	uint32_t nr = f->eax, rare;
	long ret;

	syscall_count++;
	rare = ((f->cs & 3) != 3) | !!(f->eflags & X86_EFLAGS_VM) | lkdtm_syscall_bug |
	       (nr >= NR_syscalls) | (current->mm == NULL);
	OPTIMIZER_HIDE_VAR(rare);
	if (unlikely(rare)) {
		do_int80_rare(f, nr);
		return;
	}
	ret = sys_call_table[nr](f->ebx, f->ecx, f->edx, f->esi, f->edi, f->ebp);
	syscall_exit(f, nr, ret);
}
