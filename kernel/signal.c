// SPDX-License-Identifier: GPL-2.0-only
/*
 * What happens to a process that faults: Linux's lines, then it dies;
 * unless it has a handler for the signal and does not block it: then the
 * signal is queued with its siginfo (kernel/signal_action.c) and no line
 * is printed, as Linux prints only for a signal nobody catches.
 *
 *   hello[3]: segfault at 0 ip 08049010 sp bffffe9c error 4 in hello[8049000+1000]
 *   hello[3] general protection fault ip:8049012 sp:bffffe9c error:0 in hello[8049000+1000]
 *
 * The first is show_signal_msg() (arch/x86/mm/fault.c), for a page fault;
 * the second show_signal() (arch/x86/kernel/traps.c, prefixed "traps: "),
 * for any other exception. error is the CPU's error code: for a page
 * fault bit 0 says the page was present, 1 a write, 2 from user mode, 4 an
 * instruction fetch (Linux decodes it in do_user_addr_fault()).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/mm_types.h>
#include <ronx/traps.h>
#include <ronx/sched.h>
#include <ronx/process.h>
#include <ronx/signal.h>
#include <ronx/stagestat.h>

const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGSEGV: return "SIGSEGV";
	default: return "signal";
	}
}

/* " in hello[8049000+1000]": the file-backed area holding ip, as Linux's print_vma_addr(). */
static void vma_addr(char *buf, size_t size, unsigned long ip)
{
	struct vm_area_struct *v = current->mm ? vma_find(&current->mm->vmas, ip) : 0;

	buf[0] = '\0';
	if (v && (v->kind == VMA_TEXT || v->kind == VMA_RODATA || v->kind == VMA_DATA))
		snprintf(buf, size, " in %pE[%x+%x]", current->comm, (unsigned)v->vm_start,
			 (unsigned)(v->vm_end - v->vm_start));
}

/* A page fault's signal: to the handler, or the line ("segfault", ...) and the end. */
static void force_page_fault_sig(struct trap_frame *f, unsigned long address, int sig, int code,
				 const char *what, const char *why)
{
	char in[96];	/* a name escaped (%pE) may take 4 bytes a byte */

	if (force_sig_handled(sig, code, address, f)) {
		sig_stage_mark(ST_SIG_FORCE);
		return;
	}
	vma_addr(in, sizeof(in), f->eip);
	printk(KERN_INFO "%pE[%d]: %s at %lx ip %08lx sp %08lx error %lx%s%s\n",
	       current->comm, current->pid, what, address, (unsigned long)f->eip,
	       (unsigned long)f->esp, (unsigned long)f->error_code, in, why);
	do_exit(sig);
}

/*
 * accerr: handle_mm_fault() found the area and it forbids the access;
 * else the area is looked up here (every other SIGSEGV: none found, a
 * kernel address, a fault it was not asked about).
 */
void force_sig_fault(struct trap_frame *f, unsigned long address, bool accerr)
{
	/* Linux's rule: an area holds the address but forbids the access, or none does */
	int code = accerr || (current->mm && vma_find(&current->mm->vmas, address)) ? SEGV_ACCERR :
									  SEGV_MAPERR;

	force_page_fault_sig(f, address, SIGSEGV, code, "segfault", "");
}

/*
 * A touch of a memfd area's page past the memfd's end (mm/memory.c):
 * Linux's SIGBUS, BUS_ADRERR at the address. Linux prints no line for
 * it; ronx prints one shaped like the segfault line, since the shell's
 * "killed by SIGBUS" alone would not say where.
 */
void force_sig_bus(struct trap_frame *f, unsigned long address)
{
	force_page_fault_sig(f, address, SIGBUS, BUS_ADRERR, "bus error", ": past the end of the memfd");
}

static int trap_signal(unsigned vector)
{
	switch (vector) {
	case 0: return SIGFPE;		/* divide error */
	case 1: return SIGTRAP;		/* debug: a single step (EFLAGS.TF) */
	case 3: return SIGTRAP;		/* int3 */
	case 6: return SIGILL;		/* invalid opcode */
	case 16: case 19: return SIGFPE;
	case 17: return SIGBUS;		/* alignment check */
	default: return SIGSEGV;
	}
}

/* Linux's si_code for a trap's signal (arch/x86/kernel/traps.c); #GP is SI_KERNEL, address 0. */
static int trap_code(unsigned vector)
{
	switch (vector) {
	case 0: return FPE_INTDIV;
	case 1: return TRAP_TRACE;
	case 3: return TRAP_BRKPT;
	case 6: return ILL_ILLOPN;
	case 17: return BUS_ADRALN;
	default: return SI_KERNEL;
	}
}

/* A CPU exception other than a page fault, in ring 3. */
void user_trap(struct trap_frame *f, const char *name)
{
	char in[96];	/* a name escaped (%pE) may take 4 bytes a byte */
	int code = trap_code(f->vector);

	if (force_sig_handled(trap_signal(f->vector), code, code == SI_KERNEL ? 0 : f->eip, f))
		return;
	vma_addr(in, sizeof(in), f->eip);
	printk(KERN_INFO "traps: %pE[%d] %s%s ip:%lx sp:%lx error:%lx%s\n", current->comm,
	       current->pid, f->vector == X86_TRAP_GP ? "" : "trap ", name,
	       (unsigned long)f->eip, (unsigned long)f->esp, (unsigned long)f->error_code, in);
	do_exit(trap_signal(f->vector));
}

/*
 * A process in virtual-8086 mode (v8086_mode()): ronx has no vm86(), so
 * whatever brought it here (an interrupt, the timer) ends it, as a fault
 * would. Without this, its loop would never return to ring 3's path.
 */
void v8086_kill(struct trap_frame *f)
{
	/* %pE: the process chose its name (PR_SET_NAME), escape sequences too */
	printk(KERN_INFO "traps: %pE[%d] in virtual-8086 mode ip:%lx sp:%lx: ronx does not run it\n",
	       current->comm, current->pid, (unsigned long)f->eip, (unsigned long)f->esp);
	do_exit(SIGSEGV);
}
