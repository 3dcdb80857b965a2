// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x87/MMX/SSE registers belong to the process that loaded them
 * (Linux: arch/x86/kernel/fpu/core.c, init.c). This is the one file of
 * the kernel with FPU instructions in it: the rest is built with
 * -mno-80387 -mno-mmx -mno-sse, and a test disassembles kernel.elf to
 * hold it to that (tests/qemu/test_fpu.py).
 *
 * Eager switching, as Linux since 4.14: the scheduler saves a process's
 * registers (task->fpu) when it leaves a CPU (switch_fpu_prepare()) and
 * gives the next process its own before it runs (switch_fpu_finish(),
 * both from kernel/sched.c's context_switch()). A kernel task never
 * touches them, so it has nothing to save. The lazy scheme (CR0.TS set
 * at each switch, the registers moved on the first #NM) saves work only
 * for processes that never use the FPU, and leaves the last owner's
 * values in the registers meanwhile: the LazyFP leak (CVE-2018-3665).
 *
 * But eager need not mean twice: as Linux's fpregs_state_valid(), the
 * load is skipped when this CPU's registers still hold what the process
 * saved, i.e. it was the last process to have them here (fpu_owner[])
 * and it has not run on another CPU since (task->fpu_cpu). A process
 * that yields with no one else to run, or that only a kernel task or the
 * idle loop came between, pays no fxrstor. The save itself stays on
 * every switch: the task may run next on another CPU, which can only
 * read its registers from memory (Linux saves eagerly too; XSAVEOPT's
 * skip of unmodified state needs XSAVE, which qemu32 does not have).
 *
 * fxsave/fxrstor where CPUID says FXSR (512 bytes: x87, MMX and, with
 * CR4.OSFXSR, SSE's xmm0-7 and MXCSR); fnsave/frstor otherwise (108
 * bytes: x87 and MMX), into the bottom of the process's kernel stack
 * (kernel/process.c). A new process starts from fpstate_init()'s image:
 * what fninit leaves, MXCSR at its default, and every data register zero
 * (fninit only marks st(0)..st(7) empty; fxsave would still show their
 * old values). A CPU without an x87 is refused at boot (boot/cpucheck.asm).
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/x86.h>
#include <ronx/fpu.h>
#include <ronx/percpu.h>
#include <ronx/sched.h>
#include <ronx/errno.h>
#include <ronx/smap.h>
#include <ronx/uaccess.h>

#define CPUID1_EDX_FXSR	(1u << 24)
#define CPUID1_EDX_XMM	(1u << 25)

bool boot_cpu_has_fxsr, boot_cpu_has_xmm;

/* Every CPU: x87 errors as #MF (NE), fwait obeys TS (MP), no emulation, SSE on. */
void fpu_init_cpu(void)
{
	uint32_t cr0 = read_cr0(), cr4 = read_cr4();

	write_cr0((cr0 & ~(X86_CR0_EM | X86_CR0_TS)) | X86_CR0_MP | X86_CR0_NE);
	if (boot_cpu_has_fxsr)
		cr4 |= X86_CR4_OSFXSR;
	if (boot_cpu_has_xmm)
		cr4 |= X86_CR4_OSXMMEXCPT;
	write_cr4(cr4);
	__asm__ volatile("fninit");
}

void __init fpu_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	boot_cpu_has_fxsr = d & CPUID1_EDX_FXSR;
	/* SSE needs fxsave to keep its registers: without FXSR it stays off (#UD) */
	boot_cpu_has_xmm = boot_cpu_has_fxsr && (d & CPUID1_EDX_XMM);
	fpu_init_cpu();
	pr_info("x86/fpu: x87 FPU will use %s%s; saved on every task switch, loaded unless still there\n",
		boot_cpu_has_fxsr ? "FXSAVE" : "FSAVE", boot_cpu_has_xmm ? " (with SSE)" : "");
}

/* The registers of a process that has not run yet (Linux: fpstate_init()). */
void fpstate_init(union fpregs_state *fps)
{
	memset(fps, 0, sizeof(*fps));
	if (boot_cpu_has_fxsr) {
		fps->fxsave.cwd = FCW_DEFAULT;		/* twd 0: every register empty */
		if (boot_cpu_has_xmm)
			fps->fxsave.mxcsr = MXCSR_DEFAULT;
	} else {
		/* fnsave's 16-bit fields in 32-bit slots, the top halves as it writes them */
		fps->fsave.cwd = 0xffff0000u | FCW_DEFAULT;
		fps->fsave.swd = 0xffff0000u;
		fps->fsave.twd = 0xffffffffu;		/* every register empty */
		fps->fsave.fos = 0xffff0000u;
	}
}

/*
 * The process whose registers each CPU holds, as it saved or loaded them
 * last; NULL: nobody's. Only this CPU's scheduler, tasks_lock held,
 * reads or writes its own entry.
 */
static struct task *fpu_owner[NR_CPUS];

/* prev leaves this CPU: its registers into memory, from where any CPU can load them. */
void switch_fpu_prepare(struct task *prev, int cpu)
{
	fpu_save(prev->fpu);
	prev->fpu_cpu = cpu;
	/* fnsave reinitializes the FPU: the registers are nobody's now */
	fpu_owner[cpu] = boot_cpu_has_fxsr ? prev : 0;
}

/* next arrives on this CPU: its registers, unless they never left. */
void switch_fpu_finish(struct task *next, int cpu)
{
	if (fpu_owner[cpu] == next && next->fpu_cpu == cpu)
		return;
	fpu_restore(next->fpu);
	fpu_owner[cpu] = next;
}

/*
 * t's registers in memory are the ones to load (a new process; or
 * whoever changes t->fpu while it is off a CPU): no CPU's copy counts
 * (Linux: __fpu_invalidate_fpregs_state()).
 */
void fpregs_invalidate(struct task *t)
{
	t->fpu_cpu = -1;
}

/* The registers into fps (fnsave also reinitializes the FPU). */
void fpu_save(union fpregs_state *fps)
{
	if (boot_cpu_has_fxsr)
		__asm__ volatile("fxsave %0" : "=m"(fps->fxsave));
	else
		fnsave_regs(&fps->fsave);
}

/*
 * The registers as a new process has them, fpstate_init()'s image, for
 * a signal handler (Linux's restore_fpregs_from_init_fpstate()), set
 * one by one instead of read from memory: TCG's fxrstor loads its 512
 * bytes field by field, three times the cost of these. fninit leaves
 * the data registers as they were (and fxsave shows them): eight fldz
 * zero them first, the second fninit empties them again and clears the
 * instruction and operand pointers.
 */
void restore_fpregs_from_init_fpstate(void)
{
	uint32_t mxcsr = MXCSR_DEFAULT;

	__asm__ volatile("fninit; fldz; fldz; fldz; fldz; fldz; fldz; fldz; fldz; fninit");
	if (boot_cpu_has_xmm)
		__asm__ volatile("xorps %%xmm0, %%xmm0; xorps %%xmm1, %%xmm1; xorps %%xmm2, %%xmm2\n\t"
				 "xorps %%xmm3, %%xmm3; xorps %%xmm4, %%xmm4; xorps %%xmm5, %%xmm5\n\t"
				 "xorps %%xmm6, %%xmm6; xorps %%xmm7, %%xmm7; ldmxcsr %0"
				 : : "m"(mxcsr));
}

/*
 * fps into the registers. frstor waits for a pending x87 error first:
 * fnclex drops one the last owner (which may have died of it) left, so
 * that it cannot fire in the kernel. fxrstor does not wait.
 */
void fpu_restore(const union fpregs_state *fps)
{
	if (boot_cpu_has_fxsr)
		__asm__ volatile("fxrstor %0" : : "m"(fps->fxsave));
	else
		frstor_regs(&fps->fsave);
}

/* The x87 registers in fnsave's format (which also reinitializes the x87 part). */
void fnsave_regs(struct fregs_state *fs)
{
	__asm__ volatile("fnsave %0" : "=m"(*fs));
}

/* fnsave_regs()'s image back; fnclex first (see fpu_restore()). */
void frstor_regs(const struct fregs_state *fs)
{
	__asm__ volatile("fnclex; frstor %0" : : "m"(*fs));
}

/*
 * A signal's FPU state, straight between the registers and the frame on
 * the user stack (Linux's fxsave_to_user_sigframe() and
 * fxrstor_from_user_sigframe()): no 512-byte copy through the kernel
 * each way, which cost a caught signal about 4k cycles under TCG. buf is
 * user memory the caller checked (access_ok(), 16-byte aligned). One
 * instruction, in SMAP's window, with an exception-table entry: a page
 * fault is served or ends in -EFAULT, and so does a #GP (fxrstor's at an
 * MXCSR bit the CPU reserves; the caller checks for one first, but a
 * process sharing the page could set it in between). QEMU's TCG raises
 * no such #GP and loads the bit: sigtest's forged MXCSR sees the check.
 */
static int fx_user(void __user *buf, bool save)
{
	stac();
	if (save)
		__asm__ goto("1:	fxsave (%0)\n"
			     _ASM_EXTABLE(1b, %l[efault])
			     : : "r"(buf) : "memory" : efault);
	else
		__asm__ goto("1:	fxrstor (%0)\n"
			     _ASM_EXTABLE(1b, %l[efault])
			     : : "r"(buf) : "memory" : efault);
	clac();
	return 0;
efault:
	clac();
	return -EFAULT;
}

int fxsave_to_user(void __user *buf)
{
	return fx_user(buf, true);
}

int fxrstor_from_user(const void __user *buf)
{
	return fx_user((void __user *)buf, false);
}
