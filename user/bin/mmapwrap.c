// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmapwrap: mmap, munmap and mprotect with lengths that wrap when rounded
 * up to whole pages (0xfffff001..0xffffffff become 0) and ranges whose
 * end passes 4 GiB. Linux's i386 answers: mmap ENOMEM, munmap EINVAL,
 * mprotect ENOMEM; and nothing of the page already mapped changes. KTAP,
 * as usertest's; the same binary runs on ronx and on Linux. (An end past
 * TASK_SIZE but below 4 GiB is usertest's munmap_kernel_half_einval.)
 */
#include <ulib.h>

static int n, failed;

static void check(int ok, const char *name)
{
	n++;
	failed += !ok;
	printf("    %sok %d %s\n", ok ? "" : "not ", n, name);
}

/* The page is still mapped and writable, and holds what it held. */
static int page_intact(volatile unsigned char *p, unsigned char v)
{
	if (write(1, "", 0) < 0 || p[0] != v)
		return 0;
	p[0] = v;
	return 1;
}

static const unsigned long wrap_lens[] = { 0xfffff001UL, 0xfffff800UL, 0xffffffffUL };

int main(void)
{
	unsigned char *p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int bad_mmap = 0, bad_fixed = 0, bad_munmap = 0, bad_mprotect = 0;
	long r;

	printf("KTAP version 1\n1..1\n    # Subtest: mmap_wrap\n    1..9\n");
	if (p == MAP_FAILED) {
		printf("    # mmap(1 page) failed: %s\n", errno_name(errno));
		return 1;
	}
	p[0] = 0x5a;
	for (unsigned i = 0; i < sizeof(wrap_lens) / sizeof(wrap_lens[0]); i++) {
		unsigned long len = wrap_lens[i];
		void *q;

		q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = q == MAP_FAILED ? -1 : (long)q;
		printf("    # mmap(NULL, %#lx) = %s\n", len, result_str(r));
		bad_mmap += !fails_with(r, ENOMEM);
		q = mmap(p, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		r = q == MAP_FAILED ? -1 : (long)q;
		printf("    # mmap(%p, %#lx, MAP_FIXED) = %s\n", (void *)p, len, result_str(r));
		bad_fixed += !fails_with(r, ENOMEM);
		r = munmap(p, len);
		printf("    # munmap(%p, %#lx) = %s\n", (void *)p, len, result_str(r));
		bad_munmap += !fails_with(r, EINVAL);
		r = mprotect(p, len, PROT_READ);
		printf("    # mprotect(%p, %#lx, PROT_READ) = %s\n", (void *)p, len, result_str(r));
		bad_mprotect += !fails_with(r, ENOMEM);
	}
	check(!bad_mmap, "mmap_wrapping_length_enomem");
	check(!bad_fixed, "mmap_fixed_wrapping_length_enomem");
	check(!bad_munmap, "munmap_wrapping_length_einval");
	check(!bad_mprotect, "mprotect_wrapping_length_enomem");
	check(page_intact(p, 0x5a), "page_still_mapped_rw");

	/* end past 4 GiB: addr + len wraps to a small number */
	r = munmap(p, 0U - (unsigned long)p + PAGE_SIZE);
	printf("    # munmap(%p, %#lx) = %s\n", (void *)p, 0U - (unsigned long)p + PAGE_SIZE, result_str(r));
	check(fails_with(r, EINVAL), "munmap_end_wraps_einval");
	r = mprotect(p, 0U - (unsigned long)p + PAGE_SIZE, PROT_READ);
	printf("    # mprotect(%p, %#lx) = %s\n", (void *)p, 0U - (unsigned long)p + PAGE_SIZE, result_str(r));
	check(fails_with(r, ENOMEM), "mprotect_end_wraps_enomem");
	r = mprotect(p, 0U - (unsigned long)p, PROT_READ);
	printf("    # mprotect(%p, %#lx) = %s\n", (void *)p, 0U - (unsigned long)p, result_str(r));
	check(fails_with(r, ENOMEM), "mprotect_end_at_4g_enomem");
	check(page_intact(p, 0x5a), "page_still_mapped_rw_after_all");
	printf("%sok 1 mmap_wrap\n# mmapwrap: %d of %d checks passed\n", failed ? "not " : "",
	       n - failed, n);
	return failed ? 1 : 0;
}
