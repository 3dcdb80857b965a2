/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ulib.h - the whole of ronx's user-space C library, in one header.
 *
 * Programs in user/bin/ are static i386 ELF executables that speak Linux's
 * i386 system-call ABI (int $0x80; eax = number; ebx, ecx, edx, esi, edi,
 * ebp = arguments; eax = result or -errno), so the same binary runs on
 * ronx and on Linux. The wrappers below behave as a libc's do: on error
 * they set errno and return -1; syscall6() is the raw call for the
 * fuzzer, returning what the kernel returned.
 */
#ifndef RONX_ULIB_H
#define RONX_ULIB_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Linux's i386 system-call numbers: the kernel's own list */
#include <ronx/unistd_32.h>

/* prctl's options that name a process */
#define PR_SET_NAME	15
#define PR_GET_NAME	16

/* Linux's errno values, and mmap's PROT_ and MAP_ flags: the kernel's lists */
#include <ronx/errno.h>
#include <ronx/mman-common.h>

#define MAP_FAILED	((void *)-1)

#define PAGE_SIZE	4096UL
#define TASK_SIZE	0xc0000000UL	/* the 3G/1G split, as Linux's i386 default */

struct timespec {
	long tv_sec;
	long tv_nsec;
};

extern int errno;

/* the raw call: returns what the kernel returned (-errno on error) */
long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* the wrappers: -1 and errno on error */
void exit(int status) __attribute__((noreturn));
void _exit(int status) __attribute__((noreturn));
long read(int fd, void *buf, size_t count);
long write(int fd, const void *buf, size_t count);
int getpid(void);
int sched_yield(void);
int nanosleep(const struct timespec *req, struct timespec *rem);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long offset);
int munmap(void *addr, size_t len);
/* memfd_create's flags (Linux's <linux/memfd.h>); ronx's only files */
#define MFD_CLOEXEC		0x0001U
#define MFD_ALLOW_SEALING	0x0002U
#define MFD_HUGETLB		0x0004U
int memfd_create(const char *name, unsigned flags);
int close(int fd);
int ftruncate(int fd, long length);
int mprotect(void *addr, size_t len, int prot);
/* Linux's brk system call returns the break, the old one when it refuses */
unsigned long sys_brk(unsigned long addr);
void *sbrk(long increment);

/* errno as its name ("EFAULT"), so that ronx and Linux runs compare by text */
const char *errno_name(int e);
/* user/lib/result.c: "-1 EFAULT" or "0x1234" (four buffers); r == -1 && errno == e */
const char *result_str(long r);
int fails_with(long r, int e);

/* stdio: unbuffered, every call is one write(1) */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int puts(const char *s);
long write_all(int fd, const void *buf, size_t n);

/* strings (the kernel's own kernel/string.c, compiled for ring 3) */
void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
/* a whole argument as a number: decimal, or hex with 0x; 0 or -1 */
int parse_uint(const char *s, unsigned int *res);

/* memory: a first-fit allocator over brk */
void *malloc(size_t n);
void free(void *p);

/* timing: the time-stamp counter, and the statistics the benchmarks print */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
void sort_u32(uint32_t *v, size_t n);

/* the base of the GDT this CPU runs under (sgdt works in ring 3 without
 * UMIP, qemu32's case): each CPU has its own GDT, so the base names the
 * CPU without a system call (getcpu, bench_yield pair) */
static inline unsigned long gdt_base(void)
{
	struct {
		unsigned short limit;
		unsigned long base;
	} __attribute__((packed)) gdtr;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	return gdtr.base;
}

/* writes "mov eax, 42; ret" at dst and returns it as a function */
int (*put_ret42(void *dst))(void);

/*
 * Processes: fork, execve, wait4/waitpid, getppid, kill. vfork has no C
 * wrapper (its child would return into the parent's stack frame):
 * vfork_execve() does vfork, then execve(path, argv, envp) in the child,
 * all in registers; it returns the child's pid.
 */
long vfork_execve(const char *path, char *const argv[], char *const envp[]);
int fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
long wait4(int pid, int *status, int options, void *rusage);
int waitpid(int pid, int *status, int options);
int getppid(void);
int kill(int pid, int sig);

/*
 * Process groups and the terminal's foreground group (job control):
 * tcgetpgrp and tcsetpgrp are ioctl(fd, TIOCGPGRP/TIOCSPGRP), as libc's.
 */
#define TIOCGPGRP	0x540F
#define TIOCSPGRP	0x5410
int setpgid(int pid, int pgid);
int getpgid(int pid);
int getpgrp(void);
int setsid(void);
int ioctl(int fd, unsigned long request, void *arg);
int tcgetpgrp(int fd);
int tcsetpgrp(int fd, int pgrp);
/* waits until the process whose pid is the string pid_arg is gone (test steps) */
void wait_gone(const char *pid_arg);

/* wait4's status, as Linux's <sys/wait.h> reads it */
#define WNOHANG		1
#define WUNTRACED	2
#define WCONTINUED	8
#define WIFSTOPPED(s)	(((s) & 0xff) == 0x7f)
#define WSTOPSIG(s)	WEXITSTATUS(s)
#define WIFCONTINUED(s)	((s) == 0xffff)
#define WEXITSTATUS(s)	(((s) >> 8) & 0xff)
#define WTERMSIG(s)	((s) & 0x7f)
#define WIFEXITED(s)	(WTERMSIG(s) == 0)
#define WIFSIGNALED(s)	(((signed char)(((s) & 0x7f) + 1) >> 1) > 0)
#define SIGILL		4
#define SIGBUS		7
#define SIGKILL		9
#define SIGSEGV		11
#define SIGTERM		15

/*
 * Signals, Linux's i386 ABI (the kernel's include/ronx/signal.h has the
 * siginfo and ucontext layouts): sigaction() always passes SA_RESTORER
 * with __restore_rt (crt0.asm), which calls rt_sigreturn, as glibc.
 */
#include <ronx/signal.h>
#define SIGUSR1		10
#define SIGUSR2		12
typedef void (*sighandler_t)(int, struct siginfo *, void *);
int sigaction_k(int sig, const struct k_sigaction *act, struct k_sigaction *old);
int sigaction_handler(int sig, sighandler_t h, unsigned flags);
/* a handler without SA_SIGINFO: the old frame, returning through __restore (sigreturn) */
typedef void (*sighandler_old_t)(int);
int sigaction_old(int sig, sighandler_old_t h, unsigned flags);
int sigaction_disposition(int sig, uint32_t handler);	/* SIG_DFL or SIG_IGN */
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
int tgkill(int tgid, int tid, int sig);
int gettid(void);
typedef struct sigaltstack stack_t;
int sigaltstack(const stack_t *ss, stack_t *old);
unsigned alarm(unsigned seconds);
#include <ronx/itimer.h>
int setitimer(int which, const struct itimerval *value, struct itimerval *old);
int getitimer(int which, struct itimerval *value);
void __restore_rt(void);
void __restore(void);
#endif
