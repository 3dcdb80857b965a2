/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PAE page-table entries and index math. Pure: the host unit tests use it.
 *
 * A 32-bit virtual address under PAE splits 2 + 9 + 9 + 12:
 *   bits 31-30 pick one of 4 PDPT entries (Linux's pgd),
 *   bits 29-21 one of 512 page-directory entries (pmd),
 *   bits 20-12 one of 512 page-table entries (pte).
 * Entries are 64 bits wide so that bit 63 can be NX.
 */
#ifndef RONX_PGTABLE_TYPES_H
#define RONX_PGTABLE_TYPES_H
#include <stdint.h>

typedef uint64_t pteval_t;

#define _PAGE_PRESENT	(1ULL << 0)
#define _PAGE_RW	(1ULL << 1)
#define _PAGE_USER	(1ULL << 2)
#define _PAGE_PWT	(1ULL << 3)
#define _PAGE_PCD	(1ULL << 4)
#define _PAGE_ACCESSED	(1ULL << 5)
#define _PAGE_DIRTY	(1ULL << 6)
#define _PAGE_PSE	(1ULL << 7)	/* in a pmd: maps a 2 MiB page */
#define _PAGE_GLOBAL	(1ULL << 8)
#define _PAGE_PROTNONE	(1ULL << 9)	/* software bit, in a not-present user pte: PROT_NONE */
#define _PAGE_NX	(1ULL << 63)

/* Physical address bits of an entry (PAE supports up to 52 here). */
#define PTE_PFN_MASK	0x000ffffffffff000ULL
#define PMD_PFN_MASK	0x000fffffffe00000ULL

/* The attribute bits that a dump or an audit compares. */
#define PTE_ATTR_MASK	(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_PWT | \
			 _PAGE_PCD | _PAGE_PSE | _PAGE_GLOBAL | _PAGE_NX)

#define PTRS_PER_PGD	4
#define PTRS_PER_PMD	512
#define PTRS_PER_PTE	512

static inline unsigned pgd_index(uint32_t va) { return va >> 30; }
static inline unsigned pmd_index(uint32_t va) { return (va >> 21) & 511; }
static inline unsigned pte_index(uint32_t va) { return (va >> 12) & 511; }

/*
 * How pure code reads page tables: n 64-bit entries at a physical address,
 * or 0 when that memory cannot be read. The answer must stay valid until
 * the walk that asked for it ends. The kernel reads through its direct map (pt_read_direct_map),
 * gdb reads the guest's physical memory (tools/gdb/ronx.py).
 */
typedef const pteval_t *(*pt_read_fn)(void *ctx, uint64_t phys, unsigned n);

/* Levels as Linux's lookup_address() reports them. */
enum pg_level { PG_LEVEL_NONE, PG_LEVEL_4K, PG_LEVEL_2M, PG_LEVEL_1G };

#define PAGE_KERNEL_EXEC	(_PAGE_PRESENT | _PAGE_RW | _PAGE_GLOBAL)
#define PAGE_KERNEL		(PAGE_KERNEL_EXEC | _PAGE_NX)
#define PAGE_KERNEL_RO		(_PAGE_PRESENT | _PAGE_GLOBAL | _PAGE_NX)
#define PAGE_KERNEL_RX		(_PAGE_PRESENT | _PAGE_GLOBAL)
/* A page-directory entry that points to a page table: the leaf decides. */
#define _PAGE_TABLE		(_PAGE_PRESENT | _PAGE_RW)
#endif
