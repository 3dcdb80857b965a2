// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-tests of the module loader, on the real sample modules from the
 * initrd: every group's protection read back from the page tables, faults
 * on purpose, the init region gone, and no page lost over many loads.
 */
#include <ronx/compiler.h>
#include <ronx/memlayout.h>
#include <ronx/recovery.h>
#include <ronx/traps.h>
#include <ronx/mm.h>
#include <ronx/module.h>
#include <ronx/ktest.h>

#define RET 0xc3

static struct module *ensure_loaded(const char *name)
{
	struct module *m = find_module(name);

	if (!m && insmod(name, "") == 0)
		m = find_module(name);
	return m;
}

/* Every page of [start, end) has RW and NX as asked (-1: do not care). */
static void expect_pages(struct kt *t, unsigned long start, unsigned long end, int rw, int nx,
			 const char *what)
{
	for (unsigned long va = start & PAGE_MASK; va < end; va += PAGE_SIZE) {
		enum pg_level level;
		pteval_t *pte = lookup_address(va, &level);

		if (!pte) {
			KT_EXPECT(t, 0, "%s page %08lx not mapped", what, va);
			return;
		}
		KT_EXPECT(t, level == PG_LEVEL_4K, "%s page %08lx is not a 4K pte", what, va);
		if (rw >= 0)
			KT_EXPECT(t, !!(*pte & _PAGE_RW) == rw, "%s page %08lx RW=%d", what, va, !rw);
		if (nx >= 0 && nx_enabled)
			KT_EXPECT(t, !!(*pte & _PAGE_NX) == nx, "%s page %08lx NX=%d", what, va, !nx);
	}
}

KTEST(module, hello_groups_have_their_protection)
{
	struct module *m = ensure_loaded("hello");
	unsigned long base;

	KT_EXPECT(t, m != 0, "hello did not load");
	if (!m)
		return;
	if (!module_ronx || !module_align)
		return kt_skip(t, "module_ronx=off or noalign: groups share pages");
	base = (unsigned long)m->module_core;
	expect_pages(t, base, base + m->core_text_size, 0, 0, "text");
	expect_pages(t, base + m->core_text_size, base + m->core_ro_size, 0, 1, "rodata");
	expect_pages(t, base + m->core_ro_size, base + m->core_ro_after_init_size, 0, 1,
		     "ro_after_init");
	expect_pages(t, base + m->core_ro_after_init_size, base + m->core_size, 1, 1, "data");
}

/* Freed module addresses may be handed to a later module's core. */
static bool in_live_core(unsigned long va)
{
	for (struct module *m = modules; m < modules + MAX_MODULES; m++)
		if (m->state == MODULE_STATE_LIVE && va >= (unsigned long)m->module_core &&
		    va < (unsigned long)m->module_core + m->core_size)
			return true;
	return false;
}

KTEST(module, init_region_is_gone)
{
	struct module *m = ensure_loaded("hello");
	enum pg_level level;

	if (!m)
		return kt_skip(t, "hello did not load");
	KT_EXPECT(t, m->module_init == 0 && m->freed_init, "init region still there");
	for (unsigned long va = m->freed_init; va < m->freed_init + m->freed_init_size;
	     va += PAGE_SIZE)
		KT_EXPECT(t, !lookup_address(va, &level) || in_live_core(va),
			  "freed init page %08lx still mapped, and no module owns it", va);
}

/*
 * Seed 003's partial-page rules, written out here on their own (not
 * through section_ro_nx_ranges(), the code under test): after init, RO
 * covers [PFN_DOWN(base), PFN_DOWN(base + ro_after_init_size)), so a last
 * page shared with data stays writable; NX covers [PFN_UP(base +
 * text_size), PFN_UP(base + size)), so a first page shared with text
 * stays executable. Page-aligned groups (the default) make both exact;
 * module_ronx=noalign packs them, and a small module's one page is
 * neither RO nor NX.
 */
static bool seed_makes_ro(const struct module *m, unsigned long va)
{
	unsigned long base = (unsigned long)m->module_core;

	return va < ((base + m->core_ro_after_init_size) & PAGE_MASK);
}

static bool seed_makes_nx(const struct module *m, unsigned long va)
{
	unsigned long base = (unsigned long)m->module_core;

	return m->core_size > m->core_text_size && va >= PFN_ALIGN(base + m->core_text_size) &&
	       va < PFN_ALIGN(base + m->core_size);
}

/* A write to va faults exactly where the seed made its page read-only. */
static void expect_write(struct kt *t, const struct module *m, char *va, const char *what)
{
	bool ro = seed_makes_ro(m, (unsigned long)va);

	KT_EXPECT(t, probe_write_same(va) == (ro ? -EFAULT : 0), "module %s %s", what,
		  ro ? "writable" : "read-only, though the seed leaves its page writable");
}

KTEST(module, writes_to_text_rodata_ro_after_init_fault)
{
	struct module *m = ensure_loaded("hello");
	char *base;

	if (!m)
		return kt_skip(t, "hello did not load");
	if (!module_ronx)
		return kt_skip(t, "module_ronx=off: module memory is RW+X");
	base = m->module_core;
	expect_write(t, m, base, "text");
	expect_write(t, m, base + m->core_ro_size - 1, "rodata");
	if (m->core_ro_after_init_size > m->core_ro_size)
		expect_write(t, m, base + m->core_ro_size, "ro_after_init after init");
	expect_write(t, m, base + m->core_size - 1, "data");
	if (module_align)
		KT_EXPECT(t, seed_makes_ro(m, (unsigned long)base) &&
			  !seed_makes_ro(m, (unsigned long)base + m->core_size - 1),
			  "aligned groups: text must be RO and data RW");
}

KTEST(module, exec_of_module_data_faults)
{
	struct module *m = ensure_loaded("hello");
	unsigned char *last, saved;
	struct fault_info fi;
	bool nx;

	if (!m)
		return kt_skip(t, "hello did not load");
	if (!nx_enabled || !module_ronx)
		return kt_skip(t, "NX not in use, or module_ronx=off");
	/* the last byte of the data group: page padding when aligned */
	last = (unsigned char *)m->module_core + m->core_size - 1;
	nx = seed_makes_nx(m, (unsigned long)last);
	KT_EXPECT(t, nx || !module_align, "aligned groups: the data page must be NX");
	saved = *last;
	*last = RET;
	if (nx)
		KT_EXPECT(t, probe_exec(last, &fi) == -EFAULT && (fi.error_code & X86_PF_INSTR),
			  "module data executable");
	else
		KT_EXPECT(t, probe_exec(last, &fi) == 0,
			  "module data not executable, though the seed leaves its page (shared with text) executable");
	*last = saved;
}

static unsigned long load_unload(const char *name, int times, struct kt *t)
{
	char err[160];

	for (int i = 0; i < times; i++) {
		if (insmod(name, "") != 0) {
			KT_EXPECT(t, 0, "load %d of %s failed", i, name);
			return 0;
		}
		if (unload_module(name, err, sizeof(err)) != 0) {
			KT_EXPECT(t, 0, "unload %d of %s: %s", i, name, err);
			return 0;
		}
	}
	return nr_free_pages();
}

KTEST(module, cycles_200_leak_nothing)
{
	char err[160];
	unsigned long before;

	if (find_module("big"))
		unload_module("big", err, sizeof(err));
	before = nr_free_pages();
	KT_EXPECT(t, load_unload("big", 200, t) == before, "free pages %lu -> %lu",
		  before, nr_free_pages());
}

KTEST(module, failing_init_is_undone)
{
	unsigned long before = nr_free_pages(), tables = nr_pagetable_pages;

	KT_EXPECT(t, insmod("failinit", "") != 0, "failinit loaded");
	KT_EXPECT(t, !find_module("failinit"), "failinit left in the module list");
	KT_EXPECT(t, nr_free_pages() == before && nr_pagetable_pages == tables,
		  "free pages %lu -> %lu", before, nr_free_pages());
}

KTEST(module, in_use_module_stays)
{
	char err[160];

	if (!ensure_loaded("provider") || !ensure_loaded("user"))
		return kt_skip(t, "provider or user did not load");
	KT_EXPECT(t, unload_module("provider", err, sizeof(err)) != 0, "provider unloaded while used");
	KT_EXPECT(t, find_module("provider") != 0, "provider gone");
}
