// SPDX-License-Identifier: GPL-2.0-only
/* Self-tests of the probes and the fault recovery every other test relies on. */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/mm.h>
#include <ronx/ktest.h>

/* Nothing is ever mapped below PAGE_OFFSET. */
#define UNMAPPED ((void *)0x00400000)

static void ret_in_text(void)
{
}

KTEST(probe, read_unmapped_faults_and_returns)
{
	unsigned char v;

	KT_EXPECT(t, probe_read(UNMAPPED, &v) == -EFAULT, "read of an unmapped page did not fail");
	KT_EXPECT(t, last_fault.cr2 == (unsigned long)UNMAPPED, "cr2 %08lx", last_fault.cr2);
	KT_EXPECT(t, !(last_fault.error_code & X86_PF_PROT), "error code %x says present",
		  last_fault.error_code);
}

KTEST(probe, write_unmapped_has_write_bit)
{
	KT_EXPECT(t, probe_write(UNMAPPED, 1) == -EFAULT, "write to an unmapped page did not fail");
	KT_EXPECT(t, last_fault.error_code & X86_PF_WRITE, "error code %x", last_fault.error_code);
}

KTEST(probe, read_and_write_mapped_data)
{
	static unsigned char cell = 42;
	unsigned char v = 0;

	KT_EXPECT(t, probe_read(&cell, &v) == 0 && v == 42, "read %u", v);
	KT_EXPECT(t, probe_write(&cell, 7) == 0 && cell == 7, "write left %u", cell);
}

KTEST(probe, exec_of_text_returns)
{
	KT_EXPECT(t, probe_exec((const void *)ret_in_text, 0) == 0, "calling kernel text faulted");
}

KTEST(probe, exec_of_unmapped_is_recovered)
{
	struct fault_info fi;

	KT_EXPECT(t, probe_exec(UNMAPPED, &fi) == -EFAULT, "call into nothing did not fault");
	KT_EXPECT(t, fi.cr2 == (unsigned long)UNMAPPED && fi.eip == (unsigned long)UNMAPPED,
		  "cr2 %08lx eip %08lx", fi.cr2, fi.eip);
	if (nx_enabled)
		KT_EXPECT(t, fi.error_code & X86_PF_INSTR, "no fetch bit in %x", fi.error_code);
}
