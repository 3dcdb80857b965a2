# SPDX-License-Identifier: GPL-2.0-only
"""Lab 3, cpa: set_memory_ro/rw/nx/x through change_page_attr: static
protections, splitting and collapsing 2 MiB pages, TLB flushes (seed 001's
mm/pageattr.c hunk, Linux arch/x86/mm/pageattr.c). See docs/labs/cpa.md."""
import re

from grading import CheckFailed, check, expect_ktap, ktap_check, pages_check
from tlb import PageTables

PAGE_OFFSET = 0xC0000000
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000
LARGE = 2 << 20


pages_check(10, "the image policy, done through set_memory_*(), is in the page tables", [
    ("_text", "_etext", "RO+X", ".text"),
    ("__start_rodata", "__end_ro_after_init", "RO+NX", "rodata"),
    ("_sdata", "_end", "RW+NX", "data, freed init and bss")])
pages_check(5, "set_memory_x() opens the PCI BIOS hole: 640K-1M RW+X, below it RW+NX", [
    (BIOS_BEGIN, BIOS_END, "RW+X", "the PCI BIOS hole"),
    (PAGE_OFFSET, BIOS_BEGIN, "RW+NX", "the low 640K")])


@check(points=10, name="static protections: text never NX, rodata never RW, the hole never NX")
def static_protections(ctx):
    g = ctx.boot()
    expect_ktap(g, "pageattr", ["text_never_becomes_nx", "rodata_never_becomes_rw"])
    expect_ktap(g, "pcbios", ["cpa_respects_the_hole"])


ktap_check(10, "a 2 MiB page is split only where a request needs it", "pageattr",
           ["split_only_the_covered_page", "whole_large_page_is_not_split"])
ktap_check(10, "a split gives all 512 ptes the large page's frames and attributes", "pageattr",
           ["split_keeps_attributes"])
ktap_check(10, "a change is in force at once: the TLB entry is flushed", "pageattr",
           ["ro_takes_effect_at_once", "nx_takes_effect_at_once",
            "long_request_flushes_everything"])
ktap_check(5, "W+X requests and unmapped ranges are refused, nothing changed", "pageattr",
           ["wx_request_is_refused", "unmapped_range_changes_nothing"])


@check(points=10, name="after the self-tests the direct map is whole 2 MiB RW+NX pages again (info tlb)")
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
