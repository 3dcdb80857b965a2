// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pti lab's test program (labs/pti/checks.py builds it at grade time
 * and puts it in the grade's initrd). Each way back to ring 3 ends at an
 * address of its own, where the grader stops the CPU (QEMU's gdbstub)
 * and reads CR3 and the frame from outside:
 *
 *   ptiprobe B C D S I P ORDER ROUNDS [calls]
 *        first one getpid (below), then ROUNDS times, in the order ORDER says:
 *          s: getpid with ebx ecx edx esi edi ebp = B C D S I P
 *             (probe_int80, then probe_after_int80)
 *          f: the first touch of a fresh page: a page fault
 *             (probe_after_touch)
 *          c: fork; the child's first return is at probe_after_fork,
 *             as is the parent's; the child exits at once
 *        then "ptiprobe: rounds done" and a loop that makes no system
 *        call (ring 3 is left only for interrupts);
 *        with calls, instead, getpid after getpid with B..P (each back
 *        at probe_loop_after), every register read back, until SIGUSR1:
 *        then "ptiprobe: pid P: N calls, W wrong" and exit status 0 (the
 *        two-CPU round runs two at once)
 *   ptiprobe stop PID
 *        sends PID SIGUSR1 (the shell's kill only kills)
 */
#include "ulib.h"

#define MAX_ROUNDS	16

unsigned int probe_regs[6];
unsigned int probe_seen[7];	/* ebx ecx edx esi edi ebp eax after probe_loop_call's int $0x80 */
static volatile int probe_interrupted;

int probe_syscall(void);
void probe_loop_call(void);

void probe_touch(volatile char *p);
int probe_fork(void);

/* every register loaded, one int $0x80, every register back */
__asm__(".text\n"
	".globl probe_syscall\n"
	"probe_syscall:\n"
	"	push %ebp\n	push %ebx\n	push %esi\n	push %edi\n"
	"	mov $20, %eax\n"		/* getpid */
	"	mov probe_regs, %ebx\n	mov probe_regs+4, %ecx\n	mov probe_regs+8, %edx\n"
	"	mov probe_regs+12, %esi\n	mov probe_regs+16, %edi\n	mov probe_regs+20, %ebp\n"
	".globl probe_int80\n"
	"probe_int80:\n"
	"	int $0x80\n"
	".globl probe_after_int80\n"
	"probe_after_int80:\n"
	"	pop %edi\n	pop %esi\n	pop %ebx\n	pop %ebp\n"
	"	ret\n"
	".globl probe_touch\n"
	"probe_touch:\n"
	"	mov 4(%esp), %eax\n"
	"	movb $1, (%eax)\n"
	".globl probe_after_touch\n"
	"probe_after_touch:\n"
	"	ret\n"
	".globl probe_fork\n"
	"probe_fork:\n"
	"	mov $2, %eax\n"		/* fork */
	"	int $0x80\n"
	".globl probe_after_fork\n"
	"probe_after_fork:\n"
	"	ret\n"
	".globl probe_loop_call\n"
	"probe_loop_call:\n"
	"	push %ebp\n	push %ebx\n	push %esi\n	push %edi\n"
	"	mov $20, %eax\n"		/* getpid */
	"	mov probe_regs, %ebx\n	mov probe_regs+4, %ecx\n	mov probe_regs+8, %edx\n"
	"	mov probe_regs+12, %esi\n	mov probe_regs+16, %edi\n	mov probe_regs+20, %ebp\n"
	"	int $0x80\n"
	".globl probe_loop_after\n"
	"probe_loop_after:\n"
	"	mov %ebx, probe_seen\n	mov %ecx, probe_seen+4\n	mov %edx, probe_seen+8\n"
	"	mov %esi, probe_seen+12\n	mov %edi, probe_seen+16\n	mov %ebp, probe_seen+20\n"
	"	mov %eax, probe_seen+24\n"
	"	pop %edi\n	pop %esi\n	pop %ebx\n	pop %ebp\n"
	"	ret\n");

static void one_round(const char *order, volatile char *page)
{
	for (const char *o = order; *o; o++) {
		if (*o == 's') {
			probe_syscall();
		} else if (*o == 'f') {
			probe_touch(page);
		} else if (*o == 'c') {
			int status, pid = probe_fork();

			if (pid == 0)
				_exit(0);
			if (pid < 0 || waitpid(pid, &status, 0) != pid) {
				printf("ptiprobe: fork failed\n");
				exit(1);
			}
		}
	}
}

static void on_sigusr1(int sig)
{
	(void)sig;
	probe_interrupted = 1;
}

/* System calls until SIGUSR1, each checked: a frame that came back from another CPU's shows here. */
static int call_loop(void)
{
	unsigned int calls = 0, wrong = 0;
	int pid = getpid();

	if (sigaction_old(SIGUSR1, on_sigusr1, 0) < 0) {
		printf("ptiprobe: sigaction failed\n");
		return 1;
	}
	while (!probe_interrupted) {
		probe_loop_call();
		calls++;
		for (int i = 0; i < 6; i++)
			wrong += probe_seen[i] != probe_regs[i];
		wrong += probe_seen[6] != (unsigned int)pid;
	}
	printf("ptiprobe: pid %d: %u calls, %u wrong\n", pid, calls, wrong);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int rounds;
	volatile char *pages;

	int calls = argc == 10 && strcmp(argv[9], "calls") == 0;
	unsigned int pid;

	if (argc == 3 && strcmp(argv[1], "stop") == 0 && !parse_uint(argv[2], &pid))
		return kill((int)pid, SIGUSR1) < 0;

	if ((argc != 9 && !calls) || parse_uint(argv[8], &rounds) || rounds < 1 || rounds > MAX_ROUNDS) {
		printf("usage: ptiprobe B C D S I P ORDER ROUNDS (1..%d) [calls]\n", MAX_ROUNDS);
		return 2;
	}
	for (int i = 0; i < 6; i++)
		if (parse_uint(argv[1 + i], &probe_regs[i])) {
			printf("ptiprobe: bad number %s\n", argv[1 + i]);
			return 2;
		}
	probe_syscall();	/* its first: before any other call could be hurt by a lost register */
	pages = mmap(0, rounds * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		printf("ptiprobe: mmap failed\n");
		return 1;
	}
	printf("ptiprobe: pid %d ready\n", getpid());
	for (unsigned int r = 0; r < rounds; r++)
		one_round(argv[7], pages + r * PAGE_SIZE);
	printf("ptiprobe: rounds done\n");
	if (calls)
		return call_loop();
	for (volatile unsigned long n = 0;; n++)
		;
}
