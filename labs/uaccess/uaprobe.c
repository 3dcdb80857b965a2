// SPDX-License-Identifier: GPL-2.0-only
/*
 * The uaccess lab's test program: one system call with the pointer the
 * grader chose, and what the kernel answered (labs/uaccess/checks.py).
 *
 *   uaprobe CALL WHERE [LEN] [fill=TEXT | fillz=TEXT]
 *
 * CALL is the system call and the user-access function it exercises:
 *   write      write(1, WHERE, LEN)                 copy_from_user
 *   nanosleep  nanosleep(WHERE, NULL)               get_user
 *   getcpu     getcpu(WHERE, NULL, NULL)            put_user
 *   setname    prctl(PR_SET_NAME, WHERE)            strncpy_from_user
 *   getname    prctl(PR_GET_NAME, WHERE)            copy_to_user
 *   sethostname  sethostname(WHERE, LEN)            copy_from_user
 *   loop N     N rounds of the calls the grader watches EFLAGS.AC after
 *              (a good and a faulting write, a good and a faulting
 *              setname, a good sethostname), then exit
 * WHERE is 0xADDR as is, or a place in this program's own memory:
 *   buf:N      N bytes into a static buffer (mapped, writable)
 *   top:N      N bytes below TASK_SIZE: the top of the stack
 *   hole:N     N bytes before the end of a page whose next page is unmapped
 * LEN is a number, or wrap:K for the length that makes WHERE + LEN wrap
 * round to K. fill=TEXT writes TEXT at WHERE first (no NUL), fillz=TEXT
 * with its NUL; a nanosleep's buf gets the timespec {0, 1000000}.
 *
 * It prints "uaprobe: CALL(0xADDR, LEN) = RESULT" (RESULT a number or
 * -ENAME), then for getcpu the value read back, for setname/getname the
 * name PR_GET_NAME gives, for sethostname the node name uname gives (in
 * hex: it may be anything).
 */
#include "ulib.h"

static char buf[2 * PAGE_SIZE] __attribute__((aligned(4096)));

static unsigned int number(const char *s)
{
	unsigned int v = 0;

	if (parse_uint(s, &v)) {
		printf("uaprobe: bad number %s\n", s);
		exit(2);
	}
	return v;
}

/* A page whose next page is unmapped: mmap two, unmap the second. */
static char *page_before_hole(void)
{
	char *p = mmap(0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p + PAGE_SIZE, PAGE_SIZE)) {
		printf("uaprobe: cannot make a hole\n");
		exit(1);
	}
	return p;
}

static char *where(const char *s)
{
	if (!strncmp(s, "buf:", 4))
		return buf + number(s + 4);
	if (!strncmp(s, "top:", 4))
		return (char *)(TASK_SIZE - number(s + 4));
	if (!strncmp(s, "hole:", 5))
		return page_before_hole() + PAGE_SIZE - number(s + 5);
	return (char *)(uintptr_t)number(s);
}

static void result(const char *call, char *p, unsigned int len, long r)
{
	printf("uaprobe: %s(0x%x, %u) = ", call, (unsigned)(uintptr_t)p, len);
	if (r < 0 && r > -4096)
		printf("-%s\n", errno_name((int)-r));
	else
		printf("%ld\n", r);
}

static void show_name(void)
{
	char name[17] = { 0 };

	syscall6(__NR_prctl, PR_GET_NAME, (long)name, 0, 0, 0, 0);
	printf("uaprobe: name now \"%s\"\n", name);
}

static void show_nodename(void)
{
	char uts[6 * 65] = { 0 };

	syscall6(__NR_uname, (long)uts, 0, 0, 0, 0, 0);
	printf("uaprobe: nodename now ");
	for (int i = 65; i < 65 + 64 && uts[i]; i++)
		printf("%02x", uts[i] & 0xff);
	printf("\n");
}

/* The calls whose way back to ring 3 the grader stops at. */
static void loop(unsigned int rounds)
{
	char *hole = page_before_hole() + PAGE_SIZE - 4;

	memcpy(hole, "abcd", 4);
	for (unsigned int i = 0; i < rounds; i++) {
		syscall6(__NR_write, 1, (long)".", 1, 0, 0, 0);
		syscall6(__NR_write, 1, (long)hole, 8, 0, 0, 0);
		syscall6(__NR_prctl, PR_SET_NAME, (long)"uaprobe", 0, 0, 0, 0);
		syscall6(__NR_prctl, PR_SET_NAME, (long)hole, 0, 0, 0, 0);
		syscall6(__NR_sethostname, (long)"loop", 4, 0, 0, 0, 0);
	}
	printf("\nuaprobe: loop done\n");
}

int main(int argc, char **argv)
{
	const char *fill = 0;
	char call[16], text[64];	/* off the stack top that fill may overwrite */
	unsigned int len = 0;
	int nul = 0;
	char *p;
	long r;

	if (argc >= 3 && !strcmp(argv[1], "loop")) {
		loop(number(argv[2]));
		return 0;
	}
	if (argc < 3) {
		printf("uaprobe: usage: uaprobe CALL WHERE [LEN] [fill=TEXT|fillz=TEXT]\n");
		return 2;
	}
	if (strlen(argv[1]) >= sizeof(call)) {
		printf("uaprobe: no call %s\n", argv[1]);
		return 2;
	}
	memcpy(call, argv[1], strlen(argv[1]) + 1);
	p = where(argv[2]);
	for (int i = 3; i < argc; i++) {
		if (!strncmp(argv[i], "fill=", 5))
			fill = argv[i] + 5;
		else if (!strncmp(argv[i], "fillz=", 6))
			fill = argv[i] + 6, nul = 1;
		else if (!strncmp(argv[i], "wrap:", 5))
			len = (unsigned int)(0u - (unsigned int)(uintptr_t)p + number(argv[i] + 5));
		else
			len = number(argv[i]);
	}
	if (fill) {
		size_t n = strlen(fill) < sizeof(text) - 1 ? strlen(fill) : sizeof(text) - 1;

		memcpy(text, fill, n);
		text[n] = '\0';
		memcpy(p, text, n + nul);
	}
	if (!strcmp(call, "write")) {
		r = syscall6(__NR_write, 1, (long)p, (long)len, 0, 0, 0);
		printf("\n");
		result("write", p, len, r);
	} else if (!strcmp(call, "nanosleep")) {
		if (p >= buf && p < buf + sizeof(buf))
			*(struct timespec *)p = (struct timespec){ 0, 1000000 };
		r = syscall6(__NR_nanosleep, (long)p, 0, 0, 0, 0, 0);
		result("nanosleep", p, 0, r);
	} else if (!strcmp(call, "getcpu")) {
		if (p >= buf && p < buf + sizeof(buf))
			*(unsigned int *)p = 0xdeadbeef;
		r = syscall6(__NR_getcpu, (long)p, 0, 0, 0, 0, 0);
		result("getcpu", p, 0, r);
		if (p >= buf && p < buf + sizeof(buf))
			printf("uaprobe: cpu %u\n", *(unsigned int *)p);
	} else if (!strcmp(call, "setname")) {
		r = syscall6(__NR_prctl, PR_SET_NAME, (long)p, 0, 0, 0, 0);
		result("setname", p, 0, r);
		show_name();
	} else if (!strcmp(call, "sethostname")) {
		r = syscall6(__NR_sethostname, (long)p, (long)len, 0, 0, 0, 0);
		result("sethostname", p, len, r);
		show_nodename();
	} else if (!strcmp(call, "getname")) {
		r = syscall6(__NR_prctl, PR_GET_NAME, (long)p, 0, 0, 0, 0);
		result("getname", p, 0, r);
		if (p >= buf && p < buf + sizeof(buf))
			printf("uaprobe: got \"%s\"\n", p);
	} else {
		printf("uaprobe: no call %s\n", call);
		return 2;
	}
	return 0;
}
