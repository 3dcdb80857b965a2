// SPDX-License-Identifier: GPL-2.0-only
/*
 * writebarrier [N]: a write barrier made of page protection, as a
 * generational collector or an incremental checkpointer keeps one (Appel
 * and Li, ASPLOS 1991): protect the whole heap read-only (PROTN), and the
 * first write to each page faults; the SIGSEGV handler marks the page
 * dirty and unprotects it (UNPROT), so later writes to it cost nothing.
 * At the end the dirty set is exactly the pages written, found with no
 * help from the code that wrote them.
 *
 * A heap of N pages (default 64). Two epochs: each protects the whole
 * heap again, writes a pattern of pages (some of them several times), and
 * compares the handler's dirty set with the pages it wrote.
 */
#include <ulib.h>

#define MAXPAGES	128

static char *heap;
static unsigned int npages;
static volatile unsigned char dirty[MAXPAGES];
static volatile unsigned int first_writes;

static void on_segv(int sig, struct siginfo *si, void *uc)
{
	uint32_t addr = si->fault.addr;
	unsigned int i = (addr - (uint32_t)heap) / PAGE_SIZE;

	(void)sig;
	(void)uc;
	/* not the heap (or a second fault on a page already open): die of it */
	if (addr < (uint32_t)heap || i >= npages || dirty[i]) {
		struct k_sigaction dfl = { SIG_DFL, 0, 0, 0 };

		sigaction_k(SIGSEGV, &dfl, 0);
		return;
	}
	dirty[i] = 1;
	first_writes++;
	if (mprotect(heap + i * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE)) {
		printf("writebarrier: mprotect in the handler: %s\n", errno_name(errno));
		_exit(1);
	}
}

/* one epoch: protect all, write pages i where i % stride == phase, times each */
static int epoch(int n, unsigned int stride, unsigned int phase, unsigned int times)
{
	unsigned int written = 0, writes = 0, counted = 0, wrong = 0;

	for (unsigned int i = 0; i < npages; i++)
		dirty[i] = 0;
	first_writes = 0;
	if (mprotect(heap, npages * PAGE_SIZE, PROT_READ)) {
		printf("writebarrier: mprotect of the heap: %s\n", errno_name(errno));
		return 1;
	}
	for (unsigned int i = phase; i < npages; i += stride) {
		for (unsigned int k = 0; k < times; k++, writes++)
			((volatile char *)heap)[i * PAGE_SIZE + k * 64] = (char)(n + k);
		written++;
	}
	for (unsigned int i = 0; i < npages; i++) {
		counted += dirty[i];
		wrong += dirty[i] != (i >= phase && (i - phase) % stride == 0);
	}
	printf("writebarrier: epoch %d: %u writes to %u of %u pages; the handler saw %u first writes, "
	       "dirty pages: %u%s\n", n, writes, written, npages, first_writes, counted,
	       wrong ? " (NOT the pages written)" : "");
	return counted != written || first_writes != written || wrong;
}

int main(int argc, char **argv)
{
	int bad;

	npages = 64;
	if (argc > 2 || (argc == 2 && (parse_uint(argv[1], &npages) || npages < 4 ||
				       npages > MAXPAGES))) {
		printf("usage: writebarrier [N], 4 <= N <= %d\n", MAXPAGES);
		return 2;
	}
	heap = mmap(NULL, npages * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (heap == MAP_FAILED || sigaction_handler(SIGSEGV, on_segv, 0)) {
		printf("writebarrier: setup: %s\n", errno_name(errno));
		return 1;
	}
	bad = epoch(1, 3, 0, 4) | epoch(2, 5, 2, 1);
	printf("writebarrier: %s\n", bad ? "the dirty set is NOT the pages written" :
	       "the dirty set is exactly the pages written, both epochs");
	return bad;
}
