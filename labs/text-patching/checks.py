# SPDX-License-Identifier: GPL-2.0-only
"""Lab 8, text-patching: writing into read-only module text, seed 003's
way (set_all_modules_text_rw/ro: a W+X window) and the way that needs no
W+X page (a temporary RW+NX alias of the text page). The client is
`patch seed|alias|open|close` (modload/patch_demo.c). See
docs/labs/text-patching.md."""
import re

from grading import CheckFailed, check, expect_pages
from modlab import (AUTOLOADED, POKE_ALIAS, core_regions, each, insmod, own_boot,
                    short)

HOLE = (0xC00A0000, 0xC0100000)   # the PCI BIOS hole, W+X by design (lab 5)
MODULES = AUTOLOADED + ("patchme",)
WX_LINE = re.compile(r"W\+X pages while writing: (\d+) \(patch\), (\d+) \(restore\)")


def patch_boot(ctx, way):
    g = own_boot(ctx, "text-patching-" + way)
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


@check(points=20, name="patch seed: the probe runs while patched, then every text is RO+X again")
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


@check(points=15, name="seed 003's window from outside: every module's text RW+X, nothing else")
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


@check(points=20, name="patch alias: the probe runs while patched, the original code after")
def alias_patch(ctx):
    run_patch(patch_boot(ctx, "alias"), "alias")


@check(points=15, name="patch alias: no W+X page while writing, the alias gone, the text RO+X")
def alias_no_wx(ctx):
    g = patch_boot(ctx, "alias")
    out = run_patch(g, "alias")
    m = WX_LINE.search(out)
    if not m or m.groups() != ("0", "0"):
        raise CheckFailed("expected the W^X audit run while the alias is mapped to find no W+X "
                          "page, found: %s" % (m.group(0) if m else out.strip()))
    pt = g.tlb()
    alias = pt.lookup(POKE_ALIAS)
    if alias:
        raise CheckFailed("expected the alias at 0x%08x unmapped after `patch alias`, found it "
                          "still mapped, %s" % (POKE_ALIAS, alias.perm()))
    expect_texts(ctx, pt, core_regions(g, MODULES), "RO+X", "after `patch alias`")
