# SPDX-License-Identifier: GPL-2.0-only
"""Lab 7, module-lifecycle: seed 003's protections over a module's life -
RO/NX at the end of the load, ro_after_init sealed once init returned, the
init region reset to RW+NX and freed, every region reset before it is
freed (modload/module_ronx.c, modload/module.c). See
docs/labs/module-lifecycle.md.

Where each group of a module is comes from the .ko files, laid out here
on the host (modlab.host_regions); only the base address is taken from
lsmod. What the page tables hold is read from QEMU's info tlb. The extra
modules are loaded in an order drawn from the grade's seed."""
import re

from grading import CheckFailed, check, expect_ktap, step
from gdbstub import GdbStub
from modlab import (AUTOLOADED, MODULES_END, MODULES_VADDR, PAGE, core_regions, expect_groups,
                    expect_freed_reset, freed_init, frees_seen, host_regions, insmod,
                    load_in_random_order, own_boot, read_ko, seed_layout, short, stopped_at)
import test_modules

EXTRA = ("big", "patchme")
MODULES = AUTOLOADED + EXTRA

OFF = step("set_section_ro_nx", "nothing with module_ronx=off", "ignores-module-ronx")
RO = step("set_section_ro_nx", "RO to r.ro", "no-ro")
NX = step("set_section_ro_nx", "NX to r.nx", "no-nx")
X = step("set_section_ro_nx", "X to r.text", "seed-without-x")
SEAL_OFF = step("set_ro_after_init", "nothing with module_ronx=off", "seal-when-off")
SEAL = step("set_ro_after_init", "RO on the core region's r.ro_after_init", "seal-rodata-again")
ALL = step("unset_section_ro_nx", "every page of the region (r.all)", "unset-text-only")
NX_FIRST = step("unset_section_ro_nx", "NX first", "rw-before-nx")
RW_SECOND = step("unset_section_ro_nx", "RW second", "no-rw")
CALL_SEAL = step("finish_init", "set_ro_after_init()", "no-seal-call")
UNSET_INIT = step("finish_init", "unset_section_ro_nx() the init region", "free-init-unreset")
FREE_INIT = step("finish_init", "then module_memfree() it", "init-kept")
# what the kernel prints when memory goes back unreset, or a reset asks for W+X
WARNINGS = re.compile(r"^(module_memfree: .*|CPA refused W\^X violation: .*)$", re.M)


def free_pages(g):
    return test_modules.free_pages(g.guest)


def loaded_boot(ctx, tag="module-lifecycle", cmdline=""):
    g = own_boot(ctx, tag, cmdline)
    load_in_random_order(ctx, g, "module-lifecycle load order " + tag + cmdline, EXTRA)
    return g


def warned(text, when):
    """[a failure message] if text has a warning, else []."""
    found = WARNINGS.findall(text)
    return ["expected no warning %s, found:\n%s" % (when, "\n".join(found[:4]))] if found else []


def no_warnings(text, when):
    for msg in warned(text, when):
        raise CheckFailed(msg)


@check(points=15, name="after the load: text RO+X, rodata and ro_after_init RO+NX, data RW+NX",
       steps=[RO, X, SEAL, CALL_SEAL])
def protected_at_load(ctx):
    g = loaded_boot(ctx)
    expect_groups(ctx, g.tlb(), host_regions(ctx, g, MODULES), MODULES)


def stopped_in_init(ctx, g, name):
    """insmod name, stopped (QEMU's gdbstub) at the first printk its init
    makes: (the page tables then, the address init called printk from)."""
    start = len(g.guest.out)
    stub = GdbStub(g.guest)
    line, printk = "insmod " + name, ctx.sym("printk")
    try:
        stub.break_at(printk)
        stub.cont()
        g.guest.send((line + "\r").encode())
        for _ in range(200):
            if not stopped_at(stub, g, line, start, {printk}):
                raise CheckFailed("expected %s's init to run and call printk, found it never "
                                  "did:\n%s" % (name, "\n".join(short(g.log, g.guest.out[start:]))))
            ret = stub.read32(stub.regs()["esp"])
            if MODULES_VADDR <= ret < MODULES_END:
                return g.tlb(), ret
            stub.cont()
        raise CheckFailed("expected %s's init to call printk, found 200 other calls first" % name)
    finally:
        stub.detach()
        g.guest.wait_for("^" + re.escape("ronx> "), 30, start)


@check(points=10, name="while init runs (stopped there through QEMU's gdbstub): init text RO+X, "
       "init data RW+NX, the core protected, ro_after_init still writable",
       steps=[RO, X, SEAL, CALL_SEAL])
def init_protected(ctx):
    g = own_boot(ctx, "module-lifecycle-init")
    pt, ret = stopped_in_init(ctx, g, "big")
    secs = read_ko(ctx, "big")[0]
    layout = seed_layout(secs, True)[0]
    init_text, _, init_roai, init_size = layout["init"]
    base = ret & ~(PAGE - 1)        # big's init text is one page: the first of the region
    if ret - base >= init_text:
        raise CheckFailed("expected big's init to run from the first page of its init region")
    bad = []
    for what, lo, hi, want in (("init text", base, base + init_text, "RO+X"),
                               ("init data", base + init_roai, base + init_size, "RW+NX")):
        bad += ["big's %s page 0x%08x while init ran: expected %s, found %s"
                % (what, va, want, m.perm() if m else "not mapped")
                for va, m in pt.pages(lo, hi) if not m or m.perm() != want][:3]
    core = host_regions(ctx, g, ("big",))["big"]
    for grp, want in (("text", "RO+X"), ("ro", "RO+NX"), ("roai", "RW+NX"), ("rw", "RW+NX")):
        start, size = core[grp]
        bad += ["big's core %s page 0x%08x while init ran: expected %s, found %s"
                % (grp, va, want, m.perm() if m else "not mapped")
                for va, m in pt.pages(start, start + size) if not m or m.perm() != want][:3]
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="after init: the init region is unmapped, freed RW+NX, ro_after_init sealed",
       steps=[SEAL, CALL_SEAL, UNSET_INIT, FREE_INIT, ALL, NX_FIRST, RW_SECOND])
def init_freed(ctx):
    g = loaded_boot(ctx)
    lsmod = g.sh("lsmod")
    regs, pt, bad = host_regions(ctx, g, MODULES, lsmod), g.tlb(), []
    freed = freed_init(lsmod)
    for name in ("hello", "big"):
        if name not in freed:
            bad.append("%s: expected lsmod to say its init region was freed, found it still "
                       "there (or no init region)" % name)
            continue
        start, size = freed[name]
        owned = lambda va: any(r[grp][0] <= va < r[grp][0] + r[grp][1]  # noqa: E731
                               for r in regs.values() for grp in r)
        mapped = ["0x%08x: found %s" % (va, m.perm()) for va, m in pt.pages(start, start + size)
                  if m and not owned(va)]
        if mapped:
            bad.append("%s's init region 0x%08x+%d: expected unmapped after init, found:\n  %s"
                       % (name, start, size, "\n  ".join(mapped[:4])))
    for name in ("hello", "big"):
        start, size = regs[name]["roai"]
        rw = ["0x%08x" % va for va, m in pt.pages(start, start + size) if m and m.rw]
        if rw:
            bad.append("%s's ro_after_init group: expected RO after init, found RW at %s"
                       % (name, ", ".join(rw[:4])))
    bad += warned(g.log, "in the boot log (modules loaded at boot)")
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=20, name="rmmod resets every page to RW+NX before freeing it (seen stopped at "
       "module_memfree through QEMU's gdbstub); nothing is left",
       steps=[ALL, NX_FIRST, RW_SECOND])
def unload_resets(ctx):
    g = loaded_boot(ctx, "module-lifecycle-unload")
    core_regions(g, MODULES)
    before, out = free_pages(g), ""
    for name in EXTRA + ("user", "provider", "hello"):
        r, seen = frees_seen(ctx, g, "rmmod " + name)
        if "rmmod:" in r:
            raise CheckFailed("expected `rmmod %s` to work, found:\n%s" % (name, r.strip()))
        if not seen:
            raise CheckFailed("expected `rmmod %s` to free its memory (module_memfree), found "
                              "no call" % name)
        expect_freed_reset(seen, "rmmod " + name)
        out += r
    no_warnings(out, "while unloading big, user, provider and hello")
    left = [m for m in g.tlb().maps if MODULES_VADDR <= m.va < MODULES_END]
    if left:
        raise CheckFailed("expected nothing mapped in the module area after rmmod, found:\n  %s"
                          % "\n  ".join("0x%08x %s" % (m.va, m.perm()) for m in left[:4]))
    after = free_pages(g)
    for name in ("hello", "provider", "user") + EXTRA:
        # the init region, freed once init returned, is seen as it goes
        r, seen = frees_seen(ctx, g, "insmod " + name)
        if "insmod:" in r:
            raise CheckFailed("expected `insmod %s` to load it again, found:\n%s"
                              % (name, "\n".join(short(g.log, r))))
        expect_freed_reset(seen, "insmod %s (its init region)" % name)
    for name in EXTRA + ("user", "provider", "hello"):
        g.sh("rmmod " + name)
    if free_pages(g) != after or after <= before:
        raise CheckFailed("expected every page back after unloading (free pages %d -> %d), and "
                          "the same after a second load and unload, found %d"
                          % (before, after, free_pages(g)))


@check(points=10, name="a failed init is undone: regions reset and freed, nothing left",
       steps=[ALL, NX_FIRST, RW_SECOND])
def failed_init(ctx):
    g = own_boot(ctx, "module-lifecycle-unload")
    before = free_pages(g)
    out, seen = frees_seen(ctx, g, "insmod failinit")
    if "init_module returned -22; the load is undone" not in out:
        raise CheckFailed("expected `insmod failinit` to say its init failed and the load "
                          "was undone, found:\n%s" % "\n".join(short(g.log, out)))
    no_warnings(out, "while undoing failinit's load")
    if not seen:
        raise CheckFailed("expected failinit's regions freed (module_memfree), found no call")
    expect_freed_reset(seen, "undoing failinit's load")
    if free_pages(g) != before:
        raise CheckFailed("expected every page of failinit back, found free pages %d -> %d"
                          % (before, free_pages(g)))


@check(points=10, name="module_ronx=noalign and =off: the seed's partial pages, and no protection "
       "(but memory still freed RW+NX)",
       steps=[OFF, NX, SEAL_OFF, RO, X, ALL])
def ronx_choices(ctx):
    g = loaded_boot(ctx, cmdline="module_ronx=noalign")
    regs, pt, page, bad = host_regions(ctx, g, ("hello", "big"), ronx=False), g.tlb(), 4096, []
    up = lambda a: (a + page - 1) // page * page  # noqa: E731
    for name in ("hello", "big"):
        core = regs[name]
        base, text_end = core["text"][0], core["text"][0] + core["text"][1]
        roai_end = core["roai"][0] + core["roai"][1]
        end = core["rw"][0] + core["rw"][1]
        # seed 003: RO on [PFN_DOWN(base), PFN_DOWN(ro_end)), NX on [PFN_UP(text_end),
        # PFN_UP(end)); after init ro_after_init too, up to PFN_DOWN(its end)
        wrong = []
        for va, m in pt.pages(base, up(end)):
            want = "%s+%s" % ("RO" if va < roai_end // page * page else "RW",
                              "NX" if up(text_end) <= va < up(end) else "X")
            if not m or m.perm() != want:
                wrong.append("module_ronx=noalign: %s page 0x%08x: expected %s, found %s"
                             % (name, va, want, m.perm() if m else "not mapped"))
        bad += wrong[:3]
    g = loaded_boot(ctx, cmdline="module_ronx=off")
    regs, pt = host_regions(ctx, g, ("hello", "big"), ronx=False), g.tlb()
    for name in ("hello", "big"):
        start, end = regs[name]["text"][0], regs[name]["rw"][0] + regs[name]["rw"][1]
        bad += ["module_ronx=off: %s page 0x%08x: expected RW+X (as before seed 003), found %s"
                % (name, va, m.perm() if m else "not mapped")
                for va, m in pt.pages(start, end) if not m or m.perm() != "RW+X"][:2]
    # RW+X while loaded, but memory still goes back RW+NX
    _, seen = frees_seen(ctx, g, "rmmod big")
    try:
        expect_freed_reset(seen, "module_ronx=off: rmmod big")
    except CheckFailed as e:
        bad.append(str(e))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=10, name="the kernel's own tests: protections, faults, init gone, no page lost",
       steps=[RO, X, SEAL, UNSET_INIT, FREE_INIT])
def selftest(ctx):
    g = own_boot(ctx, "module-lifecycle-selftest")
    expect_ktap(g, "module")
