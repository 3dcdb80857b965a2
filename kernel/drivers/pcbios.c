// SPDX-License-Identifier: GPL-2.0-only
/*
 * BIOS32 and the PCI BIOS (Linux: arch/x86/pci/pcbios.c), and the
 * executable hole at 640K-1M that seed 001 opens for them.
 *
 * The BIOS32 service directory is a 16-byte structure, signature "_32_",
 * on a 16-byte boundary in 0xE0000-0xFFFFF. Its entry, far-called with a
 * service name in EAX, says where that service lives (base, length, entry).
 * The "$PCI" service then answers B101h (installation check) and B10Ah
 * (read a configuration dword). All of it is BIOS code below 1 MiB, run
 * through the direct map, so those pages must not be NX. What the kernel
 * does about that is the policy, "pci=" on the command line:
 *
 *   bios        (default) 640K-1M RW+X, as seed 001's set_bios_x()
 *   nobios      640K-1M stays RW+NX and the BIOS is never called
 *   bios_nx     call the BIOS with the hole NX: the 2009 boot crash, as an
 *               oops the kernel recovers from
 *   bios_tight  only the BIOS32 entry's pages and the $PCI service's
 *               declared range RO+X, the rest of 640K-1M RW+NX
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/cmdline.h>
#include <ronx/traps.h>
#include <ronx/mm.h>
#include <ronx/pageattr.h>
#include <ronx/recovery.h>
#include <ronx/pcbios.h>

#define BIOS32_SIGNATURE	(('_' << 0) + ('3' << 8) + ('2' << 16) + ('_' << 24))
#define PCI_SIGNATURE		(('P' << 0) + ('C' << 8) + ('I' << 16) + (' ' << 24))
#define PCI_SERVICE		(('$' << 0) + ('P' << 8) + ('C' << 16) + ('I' << 24))

#define PCIBIOS_PCI_BIOS_PRESENT	0xb101
#define PCIBIOS_READ_CONFIG_DWORD	0xb10a

/* Where the BIOS32 directory may be (BIOS32 specification 0.4). */
#define BIOS32_SCAN_BEGIN	0xe0000UL
#define BIOS32_SCAN_END		0x100000UL

union bios32 {
	struct {
		uint32_t signature;
		uint32_t entry;		/* physical */
		uint8_t revision;
		uint8_t length;		/* in 16-byte paragraphs */
		uint8_t checksum;
		uint8_t reserved[5];
	} fields;
	uint8_t bytes[16];
};

struct pcibios_info pcibios __ro_after_init;

/* lcall operands: the flat kernel code segment, the direct-map address. */
static struct bios32_far_ptr bios32_indirect __ro_after_init = { 0, KERNEL_CS };
static struct bios32_far_ptr pci_indirect __ro_after_init = { 0, KERNEL_CS };

static const char *const policy_names[] = {
	[PCIBIOS_RWX] = "bios",
	[PCIBIOS_OFF] = "nobios",
	[PCIBIOS_NX] = "bios_nx",
	[PCIBIOS_TIGHT] = "bios_tight",
};

const char *pcibios_policy_name(enum pcibios_policy policy)
{
	return policy_names[policy];
}

static int __init pci_setup(const char *val)
{
	for (unsigned i = 0; val && i < ARRAY_SIZE(policy_names); i++) {
		if (strcmp(val, policy_names[i]) == 0) {
			pcibios.policy = i;
			return 0;
		}
	}
	return -EINVAL;
}
BOOT_PARAM("pci", pci_setup, "bios|nobios|bios_nx|bios_tight");

/* A real directory, not four bytes that happen to spell "_32_"? */
static bool __init bios32_valid(const union bios32 *d, unsigned long pa)
{
	unsigned long len = d->fields.length * 16UL;
	uint8_t sum = 0;

	if (d->fields.signature != BIOS32_SIGNATURE || !len || pa + len > BIOS32_SCAN_END)
		return false;
	for (unsigned long i = 0; i < len; i++)
		sum += d->bytes[i];
	if (sum)
		return false;
	if (d->fields.revision != 0 || d->fields.length != 1) {
		pr_warn("PCI: unsupported BIOS32 revision %u length %u at 0x%05lx\n",
			d->fields.revision, d->fields.length, pa);
		return false;
	}
	return true;
}

/* Physical address of the BIOS32 service directory, or 0. */
static unsigned long __init bios32_find_directory(void)
{
	for (unsigned long pa = BIOS32_SCAN_BEGIN; pa < BIOS32_SCAN_END; pa += 16)
		if (bios32_valid(__va(pa), pa))
			return pa;
	return 0;
}

/* Asks the directory where a service lives: 0, or -ENOENT. */
static int __init bios32_service(uint32_t service)
{
	struct bios32_regs r = { .eax = service, .ebx = 0 };

	bios32_call(&r, &bios32_indirect);
	if ((r.eax & 0xff) == 0x80) {
		pr_warn("bios32_service(0x%08x): not present\n", service);
		return -ENOENT;
	}
	if (r.eax & 0xff) {
		pr_warn("bios32_service(0x%08x): returned 0x%02x -- BIOS bug!\n",
			service, r.eax & 0xff);
		return -ENOENT;
	}
	if (r.ebx + r.edx >= BIOS_END) {
		pr_warn("PCI: PCI BIOS entry 0x%08x above 1 MiB, cannot use\n", r.ebx + r.edx);
		return -ENOENT;
	}
	pcibios.service_base = r.ebx;
	pcibios.service_len = r.ecx;
	pcibios.pci_entry = r.ebx + r.edx;
	pci_indirect.address = PAGE_OFFSET + pcibios.pci_entry;
	return 0;
}

/* B101h: is there a PCI BIOS, which version, how many buses? */
static int __init check_pcibios(void)
{
	struct bios32_regs r = { .eax = PCIBIOS_PCI_BIOS_PRESENT };
	int cf = bios32_call(&r, &pci_indirect);
	unsigned status = (r.eax >> 8) & 0xff;

	if (cf || status || r.edx != PCI_SIGNATURE) {
		pr_warn("PCI: PCI BIOS installation check failed (status 0x%02x, signature 0x%08x)\n",
			status, r.edx);
		return -ENODEV;
	}
	pcibios.hw_mechanism = r.eax & 0xff;
	pcibios.major = (r.ebx >> 8) & 0xff;
	pcibios.minor = r.ebx & 0xff;
	pcibios.last_bus = r.ecx & 0xff;
	pr_info("PCI: PCI BIOS revision %x.%02x entry at 0x%lx, last bus=%u\n",
		pcibios.major, pcibios.minor, pcibios.pci_entry, pcibios.last_bus);
	return 0;
}

/* B10Ah: one configuration dword, through the BIOS. */
int pci_bios_read_config_dword(unsigned bus, unsigned devfn, unsigned reg, uint32_t *val)
{
	struct bios32_regs r = {
		.eax = PCIBIOS_READ_CONFIG_DWORD,
		.ebx = (bus & 0xff) << 8 | (devfn & 0xff),
		.edi = reg & 0xfc,
	};

	if (!pcibios_enabled)
		return -ENODEV;
	if (bios32_call(&r, &pci_indirect) || ((r.eax >> 8) & 0xff))
		return -EIO;
	*val = r.ecx;
	return 0;
}

/*
 * Seed 001's set_bios_x(). The seed's message says "aera"; ronx spells
 * "area" and otherwise prints Linux's line.
 */
static void __init set_bios_x(void)
{
	pcibios_enabled = true;
	set_memory_x(PAGE_OFFSET + BIOS_BEGIN, (int)((BIOS_END - BIOS_BEGIN) >> PAGE_SHIFT));
	pcibios.hole_start = BIOS_BEGIN;
	pcibios.hole_end = BIOS_END;
	if (nx_enabled)
		pr_info("PCI : PCI BIOS area is rw and x. Use pci=nobios if you want it NX.\n");
}

/*
 * pci=bios_tight: the physical range [start, end) becomes read-only and
 * executable and joins the declared hole (which grows to cover it). The
 * hole is made read-only before it is made executable, so no page is ever
 * W+X on the way.
 */
static void __init set_bios_rox(unsigned long start, unsigned long end)
{
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	if (start < BIOS_BEGIN)
		start = BIOS_BEGIN;
	if (end > BIOS_END)
		end = BIOS_END;
	if (pcibios.hole_end) {
		start = start < pcibios.hole_start ? start : pcibios.hole_start;
		end = end > pcibios.hole_end ? end : pcibios.hole_end;
	}
	pcibios.hole_start = start;
	pcibios.hole_end = end;
	declare_bios_hole(PAGE_OFFSET + start, PAGE_OFFSET + end, false);
	pcibios_enabled = true;
	set_memory_ro(PAGE_OFFSET + start, (int)((end - start) >> PAGE_SHIFT));
	set_memory_x(PAGE_OFFSET + start, (int)((end - start) >> PAGE_SHIFT));
}

/* Back to the picture without a PCI BIOS: the whole hole RW+NX. */
static void __init clear_bios_hole(void)
{
	unsigned long va = PAGE_OFFSET + BIOS_BEGIN;
	int n = (int)((BIOS_END - BIOS_BEGIN) >> PAGE_SHIFT);

	pcibios_enabled = false;
	set_memory_nx(va, n);
	set_memory_rw(va, n);
	declare_bios_hole(va, PAGE_OFFSET + BIOS_END, true);
	pcibios.hole_start = pcibios.hole_end = 0;
}

/* Opens the hole the policy asks for before the first BIOS call. */
static void __init open_bios_hole(void)
{
	/* the BIOS32 specification: the entry's page and the next one */
	unsigned long entry_page = ALIGN_DOWN(pcibios.bios32_entry, PAGE_SIZE);

	switch (pcibios.policy) {
	case PCIBIOS_RWX:
		set_bios_x();
		break;
	case PCIBIOS_TIGHT:
		set_bios_rox(entry_page, entry_page + 2 * PAGE_SIZE);
		break;
	case PCIBIOS_NX:
		pr_notice("PCI: pci=bios_nx: calling the PCI BIOS with 640K-1M NX, as Linux did in 2009\n");
		break;
	case PCIBIOS_OFF:
		break;
	}
}

/* Every call that executes BIOS code, in order. */
static int __init pci_find_bios(void)
{
	int ret = bios32_service(PCI_SERVICE);

	if (ret)
		return ret;
	if (pcibios.policy == PCIBIOS_TIGHT)
		set_bios_rox(pcibios.service_base, pcibios.service_base + pcibios.service_len);
	ret = check_pcibios();
	if (ret)
		return ret;
	/* a BIOS call that worked with the hole NX: a CPU without NX */
	pcibios_enabled = true;
	return pci_bios_scan() < 0 ? -EIO : 0;
}

static void __init explain_fault(void)
{
	const struct fault_info *f = &pcibios.fault;

	if (f->vector == X86_TRAP_PF && (f->error_code & X86_PF_INSTR) &&
	    f->cr2 >= PAGE_OFFSET + BIOS_BEGIN && f->cr2 < PAGE_OFFSET + BIOS_END)
		pr_err("ronx: the oops above is the PCI BIOS call into NX-protected 640K-1M (pci=%s): the 2009 boot crash; seed 001's set_bios_x() makes the hole executable. Booting on without the PCI BIOS.\n",
		       pcibios_policy_name(pcibios.policy));
	else
		pr_err("ronx: the oops above happened inside the PCI BIOS (pci=%s). Booting on without the PCI BIOS.\n",
		       pcibios_policy_name(pcibios.policy));
}

/*
 * The BIOS calls run under a loud recovery: if one faults (pci=bios_nx
 * does it on purpose) the oops is printed and we come back here.
 */
static int __init pcibios_probe(void)
{
	struct recovery r;
	int ret;

	if (catch_faults(&r, false)) {
		pcibios.faulted = true;
		pcibios.fault = r.fault;
		explain_fault();
		return -EFAULT;
	}
	ret = pci_find_bios();
	recovery_pop(&r);
	return ret;
}

void __init pcibios_init(void)
{
	union bios32 *dir;

	if (pcibios.policy == PCIBIOS_OFF) {
		pcibios.not_used = "disabled by pci=nobios";
		pr_info("PCI: pci=nobios: the PCI BIOS is not used, 640K-1M stays NX\n");
		return;
	}
	pcibios.bios32_dir = bios32_find_directory();
	if (!pcibios.bios32_dir) {
		pcibios.not_used = "no BIOS32 service directory in 0xe0000-0xfffff";
		pr_info("PCI: no BIOS32 service directory found, 640K-1M stays NX\n");
		return;
	}
	dir = __va(pcibios.bios32_dir);
	pcibios.bios32_entry = dir->fields.entry;
	bios32_indirect.address = PAGE_OFFSET + pcibios.bios32_entry;
	pr_info("PCI: BIOS32 Service Directory structure at 0x%05lx, entry at 0x%05lx\n",
		pcibios.bios32_dir, pcibios.bios32_entry);
	open_bios_hole();
	if (pcibios_probe()) {
		pcibios.not_used = pcibios.faulted ?
			"the BIOS call faulted at boot (see the oops in dmesg)" :
			"the PCI BIOS did not answer";
		clear_bios_hole();
		return;
	}
	/* SeaBIOS answers the PCI BIOS even on an ISA-only machine: say so */
	if (pci_bios_scan() == 0)
		pr_info("PCI: the PCI BIOS answers, but no device is on bus 0-%u: no PCI bus on this machine\n",
			pcibios.last_bus);
	if (pcibios.policy == PCIBIOS_TIGHT && nx_enabled)
		pr_info("PCI : PCI BIOS code at 0x%05lx-0x%05lx is ro and x, the rest of 640K-1M rw and NX (pci=bios_tight)\n",
			pcibios.hole_start, pcibios.hole_end);
}
