/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout.h - where each section of a module goes (seed 003's layout_sections)
 * and which pages then get which protection (its set_section_ro_nx).
 *
 * A module has two regions, core and init (sections named ".init*", freed
 * after the module's init returns). Each is laid out as
 *
 *   text | read-only data | ro_after_init | read-write data
 *   0    text_size        ro_size          ro_after_init_size     size
 *
 * With module RO/NX on, debug_align() rounds every boundary up to a page so
 * no page mixes two kinds of content. The kernel allocates each region
 * (`size` bytes, page-aligned base, 4 KiB pages), copies each section to
 * base + its offset, zero-fills SHT_NOBITS, and applies the page ranges.
 */
#ifndef RONX_LAYOUT_H
#define RONX_LAYOUT_H
#include <stdint.h>
#include <stdbool.h>
#include "elf_check.h"

#define MOD_PAGE_SHIFT	12
#define MOD_PAGE_SIZE	(1u << MOD_PAGE_SHIFT)
/* A larger module is refused; it also keeps every size sum far from 2^32. */
#define MOD_MAX_REGION	(64u << 20)

/* Given BASE and SIZE, the number of pages the memory region occupies. */
#define MOD_NUMBER_OF_PAGES(base, size) ((size) > 0 ?				\
	(unsigned long)(((uint64_t)(base) + (size) - 1) >> MOD_PAGE_SHIFT) -	\
	(unsigned long)((uint64_t)(base) >> MOD_PAGE_SHIFT) + 1 : 0UL)

/* place[i] for a section that is not loaded */
#define SEC_NOT_LOADED		0xffffffffu
/* set in place[i] when section i goes to the init region (as in Linux) */
#define INIT_OFFSET_MASK	0x80000000u

struct mod_region {
	uint32_t text_size;		/* end of text */
	uint32_t ro_size;		/* end of text + read-only data */
	uint32_t ro_after_init_size;	/* end of ... + .data..ro_after_init */
	uint32_t size;			/* the whole region */
};

struct mod_layout {
	struct mod_region core, init;
};

/* Is section i of a checked image loaded into memory at all? */
bool section_is_loaded(const struct elf_image *img, unsigned int i);

/*
 * Assign every loaded section of IMG an offset in its region. PLACE has
 * img->shnum entries (the caller provides it); place[i] becomes the offset,
 * with INIT_OFFSET_MASK set for the init region, or SEC_NOT_LOADED.
 * RONX selects debug_align(). Returns 0, or -1 (too large) with E set.
 */
int layout_sections(const struct elf_image *img, bool ronx, uint32_t *place,
		    struct mod_layout *lay, struct errmsg *e);

/*
 * Where the regions are: BUF is where this code writes them (module memory
 * in the kernel, a plain buffer on the host), ADDR their run-time address
 * that relocations compute with. In the kernel BUF == (uint8_t *)ADDR.
 * Each buffer holds at least its region's `size` bytes.
 */
struct mod_dest {
	uint8_t *core_buf, *init_buf;
	uint32_t core_addr, init_addr;
};

/* Copy each loaded section from the file to its place; zero SHT_NOBITS. */
void copy_sections(const struct elf_image *img, const uint32_t *place,
		   const struct mod_dest *d);
/* Run-time address of loaded section i. */
uint32_t section_address(const uint32_t *place, const struct mod_dest *d, unsigned int i);
/* Where this code may write loaded section i. */
uint8_t *section_buffer(const uint32_t *place, const struct mod_dest *d, unsigned int i);

/* A run of pages: the first page's address and how many. */
struct page_range {
	uint32_t start;
	uint32_t pages;
};

/*
 * The seed's set_section_ro_nx() arithmetic for a region at BASE:
 * ro: [base, base+ro_size) rounded down at both ends, so the first page is
 *     always protected and a last partial page (shared with data) is not;
 * nx: [base+text_size, base+size) rounded up at both ends, so a first
 *     partial page (shared with text) stays executable and the last page is
 *     always NX.
 * ro_after_init: the ro_after_init pages, made RO after init returns
 *     (rounded down at both ends, like ro).
 * text: the text pages that set_all_modules_text_rw/ro() toggle.
 * all: every page of the region (unset_section_ro_nx makes them RW+NX).
 */
struct ronx_ranges {
	struct page_range ro, nx, ro_after_init, text, all;
};

void section_ro_nx_ranges(uint32_t base, const struct mod_region *r,
			  struct ronx_ranges *out);

#endif
