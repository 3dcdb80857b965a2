// SPDX-License-Identifier: GPL-2.0-only
/*
 * The W^X alias audit, part of `wxcheck`: a frame mapped writable in one
 * place and executable in another (issue 34). Each mapping alone is
 * W^X, so the per-page check (mm/wxcheck.c) passes, yet whoever holds
 * the writable one chooses what the executable one runs. MAP_SHARED and
 * fork make it: the parent keeps the page RW, the child mprotects its
 * copy of the mapping PROT_READ|PROT_EXEC.
 *
 * Linux allows this, and its W+X audit (ptdump_walk_pgd_level_checkwx())
 * looks only at the kernel's own tables, one entry at a time; W^X across
 * two user mappings is left to policy (SELinux's execmem and execmod, or
 * a JIT's own discipline). ronx does not refuse it either, but names it:
 * one WARNING line per frame, with both owners (process, pid, address).
 * A memfd mapped twice in one process (a JIT's RW view and RX view,
 * user/bin/jitdual.c) is the same alias inside one process; the frame
 * is then named as that memfd's page too.
 * It is not a failure of the W+X check.
 *
 * Three walks over every process's page tables, each mm referenced and
 * its tables pinned while read (as wxcheck_processes() does): mark every
 * frame some PTE maps writable, then for each executable PTE whose frame
 * is marked, find who maps it writable. A user PDE is always present,
 * RW and US with no NX (mm/pgd.c user_pde()), so the PTE alone says what
 * the page allows. A snapshot: the processes go on running.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/mm.h>
#include <ronx/mm_types.h>
#include <ronx/pgd.h>
#include <ronx/sched.h>
#include <ronx/ptdump.h>
#include <ronx/string.h>
#include <ronx/memfd.h>

#define MAX_WARNINGS	16	/* a big shared area would be one line per page */

struct user_pte {
	int pid;
	const char *comm;
	uint32_t va;
	pteval_t pte;
};

typedef void (*user_pte_fn)(void *ctx, const struct user_pte *p);

static void walk_table(const pteval_t *ptes, uint32_t va, struct user_pte *p, user_pte_fn fn,
		       void *ctx)
{
	for (int k = 0; k < PTRS_PER_PTE; k++) {
		if (!(ptes[k] & _PAGE_PRESENT))
			continue;
		p->va = va + k * PAGE_SIZE;
		p->pte = ptes[k];
		fn(ctx, p);
	}
}

/* fn for every present PTE of every live process's user half. */
static void for_each_user_pte(user_pte_fn fn, void *ctx)
{
	for (int i = 0; i < NR_TASKS; i++) {
		char comm[TASK_COMM_LEN];
		struct user_pte p = { .comm = comm };
		struct mm_struct *mm = get_slot_mm(i, &p.pid, comm);
		pteval_t *pdpt;

		if (!mm)
			continue;
		mm_pin_tables(mm);
		pdpt = __va(mm->pgd);
		for (unsigned g = 0; g < pgd_index(TASK_SIZE); g++) {
			pteval_t *pmds = __va(pdpt[g] & PTE_PFN_MASK);

			if (!(pdpt[g] & _PAGE_PRESENT))
				continue;
			for (int j = 0; j < PTRS_PER_PMD; j++)
				if (pmds[j] & _PAGE_PRESENT)
					walk_table(__va(pmds[j] & PTE_PFN_MASK),
						   (g << 30) + ((uint32_t)j << 21), &p, fn, ctx);
		}
		mm_unpin_tables(mm);
		mmput(mm);
	}
}

static unsigned long pte_pfn(pteval_t pte)
{
	return (unsigned long)((pte & PTE_PFN_MASK) >> PAGE_SHIFT);
}

struct alias_walk {
	uint32_t *writable;	/* one bit per frame: some PTE maps it RW */
	unsigned long frames, found;
	struct user_pte exec;	/* the executable mapping being explained */
	struct user_pte owner;	/* a writable mapping of the same frame */
	char exec_comm[TASK_COMM_LEN], owner_comm[TASK_COMM_LEN];
};

static void mark_writable(void *ctx, const struct user_pte *p)
{
	struct alias_walk *w = ctx;
	unsigned long pfn = pte_pfn(p->pte);

	if ((p->pte & _PAGE_RW) && pfn < w->frames)
		w->writable[pfn / 32] |= 1u << (pfn % 32);
}

static void find_writer(void *ctx, const struct user_pte *p)
{
	struct alias_walk *w = ctx;

	if (!w->owner.comm && (p->pte & _PAGE_RW) && pte_pfn(p->pte) == pte_pfn(w->exec.pte)) {
		w->owner = *p;
		memcpy(w->owner_comm, p->comm, TASK_COMM_LEN);
		w->owner.comm = w->owner_comm;
	}
}

/* Both views are of one memfd page (a JIT's RW and RX views): say which. */
static void explain_memfd(unsigned long pa)
{
	char name[MEMFD_NAME_LEN + 32];

	if (memfd_frame_name(pa, name, sizeof(name)))
		pr_warn("ronx: W^X alias: frame 0x%08lx is %s: two views of one memfd\n", pa, name);
}

static void check_executable(void *ctx, const struct user_pte *p)
{
	struct alias_walk *w = ctx;
	unsigned long pfn = pte_pfn(p->pte);

	if ((p->pte & _PAGE_NX) || pfn >= w->frames || !(w->writable[pfn / 32] & (1u << (pfn % 32))))
		return;
	if (++w->found > MAX_WARNINGS)
		return;
	w->exec = *p;
	memcpy(w->exec_comm, p->comm, TASK_COMM_LEN);
	w->exec.comm = w->exec_comm;
	w->owner.comm = 0;
	for_each_user_pte(find_writer, w);
	if (!w->owner.comm)	/* its writer unmapped it meanwhile */
		return;
	pr_warn("ronx: W^X alias: WARNING: frame 0x%08lx is writable in %pE[%d] at 0x%08x and executable in %pE[%d] at 0x%08x\n",
		pfn << PAGE_SHIFT, w->owner.comm, w->owner.pid, w->owner.va,
		w->exec.comm, w->exec.pid, w->exec.va);
	explain_memfd(pfn << PAGE_SHIFT);
}

/* Executable user pages whose frame another mapping may write, each named; how many. */
unsigned long wxcheck_user_aliases(void)
{
	struct alias_walk w = { .frames = max_low_pfn };
	unsigned long pages = PFN_UP((w.frames + 31) / 32 * 4), bitmap;

	if (!nx_enabled)
		return 0;	/* every page is executable: wxcheck has said so */
	bitmap = alloc_pages(pages);
	if (!bitmap) {
		pr_info("ronx: W^X alias check: skipped, no %lu free pages for its bitmap\n", pages);
		return 0;
	}
	w.writable = __va(bitmap);	/* zeroed */
	for_each_user_pte(mark_writable, &w);
	for_each_user_pte(check_executable, &w);
	free_pages(bitmap, pages);
	if (w.found > MAX_WARNINGS)
		pr_warn("ronx: W^X alias: WARNING: %lu more like those\n", w.found - MAX_WARNINGS);
	if (w.found)
		pr_warn("ronx: W^X alias check: %lu executable user pages whose frame is writable in another mapping (a warning: each mapping alone is W^X)\n",
			w.found);
	else
		pr_info("ronx: W^X alias check: no frame is writable in one user mapping and executable in another\n");
	return w.found;
}
