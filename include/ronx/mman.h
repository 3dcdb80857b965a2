/* SPDX-License-Identifier: GPL-2.0-only */
/* mmap, munmap, mprotect and brk: Linux's i386 values, and mm/mmap.c. */
#ifndef RONX_MMAN_H
#define RONX_MMAN_H
#include <stdint.h>
#include <ronx/mm_types.h>
#include <ronx/mman-common.h>
#include <ronx/mm.h>

/*
 * At most this much memory per process (Linux's RLIMIT_AS, fixed),
 * counting its page tables as well as its pages (mm_charged_pages()).
 */
#define USER_PAGES_MAX	8192	/* 32 MiB */
/*
 * Never hand a process the kernel's last pages, neither as its pages nor
 * as its page tables: the shell, ps, kill and the OOM kill's exit need
 * them. A fault that would take one OOM-kills the process instead.
 */
#define USER_FREE_RESERVE	16

/*
 * May mm be charged npages more (pages or page tables), within its limit
 * and leaving the kernel its reserve? Every page the kernel takes for a
 * process asks this first.
 */
static inline bool mm_may_charge(const struct mm_struct *mm, uint32_t npages)
{
	return mm_charged_pages(mm) + npages <= USER_PAGES_MAX &&
	       npages + USER_FREE_RESERVE <= nr_free_pages();
}
/* mm/oom_kill.c: as above, after an OOM kill of the largest process if RAM is what ran short */
bool mm_charge(struct mm_struct *mm, uint32_t npages);

long do_mmap(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
	     unsigned flags, int fd);
long do_mmap_pgoff(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot,
		   unsigned flags, int fd, uint32_t pgoff);	/* pgoff: a memfd's, in pages */
long do_munmap(struct mm_struct *mm, uint32_t addr, uint32_t len);
long do_mprotect(struct mm_struct *mm, uint32_t addr, uint32_t len, unsigned prot);
uint32_t do_brk(struct mm_struct *mm, uint32_t newbrk);
int map_area(struct mm_struct *mm, uint32_t start, uint32_t end, unsigned flags,
	     unsigned kind);
unsigned prot_to_vm_flags(unsigned prot);
/* mm/mmap_range.c: the lengths and ranges, checked as Linux's i386 does */
uint32_t page_align_len(uint32_t len);
long mmap_len(uint32_t len, uint32_t *size);
long munmap_range(uint32_t addr, uint32_t len, uint32_t *end);
long mprotect_range(uint32_t addr, uint32_t len, uint32_t *end);
#endif
