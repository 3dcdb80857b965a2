/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of ACPI ronx reads: where the CPUs are (Linux:
 * arch/x86/kernel/acpi/boot.c). The firmware leaves a Root System
 * Description Pointer ("RSD PTR ") in the EBDA or in 0xE0000-0xFFFFF; it
 * points to the RSDT, a list of tables, one of which is the MADT
 * (signature "APIC"): the local APIC's address and one entry per CPU.
 *
 * The parsing is pure (kernel/cpu/acpi_tables.c, host-tested with broken
 * tables); kernel/cpu/acpi.c finds and maps the tables.
 */
#ifndef RONX_ACPI_H
#define RONX_ACPI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_MAX_CPUS	32	/* MADT entries kept; more are counted, not kept */

struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* of the first 20 bytes */
	char oem_id[6];
	uint8_t revision;		/* 0: ACPI 1.0 (RSDT only), 2: XSDT too */
	uint32_t rsdt_address;
	uint32_t length;		/* revision 2 only, from here on */
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

#define ACPI_MADT_TYPE_LOCAL_APIC		0
#define ACPI_MADT_TYPE_LOCAL_APIC_OVERRIDE	5
#define ACPI_MADT_ENABLED			1	/* flags bit 0 */

struct madt_cpu {
	uint8_t acpi_id;
	uint8_t apic_id;
	bool enabled;
};

struct madt_info {
	uint64_t lapic_address;
	int nr_cpus;			/* entries kept in cpu[] */
	int nr_dropped;			/* enabled CPUs beyond ACPI_MAX_CPUS */
	struct madt_cpu cpu[ACPI_MAX_CPUS];
};

/* 0 if the n bytes at p sum to 0 (mod 256), as every ACPI table must. */
uint8_t acpi_checksum(const void *p, size_t n);

/* The RSDP in [area, area + len) (16-byte aligned, valid checksum), or NULL. */
const struct acpi_rsdp *acpi_scan_rsdp(const uint8_t *area, size_t len);

/*
 * Checks a table's header against its signature and the bytes available
 * (len: how many bytes at hdr can be read). 0, or -1 with one line in err
 * naming what is wrong (for the boot log).
 */
int acpi_check_table(const struct acpi_sdt_header *hdr, size_t len, const char *sig,
		     char *err, size_t errlen);

/* Entry i of a checked RSDT (32-bit pointers); -1 past its end. */
int64_t acpi_rsdt_entry(const struct acpi_sdt_header *rsdt, unsigned i);

/* Parses a checked MADT into out; 0, or -1 with err naming the bad entry. */
int acpi_parse_madt(const struct acpi_sdt_header *madt, struct madt_info *out,
		    char *err, size_t errlen);

/* kernel/cpu/acpi.c */
int acpi_find_madt(struct madt_info *out);
#endif
