// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_elf_check.c - elf_check() accepts the sample modules and refuses
 * every broken object with its own message, and no mangled input makes it
 * read outside the file. Run from the repository root after
 * `make modules broken-modules`.
 */
#include <stdarg.h>
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

/*
 * Every refusal names the field it tested and the value it found: each
 * check of elf_check() below, provoked on a copy of hello.ko, must give
 * exactly this message.
 */
struct fixture {
	uint8_t *data;
	size_t size;
	struct elf_image img;	/* of the intact file */
	Elf32_Ehdr *h;
	char err[160];
};

static bool fixture_open(struct fixture *f)
{
	struct errmsg e = { f->err, sizeof(f->err) };

	f->data = load_sample("hello", &f->size);
	if (!f->data || elf_check(&f->img, f->data, f->size, &e)) {
		printf("# hello.ko missing or refused: %s\n", f->err);
		check_failed = 1;
		return false;
	}
	f->h = (Elf32_Ehdr *)f->data;
	return true;
}

static Elf32_Shdr *shdr(struct fixture *f, const char *name)
{
	return (Elf32_Shdr *)(f->data + f->h->e_shoff) + elf_find_section(&f->img, name);
}

static Elf32_Sym *sym(struct fixture *f, const char *name)
{
	Elf32_Sym *syms = (Elf32_Sym *)(f->data + shdr(f, ".symtab")->sh_offset);

	return &syms[elf_find_symbol(&f->img, name)];
}

/* Any symbol by name, undefined or local too (elf_find_symbol() finds definitions). */
static unsigned any_symbol(struct fixture *f, const char *name)
{
	for (unsigned i = 1; i < f->img.nsyms; i++)
		if (strcmp(elf_symbol_name(&f->img, i), name) == 0)
			return i;
	return 0;
}

static Elf32_Rel *first_rel(struct fixture *f)
{
	return (Elf32_Rel *)(f->data + shdr(f, ".rel.text")->sh_offset);
}

/* Checks a copy of the (mangled) file, restores it, compares the message. */
static void expect(struct fixture *f, int line, const char *fmt, ...)
{
	uint8_t *good = load_sample("hello", &f->size);
	char want[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (check_bytes(f->data, f->size, f->err, sizeof(f->err)) == 0 || strcmp(f->err, want)) {
		printf("# line %d: got \"%s\"\n#   expected \"%s\"\n", line, f->err, want);
		check_failed = 1;
	}
	memcpy(f->data, good, f->size);
	free(good);
}
#define EXPECT(f, ...) expect(f, __LINE__, __VA_ARGS__)

TEST(header_messages_name_their_field)
{
	struct fixture f;
	unsigned shnum, shoff;

	if (!fixture_open(&f))
		return;
	shnum = f.h->e_shnum;
	shoff = f.h->e_shoff;
	f.h->e_ident[1] = 'X';
	EXPECT(&f, "not an ELF file: e_ident[EI_MAG0..3] is 0x7f 0x58 0x4c 0x46, not 0x7f 'E' 'L' 'F'");
	f.h->e_ident[EI_CLASS] = 2;
	EXPECT(&f, "e_ident[EI_CLASS] 2 is not ELFCLASS32 (1)");
	f.h->e_ident[EI_DATA] = 2;
	EXPECT(&f, "e_ident[EI_DATA] 2 is not ELFDATA2LSB (1, little-endian)");
	f.h->e_ident[EI_VERSION] = 0;	/* issue 10: was "ELF version 1 is not 1" */
	EXPECT(&f, "e_ident[EI_VERSION] 0 is not EV_CURRENT (1)");
	f.h->e_version = 2;
	EXPECT(&f, "e_version 2 is not EV_CURRENT (1)");
	f.h->e_type = 2;
	EXPECT(&f, "e_type 2 is not ET_REL (1, relocatable)");
	f.h->e_machine = 62;
	EXPECT(&f, "e_machine 62 is not EM_386 (3, i386)");
	f.h->e_ehsize = 64;
	EXPECT(&f, "e_ehsize 64 is not 52");
	f.h->e_shentsize = 64;
	EXPECT(&f, "e_shentsize 64 is not 40");
	f.h->e_shoff = 0;
	EXPECT(&f, "e_shoff is 0: no section table");
	f.h->e_shnum = 0;
	EXPECT(&f, "e_shnum is 0: no section table");
	f.h->e_shnum = 2000;
	EXPECT(&f, "e_shnum 2000 is more than 1024 sections");
	f.h->e_shoff += 2;
	EXPECT(&f, "e_shoff 0x%x is not 4-byte aligned", shoff + 2);
	f.h->e_shoff = 16;
	EXPECT(&f, "e_shoff 0x10 points into the ELF header (52 bytes)");
	f.h->e_shnum = 200;
	EXPECT(&f, "section table at e_shoff 0x%x (e_shnum 200 entries) beyond file (size 0x%zx)",
	       shoff, f.size);
	f.h->e_shoff = 0xfffffff0u;
	EXPECT(&f, "section table at e_shoff 0xfffffff0 (e_shnum %u entries) beyond file (size 0x%zx)",
	       shnum, f.size);
	((Elf32_Shdr *)(f.data + shoff))[0].sh_type = SHT_PROGBITS;
	EXPECT(&f, "section 0 sh_type 1 is not SHT_NULL (0)");
	f.h->e_shstrndx = 0;
	EXPECT(&f, "e_shstrndx is 0 (SHN_UNDEF): no section name table");
	f.h->e_shstrndx = shnum + 3;
	EXPECT(&f, "e_shstrndx %u out of range (%u sections)", shnum + 3, shnum);
	free(f.data);
	CHECK_EQ(check_bytes("\177ELF", 4, f.err, sizeof(f.err)), -1);
	CHECK(strcmp(f.err, "file too short for an ELF header (4 bytes, need 52)") == 0);
}

TEST(section_messages_name_their_field)
{
	struct fixture f;
	unsigned text, strtab, shstr, symtab;
	Elf32_Shdr *s;

	if (!fixture_open(&f))
		return;
	text = elf_find_section(&f.img, ".text");
	strtab = elf_find_section(&f.img, ".strtab");
	symtab = f.img.symtab_index;
	shstr = f.h->e_shstrndx;
	s = shdr(&f, ".data");
	text = elf_find_section(&f.img, ".data");
	s->sh_name = 0x7000;	/* no name lookups until it is restored */
	EXPECT(&f, "section %u sh_name 0x7000 beyond the section name table (size 0x%x)",
	       text, f.img.shstrtab_size);
	text = elf_find_section(&f.img, ".text");
	shdr(&f, ".shstrtab")->sh_type = SHT_PROGBITS;
	EXPECT(&f, "section name table (section %u) sh_type 1 is not SHT_STRTAB (3)", shstr);
	shdr(&f, ".shstrtab")->sh_offset = 0x7ffffff0;
	EXPECT(&f, "section name table (section %u) sh_offset 0x7ffffff0 sh_size 0x%x beyond file (size 0x%zx)",
	       shstr, f.img.shstrtab_size, f.size);
	shdr(&f, ".shstrtab")->sh_size = 0;
	EXPECT(&f, "section name table (section %u) sh_size is 0: an empty string table", shstr);
	s = shdr(&f, ".strtab");
	f.data[s->sh_offset + s->sh_size - 1] = 'x';
	EXPECT(&f, ".strtab (section %u) is not NUL-terminated: its last byte is 0x78", strtab);
	shdr(&f, ".symtab")->sh_link = text;
	EXPECT(&f, "symbol string table (section %u) sh_type 1 is not SHT_STRTAB (3)", text);
	s = shdr(&f, ".text");
	s->sh_offset = 0xfffffff0u;	/* + size wraps in 32 bits */
	EXPECT(&f, "section %u (.text) sh_offset 0xfffffff0 sh_size 0x%x beyond file (size 0x%zx)",
	       text, s->sh_size, f.size);
	shdr(&f, ".text")->sh_addralign = 3;
	EXPECT(&f, "section .text sh_addralign 0x3 is not a power of two");
	shdr(&f, ".data")->sh_addralign = 8192;
	EXPECT(&f, "section .data sh_addralign 0x2000 is more than a page (0x1000)");
	shdr(&f, ".data")->sh_flags |= SHF_EXECINSTR;
	EXPECT(&f, "section .data sh_flags 0x7: both writable and executable (SHF_WRITE|SHF_EXECINSTR)");
	shdr(&f, ".rel.text")->sh_type = SHT_RELA;
	EXPECT(&f, "section .rel.text sh_type is SHT_RELA (4): RELA relocations are not used on i386");
	s = shdr(&f, ".data");
	s->sh_offset = 8;
	EXPECT(&f, "section .data (sh_offset 0x8 sh_size 0x%x) overlaps the ELF header", s->sh_size);
	s = shdr(&f, ".data");
	s->sh_offset = f.h->e_shoff + 4;
	EXPECT(&f, "section .data (sh_offset 0x%x sh_size 0x%x) overlaps the section table (e_shoff 0x%x, 0x%x bytes)",
	       f.h->e_shoff + 4, s->sh_size, f.h->e_shoff, f.h->e_shnum * 40);
	shdr(&f, ".data")->sh_offset = shdr(&f, ".text")->sh_offset;
	EXPECT(&f, "section .text (sh_offset 0x%x sh_size 0x%x) overlaps section .data (sh_offset 0x%x sh_size 0x%x)",
	       shdr(&f, ".text")->sh_offset, shdr(&f, ".text")->sh_size,
	       shdr(&f, ".text")->sh_offset, shdr(&f, ".data")->sh_size);
	shdr(&f, ".comment")->sh_type = SHT_SYMTAB;
	EXPECT(&f, "sections %u and %u are both SHT_SYMTAB: more than one symbol table",
	       elf_find_section(&f.img, ".comment"), symtab);
	shdr(&f, ".symtab")->sh_type = SHT_PROGBITS;
	EXPECT(&f, "no section of sh_type SHT_SYMTAB (2): no symbol table");
	shdr(&f, ".symtab")->sh_entsize = 12;
	EXPECT(&f, "symbol table sh_entsize 12 is not 16");
	s = shdr(&f, ".symtab");
	s->sh_size -= 4;
	EXPECT(&f, "symbol table sh_size 0x%x is not a whole, non-zero number of 16-byte symbols",
	       s->sh_size);
	s = shdr(&f, ".symtab");
	s->sh_offset += 2;	/* and one symbol fewer, to stay clear of .strtab */
	s->sh_size -= 16;
	EXPECT(&f, "symbol table sh_offset 0x%x is not 4-byte aligned", s->sh_offset);
	shdr(&f, ".symtab")->sh_link = 999;
	EXPECT(&f, "symbol table sh_link 999 (its string table) out of range (%u sections)",
	       f.h->e_shnum);
	free(f.data);
}

TEST(symbol_and_relocation_messages_name_their_field)
{
	struct fixture f;
	Elf32_Shdr *s;
	unsigned nsyms, bss, calls, printk_i;

	if (!fixture_open(&f))
		return;
	nsyms = f.img.nsyms;
	bss = elf_find_section(&f.img, ".bss");
	calls = elf_find_symbol(&f.img, "hello_calls");
	printk_i = any_symbol(&f, "printk");
	/* no name lookups while a name is broken */
	sym(&f, "hello_calls")->st_name = 0x7fffffff;
	EXPECT(&f, "symbol %u st_name 0x7fffffff beyond the string table (size 0x%x)",
	       calls, f.img.strtab_size);
	((Elf32_Sym *)f.img.syms)[printk_i].st_name = f.img.strtab_size - 1;	/* the table's final NUL */
	EXPECT(&f, "symbol %u: st_shndx is SHN_UNDEF but st_name 0x%x is an empty name",
	       printk_i, f.img.strtab_size - 1);
	sym(&f, "hello_calls")->st_shndx = SHN_COMMON;
	EXPECT(&f, "symbol hello_calls st_shndx is SHN_COMMON (build with -fno-common)");
	sym(&f, "hello_calls")->st_shndx = 200;
	EXPECT(&f, "symbol %u (hello_calls) st_shndx 200 out of range (%u sections)",
	       elf_find_symbol(&f.img, "hello_calls"), f.h->e_shnum);
	sym(&f, "hello_calls")->st_value = 0x1000;
	EXPECT(&f, "symbol hello_calls st_value 0x1000 beyond section .bss (sh_size 0x4)");
	shdr(&f, ".rel.text")->sh_entsize = 12;
	EXPECT(&f, "section .rel.text sh_entsize 12 is not 8 (the size of a relocation)");
	s = shdr(&f, ".rel.text");
	s->sh_size -= 4;
	EXPECT(&f, "section .rel.text sh_size 0x%x is not a whole number of 8-byte relocations",
	       s->sh_size);
	s = shdr(&f, ".rel.text");
	s->sh_offset += 2;	/* and one relocation fewer, to overlap nothing */
	s->sh_size -= 8;
	EXPECT(&f, "section .rel.text sh_offset 0x%x is not 4-byte aligned", s->sh_offset);
	shdr(&f, ".rel.text")->sh_link = 1;
	EXPECT(&f, "section .rel.text sh_link 1 is not the symbol table (section %u)",
	       f.img.symtab_index);
	shdr(&f, ".rel.text")->sh_info = 999;
	EXPECT(&f, "section .rel.text sh_info 999 (the section it relocates) out of range (%u sections)",
	       f.h->e_shnum);
	shdr(&f, ".rel.text")->sh_info = bss;
	EXPECT(&f, "section .rel.text sh_info %u: section .bss (sh_type 8) holds no code or data", bss);
	first_rel(&f)->r_info = (first_rel(&f)->r_info & ~0xffu) | R_386_GOTPC;
	EXPECT(&f, "relocation 0 in .rel.text: r_info type R_386_GOTPC (10) is not R_386_32 or R_386_PC32");
	first_rel(&f)->r_info = (first_rel(&f)->r_info & ~0xffu) | 200;
	EXPECT(&f, "relocation 0 in .rel.text: r_info type unknown (200) is not R_386_32 or R_386_PC32");
	first_rel(&f)->r_info = ((nsyms + 5) << 8) | (first_rel(&f)->r_info & 0xff);
	EXPECT(&f, "relocation 0 in .rel.text: r_info symbol %u out of range (%u symbols)",
	       nsyms + 5, nsyms);
	first_rel(&f)->r_offset = shdr(&f, ".text")->sh_size - 2;
	EXPECT(&f, "relocation 0 in .rel.text: r_offset 0x%x beyond section .text (sh_size 0x%x)",
	       shdr(&f, ".text")->sh_size - 2, shdr(&f, ".text")->sh_size);
	shdr(&f, ".bss")->sh_flags &= ~SHF_ALLOC;
	s = shdr(&f, ".rel.text");
	for (unsigned n = 0; n < s->sh_size / 8; n++)
		first_rel(&f)[n].r_info = (elf_find_symbol(&f.img, "hello_calls") << 8) | R_386_32;
	EXPECT(&f, "relocation 0 in .rel.text refers to hello_calls in section .bss, which is not loaded (no SHF_ALLOC)");
	free(f.data);
}

TEST(module_messages_name_their_field)
{
	struct fixture f;
	Elf32_Shdr *s;

	if (!fixture_open(&f))
		return;
	sym(&f, "init_module")->st_shndx = SHN_ABS;
	EXPECT(&f, "init_module st_shndx 0xfff1 is not a section: it is not in executable code");
	sym(&f, "cleanup_module")->st_shndx = elf_find_section(&f.img, ".rodata");
	sym(&f, "cleanup_module")->st_value = 0;
	EXPECT(&f, "cleanup_module is in section .rodata (sh_type 1, sh_flags 0x2): not SHT_PROGBITS code with SHF_ALLOC|SHF_EXECINSTR");
	s = shdr(&f, ".modinfo");
	f.data[s->sh_offset + s->sh_size - 1] = 'z';
	EXPECT(&f, "section .modinfo is not NUL-terminated: its last byte is 0x7a");
	free(f.data);
}

TEST(section_sums_do_not_wrap_for_symtab)
{
	struct fixture f;

	if (!fixture_open(&f))
		return;
	shdr(&f, ".symtab")->sh_size = 0xfffffff0u;
	EXPECT(&f, "section %u (.symtab) sh_offset 0x%x sh_size 0xfffffff0 beyond file (size 0x%zx)",
	       f.img.symtab_index, shdr(&f, ".symtab")->sh_offset, f.size);
	free(f.data);
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
	RUN(inactive_sections_are_not_read);
	RUN(header_messages_name_their_field);
	RUN(section_messages_name_their_field);
	RUN(symbol_and_relocation_messages_name_their_field);
	RUN(module_messages_name_their_field);
	RUN(section_sums_do_not_wrap_for_symtab);
	RUN(buffer_must_be_aligned);
	RUN(every_truncation_is_refused);
	RUN(random_mutations_do_not_crash);
	RUN(error_messages_are_bounded);
	return check_done();
}
