// SPDX-License-Identifier: GPL-2.0-only
/*
 * jit: what a just-in-time compiler does under W^X. Write code into an
 * RW page, flip the page to RX with mprotect, call it. The page is never
 * writable and executable at once, so this works on ronx and on Linux.
 */
#include <ulib.h>

int main(void)
{
	void *p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*fn)(void);

	if (p == MAP_FAILED) {
		printf("jit: mmap(RW): %s\n", errno_name(errno));
		return 1;
	}
	fn = put_ret42(p);
	printf("jit: wrote code into an RW page at %p\n", p);
	if (mprotect(p, PAGE_SIZE, PROT_READ | PROT_EXEC)) {
		printf("jit: mprotect(RX): %s\n", errno_name(errno));
		return 1;
	}
	printf("jit: mprotect(RX) done, calling it\n");
	printf("jit: returned %d\n", fn());
	return 0;
}
