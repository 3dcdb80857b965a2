// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text for page attributes, in the exact shape of Linux's
 * arch/x86/mm/dump_pagetables.c, so that a ronx dump lines up with the
 * dumps in seed 001's commit message:
 *
 *   0xc0000000-0xc00a0000         640K     RW             GLB NX pte
 *
 * Pure: host-tested.
 */
#include <ronx/printk.h>
#include <ronx/string.h>
#include <ronx/pageflags.h>

static const char *const level_name[] = { "cr3", "pgd", "pud", "pmd", "pte" };

/* One column per attribute, blanks where it is absent; prot 0 = not present. */
void format_prot(pteval_t prot, int dump_level, char *buf, size_t size)
{
	if (!(prot & _PAGE_PRESENT)) {
		snprintf(buf, size, "%26s%s", "", level_name[dump_level]);
		return;
	}
	snprintf(buf, size, "%s%s%s%s%s%s%s%s",
		 (prot & _PAGE_USER) ? "USR " : "    ",
		 (prot & _PAGE_RW) ? "RW " : "ro ",
		 (prot & _PAGE_PWT) ? "PWT " : "    ",
		 (prot & _PAGE_PCD) ? "PCD " : "    ",
		 (prot & _PAGE_PSE) ? "PSE " : "    ",
		 (prot & _PAGE_GLOBAL) ? "GLB " : "    ",
		 (prot & _PAGE_NX) ? "NX " : "x  ",
		 level_name[dump_level]);
}

/* Linux prints sizes in the largest of K, M, G that divides them exactly. */
void format_size(unsigned long long bytes, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	unsigned long long n = bytes >> 10;
	int u = 0;

	while (n && !(n & 1023) && units[u + 1]) {
		n >>= 10;
		u++;
	}
	snprintf(buf, size, "%9llu%c", n, units[u]);
}

void format_range(unsigned long start, unsigned long long end, pteval_t prot,
		  int dump_level, char *buf, size_t size)
{
	char sz[16], attrs[64];

	format_size(end - start, sz, sizeof(sz));
	format_prot(prot, dump_level, attrs, sizeof(attrs));
	snprintf(buf, size, "0x%08lx-0x%08llx   %s %s", start,
		 end == 0x100000000ULL ? 0ULL : end, sz, attrs);
}

/* Compact form for one page, used by the oops: "ro GLB NX pte". */
void format_page_flags(pteval_t e, enum pg_level level, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s %s",
		 (e & _PAGE_RW) ? "RW" : "ro",
		 (e & _PAGE_GLOBAL) ? " GLB" : "",
		 (e & _PAGE_NX) ? " NX" : " x",
		 level == PG_LEVEL_2M ? "pmd (2M)" : "pte (4K)");
}

void ptdump_begin(struct ptdump_state *st, const struct ptdump_marker *markers,
		  void (*emit)(void *ctx, const char *line), void *ctx)
{
	*st = (struct ptdump_state){ .markers = markers, .emit = emit, .ctx = ctx };
}

static void flush_run(struct ptdump_state *st, unsigned long long end)
{
	char line[128];

	format_range(st->start, end, st->prot, st->level, line, sizeof(line));
	st->emit(st->ctx, line);
}

static void announce_markers(struct ptdump_state *st, unsigned long addr)
{
	char line[64];

	while (st->markers && st->markers[st->next_marker].name &&
	       st->markers[st->next_marker].start <= addr) {
		snprintf(line, sizeof(line), "---[ %s ]---",
			 st->markers[st->next_marker].name);
		st->emit(st->ctx, line);
		st->next_marker++;
	}
}

static bool at_marker(const struct ptdump_state *st, unsigned long addr)
{
	return st->markers && st->markers[st->next_marker].name &&
	       st->markers[st->next_marker].start <= addr;
}

/* prot: the entry's attribute bits (0 for a hole); level: 3 pmd, 4 pte. */
void note_page(struct ptdump_state *st, unsigned long addr, pteval_t prot, int level)
{
	prot &= PTE_ATTR_MASK;
	if (!(prot & _PAGE_PRESENT))
		prot = 0;
	if (!st->started) {
		announce_markers(st, addr);
	} else if (prot != st->prot || level != st->level || at_marker(st, addr)) {
		flush_run(st, addr);
		announce_markers(st, addr);
	} else {
		return;
	}
	st->started = true;
	st->start = addr;
	st->prot = prot;
	st->level = level;
}

void ptdump_end(struct ptdump_state *st)
{
	if (st->started)
		flush_run(st, 0x100000000ULL);
	st->started = false;
}
