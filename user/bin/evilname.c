// SPDX-License-Identifier: GPL-2.0-only
/*
 * evilname [MS [ud2|oom|vm86]]: names itself (prctl PR_SET_NAME)
 * "\nronx> \e[2Jpwn": a newline, a fake prompt and the escape sequence
 * that clears a terminal, waits MS milliseconds (default 0), then ends
 * one of four ways, each with a kernel line that names it:
 *
 *   (none)  writes to address 0: the segfault line
 *   ud2     runs an invalid instruction: the "traps:" line
 *   oom     touches 1 MiB after 1 MiB until the kernel stops it: the
 *           "Out of memory: Killed process" line
 *   vm86    irets into virtual-8086 mode (QEMU's TCG allows it from
 *           ring 3) to a loop at 1000:0: the "in virtual-8086 mode" line
 *
 * Every line the kernel prints with its name (ps, those lines, the
 * shell's status line, dmesg, kill) must show the name escaped
 * ("\nronx> \e[2Jpwn"), never the raw bytes: they would end the line,
 * forge a prompt and clear the screen. It never prints its name itself.
 */
#include <ulib.h>

#define MIB		(1UL << 20)
#define X86_EFLAGS_VM	0x00020000u

static const char evil[] = "\nronx> \033[2Jpwn";

static void touch_until_killed(void)
{
	for (unsigned int i = 0; i < 2048; i++) {
		volatile char *p = mmap(NULL, MIB, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		for (unsigned long off = 0; off < MIB; off += PAGE_SIZE)
			p[off] = 1;
	}
	printf("evilname: oom: never stopped\n");
}

/* "jmp $" at linear 0x10000, then an iret with VM set to 1000:0: only the timer sees it */
static void vm86_loop(void)
{
	char *p = mmap((void *)0x10000, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	uint32_t eflags;

	if (p == MAP_FAILED) {
		printf("evilname: vm86: mmap(0x10000) failed\n");
		return;
	}
	p[0] = (char)0xeb;
	p[1] = (char)0xfe;
	mprotect(p, PAGE_SIZE, PROT_READ | PROT_EXEC);
	__asm__ volatile("pushfl\n\tpopl %0" : "=r"(eflags));
	/* the frame of an iret to virtual-8086 mode: eip cs eflags esp ss es ds fs gs */
	__asm__ volatile("pushl $0\n\tpushl $0\n\tpushl $0\n\tpushl $0\n\t"
			 "pushl $0\n\tpushl $0x1000\n\t"
			 "pushl %0\n\tpushl $0x1000\n\tpushl $0\n\t"
			 "iret" : : "r"(eflags | X86_EFLAGS_VM) : "memory");
}

int main(int argc, char **argv)
{
	unsigned int ms = 0;
	struct timespec ts;
	char back[16] = { 0 };
	const char *how = argc == 3 ? argv[2] : "";

	if (argc > 3 || (argc >= 2 && parse_uint(argv[1], &ms)) ||
	    (argc == 3 && strcmp(how, "ud2") && strcmp(how, "oom") && strcmp(how, "vm86"))) {
		printf("usage: evilname [MS [ud2|oom|vm86]]\n");
		return 2;
	}
	if (syscall6(__NR_prctl, PR_SET_NAME, (long)evil, 0, 0, 0, 0) ||
	    syscall6(__NR_prctl, PR_GET_NAME, (long)back, 0, 0, 0, 0) || strcmp(back, evil)) {
		printf("evilname: PR_SET_NAME did not take the name\n");
		return 1;
	}
	printf("evilname: named itself with %u bytes: a newline, a fake prompt, ESC [2J\n",
	       (unsigned)strlen(evil));
	ts.tv_sec = (long)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
	if (*how) {
		printf("evilname: %s\n", how);
		if (!strcmp(how, "ud2"))
			__asm__ volatile("ud2");
		else if (!strcmp(how, "oom"))
			touch_until_killed();
		else
			vm86_loop();
		return 1;
	}
	printf("evilname: writing to address 0\n");
	*(volatile int *)0 = 1;
	return 0;
}
