# SPDX-License-Identifier: GPL-2.0-only
"""Lab 5, bios-hole: seed 001's set_bios_x() - 640K-1M RW+X only when a
PCI BIOS32 service directory is found, NX with pci=nobios - and the CPA
layer's exemption for the declared hole (kernel/pcbios.c, mm/pageattr.c).
See docs/labs/bios-hole.md."""
import re

from grading import CheckFailed, check, expect_ktap, expect_pages

LOW, HOLE_START, HOLE_END = 0xC0000000, 0xC00A0000, 0xC0100000
HOLE_PAGES = (HOLE_END - HOLE_START) // 4096
AREA_MSG = "PCI : PCI BIOS area is rw and x. Use pci=nobios if you want it NX."
BIOS32 = re.compile(r"BIOS32 Service Directory structure at 0x[0-9a-f]+, entry at 0x[0-9a-f]+")
HOST_BRIDGE = re.compile(r"^00:00\.0 8086:1237 class 0600", re.M)


def wx_pages(pt):
    """Every W+X 4 KiB page, as addresses."""
    return [va for m in pt.maps if m.rw and m.exec for va in range(m.va, m.va + m.size, 4096)]


def expect_hole_open(ctx, g):
    if not BIOS32.search(g.log):
        raise CheckFailed("expected the boot log to show the BIOS32 directory found, found no "
                          "such line (is this QEMU's SeaBIOS?)")
    todo = [ln for ln in g.log.splitlines() if ln.startswith("ronx: lab ")]
    try:
        expect_pages(ctx, g, HOLE_START, HOLE_END, "RW+X", "640K-1M, the PCI BIOS hole")
    except CheckFailed as e:
        oops = [ln for ln in g.log.splitlines() if "the oops above" in ln or ln.startswith("CPA")]
        raise CheckFailed("\n".join([str(e)] + todo + oops[:3]))


@check(points=15, name="a BIOS32 directory is found: 640K-1M is RW+X in the real page tables")
def hole_open(ctx):
    expect_hole_open(ctx, ctx.boot())


@check(points=10, name="the W+X pages are exactly the 96 of 640K-1M; the low 640K stays RW+NX")
def hole_exact(ctx):
    g = ctx.boot()
    expect_pages(ctx, g, LOW, HOLE_START, "RW+NX", "the low 640K")
    wx = wx_pages(g.pt)
    outside = [va for va in wx if not HOLE_START <= va < HOLE_END]
    if len(wx) != HOLE_PAGES or outside:
        raise CheckFailed("expected %d W+X pages, 0x%08x-0x%08x, found %d%s"
                          % (HOLE_PAGES, HOLE_START, HOLE_END, len(wx),
                             ", outside the hole: " + ", ".join(ctx.where(va) for va in outside[:4])
                             if outside else ""))


@check(points=10, name="the PCI BIOS really runs: no oops, lspci reads the host bridge through it")
def bios_runs(ctx):
    g = ctx.boot()
    if "Oops" in g.log:
        lines = [ln for ln in g.log.splitlines()
                 if ln.startswith(("ronx: lab ", "BUG:", "#PF:", "EIP:")) or "the oops above" in ln]
        raise CheckFailed("expected a boot without an oops, found:\n" + "\n".join(lines[:8]))
    out = g.sh("lspci")
    if "read through the PCI BIOS" not in out or not HOST_BRIDGE.search(out):
        raise CheckFailed("expected lspci to list the i440FX host bridge 00:00.0 8086:1237, read "
                          "through the PCI BIOS, found:\n%s" % out.strip())


@check(points=5, name="seed 001's message, once, and only when the hole is opened")
def message(ctx):
    n = ctx.boot().log.count(AREA_MSG)
    if n != 1:
        raise CheckFailed("expected the line %r once in the boot log, found it %d times"
                          % (AREA_MSG, n))
    if AREA_MSG in ctx.boot(cmdline="pci=nobios").log:
        raise CheckFailed("expected no %r with pci=nobios, found it" % AREA_MSG)


@check(points=10, name="pci=nobios: the low 1 MiB stays RW+NX, while the default opens 640K-1M")
def nobios(ctx):
    g = ctx.boot(cmdline="pci=nobios")
    expect_pages(ctx, g, LOW, HOLE_END, "RW+NX", "the low 1 MiB with pci=nobios")
    wx = wx_pages(g.pt)
    if wx:
        raise CheckFailed("expected no W+X page with pci=nobios, found %d, first %s"
                          % (len(wx), ctx.where(wx[0])))
    if "BIOS32" in g.log:
        raise CheckFailed("expected no BIOS32 scan with pci=nobios, found:\n%s"
                          % "\n".join(ln for ln in g.log.splitlines() if "BIOS32" in ln))
    expect_hole_open(ctx, ctx.boot())


@check(points=10, name="the CPA layer exempts only the declared hole (selftest pcbios, 3 policies)")
def cpa_keeps_hole(ctx):
    bad = []
    for cmdline, cases in (("", None), ("pci=nobios", ["low_640k_is_rw_nx",
                                                       "hole_flags_follow_policy",
                                                       "cpa_respects_the_hole"]),
                           ("pci=bios_tight", None)):
        g = ctx.boot(cmdline=cmdline)
        try:
            expect_ktap(g, "pcbios", cases if cases is not None else
                        [c for c in g.ktap("pcbios") if c != "bios_nx_oops_was_recovered"])
        except CheckFailed as e:
            bad.append("pci=%s: %s" % (cmdline[4:] or "bios (default)", e))
    if bad:
        raise CheckFailed("\n".join(bad))
