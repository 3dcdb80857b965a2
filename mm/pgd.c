// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's page tables (Linux: pgd_alloc(), arch/x86/mm/pgtable.c).
 *
 * Each process has a PDPT of its own. Entries 0-2 point to three page
 * directories of its own, for 0x00000000-0xbfffffff; entry 3 points to the
 * kernel's one page directory for 0xc0000000-0xffffffff, the same page in
 * every process, so a change to a kernel mapping reaches them all at once.
 *
 * Permission bits, and why:
 *   PDPTE        present only: under PAE it has no RW, US or NX bit
 *   user PDE     P|RW|US: the PTE decides (the CPU ANDs RW and US down the walk)
 *   user PTE     P|US, plus RW for writable areas and NX for every area
 *                that is not text; never G, so a CR3 switch drops it
 *   kernel       the kernel's PDEs and PTEs have US=0: ring 3 cannot touch
 *                them, whatever the PTE says otherwise
 *
 * A user PTE holds one reference to its frame (mm/page_ref.c): fork
 * makes two processes share frames (copy-on-write, mm/cow.c), and a
 * frame goes back only when its last PTE goes. The zero page is mapped
 * read-only and never counted. A PROT_NONE page keeps its frame in a
 * not-present PTE marked _PAGE_PROTNONE (Linux's trick), so that
 * mprotect() can give it back.
 *
 * Every page here is charged to the process (mm->pt_pages for its tables
 * and the page of its mm, mm->total_pages for its frames) and asked of
 * mm_charge() first: within the process's limit, never from the kernel's
 * reserve (mm/oom_kill.c). PTI's user set costs no page of its own: it
 * shares the PDPT's page, and its kernel half is one directory for all.
 *
 * Lifetimes (docs/design.md, "Lifetimes"): an mm is freed at its last
 * mmput(), not when its process exits, so that a shell command reading
 * another process's tables (mmget() first) never reads a freed page. A
 * reader also pins the tables (mm_pin_tables()): while one does, the
 * owner's munmap leaves its emptied page tables in place instead of
 * freeing them under the reader (Linux's mmap_lock, read side, without
 * making the owner wait). They go at the next munmap there or at exit.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/sched.h>
#include <ronx/tlbflush.h>
#include <ronx/smp.h>
#include <ronx/spinlock.h>

/* Guards every mm's pt_walkers and the detaching of a page table; takes no other lock. */
static DEFINE_SPINLOCK(pt_walkers_lock);
#include <ronx/page_ref.h>
#include <ronx/memory.h>
#include <ronx/pti.h>
#include <ronx/mman.h>
#include <ronx/memfd.h>

/*
 * A page of mm's tables, charged to mm: within its limit and never from
 * the kernel's reserve (mm_may_charge()), or a process that reads one
 * byte every 2 MiB would pin a page table per read, uncounted, until the
 * kernel had nothing left. 0 if none: the fault OOM-kills the process.
 */
static unsigned long pt_page(struct mm_struct *mm)
{
	unsigned long pa;

	if (!mm_charge(mm, 1))
		return 0;
	pa = alloc_pagetable_page();

	if (pa)
		mm->pt_pages++;
	return pa;
}

static void free_pt_page(struct mm_struct *mm, unsigned long pa)
{
	__atomic_fetch_sub(&nr_pagetable_pages, 1, __ATOMIC_RELAXED);
	mm->pt_pages--;
	free_page(pa);
}

static pteval_t *pdpt_of(const struct mm_struct *mm)
{
	return __va(mm->pgd);
}

/* the struct and its areas are one page */
_Static_assert(sizeof(struct mm_struct) <= PAGE_SIZE, "mm_struct outgrew its page");

struct mm_struct *mm_alloc(void)
{
	unsigned long page;
	struct mm_struct *mm;
	pteval_t *pdpt;

	if (page_ref_mm_get())
		return 0;
	page = alloc_page();
	if (!page) {
		page_ref_mm_put();
		return 0;
	}
	mm = __va(page);
	mm->pt_pages = 1;
	mm->mm_users = 1;
	mm->stack_top = STACK_TOP;	/* exec randomizes both */
	mm->mmap_base = TASK_UNMAPPED_BASE;
	mm->pgd = pt_page(mm);
	if (!mm->pgd)
		goto fail;
	pdpt = pdpt_of(mm);
	for (unsigned i = 0; i < pgd_index(TASK_SIZE); i++) {
		unsigned long pmd = pt_page(mm);

		if (!pmd)
			goto fail;
		pdpt[i] = pmd | _PAGE_PRESENT;
	}
	/* the kernel half: the kernel's own page directory, shared */
	pdpt[pgd_index(TASK_SIZE)] = swapper_pg_dir[pgd_index(TASK_SIZE)];
	pti_clone_pgd(pdpt);		/* the user set, in the same page */
	return mm;
fail:
	mmput(mm);
	return 0;
}

/*
 * The PDE over one of a process's page tables (Linux: pmd_populate()).
 * What ring 3 may do with a page is its PTE's business:
 * this entry must take nothing away from any PTE under it.
 */
static pteval_t user_pde(unsigned long table)
{
	return table | _PAGE_PRESENT | _PAGE_RW | _PAGE_USER;
}

/* The pte for va in mm, with a page table allocated if alloc; NULL if none. */
pteval_t *user_pte(struct mm_struct *mm, uint32_t va, bool alloc)
{
	pteval_t *pmds, *pmd;

	if (va >= TASK_SIZE || !(pdpt_of(mm)[pgd_index(va)] & _PAGE_PRESENT))
		return 0;
	pmds = __va(pdpt_of(mm)[pgd_index(va)] & PTE_PFN_MASK);
	pmd = &pmds[pmd_index(va)];
	if (!(*pmd & _PAGE_PRESENT)) {
		unsigned long pt;

		if (!alloc || !(pt = pt_page(mm)))
			return 0;
		*pmd = user_pde(pt);
	}
	return &((pteval_t *)__va(*pmd & PTE_PFN_MASK))[pte_index(va)];
}

bool pte_has_frame(pteval_t pte)
{
	return pte & (_PAGE_PRESENT | _PAGE_PROTNONE);
}

/*
 * The pte bits for a page of an area with these VM_ flags (Linux:
 * vm_get_page_prot() and its protection_map[]). mmap(), mprotect(), brk
 * and exec all map through it.
 */
pteval_t vm_get_page_prot(unsigned vm_flags)
{
	pteval_t prot = _PAGE_USER;

	if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return _PAGE_PROTNONE;		/* PROT_NONE: keep the frame, no access */
	prot |= _PAGE_PRESENT;
	if (vm_flags & VM_WRITE)
		prot |= _PAGE_RW;
	if (!(vm_flags & VM_EXEC))
		prot |= _PAGE_NX;
	return prot & __supported_pte_mask;
}

static bool is_current_mm(const struct mm_struct *mm)
{
	return (read_cr3() & CR3_PDPT_MASK_32) == mm->pgd;
}

/* A new mapping: only this CPU may have looked at the empty slot. */
static void flush_user_page(const struct mm_struct *mm, uint32_t va)
{
	if (is_current_mm(mm))
		__flush_tlb_one(va);
}

/* A zeroed frame mapped at va with prot; -ENOMEM if none is left. */
int install_user_page(struct mm_struct *mm, uint32_t va, pteval_t prot)
{
	pteval_t *pte = user_pte(mm, va, true);
	unsigned long frame;

	if (!pte)
		return -ENOMEM;
	if (pte_has_frame(*pte))
		return -EEXIST;
	if (!mm_charge(mm, 1))
		return -ENOMEM;
	frame = alloc_page();
	if (!frame)
		return -ENOMEM;
	set_user_frame_ref(frame, 1);
	*pte = frame | prot;
	mm_inc_pages(mm);
	flush_user_page(mm, va);
	return 0;
}

/*
 * A frame someone else holds (a memfd's, mm/memfd.c) mapped at va with
 * prot. The caller has taken the PTE's reference on it; -ENOMEM (the
 * reference still the caller's) if no page table or over the limit.
 */
int install_user_frame(struct mm_struct *mm, uint32_t va, unsigned long pa, pteval_t prot)
{
	pteval_t *pte = user_pte(mm, va, true);

	if (!pte || pte_has_frame(*pte) || !mm_charge(mm, 1))
		return -ENOMEM;
	*pte = pa | prot;
	mm_inc_pages(mm);
	flush_user_page(mm, va);
	return 0;
}

/* Takes the page table under va's PDE out of mm if nothing in it holds a frame; it, or 0. */
static unsigned long __detach_table_if_empty(struct mm_struct *mm, uint32_t va)
{
	pteval_t *pmds = __va(pdpt_of(mm)[pgd_index(va)] & PTE_PFN_MASK);
	pteval_t *pmd = &pmds[pmd_index(va)], *ptes;
	unsigned long table;

	if (!(*pmd & _PAGE_PRESENT))
		return 0;
	ptes = __va(*pmd & PTE_PFN_MASK);
	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (ptes[i])
			return 0;
	table = (unsigned long)(*pmd & PTE_PFN_MASK);
	*pmd = 0;
	return table;
}

/* As above, but never while a reader is in the tables: it may hold this one's address. */
static unsigned long detach_table_if_empty(struct mm_struct *mm, uint32_t va)
{
	unsigned long flags, table = 0;

	spin_lock_irqsave(&pt_walkers_lock, flags);
	if (!mm->pt_walkers)
		table = __detach_table_if_empty(mm, va);
	spin_unlock_irqrestore(&pt_walkers_lock, flags);
	return table;
}

/*
 * A reader of mm's tables from outside (walk, ptdump, wxcheck) holds a
 * reference (mmget) and, while it reads, a pin: no page table of mm is
 * freed until it unpins. The owner does not wait for it.
 */
void mm_pin_tables(struct mm_struct *mm)
{
	unsigned long flags;

	spin_lock_irqsave(&pt_walkers_lock, flags);
	mm->pt_walkers++;
	spin_unlock_irqrestore(&pt_walkers_lock, flags);
}

void mm_unpin_tables(struct mm_struct *mm)
{
	unsigned long flags;

	spin_lock_irqsave(&pt_walkers_lock, flags);
	mm->pt_walkers--;
	spin_unlock_irqrestore(&pt_walkers_lock, flags);
}

#define MAX_DETACHED	8

/* First pass of a zap: each pte of [start, end) loses its permissions, keeping its frame's address. */
static void strip_user_range(struct mm_struct *mm, uint32_t start, uint32_t end)
{
	/* cond_resched(): a range may be 3 GiB, a quarter of a second under TCG */
	for (uint32_t va = start; va < end; va += PAGE_SIZE) {
		pteval_t *pte = user_pte(mm, va, false);

		cond_resched();
		if (pte && pte_has_frame(*pte))
			set_pte_atomic(pte, *pte & PTE_PFN_MASK);
	}
}

/*
 * The pte at va, stripped and flushed already, empty: its frame put. The
 * count changes atomically: a shrinking memfd zaps another process's
 * pages (mm/memfd_rmap.c).
 */
static void clear_user_pte(struct mm_struct *mm, pteval_t *pte)
{
	put_user_frame(*pte & PTE_PFN_MASK);
	set_pte_atomic(pte, 0);
	__atomic_fetch_sub(&mm->total_pages, 1, __ATOMIC_RELAXED);
}

/*
 * Unmaps [start, end) and frees its frames and the page tables left
 * empty. A CPU that runs this process elsewhere (mm->cpu_mask) may hold
 * the mappings in its TLB, so nothing is freed before every such CPU has
 * flushed (flush_tlb_mm_range): first each pte loses its permissions but
 * keeps its frame's address, then the frames go, then the tables.
 */
void zap_user_range(struct mm_struct *mm, uint32_t start, uint32_t end)
{
	unsigned long tables[MAX_DETACHED];
	int n = 0;

	strip_user_range(mm, start, end);
	flush_tlb_mm_range(mm, start, end);
	for (uint32_t va = start; va < end; va += PAGE_SIZE) {
		pteval_t *pte = user_pte(mm, va, false);

		cond_resched();
		if (pte && *pte)
			clear_user_pte(mm, pte);
		if (((va + PAGE_SIZE) & ~PMD_MASK) && va + PAGE_SIZE < end)
			continue;
		if ((tables[n] = detach_table_if_empty(mm, va)) != 0 && ++n == MAX_DETACHED) {
			flush_tlb_mm_range(mm, start, end);
			while (n)
				free_pt_page(mm, tables[--n]);
		}
	}
	if (n)
		flush_tlb_mm_range(mm, start, end);
	while (n)
		free_pt_page(mm, tables[--n]);
}

/*
 * The same for the pages of [start, end) of an mm that may be running
 * on another CPU (a shrinking memfd's, mm/memfd_rmap.c), but its page
 * tables stay: its owner may be using one (a fault that has just made
 * it). They go at its next munmap there, or at exit.
 */
void zap_user_pages(struct mm_struct *mm, uint32_t start, uint32_t end)
{
	strip_user_range(mm, start, end);
	flush_tlb_mm_range(mm, start, end);
	for (uint32_t va = start; va < end; va += PAGE_SIZE) {
		pteval_t *pte = user_pte(mm, va, false);

		if (pte && *pte)
			clear_user_pte(mm, pte);
	}
}

/*
 * New permissions for the frames of [start, end), in force on every CPU
 * when it returns. A frame that is not this PTE's alone (copy-on-write
 * after fork, or the zero page) keeps RW off: the write fault decides
 * (mm/memory.c copies, or for a MAP_SHARED area sets RW).
 */
void change_user_prot(struct mm_struct *mm, uint32_t start, uint32_t end, pteval_t prot)
{
	for (uint32_t va = start; va < end; va += PAGE_SIZE) {
		pteval_t *pte = user_pte(mm, va, false);
		unsigned long pa;

		cond_resched();
		if (!pte || !pte_has_frame(*pte))
			continue;
		pa = (unsigned long)(*pte & PTE_PFN_MASK);
		if (is_zero_frame(pa) || page_ref_count(pa) > 1)
			set_pte_atomic(pte, pa | (prot & ~(pteval_t)_PAGE_RW));
		else
			set_pte_atomic(pte, pa | prot);
	}
	flush_tlb_mm_range(mm, start, end);
}

/*
 * Copies into mm's pages at va through the kernel's direct map, so that
 * exec can fill a process that is not running (and whose text is RO).
 */
int copy_to_mm(struct mm_struct *mm, uint32_t va, const void *src, uint32_t len)
{
	const char *s = src;

	while (len) {
		pteval_t *pte = user_pte(mm, va, false);
		uint32_t n = PAGE_SIZE - (va & ~PAGE_MASK);

		if (!pte || !pte_has_frame(*pte))
			return -EFAULT;
		if (n > len)
			n = len;
		memcpy((char *)__va(*pte & PTE_PFN_MASK) + (va & ~PAGE_MASK), s, n);
		s += n;
		va += n;
		len -= n;
	}
	return 0;
}

/* A page table's frames, then the table itself. */
static void free_pte_table(struct mm_struct *mm, pteval_t pmd)
{
	zap_pte_range(mm, __va(pmd & PTE_PFN_MASK));	/* mm/cow.c */
	free_pt_page(mm, pmd & PTE_PFN_MASK);
}

/* Run by a CPU that still has mm's tables in CR3: back to the kernel's. */
static void leave_mm(void *info)
{
	if (this_cpu()->active_mm == info)
		switch_mm(0);
}

/* Another reference on an mm its caller knows is alive (it holds one, or tasks_lock over t->mm). */
void mmget(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->mm_users, 1, __ATOMIC_SEQ_CST);
}

/*
 * Everything mm had: its frames, page tables, directories, the PDPT and
 * the page holding mm itself. Its own CPU has switched away (do_exit);
 * any CPU that still has the tables in CR3 is made to leave them, and so
 * to flush them, before a page of them is freed (Linux: leave_mm()).
 * Called with no lock held: it may send a cross-CPU call.
 */
static void __mmput(struct mm_struct *mm)
{
	memfd_mm_exit(mm);	/* first: a shrinking memfd reads the tables of a listed mm */
	if (mm->cpu_mask) {
		/* even with cpa_shootdown=off: no CR3 may point into freed tables */
		leave_mm(mm);
		smp_call_function_many(mm->cpu_mask, leave_mm, mm, true);
	}
	if (mm->pgd) {
		pteval_t *pdpt = pdpt_of(mm);

		for (unsigned i = 0; i < pgd_index(TASK_SIZE); i++) {
			pteval_t *pmds;

			if (!(pdpt[i] & _PAGE_PRESENT))
				continue;
			pmds = __va(pdpt[i] & PTE_PFN_MASK);
			for (int j = 0; j < PTRS_PER_PMD; j++)
				if (pmds[j] & _PAGE_PRESENT)
					free_pte_table(mm, pmds[j]);
			free_pt_page(mm, pdpt[i] & PTE_PFN_MASK);
		}
		free_pt_page(mm, mm->pgd);
	}
	free_page(__pa(mm));
	page_ref_mm_put();	/* every frame of it is put: the last mm takes the counts */
}

/* Drops a reference; the last one frees the address space (Linux: mmput()). */
void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_SEQ_CST) == 0)
		__mmput(mm);
}

/*
 * CR3: this mm's PDPT, or the kernel's when mm is NULL. mm->cpu_mask says
 * which CPUs may hold its translations: this CPU joins before it loads
 * the tables (a change made after that reaches it) and leaves the old mm
 * only after the CR3 write has flushed the old one's (user pages are
 * never global). Interrupts are off across it (exit calls it with them
 * on): a leave_mm() IPI in the middle would see a half-made switch.
 */
void switch_mm(struct mm_struct *mm)
{
	struct cpu *c = this_cpu();
	struct mm_struct *prev;
	unsigned long me = 1UL << c->id, flags;

	local_irq_save(flags);
	prev = c->active_mm;
	if (mm)
		__atomic_fetch_or(&mm->cpu_mask, me, __ATOMIC_SEQ_CST);
	write_cr3(mm ? mm->pgd : __pa(swapper_pg_dir));
	if (prev && prev != mm)
		__atomic_fetch_and(&prev->cpu_mask, ~me, __ATOMIC_SEQ_CST);
	c->active_mm = mm;
	local_irq_restore(flags);
}
