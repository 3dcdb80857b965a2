# SPDX-License-Identifier: GPL-2.0-only
"""Lab 8, text-patching: writing into read-only module text, seed 003's
way (set_all_modules_text_rw/ro: a W+X window) and the way that needs no
W+X page (a temporary RW+NX alias of the text page). The client is
`patch seed|alias|open|close` (kernel/shell/patch_demo.c). See
docs/labs/text-patching.md.

Evidence the student's code cannot fake: the alias boot has W+X pages
planted at grade time (wxplant=), which the W^X audit run while the alias
is mapped must count; module_mutex is read by QEMU itself (its gdbstub)
at each CPA call that opens or closes the window."""
import re

from grading import CheckFailed, check, expect_pages, step
from modlab import (AUTOLOADED, POKE_ALIAS, core_regions, each, insmod, own_boot,
                    short, stops_seen)

PAGE, PAGE_OFFSET = 4096, 0xC0000000
FRAME_MASK = 0x000FFFFFFFFFF000      # info tlb's phys column carries bit 63 (NX) too
HOLE = (0xC00A0000, 0xC0100000)   # the PCI BIOS hole, W+X by design (lab 5)
MODULES = AUTOLOADED + ("patchme",)
WX_LINE = re.compile(r"W\+X pages while writing: (\d+) \(patch\), (\d+) \(restore\)")

RW_MUTEX = step("set_all_modules_text_rw", "under module_mutex_lock()", "rw-without-mutex")
RW_ALL = step("set_all_modules_text_rw", "set_text(): every module's text", "rw-one-module")
RW_ASK = step("set_all_modules_text_rw", "a setter that asks the CPA layer for the W+X window",
              "rw-without-asking")
RW_X = step("set_all_modules_text_rw", "... writable and still executable", "window-without-x")
RO_MUTEX = step("set_all_modules_text_ro", "under module_mutex_lock()", "ro-without-mutex")
RO_ALL = step("set_all_modules_text_ro", "set_text() with set_memory_ro: every module's text",
              "window-left-open")
FRAME = step("poke_page", "map the page's physical frame, from its pte", "alias-wrong-frame")
ALIAS_NX = step("poke_page", "... RW+NX at POKE_ALIAS", "alias-executable")
OFFSET = step("poke_page", "write at the same offset", "write-at-page-start")
WRITE = step("poke_page", "... with text_poke_write(): the other CPUs parked (stop_machine)",
             "memcpy-not-stop-machine")
AUDIT = step("poke_page", "audit_window()", "no-audit-window")
UNMAP = step("poke_page", "unmap", "alias-left-mapped")


def plant(ctx):
    """W+X pages the audit inside the alias window must count (grade's seed)."""
    r = ctx.rng("text-patching plant")
    return PAGE_OFFSET + r.randrange(0x1000000 // PAGE, 0x6000000 // PAGE) * PAGE, \
        r.randrange(1, 17)


def patch_boot(ctx, way):
    cmdline = "wxplant=%x:%d" % plant(ctx) if way == "alias" else ""
    g = own_boot(ctx, "text-patching-" + way, cmdline)
    insmod(g, "patchme")
    return g


def run_patch(g, way):
    """`patch WAY` once per boot; its output, CheckFailed unless the probe
    ran while patched and the original code after."""
    if not hasattr(g, "patched"):
        g.patched = {}
    if way not in g.patched:
        g.patched[way] = g.sh("patch " + way)
    out = g.patched[way]
    if "probe hits +3, patchme_counter +0" not in out or \
            "probe hits +0, patchme_counter +1" not in out:
        raise CheckFailed("expected `patch %s` to run the probe 3 times while patched "
                          "(probe hits +3, patchme_counter +0) and patchme_hook once after "
                          "(probe hits +0, patchme_counter +1), found:\n%s"
                          % (way, "\n".join(short(g.log, out) or out.strip().splitlines()[-6:])))
    return out


def wx_outside_hole(pt):
    return [m for m in pt.maps if m.rw and m.exec and not HOLE[0] <= m.va < HOLE[1]]


def text_pages(regs):
    return {va for r in regs.values()
            for va in range(r["text"][0], r["text"][0] + r["text"][1], 4096)}


def expect_texts(ctx, pt, regs, want, when):
    each(sorted(regs.items()), lambda nr: expect_pages(
        ctx, pt, nr[1]["text"][0], nr[1]["text"][0] + nr[1]["text"][1], want,
        "%s's text %s" % (nr[0], when)))


@check(points=20, name="patch seed: the probe runs while patched, then every text is RO+X again",
       steps=[RW_ASK, RW_X, RO_ALL])
def seed_patch(ctx):
    g = patch_boot(ctx, "seed")
    out = run_patch(g, "seed")
    m = WX_LINE.search(out)
    if not m or int(m.group(1)) == 0:
        raise CheckFailed("expected the W^X audit inside seed 003's window to see the module "
                          "text W+X (> 0 pages), found: %s" % (m.group(0) if m else out.strip()))
    pt = g.tlb()
    expect_texts(ctx, pt, core_regions(g, MODULES), "RO+X", "after `patch seed`")
    left = wx_outside_hole(pt)
    if left:
        raise CheckFailed("expected no W+X page outside the BIOS hole after `patch seed`, found:"
                          "\n  %s" % "\n  ".join("0x%08x" % x.va for x in left[:4]))


@check(points=15, name="seed 003's window from outside: every module's text RW+X, nothing else",
       steps=[RW_ALL, RW_ASK, RW_X, RO_ALL])
def seed_window(ctx):
    g = own_boot(ctx, "text-patching-window")
    insmod(g, "patchme")
    regs = core_regions(g, MODULES)
    out = g.sh("patch open")
    pt = g.tlb()
    g.sh("patch close")
    after = g.tlb()
    want = text_pages(regs)
    found = {m.va for m in wx_outside_hole(pt)}
    if found != want:
        missing = sorted(want - found)
        extra = sorted(found - want)
        raise CheckFailed(
            "after `patch open`: expected exactly the %d module text pages W+X, found %d%s%s%s"
            % (len(want), len(found),
               "\n  not W+X: " + ", ".join("0x%08x %s" % (va, pt.lookup(va).perm())
                                         for va in missing[:4]) if missing else "",
               "\n  W+X but not module text: " + ", ".join("0x%08x" % va for va in extra[:4])
               if extra else "", "\n" + "\n".join(short(g.log, out)) if missing else ""))
    expect_texts(ctx, after, regs, "RO+X", "after `patch close`")


@check(points=20, name="patch alias: the probe runs while patched, the original code after",
       steps=[FRAME, OFFSET])
def alias_patch(ctx):
    run_patch(patch_boot(ctx, "alias"), "alias")


@check(points=15, name="patch alias: no W+X page while writing (the audit in the window counts "
       "only the pages planted at boot), the alias gone, the text RO+X",
       steps=[ALIAS_NX, AUDIT, UNMAP, FRAME])
def alias_no_wx(ctx):
    g = patch_boot(ctx, "alias")
    out = run_patch(g, "alias")
    n = plant(ctx)[1]
    m = WX_LINE.search(out)
    if not m or m.groups() != (str(n), str(n)):
        raise CheckFailed("expected the W^X audit run while the alias is mapped to find only the "
                          "%d W+X pages planted at boot (wxplant=), %d (patch), %d (restore); "
                          "found: %s" % (n, n, n, m.group(0) if m else out.strip()))
    pt = g.tlb()
    alias = pt.lookup(POKE_ALIAS)
    if alias:
        raise CheckFailed("expected the alias at 0x%08x unmapped after `patch alias`, found it "
                          "still mapped, %s" % (POKE_ALIAS, alias.perm()))
    expect_texts(ctx, pt, core_regions(g, MODULES), "RO+X", "after `patch alias`")


@check(points=10, name="patch alias from outside (QEMU's gdbstub stops the kernel as it writes "
       "and as it audits): the alias maps the module text's frame RW+NX, the write goes through "
       "stop_machine()", steps=[FRAME, ALIAS_NX, AUDIT, WRITE])
def alias_seen(ctx):
    g = own_boot(ctx, "text-patching-alias-gdb")
    insmod(g, "patchme")
    start, size = core_regions(g, ("patchme",))["patchme"]["text"]
    frames = {m.pa & FRAME_MASK for va, m in g.tlb().pages(start, start + size) if m}
    write = ctx.sym("stop_machine")

    def at_stop(stub, eip):
        m = g.tlb().lookup(POKE_ALIAS)
        found = "not mapped" if m is None else "%s frame 0x%08x" % (m.perm(), m.pa & FRAME_MASK)
        ok = m is not None and m.perm() == "RW+NX" and m.pa & FRAME_MASK in frames
        return ("the write (stop_machine)" if eip == write else "the audit", ok, found)
    out, seen = stops_seen(ctx, g, "patch alias", ("stop_machine", "ptdump_check_wx"), at_stop)
    bad = []
    for what in ("the write (stop_machine)", "the audit"):
        at = [x for x in seen if x[0] == what]
        if len(at) < 2:
            bad.append("expected %s at least twice while `patch alias` patches and restores, "
                       "found %d" % (what, len(at)))
        bad += ["at %s: expected 0x%08x to map a frame of patchme's text RW+NX, found %s"
                % (what, POKE_ALIAS, found) for _, ok, found in at if not ok][:2]
    if bad:
        raise CheckFailed("\n".join(bad + short(g.log, out)))


def mutex_at_each_call(ctx, g, line, setter):
    """Runs line, stopping at every call of setter; module_mutex.locked (read
    by QEMU) at each: [held]."""
    held = ctx.sym("module_mutex")     # spinlock_t: its first word is "locked"
    at = ctx.sym(setter)
    return stops_seen(ctx, g, line, (setter,),
                      lambda stub, eip: stub.read32(held) & 0xff if eip == at else None)[1]


@check(points=10, name="the window opens and closes under module_mutex (read by QEMU at each "
       "CPA call)", steps=[RW_MUTEX, RO_MUTEX])
def under_mutex(ctx):
    g = own_boot(ctx, "text-patching-window")     # after the window check closed it
    insmod(g, "patchme")
    opened = mutex_at_each_call(ctx, g, "patch open", "set_memory_rw_allow_wx")
    closed = mutex_at_each_call(ctx, g, "patch close", "set_memory_ro")
    bad = []
    for what, seen in (("set_all_modules_text_rw (patch open)", opened),
                       ("set_all_modules_text_ro (patch close)", closed)):
        if not seen:
            bad.append("%s: expected calls to the CPA layer, found none" % what)
        elif not all(seen):
            bad.append("%s: expected module_mutex held at each of its %d CPA calls, found it "
                       "free at %d" % (what, len(seen), seen.count(0)))
    if bad:
        raise CheckFailed("\n".join(bad))
