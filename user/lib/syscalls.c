// SPDX-License-Identifier: GPL-2.0-only
/*
 * The system-call wrappers, as a libc has them: the kernel returns -errno
 * (-4095..-1) on error; the wrapper stores errno and returns -1.
 */
#include <ulib.h>

int errno;

long raw_vfork_execve(const char *path, char *const argv[], char *const envp[]);

/* Linux's rule (IS_ERR_VALUE): the last 4095 values of the range are errors */
static long ret(long r)
{
	if ((unsigned long)r >= (unsigned long)-4095) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#define SYSCALL(nr, a, b, c)	syscall6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

void _exit(int status)
{
	SYSCALL(__NR_exit_group, status, 0, 0);
	SYSCALL(__NR_exit, status, 0, 0);
	/*
	 * Both came back: the kernel is broken (a lab's entry code, say).
	 * End as glibc does, on an instruction ring 3 may not run (#GP:
	 * SIGSEGV, a line the shell shows), not in a loop no one sees.
	 */
	for (;;)
		__asm__ volatile("hlt");
}

/* nothing is buffered (printf writes at once), so exit has nothing to flush */
void exit(int status)
{
	_exit(status);
}

long read(int fd, void *buf, size_t count)
{
	return ret(SYSCALL(__NR_read, fd, buf, count));
}

long write(int fd, const void *buf, size_t count)
{
	return ret(SYSCALL(__NR_write, fd, buf, count));
}

int getpid(void)
{
	return (int)SYSCALL(__NR_getpid, 0, 0, 0);
}

int sched_yield(void)
{
	return (int)ret(SYSCALL(__NR_sched_yield, 0, 0, 0));
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)ret(SYSCALL(__NR_nanosleep, req, rem, 0));
}

/* mmap2 counts the offset in 4096-byte pages; a byte offset that is not
 * page-aligned is the caller's error, as in libc */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long offset)
{
	if (offset & (long)(PAGE_SIZE - 1)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return (void *)ret(syscall6(__NR_mmap2, (long)addr, (long)len, prot, flags, fd,
				    offset / (long)PAGE_SIZE));
}

int memfd_create(const char *name, unsigned flags)
{
	return (int)ret(SYSCALL(__NR_memfd_create, name, flags, 0));
}

int close(int fd)
{
	return (int)ret(SYSCALL(__NR_close, fd, 0, 0));
}

int ftruncate(int fd, long length)
{
	return (int)ret(SYSCALL(__NR_ftruncate, fd, length, 0));
}

int munmap(void *addr, size_t len)
{
	return (int)ret(SYSCALL(__NR_munmap, addr, len, 0));
}

int mprotect(void *addr, size_t len, int prot)
{
	return (int)ret(SYSCALL(__NR_mprotect, addr, len, prot));
}

unsigned long sys_brk(unsigned long addr)
{
	return (unsigned long)SYSCALL(__NR_brk, addr, 0, 0);
}

/* sbrk over brk: the kernel answers with the break it has after the call */
void *sbrk(long increment)
{
	unsigned long old = sys_brk(0), want = old + (unsigned long)increment;

	if (increment && sys_brk(want) != want) {
		errno = ENOMEM;
		return (void *)-1;
	}
	return (void *)old;
}

long vfork_execve(const char *path, char *const argv[], char *const envp[])
{
	return ret(raw_vfork_execve(path, argv, envp));
}

long wait4(int pid, int *status, int options, void *rusage)
{
	return ret(syscall6(__NR_wait4, pid, (long)status, options, (long)rusage, 0, 0));
}

int waitpid(int pid, int *status, int options)
{
	return (int)ret(SYSCALL(__NR_waitpid, pid, status, options));
}

int fork(void)
{
	return (int)ret(SYSCALL(__NR_fork, 0, 0, 0));
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)ret(SYSCALL(__NR_execve, path, argv, envp));
}

int getppid(void)
{
	return (int)SYSCALL(__NR_getppid, 0, 0, 0);
}

int kill(int pid, int sig)
{
	return (int)ret(SYSCALL(__NR_kill, pid, sig, 0));
}

int setpgid(int pid, int pgid)
{
	return (int)ret(SYSCALL(__NR_setpgid, pid, pgid, 0));
}

int getpgid(int pid)
{
	return (int)ret(SYSCALL(__NR_getpgid, pid, 0, 0));
}

int getpgrp(void)
{
	return (int)ret(SYSCALL(__NR_getpgrp, 0, 0, 0));
}

int setsid(void)
{
	return (int)ret(SYSCALL(__NR_setsid, 0, 0, 0));
}

int ioctl(int fd, unsigned long request, void *arg)
{
	return (int)ret(SYSCALL(__NR_ioctl, fd, request, arg));
}

int tcgetpgrp(int fd)
{
	int pgrp;

	return ioctl(fd, TIOCGPGRP, &pgrp) < 0 ? -1 : pgrp;
}

int tcsetpgrp(int fd, int pgrp)
{
	return ioctl(fd, TIOCSPGRP, &pgrp);
}

/*
 * Waits until process pid is gone (kill(pid, 0) fails): how the tests
 * that read page tables from outside step a program on (they kill a
 * `spin` whose pid it was given, and the shell reaps it).
 */
void wait_gone(const char *pid_arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	unsigned int pid;

	if (parse_uint(pid_arg, &pid) || pid == 0)
		return;
	while (kill((int)pid, 0) == 0)
		nanosleep(&ts, NULL);
}

static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
	[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC", [EBADF] = "EBADF",
	[ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM", [EACCES] = "EACCES",
	[EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [ENODEV] = "ENODEV",
	[EINVAL] = "EINVAL", [ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY",
	[EFBIG] = "EFBIG", [ESPIPE] = "ESPIPE", [ERANGE] = "ERANGE", [ENOSYS] = "ENOSYS",
	[ENOLINK] = "ENOLINK", [EOVERFLOW] = "EOVERFLOW", [EOPNOTSUPP] = "EOPNOTSUPP",
};

const char *errno_name(int e)
{
	static char other[16];

	if (e > 0 && (size_t)e < sizeof(errno_names) / sizeof(errno_names[0]) && errno_names[e])
		return errno_names[e];
	snprintf(other, sizeof(other), "errno %d", e);
	return other;
}

int sigaction_k(int sig, const struct k_sigaction *act, struct k_sigaction *old)
{
	return (int)ret(syscall6(__NR_rt_sigaction, sig, (long)act, (long)old, sizeof(sigset_t), 0, 0));
}

/* h with SA_SIGINFO|flags, and __restore_rt to come back through */
int sigaction_handler(int sig, sighandler_t h, unsigned flags)
{
	struct k_sigaction ka = { (uint32_t)h, flags | SA_SIGINFO | SA_RESTORER,
				  (uint32_t)__restore_rt, 0 };

	return sigaction_k(sig, &ka, 0);
}

/* h without SA_SIGINFO: Linux gives it the old frame; __restore comes back through sigreturn */
int sigaction_old(int sig, sighandler_old_t h, unsigned flags)
{
	struct k_sigaction ka = { (uint32_t)h, flags | SA_RESTORER, (uint32_t)__restore, 0 };

	return sigaction_k(sig, &ka, 0);
}

int sigaction_disposition(int sig, uint32_t handler)
{
	struct k_sigaction ka = { handler, 0, 0, 0 };

	return sigaction_k(sig, &ka, 0);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return (int)ret(syscall6(__NR_rt_sigprocmask, how, (long)set, (long)old, sizeof(sigset_t), 0, 0));
}

int tgkill(int tgid, int tid, int sig)
{
	return (int)ret(SYSCALL(__NR_tgkill, tgid, tid, sig));
}

int sigaltstack(const stack_t *ss, stack_t *old)
{
	return (int)ret(SYSCALL(__NR_sigaltstack, (long)ss, (long)old, 0));
}

unsigned alarm(unsigned seconds)
{
	return (unsigned)SYSCALL(__NR_alarm, seconds, 0, 0);
}

int setitimer(int which, const struct itimerval *value, struct itimerval *old)
{
	return (int)ret(SYSCALL(__NR_setitimer, which, value, old));
}

int getitimer(int which, struct itimerval *value)
{
	return (int)ret(SYSCALL(__NR_getitimer, which, value, 0));
}

int gettid(void)
{
	return (int)SYSCALL(__NR_gettid, 0, 0, 0);
}
