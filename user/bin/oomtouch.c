// SPDX-License-Identifier: GPL-2.0-only
/*
 * oomtouch [MiB]: maps anonymous memory 1 MiB at a time and writes every
 * page of it, up to MiB (default 64). mmap itself takes no memory (the
 * pages come on first touch); the writes do. A kernel that runs out
 * during a fault kills the toucher with one line (Linux's "Out of
 * memory: Killed process N (oomtouch)"); ronx also stops a process at
 * its own limit (32 MiB) the same way. With enough memory it says how
 * much it touched and exits 0.
 */
#include <ulib.h>

#define MIB	(1UL << 20)

int main(int argc, char **argv)
{
	unsigned int want = 64;

	if (argc > 1 && (parse_uint(argv[1], &want) || want == 0 || want > 2048)) {
		printf("usage: oomtouch [MiB 1-2048]\n");
		return 2;
	}
	printf("oomtouch: touching %u MiB, 1 MiB at a time\n", want);
	for (unsigned int i = 0; i < want; i++) {
		volatile char *p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
					-1, 0);

		if (p == MAP_FAILED) {
			printf("oomtouch: mmap failed after %u MiB: %s\n", i, errno_name(errno));
			return 1;
		}
		for (unsigned long off = 0; off < MIB; off += PAGE_SIZE)
			p[off] = 1;
		if ((i + 1) % 4 == 0)
			printf("oomtouch: %u MiB touched\n", i + 1);
	}
	printf("oomtouch: touched all %u MiB\n", want);
	return 0;
}
