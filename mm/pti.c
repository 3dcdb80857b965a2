// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page-table isolation (Linux: arch/x86/mm/pti.c, the x86-32 version of
 * 4.19). `pti=on|off|auto` (default auto, as Linux): auto turns it on
 * on a CPU that may be affected by Meltdown, an Intel one (vendor
 * GenuineIntel, as QEMU's qemu32 says) whose IA32_ARCH_CAPABILITIES does
 * not report RDCL_NO.
 *
 * The user set (ronx/pti.h): each process's PDPT page holds a second
 * PDPT at PTI_USER_PGD_OFFSET. Entries 0-2 are the kernel set's (the
 * same user page directories: shared, never copied; mm_alloc() fills
 * them and they never change). Entry 3 is pti_user_pmd, one kernel-half
 * page directory for every process, built once here, that maps only
 *   .entry.text  (__entry_text_start.._end)  RO + X   the trampoline
 *   .entry.data  (__entry_data_start.._end)  RW + NX  cpu_entry_areas
 *                                                      (TSS, GDT, entry
 *                                                      stack) and the IDT
 * all supervisor-only. While PTI is on CR4.PGE is cleared on every CPU
 * (no global pages at all): a kernel TLB entry must not outlive the
 * switch to the user set. The price: each CR3 write flushes the whole
 * TLB, kernel included (32-bit x86 has no PCID).
 */
#include <stddef.h>
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/printk.h>
#include <ronx/cmdline.h>
#include <ronx/x86.h>
#include <ronx/mm.h>
#include <ronx/pgtable_types.h>
#include <ronx/init.h>
#include <ronx/pti.h>

_Static_assert(offsetof(struct cpu, cea) == 12, "boot/traps.asm CPU_CEA");
_Static_assert(offsetof(struct cpu_entry_area, sp0) == 0, "boot/traps.asm CEA_SP0");
_Static_assert(sizeof(struct cpu_entry_area) == PAGE_SIZE, "one page per CPU");
/* no guard below the entry stack: its worst case must fit, with the rest as margin */
_Static_assert(PAGE_SIZE - offsetof(struct cpu_entry_area, entry_stack) >= 2 * ENTRY_STACK_WORST,
	       "the entry stack's worst case (boot/traps.asm ENTRY_STACK_WORST) fits twice");

enum pti_mode { PTI_AUTO, PTI_FORCE_ON, PTI_FORCE_OFF };

static enum pti_mode pti_mode __ro_after_init = PTI_AUTO;
uint8_t pti_active __attribute__((section(".entry.data")));
static unsigned long pti_user_pmd __ro_after_init;	/* physical */

static int parse_pti(const char *val)
{
	if (val && strcmp(val, "on") == 0)
		pti_mode = PTI_FORCE_ON;
	else if (val && strcmp(val, "off") == 0)
		pti_mode = PTI_FORCE_OFF;
	else if (val && strcmp(val, "auto") == 0)
		pti_mode = PTI_AUTO;
	else
		return -EINVAL;
	return 0;
}
BOOT_PARAM("pti", parse_pti, "on, off or auto");

static int parse_nopti(const char *val)
{
	if (val)
		return -EINVAL;
	pti_mode = PTI_FORCE_OFF;
	return 0;
}
BOOT_PARAM("nopti", parse_nopti, "no value");

#define MSR_IA32_ARCH_CAPABILITIES	0x10a
#define ARCH_CAP_RDCL_NO		(1u << 0)
#define CPUID7_EDX_ARCH_CAPABILITIES	(1u << 29)

/* Meltdown: any Intel CPU that does not say RDCL_NO (Linux: cpu_vulnerable_to_meltdown()). */
static bool cpu_affected_by_meltdown(void)
{
	uint32_t max, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)	/* GenuineIntel */
		return false;
	cpuid_leaf7(&b, &c, &d);	/* no leaf 7: no word of RDCL_NO either */
	if (!(d & CPUID7_EDX_ARCH_CAPABILITIES))
		return true;
	return !(rdmsr(MSR_IA32_ARCH_CAPABILITIES) & ARCH_CAP_RDCL_NO);
}

/* The user set's PTE for va, its page table allocated on first use. */
static pteval_t *pti_user_pte(unsigned long va)
{
	pteval_t *pmd = __va(pti_user_pmd);
	pteval_t *pde = &pmd[pmd_index(va)];

	if (!(*pde & _PAGE_PRESENT)) {
		unsigned long pt = alloc_pagetable_page();

		if (!pt)
			refuse_boot(KERN_ERR "ronx: cannot boot: no free page for PTI's user page tables\n");
		memset(__va(pt), 0, PAGE_SIZE);
		*pde = pt | _PAGE_TABLE;
	}
	return &((pteval_t *)__va(*pde & PTE_PFN_MASK))[pte_index(va)];
}

/* Maps [start, end) of the image into the user set with prot (never _PAGE_USER). */
static void pti_clone_range(char *start, char *end, pteval_t prot)
{
	for (unsigned long va = (unsigned long)start; va < (unsigned long)end; va += PAGE_SIZE)
		*pti_user_pte(va) = __pa(va) | (prot & __supported_pte_mask);
}

/*
 * The kernel half of the user set: what the CPU needs to enter the kernel
 * from ring 3 and to go back (Linux: pti_clone_user_shared() and
 * pti_clone_entry_text()), and nothing else.
 */
static int __init pti_clone_user_shared(void)
{
	pti_clone_range(__entry_text_start, __entry_text_end, _PAGE_PRESENT);
	pti_clone_range(__entry_data_start, __entry_data_end, _PAGE_PRESENT | _PAGE_RW | _PAGE_NX);
	return 0;
}

/* A user set that was not built: its page tables back to the allocator. */
static void __init pti_free_user_set(void)
{
	pteval_t *pmd = __va(pti_user_pmd);

	for (unsigned i = 0; i < PTRS_PER_PMD; i++)
		if (pmd[i] & _PAGE_PRESENT)
			free_pagetable_page(pmd[i] & PTE_PFN_MASK);
	free_pagetable_page(pti_user_pmd);
	pti_user_pmd = 0;
}

/*
 * The CPU entry area (mm/cpu_entry_area.c), where the CPUs find their GDT,
 * TSS and IDT: the kernel set's page table for it, the same in both sets.
 */
static void __init pti_share_cpu_entry_area(void)
{
	pteval_t *user = __va(pti_user_pmd);

	user[pmd_index(CPU_ENTRY_AREA_BASE)] = pmd_table(3)[pmd_index(CPU_ENTRY_AREA_BASE)];
}

/* Before any CPU uses its entry stack: the high-water mark becomes readable. */
static void paint_entry_stacks(void)
{
	for (int i = 0; i < NR_CPUS; i++) {
		struct cpu_entry_area *cea = &cpu_entry_areas[i];
		uint32_t *w = (uint32_t *)cea->entry_stack;

		while ((char *)w < (char *)cea + PAGE_SIZE)
			*w++ = ENTRY_STACK_PAINT;
	}
}

void __init pti_init(void)
{
	if (pti_mode == PTI_FORCE_OFF) {
		pr_info("Kernel/User page tables isolation: disabled on command line.\n");
		return;
	}
	if (pti_mode == PTI_AUTO && !cpu_affected_by_meltdown()) {
		pr_info("Kernel/User page tables isolation: disabled (CPU not affected by Meltdown)\n");
		return;
	}
	pti_user_pmd = alloc_pagetable_page();
	if (!pti_user_pmd)
		refuse_boot(KERN_ERR "ronx: cannot boot: no free page for PTI's user page directory\n");
	memset(__va(pti_user_pmd), 0, PAGE_SIZE);
	if (pti_clone_user_shared() < 0) {
		pti_free_user_set();
		pr_info("Kernel/User page tables isolation: disabled (no user set: pti_clone_user_shared() failed)\n");
		return;
	}
	paint_entry_stacks();
	pti_share_cpu_entry_area();
	/* no global pages: the application processors copy this CR4 */
	write_cr4(read_cr4() & ~X86_CR4_PGE);
	pti_active = 1;
	pr_info("Kernel/User page tables isolation: enabled\n");
}

/* Fills the user set beside a new process's PDPT; nothing when PTI is off. */
void pti_clone_pgd(uint64_t *pdpt)
{
	uint64_t *user = (uint64_t *)((char *)pdpt + PTI_USER_PGD_OFFSET);

	if (!pti_active)
		return;
	for (unsigned i = 0; i < 3; i++)
		user[i] = pdpt[i];
	user[3] = pti_user_pmd | _PAGE_PRESENT;
}

/* The CR3 of the user set beside a kernel set's PDPT; the kernel set's own when PTI is off. */
unsigned long pti_user_pgd(unsigned long kernel_pgd)
{
	return pti_active ? kernel_pgd + PTI_USER_PGD_OFFSET : kernel_pgd;
}

/* PDPT entry 3 of every user set (the W^X audit walks it); 0 when PTI is off. */
uint64_t pti_user_kernel_pdpte(void)
{
	return pti_active ? pti_user_pmd | _PAGE_PRESENT : 0;
}
