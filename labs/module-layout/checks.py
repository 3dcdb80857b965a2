# SPDX-License-Identifier: GPL-2.0-only
"""Lab 6, module-layout: seed 003's layout_sections() - text, read-only
data, ro_after_init and read-write data, each group page-aligned
(modload/layout.c). See docs/labs/module-layout.md.

The expected layout is computed here from the .ko files (modlab.seed_layout)
and compared with what the kernel reports (lsmod, modinfo) and maps (info
tlb). The extra modules are loaded in an order drawn from the grade's
seed, and hello is sometimes loaded again, so addresses vary between
grades; the page checks read info tlb at the groups the host computed."""
from grading import CheckFailed, check, expect_ktap, step
from modlab import (AUTOLOADED, core_regions, expect_groups, exports, freed_init, group_sizes,
                    host_regions, load_in_random_order, own_boot, read_ko, seed_layout, symbols)

EXTRA = ("big", "patchme")
MODULES = AUTOLOADED + EXTRA

ROUND = step("debug_align", "with module RO/NX, round up to a page", "never-rounds")
LEAVE = step("debug_align", "otherwise leave the size alone", "always-align")
TEXT = step("in_group", "text: EXECINSTR and ALLOC both set", "text-mask-any-bit")
RO = step("in_group", "read-only: ALLOC without WRITE", "ro-any-alloc")
ROAI = step("in_group", "then .data..ro_after_init, by its name", "ro-after-init-as-rodata")
RW = step("in_group", "then WRITE and ALLOC", "rw-group-empty")
PLACE = step("layout_region", "each group in order: place its sections with get_offset()",
             "no-get-offset")
ALIGN = step("layout_region", "then debug_align() the size", "no-align-call")
RECORD = step("layout_region", "then record_group_end()", "record-before-align")
LAYOUT = [TEXT, RO, ROAI, RW, PLACE, ALIGN, ROUND, RECORD]


def loaded_boot(ctx, cmdline=""):
    g = own_boot(ctx, "module-layout", cmdline)
    load_in_random_order(ctx, g, "module-layout load order " + cmdline, EXTRA, ("hello",))
    return g


def describe(sizes):
    return "text %d, ro %d, ro_after_init %d, rw %d" % sizes


def expect_layout(ctx, g, ronx):
    lsmod = g.sh("lsmod")
    regs = core_regions(g, MODULES, lsmod)
    bad = []
    for name in MODULES:
        ends, _ = seed_layout(read_ko(ctx, name)[0], ronx)
        want = group_sizes(ends["core"])
        found = tuple(regs[name][grp][1] for grp in ("text", "ro", "roai", "rw"))
        if want != found:
            bad.append("%s core: expected %s bytes (from %s.ko), found %s"
                       % (name, describe(want), name, describe(found)))
    if bad:
        raise CheckFailed("\n".join(bad))
    return lsmod


@check(points=20, name="core regions: each group has the size seed 003's layout gives it",
       steps=LAYOUT)
def core_layout(ctx):
    expect_layout(ctx, loaded_boot(ctx), ronx=True)


@check(points=10, name="init regions: laid out the same way (their size when freed)",
       steps=[TEXT, RO, PLACE, ALIGN, ROUND])
def init_layout(ctx):
    g = loaded_boot(ctx)
    freed, bad = freed_init(g.sh("lsmod")), []
    core_regions(g, MODULES)
    for name in MODULES:
        want = seed_layout(read_ko(ctx, name)[0], True)[0]["init"][3]
        found = freed.get(name, (0, 0))[1]
        if want != found:
            bad.append("%s init region: expected %d bytes (page-aligned groups of %s.ko's "
                       ".init sections), found %d" % (name, want, name, found))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="exported symbols sit in their section's group, at its offset",
       steps=[TEXT, RO, PLACE, ALIGN, ROUND])
def symbols_placed(ctx):
    g = loaded_boot(ctx)
    regs, bad = core_regions(g, ("provider", "patchme")), []
    for name in ("provider", "patchme"):
        secs, data = read_ko(ctx, name)
        _, place = seed_layout(secs, True)
        syms = symbols(secs, data)
        base = regs[name]["text"][0]
        listed = exports(g, name)
        if not listed:
            bad.append("%s: expected `modinfo %s` to list its exports, found none" % (name, name))
        for sym, addr in sorted(listed.items()):
            if sym not in syms:
                bad.append("%s: %s: expected a symbol of %s.ko, found none" % (name, sym, name))
                continue
            shndx, value = syms[sym]
            region, off = place.get(shndx, ("none", 0))
            want = base + off + value
            if region != "core" or addr != want:
                bad.append("%s: %s (in %s): expected 0x%08x, found 0x%08x"
                           % (name, sym, secs[shndx].name, want, addr))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="each group's pages, where the host's layout puts them, carry its "
       "protection in the real page tables", steps=LAYOUT)
def groups_protected(ctx):
    g = loaded_boot(ctx)
    expect_groups(ctx, g.tlb(), host_regions(ctx, g, MODULES), MODULES)


@check(points=10, name="module_ronx=noalign: the groups are packed, not page-aligned",
       steps=[LEAVE, PLACE, RECORD])
def noalign_packed(ctx):
    expect_layout(ctx, loaded_boot(ctx, "module_ronx=noalign"), ronx=False)


@check(points=10, name="the kernel's own tests: writes to text, rodata and ro_after_init fault",
       steps=[TEXT, RO, ROAI, RW, ALIGN, ROUND])
def selftest(ctx):
    g = own_boot(ctx, "module-layout-selftest")
    expect_ktap(g, "module", ["hello_groups_have_their_protection",
                              "writes_to_text_rodata_ro_after_init_fault",
                              "exec_of_module_data_faults"])
