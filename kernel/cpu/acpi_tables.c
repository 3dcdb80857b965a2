// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading ACPI's tables: the RSDP, the RSDT and the MADT (ACPI spec 5.2).
 * Pure: the firmware's bytes come in as a buffer, so the host tests feed
 * broken tables too. Nothing here trusts a length it has not checked
 * against the bytes it was given.
 */
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/acpi.h>

uint8_t acpi_checksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (n--)
		sum += *b++;
	return sum;
}

/* The RSDP sits on a 16-byte boundary; its first 20 bytes sum to 0. */
const struct acpi_rsdp *acpi_scan_rsdp(const uint8_t *area, size_t len)
{
	for (size_t off = 0; off + 20 <= len; off += 16) {
		const struct acpi_rsdp *r = (const struct acpi_rsdp *)(area + off);

		if (memcmp(r->signature, "RSD PTR ", 8) == 0 && acpi_checksum(r, 20) == 0)
			return r;
	}
	return 0;
}

int acpi_check_table(const struct acpi_sdt_header *hdr, size_t len, const char *sig,
		     char *err, size_t errlen)
{
	if (len < sizeof(*hdr)) {
		snprintf(err, errlen, "%s: only %zu bytes, less than a table header", sig, len);
		return -1;
	}
	if (memcmp(hdr->signature, sig, 4) != 0) {
		snprintf(err, errlen, "%s: signature is '%.4s'", sig, hdr->signature);
		return -1;
	}
	if (hdr->length < sizeof(*hdr) || hdr->length > len) {
		snprintf(err, errlen, "%s: length %u is not between %zu and %zu", sig,
			 hdr->length, sizeof(*hdr), len);
		return -1;
	}
	if (acpi_checksum(hdr, hdr->length) != 0) {
		snprintf(err, errlen, "%s: bad checksum", sig);
		return -1;
	}
	return 0;
}

int64_t acpi_rsdt_entry(const struct acpi_sdt_header *rsdt, unsigned i)
{
	size_t n = (rsdt->length - sizeof(*rsdt)) / 4;
	uint32_t pa;

	if (i >= n)
		return -1;
	memcpy(&pa, (const uint8_t *)(rsdt + 1) + 4 * i, 4);
	return pa;
}

/* The MADT after its header: the local APIC's 32-bit address and flags. */
struct madt_fixed {
	uint32_t lapic_address;
	uint32_t flags;
} __attribute__((packed));

static void add_cpu(struct madt_info *out, const uint8_t *e)
{
	uint32_t flags;

	memcpy(&flags, e + 4, 4);
	if (out->nr_cpus == ACPI_MAX_CPUS) {
		out->nr_dropped += flags & ACPI_MADT_ENABLED;
		return;
	}
	out->cpu[out->nr_cpus++] = (struct madt_cpu){ e[2], e[3], flags & ACPI_MADT_ENABLED };
}

int acpi_parse_madt(const struct acpi_sdt_header *madt, struct madt_info *out,
		    char *err, size_t errlen)
{
	const uint8_t *base = (const uint8_t *)madt;
	size_t off = sizeof(*madt) + sizeof(struct madt_fixed);
	struct madt_fixed fixed;

	memset(out, 0, sizeof(*out));
	if (madt->length < off) {
		snprintf(err, errlen, "MADT: length %u leaves no room for the APIC address",
			 madt->length);
		return -1;
	}
	memcpy(&fixed, base + sizeof(*madt), sizeof(fixed));
	out->lapic_address = fixed.lapic_address;
	while (off + 2 <= madt->length) {
		const uint8_t *e = base + off;
		uint8_t type = e[0], len = e[1];

		if (len < 2 || off + len > madt->length) {
			snprintf(err, errlen, "MADT: entry at offset %zu (type %u) has length %u",
				 off, type, len);
			return -1;
		}
		if (type == ACPI_MADT_TYPE_LOCAL_APIC && len >= 8) {
			add_cpu(out, e);
		} else if (type == ACPI_MADT_TYPE_LOCAL_APIC_OVERRIDE && len >= 12) {
			memcpy(&out->lapic_address, e + 4, 8);
		} else if (type == ACPI_MADT_TYPE_LOCAL_APIC || type == ACPI_MADT_TYPE_LOCAL_APIC_OVERRIDE) {
			snprintf(err, errlen, "MADT: entry at offset %zu (type %u) is too short: %u bytes",
				 off, type, len);
			return -1;
		}
		off += len;
	}
	return 0;
}
