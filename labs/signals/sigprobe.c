// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signals lab's test program (labs/signals/checks.py builds it at
 * grade time and puts it in the grade's initrd). It proves nothing
 * itself: it loads the registers the grader chose, takes its signals at
 * addresses of its own, and the grader stops the CPU there (QEMU's
 * gdbstub) and reads the registers and the frame from outside.
 *
 *   sigprobe deliver ORDER EAX,EBX,ECX,EDX,ESI,EDI,EBP,SIGK,SIGA,MLO,MHI,FOFF,AOFF,ASIZE,C0,C1
 *       (the sixteen numbers in hex, one word: the shell takes 16 words)
 *       with the mask MHI:MLO blocked, the signals of ORDER in turn:
 *         k: kill(getpid(), SIGK) from probe_kill_at (int $0x80), edx esi
 *            edi ebp loaded, DF and AC set, es null, C0 C1 on top of the stack
 *         a: the same with SIGA, whose handler is SA_ONSTACK, the
 *            alternate stack (SS_AUTODISARM) AOFF bytes into a 4-page
 *            area, ASIZE long
 *         f: a write to a PROT_READ page at offset FOFF from
 *            probe_fault_at (edi the address, the other six loaded); the
 *            handler makes the page writable and the write runs again
 *       every handler is probe_handler, returning through probe_restorer;
 *       it calls probe_alt_seen(flags, size) with what sigaltstack() says
 *       there (SIGA's handler: disarmed);
 *       after each case probe_mask_seen(low, high) gets the mask
 *       sigprocmask() reports
 *   sigprobe forge ORDER
 *       one child per letter; its handler rewrites its own saved context
 *       (ip at probe_landing) and returns through rt_sigreturn:
 *         c: cs KERNEL_CS          r: cs USER_CS with RPL 0
 *         s: ss KERNEL_DS          D E F G: ds, es, fs or gs KERNEL_DS | 3
 *         e: EFLAGS IOPL 3 and NT  v: EFLAGS VM
 *         m: uc_sigmask every signal
 *         o: a signal whose SA_ONSTACK handler runs on the alternate
 *            stack (a page above one more), then one taken on that stack
 *            256 bytes above its bottom: no room for the frame there
 *       at probe_landing the child calls probe_landed(mask low, high),
 *       then exits 0; the parent calls probe_child_end(letter, status)
 */
#include "ulib.h"

#define NR_KILL		37
#define NR_RT_SIGRETURN	173

unsigned int probe_regs[7];	/* eax ebx ecx edx esi edi ebp */
unsigned int probe_canary[2];
unsigned int probe_pid;
unsigned int probe_saved_sp;
char *probe_alt_area;		/* the 4 (forge o: 2) pages the alternate stack is in */
volatile char *probe_page;

void probe_kill(int sig);
void probe_fault(volatile char *p);
void probe_on_alt(unsigned int sp, int sig);
void probe_restorer(void);
void probe_landing(void);

/*
 * Each signal point between its registers' loads and their checks: the
 * grader reads the registers at the *_at label and at the *_after one.
 */
__asm__(".text\n"
	".globl probe_kill\n"
	"probe_kill:\n"
	"	push %ebp\n	push %ebx\n	push %esi\n	push %edi\n	push %es\n"
	"	push probe_canary+4\n	push probe_canary\n"
	"	mov 32(%esp), %ecx\n	mov probe_pid, %ebx\n"
	"	mov probe_regs+12, %edx\n	mov probe_regs+16, %esi\n"
	"	mov probe_regs+20, %edi\n	mov probe_regs+24, %ebp\n"
	"	xor %eax, %eax\n	mov %eax, %es\n"
	"	mov $37, %eax\n"
	"	pushf\n	orl $0x40000, (%esp)\n	popf\n"	/* AC */
	"	std\n"
	".globl probe_kill_at\n"
	"probe_kill_at:\n"
	"	int $0x80\n"
	".globl probe_kill_after\n"
	"probe_kill_after:\n"
	"	cld\n"
	"	pushf\n	andl $0xfffbffff, (%esp)\n	popf\n"
	"	add $8, %esp\n	pop %es\n	pop %edi\n	pop %esi\n	pop %ebx\n	pop %ebp\n"
	"	ret\n"
	".globl probe_fault\n"
	"probe_fault:\n"
	"	push %ebp\n	push %ebx\n	push %esi\n	push %edi\n	push %es\n"
	"	push probe_canary+4\n	push probe_canary\n"
	"	mov 32(%esp), %edi\n"
	"	mov probe_regs, %eax\n	mov probe_regs+4, %ebx\n	mov probe_regs+8, %ecx\n"
	"	mov probe_regs+12, %edx\n	mov probe_regs+16, %esi\n	mov probe_regs+24, %ebp\n"
	"	pushf\n	orl $0x40000, (%esp)\n	popf\n"	/* AC */
	"	std\n"
	".globl probe_fault_at\n"
	"probe_fault_at:\n"
	"	mov %ebx, (%edi)\n"
	".globl probe_fault_after\n"
	"probe_fault_after:\n"
	"	cld\n"
	"	pushf\n	andl $0xfffbffff, (%esp)\n	popf\n"
	"	add $8, %esp\n	pop %es\n	pop %edi\n	pop %esi\n	pop %ebx\n	pop %ebp\n"
	"	ret\n"
	/* kill(getpid(), sig) with esp at sp (on the alternate stack) */
	".globl probe_on_alt\n"
	"probe_on_alt:\n"
	"	push %ebx\n"
	"	mov 8(%esp), %eax\n	mov 12(%esp), %ecx\n	mov probe_pid, %ebx\n"
	"	mov %esp, probe_saved_sp\n	mov %eax, %esp\n"
	"	mov $37, %eax\n	int $0x80\n"
	"	mov probe_saved_sp, %esp\n"
	"	pop %ebx\n	ret\n"
	".globl probe_restorer\n"
	"probe_restorer:\n"
	"	mov $173, %eax\n	int $0x80\n"
	/* a forged frame's return: whatever the registers, a stack of its own */
	".globl probe_landing\n"
	"probe_landing:\n"
	"	mov $probe_alt_stack+4096, %esp\n"
	"	call probe_landed_c\n");

char probe_alt_stack[4096] __attribute__((aligned(16)));	/* probe_landing's stack */

/* where the grader reads its arguments: each does nothing itself */
void __attribute__((noinline, used)) probe_mask_seen(unsigned int lo, unsigned int hi)
{
	__asm__ volatile("" : : "r"(lo), "r"(hi));
}

void __attribute__((noinline, used)) probe_alt_seen(unsigned int flags, unsigned int size)
{
	__asm__ volatile("" : : "r"(flags), "r"(size));
}

void __attribute__((noinline, used)) probe_landed(unsigned int lo, unsigned int hi)
{
	__asm__ volatile("" : : "r"(lo), "r"(hi));
}

void __attribute__((noinline, used)) probe_child_end(int letter, int status)
{
	__asm__ volatile("" : : "r"(letter), "r"(status));
}

void __attribute__((noinline, used)) probe_handler(int sig, struct siginfo *si, void *uc)
{
	stack_t now;

	(void)si;
	(void)uc;
	if (sigaltstack(0, &now) == 0)
		probe_alt_seen((unsigned int)now.ss_flags, now.ss_size);
	if (sig == SIGSEGV)
		mprotect((void *)probe_page, PAGE_SIZE, PROT_READ | PROT_WRITE);
}

static int catch(int sig, void (*h)(int, struct siginfo *, void *), unsigned int flags)
{
	struct k_sigaction ka = { (uint32_t)h, SA_SIGINFO | SA_RESTORER | flags,
				  (uint32_t)probe_restorer, 0 };

	return sigaction_k(sig, &ka, 0);
}

static void report_mask(void)
{
	sigset_t now = 0;

	sigprocmask(SIG_BLOCK, 0, &now);
	probe_mask_seen((unsigned int)now, (unsigned int)(now >> 32));
}

/* n comma-separated hex numbers into v; false if s is not that */
static bool parse_hex_list(const char *s, unsigned int *v, int n)
{
	for (int i = 0; i < n; i++, s++) {
		unsigned int x = 0;
		const char *start = s;

		for (; *s && *s != ','; s++) {
			int d = *s >= '0' && *s <= '9' ? *s - '0' :
				*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

			if (d < 0 || s - start >= 8)
				return false;
			x = x << 4 | (unsigned int)d;
		}
		if (s == start || (*s != ',') != (i == n - 1))
			return false;
		v[i] = x;
	}
	return true;
}

static int deliver(char **argv)
{
	unsigned int v[16];
	const char *order = argv[0];
	char *area;
	sigset_t mask;

	if (!parse_hex_list(argv[1], v, 16)) {
		printf("sigprobe: expected 16 hex numbers, found %s\n", argv[1]);
		return 2;
	}
	for (int i = 0; i < 7; i++)
		probe_regs[i] = v[i];
	probe_canary[0] = v[14];
	probe_canary[1] = v[15];
	probe_pid = (unsigned int)getpid();
	probe_page = mmap(0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	area = probe_alt_area = mmap(0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe_page == MAP_FAILED || area == MAP_FAILED || v[12] + v[13] > 4 * PAGE_SIZE) {
		printf("sigprobe: no memory for the cases\n");
		return 1;
	}
	for (int i = 0; i < 4; i++)
		area[i * PAGE_SIZE] = 0;	/* its frames now: no page fault in the handler */
	stack_t ss = { (uint32_t)(area + v[12]), (int)SS_AUTODISARM, v[13] };
	if (sigaltstack(&ss, 0) || catch((int)v[7], probe_handler, 0) ||
	    catch((int)v[8], probe_handler, SA_ONSTACK) || catch(SIGSEGV, probe_handler, 0)) {
		printf("sigprobe: sigaltstack or sigaction failed\n");
		return 1;
	}
	mask = (sigset_t)v[10] << 32 | v[9];
	sigprocmask(SIG_SETMASK, &mask, 0);
	printf("sigprobe: pid %u ready\n", probe_pid);
	for (const char *o = order; *o; o++) {
		if (*o == 'k')
			probe_kill((int)v[7]);
		else if (*o == 'a')
			probe_kill((int)v[8]);
		else if (*o == 'f')
			probe_fault(probe_page + v[11]);
		report_mask();
	}
	printf("sigprobe: cases done\n");
	return 0;
}

/* -- forged frames -------------------------------------------------------- */
static volatile int forging;

void __attribute__((noinline, used)) probe_landed_c(void)
{
	sigset_t now = 0;

	sigprocmask(SIG_BLOCK, 0, &now);
	probe_landed((unsigned int)now, (unsigned int)(now >> 32));
	_exit(0);
}

void __attribute__((noinline, used)) forge_handler(int sig, struct siginfo *si, void *p)
{
	struct ucontext *uc = p;
	struct sigcontext *sc = &uc->uc_mcontext;
	uint16_t *data[] = { &sc->ds, &sc->es, &sc->fs, &sc->gs };

	(void)sig;
	(void)si;
	sc->ip = (uint32_t)probe_landing;
	switch (forging) {
	case 'c': sc->cs = 0x08; break;
	case 'r': sc->cs = 0x18; break;
	case 's': sc->ss = 0x10; break;
	case 'D': case 'E': case 'F': case 'G': *data[forging - 'D'] = 0x13; break;
	case 'e': sc->flags |= 0x3000 | 0x4000; break;	/* IOPL 3, NT */
	case 'v': sc->flags |= 0x20000; break;		/* VM */
	case 'm': uc->uc_sigmask = ~(sigset_t)0; break;
	}
}

static void forge_child(int letter)
{
	forging = letter;
	probe_pid = (unsigned int)getpid();
	if (letter == 'o') {
		char *area = probe_alt_area = mmap(0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		stack_t ss = { (uint32_t)(area + PAGE_SIZE), 0, PAGE_SIZE };

		if (area == MAP_FAILED || sigaltstack(&ss, 0) || catch(SIGUSR2, probe_handler, SA_ONSTACK))
			_exit(3);
		area[0] = area[PAGE_SIZE] = 0;
		kill(getpid(), SIGUSR2);	/* on the alternate stack's top: room enough */
		probe_on_alt((uint32_t)(area + PAGE_SIZE + 256), SIGUSR2);
		_exit(0);
	}
	if (catch(SIGUSR2, forge_handler, 0))
		_exit(3);
	kill(getpid(), SIGUSR2);
	_exit(4);		/* the forged return never came back here */
}

static int forge(char **argv)
{
	printf("sigprobe: pid %d ready\n", getpid());
	for (const char *o = argv[0]; *o; o++) {
		int status = -1, pid = fork();

		if (pid == 0)
			forge_child(*o);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			status = -1;
		probe_child_end(*o, status);
	}
	printf("sigprobe: forged frames done\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "deliver"))
		return deliver(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "forge"))
		return forge(argv + 2);
	printf("usage: sigprobe deliver ORDER EAX,EBX,ECX,EDX,ESI,EDI,EBP,SIGK,SIGA,MLO,MHI,"
	       "FOFF,AOFF,ASIZE,C0,C1 | sigprobe forge ORDER\n");
	return 2;
}
