// SPDX-License-Identifier: GPL-2.0-only
/*
 * `walk VA` and the table walk under ptdump, on page tables built in a
 * fake physical memory: the walk, the effective permission and its
 * reason, the region names, the address parser (mm/walk_format.c,
 * mm/va_region.c, mm/ptdump_walk.c).
 */
#include <string.h>
#include "check.h"
#include "../../kernel/vsprintf.c"
#include "../../kernel/kstrtox.c"
#include "../../mm/ptdump_format.c"
#include "../../mm/ptdump_walk.c"
#include "../../mm/effective_prot.c"
#include "../../mm/walk_format.c"
#include "../../mm/va_region.c"

/* 16 pages of "physical memory" at 0x100000. */
#define MEM_BASE 0x100000ULL
static pteval_t mem[16][512];
static int reads;

static const pteval_t *fake_read(void *ctx, uint64_t phys, unsigned n)
{
	(void)ctx;
	reads++;
	if (phys < MEM_BASE || phys + 8ULL * n > MEM_BASE + sizeof(mem) || phys % 8)
		return 0;
	return &mem[0][0] + (phys - MEM_BASE) / 8;
}

static uint64_t page(int i) { return MEM_BASE + 4096ULL * (unsigned)i; }

/*
 * CR3 -> PDPT in page 0 (at +0x100, as CR3 need only be 32-byte aligned),
 * PDPTE[3] -> page directory in page 1. PDE[0] -> page table in page 2,
 * PDE[2] a 2M page, PDE[3] a table that is not in "memory".
 */
#define CR3 (page(0) + 0x100)
static void build_tables(void)
{
	memset(mem, 0, sizeof(mem));
	mem[0][0x100 / 8 + 3] = page(1) | _PAGE_PRESENT;
	mem[1][0] = page(2) | _PAGE_TABLE;
	mem[1][2] = 0x400000 | PAGE_KERNEL | _PAGE_PSE;
	mem[1][3] = 0x7f000000 | _PAGE_TABLE;
	mem[2][256] = 0x100000 | PAGE_KERNEL_RX;		/* text */
	mem[2][257] = 0x101000 | PAGE_KERNEL_RO;		/* rodata */
	mem[2][258] = 0x102000 | PAGE_KERNEL;			/* data */
	mem[2][160] = 0x0a0000 | PAGE_KERNEL_EXEC;		/* the BIOS hole */
}

struct lines {
	char text[32][256];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	if (l->n < 32)
		snprintf(l->text[l->n++], sizeof(l->text[0]), "%s", line);
}

static bool has_line(const struct lines *l, const char *want)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->text[i], want))
			return true;
	printf("# no line '%s' among:\n", want);
	for (int i = 0; i < l->n; i++)
		printf("#   %s\n", l->text[i]);
	return false;
}

static struct pt_walk walk(uint32_t va)
{
	struct pt_walk w;

	pt_walk(&w, va, CR3, fake_read, 0);
	w.wp = w.nxe = true;
	return w;
}

static struct lines print(const struct pt_walk *w, const char *region)
{
	struct lines l = { .n = 0 };

	pt_walk_print(w, region, collect, &l);
	return l;
}

TEST(walk_4k_levels_and_raw_values)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	w = walk(0xc0100000);
	CHECK_EQ(w.depth, 3);
	CHECK_EQ(w.pdpte, page(1) | 1);
	CHECK_EQ(w.pde, page(2) | _PAGE_TABLE);
	CHECK_EQ(w.pte, 0x100000 | PAGE_KERNEL_RX);
	CHECK(pt_walk_present(&w) && !pt_walk_is_2m(&w));
	CHECK(!strcmp(pt_walk_perm(&w), "RO+X"));
	l = print(&w, "kernel text");
	CHECK(has_line(&l, "walk 0xc0100000"));
	CHECK(has_line(&l, "CR3         0x00100100          -> PDPT at 0x00100100"));
	CHECK(has_line(&l, "PDPTE[3]    0x0000000000101001  P=1 PWT=0 PCD=0 -> page directory at 0x00101000"));
	CHECK(has_line(&l, "PDE[0]      0x0000000000102003  P=1 RW=1 US=0 PWT=0 PCD=0 A=0 D=0 PS=0 G=0 NX=0 -> page table at 0x00102000"));
	CHECK(has_line(&l, "PTE[256]    0x0000000000100101  P=1 RW=0 US=0 PWT=0 PCD=0 A=0 D=0 PAT=0 G=1 NX=0 -> 4K page at 0x00100000"));
	CHECK(has_line(&l, "effective: RO+X"));
	CHECK(has_line(&l, "  read-only: PTE.RW clear (PDE.RW set)"));
	CHECK(has_line(&l, "  executable: no NX at any level"));
	CHECK(has_line(&l, "region: kernel text"));
}

TEST(walk_2m_page_stops_at_the_pde)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	w = walk(0xc0412345);
	CHECK_EQ(w.depth, 2);
	CHECK(pt_walk_is_2m(&w));
	CHECK(!strcmp(pt_walk_perm(&w), "RW+NX"));
	l = print(&w, "direct map");
	CHECK(has_line(&l, "PDE[2]      0x8000000000400183  P=1 RW=1 US=0 PWT=0 PCD=0 A=0 D=0 PS=1 G=1 NX=1 -> 2M page at 0x00400000"));
	CHECK(has_line(&l, "phys:       0x00412345"));
	CHECK(has_line(&l, "  writable: PDE.RW set (2M page: the PDE is the leaf)"));
	CHECK(has_line(&l, "  not executable: PDE.NX set (2M page: the PDE is the leaf)"));
}

/* The PAE point: the PDPTE has no RW bit, yet the page is writable. */
TEST(pdpte_does_not_decide)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	w = walk(0xc00a0000);
	CHECK(!(w.pdpte & _PAGE_RW));
	CHECK(!strcmp(pt_walk_perm(&w), "RW+X"));
	l = print(&w, "the BIOS hole");
	CHECK(has_line(&l, "  writable: PDE.RW and PTE.RW both set"));
	CHECK(has_line(&l, "  PAE: the PDPTE has no RW, US or NX bit, so the PDE and PTE decide "
			   "(a walk that folds RW down from the PDPTE, like Linux's PAE W+X audit, "
			   "sees nothing writable)"));
}

TEST(pde_bits_count_for_4k_pages)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	mem[1][0] &= ~_PAGE_RW;
	mem[1][0] |= _PAGE_NX;
	w = walk(0xc0102000);		/* PTE RW+NX, PDE read-only and NX */
	CHECK(!strcmp(pt_walk_perm(&w), "RO+NX"));
	l = print(&w, "kernel data");
	CHECK(has_line(&l, "  read-only: PDE.RW clear (PTE.RW set)"));
	CHECK(has_line(&l, "  not executable: PDE.NX and PTE.NX both set"));
	w = walk(0xc0100000);		/* PTE RO+X under an NX PDE */
	l = print(&w, "kernel text");
	CHECK(!strcmp(pt_walk_perm(&w), "RO+NX"));
	CHECK(has_line(&l, "  not executable: PDE.NX set (PTE.NX clear)"));
	CHECK(has_line(&l, "  read-only: PDE.RW and PTE.RW both clear"));
}

TEST(nxe_and_wp_off)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	w = walk(0xc0101000);
	w.nxe = false;
	w.wp = false;
	CHECK(!strcmp(pt_walk_perm(&w), "RO+X"));
	l = print(&w, "kernel rodata");
	CHECK(has_line(&l, "  executable: EFER.NXE is off, so no page can be NX (bit 63 is reserved)"));
	CHECK(has_line(&l, "  read-only: PTE.RW clear (PDE.RW set); CR0.WP is clear, so ring 0 writes anyway"));
}

TEST(not_mapped_at_each_level)
{
	struct pt_walk w;
	struct lines l;

	build_tables();
	w = walk(0x10000000);		/* PDPTE[0] not present */
	CHECK_EQ(w.depth, 1);
	CHECK(!pt_walk_present(&w));
	CHECK(!strcmp(pt_walk_perm(&w), "not mapped"));
	l = print(&w, "unmapped");
	CHECK(has_line(&l, "PDPTE[0]    0x0000000000000000  P=0 PWT=0 PCD=0 -> not present"));
	CHECK(has_line(&l, "effective: not mapped (PDPTE.P clear)"));
	w = walk(0xc0800000);		/* PDE[4] not present */
	CHECK_EQ(w.depth, 2);
	l = print(&w, "x");
	CHECK(has_line(&l, "effective: not mapped (PDE.P clear)"));
	w = walk(0xc0103000);		/* PTE[259] not present */
	CHECK_EQ(w.depth, 3);
	l = print(&w, "x");
	CHECK(has_line(&l, "effective: not mapped (PTE.P clear)"));
	w = walk(0xc0600000);		/* PDE[3] points outside memory */
	CHECK(w.unreadable);
	CHECK_EQ(w.depth, 2);
	l = print(&w, "x");
	CHECK(has_line(&l, "effective: not mapped? the table after PDE could not be read"));
	pt_walk(&w, 0xc0000000, 0x40, fake_read, 0);	/* CR3 itself unreadable */
	CHECK(w.unreadable && w.depth == 0);
	l = print(&w, "x");
	CHECK(has_line(&l, "effective: not mapped? the table after CR3 could not be read"));
}

TEST(parse_va_accepts_hex_and_names_bad_input)
{
	char err[96];
	uint32_t va = 0;

	CHECK_EQ(parse_va("0xc0100000", &va, err, sizeof(err)), 0);
	CHECK_EQ(va, 0xc0100000);
	CHECK_EQ(parse_va("C00A0000", &va, err, sizeof(err)), 0);
	CHECK_EQ(va, 0xc00a0000);
	CHECK_EQ(parse_va("0xffffffff", &va, err, sizeof(err)), 0);
	CHECK_EQ(va, 0xffffffff);
	CHECK_EQ(parse_va("xyz", &va, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "'xyz' is neither a hex address (like 0xc0100000) nor a kernel function"));
	CHECK_EQ(parse_va("0x", &va, err, sizeof(err)), -1);
	CHECK_EQ(parse_va("", &va, err, sizeof(err)), -1);
	CHECK_EQ(parse_va("0x12g", &va, err, sizeof(err)), -1);
	CHECK_EQ(parse_va("0x1234567890", &va, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "'0x1234567890' does not fit in 32 bits (0x0-0xffffffff)"));
	CHECK_EQ(parse_va("0x100000000", &va, err, sizeof(err)), -1);
	CHECK_EQ(parse_va("0x00000000ffffffff", &va, err, sizeof(err)), 0);
}

static const struct mod_span mods[] = {
	{ "hello", 0xf8000000, 0x1000, 0x2000, 0x3000, 0x4000, false, false },
	{ "hello", 0xf8004000, 0, 0, 0, 0x2000, true, true },
	{ "user", 0xf8006000, 0x1000, 0x1000, 0x1000, 0x2000, false, false },
	{ "user", 0xf8008000, 0x1000, 0x2000, 0x2000, 0x3000, true, false },
	/* loaded later into the second page of hello's freed init */
	{ "late", 0xf8005000, 0x1000, 0x1000, 0x1000, 0x1000, false, false },
};

static const struct va_layout layout = {
	0xc0100000, 0xc010d000, 0xc010d000, 0xc0115000, 0xc0115000, 0xc0116000,
	0xc0116000, 0xc0118000, 0xc0118000, 0xc011b000, 0xc011b000, 0xc0130000, 0xc0130000,
	0xc7fe0000, true, true, mods, 5,
};

static bool region_is(const struct va_layout *l, uint32_t va, const char *want)
{
	char buf[128];

	va_region_name(l, va, buf, sizeof(buf));
	if (strcmp(buf, want))
		printf("# 0x%08x: '%s', want '%s'\n", (unsigned)va, buf, want);
	return !strcmp(buf, want);
}

TEST(regions_of_the_policy)
{
	struct va_layout l = layout;

	CHECK(region_is(&l, 0x00000000, "unmapped: user space (ronx maps nothing below 0xc0000000)"));
	CHECK(region_is(&l, 0xc0000000, "low 640K (direct map)"));
	CHECK(region_is(&l, 0xc009ffff, "low 640K (direct map)"));
	CHECK(region_is(&l, 0xc00a0000, "the BIOS hole 640K-1M (declared RW+X: the PCI BIOS is in use)"));
	CHECK(region_is(&l, 0xc0100000, "kernel text"));
	CHECK(region_is(&l, 0xc010cfff, "kernel text"));
	CHECK(region_is(&l, 0xc010d000, "kernel rodata"));
	CHECK(region_is(&l, 0xc0115000, "kernel ro_after_init"));
	CHECK(region_is(&l, 0xc0117000, "kernel data"));
	CHECK(region_is(&l, 0xc0118000, "kernel init (freed: RW+NX, back in the page allocator)"));
	CHECK(region_is(&l, 0xc011b000, "kernel bss"));
	CHECK(region_is(&l, 0xc0130000, "direct map"));
	CHECK(region_is(&l, 0xc7fdffff, "direct map"));
	CHECK(region_is(&l, 0xc7fe0000, "unmapped: nothing is mapped here"));
	CHECK(region_is(&l, 0xf8000000, "module hello: core text"));
	CHECK(region_is(&l, 0xf8001000, "module hello: core rodata"));
	CHECK(region_is(&l, 0xf8002fff, "module hello: core ro_after_init"));
	CHECK(region_is(&l, 0xf8003000, "module hello: core data"));
	CHECK(region_is(&l, 0xf8004000, "module hello: init (freed)"));
	CHECK(region_is(&l, 0xf8005000, "module late: core text"));
	CHECK(region_is(&l, 0xf8006000, "module user: core text"));
	CHECK(region_is(&l, 0xf8007000, "module user: core data"));
	CHECK(region_is(&l, 0xf8009000, "module user: init rodata"));
	CHECK(region_is(&l, 0xf800b000, "module area (no module here)"));
	CHECK(region_is(&l, 0xfc000000, "text patching alias area"));
	CHECK(region_is(&l, 0xfe000000, "kernel stack area: a guard page (never mapped)"));
	CHECK(region_is(&l, 0xfe001000, "kernel stack area: a slot's stack pages (mapped while a task has the slot)"));
	CHECK(region_is(&l, 0xfe007fff, "kernel stack area: a slot's stack pages (mapped while a task has the slot)"));
	CHECK(region_is(&l, 0xfe008fff, "kernel stack area: a guard page (never mapped)"));
	CHECK(region_is(&l, 0xfe200000, "unmapped: nothing is mapped here"));
	l.init_freed = false;
	l.bios_hole_x = false;
	CHECK(region_is(&l, 0xc011a000, "kernel init (not freed yet)"));
	CHECK(region_is(&l, 0xc00fffff, "the BIOS hole 640K-1M (not declared: the PCI BIOS is not in use)"));
}

/* The table walk under ptdump: markers, runs, a 2M page, a missing table. */
TEST(ptdump_walk_tables_on_fake_tables)
{
	struct ptdump_state st;
	struct lines l = { .n = 0 };

	build_tables();
	mem[0][0x100 / 8 + 0] = page(3) | _PAGE_PRESENT;	/* empty user directory */
	ptdump_begin(&st, ptdump_address_markers, collect, &l);
	ptdump_walk_tables(&st, CR3, fake_read, 0);
	CHECK(has_line(&l, "---[ User Space ]---"));
	CHECK(has_line(&l, "0x00000000-0xc0000000           3G                           pmd"));
	CHECK(has_line(&l, "---[ Kernel Mapping ]---"));
	CHECK(has_line(&l, "0xc00a0000-0xc00a1000           4K     RW             GLB x  pte"));
	CHECK(has_line(&l, "0xc0100000-0xc0101000           4K     ro             GLB x  pte"));
	CHECK(has_line(&l, "0xc0101000-0xc0102000           4K     ro             GLB NX pte"));
	CHECK(has_line(&l, "0xc0102000-0xc0103000           4K     RW             GLB NX pte"));
	CHECK(has_line(&l, "0xc0400000-0xc0600000           2M     RW         PSE GLB NX pmd"));
	/* PDE[3]'s table cannot be read: its 2M show as holes, at pte level */
	CHECK(has_line(&l, "0xc0600000-0xc0800000           2M                           pte"));
	CHECK(has_line(&l, "---[ Unused ]---"));
}

int main(void)
{
	RUN(walk_4k_levels_and_raw_values);
	RUN(walk_2m_page_stops_at_the_pde);
	RUN(pdpte_does_not_decide);
	RUN(pde_bits_count_for_4k_pages);
	RUN(nxe_and_wp_off);
	RUN(not_mapped_at_each_level);
	RUN(parse_va_accepts_hex_and_names_bad_input);
	RUN(regions_of_the_policy);
	RUN(ptdump_walk_tables_on_fake_tables);
	return check_done();
}
