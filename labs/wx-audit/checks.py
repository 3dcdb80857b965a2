# SPDX-License-Identifier: GPL-2.0-only
"""Lab 4, wx-audit: the W^X audit decides at the leaf, from the levels
that carry permissions under PAE, and names the declared PCI BIOS hole
(Linux's ptdump_walk_pgd_level_checkwx, and the mistake it makes on PAE).
See docs/labs/wx-audit.md."""
import re

from grading import CPU_NO_NX, CheckFailed, check, expect_ktap, ktap_check

PAGE_OFFSET = 0xC0000000
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000
VERDICT = re.compile(r"^ronx: W\+X check: .*$", re.M)
RANGE = re.compile(r"^ronx: W\+X mapping at 0x([0-9a-f]+)-0x([0-9a-f]+) \((\d+) pages\)$", re.M)


def audit(g):
    """Runs wxcheck; returns (its output, its verdict line)."""
    out = g.sh("wxcheck")
    m = VERDICT.search(out)
    if not m:
        raise CheckFailed("expected a 'ronx: W+X check: ...' verdict from wxcheck, found:\n"
                          + out[-400:])
    return out, m.group(0)


def expect_verdict(verdict, regex, want):
    m = re.search(regex, verdict)
    if not m:
        raise CheckFailed("expected the verdict %s, found %r" % (want, verdict))
    return m


ktap_check(10, "effective_prot(): only the PDE and the PTE decide, never the PDPTE", "wxcheck",
           ["pdpte_has_no_rw_bit", "pde_and_pte_both_decide", "large_page_is_its_own_leaf",
            "not_present_is_not_mapped"])


@check(points=10, name="default boot: the audit names the declared hole, as many pages as info tlb")
def names_the_hole(ctx):
    g = ctx.boot()
    _, verdict = audit(g)
    m = expect_verdict(verdict, r"(\d+) W\+X pages, all in the declared PCI BIOS hole",
                       "'N W+X pages, all in the declared PCI BIOS hole ...'")
    want = g.pt.wx_pages(BIOS_BEGIN, BIOS_END)
    if int(m.group(1)) != want:
        raise CheckFailed("expected %d W+X pages in the hole (info tlb: RW+X pages in "
                          "0x%08x-0x%08x), found the audit saying %s"
                          % (want, BIOS_BEGIN, BIOS_END, m.group(1)))


@check(points=10, name="rodata=off: the audit fails, with each W+X range as info tlb has it")
def finds_wx(ctx):
    g = ctx.boot(cmdline="rodata=off")
    out, verdict = audit(g)
    want = g.pt.wx_pages() - g.pt.wx_pages(BIOS_BEGIN, BIOS_END)
    m = expect_verdict(verdict, r"FAILED, (\d+) W\+X pages found",
                       "'FAILED, %d W+X pages found'" % want)
    if int(m.group(1)) != want:
        raise CheckFailed("expected %d W+X pages outside the hole (info tlb), found the "
                          "audit saying %s" % (want, m.group(1)))
    bad = []
    for r in RANGE.finditer(out):
        lo, hi = int(r.group(1), 16), int(r.group(2), 16)
        bad += ["%s, reported W+X: found %s" % (ctx.where(va), "not mapped" if e is None
                                                 else e.perm())
                for va, e in g.pt.pages(lo, hi) if e is None or not (e.rw and e.exec)]
        if BIOS_BEGIN < hi and lo < BIOS_END:
            bad.append("0x%08x-0x%08x: the declared hole reported as a violation" % (lo, hi))
    if not RANGE.search(out):
        bad.append("expected 'ronx: W+X mapping at 0x...-0x... (N pages)' lines, found none")
    if bad:
        raise CheckFailed("\n".join(bad[:6]))


@check(points=5, name="pci=nobios: no hole, no W+X page, the audit passes")
def passes_without_hole(ctx):
    g = ctx.boot(cmdline="pci=nobios")
    _, verdict = audit(g)
    if g.pt.wx_pages():
        raise CheckFailed("expected no W+X page in info tlb with pci=nobios, found %d"
                          % g.pt.wx_pages())
    expect_verdict(verdict, r"passed, no W\+X pages found", "'passed, no W+X pages found'")


@check(points=5, name="a CPU without NX: the audit says it has nothing to check")
def no_nx(ctx):
    out, verdict = audit(ctx.boot(cpu=CPU_NO_NX))
    expect_verdict(verdict, r"skipped, NX is not in use", "'skipped, NX is not in use ...'")
    if RANGE.search(out):
        raise CheckFailed("expected no W+X ranges without NX (every page is executable, "
                          "none is a violation), found: " + RANGE.search(out).group(0))


@check(points=10, name="the audit agrees with lookup_address() page by page (selftest)")
def agrees(ctx):
    for cmdline in ("", "rodata=off"):
        expect_ktap(ctx.boot(cmdline=cmdline), "wxcheck", ["audit_agrees_with_lookup_address"])
