// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_check.c - refuse a bad module file before anything is allocated.
 *
 * Every offset and size in the file is untrusted. Sums are done in 64
 * bits so that no 32-bit wrap-around can make an out-of-range section
 * look in range. Checks run in an order where each relies only on the
 * ones before it (the header before the section table, the section names
 * before any message that quotes one, the symbol table before the
 * relocations that index it).
 */
#include <stdbool.h>
#include <ronx/string.h>
#include "elf_check.h"

static const Elf32_Shdr *sec(const struct elf_image *img, unsigned int i)
{
	return &img->shdrs[i];
}

/* Does [off, off+len) fit in the file? */
static bool in_file(const struct elf_image *img, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len <= img->size;
}

/* SHT_NULL headers are inactive: their offset and size mean nothing. */
static bool has_file_data(const Elf32_Shdr *s)
{
	return s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL;
}

/* e_ident and e_version: an ELF32 little-endian file, version 1 (modules and executables). */
int elf_check_ident(const Elf32_Ehdr *h, struct errmsg *e)
{
	if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0)
		return errf(e, "not an ELF file: e_ident[EI_MAG0..3] is %x %x %x %x, not 0x7f 'E' 'L' 'F'",
			    h->e_ident[0], h->e_ident[1], h->e_ident[2], h->e_ident[3]);
	if (h->e_ident[EI_CLASS] != ELFCLASS32)
		return errf(e, "e_ident[EI_CLASS] %u is not ELFCLASS32 (1)", h->e_ident[EI_CLASS]);
	if (h->e_ident[EI_DATA] != ELFDATA2LSB)
		return errf(e, "e_ident[EI_DATA] %u is not ELFDATA2LSB (1, little-endian)",
			    h->e_ident[EI_DATA]);
	if (h->e_ident[EI_VERSION] != EV_CURRENT)
		return errf(e, "e_ident[EI_VERSION] %u is not EV_CURRENT (1)", h->e_ident[EI_VERSION]);
	if (h->e_version != EV_CURRENT)
		return errf(e, "e_version %u is not EV_CURRENT (1)", h->e_version);
	return 0;
}

static int check_header(struct elf_image *img, struct errmsg *e)
{
	const Elf32_Ehdr *h = img->ehdr;

	if (elf_check_ident(h, e))
		return -1;
	if (h->e_type != ET_REL)
		return errf(e, "e_type %u is not ET_REL (1, relocatable)", h->e_type);
	if (h->e_machine != EM_386)
		return errf(e, "e_machine %u is not EM_386 (3, i386)", h->e_machine);
	if (h->e_ehsize != sizeof(Elf32_Ehdr))
		return errf(e, "e_ehsize %u is not %u", h->e_ehsize, (unsigned int)sizeof(Elf32_Ehdr));
	if (h->e_shentsize != sizeof(Elf32_Shdr))
		return errf(e, "e_shentsize %u is not %u", h->e_shentsize,
			    (unsigned int)sizeof(Elf32_Shdr));
	return 0;
}

static int check_section_table(struct elf_image *img, struct errmsg *e)
{
	const Elf32_Ehdr *h = img->ehdr;
	uint32_t table = h->e_shnum * (uint32_t)sizeof(Elf32_Shdr);

	/* e_shnum == 0 with a table means extended numbering; not for modules */
	if (h->e_shoff == 0)
		return errf(e, "e_shoff is 0: no section table");
	if (h->e_shnum == 0)
		return errf(e, "e_shnum is 0: no section table");
	if (h->e_shnum > ELF_MAX_SECTIONS)
		return errf(e, "e_shnum %u is more than %u sections", h->e_shnum, ELF_MAX_SECTIONS);
	if (h->e_shoff % 4)
		return errf(e, "e_shoff %x is not 4-byte aligned", h->e_shoff);
	if (h->e_shoff < sizeof(Elf32_Ehdr))
		return errf(e, "e_shoff %x points into the ELF header (%u bytes)", h->e_shoff,
			    (unsigned int)sizeof(Elf32_Ehdr));
	if (!in_file(img, h->e_shoff, table))
		return errf(e, "section table at e_shoff %x (e_shnum %u entries) beyond file (size %x)",
			    h->e_shoff, h->e_shnum, img->size);
	img->shdrs = (const Elf32_Shdr *)(img->data + h->e_shoff);
	img->shnum = h->e_shnum;
	if (img->shdrs[0].sh_type != SHT_NULL)
		return errf(e, "section 0 sh_type %u is not SHT_NULL (0)", img->shdrs[0].sh_type);
	return 0;
}

/* A string table must be non-empty and end in NUL, so every name ends. */
static int check_strtab(const struct elf_image *img, unsigned int i, const char *what,
			struct errmsg *e)
{
	const Elf32_Shdr *s = sec(img, i);

	if (s->sh_type != SHT_STRTAB)
		return errf(e, "%s (section %u) sh_type %u is not SHT_STRTAB (3)", what, i, s->sh_type);
	if (s->sh_size == 0)
		return errf(e, "%s (section %u) sh_size is 0: an empty string table", what, i);
	if (!in_file(img, s->sh_offset, s->sh_size))
		return errf(e, "%s (section %u) sh_offset %x sh_size %x beyond file (size %x)",
			    what, i, s->sh_offset, s->sh_size, img->size);
	if (img->data[s->sh_offset + s->sh_size - 1] != '\0')
		return errf(e, "%s (section %u) is not NUL-terminated: its last byte is %x",
			    what, i, img->data[s->sh_offset + s->sh_size - 1]);
	return 0;
}

static int check_shstrtab(struct elf_image *img, struct errmsg *e)
{
	unsigned int i = img->ehdr->e_shstrndx;
	const Elf32_Shdr *s;

	if (i == SHN_UNDEF)
		return errf(e, "e_shstrndx is 0 (SHN_UNDEF): no section name table");
	if (i >= img->shnum)
		return errf(e, "e_shstrndx %u out of range (%u sections)", i, img->shnum);
	if (check_strtab(img, i, "section name table", e))
		return -1;
	s = sec(img, i);
	img->shstrtab = (const char *)img->data + s->sh_offset;
	img->shstrtab_size = s->sh_size;
	for (i = 1; i < img->shnum; i++)
		if (sec(img, i)->sh_name >= img->shstrtab_size)
			return errf(e, "section %u sh_name %x beyond the section name table (size %x)",
				    i, sec(img, i)->sh_name, img->shstrtab_size);
	return 0;
}

static int check_one_section(const struct elf_image *img, unsigned int i, struct errmsg *e)
{
	const Elf32_Shdr *s = sec(img, i);
	const char *name = elf_section_name(img, i);
	uint32_t a = s->sh_addralign;

	if (has_file_data(s) && !in_file(img, s->sh_offset, s->sh_size))
		return errf(e, "section %u (%s) sh_offset %x sh_size %x beyond file (size %x)",
			    i, name, s->sh_offset, s->sh_size, img->size);
	if (a & (a - 1))
		return errf(e, "section %s sh_addralign %x is not a power of two", name, a);
	if ((s->sh_flags & SHF_ALLOC) && a > ELF_MAX_ALIGN)
		return errf(e, "section %s sh_addralign %x is more than a page (%x)", name, a,
			    ELF_MAX_ALIGN);
	/* one page cannot be both writable and executable (W^X) */
	if ((s->sh_flags & (SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR)) ==
	    (SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR))
		return errf(e, "section %s sh_flags %x: both writable and executable (SHF_WRITE|SHF_EXECINSTR)",
			    name, s->sh_flags);
	if (s->sh_type == SHT_RELA)
		return errf(e, "section %s sh_type is SHT_RELA (4): RELA relocations are not used on i386",
			    name);
	if (s->sh_type == SHT_STRTAB && check_strtab(img, i, name, e))
		return -1;
	return 0;
}

static bool overlap(uint32_t a, uint32_t alen, uint32_t b, uint32_t blen)
{
	return (uint64_t)a < (uint64_t)b + blen && (uint64_t)b < (uint64_t)a + alen;
}

/* File-backed sections, the ELF header and the section table are disjoint. */
static int check_overlaps(const struct elf_image *img, struct errmsg *e)
{
	uint32_t shoff = img->ehdr->e_shoff;
	uint32_t shlen = img->shnum * (uint32_t)sizeof(Elf32_Shdr);
	unsigned int i, j;

	for (i = 1; i < img->shnum; i++) {
		const Elf32_Shdr *a = sec(img, i);

		if (!has_file_data(a) || a->sh_size == 0)
			continue;
		if (overlap(a->sh_offset, a->sh_size, 0, sizeof(Elf32_Ehdr)))
			return errf(e, "section %s (sh_offset %x sh_size %x) overlaps the ELF header",
				    elf_section_name(img, i), a->sh_offset, a->sh_size);
		if (overlap(a->sh_offset, a->sh_size, shoff, shlen))
			return errf(e, "section %s (sh_offset %x sh_size %x) overlaps the section table (e_shoff %x, %x bytes)",
				    elf_section_name(img, i), a->sh_offset, a->sh_size, shoff, shlen);
		for (j = i + 1; j < img->shnum; j++) {
			const Elf32_Shdr *b = sec(img, j);

			if (has_file_data(b) && b->sh_size &&
			    overlap(a->sh_offset, a->sh_size, b->sh_offset, b->sh_size))
				return errf(e, "section %s (sh_offset %x sh_size %x) overlaps section %s (sh_offset %x sh_size %x)",
					    elf_section_name(img, i), a->sh_offset, a->sh_size,
					    elf_section_name(img, j), b->sh_offset, b->sh_size);
		}
	}
	return 0;
}

static int check_sections(struct elf_image *img, struct errmsg *e)
{
	unsigned int i;

	for (i = 1; i < img->shnum; i++)
		if (check_one_section(img, i, e))
			return -1;
	return check_overlaps(img, e);
}

static int find_symtab(struct elf_image *img, struct errmsg *e)
{
	unsigned int i;

	for (i = 1; i < img->shnum; i++) {
		if (sec(img, i)->sh_type != SHT_SYMTAB)
			continue;
		if (img->symtab_index)
			return errf(e, "sections %u and %u are both SHT_SYMTAB: more than one symbol table",
				    img->symtab_index, i);
		img->symtab_index = i;
	}
	if (!img->symtab_index)
		return errf(e, "no section of sh_type SHT_SYMTAB (2): no symbol table");
	return 0;
}

static int check_symtab_header(struct elf_image *img, struct errmsg *e)
{
	const Elf32_Shdr *s = sec(img, img->symtab_index);
	const Elf32_Shdr *str;

	if (s->sh_entsize != sizeof(Elf32_Sym))
		return errf(e, "symbol table sh_entsize %u is not %u", s->sh_entsize,
			    (unsigned int)sizeof(Elf32_Sym));
	if (s->sh_size % sizeof(Elf32_Sym) || s->sh_size == 0)
		return errf(e, "symbol table sh_size %x is not a whole, non-zero number of %u-byte symbols",
			    s->sh_size, (unsigned int)sizeof(Elf32_Sym));
	if (s->sh_offset % 4)
		return errf(e, "symbol table sh_offset %x is not 4-byte aligned", s->sh_offset);
	if (s->sh_link == 0 || s->sh_link >= img->shnum)
		return errf(e, "symbol table sh_link %u (its string table) out of range (%u sections)",
			    s->sh_link, img->shnum);
	if (check_strtab(img, s->sh_link, "symbol string table", e))
		return -1;
	str = sec(img, s->sh_link);
	img->syms = (const Elf32_Sym *)(img->data + s->sh_offset);
	img->nsyms = s->sh_size / sizeof(Elf32_Sym);
	img->strtab = (const char *)img->data + str->sh_offset;
	img->strtab_size = str->sh_size;
	return 0;
}

static int check_symbol(const struct elf_image *img, unsigned int i, struct errmsg *e)
{
	const Elf32_Sym *sym = &img->syms[i];
	unsigned int shndx = sym->st_shndx;

	if (sym->st_name >= img->strtab_size)
		return errf(e, "symbol %u st_name %x beyond the string table (size %x)",
			    i, sym->st_name, img->strtab_size);
	if (shndx == SHN_UNDEF) {
		if (i && !img->strtab[sym->st_name])
			return errf(e, "symbol %u: st_shndx is SHN_UNDEF but st_name %x is an empty name",
				    i, sym->st_name);
		return 0;
	}
	if (shndx == SHN_ABS)
		return 0;
	if (shndx == SHN_COMMON)
		return errf(e, "symbol %s st_shndx is SHN_COMMON (build with -fno-common)",
			    elf_symbol_name(img, i));
	if (shndx >= img->shnum)
		return errf(e, "symbol %u (%s) st_shndx %u out of range (%u sections)",
			    i, elf_symbol_name(img, i), shndx, img->shnum);
	if (sym->st_value > sec(img, shndx)->sh_size)
		return errf(e, "symbol %s st_value %x beyond section %s (sh_size %x)",
			    elf_symbol_name(img, i), sym->st_value,
			    elf_section_name(img, shndx), sec(img, shndx)->sh_size);
	return 0;
}

static int check_symtab(struct elf_image *img, struct errmsg *e)
{
	unsigned int i;

	if (find_symtab(img, e) || check_symtab_header(img, e))
		return -1;
	for (i = 0; i < img->nsyms; i++)
		if (check_symbol(img, i, e))
			return -1;
	return 0;
}

static int check_rel_header(const struct elf_image *img, unsigned int i, struct errmsg *e)
{
	const Elf32_Shdr *s = sec(img, i);
	const char *name = elf_section_name(img, i);
	const Elf32_Shdr *t;

	if (s->sh_entsize != sizeof(Elf32_Rel))
		return errf(e, "section %s sh_entsize %u is not %u (the size of a relocation)",
			    name, s->sh_entsize, (unsigned int)sizeof(Elf32_Rel));
	if (s->sh_size % sizeof(Elf32_Rel))
		return errf(e, "section %s sh_size %x is not a whole number of %u-byte relocations",
			    name, s->sh_size, (unsigned int)sizeof(Elf32_Rel));
	if (s->sh_offset % 4)
		return errf(e, "section %s sh_offset %x is not 4-byte aligned", name, s->sh_offset);
	if (s->sh_link != img->symtab_index)
		return errf(e, "section %s sh_link %u is not the symbol table (section %u)", name,
			    s->sh_link, img->symtab_index);
	if (s->sh_info == 0 || s->sh_info >= img->shnum)
		return errf(e, "section %s sh_info %u (the section it relocates) out of range (%u sections)",
			    name, s->sh_info, img->shnum);
	t = sec(img, s->sh_info);
	if (!has_file_data(t) || t->sh_type == SHT_REL || t->sh_type == SHT_SYMTAB ||
	    t->sh_type == SHT_STRTAB)
		return errf(e, "section %s sh_info %u: section %s (sh_type %u) holds no code or data",
			    name, s->sh_info, elf_section_name(img, s->sh_info), t->sh_type);
	return 0;
}

static int check_rel(const struct elf_image *img, unsigned int relsec, unsigned int n,
		     struct errmsg *e)
{
	const Elf32_Shdr *s = sec(img, relsec);
	const Elf32_Rel *r = (const Elf32_Rel *)(img->data + s->sh_offset) + n;
	const Elf32_Shdr *t = sec(img, s->sh_info);
	unsigned int type = ELF32_R_TYPE(r->r_info);
	unsigned int symi = ELF32_R_SYM(r->r_info);
	const Elf32_Sym *sym;

	if (type != R_386_32 && type != R_386_PC32) {
		const char *tn = reloc_type_name(type);

		return errf(e, "relocation %u in %s: r_info type %s (%u) is not R_386_32 or R_386_PC32", n,
			    elf_section_name(img, relsec), tn ? tn : "unknown", type);
	}
	if (symi >= img->nsyms)
		return errf(e, "relocation %u in %s: r_info symbol %u out of range (%u symbols)",
			    n, elf_section_name(img, relsec), symi, img->nsyms);
	if ((uint64_t)r->r_offset + 4 > t->sh_size)
		return errf(e, "relocation %u in %s: r_offset %x beyond section %s (sh_size %x)",
			    n, elf_section_name(img, relsec), r->r_offset,
			    elf_section_name(img, s->sh_info), t->sh_size);
	sym = &img->syms[symi];
	/* loaded code may only point at loaded (or absolute, or kernel) symbols */
	if ((t->sh_flags & SHF_ALLOC) && sym->st_shndx != SHN_UNDEF &&
	    sym->st_shndx < SHN_LORESERVE && !(sec(img, sym->st_shndx)->sh_flags & SHF_ALLOC))
		return errf(e, "relocation %u in %s refers to %s in section %s, which is not loaded (no SHF_ALLOC)",
			    n, elf_section_name(img, relsec), elf_symbol_name(img, symi),
			    elf_section_name(img, sym->st_shndx));
	return 0;
}

static int check_relocations(const struct elf_image *img, struct errmsg *e)
{
	unsigned int i, n;

	for (i = 1; i < img->shnum; i++) {
		if (sec(img, i)->sh_type != SHT_REL)
			continue;
		if (check_rel_header(img, i, e))
			return -1;
		for (n = 0; n < sec(img, i)->sh_size / sizeof(Elf32_Rel); n++)
			if (check_rel(img, i, n, e))
				return -1;
	}
	return 0;
}

/* init_module/cleanup_module: global, defined, in loaded executable code */
static int check_entry(const struct elf_image *img, const char *name, unsigned int *out,
		       struct errmsg *e)
{
	unsigned int i = elf_find_symbol(img, name);
	const Elf32_Sym *sym = &img->syms[i];

	*out = i;
	if (!i)
		return 0;
	if (sym->st_shndx >= SHN_LORESERVE)
		return errf(e, "%s st_shndx %x is not a section: it is not in executable code",
			    name, sym->st_shndx);
	if (sec(img, sym->st_shndx)->sh_type != SHT_PROGBITS ||
	    (sec(img, sym->st_shndx)->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
	    (SHF_ALLOC | SHF_EXECINSTR))
		return errf(e, "%s is in section %s (sh_type %u, sh_flags %x): not SHT_PROGBITS code with SHF_ALLOC|SHF_EXECINSTR",
			    name, elf_section_name(img, sym->st_shndx),
			    sec(img, sym->st_shndx)->sh_type, sec(img, sym->st_shndx)->sh_flags);
	return 0;
}

static int check_modinfo(const struct elf_image *img, struct errmsg *e)
{
	unsigned int i = elf_find_section(img, ".modinfo");
	const Elf32_Shdr *s = sec(img, i);

	if (i && s->sh_type == SHT_PROGBITS && s->sh_size &&
	    img->data[s->sh_offset + s->sh_size - 1] != '\0')
		return errf(e, "section .modinfo is not NUL-terminated: its last byte is %x",
			    img->data[s->sh_offset + s->sh_size - 1]);
	return 0;
}

static int check_module(struct elf_image *img, struct errmsg *e)
{
	if (check_entry(img, "init_module", &img->init_sym, e) ||
	    check_entry(img, "cleanup_module", &img->exit_sym, e))
		return -1;
	if (!img->init_sym)
		return errf(e, "no init_module symbol (declare one with module_init())");
	return check_modinfo(img, e);
}

int elf_check(struct elf_image *img, const void *data, size_t size, struct errmsg *e)
{
	memset(img, 0, sizeof(*img));
	img->data = data;
	if (size < sizeof(Elf32_Ehdr))
		return errf(e, "file too short for an ELF header (%u bytes, need %u)", (unsigned int)size,
			    (unsigned int)sizeof(Elf32_Ehdr));
	if (size > UINT32_MAX)
		return errf(e, "file too large (more than 4 GiB)");
	if ((uintptr_t)data % 4)
		return errf(e, "file buffer not 4-byte aligned");
	img->size = size;
	img->ehdr = data;
	if (check_header(img, e) || check_section_table(img, e) || check_shstrtab(img, e) ||
	    check_sections(img, e) || check_symtab(img, e) || check_relocations(img, e) ||
	    check_module(img, e))
		return -1;
	return 0;
}
