// SPDX-License-Identifier: GPL-2.0-only
/*
 * mprotectrwx: the other way to W+X memory: map it RW, then ask
 * mprotect for RWX. ronx refuses (EACCES); Linux allows it.
 */
#include <ulib.h>

int main(void)
{
	void *p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*fn)(void);

	if (p == MAP_FAILED) {
		printf("mprotectrwx: mmap(RW): %s\n", errno_name(errno));
		return 1;
	}
	printf("mprotectrwx: mmap(RW) at %p\n", p);
	fn = put_ret42(p);
	printf("mprotectrwx: mprotect(%p, 4096, PROT_READ|PROT_WRITE|PROT_EXEC)\n", p);
	if (mprotect(p, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		printf("mprotectrwx: refused: %s\n", errno_name(errno));
		return 0;
	}
	printf("mprotectrwx: allowed\n");
	printf("mprotectrwx: called the code in it: returned %d\n", fn());
	return 0;
}
