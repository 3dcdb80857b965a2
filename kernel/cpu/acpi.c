// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding the MADT (Linux: acpi_boot_table_init() and acpi_parse_madt()).
 * The RSDP is in the first KiB of the EBDA or in the BIOS area
 * 0xE0000-0xFFFFF, both in the direct map; the RSDT and the MADT may be
 * anywhere below 4 GiB, often near the top of RAM, so they are looked at
 * through early_memremap(). The checks are kernel/cpu/acpi_tables.c's.
 *
 * Why the MADT and not Intel's older MP table: QEMU's pc and q35 machines
 * and Bochs's BIOS all have one, it is what Linux reads first, and a
 * machine without ACPI (QEMU -M isapc) has one CPU anyway.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/ioremap.h>
#include <ronx/acpi.h>

#define BDA_EBDA_SEGMENT	0x40E	/* where the BIOS keeps the EBDA's segment */

static const struct acpi_rsdp *find_rsdp(void)
{
	unsigned long ebda = (unsigned long)*(const uint16_t *)__va(BDA_EBDA_SEGMENT) << 4;
	const struct acpi_rsdp *r = 0;

	if (ebda >= 0x80000 && ebda < BIOS_BEGIN)
		r = acpi_scan_rsdp(__va(ebda), 1024);
	if (!r)
		r = acpi_scan_rsdp(__va(0xE0000), 0x20000);
	return r;
}

/* Maps the table at phys whole (its header says how long), checked; or NULL. */
static const struct acpi_sdt_header *map_table(uint64_t phys, const char *sig,
					       unsigned long *mapped)
{
	const struct acpi_sdt_header *h = early_memremap(phys, sizeof(*h));
	uint32_t len;
	char err[96];

	if (!h) {
		pr_warn("ACPI: %s at %#llx cannot be mapped\n", sig, (unsigned long long)phys);
		return 0;
	}
	len = h->length;
	early_memunmap((void *)h, sizeof(*h));
	h = len >= sizeof(*h) ? early_memremap(phys, len) : 0;
	if (!h || acpi_check_table(h, len, sig, err, sizeof(err))) {
		pr_warn("ACPI: %s\n", h ? err : "a table's length is wrong or too big to map");
		if (h)
			early_memunmap((void *)h, len);
		return 0;
	}
	*mapped = len;
	return h;
}

/* The RSDT's table addresses (ACPI 1.0's list; enough for the MADT). */
static int read_rsdt(uint64_t phys, uint32_t *tables, int max)
{
	unsigned long len;
	const struct acpi_sdt_header *rsdt = map_table(phys, "RSDT", &len);
	int64_t pa;
	int n = 0;

	if (!rsdt)
		return 0;
	while (n < max && (pa = acpi_rsdt_entry(rsdt, (unsigned)n)) >= 0)
		tables[n++] = (uint32_t)pa;
	early_memunmap((void *)rsdt, len);
	return n;
}

static bool is_madt(uint64_t phys)
{
	const struct acpi_sdt_header *h = early_memremap(phys, sizeof(*h));
	bool yes = h && memcmp(h->signature, "APIC", 4) == 0;

	if (h)
		early_memunmap((void *)h, sizeof(*h));
	return yes;
}

/* The MADT named in the RSDT, parsed into out: 0, or -ENODEV with the reason logged. */
int acpi_find_madt(struct madt_info *out)
{
	const struct acpi_rsdp *rsdp = find_rsdp();
	const struct acpi_sdt_header *madt = 0;
	uint32_t tables[32];
	unsigned long len = 0;
	char err[96];
	int n, ret = -ENODEV;

	if (!rsdp) {
		pr_info("ACPI: no RSDP in the EBDA or at 0xe0000-0xfffff: no ACPI tables\n");
		return -ENODEV;
	}
	n = read_rsdt(rsdp->rsdt_address, tables, ARRAY_SIZE(tables));
	for (int i = 0; i < n && !madt; i++)
		if (is_madt(tables[i]))
			madt = map_table(tables[i], "APIC", &len);
	if (!madt) {
		pr_info("ACPI: no MADT: the CPUs are not listed\n");
		return -ENODEV;
	}
	if (acpi_parse_madt(madt, out, err, sizeof(err)) == 0)
		ret = 0;
	else
		pr_warn("ACPI: %s\n", err);
	early_memunmap((void *)madt, len);
	return ret;
}
