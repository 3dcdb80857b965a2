// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_elf_check.c - elf_check() accepts the sample modules and refuses
 * every broken object with its own message, and no mangled input makes it
 * read outside the file. Run from the repository root after
 * `make modules broken-modules`.
 */
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "check.h"
#include "hostload.h"

static const char *const samples[] = { "hello", "provider", "user", "big", "patchme" };

/* Only the kernel can refuse these: they need the loaded-module list. */
static bool kernel_only(const char *name)
{
	return strcmp(name, "dup_hello") == 0;
}

static void *load_sample(const char *name, size_t *size)
{
	char path[128];

	snprintf(path, sizeof(path), "build/modules/%s.ko", name);
	return host_read_file(path, size);
}

/* Check a copy of exactly SIZE bytes (so ASan sees any overread). */
static int check_bytes(const void *data, size_t size, char *err, size_t errlen)
{
	struct errmsg e = { err, errlen };
	struct elf_image img;
	void *copy = malloc(size ? size : 1);
	int ret;

	memcpy(copy, data, size);
	err[0] = '\0';
	ret = elf_check(&img, copy, size, &e);
	free(copy);
	return ret;
}

TEST(samples_are_accepted)
{
	char err[160];
	size_t i, size;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		void *data = load_sample(samples[i], &size);
		struct errmsg e = { err, sizeof(err) };
		struct elf_image img;

		CHECK(data != NULL);
		if (!data)
			continue;
		err[0] = '\0';
		CHECK_EQ(elf_check(&img, data, size, &e), 0);
		if (err[0])
			printf("# %s: %s\n", samples[i], err);
		CHECK(img.init_sym != 0);
		CHECK(elf_modinfo(&img, "name") && strcmp(elf_modinfo(&img, "name"), samples[i]) == 0);
		CHECK(elf_modinfo(&img, "license") && strcmp(elf_modinfo(&img, "license"), "GPL") == 0);
		CHECK(elf_modinfo(&img, "nonesuch") == NULL);
		free(data);
	}
}

TEST(hello_has_exit_and_sections)
{
	size_t size;
	void *data = load_sample("hello", &size);
	char err[160];
	struct errmsg e = { err, sizeof(err) };
	struct elf_image img;

	CHECK(data && elf_check(&img, data, size, &e) == 0);
	if (!data)
		return;
	CHECK(img.exit_sym != 0);
	CHECK(strcmp(elf_symbol_name(&img, img.init_sym), "init_module") == 0);
	CHECK(elf_find_section(&img, ".init.text") != 0);
	CHECK(elf_find_section(&img, ".data..ro_after_init") != 0);
	CHECK(elf_find_section(&img, ".nonesuch") == 0);
	free(data);
}

/* Each line of EXPECTED: the object must be refused with that substring. */
static void check_broken(const char *name, const char *expected)
{
	char path[160];
	size_t size;
	void *data;
	struct host_module m;
	int ret;

	snprintf(path, sizeof(path), "build/modules/broken/%s.ko", name);
	data = host_read_file(path, &size);
	CHECK(data != NULL);
	if (!data)
		return;
	ret = host_load(&m, data, size, true, host_lookup, 1u << 24);
	if (kernel_only(name)) {
		CHECK_EQ(ret, 0);
		CHECK(elf_modinfo(&m.img, "name") && strcmp(elf_modinfo(&m.img, "name"), "hello") == 0);
	} else if (ret == 0 || !strstr(m.err, expected)) {
		printf("# %s: got \"%s\", expected \"%s\"\n", name, ret ? m.err : "(accepted)",
		       expected);
		check_failed = 1;
	}
	host_unload(&m);
	free(data);
}

TEST(broken_objects_are_refused_with_their_error)
{
	FILE *f = fopen("build/modules/broken/EXPECTED", "r");
	char line[256];
	int n = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		tab[strcspn(tab + 1, "\n") + 1] = '\0';
		check_broken(line, tab + 1);
		n++;
	}
	fclose(f);
	CHECK(n >= 13);
}

/* Take hello, change one section header field, return elf_check()'s verdict. */
static int mangle_section(const char *section, size_t field, uint32_t value, char *err)
{
	size_t size;
	uint8_t *data = load_sample("hello", &size);
	struct errmsg e = { err, 160 };
	struct elf_image img;
	Elf32_Shdr *sh;
	int ret;

	if (!data || elf_check(&img, data, size, &e))
		return 0;
	sh = (Elf32_Shdr *)(data + img.ehdr->e_shoff) + elf_find_section(&img, section);
	((uint32_t *)sh)[field] = value;
	ret = check_bytes(data, size, err, 160);
	free(data);
	return ret;
}

#define F_OFFSET 4
#define F_SIZE	 5
#define F_LINK	 6
#define F_INFO	 7
#define F_ALIGN	 8
#define F_ENTSZ	 9

TEST(section_sums_do_not_wrap)
{
	char err[160];

	/* 0xfffffff0 + 0x20 wraps to 0x10 in 32 bits */
	CHECK_EQ(mangle_section(".text", F_OFFSET, 0xfffffff0u, err), -1);
	CHECK(strstr(err, "beyond file"));
	CHECK_EQ(mangle_section(".text", F_SIZE, 0xffffffffu, err), -1);
	CHECK(strstr(err, "beyond file"));
	CHECK_EQ(mangle_section(".symtab", F_SIZE, 0xfffffff0u, err), -1);
	CHECK(strstr(err, "beyond file"));
}

TEST(section_fields_are_checked)
{
	char err[160];

	CHECK_EQ(mangle_section(".text", F_ALIGN, 3, err), -1);
	CHECK(strstr(err, "not a power of two"));
	CHECK_EQ(mangle_section(".data", F_ALIGN, 8192, err), -1);
	CHECK(strstr(err, "more than a page"));
	CHECK_EQ(mangle_section(".symtab", F_ENTSZ, 12, err), -1);
	CHECK(strstr(err, "symbol table entry size"));
	CHECK_EQ(mangle_section(".symtab", F_LINK, 999, err), -1);
	CHECK(strstr(err, "string table index 999 out of range"));
	CHECK_EQ(mangle_section(".rel.text", F_LINK, 1, err), -1);
	CHECK(strstr(err, "not the symbol table"));
	CHECK_EQ(mangle_section(".rel.text", F_INFO, 999, err), -1);
	CHECK(strstr(err, "target section 999 out of range"));
	CHECK_EQ(mangle_section(".rel.text", F_INFO, 12, err), -1);	/* .bss */
	CHECK(strstr(err, "holds no code or data"));
	CHECK_EQ(mangle_section(".rel.text", F_ENTSZ, 12, err), -1);
	CHECK(strstr(err, "8-byte relocations"));
	CHECK_EQ(mangle_section(".rel.text", F_OFFSET, 0x41, err), -1);
	CHECK(err[0] != '\0');
	/* a NOBITS section may claim any size without touching the file */
	CHECK_EQ(mangle_section(".bss", F_OFFSET, 0xfffffff0u, err), 0);
}

/* Change symbol SYM (by name) field-wise and check. */
static int mangle_symbol(const char *sym, size_t field, uint32_t value, char *err)
{
	size_t size;
	uint8_t *data = load_sample("hello", &size);
	struct errmsg e = { err, 160 };
	struct elf_image img;
	unsigned int i;
	int ret;

	if (!data || elf_check(&img, data, size, &e))
		return 0;
	for (i = 1; i < img.nsyms; i++)
		if (strcmp(elf_symbol_name(&img, i), sym) == 0)
			break;
	if (field == 0)
		((Elf32_Sym *)img.syms)[i].st_name = value;
	else if (field == 1)
		((Elf32_Sym *)img.syms)[i].st_value = value;
	else
		((Elf32_Sym *)img.syms)[i].st_shndx = value;
	ret = check_bytes(data, size, err, 160);
	free(data);
	return ret;
}

TEST(symbols_are_checked)
{
	char err[160];

	CHECK_EQ(mangle_symbol("hello_calls", 0, 0x7fffffff, err), -1);
	CHECK(strstr(err, "name offset 0x7fffffff beyond string table"));
	CHECK_EQ(mangle_symbol("hello_calls", 2, 200, err), -1);
	CHECK(strstr(err, "section index 200 out of range"));
	CHECK_EQ(mangle_symbol("hello_calls", 2, SHN_COMMON, err), -1);
	CHECK(strstr(err, "hello_calls is COMMON"));
	CHECK_EQ(mangle_symbol("hello_calls", 1, 0x1000, err), -1);
	CHECK(strstr(err, "hello_calls value 0x1000 beyond section .bss (size 0x4)"));
	CHECK_EQ(mangle_symbol("init_module", 2, SHN_ABS, err), -1);
	CHECK(strstr(err, "init_module is not in executable code"));
}

/* Found by the fuzzer: an SHT_NULL header's offset and size are never used. */
TEST(inactive_sections_are_not_read)
{
	size_t size;
	uint8_t *data = load_sample("hello", &size);
	char err[160];
	struct errmsg e = { err, sizeof(err) };
	struct elf_image img;
	struct mod_layout lay;
	uint32_t place[64];
	Elf32_Shdr *sh;

	CHECK(data && elf_check(&img, data, size, &e) == 0);
	if (!data)
		return;
	sh = (Elf32_Shdr *)img.shdrs;
	sh[elf_find_section(&img, ".modinfo")].sh_type = SHT_NULL;
	sh[elf_find_section(&img, ".modinfo")].sh_offset = 0x7ffffff0;
	sh[elf_find_section(&img, ".data")].sh_type = SHT_NULL;
	sh[elf_find_section(&img, ".data")].sh_offset = 0x7ffffff0;
	CHECK_EQ(check_bytes(data, size, err, sizeof(err)), 0);
	CHECK(elf_modinfo(&img, "name") == NULL);
	CHECK_EQ(layout_sections(&img, true, place, &lay, &e), 0);
	CHECK_EQ(place[elf_find_section(&img, ".data")], SEC_NOT_LOADED);
	free(data);
}

TEST(header_fields_are_checked)
{
	size_t size;
	uint8_t *data = load_sample("hello", &size);
	char err[160];
	Elf32_Ehdr *h = (Elf32_Ehdr *)data;
	Elf32_Ehdr good;

	CHECK(data != NULL);
	if (!data)
		return;
	good = *h;
	h->e_ident[EI_DATA] = 2;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "not little-endian"));
	*h = good;
	h->e_shentsize = 64;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "section header size 64"));
	*h = good;
	h->e_shnum = 2000;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "2000 sections"));
	*h = good;
	h->e_shnum = 200;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "beyond file"));
	*h = good;
	h->e_shoff = 0xfffffff0u;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "beyond file"));
	*h = good;
	h->e_shoff += 2;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "not 4-byte aligned"));
	*h = good;
	h->e_shoff = 0;
	CHECK(check_bytes(data, size, err, sizeof(err)) && strstr(err, "no section table"));
	*h = good;
	CHECK_EQ(check_bytes(data, size, err, sizeof(err)), 0);
	free(data);
}

TEST(buffer_must_be_aligned)
{
	size_t size;
	uint8_t *data = load_sample("hello", &size);
	uint8_t *shifted = malloc(size + 1);
	char err[160];
	struct errmsg e = { err, sizeof(err) };
	struct elf_image img;

	CHECK(data != NULL);
	if (!data)
		return;
	memcpy(shifted + 1, data, size);
	CHECK_EQ(elf_check(&img, shifted + 1, size, &e), -1);
	CHECK(strstr(err, "not 4-byte aligned"));
	free(shifted);
	free(data);
}

TEST(every_truncation_is_refused)
{
	size_t size, n;
	uint8_t *data = load_sample("hello", &size);
	char err[160];

	CHECK(data != NULL);
	if (!data)
		return;
	for (n = 0; n < size; n++) {
		if (check_bytes(data, n, err, sizeof(err)) == 0) {
			printf("# truncated to %zu bytes was accepted\n", n);
			check_failed = 1;
			break;
		}
	}
	free(data);
}

/* Deterministic byte flips: any verdict is fine, a crash is not. */
TEST(random_mutations_do_not_crash)
{
	const char *names[] = { "hello", "patchme" };
	uint32_t seed = 12345;
	size_t k, i, size;

	for (k = 0; k < 2; k++) {
		uint8_t *data = load_sample(names[k], &size);

		CHECK(data != NULL);
		for (i = 0; data && i < 3000; i++) {
			uint8_t *copy = malloc(size);
			struct host_module m;
			int flips = 1 + i % 4;

			memcpy(copy, data, size);
			while (flips--) {
				seed = seed * 1103515245 + 12345;
				copy[(seed >> 8) % size] ^= 1u << (seed >> 28 & 7);
			}
			host_load(&m, copy, size, i & 1, host_lookup, 1u << 22);
			host_unload(&m);
			free(copy);
		}
		free(data);
	}
}

TEST(error_messages_are_bounded)
{
	char small[8];
	struct errmsg e = { small, sizeof(small) };

	CHECK_EQ(errf(&e, "section %s at %x", ".text", 0x1234u), -1);
	CHECK(strcmp(small, "section") == 0);
	e.size = 0;
	CHECK_EQ(errf(&e, "x"), -1);
	CHECK(reloc_type_name(R_386_GOTPC) && strcmp(reloc_type_name(R_386_GOTPC), "R_386_GOTPC") == 0);
	CHECK(reloc_type_name(200) == NULL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep output if a sanitizer aborts */
	RUN(samples_are_accepted);
	RUN(hello_has_exit_and_sections);
	RUN(broken_objects_are_refused_with_their_error);
	RUN(section_sums_do_not_wrap);
	RUN(section_fields_are_checked);
	RUN(symbols_are_checked);
	RUN(inactive_sections_are_not_read);
	RUN(header_fields_are_checked);
	RUN(buffer_must_be_aligned);
	RUN(every_truncation_is_refused);
	RUN(random_mutations_do_not_crash);
	RUN(error_messages_are_bounded);
	return check_done();
}
