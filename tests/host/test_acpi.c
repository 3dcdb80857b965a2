// SPDX-License-Identifier: GPL-2.0-only
/* kernel/cpu/acpi_tables.c: the RSDP scan, table checks and the MADT, good and broken. */
#include <string.h>
#include "check.h"
#include "../../kernel/cpu/acpi_tables.c"

static uint8_t buf[4096];
static char err[160];

static void fix_checksum(struct acpi_sdt_header *h)
{
	h->checksum = 0;
	h->checksum = (uint8_t)(0x100 - acpi_checksum(h, h->length));
}

/* A MADT with the given local-APIC entries (apic id, flags), as QEMU builds it. */
static struct acpi_sdt_header *madt(int n, const uint8_t (*cpus)[2])
{
	struct acpi_sdt_header *h = (struct acpi_sdt_header *)buf;
	uint8_t *p = buf + sizeof(*h);
	uint32_t lapic = 0xfee00000, flags = 1;

	memset(buf, 0, sizeof(buf));
	memcpy(h->signature, "APIC", 4);
	memcpy(p, &lapic, 4);
	memcpy(p + 4, &flags, 4);
	p += 8;
	for (int i = 0; i < n; i++, p += 8) {
		uint32_t f = cpus[i][1];

		p[0] = ACPI_MADT_TYPE_LOCAL_APIC;
		p[1] = 8;
		p[2] = (uint8_t)i;
		p[3] = cpus[i][0];
		memcpy(p + 4, &f, 4);
	}
	/* an I/O APIC entry (type 1, 12 bytes): skipped */
	p[0] = 1;
	p[1] = 12;
	p += 12;
	h->length = (uint32_t)(p - buf);
	fix_checksum(h);
	return h;
}

TEST(rsdp_found_on_a_16_byte_boundary_with_its_checksum)
{
	static uint8_t area[256];
	struct acpi_rsdp *r = (struct acpi_rsdp *)(area + 48);

	memset(area, 0, sizeof(area));
	memcpy(area + 8, "RSD PTR ", 8);		/* not aligned: ignored */
	CHECK(acpi_scan_rsdp(area, sizeof(area)) == 0);
	memcpy(r->signature, "RSD PTR ", 8);
	r->rsdt_address = 0x7fe1234;
	CHECK(acpi_scan_rsdp(area, sizeof(area)) == 0);	/* checksum wrong */
	r->checksum = (uint8_t)(0x100 - acpi_checksum(r, 20));
	CHECK(acpi_scan_rsdp(area, sizeof(area)) == r);
	CHECK(acpi_scan_rsdp(area, 48 + 19) == 0);	/* cut short */
}

TEST(madt_lists_cpus_enabled_or_not)
{
	static const uint8_t cpus[][2] = { { 0, 1 }, { 1, 1 }, { 2, 0 }, { 4, 1 } };
	struct acpi_sdt_header *h = madt(4, cpus);
	struct madt_info mi;

	CHECK_EQ(acpi_check_table(h, sizeof(buf), "APIC", err, sizeof(err)), 0);
	CHECK_EQ(acpi_parse_madt(h, &mi, err, sizeof(err)), 0);
	CHECK_EQ(mi.lapic_address, 0xfee00000);
	CHECK_EQ(mi.nr_cpus, 4);
	CHECK_EQ(mi.cpu[3].apic_id, 4);
	CHECK(mi.cpu[1].enabled && !mi.cpu[2].enabled);
}

TEST(table_checks_name_what_is_wrong)
{
	static const uint8_t cpus[][2] = { { 0, 1 } };
	struct acpi_sdt_header *h = madt(1, cpus);

	CHECK_EQ(acpi_check_table(h, 20, "APIC", err, sizeof(err)), -1);
	CHECK(strstr(err, "less than a table header"));
	CHECK_EQ(acpi_check_table(h, sizeof(buf), "FACP", err, sizeof(err)), -1);
	CHECK(strstr(err, "signature is 'APIC'"));
	CHECK_EQ(acpi_check_table(h, h->length - 1, "APIC", err, sizeof(err)), -1);
	CHECK(strstr(err, "length"));
	h->oem_revision ^= 1;
	CHECK_EQ(acpi_check_table(h, sizeof(buf), "APIC", err, sizeof(err)), -1);
	CHECK(strstr(err, "bad checksum"));
}

TEST(madt_entry_lengths_are_checked)
{
	static const uint8_t cpus[][2] = { { 0, 1 }, { 1, 1 } };
	struct acpi_sdt_header *h = madt(2, cpus);
	struct madt_info mi;

	buf[sizeof(*h) + 8 + 8 + 1] = 0;	/* the second entry: length 0 */
	CHECK_EQ(acpi_parse_madt(h, &mi, err, sizeof(err)), -1);
	CHECK(strstr(err, "offset 52 (type 0) has length 0"));
	buf[sizeof(*h) + 8 + 8 + 1] = 200;	/* runs past the table */
	CHECK_EQ(acpi_parse_madt(h, &mi, err, sizeof(err)), -1);
	buf[sizeof(*h) + 8 + 8 + 1] = 4;	/* a local APIC entry too short */
	CHECK_EQ(acpi_parse_madt(h, &mi, err, sizeof(err)), -1);
	CHECK(strstr(err, "too short"));
	h->length = sizeof(*h) + 4;
	CHECK_EQ(acpi_parse_madt(h, &mi, err, sizeof(err)), -1);
	CHECK(strstr(err, "no room for the APIC address"));
}

TEST(more_cpus_than_kept_are_counted)
{
	static uint8_t cpus[ACPI_MAX_CPUS + 3][2];
	struct madt_info mi;

	for (int i = 0; i < ACPI_MAX_CPUS + 3; i++)
		cpus[i][0] = (uint8_t)i, cpus[i][1] = 1;
	CHECK_EQ(acpi_parse_madt(madt(ACPI_MAX_CPUS + 3, (const uint8_t (*)[2])cpus), &mi, err,
				 sizeof(err)), 0);
	CHECK_EQ(mi.nr_cpus, ACPI_MAX_CPUS);
	CHECK_EQ(mi.nr_dropped, 3);
}

TEST(rsdt_entries)
{
	struct acpi_sdt_header *h = (struct acpi_sdt_header *)buf;
	uint32_t tables[] = { 0x7fe0000, 0x7fe1000 };

	memset(buf, 0, sizeof(buf));
	memcpy(h->signature, "RSDT", 4);
	memcpy(buf + sizeof(*h), tables, sizeof(tables));
	h->length = sizeof(*h) + sizeof(tables);
	fix_checksum(h);
	CHECK_EQ(acpi_check_table(h, sizeof(buf), "RSDT", err, sizeof(err)), 0);
	CHECK_EQ(acpi_rsdt_entry(h, 1), 0x7fe1000);
	CHECK_EQ(acpi_rsdt_entry(h, 2), -1);
}

int main(void)
{
	RUN(rsdp_found_on_a_16_byte_boundary_with_its_checksum);
	RUN(madt_lists_cpus_enabled_or_not);
	RUN(table_checks_name_what_is_wrong);
	RUN(madt_entry_lengths_are_checked);
	RUN(more_cpus_than_kept_are_counted);
	RUN(rsdt_entries);
	return check_done();
}
