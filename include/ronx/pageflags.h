/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RONX_PAGEFLAGS_H
#define RONX_PAGEFLAGS_H
#include <stdbool.h>
#include <stddef.h>
#include <ronx/pgtable_types.h>

/* Level names as in Linux's dump_pagetables. */
#define PTDUMP_LEVEL_PMD 3
#define PTDUMP_LEVEL_PTE 4

void format_page_flags(pteval_t e, enum pg_level level, char *buf, size_t size);
void format_prot(pteval_t prot, int dump_level, char *buf, size_t size);
void format_size(unsigned long long bytes, char *buf, size_t size);
void format_range(unsigned long start, unsigned long long end, pteval_t prot,
		  int dump_level, char *buf, size_t size);


/*
 * Merging a walk into runs of equal attributes (Linux's note_page()).
 * Feed every leaf (and every hole) in address order; emit() gets each
 * finished run. Markers start a new run and are announced before it.
 */
struct ptdump_marker {
	unsigned long start;
	const char *name;
};

struct ptdump_state {
	const struct ptdump_marker *markers;
	int next_marker;
	unsigned long start;
	pteval_t prot;
	int level;
	bool started;
	void (*emit)(void *ctx, const char *line);
	void *ctx;
};

void ptdump_begin(struct ptdump_state *st, const struct ptdump_marker *markers,
		  void (*emit)(void *ctx, const char *line), void *ctx);
void note_page(struct ptdump_state *st, unsigned long addr, pteval_t prot, int level);
void ptdump_end(struct ptdump_state *st);

/* mm/ptdump_walk.c: every pmd and pte under a PDPT, in order, then ptdump_end(). */
extern const struct ptdump_marker ptdump_address_markers[];
void ptdump_walk_tables(struct ptdump_state *st, uint64_t pdpt_phys, pt_read_fn read,
			void *ctx);
#endif
