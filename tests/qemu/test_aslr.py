# SPDX-License-Identifier: GPL-2.0-only
"""The randomized process layout (issue 23, item 3), proven from outside:
aslrprobe prints where exec put its stack and where its first mmap
landed, then loops in ring 3; QEMU walks that process's page tables
(the CR3 `ps` prints) and reads the marks the program wrote with xp. Runs
of one program get different addresses, inside the documented ranges
(stack top: 11 bits of pages under 0xc0000000; mmap base: 8 bits of pages
above 0x40000000), with the guard page under the stack's 8 MiB room
absent. norandmaps gives the fixed layout exactly."""
import re
import time
from guest import PROMPT, Guest, skip_under_boot_extra
from tlb import pae_walk, xp64
from userprog import ps
import test_modules   # its lsmod parser (a module, so that run.py collects no test twice)

FRAME = 0x000FFFFFFFFFF000
RW, USER = 2, 4
PROBE = re.compile(r"aslrprobe: stack 0x([0-9a-f]+) mmap 0x([0-9a-f]+) pid (\d+) looping")
STACK_AREA = re.compile(r"user stack of aslrprobe\[\d+\] 0x([0-9a-f]{8})-0x([0-9a-f]{8})")


def leaf(g, cr3, va):
    e = pae_walk(g.monitor, cr3, va)
    return e[-1][2] if len(e) == 3 and e[-1][2] & 1 else None


def probe(g, t, tag):
    """Runs aslrprobe in the background; checks its pages from outside.
    (stack address, mmap address, stack top read by walk) or None."""
    mark = len(g.out)
    g.send(b"run aslrprobe &\r")
    m = g.wait_for(PROBE.pattern, start=mark)
    g.wait_for("^" + re.escape(PROMPT), start=mark)
    time.sleep(0.2)
    stack, mm, pid = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3))
    cr3 = ps(g)[pid][1]
    out = g.command("walk %#x %d" % (stack, pid))
    a = STACK_AREA.search(out)
    t.check(a, "[%s] walk names aslrprobe's stack area" % tag, out[-300:])
    top = int(a.group(2), 16) if a else 0
    g.monitor("stop")
    try:
        s, p = leaf(g, cr3, stack), leaf(g, cr3, mm)
        t.check(s and s & USER and s & RW and s >> 63 and xp64(g.monitor, (s & FRAME) + (stack & 0xfff)) & 0xffffffff == 0x5a5a5a5a,
                "[%s] QEMU's walk of its CR3: the stack page %#x is there, USR RW NX, holding the mark" % (tag, stack),
                s and hex(s))
        t.check(p and p & USER and p & RW and p >> 63 and xp64(g.monitor, (p & FRAME) + (mm & 0xfff)) & 0xffffffff == 0xa5a5a5a5,
                "[%s] QEMU's walk of its CR3: the mmap page %#x is there, USR RW NX, holding the mark" % (tag, mm),
                p and hex(p))
        guard = top - (8 << 20) - 4096
        above = leaf(g, cr3, top)   # at 0xc0000000: the kernel's, never the user's
        t.check(top and leaf(g, cr3, guard) is None and not (above and above & USER),
                "[%s] the guard page %#x (8 MiB + 4K under the top %#x) is unmapped, the page at the top not the user's"
                % (tag, guard, top))
    finally:
        g.monitor("cont")
    g.command("kill %d" % pid)
    t.check(stack < 0xC0000000 and mm < 0xC0000000, "[%s] no kernel address came back" % tag)
    return stack, mm, top


def test_aslr_runs_differ(t):
    with Guest("aslr default") as g:
        g.wait_ready()
        runs = [probe(g, t, "run %d" % i) for i in range(3)]
        tops = {r[2] for r in runs}
        bases = {r[1] for r in runs}
        t.check(len(tops) > 1, "three runs: the stack top moved", str([hex(x) for x in tops]))
        t.check(len(bases) > 1, "three runs: the mmap base moved", str([hex(x) for x in bases]))
        t.check(all(0xC0000000 - (0x7ff << 12) <= r[2] <= 0xC0000000 and not r[2] & 0xfff
                    and r[2] - (128 << 10) <= r[0] < r[2] for r in runs),
                "each stack top is page-aligned within 8 MiB - 4K under 0xc0000000, the stack under it",
                str([hex(r[2]) for r in runs]))
        t.check(all(0x40000000 <= r[1] < 0x40000000 + (0x100 << 12) for r in runs),
                "each first mmap lies within 1 MiB - 4K above 0x40000000", str([hex(r[1]) for r in runs]))
        t.check(g.poweroff() == 1, "poweroff after the aslr runs")


def test_aslr_norandmaps_fixed(t):
    with Guest("aslr norandmaps", cmdline="norandmaps") as g:
        g.wait_ready()
        for i in range(2):
            stack, mm, top = probe(g, t, "norandmaps %d" % i)
            t.check(top == 0xC0000000 and 0xBFFE0000 <= stack < 0xC0000000 and mm == 0x40000000,
                    "norandmaps run %d: the fixed layout (stack under 0xc0000000, mmap at 0x40000000)" % i,
                    "top %#x stack %#x mmap %#x" % (top, stack, mm))
        t.check(g.poweroff() == 1, "poweroff after the norandmaps runs")


def lowest_module(g):
    """The lowest module address lsmod names (every autoloaded module's groups)."""
    addrs = [r[k][0] for r in test_modules.regions(g.command("lsmod")).values() for k in ("text", "ro", "roai", "rw")
             if r[k][1]]
    return min(addrs) if addrs else None


def test_aslr_module_area(t):
    """kaslr moves the first module 1 to 1024 pages into the module area;
    without it the first module sits at its start, 0xf8000000."""
    if not skip_under_boot_extra(t, "nokaslr (default): the first module at 0xf8000000",
                                 "the default boot's module base is what this checks"):
        with Guest("aslr modules plain") as g:
            g.wait_ready()
            low = lowest_module(g)
            t.check(low == 0xF8000000, "nokaslr (default): the first module at 0xf8000000", low and hex(low))
            t.check(g.poweroff() == 1, "poweroff after the plain module check")
    with Guest("aslr modules kaslr", cmdline="kaslr") as g:
        g.wait_ready()
        low = lowest_module(g)
        t.check(low is not None and 0xF8001000 <= low <= 0xF8000000 + (1024 << 12) and not low & 0xfff,
                "kaslr: the first module 1 to 1024 pages into 0xf8000000-0xfc000000", low and hex(low))
        out = g.command("wxcheck")
        t.check(test_modules.BIOS_HOLE in out or "passed, no W+X pages" in out, "kaslr: wxcheck passes with the moved modules", out[-300:])
        t.check(g.poweroff() == 1, "poweroff after the kaslr module check")
