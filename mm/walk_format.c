// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page walk of one address, explained (the shell's `walk VA`, gdb's
 * ronx-walk): every entry with its raw value and its bits, then the
 * permission the CPU will enforce and why.
 *
 * The "why" matters most under PAE: a PDPT entry has no RW, US or NX bit
 * (they are reserved), so the PDE and the PTE decide alone. A walk that
 * folds RW down from the PDPTE, as Linux 6.1's W+X audit does on 32-bit
 * PAE, finds every page read-only and so never sees a W+X page.
 *
 * Pure: host-tested, and built into build/host/libronx-pt.so for gdb.
 */
#include <stdint.h>
#include <ronx/compiler.h>
#include <ronx/printk.h>
#include <ronx/kstrtox.h>
#include <ronx/walk.h>
#include <ronx/ptdump.h>

static const char *const level_names[3] = { "PDPTE", "PDE", "PTE" };

/* level 0 PDPTE, 1 PDE, 2 PTE */
static unsigned level_index(uint32_t va, int level)
{
	return level == 0 ? pgd_index(va) : level == 1 ? pmd_index(va) : pte_index(va);
}

/* The walk itself; read() gets the physical address of each entry. */
void pt_walk(struct pt_walk *w, uint32_t va, uint64_t cr3, pt_read_fn read, void *ctx)
{
	uint64_t table = cr3 & CR3_PDPT_MASK;
	pteval_t *slot[3] = { &w->pdpte, &w->pde, &w->pte };

	w->va = va;
	w->cr3 = cr3;
	w->depth = 0;
	w->unreadable = false;
	w->pdpte = w->pde = w->pte = 0;
	for (int level = 0; level < 3; level++) {
		const pteval_t *e = read(ctx, table + 8ULL * level_index(va, level), 1);

		if (!e) {
			w->unreadable = true;
			return;
		}
		*slot[level] = *e;
		w->depth = level + 1;
		if (!(*e & _PAGE_PRESENT) || (level == 1 && (*e & _PAGE_PSE)))
			return;
		table = *e & PTE_PFN_MASK;
	}
}

bool pt_walk_is_2m(const struct pt_walk *w)
{
	return w->depth == 2 && (w->pde & _PAGE_PRESENT) && (w->pde & _PAGE_PSE);
}

static pteval_t leaf(const struct pt_walk *w)
{
	return w->depth == 3 ? w->pte : w->pde;
}

bool pt_walk_present(const struct pt_walk *w)
{
	return (w->depth == 3 || pt_walk_is_2m(w)) && (leaf(w) & _PAGE_PRESENT);
}

/*
 * The verdict is effective_prot()'s (mm/effective_prot.c), the rule the
 * W^X audit decides with: one implementation, so that a lab tree where it
 * is the student's shows the student's verdict beside the raw entries.
 * NX means something only if EFER.NXE gives bit 63 a meaning.
 */
static pteval_t walk_prot(const struct pt_walk *w)
{
	if (!pt_walk_present(w))
		return 0;
	return effective_prot(w->pdpte, w->pde, w->depth == 3 ? &w->pte : NULL);
}

static bool writable(const struct pt_walk *w)
{
	return walk_prot(w) & _PAGE_RW;
}

static bool executable(const struct pt_walk *w)
{
	return !w->nxe || !(walk_prot(w) & _PAGE_NX);
}

/* US must be set at the PDE and at the PTE for ring 3 (the PDPTE has no US bit). */
static bool user_ok(const struct pt_walk *w)
{
	return (w->pde & _PAGE_USER) && (w->depth < 3 || (w->pte & _PAGE_USER));
}

const char *pt_walk_perm(const struct pt_walk *w)
{
	static const char *const perm[2][2] = { { "RO+NX", "RO+X" }, { "RW+NX", "RW+X" } };

	if (!(walk_prot(w) & _PAGE_PRESENT))
		return "not mapped";
	return perm[writable(w)][executable(w)];
}

/* "P=1 RW=0 ..." for the bits this level defines; bit 7 is PS in a PDE, PAT in a PTE. */
static void decode_bits(pteval_t e, int level, char *buf, size_t size)
{
	if (level == 0) {
		snprintf(buf, size, "P=%d PWT=%d PCD=%d", (int)(e & 1), (int)(e >> 3 & 1),
			 (int)(e >> 4 & 1));
		return;
	}
	snprintf(buf, size, "P=%d RW=%d US=%d PWT=%d PCD=%d A=%d D=%d %s=%d G=%d NX=%d",
		 (int)(e & 1), (int)(e >> 1 & 1), (int)(e >> 2 & 1), (int)(e >> 3 & 1),
		 (int)(e >> 4 & 1), (int)(e >> 5 & 1), (int)(e >> 6 & 1),
		 level == 1 ? "PS" : "PAT", (int)(e >> 7 & 1), (int)(e >> 8 & 1),
		 (int)(e >> 63));
}

/* "-> page table at 0x00151000": what a present entry points to. */
static void target(pteval_t e, int level, char *buf, size_t size)
{
	bool large = level == 1 && (e & _PAGE_PSE);
	const char *what = level == 0 ? "page directory" : level == 2 ? "4K page" :
			   large ? "2M page" : "page table";

	if (!(e & _PAGE_PRESENT))
		snprintf(buf, size, "-> not present");
	else
		snprintf(buf, size, "-> %s at 0x%08llx", what,
			 (unsigned long long)(e & (large ? PMD_PFN_MASK : PTE_PFN_MASK)));
}

static void print_entry(const struct pt_walk *w, int level, emit_fn emit, void *ctx)
{
	const pteval_t e = level == 0 ? w->pdpte : level == 1 ? w->pde : w->pte;
	char tag[16], bits[96], to[48], line[224];

	snprintf(tag, sizeof(tag), "%s[%u]", level_names[level], level_index(w->va, level));
	decode_bits(e, level, bits, sizeof(bits));
	target(e, level, to, sizeof(to));
	snprintf(line, sizeof(line), "%-11s 0x%016llx  %s %s", tag, (unsigned long long)e,
		 bits, to);
	emit(ctx, line);
}

/*
 * "PDE.RW and PTE.RW both set", "PTE.RW clear (PDE.RW set)": one bit at
 * the PDE and the PTE, naming first the level whose value (cause) decides.
 */
static void name_bit(const struct pt_walk *w, pteval_t bit, const char *bitname,
		     bool cause, char *buf, size_t size)
{
	bool pde = w->pde & bit, pte = w->depth == 3 && (w->pte & bit);

	if (w->depth < 3)
		snprintf(buf, size, "PDE.%s %s (2M page: the PDE is the leaf)", bitname,
			 pde ? "set" : "clear");
	else if (pde == pte)
		snprintf(buf, size, "PDE.%s and PTE.%s both %s", bitname, bitname,
			 pde ? "set" : "clear");
	else if (pde == cause)
		snprintf(buf, size, "PDE.%s %s (PTE.%s %s)", bitname, pde ? "set" : "clear",
			 bitname, pte ? "set" : "clear");
	else
		snprintf(buf, size, "PTE.%s %s (PDE.%s %s)", bitname, pte ? "set" : "clear",
			 bitname, pde ? "set" : "clear");
}

static void print_reason(const struct pt_walk *w, emit_fn emit, void *ctx)
{
	char why[96], line[224];

	name_bit(w, _PAGE_RW, "RW", false, why, sizeof(why));
	snprintf(line, sizeof(line), "  %s: %s%s", writable(w) ? "writable" : "read-only",
		 why, w->wp ? "" : "; CR0.WP is clear, so ring 0 writes anyway");
	emit(ctx, line);
	if (!w->nxe)
		snprintf(line, sizeof(line),
			 "  executable: EFER.NXE is off, so no page can be NX (bit 63 is reserved)");
	else if (executable(w))
		snprintf(line, sizeof(line), "  executable: no NX at any level");
	else {
		name_bit(w, _PAGE_NX, "NX", true, why, sizeof(why));
		snprintf(line, sizeof(line), "  not executable: %s", why);
	}
	emit(ctx, line);
	name_bit(w, _PAGE_USER, "US", false, why, sizeof(why));
	snprintf(line, sizeof(line), "  %s: %s", user_ok(w) ? "user: ring 3 may use it" :
		 "supervisor only: ring 3 faults on it", why);
	emit(ctx, line);
	emit(ctx, "  PAE: the PDPTE has no RW, US or NX bit, so the PDE and PTE decide "
		  "(a walk that folds RW down from the PDPTE, like Linux's PAE W+X audit, "
		  "sees nothing writable)");
}

static void print_not_mapped(const struct pt_walk *w, emit_fn emit, void *ctx)
{
	char line[128];

	if (w->unreadable)
		snprintf(line, sizeof(line),
			 "effective: not mapped? the table after %s could not be read",
			 w->depth ? level_names[w->depth - 1] : "CR3");
	else
		snprintf(line, sizeof(line), "effective: not mapped (%s.P clear)",
			 level_names[w->depth - 1]);
	emit(ctx, line);
}

void pt_walk_print(const struct pt_walk *w, const char *region, emit_fn emit, void *ctx)
{
	char line[224];

	snprintf(line, sizeof(line), "walk 0x%08x", (unsigned)w->va);
	emit(ctx, line);
	snprintf(line, sizeof(line), "%-11s 0x%08llx          -> PDPT at 0x%08llx", "CR3",
		 (unsigned long long)w->cr3, (unsigned long long)(w->cr3 & CR3_PDPT_MASK));
	emit(ctx, line);
	for (int level = 0; level < w->depth; level++)
		print_entry(w, level, emit, ctx);
	if (!pt_walk_present(w)) {
		print_not_mapped(w, emit, ctx);
	} else {
		uint64_t off = w->va & (pt_walk_is_2m(w) ? 0x1fffff : 0xfff);
		uint64_t base = leaf(w) & (pt_walk_is_2m(w) ? PMD_PFN_MASK : PTE_PFN_MASK);

		snprintf(line, sizeof(line), "phys:       0x%08llx",
			 (unsigned long long)(base + off));
		emit(ctx, line);
		if (walk_prot(w) & _PAGE_PRESENT) {
			snprintf(line, sizeof(line), "effective: %s", pt_walk_perm(w));
			emit(ctx, line);
			print_reason(w, emit, ctx);
		} else {
			emit(ctx, "effective: not mapped (effective_prot() says so, though the "
				  "entries above end in a present leaf)");
		}
	}
	snprintf(line, sizeof(line), "region: %s", region);
	emit(ctx, line);
}

/* A hex address, 0x optional; err names what is wrong with it. */
int parse_va(const char *s, uint32_t *va, char *err, size_t errlen)
{
	unsigned int v;
	int ret = kstrtouint(s, 16, &v);

	if (ret == -ERANGE)
		snprintf(err, errlen, "'%s' does not fit in 32 bits (0x0-0xffffffff)", s);
	else if (ret)
		snprintf(err, errlen, "'%s' is neither a hex address (like 0xc0100000) nor a kernel function", s);
	if (ret)
		return -1;
	*va = v;
	return 0;
}
