// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the user half, inside the kernel (KTAP suites):
 *   process_mm  a process's page tables: the shared kernel half, US on
 *               every user level and on no kernel one, never global,
 *               the permission each area asked for, nothing leaked
 *   mmap        the W^X policy of mmap/mprotect, the JIT flip, the guard
 *   uaccess     access_ok() and the exception-table fixups
 *   smep_smap   the CPU stops the kernel at a user page (skipped, with
 *               the reason, on a CPU without them or with nosmep/nosmap)
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/string.h>
#include <ronx/mm.h>
#include <ronx/pgd.h>
#include <ronx/mman.h>
#include <ronx/uaccess.h>
#include <ronx/memory.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/smap.h>
#include <ronx/segment.h>
#include <ronx/spinlock.h>
#include <ronx/user_demo.h>
#include <ronx/ktest.h>

#define TEST_VA		0x20000000UL

static unsigned long free_before, tables_before;

/* A small machine (2M of RAM) has too few free pages for a process's areas. */
static bool too_little_memory(struct kt *t)
{
	if (nr_free_pages() >= USER_FREE_RESERVE + 16)
		return false;
	kt_skip(t, "too little free memory on this machine for user pages");
	return true;
}

static void remember_pages(void)
{
	free_before = nr_free_pages();
	tables_before = nr_pagetable_pages;
}

static void expect_pages_back(struct kt *t)
{
	KT_EXPECT(t, nr_free_pages() == free_before, "free pages %lu, were %lu",
		  nr_free_pages(), free_before);
	KT_EXPECT(t, nr_pagetable_pages == tables_before, "page-table pages %lu, were %lu",
		  nr_pagetable_pages, tables_before);
}

KTEST(process_mm, kernel_half_shared)
{
	struct mm_struct *mm;
	pteval_t *pdpt;

	remember_pages();
	mm = mm_alloc();
	if (!mm)
		return kt_skip(t, "no memory");
	pdpt = __va(mm->pgd);
	KT_EXPECT(t, pdpt[3] == swapper_pg_dir[3], "PDPT[3] %llx is not the kernel's %llx",
		  (unsigned long long)pdpt[3], (unsigned long long)swapper_pg_dir[3]);
	for (int i = 0; i < 3; i++)
		KT_EXPECT(t, pdpt[i] != swapper_pg_dir[i] && (pdpt[i] & _PAGE_PRESENT),
			  "PDPT[%d] is not a directory of the process's own", i);
	mmput(mm);
	expect_pages_back(t);
}

KTEST(process_mm, kernel_pdes_supervisor_only)
{
	pteval_t *pmds = pmd_table(3);
	int bad = 0;

	for (int i = 0; i < PTRS_PER_PMD; i++)
		bad += (pmds[i] & _PAGE_PRESENT) && (pmds[i] & _PAGE_USER);
	KT_EXPECT(t, bad == 0, "%d kernel PDEs carry US", bad);
}

/* Each area's pages: US, never G, RW and NX as its flags say. */
KTEST(process_mm, user_pages_as_asked)
{
	static const struct { unsigned flags; pteval_t want; } cases[] = {
		{ VM_READ | VM_EXEC, _PAGE_PRESENT | _PAGE_USER },
		{ VM_READ, _PAGE_PRESENT | _PAGE_USER | _PAGE_NX },
		{ VM_READ | VM_WRITE, _PAGE_PRESENT | _PAGE_USER | _PAGE_RW | _PAGE_NX },
	};
	struct mm_struct *mm;

	if (too_little_memory(t))
		return;
	remember_pages();
	mm = mm_alloc();
	if (!mm)
		return kt_skip(t, "no memory");
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		uint32_t va = TEST_VA + i * 2 * PAGE_SIZE;
		pteval_t want = cases[i].want & __supported_pte_mask, *pte, *pmd;

		KT_EXPECT(t, map_area(mm, va, va + PAGE_SIZE, cases[i].flags, VMA_MMAP) == 0,
			  "map_area %u", i);
		pte = user_pte(mm, va, false);
		KT_EXPECT(t, pte && (*pte & (PTE_ATTR_MASK & ~_PAGE_PSE)) == want,
			  "case %u: pte %llx, want attributes %llx", i,
			  pte ? (unsigned long long)*pte : 0ULL, (unsigned long long)want);
		pmd = &((pteval_t *)__va(((pteval_t *)__va(mm->pgd))[0] & PTE_PFN_MASK))[pmd_index(va)];
		KT_EXPECT(t, (*pmd & _PAGE_USER) && !(*pmd & _PAGE_NX), "the PDE must let the PTE decide");
	}
	mmput(mm);
	expect_pages_back(t);
}

KTEST(mmap, wx_refused)
{
	struct mm_struct *mm = mm_alloc();
	long a;

	if (too_little_memory(t))
		return;
	if (!mm)
		return kt_skip(t, "no memory");
	remember_pages();
	a = do_mmap(mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1);
	KT_EXPECT(t, a == -EACCES, "mmap RWX gave %ld, want -EACCES", a);
	a = do_mmap(mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	KT_EXPECT(t, a > 0, "mmap RW gave %ld", a);
	KT_EXPECT(t, do_mprotect(mm, (uint32_t)a, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC) == -EACCES,
		  "mprotect RWX not refused");
	KT_EXPECT(t, do_munmap(mm, (uint32_t)a, PAGE_SIZE) == 0, "munmap");
	KT_EXPECT(t, nr_free_pages() == free_before, "munmap gave back %lu of the pages",
		  nr_free_pages() - (free_before - 1));
	mmput(mm);
}

/* What a JIT does: write code into an RW page, then make it RX. */
KTEST(mmap, jit_flip)
{
	struct mm_struct *mm = mm_alloc();
	pteval_t *pte;
	long a;

	if (too_little_memory(t))
		return;
	if (!mm)
		return kt_skip(t, "no memory");
	a = do_mmap(mm, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	/* the page arrives on first touch: a write fault, as the JIT's first store */
	KT_EXPECT(t, a > 0 && !user_pte(mm, (uint32_t)a, false), "nothing mapped before the first touch");
	KT_EXPECT(t, a > 0 && handle_mm_fault(mm, (uint32_t)a, X86_PF_WRITE | X86_PF_USER) == VM_FAULT_DONE,
		  "the first write maps a page");
	KT_EXPECT(t, a > 0 && do_mprotect(mm, (uint32_t)a, PAGE_SIZE, PROT_READ | PROT_EXEC) == 0,
		  "RW then RX");
	pte = a > 0 ? user_pte(mm, (uint32_t)a, false) : 0;
	KT_EXPECT(t, pte && !(*pte & _PAGE_RW) && !(*pte & _PAGE_NX), "pte %llx is not RO+X",
		  pte ? (unsigned long long)*pte : 0ULL);
	mmput(mm);
}

KTEST(mmap, guard_page_stays_unmapped)
{
	struct mm_struct *mm = mm_alloc();
	long a;

	if (!mm)
		return kt_skip(t, "no memory");
	a = do_mmap(mm, mm_stack_guard(mm), PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1);
	KT_EXPECT(t, a == -ENOMEM, "MAP_FIXED on the guard page gave %ld", a);
	a = do_mmap(mm, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1);
	KT_EXPECT(t, a == -EPERM, "MAP_FIXED at 0 (below mmap_min_addr) gave %ld", a);
	mmput(mm);
}

KTEST(uaccess, access_ok_bounds)
{
	KT_EXPECT(t, access_ok((void *)0x1000, 16), "a small user range");
	KT_EXPECT(t, access_ok((void *)(TASK_SIZE - 4), 4), "the last user bytes");
	KT_EXPECT(t, !access_ok((void *)(TASK_SIZE - 4), 5), "one byte into the kernel");
	KT_EXPECT(t, !access_ok((void *)PAGE_OFFSET, 1), "a kernel address");
	KT_EXPECT(t, !access_ok((void *)0x1000, 0xfffff000UL), "a wrapping length");
}

KTEST(uaccess, kernel_pointer_refused)
{
	static const char secret[8] = "secret";
	char buf[8] = "xxxxxxx";

	KT_EXPECT(t, copy_from_user(buf, secret, sizeof(buf)) == sizeof(buf),
		  "copy_from_user read a kernel address");
	KT_EXPECT(t, buf[0] == 0, "the refused copy must zero the buffer");
	KT_EXPECT(t, copy_to_user((void *)secret, buf, 1) == 1, "copy_to_user wrote kernel memory");
	KT_EXPECT(t, strncpy_from_user(buf, secret, sizeof(buf)) == -EFAULT,
		  "strncpy_from_user read a kernel string");
}

KTEST(uaccess, get_put_user_refuse_kernel)
{
	static unsigned int kernel_word = 0x12345678;
	unsigned int v = 1;

	KT_EXPECT(t, get_user(v, &kernel_word) == -EFAULT, "get_user read a kernel address");
	KT_EXPECT(t, v == 0, "a refused get_user must zero its value, found %x", v);
	KT_EXPECT(t, put_user(5u, &kernel_word) == -EFAULT && kernel_word == 0x12345678,
		  "put_user wrote a kernel address (now %x)", kernel_word);
}

/* A user page, then nothing: the copy stops at the hole and says how much is left. */
KTEST(uaccess, fault_fixed_up)
{
	static const char text[] = "hello";
	unsigned long faults = page_fault_count;
	char buf[16];
	const char *p = map_user_demo_page(VM_READ | VM_WRITE, text, sizeof(text));
	unsigned int v = 0;

	if (!p)
		return kt_skip(t, "no memory");
	KT_EXPECT(t, copy_from_user(buf, p, sizeof(text)) == 0 && strcmp(buf, "hello") == 0,
		  "copy_from_user of a mapped user page");
	KT_EXPECT(t, strncpy_from_user(buf, p, sizeof(buf)) == 5, "strncpy_from_user length");
	KT_EXPECT(t, copy_from_user(buf, p + PAGE_SIZE - 4, 8) == 4,
		  "a copy across the end of the page must leave 4 bytes");
	KT_EXPECT(t, get_user(v, (unsigned int *)(p + 2 * PAGE_SIZE)) == -EFAULT,
		  "get_user of an unmapped user address");
	KT_EXPECT(t, put_user(7u, (unsigned int *)(p + 8)) == 0 && get_user(v, (unsigned int *)(p + 8)) == 0 &&
		  v == 7, "put_user then get_user");
	/* the contract is 0 or -EFAULT, never a count of bytes left */
	KT_EXPECT(t, put_user(7u, (unsigned int *)(p + 2 * PAGE_SIZE)) == -EFAULT,
		  "put_user of an unmapped user address must be -EFAULT");
	KT_EXPECT(t, put_user(7u, (unsigned int *)(p + PAGE_SIZE - 2)) == -EFAULT,
		  "put_user across the end of the page must be -EFAULT");
	KT_EXPECT(t, get_user(v, (unsigned int *)(p + PAGE_SIZE - 2)) == -EFAULT,
		  "get_user across the end of the page must be -EFAULT");
	KT_EXPECT(t, page_fault_count >= faults + 5, "the fixed-up faults were real faults");
	unmap_user_demo_page();
}

/* What a copy cut short by a hole leaves in the kernel's buffer: zeros, not stale bytes. */
KTEST(uaccess, short_copy_zeroes_the_rest)
{
	static const char text[] = "hello";
	char buf[8];
	const char *p = map_user_demo_page(VM_READ | VM_WRITE, text, sizeof(text));

	if (!p)
		return kt_skip(t, "no memory");
	memset(buf, 0x5a, sizeof(buf));
	KT_EXPECT(t, copy_from_user(buf, p + PAGE_SIZE - 3, sizeof(buf)) == 5,
		  "3 bytes copied, 5 left");
	KT_EXPECT(t, !buf[3] && !buf[4] && !buf[5] && !buf[6] && !buf[7],
		  "the 5 bytes not copied must be zeroed, found %02x %02x %02x %02x %02x",
		  buf[3] & 0xff, buf[4] & 0xff, buf[5] & 0xff, buf[6] & 0xff, buf[7] & 0xff);
	unmap_user_demo_page();
}

static bool ac_set(void)
{
	return arch_local_save_flags() & X86_EFLAGS_AC;
}

/* SMAP's window closes after every user access, the faulting ones too. */
KTEST(uaccess, ac_clear_after_user_access)
{
	static const char text[] = "hello";
	char buf[16];
	unsigned int v = 0;
	const char *p;

	if (!smap_enabled)
		return kt_skip(t, smap_supported ? "nosmap: no EFLAGS.AC to leave set" :
			       "the CPU has no SMAP: no EFLAGS.AC to leave set");
	p = map_user_demo_page(VM_READ | VM_WRITE, text, sizeof(text));
	if (!p)
		return kt_skip(t, "no memory");
	copy_from_user(buf, p, sizeof(text));
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after copy_from_user");
	copy_from_user(buf, p + PAGE_SIZE - 4, 8);
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after a copy_from_user that faulted");
	copy_to_user((char *)p + PAGE_SIZE - 4, buf, 8);
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after a copy_to_user that faulted");
	strncpy_from_user(buf, p, sizeof(buf));
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after strncpy_from_user");
	memset((char *)buf, 'x', sizeof(buf));
	copy_to_user((char *)p + PAGE_SIZE - 4, buf, 4);
	KT_EXPECT(t, strncpy_from_user(buf, p + PAGE_SIZE - 4, sizeof(buf)) == -EFAULT,
		  "a string running into a hole must be -EFAULT");
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after a strncpy_from_user that faulted");
	KT_EXPECT(t, get_user(v, (unsigned int *)(p + PAGE_SIZE)) == -EFAULT && v == 0,
		  "get_user of an unmapped page must be -EFAULT");
	KT_EXPECT(t, !ac_set(), "EFLAGS.AC set after a get_user that faulted");
	unmap_user_demo_page();
}

KTEST(smep_smap, smep_stops_kernel_exec)
{
	static const unsigned char ret[] = { 0xc3 };
	struct fault_info fi;
	void *p;
	int r;

	if (!smep_enabled)
		return kt_skip(t, smep_supported ? "nosmep" : "the CPU has no SMEP");
	p = map_user_demo_page(VM_READ | VM_EXEC, ret, sizeof(ret));
	if (!p)
		return kt_skip(t, "no memory");
	r = probe_exec(p, &fi);
	unmap_user_demo_page();
	KT_EXPECT(t, r == -EFAULT, "the kernel ran a user page with SMEP on");
	KT_EXPECT(t, r != -EFAULT || (fi.error_code & (X86_PF_INSTR | X86_PF_PROT)) ==
		  (X86_PF_INSTR | X86_PF_PROT), "error code %x", fi.error_code);
}

KTEST(smep_smap, smap_stops_kernel_read)
{
	static const unsigned char byte[] = { 0x5a };
	unsigned char v = 0;
	void *p;
	int r;

	if (!smap_enabled)
		return kt_skip(t, smap_supported ? "nosmap" : "the CPU has no SMAP");
	p = map_user_demo_page(VM_READ | VM_WRITE, byte, sizeof(byte));
	if (!p)
		return kt_skip(t, "no memory");
	r = probe_read(p, &v);
	KT_EXPECT(t, r == -EFAULT, "a plain kernel read of a user page went through with SMAP on");
	KT_EXPECT(t, copy_from_user(&v, p, 1) == 0 && v == 0x5a,
		  "copy_from_user (stac/clac) must still read it");
	unmap_user_demo_page();
}

/* Without SMEP the same call goes through: the protection, not luck, stopped it above. */
KTEST(smep_smap, without_smep_kernel_runs_user_page)
{
	static const unsigned char ret[] = { 0xc3 };
	void *p;
	int r;

	if (smep_enabled)
		return kt_skip(t, "SMEP is on (boot with nosmep to see the attack go through)");
	p = map_user_demo_page(VM_READ | VM_EXEC, ret, sizeof(ret));
	if (!p)
		return kt_skip(t, "no memory");
	r = probe_exec(p, 0);
	unmap_user_demo_page();
	KT_EXPECT(t, r == 0, "a user page did not run without SMEP");
}
