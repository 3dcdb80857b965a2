# SPDX-License-Identifier: GPL-2.0-only
"""Lab 4, wx-audit: the W^X audit decides at the leaf, from the levels
that carry permissions under PAE, and names the declared PCI BIOS hole
(Linux's ptdump_walk_pgd_level_checkwx, and the mistake it makes on PAE).
See docs/labs/wx-audit.md.

The audit's verdict is the student's code talking, so the graded boots
plant W+X pages the student cannot know in advance (wxplant=, chosen from
the grade's seed: a run of 4 KiB pages, a whole 2 MiB page, a run that
ends where the PCI BIOS hole starts), and every reported range is compared
with the W+X runs QEMU's `info tlb` reads from the page tables. `walk VA`
shows the student's effective_prot() beside the raw entries, which are
compared with the page-table model's walk (labs/pagemodel.py: the tables
QEMU's pmemsave reads with the CPU stopped)."""
import re

import pagemodel
from grading import CPU_NO_NX, CheckFailed, check, expect_ktap, ktap_check, step
from tlb import registers
from userlab import work_dir

PAGE, LARGE = 4096, 2 << 20
PAGE_OFFSET = 0xC0000000
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000
VERDICT = re.compile(r"^ronx: W\+X check: .*$", re.M)
RANGE = re.compile(r"^ronx: W\+X mapping at 0x([0-9a-f]+)-0x([0-9a-f]+) \((\d+) pages\)$", re.M)
WALK_PERM = re.compile(r"^effective: (RW\+X|RW\+NX|RO\+X|RO\+NX|not mapped)", re.M)
WALK_ENTRY = re.compile(r"^(PDPTE|PDE|PTE)\[(\d+)\]\s+0x([0-9a-f]{16})", re.M)

PRESENT = step("effective_prot", "present only if the PDPTE, the PDE and the leaf all are",
               "present-leaf-only")
RW = step("effective_prot", "RW from the PDE and the PTE, never from the PDPTE", "fold-from-pdpte")
RW_PDE = step("effective_prot", "a read-only or NX PDE above a 4K page counts", "leaf-bits-only")
NX = step("effective_prot", "NX if the PDE or the PTE sets it", "nx-folded-like-rw")
RUNS = step("check_page", "extend the current W+X run, or end it", "never-merges")
LARGE_RUN = step("check_page", "a 2 MiB page extends the run by 512 pages", "large-page-is-one")
HOLE = step("check_page", "runs inside the declared PCI BIOS hole are counted apart",
            "hole-not-named")
NO_NX = step("check_page", "without NX in use nothing is a violation", "ignores-no-nx")


def plants(ctx):
    """This grade's W+X pages (from its seed): [(va, pages)] - a run of 4
    KiB pages, a whole 2 MiB page, and a run that ends at the hole."""
    r = ctx.rng("wx-audit plants")
    large = PAGE_OFFSET + r.randrange(8, 48) * LARGE
    small = PAGE_OFFSET + r.randrange(0x1000000 // PAGE, 0x6000000 // PAGE - 64) * PAGE
    # apart from the 2 MiB page by a page at least: two runs, never one
    while large - 64 * PAGE <= small <= large + LARGE:
        small = PAGE_OFFSET + r.randrange(0x1000000 // PAGE, 0x6000000 // PAGE - 64) * PAGE
    below = r.randrange(1, 9)
    return [(small, r.randrange(2, 41)), (large, 512), (BIOS_BEGIN - below * PAGE, below)]


def planted_boot(ctx, cmdline=""):
    arg = "wxplant=" + ",".join("%x:%d" % p for p in plants(ctx))
    return ctx.boot(cmdline=(cmdline + " " + arg).strip())


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


def wx_runs(pt, hole):
    """The W+X runs of info tlb, as the audit must report them: contiguous
    W+X pages merged, cut where the declared hole starts and ends, the
    hole's own runs left out if it is declared (hole is True)."""
    runs = []
    for m in pt.maps:
        if not (m.rw and m.exec):
            continue
        for va in range(m.va, m.va + m.size, PAGE):
            inside = hole and BIOS_BEGIN <= va < BIOS_END
            if runs and runs[-1][1] == va and runs[-1][2] == inside:
                runs[-1][1] = va + PAGE
            else:
                runs.append([va, va + PAGE, inside])
    return [(a, b) for a, b, inside in runs if not inside]


def expect_ranges(out, pt, hole):
    """The audit's 'W+X mapping at' lines are exactly info tlb's runs."""
    want = wx_runs(pt, hole)
    found = [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3)))
             for m in RANGE.finditer(out)]
    bad = ["a line says %d pages for 0x%08x-0x%08x (%d pages)" % (n, a, b, (b - a) // PAGE)
           for a, b, n in found if n != (b - a) // PAGE]
    got = [(a, b) for a, b, _ in found]
    if got != want or bad:
        show = lambda rs: "\n".join("    0x%08x-0x%08x (%d pages)" % (a, b, (b - a) // PAGE)  # noqa: E731
                                    for a, b in rs[:8]) + ("\n    ... %d in all" % len(rs)
                                                           if len(rs) > 8 else "")
        raise CheckFailed("expected the audit's W+X ranges to be info tlb's, one line per "
                          "contiguous run%s:\n%s\nfound %d lines:\n%s%s"
                          % (", the declared hole apart" if hole else "", show(want) or "    none",
                             len(got), show(got) or "    none",
                             "\n" + "\n".join(bad[:3]) if bad else ""))


ktap_check(10, "effective_prot(): only the PDE and the PTE decide, never the PDPTE", "wxcheck",
           ["pdpte_has_no_rw_bit", "pde_and_pte_both_decide", "large_page_is_its_own_leaf",
            "not_present_is_not_mapped"], steps=[PRESENT, RW, RW_PDE, NX])


@check(points=10, name="default boot: the audit names the declared hole, as many pages as info tlb",
       steps=[RW, HOLE, RUNS])
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


@check(points=15, name="planted W+X pages (a 4K run, a 2 MiB page, one beside the hole): each "
       "range as info tlb has it", steps=[RW, NX, RUNS, LARGE_RUN, HOLE])
def finds_planted(ctx):
    g = planted_boot(ctx)
    out, verdict = audit(g)
    outside = g.pt.wx_pages() - g.pt.wx_pages(BIOS_BEGIN, BIOS_END)
    m = expect_verdict(verdict, r"FAILED, (\d+) W\+X pages found \(and (\d+) in the declared",
                       "'FAILED, %d W+X pages found (and %d in the declared PCI BIOS hole)'"
                       % (outside, g.pt.wx_pages(BIOS_BEGIN, BIOS_END)))
    if (int(m.group(1)), int(m.group(2))) != (outside, g.pt.wx_pages(BIOS_BEGIN, BIOS_END)):
        raise CheckFailed("expected %d W+X pages outside the hole and %d in it (info tlb), "
                          "found the audit saying %s and %s"
                          % (outside, g.pt.wx_pages(BIOS_BEGIN, BIOS_END), m.group(1),
                             m.group(2)))
    expect_ranges(out, g.pt, hole=True)


@check(points=10, name="rodata=off: the audit fails, with each W+X range as info tlb has it",
       steps=[RW, NX, RUNS, HOLE])
def finds_wx(ctx):
    g = planted_boot(ctx, "rodata=off")
    out, verdict = audit(g)
    want = g.pt.wx_pages() - g.pt.wx_pages(BIOS_BEGIN, BIOS_END)
    m = expect_verdict(verdict, r"FAILED, (\d+) W\+X pages found",
                       "'FAILED, %d W+X pages found'" % want)
    if int(m.group(1)) != want:
        raise CheckFailed("expected %d W+X pages outside the hole (info tlb), found the "
                          "audit saying %s" % (want, m.group(1)))
    expect_ranges(out, g.pt, hole=True)


@check(points=5, name="pci=nobios: no hole, no W+X page, the audit passes", steps=[PRESENT, HOLE])
def passes_without_hole(ctx):
    g = ctx.boot(cmdline="pci=nobios")
    _, verdict = audit(g)
    if g.pt.wx_pages():
        raise CheckFailed("expected no W+X page in info tlb with pci=nobios, found %d"
                          % g.pt.wx_pages())
    expect_verdict(verdict, r"passed, no W\+X pages found", "'passed, no W+X pages found'")


@check(points=5, name="a CPU without NX: the audit says it has nothing to check", steps=[NO_NX])
def no_nx(ctx):
    out, verdict = audit(ctx.boot(cpu=CPU_NO_NX))
    expect_verdict(verdict, r"skipped, NX is not in use", "'skipped, NX is not in use ...'")
    if RANGE.search(out):
        raise CheckFailed("expected no W+X ranges without NX (every page is executable, "
                          "none is a violation), found: " + RANGE.search(out).group(0))


@check(points=10, name="the audit agrees with lookup_address() page by page (selftest)",
       steps=[RW, NX, RUNS, HOLE])
def agrees(ctx):
    for cmdline in ("", "rodata=off"):
        expect_ktap(planted_boot(ctx, cmdline), "wxcheck", ["audit_agrees_with_lookup_address"])


def walk_cases(ctx):
    """(what, va): a page of each kind, picked at random in it."""
    r = ctx.rng("wx-audit walks")
    small, large, below = plants(ctx)

    def pick(lo, hi):
        return lo + r.randrange(max(1, (hi - lo) // PAGE)) * PAGE
    return [("text", pick(ctx.sym("_text"), ctx.sym("_etext"))),
            ("rodata", pick(ctx.sym("__start_rodata"), ctx.sym("__end_rodata"))),
            ("data", pick(ctx.sym("_sdata"), ctx.sym("_edata"))),
            ("the PCI BIOS hole", pick(BIOS_BEGIN, BIOS_END)),
            ("a 2 MiB page of the direct map", pick(PAGE_OFFSET + (100 << 20),
                                                     PAGE_OFFSET + (120 << 20))),
            ("a planted W+X 4K page", pick(small[0], small[0] + small[1] * PAGE)),
            ("the planted W+X 2 MiB page", pick(large[0], large[0] + LARGE)),
            ("user space (not mapped)", pick(0x08000000, 0x40000000))]


@check(points=10, name="walk VA: effective_prot() on the real entries gives info tlb's "
       "permission, beside the raw entries QEMU reads", steps=[PRESENT, RW, NX])
def walk_agrees(ctx):
    g = planted_boot(ctx)
    cr3 = registers(g.monitor("info registers"))["CR3"]
    bad = []
    for what, va in walk_cases(ctx):
        out = g.sh("walk 0x%08x" % va)
        m = WALK_PERM.search(out)
        e = g.pt.lookup(va)
        want = e.perm() if e else "not mapped"
        found = m.group(1) if m else "no 'effective:' line"
        if found != want:
            bad.append("walk 0x%08x (%s): expected %s (info tlb), found %s"
                       % (va, what, want, found))
        with pagemodel.stopped(g):
            mem = pagemodel.Pages(pagemodel.pmem_fetch(g, work_dir(ctx, "wx-audit")))
            hw = [(e.level, e.index, e.raw) for e in pagemodel.walk(mem.read, cr3, va)]
        shown = [(lvl, int(i), int(v, 16)) for lvl, i, v in WALK_ENTRY.findall(out)]
        # the accessed and dirty bits may change between two reads
        if [(a, b, c | 0x60) for a, b, c in shown] != [(a, b, c | 0x60) for a, b, c in hw]:
            bad.append("walk 0x%08x (%s): expected the raw entries QEMU reads, %s; found %s"
                       % (va, what, " ".join("%s[%d]=%016x" % x for x in hw),
                          " ".join("%s[%d]=%016x" % x for x in shown) or "none"))
    if bad:
        raise CheckFailed("\n".join(bad))
