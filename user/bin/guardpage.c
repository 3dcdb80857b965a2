// SPDX-License-Identifier: GPL-2.0-only
/*
 * guardpage [SIZE]: an electric-fence allocator (Bruce Perens' Electric
 * Fence, 1987). Each object gets pages of its own, placed so that it ends
 * exactly where the last one ends, and the page after it is PROT_NONE: a
 * write one byte past the end faults at once, in the instruction that
 * does it, instead of corrupting the next object silently.
 *
 * The program allocates a SIZE-byte object (default 100), fills it (no
 * fault), then writes one byte past its end. The SIGSEGV handler prints
 * the fault address and how far past the object it is, then opens the
 * guard page so that the write can finish. Then the fence closes again
 * and a write 7 bytes past the end must fault at that very byte. The
 * verdict, "caught", when each write faulted once, where it wrote.
 */
#include <ulib.h>

struct fence {
	char *obj;
	size_t size;
	char *guard;
};

#define STRAY	7	/* the second overflow: this many bytes past the end */

static struct fence f;
static volatile int faults;
static volatile uint32_t fault_addr;
static volatile int fault_code;

/* an object that ends at a page end, with a PROT_NONE page after it */
static char *ef_malloc(size_t size)
{
	size_t pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
	char *base = mmap(NULL, (pages + 1) * PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return 0;
	f.guard = base + pages * PAGE_SIZE;
	if (mprotect(f.guard, PAGE_SIZE, PROT_NONE))
		return 0;
	f.size = size;
	f.obj = f.guard - size;
	return f.obj;
}

static void on_segv(int sig, struct siginfo *si, void *uc)
{
	uint32_t addr = si->fault.addr;

	(void)sig;
	(void)uc;
	/* not the fence: die of it, as with no handler */
	if (addr < (uint32_t)f.guard || addr >= (uint32_t)f.guard + PAGE_SIZE) {
		struct k_sigaction dfl = { SIG_DFL, 0, 0, 0 };

		sigaction_k(SIGSEGV, &dfl, 0);
		return;
	}
	faults++;
	fault_addr = addr;
	fault_code = si->si_code;
	printf("guardpage: SIGSEGV (%s) at %#x: %u bytes past the end of the %u-byte object at %#x\n",
	       si->si_code == SEGV_ACCERR ? "SEGV_ACCERR" : "not SEGV_ACCERR", addr,
	       addr - (uint32_t)(f.obj + f.size), (unsigned int)f.size, (uint32_t)f.obj);
	/* open the fence: the write is retried and lands in the guard page */
	mprotect(f.guard, PAGE_SIZE, PROT_READ | PROT_WRITE);
}

/* the fault-th fault came, SEGV_ACCERR, at exactly addr */
static int caught_at(volatile char *addr, int fault)
{
	if (faults == fault && fault_addr == (uint32_t)addr && fault_code == SEGV_ACCERR)
		return 1;
	printf("guardpage: NOT caught as it should be: %d faults, last at %#x, expected %#x\n",
	       faults, (unsigned int)fault_addr, (uint32_t)addr);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int size = 100;
	volatile char *obj;

	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &size) || size == 0 || size > 65536))) {
		printf("usage: guardpage [SIZE], 1 <= SIZE <= 65536\n");
		return 2;
	}
	if (sigaction_handler(SIGSEGV, on_segv, 0)) {
		printf("guardpage: sigaction: %s\n", errno_name(errno));
		return 1;
	}
	obj = ef_malloc(size);
	if (!obj) {
		printf("guardpage: ef_malloc(%u): %s\n", size, errno_name(errno));
		return 1;
	}
	printf("guardpage: a %u-byte object at %#x, the guard page at %#x\n", size, (uint32_t)obj,
	       (uint32_t)f.guard);
	for (unsigned int i = 0; i < size; i++)
		obj[i] = (char)i;
	printf("guardpage: wrote all %u bytes: %d faults\n", size, faults);
	printf("guardpage: writing obj[%u], one byte past the end\n", size);
	obj[size] = 1;
	if (!caught_at(obj + size, 1))
		return 1;
	/* the fence again, and a stray write further on: si_addr is the byte, not the page */
	mprotect(f.guard, PAGE_SIZE, PROT_NONE);
	printf("guardpage: writing obj[%u], %u bytes past the end\n", size + STRAY, STRAY);
	obj[size + STRAY] = 1;
	if (!caught_at(obj + size + STRAY, 2))
		return 1;
	printf("guardpage: caught: each overflow faulted at the byte it wrote\n");
	return 0;
}
