/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PCI BIOS through its 32-bit protected-mode interface (Linux:
 * arch/x86/pci/pcbios.c), and the policy for the 640K-1M hole it needs.
 */
#ifndef RONX_PCBIOS_H
#define RONX_PCBIOS_H
#include <stdbool.h>
#include <stdint.h>
#include <ronx/recovery.h>

/* pci=bios|nobios|bios_nx|bios_tight */
enum pcibios_policy {
	PCIBIOS_RWX,	/* the seed: 640K-1M RW+X while the PCI BIOS is used */
	PCIBIOS_OFF,	/* pci=nobios: the hole stays NX, the BIOS is not called */
	PCIBIOS_NX,	/* pci=bios_nx: call it with the hole NX (the 2009 crash) */
	PCIBIOS_TIGHT,	/* pci=bios_tight: only the BIOS code pages RO+X */
};

/* Registers in and out of a BIOS call (boot/bios32.asm knows the order). */
struct bios32_regs {
	uint32_t eax, ebx, ecx, edx, esi, edi;
};

/* The operand of a 32-bit lcall: offset, then selector. */
struct bios32_far_ptr {
	uint32_t address;
	uint16_t segment;
};

int bios32_call(struct bios32_regs *regs, const struct bios32_far_ptr *entry);

/* What pcibios_init() found and did; lspci and the self-tests read it. */
struct pcibios_info {
	enum pcibios_policy policy;
	unsigned long bios32_dir;	/* physical address of "_32_", 0 if none */
	unsigned long bios32_entry;	/* physical */
	unsigned long pci_entry;	/* physical entry of the $PCI service */
	unsigned long service_base, service_len;
	uint8_t hw_mechanism, major, minor, last_bus;
	unsigned long hole_start, hole_end;	/* executable range, physical */
	bool faulted;			/* the boot-time call oopsed */
	struct fault_info fault;
	const char *not_used;		/* why the PCI BIOS is not in use */
};
extern struct pcibios_info pcibios;

void pcibios_init(void);
int pci_bios_read_config_dword(unsigned bus, unsigned devfn, unsigned reg, uint32_t *val);
const char *pcibios_policy_name(enum pcibios_policy policy);

/* kernel/drivers/pci.c: the devices the PCI BIOS reports. */
struct pci_device {
	uint8_t bus, devfn;
	uint16_t vendor, device;
	uint32_t class_rev;	/* class, subclass, prog-if, revision */
};
#define PCI_MAX_DEVICES	64
extern struct pci_device pci_devices[PCI_MAX_DEVICES];
extern int nr_pci_devices;
int pci_bios_scan(void);

#define PCI_SLOT(devfn)	(((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn)	((devfn) & 0x07)
#define PCI_DEVFN(slot, fn) ((((slot) & 0x1f) << 3) | ((fn) & 0x07))
#endif
