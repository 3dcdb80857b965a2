// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-fault handler (Linux: arch/x86/mm/fault.c, much reduced).
 * A fault at a user address, from ring 3 or from a user-access function
 * in ring 0, first goes to handle_mm_fault() (mm/memory.c): a first
 * touch, stack growth or a copy-on-write write is not an error, and the
 * access is retried. What it refuses kills a process in ring 3 with
 * Linux's segfault line (kernel/signal.c; SIGBUS, with ronx's line, for
 * a page past a memfd's end, where the memfd ended at mmap or a shrink
 * has cut it since: mm/memfd_rmap.c), and is -EFAULT in a system call
 * (the exception table). A fault in a memfd area may wait for a shrink
 * on another CPU (memfd_map_lock(), a yield). A kernel page
 * fault is one of three things: an access that was expected to fault
 * (the exception table says where to resume: copy_from_user() and the
 * probes), a self-test probing a page (a quiet recovery), or a bug, which
 * gets an oops that says, in Linux's words, what the CPU refused and why,
 * and, for a user page, whether SMEP or SMAP was what refused it.
 */
#include <ronx/doublefault.h>
#include <ronx/vmap_stack.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pageflags.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/memlayout.h>
#include <ronx/walk.h>
#include <ronx/smap.h>
#include <ronx/process.h>
#include <ronx/memory.h>
#include <ronx/stagestat.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/kfence.h>

unsigned long page_fault_count;

/* "supervisor write access", "supervisor instruction fetch", ... */
void decode_pf_error(uint32_t ec, char *buf, unsigned long size)
{
	const char *access = (ec & X86_PF_INSTR) ? "instruction fetch" :
			     (ec & X86_PF_WRITE) ? "write access" : "read access";

	snprintf(buf, size, "%s %s in %s mode",
		 (ec & X86_PF_USER) ? "user" : "supervisor", access,
		 (ec & X86_PF_USER) ? "user" : "kernel");
}

/* A user page: US set at the PDE and at the leaf (the PDPTE has no US bit). */
static bool is_user_page(const struct pt_walk *w)
{
	return pt_walk_present(w) && (w->pde & _PAGE_USER) &&
	       (pt_walk_is_2m(w) || (w->pte & _PAGE_USER));
}

/* ronx's lines: which protection refused a kernel access to a user page. */
static void explain_user_page(const struct trap_frame *f, const struct pt_walk *w)
{
	uint32_t ec = f->error_code;

	if (!is_user_page(w) || !(ec & X86_PF_PROT))
		return;
	if (ec & X86_PF_INSTR)
		printk(KERN_CRIT "unable to execute userspace code (SMEP?) (uid: 0)\n");
	if ((ec & X86_PF_INSTR) && smep_enabled)
		printk(KERN_ALERT "ronx: SMEP stopped it: the kernel may not execute a user page (CR4.SMEP)\n");
	else if (smap_enabled && !(f->eflags & X86_EFLAGS_AC))
		printk(KERN_ALERT "ronx: SMAP stopped it: the kernel may not touch a user page outside copy_*_user() (CR4.SMAP, EFLAGS.AC clear)\n");
}

static void show_fault_oops(const struct trap_frame *f, unsigned long address)
{
	uint32_t ec = f->error_code;
	struct pt_walk w;
	pteval_t leaf;
	char buf[96];

	/* the tables the CPU used: CR3, which is a process's for a user address */
	pt_walk(&w, address, read_cr3(), pt_read_direct_map, 0);
	leaf = w.depth == 3 ? w.pte : w.pde;
	if ((ec & X86_PF_INSTR) && pt_walk_present(&w) && (leaf & _PAGE_NX))
		printk(KERN_CRIT "kernel tried to execute NX-protected page - exploit attempt? (uid: 0)\n");
	printk(KERN_ALERT "BUG: unable to handle page fault for address: %08lx\n", address);
	decode_pf_error(ec, buf, sizeof(buf));
	printk(KERN_ALERT "#PF: %s\n", buf);
	printk(KERN_ALERT "#PF: error_code(0x%04x) - %s\n", ec,
	       !(ec & X86_PF_PROT) ? "not-present page" :
	       (ec & X86_PF_RSVD) ? "reserved bit violation" : "permissions violation");
	explain_user_page(f, &w);
	/* ronx's own line: what the page tables say about the page */
	if (pt_walk_present(&w)) {
		format_page_flags(leaf, pt_walk_is_2m(&w) ? PG_LEVEL_2M : PG_LEVEL_4K, buf,
				  sizeof(buf));
		printk(KERN_ALERT "ronx: the page is mapped %s%s\n",
		       is_user_page(&w) ? "USR " : "", buf);
	} else {
		printk(KERN_ALERT "ronx: nothing is mapped at that address\n");
	}
	/* debug_pagealloc took it out of the direct map when it was freed (mm/debug_pagealloc.c) */
	if (debug_pagealloc_free_page_hit(address))
		printk(KERN_ALERT "ronx: %08lx is in a free page: debug_pagealloc unmapped it when it was freed (a use after free)\n",
		       address);
}

/*
 * A fault from the process (user_mode()) on an access the CPU made as
 * the supervisor (the error code's user bit clear) to a user page that
 * is there, with SMAP on: SMAP refused the CPU's own implicit access.
 * QEMU 7.2's TCG reads a ring-3 iret's frame that way (docs/redteam.md,
 * iret_vm86). handle_mm_fault() finds the page present, and the retry
 * faults again, forever. (Without SMAP such a fault is a write to a
 * read-only page, which a copy-on-write may serve.)
 */
static bool is_smap_implicit_fault(const struct trap_frame *f, unsigned long address)
{
	return smap_enabled && user_mode(f) && address < TASK_SIZE &&
	       !(f->error_code & X86_PF_USER) && (f->error_code & X86_PF_PROT);
}

/*
 * May handle_mm_fault() look at this fault? One in ring 3 at a user
 * address (not an implicit access SMAP refused: it cannot fix that);
 * one in ring 0 only at an instruction of the user-access layer (the
 * exception table), with SMAP's window open, and never a fetch: any
 * other kernel access to a user page is a bug to report, not to serve.
 */
static bool is_user_memory_fault(const struct trap_frame *f, unsigned long address)
{
	if (address >= TASK_SIZE || !current || !current->mm)
		return false;
	if (user_mode(f))
		return !is_smap_implicit_fault(f, address);
	return search_exception_tables(f->eip) && !(f->error_code & X86_PF_INSTR) &&
	       (!smap_enabled || (f->eflags & X86_EFLAGS_AC));
}

/*
 * The fault was at a user address: VM_FAULT_DONE if it is served and the
 * access may be retried, else the signal's kind (SIGSEGV, or SIGBUS past
 * a memfd's end); a system call's access gets -EFAULT for either.
 */
static enum vm_fault do_user_addr_fault(struct trap_frame *f, unsigned long address)
{
	enum vm_fault r;

	stage_mark(ST_FAULT_ENTRY);
	r = handle_mm_fault(current->mm, address, f->error_code);
	stage_mark(ST_FAULT_RETURN);
	if (r == VM_FAULT_OOM) {
		oom_kill_current();
		if (user_mode(f))
			do_exit(SIGKILL);
		/* a system call's -EFAULT, then it dies */
	}
	return r;
}

void do_page_fault(struct trap_frame *f)
{
	unsigned long address = read_cr2();
	enum vm_fault r = VM_FAULT_SIGSEGV;

	stage_start();
	page_fault_count++;
	last_fault = (struct fault_info){ f->vector, f->error_code, address, f->eip };
	if (is_user_memory_fault(f, address))
		r = do_user_addr_fault(f, address);
	if (r == VM_FAULT_DONE)
		return;
	if (is_smap_implicit_fault(f, address))
		printk(KERN_INFO "ronx: SMAP refused the CPU's own supervisor access to a user page for the process (error %lx): it cannot be retried\n",
		       (unsigned long)f->error_code);
	if (user_mode(f)) {
		/* each returns only to deliver to a handler */
		if (r == VM_FAULT_SIGBUS)
			force_sig_bus(f, address);
		else
			force_sig_fault(f, address, r == VM_FAULT_ACCERR);
		return;
	}
	if (fixup_exception(f))
		return;
	recover_quietly(f, address);
	/* KFENCE's pool: reported, the page mapped, and the access retried (mm/kfence.c) */
	if (kfence_handle_page_fault(address, f))
		return;
	/* the page below or above the kernel stack: reported off the stack (kernel/cpu/doublefault.c) */
	if (!user_mode(f) && stack_guard_hit(current, address))
		stack_overflow_oops(f, address, "kernel stack overflow (page fault)");
	show_fault_oops(f, address);
	die("page fault", f, address);
}
