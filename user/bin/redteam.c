// SPDX-License-Identifier: GPL-2.0-only
/*
 * redteam CASE [hold]: one attack on the kernel from ring 3 (docs/redteam.md).
 * Without CASE it lists the cases.
 *
 * Two kinds of case. A "held" case tries many things the kernel must
 * refuse (pointers into the kernel half, across 3G, into holes; unknown
 * system-call numbers; mmap, mprotect, munmap and brk abuse; selectors and
 * EFLAGS bits a process may set) and checks each answer; it prints one
 * line per check and "redteam: CASE: held, N checks" with exit 0 when all
 * hold. A "fatal" case does one thing the CPU must refuse (a privileged
 * instruction, a trap, a kernel selector): it prints the exception it
 * expects ("expect #GP error 0x10") and then tries; the kernel must kill
 * it. A line after the attempt ("WENT THROUGH") means it was not refused.
 * The memory hog is killed too, by the kernel's OOM kill rather than by
 * the CPU ("NOT KILLED" if mmap refused it instead).
 *
 * The same binary runs on ronx, on Linux and under qemu-i386: the kernel's
 * selectors are computed from the user ones (both kernels keep kernel CS
 * and DS two GDT entries below user CS and DS: ronx 0x08/0x10 under
 * 0x1b/0x23, Linux 0x60/0x68 under 0x73/0x7b), the TSS's from `str`.
 * tests/user/progs.py says what each case must do on each kernel.
 *
 * A jump to a kernel selector that did not fault would land in
 * redteam_landing, which tells ring 0 from ring 3: in ring 0 it writes
 * QEMU's isa-debug-exit port, so the whole machine stops with status 181,
 * a marker the test sees from outside; in ring 3 it says so and exits 98.
 */
#include <stdbool.h>
#include <ulib.h>

#define KERNEL_ADDR	0xc0100000UL	/* ronx's kernel text; Linux's too */
#define X86_EFLAGS_TF	0x00000100u
#define X86_EFLAGS_IF	0x00000200u
#define X86_EFLAGS_DF	0x00000400u
#define X86_EFLAGS_IOPL	0x00003000u
#define X86_EFLAGS_NT	0x00004000u
#define X86_EFLAGS_VM	0x00020000u
#define X86_EFLAGS_AC	0x00040000u
#define X86_EFLAGS_ID	0x00200000u

static const char *me;		/* the case's name, for every line */
static int n_checks, n_failed;

struct farptr {
	uint32_t offset;
	uint16_t sel;
} __attribute__((packed));

struct descptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

void redteam_landing(void);
void landed_in_ring3(void) __attribute__((noreturn, used));

/*
 * Where a far jump, call or iret to a kernel selector would arrive. In
 * ring 0: out to port 0xf4 (QEMU's isa-debug-exit: the machine stops with
 * status (0x5a << 1) | 1 = 181), then halt for ever.
 */
__asm__(".text\n"
	".globl redteam_landing\n"
	"redteam_landing:\n\t"
	"movl %cs, %eax\n\t"
	"testl $3, %eax\n\t"
	"jnz 1f\n\t"
	"movw $0xf4, %dx\n\t"
	"movb $0x5a, %al\n\t"
	"outb %al, %dx\n"
	"2:\thlt\n\t"
	"jmp 2b\n"
	"1:\tandl $-16, %esp\n\t"
	"call landed_in_ring3\n");

void landed_in_ring3(void)
{
	printf("redteam: %s: landed in ring 3 at the target: NOT REFUSED\n", me);
	_exit(98);
}

/* -- helpers ------------------------------------------------------------ */

static uint32_t user_cs(void)
{
	uint32_t v;

	__asm__ volatile("movl %%cs, %0" : "=r"(v));
	return v & 0xffff;
}

static uint32_t user_ds(void)
{
	uint32_t v;

	__asm__ volatile("movl %%ds, %0" : "=r"(v));
	return v & 0xffff;
}

static uint32_t kernel_cs(void)
{
	return (user_cs() & ~3u) - 0x10;
}

static uint32_t kernel_ds(void)
{
	return (user_ds() & ~3u) - 0x10;
}

static uint32_t tss_sel(void)
{
	uint32_t v = 0;

	__asm__ volatile("str %0" : "=r"(v));
	return v & 0xffff;
}

static uint32_t get_eflags(void)
{
	uint32_t v;

	__asm__ volatile("pushfl; popl %0" : "=r"(v));
	return v;
}

static void set_eflags(uint32_t v)
{
	__asm__ volatile("pushl %0; popfl" : : "r"(v) : "cc", "memory");
}

/* the raw call's -errno as the wrappers would give it */
static long wrap(long r)
{
	if ((unsigned long)r >= (unsigned long)-4095) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static void check(int ok, const char *what, const char *got)
{
	n_checks++;
	n_failed += !ok;
	printf("redteam: %s: %sok - %s = %s\n", me, ok ? "" : "not ", what, got);
}

static void check_errno(long r, int e, const char *what)
{
	check(r == -1 && errno == e, what, result_str(r));
}

static int finish(void)
{
	if (n_failed) {
		printf("redteam: %s: %d of %d checks failed\n", me, n_failed, n_checks);
		return 1;
	}
	printf("redteam: %s: held, %d checks\n", me, n_checks);
	return 0;
}

/* A fatal case's announcement: the exception the CPU must raise. */
static void expect(const char *what, const char *trap, long err)
{
	if (err >= 0)
		printf("redteam: %s: %s; expect %s error %#lx\n", me, what, trap, err);
	else
		printf("redteam: %s: %s; expect %s\n", me, what, trap);
}

static void expect_pf(const char *what, unsigned long addr, unsigned err)
{
	printf("redteam: %s: %s; expect #PF at %#lx error %#x\n", me, what, addr, err);
}

/* -- held: pointers ------------------------------------------------------ */

/* three pages mapped, the middle one unmapped again: a hole inside the process */
static char *hole_page(void)
{
	char *p = mmap(0, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p + PAGE_SIZE, PAGE_SIZE))
		return 0;
	return p + PAGE_SIZE;
}

extern char _start[];	/* its own text (user/lib/crt0.asm) */

static int held_pointers(void)
{
	/* the kernel half, its fixmap end, just below 3G running across it */
	static const unsigned long bad[] = { 0xc0000000UL, KERNEL_ADDR, 0xfffff000UL, 0xffffffc0UL,
					     0xbffffff8UL };
	char *hole = hole_page();
	char *none = mmap(0, PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *text = _start;
	char what[80];

	check(hole != 0 && none != MAP_FAILED, "set-up: a hole and a PROT_NONE page",
	      hole ? result_str((long)none) : "no hole");
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		void *p = (void *)bad[i];

		snprintf(what, sizeof(what), "write(1, %#lx, 16)", bad[i]);
		check_errno(write(1, p, 16), EFAULT, what);
		snprintf(what, sizeof(what), "read(0, %#lx, 16)", bad[i]);
		check_errno(read(0, p, 16), EFAULT, what);
		snprintf(what, sizeof(what), "nanosleep(%#lx)", bad[i] + 8);
		check_errno(nanosleep((void *)(bad[i] + 8), 0), EFAULT, what);
		snprintf(what, sizeof(what), "prctl(PR_GET_NAME, %#lx)", bad[i]);
		check_errno(wrap(syscall6(__NR_prctl, PR_GET_NAME, (long)p, 0, 0, 0, 0)), EFAULT, what);
		snprintf(what, sizeof(what), "prctl(PR_SET_NAME, %#lx)", bad[i] + 8);
		check_errno(wrap(syscall6(__NR_prctl, PR_SET_NAME, (long)bad[i] + 8, 0, 0, 0, 0)),
			    EFAULT, what);
		snprintf(what, sizeof(what), "getcpu(%#lx, %#lx)", bad[i] + 8, bad[i] + 12);
		check_errno(wrap(syscall6(__NR_getcpu, (long)bad[i] + 8, (long)bad[i] + 12, 0, 0, 0, 0)),
			    EFAULT, what);
		snprintf(what, sizeof(what), "uname(%#lx)", bad[i]);
		check_errno(wrap(syscall6(__NR_uname, (long)p, 0, 0, 0, 0, 0)), EFAULT, what);
		snprintf(what, sizeof(what), "sethostname(%#lx, 16)", bad[i]);
		check_errno(wrap(syscall6(__NR_sethostname, (long)p, 16, 0, 0, 0, 0)), EFAULT, what);
	}
	/* inside the user half, but nothing there, or nothing readable */
	const struct { const char *name; char *p; } holes[] = {
		{ "a hole between two pages", hole }, { "a PROT_NONE page", none },
		{ "page 1", (char *)PAGE_SIZE } };
	for (unsigned i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
		snprintf(what, sizeof(what), "write(1, %s, 16)", holes[i].name);
		check_errno(write(1, holes[i].p, 16), EFAULT, what);
		snprintf(what, sizeof(what), "uname(%s)", holes[i].name);
		check_errno(wrap(syscall6(__NR_uname, (long)holes[i].p, 0, 0, 0, 0, 0)), EFAULT, what);
		snprintf(what, sizeof(what), "getcpu(%s)", holes[i].name);
		check_errno(wrap(syscall6(__NR_getcpu, (long)holes[i].p, 0, 0, 0, 0, 0)), EFAULT, what);
		snprintf(what, sizeof(what), "nanosleep(%s)", holes[i].name);
		check_errno(nanosleep((void *)holes[i].p, 0), EFAULT, what);
	}
	/* the kernel may not write into read-only pages of the process */
	check_errno(wrap(syscall6(__NR_uname, (long)text, 0, 0, 0, 0, 0)), EFAULT, "uname(its own text)");
	check_errno(wrap(syscall6(__NR_getcpu, (long)text, 0, 0, 0, 0, 0)), EFAULT,
		    "getcpu(its own text)");
	check_errno(wrap(syscall6(__NR_prctl, PR_GET_NAME, (long)text, 0, 0, 0, 0)), EFAULT,
		    "prctl(PR_GET_NAME, its own text)");
	return finish();
}

/* -- held: unknown system calls ------------------------------------------ */

static int held_syscalls(void)
{
	static const unsigned long nrs[] = { 500, 1000, 0xffff, 0x7fffffff, 0x80000000UL,
					     0xfffffffeUL, 0xffffffffUL };
	char what[64];

	for (unsigned i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		long r = syscall6((long)nrs[i], (long)KERNEL_ADDR, -1, (long)KERNEL_ADDR, 0, 0, 0);

		snprintf(what, sizeof(what), "system call %#lx", nrs[i]);
		check_errno(wrap(r), ENOSYS, what);
	}
	check(getpid() > 0, "getpid() after them", result_str(getpid()));
	return finish();
}

/* -- held: selectors and flags a process may set ---------------------------- */

/* getpid with ds, es, fs and gs null: the kernel loads its own, and gives the user's back */
static int held_segments(void)
{
	uint32_t ds = user_ds(), pid = (uint32_t)getpid(), r, ds_after, gs_after, fs_after;

	/* nothing may touch memory through ds while it is null: registers only */
	__asm__ volatile("xorl %%ecx, %%ecx\n\t"
			 "movw %%cx, %%ds\n\t"
			 "movw %%cx, %%es\n\t"
			 "movw %%cx, %%fs\n\t"
			 "movw %%cx, %%gs\n\t"
			 "int $0x80\n\t"
			 "movl %%ds, %1\n\t"
			 "movl %%gs, %2\n\t"
			 "movw %w3, %%ds\n\t"
			 "movw %w3, %%es"
			 : "=a"(r), "=&r"(ds_after), "=&r"(gs_after)
			 : "r"(ds), "0"(__NR_getpid) : "ecx", "memory");
	check(r == pid, "getpid with null ds/es/fs/gs", result_str((long)r));
	check((ds_after & 0xffff) == 0 && (gs_after & 0xffff) == 0,
	      "ds and gs still null after it (the kernel gave the user's back)", result_str(ds_after & 0xffff));
	/* the user's own data selector in fs and gs */
	__asm__ volatile("movw %w2, %%fs\n\t"
			 "movw %w2, %%gs\n\t"
			 "int $0x80\n\t"
			 "movl %%fs, %1"
			 : "=a"(r), "=&r"(fs_after) : "r"(ds), "0"(__NR_getpid) : "memory");
	check(r == pid && (fs_after & 0xffff) == ds, "getpid with fs = gs = the user data selector",
	      result_str((long)r));
	__asm__ volatile("movw %w0, %%fs\n\tmovw %w0, %%gs" : : "r"(0));
	return finish();
}

static int held_eflags(void)
{
	uint32_t f0 = get_eflags(), f, pid = (uint32_t)getpid(), r;
	char got[48];

	/* popf may not raise IOPL nor clear IF in ring 3: both are silently kept */
	set_eflags((f0 | X86_EFLAGS_IOPL) & ~X86_EFLAGS_IF);
	f = get_eflags();
	snprintf(got, sizeof(got), "%#x", f);
	check(!(f & X86_EFLAGS_IOPL) && (f & X86_EFLAGS_IF), "popf IOPL=3 IF=0: IOPL 0, IF 1 kept", got);
	/* nor may iret (VM in the image: iret_vm86) */
	__asm__ volatile("pushl %1\n\t"
			 "pushl %2\n\t"
			 "pushl $1f\n\t"
			 "iret\n"
			 "1:\tpushfl\n\t"
			 "popl %0"
			 : "=r"(f)
			 : "r"((f0 | X86_EFLAGS_IOPL) & ~X86_EFLAGS_IF), "r"(user_cs())
			 : "cc", "memory");
	snprintf(got, sizeof(got), "%#x", f);
	check(!(f & X86_EFLAGS_IOPL) && (f & X86_EFLAGS_IF), "iret IOPL=3 IF=0: IOPL 0, IF 1 kept", got);
	/* DF, AC, NT and ID are the process's: a system call must work with each set */
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ X86_EFLAGS_DF, "DF" }, { X86_EFLAGS_AC, "AC" }, { X86_EFLAGS_NT, "NT" },
		{ X86_EFLAGS_ID, "ID" } };
	for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		char what[64], line[64];
		long w;
		int len;

		__asm__ volatile("pushfl\n\t"
				 "orl %3, (%%esp)\n\t"
				 "popfl\n\t"
				 "int $0x80\n\t"
				 "pushfl\n\t"
				 "popl %1\n\t"
				 "pushl %4\n\t"
				 "popfl"
				 : "=a"(r), "=&r"(f)
				 : "0"(__NR_getpid), "r"(bits[i].bit), "r"(f0) : "cc", "memory");
		snprintf(what, sizeof(what), "getpid with %s set (and %s still set after)", bits[i].name,
			 bits[i].name);
		check(r == pid && (f & bits[i].bit), what, result_str((long)r));
		/* system calls that copy to and from the process: the kernel's own DF and AC */
		__asm__ volatile("pushfl\n\t"
				 "orl %4, (%%esp)\n\t"
				 "popfl\n\t"
				 "int $0x80\n\t"
				 "pushl %5\n\t"
				 "popfl"
				 : "=a"(w)
				 : "0"(__NR_getcpu), "b"(&len), "c"(0), "r"(bits[i].bit), "r"(f0)
				 : "cc", "memory");
		snprintf(what, sizeof(what), "getcpu(&cpu, 0) with %s set", bits[i].name);
		check(w == 0, what, result_str(wrap(w)));
		len = snprintf(line, sizeof(line), "redteam: %s: this line written with %s set\n", me,
			       bits[i].name);
		__asm__ volatile("pushfl\n\t"
				 "orl %5, (%%esp)\n\t"
				 "popfl\n\t"
				 "int $0x80\n\t"
				 "pushl %6\n\t"
				 "popfl"
				 : "=a"(w)
				 : "0"(__NR_write), "b"(1), "c"(line), "d"(len), "r"(bits[i].bit), "r"(f0)
				 : "cc", "memory");
		snprintf(what, sizeof(what), "write(1, line, %d) with %s set", len, bits[i].name);
		check(w == len, what, result_str(wrap(w)));
	}
	return finish();
}

/* esp in the kernel half, at 0 and at the top of memory while int $0x80 runs */
static int held_kstack(void)
{
	static const uint32_t sps[] = { KERNEL_ADDR, 0xc0000000u, 0xfffffffcu, 0, 4 };
	uint32_t pid = (uint32_t)getpid();

	for (unsigned i = 0; i < sizeof(sps) / sizeof(sps[0]); i++) {
		uint32_t r;
		char what[64];

		__asm__ volatile("movl %%esp, %%edi\n\t"
				 "movl %2, %%esp\n\t"
				 "int $0x80\n\t"
				 "movl %%edi, %%esp"
				 : "=a"(r) : "0"(__NR_getpid), "r"(sps[i]) : "edi", "memory");
		snprintf(what, sizeof(what), "getpid with esp = %#x", sps[i]);
		check(r == pid, what, result_str((long)r));
	}
	return finish();
}

/* -- held: mmap, mprotect, munmap, brk ------------------------------------- */

static void *anon(void *addr, size_t len, int prot, int flags)
{
	return mmap(addr, len, prot, flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static int held_mmap(void)
{
	static const unsigned long kernel[] = { 0xc0000000UL, KERNEL_ADDR, 0xfffff000UL };
	char what[80];
	void *p;
	long r;

	for (unsigned i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		void *k = (void *)kernel[i];

		snprintf(what, sizeof(what), "mmap(%#lx, 4096, RW, MAP_FIXED)", kernel[i]);
		check_errno((long)anon(k, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_FIXED), ENOMEM, what);
		p = anon(k, PAGE_SIZE, PROT_READ | PROT_WRITE, 0);
		snprintf(what, sizeof(what), "mmap(%#lx, 4096, RW) as a hint: below 3G", kernel[i]);
		check(p != MAP_FAILED && (unsigned long)p < TASK_SIZE, what, result_str((long)p));
		if (p != MAP_FAILED)
			munmap(p, PAGE_SIZE);
		snprintf(what, sizeof(what), "mprotect(%#lx, 4096, RW)", kernel[i]);
		check_errno(mprotect(k, PAGE_SIZE, PROT_READ | PROT_WRITE), ENOMEM, what);
		snprintf(what, sizeof(what), "munmap(%#lx, 4096)", kernel[i]);
		check_errno(munmap(k, PAGE_SIZE), EINVAL, what);
	}
	/* ranges that start below 3G and end above it */
	check_errno((long)anon((void *)0xbfffe000UL, 0x4000, PROT_READ | PROT_WRITE, MAP_FIXED), ENOMEM,
		    "mmap(0xbfffe000, 0x4000, MAP_FIXED) across 3G");
	check_errno(munmap((void *)0xbfffe000UL, 0x4000), EINVAL, "munmap(0xbfffe000, 0x4000) across 3G");
	check_errno(mprotect((void *)0xbfffe000UL, 0x4000, PROT_READ), ENOMEM,
		    "mprotect(0xbfffe000, 0x4000) across 3G");
	check_errno(munmap((void *)0, 0xc0001000UL), EINVAL, "munmap(0, 0xc0001000)");
	/* huge lengths, none of which wraps */
	check_errno((long)anon(0, 0x80000000UL, PROT_READ | PROT_WRITE, 0), ENOMEM, "mmap(2 GiB)");
	check_errno((long)anon(0, TASK_SIZE, PROT_READ | PROT_WRITE, 0), ENOMEM, "mmap(3 GiB)");
	check_errno((long)anon(0, 0xfffff000UL, PROT_READ | PROT_WRITE, 0), ENOMEM, "mmap(4 GiB - 4 KiB)");
	/* overlapping: MAP_FIXED over the middle of a mapping replaces that page only */
	char *a = anon(0, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, 0);

	if (a == MAP_FAILED) {
		check(0, "mmap 3 pages", result_str((long)a));
		return finish();
	}
	memset(a, 0x5a, 3 * PAGE_SIZE);
	p = anon(a + PAGE_SIZE, PAGE_SIZE, PROT_READ, MAP_FIXED);
	check(p == a + PAGE_SIZE && a[PAGE_SIZE] == 0 && a[0] == 0x5a && a[2 * PAGE_SIZE] == 0x5a,
	      "MAP_FIXED RO over the middle page: it reads 0, its neighbours kept", result_str((long)p));
	r = munmap(a, 3 * PAGE_SIZE);
	check(r == 0, "munmap of the three", result_str(r));
	/* brk: into the kernel, to the top, far past memory, into a mapping */
	unsigned long b0 = sys_brk(0);

	check(sys_brk(0xc0000000UL) == b0, "brk(0xc0000000) refused", result_str((long)sys_brk(0)));
	check(sys_brk(0xffffffffUL) == b0, "brk(0xffffffff) refused", result_str((long)sys_brk(0)));
	check(sys_brk(b0 + 0x80000000UL) == b0, "brk(+2 GiB) refused", result_str((long)sys_brk(0)));
	unsigned long top = (b0 + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	p = anon((void *)(top + 2 * PAGE_SIZE), PAGE_SIZE, PROT_READ, MAP_FIXED);
	check(p == (void *)(top + 2 * PAGE_SIZE), "mmap a page two pages above the break", result_str((long)p));
	check(sys_brk(top + 4 * PAGE_SIZE) == b0, "brk over that page refused", result_str((long)sys_brk(0)));
	check(sys_brk(top + PAGE_SIZE) == top + PAGE_SIZE, "brk up to the page below it still works",
	      result_str((long)sys_brk(0)));
	sys_brk(b0);
	munmap(p, PAGE_SIZE);
	return finish();
}

/*
 * W+X requests: ronx refuses each with EACCES; Linux grants them. Each
 * line says "refused EACCES" or "allowed"; the checks that hold either way
 * (a refused request changed nothing) are the case's own.
 */
static void policy(const char *what, long r)
{
	printf("redteam: %s: policy: %s: %s\n", me, what, r == -1 ? errno_name(errno) : "allowed");
}

static int held_wx(int hold)
{
	char *rw = anon(0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, 0), *rx;
	long r;

	if (rw == MAP_FAILED) {
		check(0, "mmap 2 pages RW", result_str((long)rw));
		return finish();
	}
	memset(rw, 0x5a, 2 * PAGE_SIZE);
	r = (long)anon(0, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
	policy("mmap RWX", r);
	r = mprotect(rw, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC);
	policy("mprotect RW to RWX", r);
	if (r)
		check(rw[0] == 0x5a && (rw[0] = 1), "the refused page is still RW, contents kept", "kept");
	r = (long)anon(rw + PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_FIXED);
	policy("MAP_FIXED RWX over an RW page", r);
	if (r == -1)
		check(rw[PAGE_SIZE] == 0x5a, "the page under the refused MAP_FIXED keeps its contents",
		      "kept");
	rx = anon(0, PAGE_SIZE, PROT_READ | PROT_WRITE, 0);
	r = -1;
	if (rx != MAP_FAILED) {
		put_ret42(rx);
		r = mprotect(rx, PAGE_SIZE, PROT_READ | PROT_EXEC);
	}
	check(r == 0, "a JIT page: RW, code written, then RX", result_str(r));
	r = mprotect(rx, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC);
	policy("mprotect RX to RWX", r);
	r = mprotect((void *)((unsigned long)_start & ~(PAGE_SIZE - 1)), PAGE_SIZE,
		     PROT_READ | PROT_WRITE | PROT_EXEC);
	policy("mprotect its own text RWX", r);
	r = mprotect((void *)(((unsigned long)&n_checks) & ~(PAGE_SIZE - 1)), PAGE_SIZE,
		     PROT_READ | PROT_WRITE | PROT_EXEC);
	policy("mprotect its own data RWX", r);
	r = mprotect((void *)(((unsigned long)&r) & ~(PAGE_SIZE - 1)), PAGE_SIZE,
		     PROT_READ | PROT_WRITE | PROT_EXEC);
	policy("mprotect its stack RWX", r);
	if (hold) {
		/* the test reads these pages from outside while the process waits */
		printf("redteam: %s: holding, pid %d: rw %#lx rx %#lx text %#lx data %#lx stack %#lx\n",
		       me, getpid(), (unsigned long)rw, (unsigned long)rx, (unsigned long)_start,
		       (unsigned long)&n_checks, (unsigned long)&r);
		for (;;) {
			struct timespec ts = { 1, 0 };

			nanosleep(&ts, 0);
		}
	}
	return finish();
}

/* -- killed (ronx only): memory hogs ------------------------------------------ */

#define HOG_HOLD_MIB	24	/* what a held hog keeps: below ronx's 32 MiB per process */

/*
 * 1 MiB anonymous areas, every page written, up to max MiB (0: no end).
 * mmap takes no memory (pages come on first touch, as on Linux); the
 * writes do, so the kernel's answer is the OOM kill in a fault, not a
 * refusal. The MiB it touched, or -1 if mmap refused (not the answer
 * this case expects).
 */
static int hog_touch(unsigned max)
{
	unsigned mib;

	for (mib = 0; !max || mib < max; mib++) {
		volatile char *p = anon(0, 1 << 20, PROT_READ | PROT_WRITE, 0);

		if (p == MAP_FAILED) {
			printf("redteam: %s: mmap refused after %u MiB (%s): NOT KILLED\n", me, mib,
			       errno_name(errno));
			return -1;
		}
		for (unsigned off = 0; off < (1u << 20); off += PAGE_SIZE)
			p[off] = 1;
		if ((mib + 1) % 8 == 0)
			printf("redteam: %s: %u MiB touched\n", me, mib + 1);
	}
	return (int)mib;
}

/*
 * Touches memory until the kernel kills it: ronx at its 32 MiB per
 * process (USER_PAGES_MAX) or when RAM runs out, with Linux's "Out of
 * memory: Killed process N (redteam)" line. With hold it touches
 * HOG_HOLD_MIB and keeps them, for several hogs side by side. Not run on
 * Linux or under qemu-i386 (docs/redteam.md says why).
 */
static int held_hog(int hold)
{
	if (hold) {
		if (hog_touch(HOG_HOLD_MIB) < 0)
			return 1;
		printf("redteam: %s: holding, pid %d, %u MiB touched\n", me, getpid(), HOG_HOLD_MIB);
		for (;;) {
			struct timespec ts = { 1, 0 };

			nanosleep(&ts, 0);
		}
	}
	printf("redteam: %s: 1 MiB areas, every page written, until the kernel kills it; "
	       "expect SIGKILL (out of memory)\n", me);
	hog_touch(0);
	return 1;
}

/* -- fatal: traps ------------------------------------------------------------ */

/* int $N from ring 3 through a gate of DPL 0: #GP with error N * 8 + 2 (IDT bit) */
#define INT_CASE(n)							\
	static void fatal_int_##n(void)					\
	{								\
		expect("int $" #n, "#GP", (n) * 8 + 2);			\
		__asm__ volatile("int $" #n);				\
	}
INT_CASE(0x01)
INT_CASE(0x02)
INT_CASE(0x03)
INT_CASE(0x08)
INT_CASE(0x0d)
INT_CASE(0x0e)
INT_CASE(0x20)
INT_CASE(0x81)
INT_CASE(0xff)

static void fatal_int3(void)
{
	/* ronx's breakpoint gate is DPL 0 (Linux's is 3: SIGTRAP there) */
	expect("int3 (0xcc)", "#GP", 3 * 8 + 2);
	__asm__ volatile("int3");
}

static void fatal_into(void)
{
	/* ronx's overflow gate is DPL 0 too (Linux: #OF, SIGSEGV) */
	expect("into with OF set", "#GP", 4 * 8 + 2);
	__asm__ volatile("movl $0x7fffffff, %%eax\n\t"
			 "addl $1, %%eax\n\t"
			 "into" : : : "eax", "cc");
}

static void fatal_ud2(void)
{
	expect("ud2", "#UD", -1);
	__asm__ volatile("ud2");
}

static void fatal_divide(void)
{
	expect("divide by zero", "#DE", -1);
	__asm__ volatile("xorl %%ecx, %%ecx\n\t"
			 "divl %%ecx" : : "a"(1), "d"(0) : "ecx", "cc");
}

static void fatal_bound(void)
{
	static const int32_t bounds[2] = { 0, 1 };

	expect("bound with an index out of range", "#BR", -1);
	__asm__ volatile("boundl %0, %1" : : "r"(5), "m"(bounds));
}

/* -- fatal: privileged instructions: #GP(0) each --------------------------------- */

#define PRIV_CASE(name, text, ...)					\
	static void fatal_##name(void)					\
	{								\
		expect(text, "#GP", 0);					\
		__VA_ARGS__;						\
	}
PRIV_CASE(hlt, "hlt", __asm__ volatile("hlt"))
PRIV_CASE(cli, "cli", __asm__ volatile("cli"))
PRIV_CASE(sti, "sti", __asm__ volatile("sti"))
PRIV_CASE(inb, "inb $0x60 (the keyboard)", __asm__ volatile("inb $0x60, %%al" : : : "eax"))
PRIV_CASE(outb, "outb to port 0xf4 (QEMU's exit port)",
	  __asm__ volatile("outb %%al, %%dx" : : "a"(0x5a), "d"(0xf4)))
PRIV_CASE(insb, "insb from port 0x60",
	  char b[4]; __asm__ volatile("insb" : : "D"(b), "d"(0x60) : "memory"))
PRIV_CASE(lgdt, "lgdt", struct descptr d = { 0, 0 }; __asm__ volatile("lgdt %0" : : "m"(d)))
PRIV_CASE(lidt, "lidt", struct descptr d = { 0, 0 }; __asm__ volatile("lidt %0" : : "m"(d)))
PRIV_CASE(ltr, "ltr of the TSS selector", __asm__ volatile("ltr %w0" : : "r"(tss_sel())))
PRIV_CASE(lldt, "lldt 0", __asm__ volatile("lldt %w0" : : "r"(0)))
PRIV_CASE(lmsw, "lmsw", __asm__ volatile("lmsw %w0" : : "r"(1)))
PRIV_CASE(clts, "clts", __asm__ volatile("clts"))
PRIV_CASE(invlpg, "invlpg", __asm__ volatile("invlpg (%0)" : : "r"(&n_checks) : "memory"))
PRIV_CASE(wbinvd, "wbinvd", __asm__ volatile("wbinvd"))
PRIV_CASE(invd, "invd", __asm__ volatile("invd"))
PRIV_CASE(read_cr0, "mov %cr0, %eax", __asm__ volatile("movl %%cr0, %%eax" : : : "eax"))
PRIV_CASE(write_cr0, "mov %eax, %cr0 (paging and protection off)",
	  __asm__ volatile("movl %0, %%cr0" : : "r"(0x10)))
PRIV_CASE(read_cr3, "mov %cr3, %eax", __asm__ volatile("movl %%cr3, %%eax" : : : "eax"))
PRIV_CASE(write_cr3, "mov %eax, %cr3 (page tables at 0)",
	  __asm__ volatile("movl %0, %%cr3" : : "r"(0)))
PRIV_CASE(write_cr4, "mov %eax, %cr4 (SMEP/SMAP/PAE off)",
	  __asm__ volatile("movl %0, %%cr4" : : "r"(0)))
PRIV_CASE(read_dr7, "mov %dr7, %eax", __asm__ volatile("movl %%dr7, %%eax" : : : "eax"))
PRIV_CASE(write_dr7, "mov %eax, %dr7 (a kernel breakpoint)",
	  __asm__ volatile("movl %0, %%dr0\n\tmovl %1, %%dr7" : : "r"(KERNEL_ADDR), "r"(0x3)))
PRIV_CASE(rdmsr, "rdmsr (IA32_TIME_STAMP_COUNTER)",
	  __asm__ volatile("rdmsr" : : "c"(0x10) : "eax", "edx"))
PRIV_CASE(wrmsr, "wrmsr (IA32_EFER: NX off)",
	  __asm__ volatile("wrmsr" : : "c"(0xc0000080), "a"(0), "d"(0)))
PRIV_CASE(rdpmc, "rdpmc (CR4.PCE clear)", __asm__ volatile("rdpmc" : : "c"(0) : "eax", "edx"))

/* -- fatal: selectors ------------------------------------------------------- */

#define SEG_CASE(name, reg, text, selector)					\
	static void fatal_##name(void)						\
	{									\
		uint32_t sel = (selector);					\
		char what[64];							\
										\
		snprintf(what, sizeof(what), "mov %#x to %%" #reg " (%s)", sel, text);	\
		expect(what, "#GP", sel & ~3u);					\
		__asm__ volatile("movw %w0, %%" #reg : : "r"(sel) : "memory");	\
	}
SEG_CASE(ds_kernel, ds, "the kernel data selector", kernel_ds())
SEG_CASE(es_kernel, es, "the kernel data selector", kernel_ds())
SEG_CASE(fs_kernel, fs, "the kernel data selector", kernel_ds())
SEG_CASE(gs_kernel, gs, "the kernel data selector", kernel_ds())
SEG_CASE(ss_kernel, ss, "the kernel data selector", kernel_ds())
SEG_CASE(ds_kernel_rpl3, ds, "the kernel data selector with RPL 3", kernel_ds() | 3)
SEG_CASE(ss_null, ss, "the null selector", 0)
SEG_CASE(ds_kernel_code, ds, "the kernel code selector", kernel_cs())
SEG_CASE(ds_tss, ds, "the TSS selector", tss_sel())
SEG_CASE(ds_ldt, ds, "an LDT selector: there is no LDT", 0x0f)
SEG_CASE(ds_beyond_gdt, ds, "past the GDT's limit", 0xfff8 | 3)

static void far_transfer(const char *what, uint32_t sel, int call)
{
	struct farptr fp = { (uint32_t)redteam_landing, (uint16_t)sel };
	char text[80];

	snprintf(text, sizeof(text), "%s %#x:redteam_landing (%s)", call ? "lcall" : "ljmp", sel, what);
	expect(text, "#GP", sel & ~3u);
	if (call)
		__asm__ volatile("lcall *%0" : : "m"(fp) : "memory");
	else
		__asm__ volatile("ljmp *%0" : : "m"(fp) : "memory");
}

static void fatal_lcall_kernel(void)
{
	far_transfer("the kernel code selector", kernel_cs(), 1);
}

static void fatal_ljmp_kernel(void)
{
	far_transfer("the kernel code selector, RPL 3", kernel_cs() | 3, 0);
}

static void fatal_ljmp_tss(void)
{
	far_transfer("the TSS: a task switch", tss_sel(), 0);
}

static void fatal_lcall_beyond_gdt(void)
{
	far_transfer("past the GDT's limit", 0xfff8 | 3, 1);
}

/* iret with a frame whose CS is the kernel's: the CPU checks it against CPL 3 */
static void iret_to(uint32_t cs, const char *what)
{
	char text[64];

	snprintf(text, sizeof(text), "iret to %#x:redteam_landing (%s)", cs, what);
	expect(text, "#GP", cs & ~3u);
	__asm__ volatile("pushfl\n\t"
			 "pushl %0\n\t"
			 "pushl %1\n\t"
			 "iret" : : "r"(cs), "r"(redteam_landing) : "memory");
}

static void fatal_iret_kernel(void)
{
	iret_to(kernel_cs(), "the kernel code selector");
}

static void fatal_iret_kernel_rpl3(void)
{
	iret_to(kernel_cs() | 3, "the kernel code selector, RPL 3");
}

/*
 * iret with VM set in the image. A CPU ignores VM in an iret at CPL 3
 * (SDM: only CPL 0 returns to virtual-8086 mode), but QEMU's TCG does
 * not check CPL and enters virtual-8086 mode: CS 0, IP 0, so the first
 * fetch, at linear address 0, faults with a frame whose CS has RPL 0.
 * The kernel must still see that the fault came from the process.
 */
static void iret_v8086(uint32_t cs, uint32_t ip)
{
	__asm__ volatile("pushl $0\n\t"	/* gs */
			 "pushl $0\n\t"	/* fs */
			 "pushl $0\n\t"	/* ds */
			 "pushl $0\n\t"	/* es */
			 "pushl $0\n\t"	/* ss */
			 "pushl $0x1000\n\t"	/* esp */
			 "pushl %0\n\t"	/* eflags */
			 "pushl %1\n\t"	/* cs */
			 "pushl %2\n\t"	/* eip */
			 "iret" : : "r"(get_eflags() | X86_EFLAGS_VM), "r"(cs), "r"(ip) : "memory");
}

static void fatal_iret_vm86(void)
{
	expect("iret with EFLAGS.VM set and CS:IP 0:0 (virtual-8086 mode under TCG)", "#PF", 0x14);
	iret_v8086(0, 0);
}

/* the same into a loop at 1000:0 (linear 0x10000, mapped here): only the timer sees it */
static void fatal_iret_vm86_loop(void)
{
	char *p = anon((void *)0x10000, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_FIXED);

	if (p == MAP_FAILED) {
		printf("redteam: %s: mmap(0x10000) = %s\n", me, result_str((long)p));
		return;
	}
	p[0] = (char)0xeb;	/* jmp $ */
	p[1] = (char)0xfe;
	mprotect(p, PAGE_SIZE, PROT_READ | PROT_EXEC);
	expect("iret with EFLAGS.VM set to a loop at 1000:0 (virtual-8086 mode under TCG)", "VM86", -1);
	iret_v8086(0x1000, 0);
}

/* -- fatal: EFLAGS ------------------------------------------------------------ */

static void fatal_iopl_cli(void)
{
	expect("popf with IOPL=3 (silently kept at 0), then cli", "#GP", 0);
	set_eflags(get_eflags() | X86_EFLAGS_IOPL);
	__asm__ volatile("cli");
}

static void fatal_nt_iret(void)
{
	/* NT set: iret is a task return through the TSS's back link, which is 0 */
	expect("NT set, then iret (a nested-task return)", "#TS", 0);
	__asm__ volatile("pushfl\n\t"
			 "orl $0x4000, (%%esp)\n\t"
			 "popfl\n\t"
			 "pushfl\n\t"
			 "pushl %0\n\t"
			 "pushl $1f\n\t"
			 "iret\n"
			 "1:" : : "r"(user_cs()) : "memory", "cc");
}

static void fatal_tf(void)
{
	expect("TF set: a single-step trap", "#DB", -1);
	set_eflags(get_eflags() | X86_EFLAGS_TF);
	__asm__ volatile("nop; nop");
}

static void fatal_tf_syscall(void)
{
	/* TF is set when int $0x80 runs: the trap must come in ring 3, after it */
	expect("TF set across int $0x80", "#DB", -1);
	__asm__ volatile("pushfl\n\t"
			 "orl $0x100, (%%esp)\n\t"
			 "popfl\n\t"
			 "int $0x80\n\t"
			 "nop" : : "a"(__NR_getpid) : "memory", "cc");
}

/* -- fatal: stacks and kernel addresses --------------------------------------- */

static void fatal_kstack_push(void)
{
	/*
	 * With PTI (the default) the user set does not map the kernel's
	 * page: not present, write, user (6); with pti=off it is mapped,
	 * supervisor-only: present, write, user (7). tests/qemu/test_pti.py
	 * shows the 7 under pti=off.
	 */
	expect_pf("esp = 0xc0100000, then push", KERNEL_ADDR - 4, 6);
	__asm__ volatile("movl %0, %%esp\n\t"
			 "pushl $0" : : "r"(KERNEL_ADDR) : "memory");
}

static void fatal_sidt_read(void)
{
	struct descptr d;

	__asm__ volatile("sidt %0" : "=m"(d));
	expect_pf("sidt (allowed without UMIP), then read the IDT it names", d.base, 5);
	printf("redteam: %s: read %#x\n", me, *(volatile uint32_t *)d.base);
}

static void fatal_sgdt_write(void)
{
	struct descptr d;

	__asm__ volatile("sgdt %0" : "=m"(d));
	expect_pf("sgdt, then write a descriptor into the GDT it names", d.base + 8, 7);
	*(volatile uint32_t *)(d.base + 8) = 0;
}

static void fatal_munmap_all(void)
{
	/* everything below 3G goes, its own code too: the return to it faults */
	expect("munmap(0, 3 GiB): its own code and stack gone", "#PF", 0x14);
	munmap(0, TASK_SIZE);
}

/* -- held: jobctl: process groups, sessions and the terminal's foreground group -- */

static bool on_ronx(void)
{
	char u[6 * 65];

	return syscall6(__NR_uname, (long)u, 0, 0, 0, 0, 0) == 0 && strcmp(u, "ronx") == 0;
}

/* fn's checks in a child; its counts come back in its exit status */
static void in_child(void (*fn)(int), int arg)
{
	int status, pid = fork();

	if (pid == 0) {
		n_checks = n_failed = 0;		/* its own, not the parent's so far */
		fn(arg);
		_exit(n_checks | n_failed << 4);	/* fewer than 16 of each */
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid || !WIFEXITED(status)) {
		check(0, "the checking child ran", pid < 0 ? errno_name(errno) : "no exit status");
		return;
	}
	n_checks += WEXITSTATUS(status) & 15;
	n_failed += WEXITSTATUS(status) >> 4;
}

/* a session leader of its own: its group and session are its pid */
static void leader_checks(int parent_pgrp)
{
	char got[32];
	long r = setsid();

	snprintf(got, sizeof(got), "%ld", r);
	check(r == getpid() && getpgrp() == getpid(), "setsid() in a child: a session of its own", got);
	check_errno(setsid(), EPERM, "setsid() again (a group leader)");
	check_errno(setpgid(0, 0), EPERM, "setpgid(0, 0) by a session leader");
	check_errno(setpgid(0, parent_pgrp), EPERM, "setpgid(0, PGRP of another session)");
	check_errno(ioctl(0, TIOCGPGRP, &r), ENOTTY, "TIOCGPGRP from another session (no terminal)");
	check_errno(tcsetpgrp(0, getpid()), ENOTTY, "TIOCSPGRP from another session (no terminal)");
}

/* a member of the caller's session, not its leader; other is another session's group */
static void member_checks(int other)
{
	int pgrp = getpgrp();

	check_errno(setpgid(0, other), EPERM, "setpgid(0, a group of another session)");
	check_errno(setpgid(0, 0x7ffffff0), EPERM, "setpgid(0, a group that does not exist)");
	check_errno(setpgid(getppid(), getppid()), ESRCH, "setpgid(parent, ...): not a child");
	long r = setpgid(0, 0);

	check(r == 0 && getpgrp() == getpid(), "setpgid(0, 0): a group of its own",
	      result_str(r ? r : getpgrp()));
	/* group 0 is the kernel's (a program run by an init that never called setsid): setpgid(0, 0) means its own pid */
	if (!pgrp) {
		printf("redteam: jobctl: not checked: setpgid(0, PGRP) back, its group being 0 here\n");
		return;
	}
	r = setpgid(0, pgrp);
	check(r == 0 && getpgrp() == pgrp, "setpgid(0, PGRP): back to its group",
	      result_str(r ? r : getpgrp()));
}

/*
 * ronx only (Linux would stop it with SIGTTOU): a background group reads
 * and takes the terminal. It ignores SIGTTIN, which would stop it: then
 * the read is -EIO, on Linux too.
 */
static void background_checks(int arg)
{
	char c;

	(void)arg;
	setpgid(0, 0);
	sigaction_disposition(SIGTTIN, SIG_IGN);
	check_errno(read(0, &c, 1), EIO, "read(0) from a background group");
	check_errno(tcsetpgrp(0, getpgrp()), ENOTTY, "TIOCSPGRP from a background group");
}

static int held_jobctl(int hold)
{
	int me_pgrp = getpgrp(), other, status, tty;

	(void)hold;
	check(getpgid(0) == me_pgrp && getpgid(getpid()) == me_pgrp, "getpgid(0), getpgid(self) = getpgrp()",
	      result_str(getpgid(0)));
	check_errno(getpgid(-1), ESRCH, "getpgid(-1)");
	check_errno(getpgid(0x7ffffff0), ESRCH, "getpgid(a pid nobody has)");
	check_errno(setpgid(0, -1), EINVAL, "setpgid(0, -1)");
	check_errno(setpgid(0x7ffffff0, 0), ESRCH, "setpgid(a pid nobody has, 0)");
	check_errno(ioctl(7, TIOCGPGRP, &status), EBADF, "ioctl(7, TIOCGPGRP): not open");
	in_child(leader_checks, me_pgrp);

	/* a child in a session of its own, alive while the others try to join it */
	other = fork();
	if (other < 0) {
		check(0, "fork", errno_name(errno));
		return finish();
	}
	if (other == 0) {
		setsid();
		for (;;)
			sched_yield();
	}
	while (getpgid(other) != other)
		sched_yield();
	check_errno(setpgid(other, 0), EPERM, "setpgid(a child in another session, 0)");
	in_child(member_checks, other);

	/* the terminal: only where fd 0 is ours and our group is in front */
	tty = tcgetpgrp(0);
	if (tty == me_pgrp) {
		check_errno(tcsetpgrp(0, other), EPERM, "TIOCSPGRP to another session's group");
		check_errno(tcsetpgrp(0, -1), EINVAL, "TIOCSPGRP to -1");
		check_errno(tcsetpgrp(0, 0x7ffffff0), ESRCH, "TIOCSPGRP to a group that does not exist");
		check_errno(ioctl(0, 0x54ff, &status), ENOTTY, "ioctl(0, 0x54ff): no such request");
		check(tcgetpgrp(0) == me_pgrp, "the terminal still ours after the refusals",
		      result_str(tcgetpgrp(0)));
		if (on_ronx())
			in_child(background_checks, 0);
	} else {
		printf("redteam: jobctl: fd 0 is not a terminal in front (%s): its checks not run\n",
		       errno_name(errno));
	}
	kill(other, SIGKILL);
	wait4(other, &status, 0, NULL);
	return finish();
}

/* -- readers: several read(0) at once; every byte must be one that was typed -- */

#define READERS		4
#define READ_BUF	8192

/* A line as typed by the test: [a-z0-9-]*, one newline, at its end. */
static bool typed_line(const char *b, long n)
{
	for (long i = 0; i < n - 1; i++)
		if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= '0' && b[i] <= '9') || b[i] == '-'))
			return false;
	return n > 0 && b[n - 1] == '\n';
}

/*
 * One reader: each read's bytes printed (\xNN if not typed), until end of
 * file; with hold, -EIO (a background group) is tried again until killed:
 * it ignores SIGTTIN, which would stop it, as an attacker would.
 */
static int reader(int hold)
{
	static char buf[READ_BUF];
	char shown[4 * 300];
	int bad = 0;
	unsigned long eio = 0;
	long n;

	if (hold)
		sigaction_disposition(SIGTTIN, SIG_IGN);

	for (;;) {
		size_t k = 0;

		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EIO && hold) {
			if (!eio++)
				printf("redteam: readers: [%d] read(0): EIO, trying again\n", getpid());
			sched_yield();	/* a background job that tries again and again */
			continue;
		}
		if (n <= 0)
			break;

		for (long i = 0; i < n && k + 5 < sizeof(shown); i++) {
			unsigned char c = (unsigned char)buf[i];

			if (c >= ' ' && c < 0x7f && c != '"' && c != '\\')
				shown[k++] = (char)c;
			else
				k += (size_t)snprintf(shown + k, 5, "\\x%02x", c);
		}
		shown[k] = '\0';
		if (!typed_line(buf, n) || n > 257)
			bad++;
		printf("redteam: readers: [%d] read %ld bytes: \"%s\"%s\n", getpid(), n, shown,
		       typed_line(buf, n) && n <= 257 ? "" : " NOT TYPED");
	}
	printf("redteam: readers: [%d] %s\n", getpid(), n ? errno_name(errno) : "end of file");
	return bad ? 1 : 0;
}

static int readers(int hold)
{
	int pids[READERS], bad = 0, status;

	for (int i = 0; i < READERS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(reader(hold));
	}
	printf("redteam: readers: %d readers of 8192 bytes, pids %d %d %d %d\n", READERS, pids[0],
	       pids[1], pids[2], pids[3]);
	for (int i = 0; i < READERS; i++)
		if (pids[i] < 0 || wait4(pids[i], &status, 0, NULL) != pids[i] || status)
			bad++;
	printf("redteam: readers: %s\n", bad ? "BYTES NOT TYPED (or a reader failed)" : "every byte typed");
	return bad ? 1 : 0;
}

/* -- spinner: a silent loop, for the test that starts more than the task slots -- */

static int spinner(int h)
{
	volatile int forever = 1;

	(void)h;
	while (forever)
		;
	return 0;
}

/* -- held: forged signal frames (SROP) --------------------------------------- */

/*
 * A handler rewrites its own saved context, then returns through
 * rt_sigreturn (the rt frame, SA_SIGINFO) or sigreturn (the old frame):
 * the kernel must refuse what ring 3 could not set itself. Each try runs
 * in a child, which must never reach ring 0, IOPL 3 or a kernel
 * selector. ronx refuses the frame in sigreturn: SIGSEGV. Linux takes
 * the selectors with RPL 3 and lets the return fault on them: SIGILL for
 * an iret on a bad cs or ss, and a ds it cannot load is replaced, so the
 * child goes on without it. IOPL, VM and NT are never taken: cli faults.
 */
enum forge { FORGE_CS, FORGE_CS_RPL3, FORGE_SS, FORGE_DS, FORGE_EFLAGS, FORGE_FPSTATE };
static volatile enum forge forging;

static void __attribute__((noreturn)) forged_landing(void)
{
	if (get_eflags() & (X86_EFLAGS_IOPL | X86_EFLAGS_VM | X86_EFLAGS_NT))
		_exit(2);			/* IOPL, VM or NT reached ring 3 */
	__asm__ volatile("cli");
	_exit(3);				/* cli ran: IOPL was raised */
}

static void forge_sigcontext(struct sigcontext *sc)
{
	switch (forging) {
	case FORGE_CS: sc->cs = (uint16_t)kernel_cs(); break;
	case FORGE_CS_RPL3: sc->cs = (uint16_t)(kernel_cs() | 3); break;
	case FORGE_SS: sc->ss = (uint16_t)kernel_ds(); break;
	case FORGE_DS: sc->ds = (uint16_t)kernel_ds(); break;
	case FORGE_EFLAGS:
		sc->flags |= X86_EFLAGS_IOPL | X86_EFLAGS_VM | X86_EFLAGS_NT;
		sc->ip = (uint32_t)forged_landing;
		break;
	case FORGE_FPSTATE: sc->fpstate = KERNEL_ADDR; break;
	}
}

static void on_forge_rt(int sig, struct siginfo *si, void *uc)
{
	(void)sig; (void)si;
	forge_sigcontext(&((struct ucontext *)uc)->uc_mcontext);
}

/* the old frame sits above the handler's return address (frame pointers are on) */
static void __attribute__((noinline)) on_forge_old(int sig)
{
	void *fp = __builtin_frame_address(0);

	(void)sig;
	__asm__("" : "+r"(fp));		/* gcc would drop stores to a frame about to return */
	forge_sigcontext(&((struct sigframe *)((uint32_t *)fp + 1))->sc);
}

/* "killed by SIGSEGV", "exit N", ...: how the child ended */
static const char *ended(int status, char *buf, size_t n)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		return "killed by SIGSEGV";
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL)
		return "killed by SIGILL";
	if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "exit %d", WEXITSTATUS(status));
	return buf;
}

/* SIGSEGV (ronx's answer), SIGILL for cs and ss, or back without the kernel's ds (Linux's) */
static bool forged_refused(enum forge f, int status)
{
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGSEGV ||
		       (WTERMSIG(status) == SIGILL && (f == FORGE_CS || f == FORGE_CS_RPL3 || f == FORGE_SS));
	return f == FORGE_DS && WIFEXITED(status) && WEXITSTATUS(status) == 5;
}

static void forged_frame(enum forge f, int old, const char *what)
{
	char line[96], buf[32];
	int status = -1, pid = fork();

	if (pid == 0) {
		forging = f;
		if (old)
			sigaction_old(SIGUSR2, on_forge_old, 0);
		else
			sigaction_handler(SIGUSR2, on_forge_rt, 0);
		kill(getpid(), SIGUSR2);
		/* the forged return came back here: 5 if without the kernel's ds */
		_exit((user_ds() & ~3u) == kernel_ds() ? 2 : f == FORGE_DS ? 5 : 4);
	}
	waitpid(pid, &status, 0);
	snprintf(line, sizeof(line), "%s frame, %s", old ? "old (sigreturn)" :
		 "rt (rt_sigreturn)", what);
	check(forged_refused(f, status), line, ended(status, buf, sizeof(buf)));
}

/* sigreturn with no frame at all: esp in the kernel half */
static void sigreturn_kernel_esp(int nr, const char *name)
{
	char line[96], buf[32];
	int status = -1, pid = fork();

	if (pid == 0) {
		__asm__ volatile("movl %0, %%esp\n\t"
				 "int $0x80" : : "r"(KERNEL_ADDR), "a"(nr) : "memory");
		_exit(4);
	}
	waitpid(pid, &status, 0);
	snprintf(line, sizeof(line), "%s with esp = %#lx", name, KERNEL_ADDR);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, line, ended(status, buf, sizeof(buf)));
}

static int held_sigframes(void)
{
	static const struct { enum forge f; const char *what; } forged[] = {
		{ FORGE_CS, "cs the kernel's" }, { FORGE_CS_RPL3, "cs the kernel's with RPL 3" },
		{ FORGE_SS, "ss the kernel's data selector" }, { FORGE_DS, "ds the kernel's" },
		{ FORGE_EFLAGS, "EFLAGS IOPL=3 VM NT (cli must fault)" },
		{ FORGE_FPSTATE, "fpstate in the kernel half" } };

	for (int old = 0; old < 2; old++)
		for (unsigned i = 0; i < sizeof(forged) / sizeof(forged[0]); i++)
			forged_frame(forged[i].f, old, forged[i].what);
	sigreturn_kernel_esp(__NR_rt_sigreturn, "rt_sigreturn");
	sigreturn_kernel_esp(__NR_sigreturn, "sigreturn");
	return finish();
}

/* -- the cases ---------------------------------------------------------------- */

struct rcase {
	const char *name;
	int (*held)(int hold);
	void (*fatal)(void);
};

static int pointers(int h) { (void)h; return held_pointers(); }
static int syscalls(int h) { (void)h; return held_syscalls(); }
static int segments(int h) { (void)h; return held_segments(); }
static int eflags(int h) { (void)h; return held_eflags(); }
static int kstack(int h) { (void)h; return held_kstack(); }
static int mmaps(int h) { (void)h; return held_mmap(); }
static int sigframes(int h) { (void)h; return held_sigframes(); }

#define HELD(n, fn)	{ n, fn, 0 }
#define FATAL(n)	{ #n, 0, fatal_##n }
static const struct rcase cases[] = {
	HELD("pointers", pointers), HELD("syscalls", syscalls), HELD("segments", segments),
	HELD("eflags", eflags), HELD("kstack", kstack), HELD("mmap", mmaps),
	HELD("wx", held_wx), HELD("hog", held_hog), HELD("spinner", spinner),
	HELD("jobctl", held_jobctl), HELD("readers", readers), HELD("sigframes", sigframes),
	FATAL(int_0x01), FATAL(int_0x02), FATAL(int_0x03), FATAL(int_0x08), FATAL(int_0x0d),
	FATAL(int_0x0e), FATAL(int_0x20), FATAL(int_0x81), FATAL(int_0xff), FATAL(int3),
	FATAL(into), FATAL(ud2), FATAL(divide), FATAL(bound),
	FATAL(hlt), FATAL(cli), FATAL(sti), FATAL(inb), FATAL(outb), FATAL(insb), FATAL(lgdt),
	FATAL(lidt), FATAL(ltr), FATAL(lldt), FATAL(lmsw), FATAL(clts), FATAL(invlpg),
	FATAL(wbinvd), FATAL(invd), FATAL(read_cr0), FATAL(write_cr0), FATAL(read_cr3),
	FATAL(write_cr3), FATAL(write_cr4), FATAL(read_dr7), FATAL(write_dr7), FATAL(rdmsr),
	FATAL(wrmsr), FATAL(rdpmc),
	FATAL(ds_kernel), FATAL(es_kernel), FATAL(fs_kernel), FATAL(gs_kernel), FATAL(ss_kernel),
	FATAL(ds_kernel_rpl3), FATAL(ss_null), FATAL(ds_kernel_code), FATAL(ds_tss), FATAL(ds_ldt),
	FATAL(ds_beyond_gdt), FATAL(lcall_kernel), FATAL(ljmp_kernel), FATAL(ljmp_tss),
	FATAL(lcall_beyond_gdt), FATAL(iret_kernel), FATAL(iret_kernel_rpl3), FATAL(iret_vm86), FATAL(iret_vm86_loop),
	FATAL(iopl_cli), FATAL(nt_iret), FATAL(tf), FATAL(tf_syscall),
	FATAL(kstack_push), FATAL(sidt_read), FATAL(sgdt_write), FATAL(munmap_all),
};

int main(int argc, char **argv)
{
	unsigned n = sizeof(cases) / sizeof(cases[0]);

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "hold"))) {
		printf("usage: redteam CASE [hold]; the cases:");
		for (unsigned i = 0; i < n; i++)
			printf(" %s", cases[i].name);
		printf("\n");
		return 2;
	}
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		me = cases[i].name;
		if (cases[i].held)
			return cases[i].held(argc == 3);
		cases[i].fatal();
		printf("redteam: %s: WENT THROUGH: the CPU did not refuse it\n", me);
		return 1;
	}
	printf("redteam: no case '%s' (run redteam alone for the list)\n", argv[1]);
	return 2;
}
