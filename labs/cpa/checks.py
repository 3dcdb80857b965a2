# SPDX-License-Identifier: GPL-2.0-only
"""Lab 3, cpa: set_memory_ro/rw/nx/x through change_page_attr: static
protections, splitting and collapsing 2 MiB pages, TLB flushes (seed 001's
mm/pageattr.c hunk, Linux arch/x86/mm/pageattr.c). See docs/labs/cpa.md.

The kernel's own tests read the page tables back with lookup_address(),
which lives in the student's files; so the grader also drives the CPA
layer itself, with the shell's `set_memory` at pages it picks at grade
time, and reads the result from QEMU's `info tlb`: which 2 MiB page was
split, with which frames and attributes, whether it came back whole, and
what the policy kept from changing."""
import re

from grading import CheckFailed, GuestError, check, expect_ktap, pages_check, step, xp_byte
from tlb import PageTables

PAGE, PAGE_OFFSET = 4096, 0xC0000000
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000
LARGE = 2 << 20
FRAME = 0x000FFFFFFFFFF000      # info tlb's phys column carries bit 63 (NX) too

SP_TEXT = step("static_protections", "never NX on kernel text", "forgets-text")
SP_HOLE = step("static_protections", "never NX on the PCI BIOS hole", "forgets-hole")
SP_RODATA = step("static_protections", "never RW on sealed rodata", "forgets-rodata")
APPLY = step("cpa_apply", "set the page's new attributes (a whole 2 MiB page at once)",
             "large-page-unchanged")
SPLIT = step("cpa_apply", "split a 2 MiB page first, unless it changes whole", "always-split")
FLUSH = step("cpa_flush", "flush the request's pages on every CPU: flush_tlb_kernel_range()",
             "no-tlb-flush")
RETURN = step("cpa_apply", "return the pages done", "returns-512-after-split")
SPLIT_SAME = step("split_large_page", "512 ptes with the large page's frames and attributes",
                  "split-page-kernel")
SPLIT_FLUSH = step("split_large_page", "then flush", None,
                   "not observable: the split keeps every frame and attribute, and the CPU "
                   "(QEMU too) drops a whole 2 MiB TLB entry on the next invlpg inside it")
COLLAPSE = step("collapse_large_page", "put a 2 MiB page back when the 512 ptes are alike",
                "never-collapse")
ALIKE = step("collapse_large_page", "... only if their attributes agree", "collapse-frames-only")
CONTIGUOUS = step("collapse_large_page", "... contiguous and 2 MiB-aligned frames", None,
                  "not observable in ronx: only the direct map is collapsed, and a split page "
                  "there always has contiguous, aligned frames")
COLLAPSE_FLUSH = step("collapse_large_page", "flush every CPU before the table goes", None,
                      "not observable: the 2 MiB page maps every frame as the 512 ptes did, "
                      "so a CPU that kept a 4 KiB entry reaches the same frame with the same "
                      "attributes, and QEMU drops the 4 KiB entries on the next flush (lab 12, "
                      "tlb-shootdown, is about the other CPUs)")
FREE_TABLE = step("collapse_large_page", "free the page table", "collapse-leaks-table")


pages_check(10, "the image policy, done through set_memory_*(), is in the page tables", [
    ("_text", "_etext", "RO+X", ".text"),
    ("__start_rodata", "__end_ro_after_init", "RO+NX", "rodata"),
    ("_sdata", "_end", "RW+NX", "data, freed init and bss")], steps=[APPLY, RETURN])
pages_check(5, "set_memory_x() opens the PCI BIOS hole: 640K-1M RW+X, below it RW+NX", [
    (BIOS_BEGIN, BIOS_END, "RW+X", "the PCI BIOS hole"),
    (PAGE_OFFSET, BIOS_BEGIN, "RW+NX", "the low 640K")], steps=[APPLY])


@check(points=10, name="static protections: text never NX, rodata never RW, the hole never NX",
       steps=[SP_TEXT, SP_RODATA, SP_HOLE])
def static_protections(ctx):
    g = ctx.boot()
    bad = failures(lambda: expect_ktap(g, "pageattr", ["text_never_becomes_nx",
                                                       "rodata_never_becomes_rw"]),
                   lambda: expect_ktap(g, "pcbios", ["cpa_respects_the_hole"]))
    raise_all(bad + beside(ctx, "policy"))


def failures(*calls):
    """The words of each call that raised CheckFailed."""
    bad = []
    for call in calls:
        try:
            call()
        except CheckFailed as e:
            bad.append(str(e))
    return bad


def raise_all(bad):
    if bad:
        raise CheckFailed("\n".join(bad))


def outside(ctx, what):
    """[] or [the words of the failure] of the grader's own observation
    what ("set_memory", "policy", "other cpu": the checks at the end),
    made once per grade. The self-tests read the page tables back through
    lookup_address(), in mm/pgtable.c, a lab file: each self-test check
    also needs what QEMU sees of the same thing."""
    memo = ctx.__dict__.setdefault("cpa_outside", {})
    if what not in memo:
        try:
            memo[what] = failures(lambda: OBSERVE[what](ctx))
        except GuestError as e:     # a hung kernel is waited for once, not once per check
            memo[what] = ["the kernel stopped answering: %s" % e]
    return memo[what]


def beside(ctx, what):
    """outside(), said as the reason a self-test check fails too."""
    return ["and seen from outside (QEMU; the %s check at the end): %s" % (what, w)
            for w in outside(ctx, what)]


def ktap_and_outside(points, name, cases, observed, steps):
    """A check of self-test cases of pageattr that also needs the grader's
    own observation (outside()) of the same thing."""
    def run(ctx):
        raise_all(failures(lambda: expect_ktap(ctx.boot(), "pageattr", cases)) +
                  beside(ctx, observed))
    check(points, name, steps)(run)


ktap_and_outside(10, "a 2 MiB page is split only where a request needs it",
                 ["split_only_the_covered_page", "whole_large_page_is_not_split"], "set_memory",
                 steps=[SPLIT, RETURN])
ktap_and_outside(10, "a split gives all 512 ptes the large page's frames and attributes",
                 ["split_keeps_attributes"], "set_memory", steps=[SPLIT_SAME])
ktap_and_outside(10, "a change is in force at once: the TLB entry is flushed",
                 ["ro_takes_effect_at_once", "nx_takes_effect_at_once",
                  "long_request_flushes_everything"], "other cpu", steps=[FLUSH])
ktap_and_outside(5, "W+X requests and unmapped ranges are refused, nothing changed",
                 ["wx_request_is_refused", "unmapped_range_changes_nothing"], "policy",
                 steps=[APPLY])


@check(points=10, name="after the self-tests the direct map is whole 2 MiB RW+NX pages again (info tlb)",
       steps=[APPLY, COLLAPSE, ALIKE])
def collapsed_again(ctx):
    g = ctx.boot()
    g.ktap("pageattr")
    m = re.search(r"^Direct map: 0x([0-9a-f]+)-0x([0-9a-f]+)", g.log, re.M)
    if not m:
        raise CheckFailed("expected a 'Direct map: ...' line in the boot log, found none")
    end = int(m.group(2), 16) & ~(LARGE - 1)
    pt, bad = PageTables(g.monitor("info tlb")), []
    for va in range(PAGE_OFFSET + LARGE, end, LARGE):
        e = pt.lookup(va)
        if e is None or not e.pse or not e.rw or not e.nx:
            found = "not mapped" if e is None else "%s %s" % (e.perm(), "2M" if e.pse else "4K ptes")
            bad.append("0x%08x: expected one 2M RW+NX page, found %s" % (va, found))
    if bad:
        raise CheckFailed("\n".join(bad[:6] + (["... and %d more" % (len(bad) - 6)]
                                               if len(bad) > 6 else [])))


def meminfo(g):
    out = g.sh("meminfo")
    return {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+)", out, re.M)}


# A set_memory of up to 512 pages answers in well under a second; a kernel
# that hangs on one (a text page made NX, executed by the fault handler)
# is told after this many seconds (stretched by the load), not the shell's 30.
SET_MEMORY_BOUND = 10


def set_memory(g, how, va, pages):
    out = g.sh("set_memory %s %x %d" % (how, va, pages), SET_MEMORY_BOUND)
    if "= 0" not in out:
        raise CheckFailed("expected `set_memory %s 0x%08x %d` to succeed, found:\n%s"
                          % (how, va, pages, out.strip()))


def expect_same_outside(before, after, lo, hi, when):
    """Every mapping outside [lo, hi) as it was: a request changes its own
    2 MiB page(s) and nothing else."""
    def outside(pt):
        return [(m.va, m.pa, m.attrs()) for m in pt.maps if not lo <= m.va < hi]
    if outside(before) != outside(after):
        changed = sorted(set(outside(after)) ^ set(outside(before)))
        raise CheckFailed("%s: expected no mapping outside 0x%08x-0x%08x to change, found %d "
                          "that did, first at 0x%08x" % (when, lo, hi, len(changed), changed[0][0]))


def expect_ptes(pt, base, want, when):
    """The 2 MiB at base as 512 ptes of its own frames; want(va) -> (rw, nx)."""
    bad = []
    for va in range(base, base + LARGE, PAGE):
        m = pt.lookup(va)
        if m is None or m.pse or m.pa & FRAME != va - PAGE_OFFSET or (m.rw, m.nx) != want(va):
            bad.append("0x%08x: expected a 4K pte of frame 0x%08x, %s, found %s"
                       % (va, va - PAGE_OFFSET, "%s+%s" % (("RW" if want(va)[0] else "RO"),
                                                           ("NX" if want(va)[1] else "X")),
                          "not mapped" if m is None else "%s %s frame 0x%08x" % (
                              m.perm(), "2M" if m.pse else "4K", m.pa & FRAME)))
    if bad:
        raise CheckFailed("%s: %d of 512 pages differ:\n%s" % (when, len(bad), "\n".join(bad[:4])))


def expect_large(pt, base, rw, when):
    m = pt.lookup(base)
    if m is None or not m.pse or m.va != base or m.rw != rw or not m.nx:
        raise CheckFailed("%s: expected 0x%08x as one 2 MiB %s+NX page, found %s"
                          % (when, base, "RW" if rw else "RO", "not mapped" if m is None else
                             "%s %s" % (m.perm(), "2M" if m.pse else "4K ptes")))


def set_memory_scenario(ctx):
    """(base, k, n): a 2 MiB page of the direct map, and a run of n >= 2
    pages inside it from page k, touching neither of its edges (the edges
    are graded apart, in every seed)."""
    r = ctx.rng("cpa set_memory")
    base = PAGE_OFFSET + r.randrange(8, 48) * LARGE
    return base, r.randrange(1, 480), r.randrange(2, 33)


@check(points=15, name="set_memory at pages picked at grade time: a whole 2 MiB page changes "
       "whole, a part of it splits with its frames and attributes, and it comes back whole "
       "(info tlb, meminfo)", steps=[APPLY, SPLIT, RETURN, SPLIT_SAME, COLLAPSE, ALIKE, FREE_TABLE])
def set_memory_seen_from_outside(ctx):
    raise_all(outside(ctx, "set_memory"))


def observe_set_memory(ctx):
    base, k, n = set_memory_scenario(ctx)
    run = (base + k * PAGE, base + (k + n) * PAGE)
    g = ctx.boot(tag="cpa-set-memory")
    before, mem0 = g.tlb(), meminfo(g)
    expect_large(before, base, True, "before any request")
    set_memory(g, "ro", base, 512)
    pt = g.tlb()
    expect_large(pt, base, False, "after set_memory ro on the whole 2 MiB page 0x%08x" % base)
    expect_same_outside(before, pt, base, base + LARGE, "after set_memory ro 0x%08x 512" % base)
    if meminfo(g)["PageTables"] != mem0["PageTables"]:
        raise CheckFailed("expected no page table for a request covering a whole 2 MiB page, "
                          "found PageTables %d -> %d" % (mem0["PageTables"], meminfo(g)["PageTables"]))
    set_memory(g, "rw", run[0], n)
    pt = g.tlb()
    expect_ptes(pt, base, lambda va: (run[0] <= va < run[1], True),
                "after set_memory rw 0x%08x %d inside the read-only 2 MiB page" % (run[0], n))
    expect_same_outside(before, pt, base, base + LARGE, "after set_memory rw 0x%08x %d" % (run[0], n))
    set_memory(g, "rw", base, 512)
    expect_whole_again(g, base, mem0, "after set_memory rw on the whole 2 MiB page again")
    # every seed also changes the first and the last page alone: a split or a
    # collapse that stops one pte short at either end of the 512 shows there
    for edge in (base, base + LARGE - PAGE):
        set_memory(g, "ro", edge, 1)
        pt = g.tlb()
        expect_ptes(pt, base, lambda va: (va != edge, True),
                    "after set_memory ro 0x%08x 1 (an edge of the 2 MiB page)" % edge)
        expect_same_outside(before, pt, base, base + LARGE, "after set_memory ro 0x%08x 1" % edge)
        set_memory(g, "rw", edge, 1)
        expect_whole_again(g, base, mem0, "after set_memory rw 0x%08x 1" % edge)


def expect_whole_again(g, base, mem0, when):
    """base is one RW 2 MiB page again, its split's table freed."""
    pt, mem = g.tlb(), meminfo(g)
    expect_large(pt, base, True, when)
    if (mem["PageTables"], mem["PagesFree"]) != (mem0["PageTables"], mem0["PagesFree"]):
        raise CheckFailed("%s: expected the split's page table freed when the 2 MiB page came "
                          "back: PageTables %d and PagesFree %d as before, found %d and %d"
                          % (when, mem0["PageTables"], mem0["PagesFree"], mem["PageTables"],
                             mem["PagesFree"]))


@check(points=10, name="set_memory against the policy at pages picked at grade time: text stays "
       "X, sealed rodata and ro_after_init RO, the BIOS hole X, nothing becomes W+X (info tlb)",
       steps=[SP_TEXT, SP_RODATA, SP_HOLE])
def policy_seen_from_outside(ctx):
    raise_all(outside(ctx, "policy"))


def observe_policy(ctx):
    r = ctx.rng("cpa policy")
    pick = lambda lo, hi: lo + r.randrange(max(1, (hi - lo) // PAGE)) * PAGE  # noqa: E731
    cases = [("nx", pick(ctx.sym("_text"), ctx.sym("_etext")), "text", "X", lambda m: m.exec),
             ("rw", pick(ctx.sym("__start_rodata"), ctx.sym("__end_rodata")), "rodata", "RO",
              lambda m: not m.rw),
             ("rw", pick(ctx.sym("__start_ro_after_init"), ctx.sym("__end_ro_after_init")),
              "ro_after_init (sealed with rodata)", "RO", lambda m: not m.rw),
             ("nx", pick(BIOS_BEGIN, BIOS_END), "the PCI BIOS hole", "X", lambda m: m.exec),
             ("x", pick(ctx.sym("_sdata"), ctx.sym("_edata")), "data (X would make it W+X)",
              "NX", lambda m: m.nx)]
    g = ctx.boot(tag="cpa-set-memory")     # the boot the check above left as it found it
    bad = []
    for how, va, what, want, holds in cases:
        g.sh("set_memory %s %x 1" % (how, va), SET_MEMORY_BOUND)
        m = g.tlb().lookup(va)
        if m is None or not holds(m):
            bad.append("set_memory %s on %s: expected %s %s, found %s"
                       % (how, what, ctx.where(va), want, m.perm() if m else "not mapped"))
    if bad:
        raise CheckFailed("\n".join(bad))


def other_cpu_runs(ctx):
    """[(va, n, page, byte)]: one page, a short run and a run past the
    flush ceiling (32), so both flush paths, in free RAM of the 128M
    machine; page is the run's first, middle or last page."""
    r = ctx.rng("cpa other cpu")
    runs = []
    for n in (1, r.randrange(2, 33), r.randrange(33, 128)):
        va = PAGE_OFFSET + r.randrange((64 << 20) // PAGE, ((120 << 20) // PAGE) - n) * PAGE
        runs.append((va, n, va + r.choice(sorted({0, n // 2, n - 1})) * PAGE,
                     r.randrange(1, 128)))
    return runs


@check(points=10, name="a change holds on the other CPU too: after set_memory ro at pages picked "
       "at grade time, neither CPU's write reaches memory (cpuwrite, QEMU's xp)", steps=[FLUSH])
def other_cpu_seen_from_outside(ctx):
    raise_all(outside(ctx, "other cpu"))


def observe_other_cpu(ctx):
    g = ctx.boot(tag="cpa-smp", smp=2)
    bad = []
    for va, n, page, before in other_cpu_runs(ctx):
        for cpu in (0, 1):      # each CPU's TLB now holds the page, writable
            g.sh("cpuwrite %d %x %d" % (cpu, page, before))
        if xp_byte(g, page) != before:
            raise CheckFailed("expected `cpuwrite` to write %#x at 0x%08x before the change, "
                              "QEMU reads %#x" % (before, page, xp_byte(g, page)))
        set_memory(g, "ro", va, n)
        for cpu in (0, 1):
            out = g.sh("cpuwrite %d %x %d" % (cpu, page, 128 + cpu))
            found = xp_byte(g, page)
            if found != before:
                bad.append("0x%08x (page %d of set_memory ro 0x%08x %d): CPU %d's write reached "
                           "memory: QEMU reads %#x, expected %#x (%s)"
                           % (page, (page - va) // PAGE, va, n, cpu, found, before, out.strip()))
        set_memory(g, "rw", va, n)
    if bad:
        raise CheckFailed("\n".join(bad))


OBSERVE = {"set_memory": observe_set_memory, "policy": observe_policy,
           "other cpu": observe_other_cpu}
