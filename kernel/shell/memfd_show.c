// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptdump PID's memfd section: every page of the process's memfd areas,
 * with its permission, its frame, which memfd page that frame is, and
 * the other addresses of the same process that map it. A JIT's two
 * views of one memfd (user/bin/jitdual.c) show as two lines naming each
 * other: one frame, RW+NX here and RO+X there. What wxcheck's alias
 * warning (mm/wx_alias.c) says across the whole machine, this says for
 * one process. Read with the tables pinned, as the rest of ptdump.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/memlayout.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/sched.h>
#include <ronx/memfd.h>
#include <ronx/page_ref.h>

#define MAX_LINES	32	/* a big memfd would be a line per page */

static const char *pte_perm(pteval_t pte)
{
	if (pte & _PAGE_RW)
		return pte & _PAGE_NX ? "RW+NX" : "RW+X";
	return pte & _PAGE_NX ? "RO+NX" : "RO+X";
}

/* The frame under va, or 0 if none. */
static unsigned long frame_at(struct mm_struct *mm, uint32_t va, pteval_t *ptep)
{
	pteval_t *pte = user_pte(mm, va, false);

	if (!pte || !pte_has_frame(*pte))
		return 0;
	*ptep = *pte;
	return (unsigned long)(*pte & PTE_PFN_MASK);
}

/* Another memfd page of mm, not at va, whose frame is pa; 0 if none. */
static uint32_t other_view(struct mm_struct *mm, uint32_t va, unsigned long pa, pteval_t *ptep)
{
	for (int i = 0; i < mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &mm->vmas.v[i];

		for (uint32_t a = v->vm_start; v->kind == VMA_MEMFD && a < v->vm_end; a += PAGE_SIZE)
			if (a != va && frame_at(mm, a, ptep) == pa)
				return a;
	}
	return 0;
}

static void show_page(struct mm_struct *mm, uint32_t va)
{
	char name[MEMFD_NAME_LEN + 32];
	pteval_t pte, other_pte;
	unsigned long pa = frame_at(mm, va, &pte);
	unsigned ptes;
	uint32_t other;

	if (!pa)
		return;
	/* the count is the PTEs' and, while the memfd holds the frame, the memfd's own */
	ptes = page_ref_count(pa);
	if (memfd_frame_name(pa, name, sizeof(name)))
		ptes--;
	else
		snprintf(name, sizeof(name), "no memfd's frame (a MAP_PRIVATE copy, or its memfd let it go)");
	other = other_view(mm, va, pa, &other_pte);
	if (other)
		cprintf("0x%08x %-5s frame 0x%08lx %s, mapped by %u, alias of 0x%08x %s\n",
			(unsigned)va, pte_perm(pte), pa, name, ptes, (unsigned)other,
			pte_perm(other_pte));
	else
		cprintf("0x%08x %-5s frame 0x%08lx %s, mapped by %u\n", (unsigned)va, pte_perm(pte),
			pa, name, ptes);
}

void ptdump_memfd_views(struct task *t, struct mm_struct *mm)
{
	int lines = 0;

	for (int i = 0; i < mm->vmas.nr; i++) {
		const struct vm_area_struct *v = &mm->vmas.v[i];

		for (uint32_t va = v->vm_start; v->kind == VMA_MEMFD && va < v->vm_end; va += PAGE_SIZE) {
			if (!lines)
				cprintf("---[ memfd views of %pE[%d] ]---\n", t->comm, t->pid);
			if (++lines > MAX_LINES) {
				cprintf("... more memfd pages\n");
				return;
			}
			show_page(mm, va);
		}
	}
}
