// SPDX-License-Identifier: GPL-2.0-only
/*
 * The system-call table and the int $0x80 entry (Linux:
 * arch/x86/entry/common.c, do_int80_syscall_32()). The gate is DPL 3, so
 * ring 3 may raise it; everything else about the call comes from the
 * registers the process saved in its trap frame. Every pointer argument
 * goes through copy_from_user()/copy_to_user() (mm/uaccess.c): a bad one
 * is -EFAULT, never an oops. Numbers ronx does not implement are -ENOSYS.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/irq.h>
#include <ronx/mman.h>
#include <ronx/uaccess.h>
#include <ronx/process.h>
#include <ronx/syscall.h>

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
		pr_info("lkdtm: SYSCALL_BUG: a kernel bug in %s[%d]'s system call\n", current->comm,
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

static long sys_getpid(void)
{
	return current->pid;
}

static long sys_brk(uint32_t brk)
{
	return (long)do_brk(current->mm, brk);
}

static long sys_mmap2(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags, uint32_t fd)
{
	return do_mmap(current->mm, addr, len, prot, flags, (int)fd);
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

/* Sleeps in whole ticks (HZ), rounded up, as Linux's jiffies-based sleep did. */
static long sys_nanosleep(uint32_t req)
{
	struct timespec32 ts;
	uint64_t ticks;
	unsigned long deadline;

	if (copy_from_user(&ts, (const void *)req, sizeof(ts)))
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
		if (current->killed)
			return -EINTR;
		sleep_on((void *)&jiffies);
	}
	return 0;
}

#define SYSCALL(nr, fn)	[nr] = (syscall_fn)(void *)(fn)

static const syscall_fn sys_call_table[NR_syscalls] = {
	SYSCALL(__NR_exit, sys_exit),
	SYSCALL(__NR_read, sys_read),
	SYSCALL(__NR_write, sys_write),
	SYSCALL(__NR_getpid, sys_getpid),
	SYSCALL(__NR_brk, sys_brk),
	SYSCALL(__NR_munmap, sys_munmap),
	SYSCALL(__NR_mprotect, sys_mprotect),
	SYSCALL(__NR_sched_yield, sys_sched_yield),
	SYSCALL(__NR_nanosleep, sys_nanosleep),
	SYSCALL(__NR_mmap2, sys_mmap2),
	SYSCALL(__NR_exit_group, sys_exit),
};

void do_int80_syscall(struct trap_frame *f)
{
	uint32_t nr = f->eax;
	long ret = -ENOSYS;

	syscall_count++;
	syscall_crashpoint();
	if (user_mode(f) && current && current->mm && nr < NR_syscalls && sys_call_table[nr])
		ret = sys_call_table[nr](f->ebx, f->ecx, f->edx, f->esi, f->edi, f->ebp);
	f->eax = (uint32_t)ret;
}
