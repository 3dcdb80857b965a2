# SPDX-License-Identifier: GPL-2.0-only
"""Lab 5, bios-hole: seed 001's set_bios_x() - 640K-1M RW+X only when a
PCI BIOS32 service directory is found, NX with pci=nobios - and the CPA
layer's exemption for the declared hole (kernel/drivers/pcbios.c, mm/pageattr.c).
See docs/labs/bios-hole.md.

Besides the kernel's own pcbios tests, the grader asks the CPA layer
itself (the shell's `set_memory`, at pages it picks at grade time) to
make pages W+X where only the declared hole may be, and reads the answer
from QEMU's `info tlb`."""
import re

from grading import CPU_NO_NX, CheckFailed, check, expect_ktap, expect_pages, step

LOW, HOLE_START, HOLE_END = 0xC0000000, 0xC00A0000, 0xC0100000
HOLE_PAGES = (HOLE_END - HOLE_START) // 4096
AREA_MSG = "PCI : PCI BIOS area is rw and x. Use pci=nobios if you want it NX."
BIOS32 = re.compile(r"BIOS32 Service Directory structure at 0x[0-9a-f]+, entry at 0x[0-9a-f]+")
HOST_BRIDGE = re.compile(r"^00:00\.0 8086:1237 class 0600", re.M)
PAGE = 4096

ENABLE = step("set_bios_x", "set pcibios_enabled", "forgot-pcibios-enabled")
EXEC_96 = step("set_bios_x", "make the 96 pages of 640K-1M executable", "one-page-short")
DIRECT_MAP = step("set_bios_x", "... in the direct map", "physical-address")
RECORD = step("set_bios_x", "record the hole in pcibios", "hole-not-recorded")
MESSAGE = step("set_bios_x", "print the seed's message", "no-message")
DECLARED = step("in_wx_bios_hole", "true only for a page of the declared hole", "exempt-below-1m")
WRITABLE = step("in_wx_bios_hole", "... that may be writable (not pci=bios_tight's)",
                "tight-hole-writable")
IN_USE = step("in_wx_bios_hole", "... only while the PCI BIOS is in use", "exempt-without-bios")


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


@check(points=15, name="a BIOS32 directory is found: 640K-1M is RW+X in the real page tables",
       steps=[EXEC_96, DIRECT_MAP, ENABLE])
def hole_open(ctx):
    expect_hole_open(ctx, ctx.boot())


@check(points=10, name="the W+X pages are exactly the 96 of 640K-1M; the low 640K stays RW+NX",
       steps=[EXEC_96, DIRECT_MAP])
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


@check(points=10, name="the PCI BIOS really runs: no oops, lspci reads the host bridge through it",
       steps=[EXEC_96, DIRECT_MAP])
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


@check(points=5, name="seed 001's message, once, and only when the hole is opened with NX in use",
       steps=[MESSAGE])
def message(ctx):
    n = ctx.boot().log.count(AREA_MSG)
    if n != 1:
        raise CheckFailed("expected the line %r once in the boot log, found it %d times"
                          % (AREA_MSG, n))
    if AREA_MSG in ctx.boot(cmdline="pci=nobios").log:
        raise CheckFailed("expected no %r with pci=nobios, found it" % AREA_MSG)
    # seed 001 says it only where NX is in use: without NX every page is executable
    if AREA_MSG in ctx.boot(cpu=CPU_NO_NX).log:
        raise CheckFailed("expected no %r on a CPU without NX (the seed prints it only when "
                          "NX is in use), found it" % AREA_MSG)


@check(points=10, name="pci=nobios: the low 1 MiB stays RW+NX, while the default opens 640K-1M",
       steps=[EXEC_96, DIRECT_MAP])
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


@check(points=10, name="the CPA layer exempts only the declared hole (selftest pcbios, 3 policies)",
       steps=[ENABLE, RECORD, DECLARED, WRITABLE, IN_USE])
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


def picks(ctx):
    """(a page of the low 640K but its first, a page of the hole)."""
    r = ctx.rng("bios-hole set_memory")
    return (LOW + r.randrange(1, (HOLE_START - LOW) // PAGE) * PAGE,
            HOLE_START + r.randrange(HOLE_PAGES) * PAGE)


@check(points=10, name="set_memory at pages picked at grade time: W+X is refused outside the "
       "declared hole (low 640K, both edges of the hole; pci=nobios; pci=bios_tight's read-only "
       "hole)",
       steps=[DECLARED, WRITABLE, IN_USE, ENABLE])
def refused_outside_hole(ctx):
    r, (low, hole) = ctx.rng("bios-hole set_memory"), picks(ctx)
    bad = []
    # (boot, request, page, what must hold, in words)
    for cmdline, how, va, holds, want in (
            ("", "x", low, lambda m: m.nx, "RW+NX: W+X outside the hole"),
            # the hole's two edges, in every seed: the page just below it, and
            # the first page past it (the kernel text at 1 MiB, RO+X)
            ("", "x", HOLE_START - PAGE, lambda m: m.nx, "RW+NX: the last page below the hole"),
            ("", "rw", HOLE_END, lambda m: not m.rw,
             "RO+X: the first page past the hole (kernel text)"),
            ("", "rw", hole, lambda m: m.rw and m.exec, "RW+X: inside the declared hole"),
            ("pci=nobios", "x", hole, lambda m: m.nx, "RW+NX: no PCI BIOS, no exemption"),
            ("pci=bios_tight", "rw", None, lambda m: not m.rw,
             "RO+X: bios_tight declares a read-only hole")):
        # the lab's own boots, read by the checks above already: a correct
        # kernel refuses these requests, so nothing changes for later readers
        g = ctx.boot(cmdline=cmdline)
        if va is None:     # a page of the tight hole: executable, read-only
            xs = [m.va for m in g.tlb().maps if HOLE_START <= m.va < HOLE_END and m.exec]
            if not xs:
                bad.append("pci=bios_tight: expected some RO+X page in 640K-1M, found none")
                continue
            va = xs[r.randrange(len(xs))]
        out = g.sh("set_memory %s %x 1" % (how, va))
        m = g.tlb().lookup(va)
        if m is None or not holds(m):
            bad.append("%s: set_memory %s 0x%08x: expected the page to stay %s, found %s (%s)"
                       % (cmdline or "default boot", how, va, want,
                          m.perm() if m else "not mapped", out.strip()))
    if bad:
        raise CheckFailed("\n".join(bad))
