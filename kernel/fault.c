// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-fault handler (Linux: arch/x86/mm/fault.c, much reduced).
 * A kernel page fault is one of three things: an access that was expected
 * to fault (the exception table says where to resume), a self-test probing
 * a page (a quiet recovery), or a bug, which gets an oops that says, in
 * Linux's words, what the CPU refused and why.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pageflags.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>

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

static void show_fault_oops(const struct trap_frame *f, unsigned long address)
{
	uint32_t ec = f->error_code;
	enum pg_level level;
	pteval_t *pte = lookup_address(address, &level);
	char buf[96];

	if ((ec & X86_PF_INSTR) && pte && (*pte & _PAGE_NX))
		printk(KERN_CRIT "kernel tried to execute NX-protected page - exploit attempt? (uid: 0)\n");
	printk(KERN_ALERT "BUG: unable to handle page fault for address: %08lx\n", address);
	decode_pf_error(ec, buf, sizeof(buf));
	printk(KERN_ALERT "#PF: %s\n", buf);
	printk(KERN_ALERT "#PF: error_code(0x%04x) - %s\n", ec,
	       !(ec & X86_PF_PROT) ? "not-present page" :
	       (ec & X86_PF_RSVD) ? "reserved bit violation" : "permissions violation");
	/* ronx's own line: what the page tables say about the page */
	if (pte) {
		format_page_flags(*pte, level, buf, sizeof(buf));
		printk(KERN_ALERT "ronx: the page is mapped %s\n", buf);
	} else {
		printk(KERN_ALERT "ronx: nothing is mapped at that address\n");
	}
}

void do_page_fault(struct trap_frame *f)
{
	unsigned long address = read_cr2();

	page_fault_count++;
	last_fault = (struct fault_info){ f->vector, f->error_code, address, f->eip };
	if (fixup_exception(f))
		return;
	recover_quietly(f, address);
	show_fault_oops(f, address);
	die("page fault", f, address);
}
