# SPDX-License-Identifier: GPL-2.0-only
"""The module loader from outside: each group of each loaded module read in
QEMU's `info tlb` at the addresses lsmod gives, the init region gone, pages
given back, every broken object refused with its own error and nothing
left behind, wxcheck after every step, and both ways of patching text."""
import os
import re

from guest import BUILD, Guest
from tlb import PageTables

BIOS_HOLE = "all in the declared PCI BIOS hole"
REGION = re.compile(r"^(\w+) (core|init) text 0x([0-9a-f]+) (\d+) ro 0x([0-9a-f]+) (\d+) "
                    r"ro_after_init 0x([0-9a-f]+) (\d+) rw 0x([0-9a-f]+) (\d+)$", re.M)
FREED = re.compile(r"^(\w+) init freed 0x([0-9a-f]+) (\d+)$", re.M)


def regions(lsmod):
    out = {}
    for m in REGION.finditer(lsmod):
        v = [int(x, 16) if i % 2 == 0 else int(x) for i, x in enumerate(m.groups()[2:])]
        out[(m.group(1), m.group(2))] = dict(text=(v[0], v[1]), ro=(v[2], v[3]),
                                             roai=(v[4], v[5]), rw=(v[6], v[7]))
    return out


def free_pages(g):
    return int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))


def wx_clean(t, g, after):
    out = g.command("wxcheck")
    t.check(BIOS_HOLE in out or "passed, no W+X pages" in out, "wxcheck clean after %s" % after,
            out)


RMMOD_ALL = ("rmmod user", "rmmod provider", "rmmod hello")
INSMOD_ALL = ("insmod hello", "insmod provider", "insmod user")


def run_clean(t, g, cmds):
    """Each command must print no error of its own; wxcheck clean after each."""
    for cmd in cmds:
        out = g.command(cmd)
        t.check(cmd.split()[0] + ":" not in out, cmd, out)
        wx_clean(t, g, cmd)


def reload_leaks_nothing(t, g):
    """With the three unloaded: load and unload them again, no page lost."""
    after = free_pages(g)
    run_clean(t, g, INSMOD_ALL)
    for cmd in RMMOD_ALL:
        g.command(cmd)
    t.check(free_pages(g) == after, "a second load and unload of all three leaks nothing",
            "free pages %d -> %d" % (after, free_pages(g)))


def check_groups(t, pt, name, groups, scenario):
    for group, want in (("text", "RO+X"), ("ro", "RO+NX"), ("roai", "RO+NX"), ("rw", "RW+NX")):
        start, size = groups[group]
        bad = pt.pages_where(start, start + size, lambda m: not m or m.perm() != want)
        t.check(not bad, "[%s] %s %s group %08x+%d is %s in info tlb"
                % (scenario, name, group, start, size, want), ", ".join(bad[:4]))


def test_module_protections(t):
    with Guest("modules default") as g:
        log = g.wait_ready()
        t.check(all(s in log for s in ("hello: bonjour, world", "user: provider_add(2, 3) = 5")),
                "the autoload list loads hello, provider and user at boot", log[-600:])
        lsmod = g.command("lsmod")
        regs = regions(lsmod)
        pt = PageTables(g.monitor("info tlb"))
        for name in ("hello", "provider", "user"):
            t.check((name, "core") in regs, "lsmod shows %s's core groups" % name, lsmod)
            if (name, "core") in regs:
                check_groups(t, pt, name, regs[(name, "core")], "default")
        for m in FREED.finditer(lsmod):
            start, size = int(m.group(2), 16), int(m.group(3))
            owned = [r for r in regs.values()
                     if any(r[g][0] <= start < r[g][0] + r[g][1] for g in r)]
            mapped = [va for va, mp in pt.pages(start, start + size) if mp]
            t.check(not mapped or owned, "%s's init region %08x+%d is unmapped after init"
                    % (m.group(1), start, size), "still mapped: %s" % mapped[:4])
        t.check("in use by: user" in g.command("rmmod provider"),
                "rmmod of a used module is refused with the user's name")
        run_clean(t, g, RMMOD_ALL)
        pt = PageTables(g.monitor("info tlb"))
        left = [m for m in pt.maps if 0xF8000000 <= m.va < 0xFC000000]
        t.check(not left, "no page left mapped in the module area after rmmod",
                ", ".join("%08x" % m.va for m in left[:4]))
        reload_leaks_nothing(t, g)
        t.check("module_memfree:" not in g.out, "no module memory was freed without its reset",
                "\n".join(l for l in g.out.splitlines() if "module_memfree:" in l))


def test_broken_modules(t):
    expected = [l.split("\t", 1) for l in
                open(os.path.join(BUILD, "modules", "broken", "EXPECTED")).read().splitlines()]
    with Guest("modules broken") as g:
        g.wait_ready()
        pt0 = PageTables(g.monitor("info tlb"))
        before = free_pages(g)
        for name, error in expected:
            out = g.command("insmod broken/%s" % name)
            line = [l for l in out.splitlines() if l.startswith("insmod:")]
            t.check(len(line) == 1 and error in line[0],
                    "broken/%s is refused: %s" % (name, error), out)
            t.check(free_pages(g) == before, "broken/%s leaks no page" % name,
                    "free pages %d -> %d" % (before, free_pages(g)))
        pt1 = PageTables(g.monitor("info tlb"))
        area = lambda pt: [(m.va, m.perm()) for m in pt.maps  # noqa: E731
                           if 0xF8000000 <= m.va < 0xFE000000]
        t.check(area(pt0) == area(pt1), "refused loads leave the module area as it was")
        wx_clean(t, g, "every refused load")
        out = g.command("insmod failinit")
        t.check("init_module returned -22; the load is undone" in out,
                "a module whose init fails is unwound", out)
        t.check(free_pages(g) == before and "failinit" not in g.command("lsmod"),
                "the failed init leaves no page and no module")


def test_text_patching(t):
    with Guest("modules patch") as g:
        g.wait_ready()
        g.command("insmod patchme")
        for way, wx in (("seed", lambda n: n > 0), ("alias", lambda n: n == 0)):
            out = g.command("patch " + way)
            m = re.search(r"W\+X pages while writing: (\d+) \(patch\), (\d+) \(restore\)", out)
            t.check(m and wx(int(m.group(1))) and wx(int(m.group(2))),
                    "patch %s: W+X pages while writing %s" % (
                        way, "> 0 (the seed's window)" if way == "seed" else "= 0"), out)
            t.check("probe hits +3, patchme_counter +0" in out and
                    "probe hits +0, patchme_counter +1" in out,
                    "patch %s: the probe runs while patched, the original after" % way, out)
            wx_clean(t, g, "patch " + way)
        regs = regions(g.command("lsmod"))
        check_groups(t, PageTables(g.monitor("info tlb")), "patchme", regs[("patchme", "core")],
                     "after patching")
        g.command("patch open")
        text = regs[("patchme", "core")]["text"]
        bad = PageTables(g.monitor("info tlb")).pages_where(
            text[0], text[0] + text[1], lambda m: not m or m.perm() != "RW+X")
        t.check(not bad, "patch open: patchme's text is RW+X (seed 003's window)", ", ".join(bad[:4]))
        t.check("FAILED" in g.command("wxcheck"), "patch open: wxcheck reports the window")
        g.command("patch close")
        wx_clean(t, g, "patch close")


def test_module_ronx_off_and_noalign(t):
    with Guest("modules ronx off", cmdline="module_ronx=off") as g:
        g.wait_ready()
        regs = regions(g.command("lsmod"))
        pt = PageTables(g.monitor("info tlb"))
        start, size = regs[("hello", "core")]["rw"]
        t.check(all(m and m.rw and m.exec for _, m in pt.pages(start, start + size)),
                "module_ronx=off: module data is RW+X, as before seed 003")
        t.check("FAILED" in g.command("wxcheck"), "module_ronx=off: wxcheck reports the W+X pages")
    with Guest("modules noalign", cmdline="module_ronx=noalign") as g:
        g.wait_ready()
        regs = regions(g.command("lsmod"))
        pt = PageTables(g.monitor("info tlb"))
        core = regs[("hello", "core")]
        base = core["text"][0]
        text_end = base + core["text"][1]
        ro_end = core["ro"][0] + core["ro"][1]
        end = core["rw"][0] + core["rw"][1]
        # seed 003's arithmetic, page by page: RO on [PFN_DOWN(base),
        # PFN_DOWN(ro_end)) -- never a last partial page -- and NX on
        # [PFN_UP(text_end), PFN_UP(end)) -- never a first partial page
        page = 4096
        up = lambda a: (a + page - 1) // page * page  # noqa: E731
        wrong = []
        for va, m in pt.pages(base, up(end)):
            want_ro = va < ro_end // page * page
            want_nx = up(text_end) <= va < up(end)
            if not m or m.rw == want_ro or m.nx != want_nx:
                wrong.append("%08x %s (want %s+%s)" % (va, m.perm() if m else "unmapped",
                             "RO" if want_ro else "RW", "NX" if want_nx else "X"))
        t.check(not wrong, "noalign: hello's %d pages follow seed 003's partial-page rules"
                % ((up(end) - base) // page), "; ".join(wrong[:4]))
        out = g.command("wxcheck")
        mixed = up(text_end) > ro_end // page * page and text_end % page
        t.check(("FAILED" in out) == bool(mixed),
                "noalign: wxcheck %s the page shared by text and data" %
                ("reports" if mixed else "has nothing to report about"), out)
