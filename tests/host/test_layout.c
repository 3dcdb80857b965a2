// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_layout.c - layout_sections() on real gcc-made modules, the page
 * arithmetic of MOD_NUMBER_OF_PAGES and the seed's partial-page rules.
 */
#include "../../modload/errmsg.c"
#include "../../modload/elf_check.c"
#include "../../modload/elf_image.c"
#include "../../modload/layout.c"
#include "../../modload/reloc.c"
#include "check.h"
#include "hostload.h"

#define PAGE 4096u

static uint32_t offset_of(struct host_module *m, const char *section)
{
	return m->place[elf_find_section(&m->img, section)];
}

TEST(number_of_pages)
{
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xf8000000u, 0), 0);
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xf8000000u, 1), 1);
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xf8000000u, PAGE), 1);
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xf8000000u, PAGE + 1), 2);
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xf8000ffeu, 4), 2);	/* straddles */
	CHECK_EQ(MOD_NUMBER_OF_PAGES(0xfffff000u, PAGE), 1);	/* top page, no wrap */
}

TEST(hello_ronx_groups_are_page_aligned)
{
	struct host_module m;

	CHECK_EQ(host_load_sample(&m, "hello", true), 0);
	/* core: .text | .rodata .rodata.str1.1 | .data..ro_after_init | .data .bss */
	CHECK_EQ(m.lay.core.text_size, PAGE);
	CHECK_EQ(m.lay.core.ro_size, 2 * PAGE);
	CHECK_EQ(m.lay.core.ro_after_init_size, 3 * PAGE);
	CHECK_EQ(m.lay.core.size, 4 * PAGE);
	CHECK_EQ(offset_of(&m, ".text"), 0);
	CHECK_EQ(offset_of(&m, ".rodata"), PAGE);
	CHECK_EQ(offset_of(&m, ".data..ro_after_init"), 2 * PAGE);
	CHECK_EQ(offset_of(&m, ".data"), 3 * PAGE);
	/* init: .init.text | (no ro) | (no ro_after_init) | .init.data */
	CHECK_EQ(m.lay.init.text_size, PAGE);
	CHECK_EQ(m.lay.init.ro_size, PAGE);
	CHECK_EQ(m.lay.init.ro_after_init_size, PAGE);
	CHECK_EQ(m.lay.init.size, 2 * PAGE);
	CHECK_EQ(offset_of(&m, ".init.text"), INIT_OFFSET_MASK | 0);
	CHECK_EQ(offset_of(&m, ".init.data"), INIT_OFFSET_MASK | PAGE);
	/* read from the file, never loaded */
	CHECK_EQ(offset_of(&m, ".modinfo"), SEC_NOT_LOADED);
	CHECK_EQ(offset_of(&m, ".comment"), SEC_NOT_LOADED);
	CHECK_EQ(offset_of(&m, ".symtab"), SEC_NOT_LOADED);
	host_unload(&m);
}

TEST(hello_packed_without_ronx)
{
	struct host_module m;

	CHECK_EQ(host_load_sample(&m, "hello", false), 0);
	CHECK_EQ(m.lay.core.text_size, 0x1c);
	CHECK_EQ(offset_of(&m, ".rodata"), 0x1c);		/* align 4 */
	CHECK_EQ(m.lay.core.ro_size, 0x1c + 0x10 + 0x56);
	CHECK(m.lay.core.size < PAGE);
	CHECK(m.lay.init.size < PAGE);
	host_unload(&m);
}

/* Every loaded section sits inside its group, aligned, not overlapping. */
static void check_invariants(struct host_module *m, bool ronx)
{
	const struct mod_region *regions[2] = { &m->lay.core, &m->lay.init };
	unsigned int i, j;

	for (i = 0; i < 2; i++) {
		const struct mod_region *r = regions[i];

		CHECK(r->text_size <= r->ro_size);
		CHECK(r->ro_size <= r->ro_after_init_size);
		CHECK(r->ro_after_init_size <= r->size);
		if (ronx)
			CHECK((r->text_size | r->ro_size | r->ro_after_init_size | r->size) % PAGE == 0);
	}
	for (i = 1; i < m->img.shnum; i++) {
		const Elf32_Shdr *s = &m->img.shdrs[i];
		uint32_t off = m->place[i] & ~INIT_OFFSET_MASK;
		const struct mod_region *r = regions[!!(m->place[i] & INIT_OFFSET_MASK)];

		if (m->place[i] == SEC_NOT_LOADED)
			continue;
		CHECK(off + s->sh_size <= r->size);
		if (s->sh_addralign)
			CHECK_EQ(off % s->sh_addralign, 0);
		if (s->sh_flags & SHF_EXECINSTR)
			CHECK(off + s->sh_size <= r->text_size);
		else if (!(s->sh_flags & SHF_WRITE))
			CHECK(off >= r->text_size && off + s->sh_size <= r->ro_size);
		else
			CHECK(off >= r->ro_size);
		for (j = i + 1; j < m->img.shnum; j++) {
			const Elf32_Shdr *t = &m->img.shdrs[j];
			uint32_t toff = m->place[j];

			if (toff == SEC_NOT_LOADED || s->sh_size == 0 || t->sh_size == 0 ||
			    (toff & INIT_OFFSET_MASK) != (m->place[i] & INIT_OFFSET_MASK))
				continue;
			toff &= ~INIT_OFFSET_MASK;
			CHECK(off + s->sh_size <= toff || toff + t->sh_size <= off);
		}
	}
}

TEST(all_samples_keep_layout_invariants)
{
	const char *names[] = { "hello", "provider", "user", "big", "patchme" };
	struct host_module m;
	size_t i;
	int ronx;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (ronx = 0; ronx < 2; ronx++) {
			CHECK_EQ(host_load_sample(&m, names[i], ronx), 0);
			check_invariants(&m, ronx);
			host_unload(&m);
		}
	}
}

TEST(big_spans_several_pages_per_group)
{
	struct host_module m;
	const struct mod_region *c = &m.lay.core;

	CHECK_EQ(host_load_sample(&m, "big", true), 0);
	CHECK(c->text_size >= 3 * PAGE);
	CHECK(c->ro_size - c->text_size >= 3 * PAGE);
	CHECK(c->ro_after_init_size - c->ro_size >= 3 * PAGE);
	CHECK(c->size - c->ro_after_init_size >= 3 * PAGE);
	CHECK(m.lay.init.size - m.lay.init.ro_after_init_size >= 3 * PAGE);
	host_unload(&m);
}

static struct mod_region region(uint32_t text, uint32_t ro, uint32_t roai, uint32_t size)
{
	struct mod_region r = { text, ro, roai, size };
	return r;
}

#define CHECK_RANGE(range, first, n) do {	\
	CHECK_EQ((range).start, (first));	\
	CHECK_EQ((range).pages, (n));		\
} while (0)

TEST(ro_nx_ranges_when_aligned)
{
	struct mod_region r = region(2 * PAGE, 3 * PAGE, 4 * PAGE, 6 * PAGE);
	struct ronx_ranges x;

	section_ro_nx_ranges(0xf8000000u, &r, &x);
	CHECK_RANGE(x.ro, 0xf8000000u, 3);
	CHECK_RANGE(x.nx, 0xf8002000u, 4);
	CHECK_RANGE(x.ro_after_init, 0xf8003000u, 1);
	CHECK_RANGE(x.text, 0xf8000000u, 2);
	CHECK_RANGE(x.all, 0xf8000000u, 6);
}

TEST(ro_nx_partial_page_rules)
{
	struct mod_region r = region(0x100, 0x1800, 0x1800, 0x2100);
	struct ronx_ranges x;

	section_ro_nx_ranges(0xf8000000u, &r, &x);
	/* RO: the first page; the last partial RO page (0x1000-0x1800) is
	 * shared with data and stays writable */
	CHECK_RANGE(x.ro, 0xf8000000u, 1);
	/* NX: the page shared with text stays executable, the last partial
	 * data page is NX */
	CHECK_RANGE(x.nx, 0xf8001000u, 2);
	CHECK_EQ(x.ro_after_init.pages, 0);
	CHECK_EQ(x.text.pages, 0);		/* text shares its only page */
	CHECK_EQ(x.all.pages, 3);

	/* everything in one partial page: nothing RO, nothing NX */
	r = region(0x80, 0x100, 0x100, 0x200);
	section_ro_nx_ranges(0xf8000000u, &r, &x);
	CHECK_EQ(x.ro.pages, 0);
	CHECK_EQ(x.nx.pages, 0);
	CHECK_EQ(x.all.pages, 1);

	/* no data at all: no NX range */
	r = region(PAGE, PAGE, PAGE, PAGE);
	section_ro_nx_ranges(0xf8000000u, &r, &x);
	CHECK_EQ(x.ro.pages, 1);
	CHECK_EQ(x.nx.pages, 0);

	/* empty region */
	r = region(0, 0, 0, 0);
	section_ro_nx_ranges(0xf8000000u, &r, &x);
	CHECK_EQ(x.ro.pages + x.nx.pages + x.all.pages, 0);
}

TEST(no_text_page_nx_no_data_page_ro)
{
	uint32_t t, ro, sz, seed = 7;
	int i;

	/* random region shapes, alignment off */
	for (i = 0; i < 20000; i++) {
		struct mod_region r;
		struct ronx_ranges x;

		seed = seed * 1103515245 + 12345;
		t = (seed >> 4) % (5 * PAGE);
		ro = t + (seed >> 9) % (3 * PAGE);
		sz = ro + (seed >> 13) % (4 * PAGE);
		r = region(t, ro, ro, sz);
		section_ro_nx_ranges(0xf8000000u, &r, &x);
		/* a page holding text is never NX */
		if (x.nx.pages)
			CHECK(x.nx.start >= 0xf8000000u + t);
		/* a page holding data is never RO */
		CHECK(x.ro.pages == 0 || x.ro.start + x.ro.pages * PAGE <= 0xf8000000u + ro);
		/* the last data page is NX */
		if (sz > t && (sz - 1) / PAGE >= (t + PAGE - 1) / PAGE)
			CHECK_EQ(x.nx.start + x.nx.pages * PAGE, 0xf8000000u + (sz + PAGE - 1) / PAGE * PAGE);
		if (check_failed) {
			printf("# text %x ro %x size %x\n", t, ro, sz);
			break;
		}
	}
}

TEST(oversized_region_is_refused)
{
	char path[] = "build/modules/hello.ko";
	size_t size;
	uint8_t *data = host_read_file(path, &size);
	struct host_module m;
	char err[160];
	struct errmsg e = { err, sizeof(err) };
	struct elf_image img;
	uint32_t place[64];
	struct mod_layout lay;

	CHECK(data != NULL);
	if (!data)
		return;
	CHECK_EQ(elf_check(&img, data, size, &e), 0);
	((Elf32_Shdr *)img.shdrs)[elf_find_section(&img, ".bss")].sh_size = 0xfffff000u;
	CHECK(img.shnum <= 64);
	CHECK_EQ(layout_sections(&img, true, place, &lay, &e), -1);
	CHECK(strstr(err, "core region larger than"));
	CHECK_EQ(host_load(&m, data, size, true, host_lookup, 1u << 24), -1);
	host_unload(&m);
	free(data);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep output if a sanitizer aborts */
	RUN(number_of_pages);
	RUN(hello_ronx_groups_are_page_aligned);
	RUN(hello_packed_without_ronx);
	RUN(all_samples_keep_layout_invariants);
	RUN(big_spans_several_pages_per_group);
	RUN(ro_nx_ranges_when_aligned);
	RUN(ro_nx_partial_page_rules);
	RUN(no_text_page_nx_no_data_page_ro);
	RUN(oversized_region_is_refused);
	return check_done();
}
