# SPDX-License-Identifier: GPL-2.0-only
"""debug_pagealloc (Linux's DEBUG_PAGEALLOC, issue 32 item 4) and LKDTM's
READ_BUDDY_AFTER_FREE / WRITE_BUDDY_AFTER_FREE (item 7), seen from outside:
QEMU's `info tlb` must show exactly as many 4 KiB pages absent from the
direct map as the kernel says are free, the page a crash type freed among
them, and the oops must say the page was free. Without the option the
same check finds no absent page at all, and the crash types say the use
after free went unnoticed."""
import re

from guest import Guest
from tlb import PageTables

DIRECT_MAP = re.compile(r"^Direct map: 0x([0-9a-f]{8})-0x([0-9a-f]{8})", re.M)
ARMED = re.compile(r"^debug_pagealloc: (\d+) free pages unmapped from the direct map", re.M)
FREED_AT = re.compile(r"lkdtm: (?:Attempting to read from freed memory|"
                      r"Attempting bad write to the buddy page after free) at ([0-9a-f]{8})$", re.M)
UNNOTICED = "since this kernel was booted without debug_pagealloc: the use after free went unnoticed"
CASES = [  # crash type, its #PF line, its FAIL line when the page stays mapped
    ("READ_BUDDY_AFTER_FREE", "#PF: supervisor read access in kernel mode",
     "lkdtm: FAIL: Buddy page was not poisoned"),
    ("WRITE_BUDDY_AFTER_FREE", "#PF: supervisor write access in kernel mode",
     "lkdtm: FAIL: wrote to the buddy page after free"),
]


def pages_free(g):
    return int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))


def direct_map(g):
    m = DIRECT_MAP.search(g.out)
    assert m, "no 'Direct map:' line in the boot log"
    return int(m.group(1), 16), int(m.group(2), 16)


def direct_map_view(g):
    """(info tlb's tables, the direct map's 4 KiB pages no entry maps)."""
    pt = PageTables(g.monitor("info tlb"))
    start, end = direct_map(g)
    return pt, [va for va, m in pt.pages(start, end) if m is None]


def check_absent_is_free(t, g, tag, when):
    free = pages_free(g)
    _, absent = direct_map_view(g)
    t.check(len(absent) == free,
            tag + "%s: the direct map's absent 4K pages (info tlb) are as many as PagesFree" % when,
            "%d absent, PagesFree %d" % (len(absent), free))


def crash_lane(t, tag, cmdline, extra=(), suites=""):
    """suites: the self-tests to run in this boot ("": every one)."""
    with Guest("pagealloc " + tag, cmdline=cmdline, extra=list(extra)) as g:
        g.wait_ready()
        label, tag = tag, "[%s] " % tag
        armed = ARMED.search(g.out)
        t.check(armed, tag + "the boot says debug_pagealloc unmapped the free pages", g.out[-1500:])
        # CPA over a range holding free pages (mark_nxdata_nx() after free_initmem()) once left data W+X
        t.check("W+X check: FAILED" not in g.out, tag + "the boot's W+X check passes",
                "\n".join(l for l in g.out.splitlines() if "W+X" in l))
        pt, _ = direct_map_view(g)
        start, end = direct_map(g)
        large = [m for m in pt.maps if start <= m.va < end and m.pse]
        t.check(not large, tag + "the direct map has no 2 MiB page under debug_pagealloc",
                "%d 2M pages, first at %08x" % (len(large), large[0].va) if large else "")
        check_absent_is_free(t, g, tag, "at the prompt")
        before = pages_free(g)
        listing = g.command("crash")
        for n, (name, pf, _) in enumerate(CASES, 1):
            t.check(re.search(r"^\s+%s\s" % name, listing, re.M), tag + "crash lists " + name)
            out = g.command("crash " + name)
            m = FREED_AT.search(out)
            va = m and m.group(1)
            t.check(m and "BUG: unable to handle page fault for address: %s" % va in out
                    and "ronx: %s is in a free page" % va in out and pf in out
                    and "Oops: " in out and "[#%d]" % n in out and "oopsed as it should" in out,
                    tag + "%s: the oops names the freed page's address and says it is free; "
                    "the shell comes back" % name, out[-1500:])
            if not m:
                continue
            pt, absent = direct_map_view(g)
            t.check(pt.lookup(int(va, 16)) is None and int(va, 16) in absent,
                    tag + "%s: from outside (info tlb) the freed page %s is absent from the direct map"
                    % (name, va))
            check_absent_is_free(t, g, tag, "after " + name)
        out = g.command("run hello")
        t.check("exit status 0" in out, tag + "a process runs after the oopses (its pages come and go)", out)
        check_absent_is_free(t, g, tag, "after a process came and went")
        t.check(pages_free(g) == before, tag + "no page leaked by the crashes (PagesFree %d)" % before)
        t.ktap(g.command(("selftest " + suites).strip(), timeout=300), "selftest[%s]" % label)
        check_absent_is_free(t, g, tag, "after the self-tests")
        t.check(g.poweroff() == 1, tag + "the kernel still powers off cleanly")


def test_pagealloc_1cpu(t):
    crash_lane(t, "1 CPU", "debug_pagealloc")


def test_pagealloc_smp2(t):
    crash_lane(t, "smp 2", "debug_pagealloc", ["-smp", "2"], "debug_pagealloc")


def test_pagealloc_kaslr_smp2(t):
    crash_lane(t, "kaslr smp 2", "debug_pagealloc kaslr", ["-smp", "2"], "debug_pagealloc")


def test_pagealloc_off(t):
    """Without the option: freed pages stay mapped, the crash types run to
    their end and say the bug went unnoticed, and the outside check above
    would fail (no page is absent while thousands are free)."""
    with Guest("pagealloc off") as g:
        g.wait_ready()
        t.check(not ARMED.search(g.out), "[off] no debug_pagealloc line without the option")
        free = pages_free(g)
        _, absent = direct_map_view(g)
        t.check(free > 0 and len(absent) != free,
                "[off] the outside check fails without the option: absent pages != PagesFree",
                "%d absent, PagesFree %d" % (len(absent), free))
        for name, _, fail in CASES:
            out = g.command("crash " + name)
            t.check(fail in out and UNNOTICED in out and "Oops" not in out,
                    "[off] %s: goes unnoticed, says so, and the kernel keeps running" % name, out[-900:])
        out = g.command("run hello")
        t.check("exit status 0" in out, "[off] a process still runs", out)
        t.check(pages_free(g) == free, "[off] no page leaked (PagesFree %d)" % free)
        t.check(g.poweroff() == 1, "[off] the kernel still powers off cleanly")
