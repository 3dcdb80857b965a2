// SPDX-License-Identifier: GPL-2.0-only
/*
 * layout.c - seed 003's layout_sections() and set_section_ro_nx() arithmetic.
 */
#include <ronx/string.h>
#include "layout.h"

#define MOD_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))

static uint64_t debug_align(uint64_t x, bool ronx)
{
	return ronx ? MOD_ALIGN_UP(x, MOD_PAGE_SIZE) : x;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool section_is_loaded(const struct elf_image *img, unsigned int i)
{
	const char *name = elf_section_name(img, i);

	/* .modinfo is allocated by gcc but read from the file, never loaded;
	 * an SHT_NULL header is inactive whatever its flags say */
	return (img->shdrs[i].sh_flags & SHF_ALLOC) && img->shdrs[i].sh_type != SHT_NULL &&
	       strcmp(name, ".modinfo") != 0;
}

enum group { GROUP_TEXT, GROUP_RO, GROUP_RO_AFTER_INIT, GROUP_RW, NGROUPS };

/*
 * The seed's masks, in order: a section goes to the first group it fits.
 * ro_after_init is writable in the file, so it is told apart by name
 * before the plain writable group takes it.
 */
static bool in_group(const Elf32_Shdr *s, const char *name, enum group g)
{
	uint32_t f = s->sh_flags;
	bool roai = strcmp(name, ".data..ro_after_init") == 0;

	switch (g) {
	case GROUP_TEXT:
		return (f & (SHF_EXECINSTR | SHF_ALLOC)) == (SHF_EXECINSTR | SHF_ALLOC);
	case GROUP_RO:
		return (f & SHF_ALLOC) && !(f & SHF_WRITE);
	case GROUP_RO_AFTER_INIT:
		return (f & SHF_ALLOC) && roai;
	case GROUP_RW:
		return (f & (SHF_WRITE | SHF_ALLOC)) == (SHF_WRITE | SHF_ALLOC) && !roai;
	default:
		return false;
	}
}

/* Linux's get_offset(): align the running size, then claim the section. */
static uint64_t get_offset(uint64_t *size, const Elf32_Shdr *s)
{
	uint64_t off = MOD_ALIGN_UP(*size, s->sh_addralign ? s->sh_addralign : 1);

	*size = off + s->sh_size;
	return off;
}

static void record_group_end(struct mod_region *r, enum group g, uint64_t size)
{
	switch (g) {
	case GROUP_TEXT:
		r->text_size = size;
		break;
	case GROUP_RO:
		r->ro_size = size;
		break;
	case GROUP_RO_AFTER_INIT:
		r->ro_after_init_size = size;
		break;
	default:
		r->size = size;
	}
}

static int layout_region(const struct elf_image *img, bool ronx, bool init,
			 uint32_t *place, struct mod_region *r, struct errmsg *e)
{
	uint64_t size = 0;
	unsigned int i;
	enum group g;

	for (g = 0; g < NGROUPS; g++) {
		for (i = 1; i < img->shnum; i++) {
			const Elf32_Shdr *s = &img->shdrs[i];
			const char *name = elf_section_name(img, i);

			if (place[i] != SEC_NOT_LOADED || !section_is_loaded(img, i) ||
			    starts_with(name, ".init") != init || !in_group(s, name, g))
				continue;
			place[i] = get_offset(&size, s) | (init ? INIT_OFFSET_MASK : 0);
			if (size > MOD_MAX_REGION)
				return errf(e, "%s region larger than %u bytes at section %s",
					    init ? "init" : "core", MOD_MAX_REGION, name);
		}
		size = debug_align(size, ronx);
		record_group_end(r, g, size);
	}
	return 0;
}

int layout_sections(const struct elf_image *img, bool ronx, uint32_t *place,
		    struct mod_layout *lay, struct errmsg *e)
{
	unsigned int i;

	memset(lay, 0, sizeof(*lay));
	for (i = 0; i < img->shnum; i++)
		place[i] = SEC_NOT_LOADED;
	if (layout_region(img, ronx, false, place, &lay->core, e) ||
	    layout_region(img, ronx, true, place, &lay->init, e))
		return -1;
	return 0;
}

/* Pages wholly or partly covered by [start, end), rounding as the seed does. */
static struct page_range pfn_range(uint64_t begin_pfn, uint64_t end_pfn)
{
	struct page_range p = { 0, 0 };

	if (end_pfn > begin_pfn) {
		p.start = begin_pfn << MOD_PAGE_SHIFT;
		p.pages = end_pfn - begin_pfn;
	}
	return p;
}

#define PFN_DOWN(x)	((uint64_t)(x) >> MOD_PAGE_SHIFT)
#define PFN_UP(x)	(((uint64_t)(x) + MOD_PAGE_SIZE - 1) >> MOD_PAGE_SHIFT)

void section_ro_nx_ranges(uint32_t base, const struct mod_region *r,
			  struct ronx_ranges *out)
{
	uint64_t b = base;

	memset(out, 0, sizeof(*out));
	/* set_page_attributes(base, base + ro_size, set_memory_ro) */
	out->ro = pfn_range(PFN_DOWN(b), PFN_DOWN(b + r->ro_size));
	/* "do not protect first partial page, always protect last page" */
	if (r->size > r->text_size)
		out->nx = pfn_range(PFN_UP(b + r->text_size), PFN_UP(b + r->size));
	out->ro_after_init = pfn_range(PFN_DOWN(b + r->ro_size),
				       PFN_DOWN(b + r->ro_after_init_size));
	out->text = pfn_range(PFN_DOWN(b), PFN_DOWN(b + r->text_size));
	out->all.start = PFN_DOWN(b) << MOD_PAGE_SHIFT;
	out->all.pages = MOD_NUMBER_OF_PAGES(b, r->size);
}

uint32_t section_address(const uint32_t *place, const struct mod_dest *d, unsigned int i)
{
	if (place[i] & INIT_OFFSET_MASK)
		return d->init_addr + (place[i] & ~INIT_OFFSET_MASK);
	return d->core_addr + place[i];
}

uint8_t *section_buffer(const uint32_t *place, const struct mod_dest *d, unsigned int i)
{
	if (place[i] & INIT_OFFSET_MASK)
		return d->init_buf + (place[i] & ~INIT_OFFSET_MASK);
	return d->core_buf + place[i];
}

void copy_sections(const struct elf_image *img, const uint32_t *place,
		   const struct mod_dest *d)
{
	unsigned int i;

	for (i = 1; i < img->shnum; i++) {
		const Elf32_Shdr *s = &img->shdrs[i];

		if (place[i] == SEC_NOT_LOADED || s->sh_size == 0)
			continue;
		if (s->sh_type == SHT_NOBITS)
			memset(section_buffer(place, d, i), 0, s->sh_size);
		else
			memcpy(section_buffer(place, d, i), img->data + s->sh_offset, s->sh_size);
	}
}
