// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process-pagetables lab's test program, linked at grade time with a
 * layout drawn from the grade's seed (labs/process-pagetables/checks.py
 * writes layout.S with the segments' bytes and a linker script that puts
 * each segment at its own random address). What it does depends on argv:
 *
 *   segments                 use every segment as its permission allows
 *                            (run text2, read rodata, write data and bss),
 *                            map a JIT page RW then RX and a PROT_NONE
 *                            page, print "segments: ready ...", spin
 *   segments write ADDR      write one byte at ADDR
 *   segments exec ADDR       call ADDR (the grader picks a ret byte)
 *   segments read ADDR       read one byte at ADDR
 *   segments stack           run a ret written on the stack
 *   segments overflow        recurse until the stack runs out
 *   segments mapfixed A LEN  mmap(MAP_FIXED) [A, A+LEN) and print the result
 *   segments protnone        read a page mprotect()ed to PROT_NONE
 *
 * Each prints what it tried before trying it; a fault kills it with the
 * kernel's segfault line, which the grader compares with the address and
 * the error code the page tables must give.
 */
#include "ulib.h"

extern const unsigned char lab_rodata[], lab_rodata_end[];
extern unsigned char lab_data[], lab_data_end[];
extern unsigned char lab_bss[], lab_bss_end[];
extern unsigned char lab_bssonly[], lab_bssonly_end[];
extern const unsigned char lab_rodata2[], lab_rodata2_end[];
int text2_answer(void);

static unsigned int checksum(const unsigned char *p, const unsigned char *end)
{
	unsigned int sum = 0;

	while (p < end)
		sum = sum * 31 + *p++;
	return sum;
}

static int all_zero(const unsigned char *p, const unsigned char *end)
{
	while (p < end)
		if (*p++)
			return 0;
	return 1;
}

static unsigned int arg(char **argv, int i)
{
	unsigned int v = 0;

	if (parse_uint(argv[i], &v)) {
		printf("segments: bad number %s\n", argv[i]);
		exit(2);
	}
	return v;
}

static volatile unsigned int never = ~0u;

static __attribute__((noinline)) unsigned int deeper(unsigned int n)
{
	volatile char frame[1024];

	frame[0] = (char)n;
	if (n == never)
		return 0;
	/* the use of frame after the call keeps it from being a tail call */
	return deeper(n + 1) + (unsigned char)frame[0];
}

static void run_stack(void)
{
	unsigned char code[16];
	void (*fn)(void) = (void (*)(void))(void *)code;

	code[0] = 0xc3;		/* ret */
	printf("segments: running the stack at 0x%x\n", (unsigned)(uintptr_t)code);
	fn();
	printf("segments: the stack ran\n");
}

static void protnone(void)
{
	volatile unsigned char *p = mmap(0, PAGE_SIZE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("segments: mmap failed\n");
		exit(1);
	}
	p[0] = 1;		/* its first touch: the page gets its frame (a fault of its own) */
	if (mprotect((void *)p, PAGE_SIZE, PROT_NONE)) {
		printf("segments: mprotect PROT_NONE failed\n");
		exit(1);
	}
	printf("segments: reading PROT_NONE page 0x%x\n", (unsigned)(uintptr_t)p);
	printf("segments: read %d from the PROT_NONE page\n", p[0]);
}

/* Every segment used as it may be, the mmap'd pages made, then a spin. */
static void use_and_spin(void)
{
	unsigned char *jit, *none;
	int (*fn)(void);

	printf("segments: text2 says %d\n", text2_answer());
	printf("segments: rodata %08x rodata2 %08x data %08x\n",
	       checksum(lab_rodata, lab_rodata_end), checksum(lab_rodata2, lab_rodata2_end),
	       checksum(lab_data, lab_data_end));
	printf("segments: bss zero %d, bss-only zero %d\n", all_zero(lab_bss, lab_bss_end),
	       all_zero(lab_bssonly, lab_bssonly_end));
	if ((uintptr_t)lab_bss_end > (uintptr_t)lab_bss)
		lab_bss[0] = 1;
	if ((uintptr_t)lab_bssonly_end > (uintptr_t)lab_bssonly)
		lab_bssonly[0] = 1;
	jit = mmap(0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = mmap(0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED || none == MAP_FAILED) {
		printf("segments: mmap failed\n");
		exit(1);
	}
	fn = put_ret42(jit);
	none[0] = 0x5a;
	if (mprotect(jit, PAGE_SIZE, PROT_READ | PROT_EXEC) || mprotect(none, PAGE_SIZE, PROT_NONE)) {
		printf("segments: mprotect failed\n");
		exit(1);
	}
	printf("segments: jit returned %d\n", fn());
	printf("segments: ready jit=0x%x protnone=0x%x\n", (unsigned)(uintptr_t)jit,
	       (unsigned)(uintptr_t)none);
	for (;;)
		;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";

	if (!strcmp(mode, "spin")) {
		use_and_spin();
	} else if (!strcmp(mode, "write") && argc == 3) {
		unsigned int a = arg(argv, 2);

		printf("segments: writing 0x%x\n", a);
		*(volatile unsigned char *)a = 1;
		printf("segments: wrote 0x%x\n", a);
	} else if (!strcmp(mode, "read") && argc == 3) {
		unsigned int a = arg(argv, 2);

		printf("segments: reading 0x%x\n", a);
		printf("segments: read %d at 0x%x\n", *(volatile unsigned char *)a, a);
	} else if (!strcmp(mode, "exec") && argc == 3) {
		unsigned int a = arg(argv, 2);

		printf("segments: calling 0x%x\n", a);
		((void (*)(void))a)();
		printf("segments: 0x%x ran\n", a);
	} else if (!strcmp(mode, "stack")) {
		run_stack();
	} else if (!strcmp(mode, "overflow")) {
		printf("segments: recursing\n");
		printf("segments: %u\n", deeper(0));
	} else if (!strcmp(mode, "mapfixed") && argc == 4) {
		unsigned int a = arg(argv, 2), len = arg(argv, 3);
		long r = syscall6(__NR_mmap2, (long)a, (long)len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		printf("segments: mmap fixed 0x%x+0x%x: %s\n", a, len,
		       r < 0 && r > -4096 ? errno_name((int)-r) : "mapped");
	} else if (!strcmp(mode, "protnone")) {
		protnone();
	} else {
		printf("segments: usage: segments [write|read|exec ADDR | stack | overflow | "
		       "mapfixed ADDR LEN | protnone]\n");
		return 2;
	}
	return 0;
}
