/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `walk VA`: one address's page walk, level by level, the permission it
 * ends in and why, and the region of the policy it belongs to.
 *
 * Pure (mm/walk_format.c, mm/va_region.c): the kernel's shell command
 * (kernel/shell/walk.c), the host tests and gdb's ronx-walk (tools/gdb/ronx.py,
 * through build/host/libronx-pt.so) all print with the same code.
 */
#ifndef RONX_WALK_H
#define RONX_WALK_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <ronx/pgtable_types.h>

/* Under PAE, CR3 bits 31-5 hold the PDPT's physical address. */
#define CR3_PDPT_MASK	0xffffffe0ULL

typedef void (*emit_fn)(void *ctx, const char *line);

struct pt_walk {
	uint32_t va;
	uint64_t cr3;
	bool wp;		/* CR0.WP: ring 0 obeys RW */
	bool nxe;		/* EFER.NXE: bit 63 means NX (else it is reserved) */
	int depth;		/* entries read: 1 PDPTE, 2 and the PDE, 3 and the PTE */
	bool unreadable;	/* the next table could not be read */
	pteval_t pdpte, pde, pte;
};

void pt_walk(struct pt_walk *w, uint32_t va, uint64_t cr3, pt_read_fn read, void *ctx);
bool pt_walk_present(const struct pt_walk *w);
bool pt_walk_is_2m(const struct pt_walk *w);
/* "RW+NX", "RO+X", or "not mapped" */
const char *pt_walk_perm(const struct pt_walk *w);
/* Every line of the walk's explanation, region last. */
void pt_walk_print(const struct pt_walk *w, const char *region, emit_fn emit, void *ctx);

/* Parses "0xc0100000" or "c0100000" (hex); 0 or a one-line error
 * (which says a function name would do too: the shell tries those first). */
int parse_va(const char *s, uint32_t *va, char *err, size_t errlen);

/* The regions of the policy, as the image and the modules lay them out. */
struct mod_span {
	const char *name;
	uint32_t base;		/* 0: not present */
	uint32_t text, ro, ro_after_init, size;	/* group ends, offsets from base */
	bool init;		/* the init region (else core) */
	bool freed;		/* init region already freed: [base, base + size) */
};

struct va_layout {
	uint32_t text, etext, rodata, end_rodata, ro_after_init, end_ro_after_init;
	uint32_t sdata, edata, init_begin, init_end, bss_start, bss_stop, end;
	uint32_t direct_map_end;	/* PAGE_OFFSET + low memory mapped */
	bool init_freed;		/* free_initmem() has run */
	bool bios_hole_x;		/* 640K-1M declared executable (PCI BIOS in use) */
	const struct mod_span *mods;
	int nr_mods;
};

void va_region_name(const struct va_layout *l, uint32_t va, char *buf, size_t size);
#endif
