// SPDX-License-Identifier: GPL-2.0-only
/*
 * kleak [leak]: "no system call returns a kernel address" (issue 23),
 * checked from ring 3. It makes every system call ronx has, with valid
 * arguments, through kcall(), which also keeps every register as the
 * kernel left it, and looks at every 32-bit word it got back: the return
 * value, the six other registers, and each buffer the kernel filled
 * (uname, prctl's name, getcpu, wait4's status and rusage, nanosleep's
 * remainder, read's line, the old sigaction and mask, the signal frame a
 * handler gets: siginfo, ucontext and FPU state), plus what exec left on the initial stack
 * (argv, envp, auxv). Each word >= 0xc0000000 that is not an -errno
 * (-4095..-1) is printed as
 *	kleak: CALL WHERE 0xWORD
 * and the test (tests/qemu/test_kleak.py) decides from outside, against
 * this boot's kernel range, whether it is a kernel address. Values the
 * kernel may return that high for a good reason (none on ronx) would show
 * here too: the test says which they are.
 *
 * "leak" adds a control: the bases of the GDT and IDT that sgdt and sidt
 * read in ring 3 (no UMIP on qemu32), kernel addresses reported as if a
 * call had returned them. The test must catch them.
 */
#include <ulib.h>

#define NR_REGS	7	/* eax, ebx, ecx, edx, esi, edi, ebp */

static const char *const reg_names[NR_REGS] = { "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp" };
static unsigned long words, found;
static uint8_t called[512];	/* which system-call numbers it made */

/*
 * void kcall(uint32_t io[7]): io = eax (the number), ebx, ecx, edx, esi,
 * edi, ebp in; the same seven registers after int $0x80 out.
 */
__asm__(".text\n"
	".globl kcall\n"
	"kcall:\n"
	"	push %ebp\n push %ebx\n push %esi\n push %edi\n"
	"	mov 20(%esp), %eax\n"
	"	push %eax\n"
	"	mov 4(%eax), %ebx\n mov 8(%eax), %ecx\n mov 12(%eax), %edx\n"
	"	mov 16(%eax), %esi\n mov 20(%eax), %edi\n mov 24(%eax), %ebp\n"
	"	mov 0(%eax), %eax\n"
	"	int $0x80\n"
	"	xchg %eax, (%esp)\n"
	"	mov %ebx, 4(%eax)\n mov %ecx, 8(%eax)\n mov %edx, 12(%eax)\n"
	"	mov %esi, 16(%eax)\n mov %edi, 20(%eax)\n mov %ebp, 24(%eax)\n"
	"	pop %ebx\n"
	"	mov %ebx, 0(%eax)\n"
	"	pop %edi\n pop %esi\n pop %ebx\n pop %ebp\n"
	"	ret\n");
void kcall(uint32_t io[NR_REGS]);

static int is_errno(uint32_t w)
{
	return w >= (uint32_t)-4095;
}

static void word(const char *call, const char *where, unsigned off, uint32_t w)
{
	words++;
	if (w < TASK_SIZE || is_errno(w))
		return;
	found++;
	printf("kleak: %s %s+%u 0x%08x\n", call, where, off, (unsigned)w);
}

/* every aligned word of a buffer the kernel filled (zeroed before the call) */
static void buffer(const char *call, const char *what, const void *p, size_t n)
{
	const uint32_t *w = p;

	for (size_t i = 0; i < n / 4; i++)
		word(call, what, (unsigned)(4 * i), w[i]);
}

/* One system call; its seven registers checked. Returns eax. */
static long call(const char *name, long nr, long a1, long a2, long a3, long a4, long a5)
{
	uint32_t io[NR_REGS] = { (uint32_t)nr, (uint32_t)a1, (uint32_t)a2, (uint32_t)a3,
				 (uint32_t)a4, (uint32_t)a5, 0 };

	called[nr & 511] = 1;
	kcall(io);
	for (int i = 0; i < NR_REGS; i++)
		word(name, reg_names[i], 0, io[i]);
	return (long)io[0];
}

/* What exec left: argc, argv[], envp[] and the auxv pairs after them. */
static void initial_stack(int argc, char **argv, char **envp)
{
	char **p = envp;

	word("exec", "argc", 0, (uint32_t)argc);
	buffer("exec", "argv", argv, 4 * (size_t)(argc + 1));
	while (*p)
		p++;
	buffer("exec", "envp", envp, 4 * (size_t)(p - envp + 1));
	p++;
	for (size_t i = 0; i < 64 && (p[2 * i] || p[2 * i + 1]); i++)
		buffer("exec", "auxv", &p[2 * i], 8);
}

static void files_and_names(void)
{
	static char uts[6 * 65], name[16], line[128];
	static const char msg[] = "kleak: write\n";
	static const struct timespec ts = { 0, 1000000 };
	static struct timespec rem;
	static unsigned cpu, node;
	size_t n;

	call("uname", __NR_uname, (long)uts, 0, 0, 0, 0);
	buffer("uname", "utsname", uts, sizeof(uts));
	n = strlen(uts + 65);	/* the nodename, set back as it was */
	call("sethostname", __NR_sethostname, (long)(uts + 65), (long)n, 0, 0, 0);
	call("prctl", __NR_prctl, PR_GET_NAME, (long)name, 0, 0, 0);
	buffer("prctl", "name", name, sizeof(name));
	call("prctl", __NR_prctl, PR_SET_NAME, (long)"kleak", 0, 0, 0);
	call("getcpu", __NR_getcpu, (long)&cpu, (long)&node, 0, 0, 0);
	word("getcpu", "cpu", 0, cpu);
	word("getcpu", "node", 0, node);
	call("nanosleep", __NR_nanosleep, (long)&ts, (long)&rem, 0, 0, 0);
	buffer("nanosleep", "rem", &rem, sizeof(rem));
	call("write", __NR_write, 1, (long)msg, sizeof(msg) - 1, 0, 0);
	printf("kleak: type a line\n");
	call("read", __NR_read, 0, (long)line, sizeof(line), 0, 0);
	buffer("read", "line", line, sizeof(line));
	call("read", __NR_read, 0, (long)line, 0, 0, 0);
}

/* Process groups and the terminal: kleak leads its session, so setpgid and setsid are EPERM. */
static void job_control(void)
{
	static int pgrp;

	call("getpgrp", __NR_getpgrp, 0, 0, 0, 0, 0);
	call("getpgid", __NR_getpgid, 0, 0, 0, 0, 0);
	call("setpgid", __NR_setpgid, 0, 0, 0, 0, 0);
	call("setsid", __NR_setsid, 0, 0, 0, 0, 0);
	call("ioctl", __NR_ioctl, 0, TIOCGPGRP, (long)&pgrp, 0, 0);
	word("ioctl", "pgrp", 0, (uint32_t)pgrp);
}

/* memfd_create, ftruncate and ftruncate64, a shared mapping of it, close */
static void memfd(void)
{
	long fd = call("memfd_create", __NR_memfd_create, (long)"kleak", MFD_CLOEXEC, 0, 0, 0);
	long m;

	call("ftruncate", __NR_ftruncate, fd, 4096, 0, 0, 0);
	call("ftruncate64", __NR_ftruncate64, fd, 8192, 0, 0, 0);
	m = call("mmap2", __NR_mmap2, 0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	call("munmap", __NR_munmap, m, 4096, 0, 0, 0);
	call("close", __NR_close, fd, 0, 0, 0, 0);
}

static void memory(void)
{
	long brk = call("brk", __NR_brk, 0, 0, 0, 0, 0);
	long m;

	call("brk", __NR_brk, brk + 4096, 0, 0, 0, 0);
	m = call("mmap2", __NR_mmap2, 0, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1);
	*(volatile char *)m = 1;
	call("mprotect", __NR_mprotect, m, 4096, PROT_READ, 0, 0);
	call("munmap", __NR_munmap, m, 4096, 0, 0, 0);
	memfd();
}

static void processes(void)
{
	static char *const argv[] = { "true", 0 };
	static char *const envp[] = { 0 };
	static int status;
	static uint32_t rusage[18];	/* Linux's i386 struct rusage: 72 bytes */
	long pid;

	call("getpid", __NR_getpid, 0, 0, 0, 0, 0);
	call("getppid", __NR_getppid, 0, 0, 0, 0, 0);
	call("sched_yield", __NR_sched_yield, 0, 0, 0, 0, 0);
	pid = call("fork", __NR_fork, 0, 0, 0, 0, 0);
	if (pid == 0) {	/* the child: execve returns only if it failed */
		call("execve", __NR_execve, (long)"/bin/true", (long)argv, (long)envp, 0, 0);
		_exit(127);
	}
	call("wait4", __NR_wait4, pid, (long)&status, 0, (long)rusage, 0);
	word("wait4", "status", 0, (uint32_t)status);
	buffer("wait4", "rusage", rusage, sizeof(rusage));
	pid = call("fork", __NR_fork, 0, 0, 0, 0, 0);
	if (pid == 0) {	/* the child sleeps until killed */
		static const struct timespec ten = { 10, 0 };

		nanosleep(&ten, 0);
		_exit(0);
	}
	call("kill", __NR_kill, pid, SIGKILL, 0, 0, 0);
	call("waitpid", __NR_waitpid, pid, (long)&status, 0, 0, 0);
	word("waitpid", "status", 0, (uint32_t)status);
	pid = call("fork", __NR_fork, 0, 0, 0, 0, 0);
	if (pid == 0)	/* exit (not exit_group) */
		call("exit", __NR_exit, 5, 0, 0, 0, 0);
	call("waitpid", __NR_waitpid, pid, (long)&status, 0, 0, 0);
	word("waitpid", "status", 0, (uint32_t)status);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 5)
		called[__NR_exit] = 1;	/* the child's call: its table is its own */
	/* vfork: its child may not return into this frame; vfork_execve keeps it in registers */
	called[__NR_vfork] = called[__NR_execve] = 1;
	pid = vfork_execve("/bin/true", argv, envp);
	word("vfork", "eax", 0, (uint32_t)pid);
	call("waitpid", __NR_waitpid, pid, (long)&status, 0, 0, 0);
}

static volatile int handled;

/* The handler's view: every word of the frame the kernel wrote. */
static void on_usr1(int sig, struct siginfo *si, void *uc)
{
	const struct ucontext *u = uc;

	handled = 1;
	word("signal", "sig", 0, (uint32_t)sig);
	buffer("signal", "siginfo", si, sizeof(*si));
	buffer("signal", "ucontext", u, sizeof(*u));
	if (u->uc_mcontext.fpstate)
		buffer("signal", "fpstate", (const void *)u->uc_mcontext.fpstate, 112);
}

/* The old frame's handler: sig, then the sigcontext above it (frame pointers are on). */
static void __attribute__((noinline)) on_usr1_old(int sig)
{
	const uint32_t *fp = __builtin_frame_address(0);

	handled = 1;
	word("signal", "sig", 0, (uint32_t)sig);
	buffer("signal", "sigframe", fp + 1, sizeof(struct sigframe));
}

/* rt_sigaction, rt_sigprocmask, gettid, sigaltstack, tgkill to a handler, rt_sigreturn, sigreturn. */
static void signals(void)
{
	static struct k_sigaction act, old;
	static sigset_t set, oldset;

	act = (struct k_sigaction){ (uint32_t)on_usr1, SA_SIGINFO | SA_RESTORER,
				    (uint32_t)__restore_rt, 0 };
	call("rt_sigaction", __NR_rt_sigaction, SIGUSR1, (long)&act, (long)&old, 8, 0);
	call("rt_sigaction", __NR_rt_sigaction, SIGUSR1, 0, (long)&old, 8, 0);
	buffer("rt_sigaction", "old", &old, sizeof(old));
	call("rt_sigprocmask", __NR_rt_sigprocmask, SIG_BLOCK, (long)&set, (long)&oldset, 8, 0);
	buffer("rt_sigprocmask", "old", &oldset, sizeof(oldset));
	long tid = call("gettid", __NR_gettid, 0, 0, 0, 0, 0);
	call("alarm", __NR_alarm, 0, 0, 0, 0, 0);
	static struct itimerval it_zero, it_old;
	call("setitimer", __NR_setitimer, ITIMER_REAL, (long)&it_zero, (long)&it_old, 0, 0);
	buffer("setitimer", "old", &it_old, sizeof(it_old));
	call("getitimer", __NR_getitimer, ITIMER_REAL, (long)&it_old, 0, 0, 0);
	buffer("getitimer", "value", &it_old, sizeof(it_old));
	/* the handler runs on an alternate stack (its uc_stack too) and returns through rt_sigreturn */
	static char alt[MINSIGSTKSZ * 2];
	static stack_t ss, oldss;
	ss = (stack_t){ (uint32_t)alt, 0, sizeof(alt) };
	call("sigaltstack", __NR_sigaltstack, (long)&ss, (long)&oldss, 0, 0, 0);
	call("sigaltstack", __NR_sigaltstack, 0, (long)&oldss, 0, 0, 0);
	buffer("sigaltstack", "old", &oldss, sizeof(oldss));
	act.flags |= SA_ONSTACK;
	call("rt_sigaction", __NR_rt_sigaction, SIGUSR1, (long)&act, 0, 8, 0);
	/* kcall sees the registers rt_sigreturn restored */
	call("tgkill", __NR_tgkill, getpid(), tid, SIGUSR1, 0, 0);
	if (handled)	/* it ran, and came back: rt_sigreturn worked */
		called[__NR_rt_sigreturn] = 1;
	/* without SA_SIGINFO: the old frame, and back through sigreturn */
	handled = 0;
	act = (struct k_sigaction){ (uint32_t)on_usr1_old, SA_RESTORER, (uint32_t)__restore, 0 };
	call("rt_sigaction", __NR_rt_sigaction, SIGUSR1, (long)&act, 0, 8, 0);
	call("tgkill", __NR_tgkill, getpid(), tid, SIGUSR1, 0, 0);
	if (handled)
		called[__NR_sigreturn] = 1;
}

/* The control: kernel addresses ring 3 can read without a system call. */
static void control_leak(void)
{
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) gdtr, idtr;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	__asm__ volatile("sidt %0" : "=m"(idtr));
	word("leak", "sgdt", 0, gdtr.base);
	word("leak", "sidt", 0, idtr.base);
}

int main(int argc, char **argv, char **envp)
{
	initial_stack(argc, argv, envp);
	files_and_names();
	job_control();
	memory();
	processes();
	signals();
	if (argc > 1 && strcmp(argv[1], "leak") == 0)
		control_leak();
	called[__NR_exit_group] = 1;	/* the last call, below */
	printf("kleak: called");
	for (int nr = 0; nr < 512; nr++)
		if (called[nr])
			printf(" %d", nr);
	printf("\n");
	printf("kleak: %lu words checked, %lu at or above 0x%08lx (not -errno)\n", words, found,
	       TASK_SIZE);
	/* exit_group, the last call: it does not return */
	call("exit_group", __NR_exit_group, 0, 0, 0, 0, 0);
	return 0;
}
