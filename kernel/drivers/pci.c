// SPDX-License-Identifier: GPL-2.0-only
/*
 * The PCI devices as the PCI BIOS reports them, and shell "lspci".
 * Configuration space is read only through the BIOS (B10Ah, in
 * kernel/drivers/pcbios.c), never with ports 0xCF8/0xCFC directly: the point is
 * to show that the BIOS code in 640K-1M really runs.
 */
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/pageattr.h>
#include <ronx/shell.h>
#include <ronx/pcbios.h>

#define PCI_VENDOR_ID		0x00	/* vendor, device << 16 */
#define PCI_CLASS_REVISION	0x08	/* class << 8 | revision */
#define PCI_HEADER_TYPE_DWORD	0x0c	/* header type in bits 23-16 */
#define PCI_HEADER_MULTIFUNC	0x80

struct pci_device pci_devices[PCI_MAX_DEVICES];
int nr_pci_devices;

/* 1 if a device answered at bus:devfn (filled in *d), 0 if none, <0 on error. */
static int pci_read_function(unsigned bus, unsigned devfn, struct pci_device *d)
{
	uint32_t id, class_rev;
	int ret = pci_bios_read_config_dword(bus, devfn, PCI_VENDOR_ID, &id);

	if (ret)
		return ret;
	if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
		return 0;
	ret = pci_bios_read_config_dword(bus, devfn, PCI_CLASS_REVISION, &class_rev);
	if (ret)
		return ret;
	*d = (struct pci_device){ bus, devfn, id & 0xffff, id >> 16, class_rev };
	return 1;
}

static bool is_multifunction(unsigned bus, unsigned slot)
{
	uint32_t v;

	return pci_bios_read_config_dword(bus, PCI_DEVFN(slot, 0), PCI_HEADER_TYPE_DWORD, &v) == 0 &&
	       ((v >> 16) & PCI_HEADER_MULTIFUNC);
}

/* Adds the functions of one slot to the list; <0 on a BIOS error. */
static int pci_scan_slot(unsigned bus, unsigned slot, int *n)
{
	int nfn = is_multifunction(bus, slot) ? 8 : 1;

	for (int fn = 0; fn < nfn; fn++) {
		struct pci_device d;
		int ret = pci_read_function(bus, PCI_DEVFN(slot, fn), &d);

		if (ret < 0)
			return ret;
		if (ret == 0 && fn == 0)
			return 0;	/* nothing in this slot */
		if (ret && *n < PCI_MAX_DEVICES)
			pci_devices[(*n)++] = d;
	}
	return 0;
}

/* Reads every bus up to the BIOS's last bus; the number of devices, or <0. */
int pci_bios_scan(void)
{
	int n = 0;

	for (unsigned bus = 0; bus <= pcibios.last_bus; bus++) {
		for (unsigned slot = 0; slot < 32; slot++) {
			int ret = pci_scan_slot(bus, slot, &n);

			if (ret < 0)
				return ret;
		}
	}
	nr_pci_devices = n;
	return n;
}

static const struct { uint16_t class; const char *name; } class_names[] = {
	{ 0x0101, "IDE interface" },
	{ 0x0200, "Ethernet controller" },
	{ 0x0300, "VGA compatible controller" },
	{ 0x0600, "Host bridge" },
	{ 0x0601, "ISA bridge" },
	{ 0x0604, "PCI bridge" },
	{ 0x0680, "Bridge" },
	{ 0x0c03, "USB controller" },	/* Bochs's PIIX3 UHCI */
};

static const char *class_name(uint16_t class)
{
	for (unsigned i = 0; i < ARRAY_SIZE(class_names); i++)
		if (class_names[i].class == class)
			return class_names[i].name;
	return "";
}

static int cmd_lspci(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (!pcibios_enabled) {
		cprintf("lspci: no PCI BIOS in use (pci=%s): %s\n",
			pcibios_policy_name(pcibios.policy),
			pcibios.not_used ? pcibios.not_used : "not found");
		return 0;
	}
	if (pci_bios_scan() < 0) {
		cprintf("lspci: the PCI BIOS could not read configuration space\n");
		return -EIO;
	}
	cprintf("lspci: read through the PCI BIOS %x.%02x via BIOS32 at 0x%05lx ($PCI entry 0x%05lx), pci=%s\n",
		pcibios.major, pcibios.minor, pcibios.bios32_entry, pcibios.pci_entry,
		pcibios_policy_name(pcibios.policy));
	if (nr_pci_devices == 0)
		cprintf("lspci: no devices: the PCI BIOS answers, but this machine has no PCI bus\n");
	for (int i = 0; i < nr_pci_devices; i++) {
		const struct pci_device *d = &pci_devices[i];
		uint16_t class = d->class_rev >> 16;

		cprintf("%02x:%02x.%u %04x:%04x class %04x (rev %02x) %s\n", d->bus,
			PCI_SLOT(d->devfn), PCI_FUNC(d->devfn), d->vendor, d->device,
			class, d->class_rev & 0xff, class_name(class));
	}
	return 0;
}
SHELL_COMMAND("lspci", cmd_lspci, "lspci", "list PCI devices, read through the PCI BIOS");
