// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmaprwx: asks for anonymous memory that is writable and executable at
 * once. ronx refuses (EACCES: user W^X); Linux allows it unless a
 * security module (SELinux's execmem) says no. If it is allowed, code
 * written into it runs.
 */
#include <ulib.h>

int main(void)
{
	void *p;

	printf("mmaprwx: mmap(4096, PROT_READ|PROT_WRITE|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS)\n");
	p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("mmaprwx: refused: %s\n", errno_name(errno));
		return 0;
	}
	printf("mmaprwx: allowed at %p\n", p);
	printf("mmaprwx: wrote code into it and called it: returned %d\n", put_ret42(p)());
	return 0;
}
