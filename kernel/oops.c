// SPDX-License-Identifier: GPL-2.0-only
/*
 * die(): print an oops in Linux's shape (registers, the faulting symbol, a
 * call trace) and then go back to whoever armed a recovery (the shell);
 * a process whose system call hit a kernel bug dies of it, as Linux's
 * make_task_dead(); only a bug with neither halts the machine.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/memlayout.h>
#include <ronx/kallsyms.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/smp.h>
#include <ronx/process.h>
#include <ronx/panic.h>

unsigned long oops_count;

/* One return address of a call trace, named as %pB does (sprint_backtrace). */
static void print_return_address(unsigned long addr)
{
	char buf[96];

	sprint_backtrace(buf, sizeof(buf), addr);
	printk(KERN_EMERG " %08lx %s\n", addr, buf);
}

/*
 * Follow saved frame pointers (the kernel keeps them) while they look
 * sane: up to max return addresses into store, the innermost first.
 * Each word is read with probe_read(), so a bad chain ends the walk
 * instead of faulting. KFENCE keeps an allocation's and a free's this way.
 */
int stack_trace_save_fp(uint32_t ebp, unsigned long *store, int max)
{
	int n = 0;

	while (n < max && ebp >= PAGE_OFFSET) {
		unsigned char b[8];
		uint32_t next, ret;

		for (int i = 0; i < 8; i++)
			if (probe_read((char *)ebp + i, &b[i]))
				return n;
		next = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
		ret = b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24;
		if (!ret)
			return n;
		store[n++] = ret;
		if (next <= ebp)
			return n;
		ebp = next;
	}
	return n;
}

static void show_trace(uint32_t ebp)
{
	unsigned long trace[16];
	int n = stack_trace_save_fp(ebp, trace, 16);

	printk(KERN_EMERG "Call Trace:\n");
	for (int i = 0; i < n; i++)
		print_return_address(trace[i]);
}

static void show_regs(const struct trap_frame *f)
{
	char sym[96];

	sprint_symbol(sym, sizeof(sym), f->eip);
	printk(KERN_EMERG "EIP: %04x:%08x %s\n", f->cs, f->eip, sym);
	printk(KERN_EMERG "EAX: %08x EBX: %08x ECX: %08x EDX: %08x\n",
	       f->eax, f->ebx, f->ecx, f->edx);
	printk(KERN_EMERG "ESI: %08x EDI: %08x EBP: %08x ESP: %08x\n",
	       f->esi, f->edi, f->ebp, frame_esp(f));
	printk(KERN_EMERG "EFLAGS: %08x CR0: %08x CR2: %08x CR3: %08x CR4: %08x\n",
	       f->eflags, read_cr0(), read_cr2(), read_cr3(), read_cr4());
}

/* A fault that a self-test asked for: no oops, straight back to it. */
void recover_quietly(const struct trap_frame *f, unsigned long cr2)
{
	struct fault_info fi = { f->vector, f->error_code, cr2, f->eip };

	if (current_recovery && current_recovery->quiet)
		recover_from_fault(&fi);
}

void die(const char *what, struct trap_frame *f, unsigned long cr2)
{
	struct fault_info fi = { f->vector, f->error_code, cr2, f->eip };

	printk(KERN_EMERG "%s: %04x [#%lu]%s\n",
	       f->vector == X86_TRAP_PF && strcmp(what, "page fault") == 0 ? "Oops" : what, f->error_code, ++oops_count,
	       num_online_cpus() > 1 ? " SMP" : "");
	if (num_online_cpus() > 1)
		printk(KERN_EMERG "CPU: %d\n", smp_processor_id());
	show_regs(f);
	show_trace(f->ebp);
	printk(KERN_EMERG "---[ end trace %04lx ]---\n", oops_count);
	if (current_recovery)
		recover_from_fault(&fi);
	if (current && current->mm) {
		printk(KERN_EMERG "ronx: %pE[%d] dies of the oops; the kernel goes on\n",
		       current->comm, current->pid);
		do_exit(SIGSEGV);
	}
	panic("Fatal exception");
}
