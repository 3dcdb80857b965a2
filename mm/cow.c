// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy-on-write: two processes share a frame until one of them writes it
 * (Linux: mm/memory.c's copy_one_pte(), do_wp_page(), zap_pte_range(),
 * and get_page()/put_page()). The cow lab's file (docs/labs/cow.md).
 *
 *   the counts      a user frame counts the PTEs that map it
 *                   (frame_refs[], mm/page_ref.c); the last PTE to go
 *                   gives the frame back. The zero page is never counted.
 *   fork's copy     the child's PTEs point at the parent's frames, each
 *                   counted once more. A private writable page loses RW
 *                   in both, so that whichever process writes first
 *                   faults; read-only and MAP_SHARED pages stay as they
 *                   are. The parent's TLB may still hold the old
 *                   writable entries: they are flushed before fork
 *                   returns, on every CPU that has the parent's mm.
 *   the write fault a frame no one else maps any more is taken back
 *                   writable; a shared one is copied, the PTE moved to
 *                   the copy, and only then is the old frame put. The
 *                   kernel's own writes (copy_to_user(), put_user()) come
 *                   here too, since CR0.WP makes ring 0 fault on a
 *                   read-only page.
 *   exit            every PTE's frame is put (mmput() calls
 *                   zap_pte_range() for each page table).
 *
 * The counts change atomically: two processes that share a frame may
 * fault on it on two CPUs at once, each dropping its own reference after
 * it has its own copy.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/tlbflush.h>
#include <ronx/traps.h>
#include <ronx/page_ref.h>
#include <ronx/memory.h>
#include <ronx/mman.h>
#include <ronx/uaccess.h>
#include <ronx/stagestat.h>

/* One more PTE maps the user frame at pa. */
void get_user_frame(unsigned long pa)
{
	if (!is_zero_frame(pa))
		__atomic_fetch_add(&frame_refs[PFN_DOWN(pa)], 1, __ATOMIC_SEQ_CST);
}

/*
 * A PTE no longer maps pa. The caller has flushed every TLB that could
 * hold that PTE: the frame may be another process's a moment later.
 */
void put_user_frame(unsigned long pa)
{
	uint8_t left;

	if (is_zero_frame(pa))
		return;
	left = __atomic_sub_fetch(&frame_refs[PFN_DOWN(pa)], 1, __ATOMIC_SEQ_CST);
	if (left == 0)
		free_page(pa);
	else if (left == 0xff)
		pr_err("page_ref: frame %#lx dropped below zero references\n", pa);
}

/*
 * One page of fork's copy: the child's PTE points at the parent's frame,
 * which counts one more user. A private writable page loses RW in the
 * parent too, so that whichever writes first gets a copy; read-only,
 * MAP_SHARED and zero pages stay as they are. Returns whether the
 * parent's PTE lost RW (its TLB must forget the writable entry).
 */
static bool copy_one_pte(struct mm_struct *dst, pteval_t *dst_pte, pteval_t *src_pte,
			 const struct vm_area_struct *v)
{
	pteval_t e = *src_pte;
	bool wrprotect = (e & _PAGE_RW) && !(v->vm_flags & VM_SHARED);

	get_user_frame((unsigned long)(e & PTE_PFN_MASK));
	if (wrprotect) {
		e &= ~(pteval_t)_PAGE_RW;
		set_pte_atomic(src_pte, e);
	}
	*dst_pte = e;
	dst->total_pages++;
	return wrprotect;
}

/* Is there a page table under va in mm? (a walk over an empty area skips 2 MiB at once) */
static bool has_table(struct mm_struct *mm, uint32_t va)
{
	return user_pte(mm, va & PMD_MASK, false) != 0;
}

/*
 * fork's copy of every area of src into dst. The parent's entries that
 * lost RW may still be writable in a TLB: this CPU's, and any other
 * CPU's that has src loaded (mm->cpu_mask); until that flush a write by
 * the parent would land in the frame the child now shares. The flush
 * comes before the child can run (it is not runnable yet).
 */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src)
{
	bool flush = false;
	int ret = 0;

	for (int i = 0; i < src->vmas.nr && !ret; i++) {
		const struct vm_area_struct *v = &src->vmas.v[i];

		for (uint32_t va = v->vm_start; va < v->vm_end; va += PAGE_SIZE) {
			pteval_t *s, *d;

			if (!has_table(src, va)) {
				va = (va & PMD_MASK) + PMD_SIZE - PAGE_SIZE;
				if (va + PAGE_SIZE == 0)
					break;
				continue;
			}
			s = user_pte(src, va, false);
			if (!pte_has_frame(*s))
				continue;
			if (page_ref_count((unsigned long)(*s & PTE_PFN_MASK)) >= PAGE_REF_MAX) {
				ret = -ENOMEM;	/* see page_ref.h */
				break;
			}
			d = user_pte(dst, va, true);
			if (!d) {
				ret = -ENOMEM;
				break;
			}
			flush |= copy_one_pte(dst, d, s, v);
		}
	}
	if (flush)
		flush_tlb_mm_range(src, 0, TASK_SIZE);
	return ret;
}

/*
 * A write to a present, read-only page of a private writable area, by
 * the process in ring 3 or by the kernel for it (ec says which: X86_PF_USER
 * or not; both are served alike). A frame only this PTE maps becomes
 * writable again; a shared one is copied, the PTE moved to the copy, and
 * only after every TLB has forgotten the old entry does this PTE's
 * reference to the old frame go: the other process may be its last user.
 */
enum vm_fault do_wp_page(struct mm_struct *mm, const struct vm_area_struct *v, uint32_t va,
			 pteval_t *pte, uint32_t ec)
{
	pteval_t prot = vm_get_page_prot(v->vm_flags);
	unsigned long old = (unsigned long)(*pte & PTE_PFN_MASK), pa;

	(void)ec;
	if (page_ref_count(old) == 1) {
		set_pte_atomic(pte, old | prot);
		__flush_tlb_one(va);
		count_fault(&fault_stats.cow_reuses);
		return VM_FAULT_DONE;
	}
	/* not zeroed first: the copy writes every byte before the PTE points at it */
	pa = alloc_user_frame_uninit(mm);
	if (!pa)
		return VM_FAULT_OOM;
	stage_mark(ST_FAULT_COW_ALLOC);
	memcpy(__va(pa), __va(old), PAGE_SIZE);
	stage_mark(ST_FAULT_COW_COPY);
	count_fault(&fault_stats.cow_copies);
	set_pte_atomic(pte, pa | prot);
	flush_tlb_mm_range(mm, va, va + PAGE_SIZE);
	put_user_frame(old);
	stage_mark(ST_FAULT_COW_SET);
	return VM_FAULT_DONE;
}

/* One page table of an mm that is going away: every frame it maps is put. */
void zap_pte_range(struct mm_struct *mm, pteval_t *ptes)
{
	for (int i = 0; i < PTRS_PER_PTE; i++) {
		if (pte_has_frame(ptes[i])) {
			put_user_frame(ptes[i] & PTE_PFN_MASK);
			mm->total_pages--;
		}
	}
}
