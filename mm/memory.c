// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory that arrives when it is touched, and copy-on-write (Linux:
 * mm/memory.c, handle_mm_fault() and copy_page_range()).
 *
 * Three kinds of fault are not errors:
 *   a first touch   brk and anonymous mmap make an area and map nothing;
 *                   a read maps the one zero page read-only (Linux's
 *                   behaviour), a write a fresh zeroed frame;
 *   below the stack a fault between STACK_LIMIT (8 MiB under the top,
 *                   Linux's RLIMIT_STACK) and the stack grows the stack
 *                   down to that page; the page under STACK_LIMIT is the
 *                   guard and never mapped, so an overflow still faults;
 *   copy-on-write   fork left a private writable page read-only in both
 *                   processes (copy_page_range(), mm/cow.c); a write
 *                   copies it, or, if no other PTE maps the frame any
 *                   more, makes it writable again (do_wp_page(), mm/cow.c).
 *                   A kernel write through copy_to_user() or put_user()
 *                   comes here too: CR0.WP makes ring 0 fault on a
 *                   read-only page (kernel/cpu/fault.c).
 *
 * A memfd area's page that is not mapped (mmap maps those the memfd has
 * then, mm/mmap.c; a grow adds more, a shrink takes some away) is found
 * at the fault, as Linux's shmem_fault() finds it: the memfd's frame, or,
 * past the memfd's end, Linux's SIGBUS, never an anonymous frame.
 *
 * A process is single-threaded, and only it changes its own tables (fork
 * runs in the parent, exit in the dying process), but for one thing: a
 * shrinking memfd takes its pages out of every mapping, in any process
 * (mm/memfd_rmap.c). So a fault in a memfd area holds memfd_map_lock();
 * every other fault touches no pte a shrink may touch, and needs no
 * lock. The frame counts are atomic, since two processes that share a
 * frame may fault on it on two CPUs at once.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/memlayout.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/tlbflush.h>
#include <ronx/traps.h>
#include <ronx/page_ref.h>
#include <ronx/memory.h>
#include <ronx/stagestat.h>
#include <ronx/memfd.h>

struct fault_stats fault_stats;

void count_fault(unsigned long *stat)
{
	__atomic_fetch_add(stat, 1, __ATOMIC_RELAXED);
}

/* A new frame for mm, within its limit and the kernel's reserve; 0 if none. */
static unsigned long __alloc_user_frame(struct mm_struct *mm, bool zero)
{
	unsigned long pa;

	if (!mm_charge(mm, 1))
		return 0;
	pa = zero ? alloc_page() : __alloc_pages(1);
	if (pa)
		set_user_frame_ref(pa, 1);
	return pa;
}

unsigned long alloc_user_frame(struct mm_struct *mm)
{
	return __alloc_user_frame(mm, true);
}

/* The same, with the last owner's bytes still in it: only for a copy that overwrites it all. */
unsigned long alloc_user_frame_uninit(struct mm_struct *mm)
{
	return __alloc_user_frame(mm, false);
}

/* The stack's area, grown down to cover address if it may (Linux: expand_stack()). */
static struct vm_area_struct *expand_stack(struct mm_struct *mm, uint32_t address)
{
	struct vm_area_struct *v;

	if (address >= mm->stack_top)
		return 0;
	v = vma_grow_down(&mm->vmas, VMA_STACK, address, mm_stack_limit(mm));
	if (v)
		count_fault(&fault_stats.stack_grows);
	return v;
}

/* May this access touch area v at all? (x86: a write or a fetch implies a read) */
static bool access_allowed(const struct vm_area_struct *v, uint32_t ec)
{
	if (ec & X86_PF_INSTR)
		return v->vm_flags & VM_EXEC;
	if (ec & X86_PF_WRITE)
		return v->vm_flags & VM_WRITE;
	return v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

/*
 * Nothing at va yet: the zero page for a read of a private area, a new
 * zeroed frame otherwise (Linux: do_anonymous_page()). No TLB flush: x86
 * never caches an entry that is not present, on this CPU or another
 * (Intel SDM 3A, 4.10.4.3), and the fault itself dropped whatever this
 * CPU held for va. An anonymous MAP_SHARED area has every frame from
 * mmap on (mm/mmap.c), and a memfd area's page is the memfd's
 * (do_memfd_page()): neither comes here.
 * The frame, and any page table user_pte() made, are charged to mm
 * (mm_charge(), mm/oom_kill.c): none past its limit or from the kernel's
 * reserve, where the OOM killer may take the largest process first.
 */
static enum vm_fault do_anonymous_page(struct mm_struct *mm, const struct vm_area_struct *v,
				       pteval_t *pte, uint32_t ec)
{
	pteval_t prot = vm_get_page_prot(v->vm_flags);
	unsigned long pa;

	if (!(ec & X86_PF_WRITE) && !(v->vm_flags & VM_SHARED)) {
		*pte = zero_page_pa | (prot & ~(pteval_t)_PAGE_RW);
		count_fault(&fault_stats.zero_maps);
		mm_inc_pages(mm);
		stage_mark(ST_FAULT_ZERO_MAP);
		return VM_FAULT_DONE;
	}
	pa = alloc_user_frame(mm);
	if (!pa)
		return VM_FAULT_OOM;
	stage_mark(ST_FAULT_ANON_ALLOC);
	*pte = pa | prot;
	count_fault(&fault_stats.anon_pages);
	mm_inc_pages(mm);
	stage_mark(ST_FAULT_ANON_SET);
	return VM_FAULT_DONE;
}

/*
 * A write to a present read-only page of a writable area. The zero page
 * becomes a fresh zeroed frame of this process's; a MAP_SHARED area's
 * page (mprotect took RW away while another PTE mapped it) becomes
 * writable again in place; a private page is copy-on-write's case,
 * do_wp_page() (mm/cow.c), and so is a MAP_PRIVATE memfd page that is
 * still the memfd's frame (the memfd's own reference counts: it is copied).
 */
static enum vm_fault do_wp_fault(struct mm_struct *mm, const struct vm_area_struct *v,
				 uint32_t va, pteval_t *pte, uint32_t ec)
{
	pteval_t prot = vm_get_page_prot(v->vm_flags);
	unsigned long old = (unsigned long)(*pte & PTE_PFN_MASK), pa;

	if (is_zero_frame(old)) {
		pa = alloc_user_frame(mm);
		if (!pa)
			return VM_FAULT_OOM;
		set_pte_atomic(pte, pa | prot);		/* alloc_page() zeroed it */
		flush_tlb_mm_range(mm, va, va + PAGE_SIZE);
		count_fault(&fault_stats.anon_pages);
		return VM_FAULT_DONE;
	}
	if (v->vm_flags & VM_SHARED) {
		set_pte_atomic(pte, old | prot);
		__flush_tlb_one(va);
		return VM_FAULT_DONE;
	}
	return do_wp_page(mm, v, va, pte, ec);
}

/*
 * A memfd area's page that is not mapped: the memfd's frame (Linux:
 * shmem_fault()), or SIGBUS past the memfd's end, never an anonymous
 * frame. Under memfd_map_lock(), like every fault in a memfd area.
 */
static enum vm_fault do_memfd_page(struct mm_struct *mm, const struct vm_area_struct *v,
				   uint32_t va)
{
	int err = memfd_install_page(mm, v, va);

	if (err == -ENOENT)
		return VM_FAULT_SIGBUS;
	return err ? VM_FAULT_OOM : VM_FAULT_DONE;
}

/* The fault at va in area v, which allows the access. */
static enum vm_fault __handle_mm_fault(struct mm_struct *mm, const struct vm_area_struct *v,
				       uint32_t va, uint32_t ec)
{
	pteval_t *pte = user_pte(mm, va, v->kind != VMA_MEMFD);	/* no table made for a SIGBUS */

	if (v->kind == VMA_MEMFD && (!pte || !pte_has_frame(*pte)))
		return do_memfd_page(mm, v, va);
	if (!pte)
		return VM_FAULT_OOM;
	stage_mark(ST_FAULT_PTE);
	if (!pte_has_frame(*pte))
		return do_anonymous_page(mm, v, pte, ec);
	if (!(*pte & _PAGE_PRESENT))
		return VM_FAULT_SIGSEGV;	/* PROT_NONE, and the area agrees */
	if ((ec & X86_PF_WRITE) && !(*pte & _PAGE_RW))
		return do_wp_fault(mm, v, va, pte, ec);
	/* the PTE allows it already: a stale entry in this CPU's TLB */
	__flush_tlb_one(va);
	return VM_FAULT_DONE;
}

/*
 * A fault at a user address, from ring 3 or from a user-access function
 * in ring 0 (kernel/cpu/fault.c decides which may come here). One in a
 * memfd area holds memfd_map_lock() from reading the pte to changing it:
 * a shrink on another CPU may be taking the page away (mm/memfd_rmap.c).
 */
enum vm_fault handle_mm_fault(struct mm_struct *mm, uint32_t address, uint32_t ec)
{
	struct vm_area_struct *v = vma_find(&mm->vmas, address);
	enum vm_fault r;

	if (!v)
		v = expand_stack(mm, address);
	if (!v)
		return VM_FAULT_SIGSEGV;
	if (!access_allowed(v, ec))
		return VM_FAULT_ACCERR;	/* its si_code known: no second lookup (force_sig_fault()) */
	stage_mark(ST_FAULT_VMA);
	if (v->kind != VMA_MEMFD)
		return __handle_mm_fault(mm, v, address & PAGE_MASK, ec);
	memfd_map_lock();
	r = __handle_mm_fault(mm, v, address & PAGE_MASK, ec);
	memfd_map_unlock();
	return r;
}

struct mm_struct *dup_mm(struct mm_struct *src)
{
	struct mm_struct *mm = mm_alloc();
	bool locked;
	int err;

	if (!mm)
		return 0;
	mm->vmas = src->vmas;
	mm->start_code = src->start_code;
	mm->end_code = src->end_code;
	mm->entry = src->entry;
	mm->start_brk = src->start_brk;
	mm->brk = src->brk;
	mm->stack_top = src->stack_top;
	mm->mmap_base = src->mmap_base;
	/* a shrink must find the child listed, or find the page in src before the copy */
	locked = memfd_map_lock_mm(src, false);
	err = copy_page_range(mm, src);
	memfd_mm_sync(mm);	/* a reference on each memfd its areas name */
	if (locked)
		memfd_map_unlock();
	if (err) {
		mmput(mm);
		return 0;
	}
	return mm;
}
