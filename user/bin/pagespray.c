// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagespray [-q] [ROUNDS]: maps 32 pages, fills every one with values that
 * read as page-table entries pointing outside memory (0x3f000001 then
 * 0xff000000: a present PAE entry whose frame the direct map puts at
 * 0xff000000), unmaps them, and again: ROUNDS times, or until killed.
 * Each round takes freed pages back from the allocator, so a kernel that
 * still read a page table after its process had exited would read these
 * values and follow them (the lifetimes stress: walkstress, test_lifetimes.py).
 * It ends with one line saying what it did; -q: silent (walkstress starts
 * thousands).
 */
#include <ulib.h>

#define PAGES	32

static void fill(uint32_t *p, size_t words)
{
	for (size_t i = 0; i < words; i++)
		p[i] = (i & 1) ? 0xff000000u : 0x3f000001u;
}

int main(int argc, char **argv)
{
	unsigned int rounds = 0, r, short_of_memory = 0;
	size_t len = PAGES * PAGE_SIZE;
	int quiet = argc > 1 && strcmp(argv[1], "-q") == 0;

	if (argc > 1 + quiet && parse_uint(argv[1 + quiet], &rounds)) {
		printf("pagespray: usage: pagespray [-q] [ROUNDS]\n");
		return 2;
	}
	for (r = 0; !rounds || r < rounds; r++) {
		uint32_t *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			short_of_memory++;	/* others hold the pages: try again later */
			sched_yield();
			continue;
		}
		fill(p, len / sizeof(*p));
		if (munmap(p, len)) {
			printf("pagespray: munmap: %s\n", errno_name(errno));
			return 1;
		}
	}
	if (!quiet)
		printf("pagespray: %u rounds of %d pages (%u times short of memory)\n", r, PAGES,
		       short_of_memory);
	return 0;
}
