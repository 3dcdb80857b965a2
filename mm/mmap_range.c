// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ranges mmap, munmap and mprotect are asked for, checked as Linux
 * checks them on i386, where a length is 32 bits: rounding it up to whole
 * pages wraps to 0 for 0xfffff001..0xffffffff, and addr + len may wrap
 * past 4 GiB. Pure (host-tested in tests/host/test_mmap_range.c).
 *
 *   mmap      len 0: EINVAL; rounds to 0: ENOMEM (do_mmap())
 *   munmap    addr not page-aligned, above TASK_SIZE, or len more than
 *             TASK_SIZE - addr, or rounds to 0: EINVAL (do_vmi_munmap())
 *   mprotect  addr not page-aligned: EINVAL; len 0: nothing to do;
 *             addr + rounded len wraps (or len rounds to 0): ENOMEM
 *             (do_mprotect_pkey()); an end above TASK_SIZE has no area
 *             there: ENOMEM (the caller's check)
 */
#include <ronx/errno.h>
#include <ronx/memlayout.h>
#include <ronx/mman.h>

/* PAGE_ALIGN(len) in 32 bits, as Linux's on i386: 0 when it wraps. */
uint32_t page_align_len(uint32_t len)
{
	return (uint32_t)(len + (uint32_t)PAGE_SIZE - 1) & (uint32_t)PAGE_MASK;
}

long mmap_len(uint32_t len, uint32_t *size)
{
	if (!len)
		return -EINVAL;
	*size = page_align_len(len);
	return *size ? 0 : -ENOMEM;
}

long munmap_range(uint32_t addr, uint32_t len, uint32_t *end)
{
	if ((addr & ~(uint32_t)PAGE_MASK) || addr > TASK_SIZE || len > TASK_SIZE - addr)
		return -EINVAL;
	if (!page_align_len(len))
		return -EINVAL;
	*end = addr + page_align_len(len);
	return 0;
}

long mprotect_range(uint32_t addr, uint32_t len, uint32_t *end)
{
	uint32_t size = page_align_len(len);

	if (addr & ~(uint32_t)PAGE_MASK)
		return -EINVAL;
	*end = addr;
	if (!len)
		return 0;
	if ((uint32_t)(addr + size) <= addr)
		return -ENOMEM;
	*end = addr + size;
	return 0;
}
