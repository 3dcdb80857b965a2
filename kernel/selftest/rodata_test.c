// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the kernel image policy (Linux: rodata_test, and LKDTM's
 * EXEC_* and WRITE_* tests, as probes that fault and recover). Every
 * "exec" target holds a ret (0xc3): if the page were executable the call
 * would simply come back, and the test would fail.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/sections.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/pageattr.h>
#include <ronx/mm.h>
#include <ronx/ktest.h>
#include <ronx/debug_pagealloc.h>
#include <ronx/image_test.h>

#define RET 0xc3

extern bool rodata_enabled;
const unsigned char rodata_test_data[] = { RET };
static unsigned char data_test_data[] = { RET };
static unsigned char bss_test_data[16];
static int ro_after_init_test_data __ro_after_init = 1;
static int ro_after_init_boot_write = -1;	/* what the boot-time write returned */

/* Runs in start_kernel, before mark_rodata_ro(): the write must work then. */
void __init ro_after_init_test_boot(void)
{
	ro_after_init_boot_write = probe_write(&ro_after_init_test_data, 2);
}

/* A function in .text that does nothing: probe_exec() target. */
void text_exec_probe(void)
{
}

static const char *exec_skip_reason(void)
{
	if (!nx_enabled)
		return "NX is not in use (CPU without NX, or noexec=off)";
	if (!rodata_enabled)
		return "rodata=off leaves the image executable on purpose";
	return 0;
}

/* The call must fault as an instruction fetch at the target itself. */
static void expect_exec_fault(struct kt *t, const void *target, const char *what)
{
	struct fault_info fi;
	int ret = probe_exec(target, &fi);

	KT_EXPECT(t, ret == -EFAULT, "%s at %p was executable", what, target);
	if (ret == -EFAULT)
		KT_EXPECT(t, fi.vector == X86_TRAP_PF && (fi.error_code & X86_PF_INSTR) &&
			  fi.cr2 == (unsigned long)target,
			  "%s: vector %u error %x cr2 %08lx", what, fi.vector, fi.error_code, fi.cr2);
}

static void expect_write_fault(struct kt *t, void *target, const char *what)
{
	int ret = probe_write_same(target);

	KT_EXPECT(t, ret == -EFAULT, "%s at %p was writable", what, target);
	if (ret == -EFAULT)
		KT_EXPECT(t, (last_fault.error_code & (X86_PF_PROT | X86_PF_WRITE)) ==
			  (X86_PF_PROT | X86_PF_WRITE), "%s: error code %x", what,
			  last_fault.error_code);
}

KTEST(image, write_to_text_faults)
{
	if (!rodata_enabled)
		return kt_skip(t, "rodata=off leaves the text writable on purpose");
	expect_write_fault(t, (void *)expect_write_fault, "kernel text");
}

KTEST(image, write_to_rodata_faults)
{
	if (!rodata_enabled)
		return kt_skip(t, "rodata=off leaves rodata writable on purpose");
	expect_write_fault(t, (void *)rodata_test_data, "rodata");
}

KTEST(image, ro_after_init_writable_during_boot)
{
	KT_EXPECT(t, ro_after_init_boot_write == 0, "boot-time write returned %d",
		  ro_after_init_boot_write);
	KT_EXPECT(t, ro_after_init_test_data == 2, "value %d", ro_after_init_test_data);
}

KTEST(image, ro_after_init_read_only_after_boot)
{
	if (!rodata_enabled)
		return kt_skip(t, "rodata=off leaves ro_after_init writable on purpose");
	expect_write_fault(t, &ro_after_init_test_data, "ro_after_init");
}

KTEST(image, data_and_bss_writable)
{
	KT_EXPECT(t, probe_write_same(data_test_data) == 0, ".data not writable");
	KT_EXPECT(t, probe_write_same(bss_test_data) == 0, ".bss not writable");
}

KTEST(image, text_executable)
{
	KT_EXPECT(t, probe_exec((const void *)text_exec_probe, 0) == 0,
		  "kernel text not executable");
}

#define EXEC_TEST(name, target_expr, what)				\
KTEST(image, name)							\
{									\
	const char *skip = exec_skip_reason();				\
	if (skip)							\
		return kt_skip(t, skip);				\
	expect_exec_fault(t, (target_expr), what);			\
}

EXEC_TEST(exec_data_faults, data_test_data, ".data")
EXEC_TEST(exec_rodata_faults, rodata_test_data, ".rodata")

KTEST(image, exec_bss_faults)
{
	const char *skip = exec_skip_reason();

	if (skip)
		return kt_skip(t, skip);
	bss_test_data[0] = RET;
	expect_exec_fault(t, bss_test_data, ".bss");
}

KTEST(image, exec_stack_faults)
{
	unsigned char stack[8] = { RET };

	if (!nx_enabled)
		return kt_skip(t, "NX is not in use (CPU without NX, or noexec=off)");
	expect_exec_fault(t, stack, "the stack");
}

KTEST(image, exec_heap_faults)
{
	unsigned long pa = alloc_page();
	unsigned char *page = __va(pa);

	if (!nx_enabled) {
		free_page(pa);
		return kt_skip(t, "NX is not in use (CPU without NX, or noexec=off)");
	}
	page[0] = RET;
	expect_exec_fault(t, page, "a freshly allocated page");
	free_page(pa);
}

KTEST(image, exec_freed_init_faults)
{
	if (!nx_enabled)
		return kt_skip(t, "NX is not in use (CPU without NX, or noexec=off)");
	/* freed init is poisoned with int3 (0xcc) and NX (seed 001, step 4) */
	expect_exec_fault(t, __init_begin, "freed init memory");
}

KTEST(image, kernel_image_has_no_wx_pages)
{
	if (!rodata_enabled || !nx_enabled)
		return kt_skip(t, "rodata=off or no NX: W+X pages are expected");
	for (unsigned long va = (unsigned long)_text; va < (unsigned long)_end; va += PAGE_SIZE) {
		enum pg_level level;
		pteval_t *pte = lookup_address(va, &level);

		/* a freed init page debug_pagealloc took out of the map: nothing to run there */
		if (!pte && debug_pagealloc_free_page_hit(va))
			continue;
		KT_EXPECT(t, pte, "page %08lx of the image is not mapped", va);
		KT_EXPECT(t, !pte || !(*pte & _PAGE_RW) || (*pte & _PAGE_NX), "page %08lx is W+X", va);
	}
}
