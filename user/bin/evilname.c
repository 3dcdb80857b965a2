// SPDX-License-Identifier: GPL-2.0-only
/*
 * evilname [MS [ud2]]: names itself (prctl PR_SET_NAME) "\nronx> \e[2Jpwn":
 * a newline, a fake prompt and the escape sequence that clears a terminal,
 * waits MS milliseconds (default 0) and writes to address 0 (with ud2:
 * runs an invalid instruction, for the "traps:" line instead). Every line
 * the kernel prints with its name (ps, the segfault line, the shell's
 * status line, dmesg, kill) must show the name escaped ("\nronx> \e[2Jpwn"),
 * never the raw bytes: they would end the line, forge a prompt and clear
 * the screen. It never prints its name itself.
 */
#include <ulib.h>

static const char evil[] = "\nronx> \033[2Jpwn";

int main(int argc, char **argv)
{
	unsigned int ms = 0;
	struct timespec ts;
	char back[16] = { 0 };

	if (argc > 3 || (argc >= 2 && parse_uint(argv[1], &ms)) ||
	    (argc == 3 && strcmp(argv[2], "ud2"))) {
		printf("usage: evilname [MS [ud2]]\n");
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
	if (argc == 3) {
		printf("evilname: ud2\n");
		__asm__ volatile("ud2");
	}
	printf("evilname: writing to address 0\n");
	*(volatile int *)0 = 1;
	return 0;
}
