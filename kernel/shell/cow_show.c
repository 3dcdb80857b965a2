// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sharing, as a person reads it: which of a process's pages share a
 * frame (copy-on-write after fork, read-only text, MAP_SHARED), which
 * sit on the zero page, and how many PTEs map each frame. `ptdump PID`
 * ends with a "Shared frames" section, `walk VA PID` with a frame line,
 * and `meminfo` counts them over every process.
 *
 * These read other processes' tables while those run, as ps reads their
 * CR3: what they print is a snapshot for a person.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/sched.h>
#include <ronx/page_ref.h>
#include <ronx/memory.h>
#include <ronx/process.h>

enum frame_share classify_frame(struct mm_struct *mm, uint32_t va, pteval_t pte)
{
	unsigned long pa = (unsigned long)(pte & PTE_PFN_MASK);
	struct vm_area_struct *v = vma_find(&mm->vmas, va);
	bool cow_area = v && (v->vm_flags & VM_WRITE) && !(v->vm_flags & VM_SHARED);

	if (is_zero_frame(pa))
		return FRAME_ZERO;
	if (cow_area && !(pte & _PAGE_RW) && (pte & _PAGE_PRESENT))
		return page_ref_count(pa) > 1 ? FRAME_COW : FRAME_COW_LAST;
	return page_ref_count(pa) > 1 ? FRAME_SHARED : FRAME_PRIVATE;
}

const char *frame_share_name(enum frame_share s)
{
	switch (s) {
	case FRAME_ZERO: return "zero page";
	case FRAME_COW: return "COW";
	case FRAME_COW_LAST: return "COW, last user";
	case FRAME_SHARED: return "shared";
	default: return "private";
	}
}

/* What a run of pages of one kind means. */
static const char *share_why(enum frame_share s)
{
	switch (s) {
	case FRAME_ZERO: return "never written: reads see the one zero page, a write gets a frame";
	case FRAME_COW: return "read-only since fork: a write copies the frame";
	case FRAME_COW_LAST: return "read-only since fork, the others gone: a write makes it RW again";
	default: return "read-only or MAP_SHARED: stays shared";
	}
}

/* Calls fn for each page of mm that has a frame: (va, pte). */
static void for_each_user_page(struct mm_struct *mm, void (*fn)(void *, uint32_t, pteval_t),
			       void *arg)
{
	for (int i = 0; i < mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &mm->vmas.v[i];

		for (uint32_t va = v->vm_start; va < v->vm_end; va += PAGE_SIZE) {
			pteval_t *pte = user_pte(mm, va, false);

			if (pte && pte_has_frame(*pte))
				fn(arg, va, *pte);
		}
	}
}

struct count_ctx {
	struct mm_struct *mm;
	struct share_stats *s;
};

static void count_page(void *arg, uint32_t va, pteval_t pte)
{
	struct count_ctx *c = arg;

	switch (classify_frame(c->mm, va, pte)) {
	case FRAME_ZERO: c->s->zero_ptes++; break;
	case FRAME_COW: case FRAME_COW_LAST: c->s->cow_ptes++; break;
	case FRAME_SHARED: c->s->shared_ptes++; break;
	default: break;
	}
}

void count_share_stats(struct share_stats *s)
{
	*s = (struct share_stats){ 0 };
	s->shared_frames = nr_shared_frames();
	for (int i = 0; i < NR_TASKS; i++) {
		char comm[TASK_COMM_LEN];
		int pid;
		/* referenced and pinned while read, as wxcheck does ("Lifetimes") */
		struct mm_struct *mm = get_slot_mm(i, &pid, comm);
		struct count_ctx c = { mm, s };

		if (!mm)
			continue;
		mm_pin_tables(mm);
		for_each_user_page(mm, count_page, &c);
		mm_unpin_tables(mm);
		mmput(mm);
	}
}

/* ptdump's section: runs of pages with the same kind and the same count. */
struct run {
	struct mm_struct *mm;
	uint32_t start, end;
	enum frame_share kind;
	unsigned refs;
	bool header;
	const char *comm;
	int pid;
};

static void flush_share_run(struct run *r)
{
	if (r->end == r->start || r->kind == FRAME_PRIVATE)
		return;
	if (!r->header) {
		cprintf("---[ Shared frames of %pE[%d] ]---\n", r->comm, r->pid);
		r->header = true;
	}
	if (r->kind == FRAME_ZERO)
		cprintf("0x%08x-0x%08x %5uK %-14s %s\n", (unsigned)r->start, (unsigned)r->end,
			(unsigned)((r->end - r->start) >> 10), frame_share_name(r->kind), share_why(r->kind));
	else
		cprintf("0x%08x-0x%08x %5uK %-14s each frame mapped by %u: %s\n", (unsigned)r->start,
			(unsigned)r->end, (unsigned)((r->end - r->start) >> 10), frame_share_name(r->kind),
			r->refs, share_why(r->kind));
}

static void note_share_page(void *arg, uint32_t va, pteval_t pte)
{
	struct run *r = arg;
	enum frame_share kind = classify_frame(r->mm, va, pte);
	unsigned refs = kind == FRAME_ZERO ? 0 : page_ref_count((unsigned long)(pte & PTE_PFN_MASK));

	if (va == r->end && kind == r->kind && refs == r->refs) {
		r->end += PAGE_SIZE;
		return;
	}
	flush_share_run(r);
	*r = (struct run){ r->mm, va, va + PAGE_SIZE, kind, refs, r->header, r->comm, r->pid };
}

void ptdump_sharing(struct task *t, struct mm_struct *mm)
{
	struct run r = { mm, 0, 0, FRAME_PRIVATE, 0, false, t->comm, t->pid };

	for_each_user_page(mm, note_share_page, &r);
	flush_share_run(&r);
}

/* walk's last line: "frame: 0x1234000 COW, mapped by 2 PTEs: a write copies it". */
void walk_frame_line(struct task *t, struct mm_struct *mm, uint32_t va, char *buf,
		     unsigned long size)
{
	pteval_t *pte = user_pte(mm, va & PAGE_MASK, false);
	unsigned long pa;
	enum frame_share kind;

	buf[0] = '\0';
	if (!pte || !pte_has_frame(*pte))
		return;
	pa = (unsigned long)(*pte & PTE_PFN_MASK);
	kind = classify_frame(mm, va, *pte);
	if (kind == FRAME_ZERO)
		snprintf(buf, size, "frame: %#lx is the zero page: %s", pa, share_why(kind));
	else if (kind == FRAME_PRIVATE)
		snprintf(buf, size, "frame: %#lx, mapped by 1 PTE: private to %pE[%d]", pa, t->comm, t->pid);
	else
		snprintf(buf, size, "frame: %#lx %s, mapped by %u PTEs: %s", pa, frame_share_name(kind),
			 page_ref_count(pa), share_why(kind));
}

/* meminfo's lines about sharing and the faults behind it (after its own). */
void meminfo_sharing(void)
{
	struct share_stats s;

	count_share_stats(&s);
	cprintf("SharedFrames:%7lu\n", s.shared_frames);
	cprintf("CowPtes:    %8lu\n", s.cow_ptes);
	cprintf("ZeroPtes:   %8lu\n", s.zero_ptes);
	cprintf("SharedPtes: %8lu\n", s.shared_ptes);
	cprintf("Forks:      %8lu\n", total_forks);
	cprintf("CowCopies:  %8lu\n", fault_stats.cow_copies);
	cprintf("CowReuses:  %8lu\n", fault_stats.cow_reuses);
	cprintf("ZeroMaps:   %8lu\n", fault_stats.zero_maps);
	cprintf("AnonFaults: %8lu\n", fault_stats.anon_pages);
	cprintf("StackGrows: %8lu\n", fault_stats.stack_grows);
	cprintf("OomKills:   %8lu\n", fault_stats.oom_kills);
}
