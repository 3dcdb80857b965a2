// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the low 1 MiB and the PCI BIOS hole (suite "pcbios"):
 * the page tables and real execution agree with the pci= policy in force.
 *
 * Executing a page needs a "ret" byte in it. Below 640K we write one
 * through the direct map and put the old byte back; in 640K-1M (ROM, often
 * write-protected by the chipset) we look for a 0xc3 that is already there.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/pcbios.h>
#include <ronx/ktest.h>
#include <ronx/x86.h>

#define RET_OPCODE	0xc3
#define LOW_640K	BIOS_BEGIN
#define ROM_BEGIN	0xc0000UL	/* below: VGA memory, not worth executing */

static pteval_t pte_of(unsigned long pa)
{
	enum pg_level level;
	pteval_t *pte = lookup_address((unsigned long)__va(pa), &level);

	return pte ? *pte : 0;
}

static bool is_exec(pteval_t pte)
{
	return !(pte & _PAGE_NX);
}

static bool in_hole(unsigned long pa)
{
	return pcibios_enabled && pa >= pcibios.hole_start && pa < pcibios.hole_end;
}

/* What the policy in force says the page at pa (below 1 MiB) must be. */
static bool expect_rw(unsigned long pa)
{
	return !(in_hole(pa) && pcibios.policy == PCIBIOS_TIGHT);
}

/* Physical address of a ret byte in [start, end) in a page that is (not) executable. */
static unsigned long find_ret_byte(unsigned long start, unsigned long end, bool exec)
{
	for (unsigned long pa = start; pa < end; pa += PAGE_SIZE) {
		const unsigned char *p = __va(pa);

		if (is_exec(pte_of(pa)) != exec)
			continue;
		for (unsigned long i = 0; i < PAGE_SIZE; i++)
			if (p[i] == RET_OPCODE)
				return pa + i;
	}
	return 0;
}

/* Calls a ret we wrote at pa through the direct map: 0 or -EFAULT. */
static int exec_written_ret(unsigned long pa, struct fault_info *fi)
{
	unsigned char *p = __va(pa), old = *p;
	int ret;

	*p = RET_OPCODE;
	ret = probe_exec(p, fi);
	*p = old;
	return ret;
}

static void expect_fetch_fault(struct kt *t, int ret, const struct fault_info *fi,
			       unsigned long pa)
{
	KT_EXPECT(t, ret == -EFAULT, "executing 0x%05lx did not fault", pa);
	KT_EXPECT(t, ret != -EFAULT || (fi->error_code & X86_PF_INSTR),
		  "fault at 0x%05lx without the fetch bit (error code %x)", pa, fi->error_code);
}

KTEST(pcbios, low_640k_is_rw_nx)
{
	static const unsigned long probes[] = { 0x1000, LOW_640K - PAGE_SIZE };
	struct fault_info fi;

	for (unsigned long pa = 0; pa < LOW_640K; pa += PAGE_SIZE)
		KT_EXPECT(t, pte_of(pa) & _PAGE_RW, "0x%05lx is not writable", pa);
	if (!nx_enabled)
		return kt_skip(t, "NX not in use (no NX on the CPU, or noexec=off)");
	for (unsigned long pa = 0; pa < LOW_640K; pa += PAGE_SIZE)
		KT_EXPECT(t, !is_exec(pte_of(pa)), "0x%05lx is executable", pa);
	for (unsigned i = 0; i < ARRAY_SIZE(probes); i++)
		expect_fetch_fault(t, exec_written_ret(probes[i], &fi), &fi, probes[i]);
}

KTEST(pcbios, hole_flags_follow_policy)
{
	for (unsigned long pa = BIOS_BEGIN; pa < BIOS_END; pa += PAGE_SIZE)
		KT_EXPECT(t, !!(pte_of(pa) & _PAGE_RW) == expect_rw(pa),
			  "0x%05lx: RW is %d under pci=%s", pa, !!(pte_of(pa) & _PAGE_RW),
			  pcibios_policy_name(pcibios.policy));
	if (!nx_enabled)
		return kt_skip(t, "NX not in use (no NX on the CPU, or noexec=off)");
	for (unsigned long pa = BIOS_BEGIN; pa < BIOS_END; pa += PAGE_SIZE)
		KT_EXPECT(t, is_exec(pte_of(pa)) == in_hole(pa),
			  "0x%05lx: executable is %d under pci=%s", pa, is_exec(pte_of(pa)),
			  pcibios_policy_name(pcibios.policy));
}

KTEST(pcbios, hole_executes_only_where_declared)
{
	unsigned long x, nx;
	struct fault_info fi;

	if (!nx_enabled)
		return kt_skip(t, "NX not in use (no NX on the CPU, or noexec=off)");
	x = find_ret_byte(ROM_BEGIN, BIOS_END, true);
	nx = find_ret_byte(ROM_BEGIN, BIOS_END, false);
	KT_EXPECT(t, !pcibios_enabled || x, "no executable page with a ret byte in the hole");
	if (x)
		KT_EXPECT(t, probe_exec(__va(x), &fi) == 0, "ret at 0x%05lx faulted", x);
	if (nx)
		expect_fetch_fault(t, probe_exec(__va(nx), &fi), &fi, nx);
	if (!nx && pcibios.policy != PCIBIOS_RWX)
		return kt_skip(t, "no ret byte in an NX page of 768K-1M to execute");
}

/*
 * W+X pages in the kernel's half of the address space, 4 KiB units,
 * outside the module area: module memory is RW+X on purpose under
 * module_ronx=off (and a small module's one page under noalign), which is
 * the module loader's policy, not the PCI BIOS's.
 */
static unsigned long count_wx_pages(void)
{
	unsigned long n = 0;

	for (unsigned long long va = PAGE_OFFSET; va < (1ULL << 32); ) {
		enum pg_level level;
		pteval_t *pte = lookup_address((unsigned long)va, &level);
		unsigned long step = level == PG_LEVEL_2M ? PMD_SIZE : PAGE_SIZE;
		bool module = va >= MODULES_VADDR && va < MODULES_END;

		if (pte && !module && (*pte & _PAGE_RW) && is_exec(*pte))
			n += step / PAGE_SIZE;
		va = (va & ~(unsigned long long)(step - 1)) + step;
	}
	return n;
}

KTEST(pcbios, wx_pages_are_the_declared_hole)
{
	unsigned long wx;

	if (!nx_enabled)
		return kt_skip(t, "NX not in use: every page is executable");
	if (!kernel_set_to_readonly)
		return kt_skip(t, "rodata=off leaves the kernel image W+X");
	wx = count_wx_pages();
	if (pcibios.policy == PCIBIOS_RWX && pcibios_enabled)
		KT_EXPECT(t, wx == (BIOS_END - BIOS_BEGIN) / PAGE_SIZE,
			  "%lu W+X pages, expected the 96 of 640K-1M", wx);
	else
		KT_EXPECT(t, wx == 0, "%lu W+X pages under pci=%s", wx,
			  pcibios_policy_name(pcibios.policy));
}

/* static_protections() and the W^X refusal agree with the declared hole. */
KTEST(pcbios, cpa_respects_the_hole)
{
	unsigned long in = PAGE_OFFSET + pcibios.hole_start, out = PAGE_OFFSET + BIOS_BEGIN;

	if (!nx_enabled)
		return kt_skip(t, "NX not in use (no NX on the CPU, or noexec=off)");
	if (pcibios_enabled) {
		set_memory_nx(in, 1);
		KT_EXPECT(t, is_exec(pte_of(__pa(in))), "set_memory_nx made the hole NX");
	}
	if (pcibios_enabled && pcibios.policy == PCIBIOS_TIGHT)
		KT_EXPECT(t, set_memory_rw(in, 1) == -EPERM, "a tight hole page became W+X");
	if (!in_hole(__pa(out)))
		KT_EXPECT(t, set_memory_x(out, 1) == -EPERM && !is_exec(pte_of(__pa(out))),
			  "0x%05lx outside the declared hole became W+X", __pa(out));
}

/*
 * A witness the PCI BIOS cannot influence: does the chipset's type-1
 * configuration port latch an address (Linux: pci_check_type1())? A
 * machine without a PCI host bridge (QEMU -M isapc) has nothing at 0xCF8,
 * yet its BIOS may still answer the PCI BIOS calls.
 */
static bool has_type1_host_bridge(void)
{
	uint32_t saved = inl(0xcf8), v;

	outl(0xcf8, 0x80000000);
	v = inl(0xcf8);
	outl(0xcf8, saved);
	return v == 0x80000000;
}

KTEST(pcbios, bios_calls_work)
{
	uint32_t id = 0;
	int n;

	if (!pcibios_enabled)
		return kt_skip(t, pcibios.not_used ? pcibios.not_used : "no PCI BIOS");
	KT_EXPECT(t, pci_bios_read_config_dword(0, 0, 0, &id) == 0, "B10Ah failed");
	n = pci_bios_scan();
	if (has_type1_host_bridge()) {
		KT_EXPECT(t, (id & 0xffff) != 0xffff, "no host bridge at 00:00.0 (id %08x)", id);
		KT_EXPECT(t, n > 0, "the scan found nothing");
	} else {
		/* no PCI bus: the BIOS must say "no device", not invent one */
		KT_EXPECT(t, id == 0xffffffff, "00:00.0 reads %08x on a machine without PCI", id);
		KT_EXPECT(t, n == 0, "the scan found %d devices on a machine without PCI", n);
	}
}

KTEST(pcbios, bios_nx_oops_was_recovered)
{
	const struct fault_info *f = &pcibios.fault;

	if (pcibios.policy != PCIBIOS_NX || !pcibios.bios32_dir)
		return kt_skip(t, "only under pci=bios_nx with a BIOS32 directory");
	if (!nx_enabled)
		return kt_skip(t, "NX not in use: the BIOS call could not fault");
	KT_EXPECT(t, pcibios.faulted && !pcibios_enabled, "the BIOS call did not fault");
	KT_EXPECT(t, f->error_code & X86_PF_INSTR, "error code %x has no fetch bit", f->error_code);
	KT_EXPECT(t, f->cr2 == PAGE_OFFSET + pcibios.bios32_entry, "fault at %08lx, entry %08lx",
		  f->cr2, PAGE_OFFSET + pcibios.bios32_entry);
}
