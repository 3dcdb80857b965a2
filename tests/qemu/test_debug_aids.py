# SPDX-License-Identifier: GPL-2.0-only
"""The debugging aids the lab grader drives, checked from outside:
wxplant= makes exactly the pages it names RW+X (info tlb) and the boot's
W^X audit reports each run; `set_memory` changes what it is asked to,
keeps what the policy forbids, and refuses bad input with one line."""
from guest import Guest, skip_under_boot_extra
from tlb import PageTables

PAGE, LARGE, PAGE_OFFSET = 4096, 2 << 20, 0xC0000000
# above 64 MiB (KASLR_MAX): direct-map RAM wherever kaslr puts the image
SMALL, LARGE_VA, NEAR_HOLE = 0xC4345000, 0xC4400000, 0xC009D000


def test_wxplant(t):
    cmdline = "wxplant=%x:7,%x:512,%x:3" % (SMALL, LARGE_VA, NEAR_HOLE)
    with Guest("wxplant", cmdline=cmdline) as g:
        log = g.wait_ready()
        pt = PageTables(g.monitor("info tlb"))
        for va, n in ((SMALL, 7), (LARGE_VA, 512), (NEAR_HOLE, 3)):
            wx = [p for p, m in pt.pages(va, va + n * PAGE) if m and m.rw and m.exec]
            t.check(len(wx) == n, "wxplant=%x:%d: those %d pages RW+X in info tlb" % (va, n, n),
                    "%d are" % len(wx))
            t.check("ronx: W+X mapping at 0x%08x-0x%08x (%d pages)" % (va, va + n * PAGE, n) in log,
                    "... and the boot's W^X audit reports the run", log[-800:])
        m = pt.lookup(LARGE_VA)
        t.check(m is not None and m.pse, "a planted 2 MiB page stays one 2 MiB page")
        t.check(pt.lookup(SMALL - PAGE).nx and pt.lookup(SMALL + 7 * PAGE).nx,
                "the pages around a planted run stay NX")
        t.check("FAILED, 522 W+X pages found (and 96 in the declared PCI BIOS hole)" in log,
                "the verdict counts the planted pages and names the hole apart", log[-800:])
        g.poweroff()
    # three bad words in one boot: each gets its line, none plants anything
    bad = ("wxplant=c4345000", "wxplant=c4345001:1", "wxplant=c0100000:4")
    said = ("bad value 'c4345000' for option 'wxplant'",
            "bad value 'c4345001:1' for option 'wxplant'",
            "0xc0100000+4 pages is not in the direct map outside the kernel image")
    if skip_under_boot_extra(t, "%s: one line saying what is wrong" % bad[2],
                             "0xc0100000 is the image only at the fixed layout; kaslr picks "
                             "its place during the boot, after the command line is written"):
        bad, said = bad[:2], said[:2]
    with Guest("wxplant bad", cmdline=" ".join(bad)) as g:
        log = g.wait_ready()
        for word, line in zip(bad, said):
            t.check(line in log, "%s: one line saying what is wrong" % word, log[-600:])
        t.check("made RW+X" not in log, "... and nothing planted", log[-600:])
        g.poweroff()


def test_set_memory(t):
    with Guest("set_memory") as g:
        g.wait_ready()
        s = g.symbols()
        base = PAGE_OFFSET + 40 * LARGE
        out = g.command("set_memory ro %x 3" % (base + 5 * PAGE))
        pt = PageTables(g.monitor("info tlb"))
        t.check("set_memory_ro(0x%08x, 3) = 0" % (base + 5 * PAGE) in out,
                "set_memory ro: it says what it called and the result", out)
        t.check([pt.lookup(base + i * PAGE).rw for i in range(4, 9)] ==
                [True, False, False, False, True] and not pt.lookup(base).pse,
                "... the 3 pages RO, their neighbours RW, the 2 MiB page split")
        g.command("set_memory rw %x 3" % (base + 5 * PAGE))
        m = PageTables(g.monitor("info tlb")).lookup(base)
        t.check(m is not None and m.pse and m.rw, "set_memory rw: the 2 MiB page whole again")
        g.command("set_memory nx %x" % s["_text"])
        t.check(PageTables(g.monitor("info tlb")).lookup(s["_text"]).exec,
                "set_memory nx on text: the policy keeps it executable")
        for line, said in (("set_memory", "usage: set_memory ro|rw|nx|x ADDR [PAGES]"),
                           ("set_memory wx c5000000", "usage:"),
                           ("set_memory ro c5000123", "is not a page-aligned hex address"),
                           ("set_memory ro c5000000 0", "is not a page count from 1 to 1024"),
                           ("set_memory ro 1000", "is not inside the direct map")):
            out = g.command(line)
            t.check(said in out and len(out.strip().splitlines()) == 1,
                    "%r: one line saying what is wrong" % line, out)
        t.check("PagesFree:" in g.command("meminfo"), "the kernel still answers")
        g.poweroff()
