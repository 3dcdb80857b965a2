// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_reloc.c - relocation of real gcc-made modules into host buffers,
 * cross-checked against GNU ld: for each module a linker script places
 * every section exactly where layout_sections() put it, at the same
 * run-time addresses, and ld's output bytes must equal ours.
 */
#include <sys/stat.h>
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "check.h"
#include "hostload.h"

static const char *const samples[] = { "hello", "provider", "user", "big", "patchme" };

/* Loaded sections of one region, by offset (empty ones first on a tie). */
static unsigned int region_sections(struct host_module *m, bool init, unsigned int *out)
{
	unsigned int i, j, n = 0;

	for (i = 1; i < m->img.shnum; i++) {
		if (m->place[i] == SEC_NOT_LOADED || !!(m->place[i] & INIT_OFFSET_MASK) != init)
			continue;
		for (j = n++; j > 0; j--) {
			const Elf32_Shdr *a = &m->img.shdrs[out[j - 1]], *b = &m->img.shdrs[i];
			uint32_t pa = m->place[out[j - 1]], pb = m->place[i];

			if (pa < pb || (pa == pb && a->sh_size <= b->sh_size))
				break;
			out[j] = out[j - 1];
		}
		out[j] = i;
	}
	return n;
}

/* One output section per region; input sections at our offsets. */
static void script_region(FILE *f, struct host_module *m, bool init, const char *out,
			  uint32_t addr, uint32_t size)
{
	unsigned int *secs = calloc(m->img.shnum, sizeof(*secs));
	unsigned int i, n = region_sections(m, init, secs);

	fprintf(f, "  %s 0x%x : {\n", out, addr);
	for (i = 0; i < n; i++)
		fprintf(f, "    . = 0x%x; KEEP(*(%s))\n", m->place[secs[i]] & ~INIT_OFFSET_MASK,
			elf_section_name(&m->img, secs[i]));
	fprintf(f, "    . = 0x%x;\n  }\n", size);
	free(secs);
}

static bool write_script(const char *path, struct host_module *m)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fprintf(f, "SECTIONS {\n");
	script_region(f, m, false, ".core", HOST_CORE_ADDR, m->lay.core.size);
	if (m->lay.init.size)
		script_region(f, m, true, ".initr", HOST_INIT_ADDR, m->lay.init.size);
	fprintf(f, "  /DISCARD/ : { *(*) }\n}\n");
	fclose(f);
	return true;
}

/*
 * Compare each loaded section of a region with the file ld+objcopy made.
 * Only section bytes count: ld fills the gaps between them with NOPs.
 */
static bool same_as_file(const char *path, struct host_module *m, bool init,
			 const uint8_t *buf)
{
	size_t n, i;
	uint8_t *ld = host_read_file(path, &n);
	unsigned int s;
	bool same = ld != NULL;

	for (s = 1; same && s < m->img.shnum; s++) {
		uint32_t off = m->place[s] & ~INIT_OFFSET_MASK;

		if (m->place[s] == SEC_NOT_LOADED || !!(m->place[s] & INIT_OFFSET_MASK) != init)
			continue;
		for (i = off; same && i < off + m->img.shdrs[s].sh_size; i++) {
			uint8_t want = i < n ? ld[i] : 0;

			if (buf[i] != want) {
				printf("# %s: %s+0x%zx is 0x%02x, ld has 0x%02x\n", path,
				       elf_section_name(&m->img, s), i - off, buf[i], want);
				same = false;
			}
		}
	}
	free(ld);
	return same;
}

/* --defsym for every undefined symbol, as the kernel's exports would be. */
static void defsyms(struct host_module *m, char *out, size_t len)
{
	unsigned int i;
	uint32_t addr;
	size_t used = 0;

	out[0] = '\0';
	for (i = 1; i < m->img.nsyms && used < len; i++) {
		const char *name = elf_symbol_name(&m->img, i);

		if (m->img.syms[i].st_shndx == SHN_UNDEF && host_lookup(NULL, name, &addr))
			used += snprintf(out + used, len - used, " --defsym %s=0x%x", name, addr);
	}
}

static bool run(const char *cmd)
{
	int ret = system(cmd);

	if (ret)
		printf("# command failed (%d): %s\n", ret, cmd);
	return ret == 0;
}

static void cross_check(const char *name, bool ronx)
{
	struct host_module m;
	char base[128], syms[256], cmd[2048];

	CHECK_EQ(host_load_sample(&m, name, ronx), 0);
	mkdir("build/host/xcheck", 0777);
	snprintf(base, sizeof(base), "build/host/xcheck/%s-%s", name, ronx ? "ronx" : "packed");
	snprintf(cmd, sizeof(cmd), "%s.ld", base);
	CHECK(write_script(cmd, &m));
	defsyms(&m, syms, sizeof(syms));
	snprintf(cmd, sizeof(cmd),
		 "ld -m elf_i386 -e 0 --no-warn-rwx-segments -T %s.ld -o %s.elf%s "
		 "build/modules/%s.ko 2>%s.ld-stderr && "
		 "objcopy -O binary -j .core %s.elf %s.core && "
		 "{ [ %u = 0 ] || objcopy -O binary -j .initr %s.elf %s.init; }",
		 base, base, syms, name, base, base, base, m.lay.init.size, base, base);
	if (run(cmd)) {
		snprintf(cmd, sizeof(cmd), "%s.core", base);
		CHECK(same_as_file(cmd, &m, false, m.dest.core_buf));
		snprintf(cmd, sizeof(cmd), "%s.init", base);
		if (m.lay.init.size)
			CHECK(same_as_file(cmd, &m, true, m.dest.init_buf));
	} else {
		check_failed = 1;
	}
	host_unload(&m);
}

TEST(same_bytes_as_ld_with_ronx)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		cross_check(samples[i], true);
}

TEST(same_bytes_as_ld_packed)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		cross_check(samples[i], false);
}

static uint32_t sym_addr(struct host_module *m, const char *name)
{
	uint32_t addr = 0;
	char err[80];
	struct errmsg e = { err, sizeof(err) };

	CHECK_EQ(symbol_address(&m->img, m->place, &m->dest, elf_find_symbol(&m->img, name),
				host_lookup, NULL, &addr, &e), 0);
	return addr;
}

static uint32_t word_at(struct host_module *m, uint32_t addr)
{
	uint32_t v;

	memcpy(&v, m->dest.core_buf + (addr - HOST_CORE_ADDR), 4);
	return v;
}

/* The marked call site: E8 rel32 with rel32 = hook - (site + 5). */
TEST(patchme_call_site_is_relocated)
{
	struct host_module m;
	uint32_t site, hook;

	CHECK_EQ(host_load_sample(&m, "patchme", true), 0);
	site = sym_addr(&m, "patchme_site");
	hook = sym_addr(&m, "patchme_hook");
	CHECK(site >= HOST_CORE_ADDR && site + 5 <= HOST_CORE_ADDR + m.lay.core.text_size);
	CHECK_EQ(m.dest.core_buf[site - HOST_CORE_ADDR], 0xe8);
	CHECK_EQ(word_at(&m, site + 1), hook - (site + 5));
	host_unload(&m);
}

/* A module's __ksymtab: {value, name} pairs pointing into the module. */
TEST(module_export_table_is_relocated)
{
	struct host_module m;
	unsigned int sec, n, i, found = 0;
	uint32_t tab;

	CHECK_EQ(host_load_sample(&m, "patchme", true), 0);
	sec = elf_find_section(&m.img, "__ksymtab");
	CHECK(sec != 0);
	if (!sec)
		return;
	/* const with relocations, so read-only data: protected after the sort */
	tab = section_address(m.place, &m.dest, sec);
	CHECK(tab >= HOST_CORE_ADDR + m.lay.core.text_size);
	CHECK(tab < HOST_CORE_ADDR + m.lay.core.ro_size);
	n = m.img.shdrs[sec].sh_size / 8;
	CHECK_EQ(n, 4);
	for (i = 0; i < n; i++) {
		uint32_t value = word_at(&m, tab + 8 * i);
		const char *name = (const char *)m.dest.core_buf +
				   (word_at(&m, tab + 8 * i + 4) - HOST_CORE_ADDR);

		CHECK_EQ(value, sym_addr(&m, name));
		found += strcmp(name, "patchme_counter") == 0;
	}
	CHECK_EQ(found, 1);
	host_unload(&m);
}

TEST(user_calls_provider_through_export)
{
	struct host_module m;
	unsigned int i, n, sec, calls = 0;

	CHECK_EQ(host_load_sample(&m, "user", true), 0);
	sec = elf_find_section(&m.img, ".init.text");
	/* every E8 whose rel32 lands on provider_add is the call */
	for (i = 0; i + 5 <= m.img.shdrs[sec].sh_size; i++) {
		uint32_t at = HOST_INIT_ADDR + (m.place[sec] & ~INIT_OFFSET_MASK) + i, rel;

		if (m.dest.init_buf[at - HOST_INIT_ADDR] != 0xe8)
			continue;
		memcpy(&rel, m.dest.init_buf + (at - HOST_INIT_ADDR) + 1, 4);
		calls += at + 5 + rel == host_exports[1].addr;
	}
	n = calls;
	CHECK_EQ(n, 1);
	host_unload(&m);
}

static bool no_symbols(void *ctx, const char *name, uint32_t *addr)
{
	(void)ctx, (void)name, (void)addr;
	return false;
}

TEST(unknown_symbols_are_named)
{
	size_t size;
	void *data = host_read_file("build/modules/user.ko", &size);
	struct host_module m;

	CHECK(data != NULL);
	if (!data)
		return;
	CHECK_EQ(host_load(&m, data, size, true, no_symbols, 1u << 24), -1);
	CHECK(strstr(m.err, "unknown symbol provider_"));
	host_unload(&m);
	CHECK_EQ(host_load(&m, data, size, true, NULL, 1u << 24), -1);
	host_unload(&m);
	free(data);
}

/* The arithmetic itself, on a hand-made two-relocation image. */
TEST(reloc_arithmetic)
{
	static uint32_t file[128] __attribute__((aligned(4)));
	struct {
		Elf32_Ehdr eh;
		uint8_t text[8];
		Elf32_Rel rel[2];
		Elf32_Sym sym[3];
		char strtab[24];
		char shstrtab[43];
	} *f = (void *)file;
	Elf32_Shdr *sh = (Elf32_Shdr *)(file + sizeof(*f) / 4 + 1);
	struct host_module m;
	uint32_t a, b;

	memcpy(f->eh.e_ident, ELFMAG, 4);
	f->eh.e_ident[EI_CLASS] = ELFCLASS32;
	f->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	f->eh.e_ident[EI_VERSION] = EV_CURRENT;
	f->eh.e_type = ET_REL;
	f->eh.e_machine = EM_386;
	f->eh.e_version = EV_CURRENT;
	f->eh.e_ehsize = sizeof(Elf32_Ehdr);
	f->eh.e_shentsize = sizeof(Elf32_Shdr);
	f->eh.e_shoff = (uint8_t *)sh - (uint8_t *)file;
	f->eh.e_shnum = 6;
	f->eh.e_shstrndx = 5;
	/* text: two words with addends 0x10 and -4 */
	a = 0x10;
	b = (uint32_t)-4;
	memcpy(f->text, &a, 4);
	memcpy(f->text + 4, &b, 4);
	f->rel[0].r_offset = 0;
	f->rel[0].r_info = (2 << 8) | R_386_32;		/* printk + 0x10 */
	f->rel[1].r_offset = 4;
	f->rel[1].r_info = (1 << 8) | R_386_PC32;	/* init_module - 4 - P */
	memcpy(f->strtab, "\0init_module\0printk", 20);
	f->sym[1].st_name = 1;
	f->sym[1].st_info = STB_GLOBAL << 4 | STT_FUNC;
	f->sym[1].st_shndx = 1;
	f->sym[2].st_name = 13;
	f->sym[2].st_info = STB_GLOBAL << 4;
	memcpy(f->shstrtab, "\0.text\0.rel.text\0.symtab\0.strtab\0.shstrtab", 43);
#define SEC(i, n, t, fl, field, sz, l, inf, es) \
	sh[i] = (Elf32_Shdr){ n, t, fl, 0, offsetof(__typeof__(*f), field), sz, l, inf, 4, es }
	SEC(1, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text, 8, 0, 0, 0);
	SEC(2, 7, SHT_REL, 0, rel, 16, 3, 1, 8);
	SEC(3, 17, SHT_SYMTAB, 0, sym, 48, 4, 1, 16);
	SEC(4, 25, SHT_STRTAB, 0, strtab, 20, 0, 0, 0);
	SEC(5, 33, SHT_STRTAB, 0, shstrtab, 43, 0, 0, 0);
#undef SEC
	CHECK_EQ(host_load(&m, file, f->eh.e_shoff + 6 * sizeof(Elf32_Shdr), true,
			   host_lookup, 1u << 20), 0);
	if (m.err[0])
		printf("# %s\n", m.err);
	CHECK_EQ(word_at(&m, HOST_CORE_ADDR), host_exports[0].addr + 0x10);
	CHECK_EQ(word_at(&m, HOST_CORE_ADDR + 4), (uint32_t)(HOST_CORE_ADDR - 4 - (HOST_CORE_ADDR + 4)));
	host_unload(&m);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep output if a sanitizer aborts */
	RUN(same_bytes_as_ld_with_ronx);
	RUN(same_bytes_as_ld_packed);
	RUN(patchme_call_site_is_relocated);
	RUN(module_export_table_is_relocated);
	RUN(user_calls_provider_through_export);
	RUN(unknown_symbols_are_named);
	RUN(reloc_arithmetic);
	return check_done();
}
