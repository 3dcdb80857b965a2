# SPDX-License-Identifier: GPL-2.0-only
"""The shell's `walk VA` against QEMU's own view: for an address in every
region of the policy, each entry's raw value must be what QEMU reads at
that physical address (`xp`, walking from CR3 itself), the effective
permission must be the one `info tlb` gives, and the region must be named.
Bad input gets one line naming what is wrong."""
from guest import CPU_NO_NX, Guest
from test_modules import FREED, regions
from tlb import PageTables, pae_walk, registers
import walk

PAGE_OFFSET = 0xC0000000
FREED_INIT = "kernel init (freed: RW+NX, back in the page allocator)"
HOLE_X = "the BIOS hole 640K-1M (declared RW+X: the PCI BIOS is in use)"
HOLE_NX = "the BIOS hole 640K-1M (not declared: the PCI BIOS is not in use)"


def image_cases(s, hole):
    """(what, va, region) for the kernel image and the direct map."""
    return [
        ("text", s["mark_rodata_ro"], "kernel text"),
        ("first text page", s["_text"], "kernel text"),
        ("rodata", s["__start_rodata"], "kernel rodata"),
        ("ro_after_init", s["__start_ro_after_init"], "kernel ro_after_init"),
        ("data", s["_sdata"], "kernel data"),
        ("bss", s["__bss_stop"] - 1, "kernel bss"),
        ("freed init", s["__init_begin"], FREED_INIT),
        ("BIOS hole start", PAGE_OFFSET + 0xA0000, hole),
        ("BIOS hole end", PAGE_OFFSET + 0xFFFFF, hole),
        ("low 640K", PAGE_OFFSET + 0x1000, "low 640K (direct map)"),
        ("direct map after the image", s["_end"], "direct map"),
        # above 64 MiB (KASLR_MAX): a whole 2M page wherever kaslr puts the image
        ("direct map 2M page", PAGE_OFFSET + 0x4400000, "direct map"),
        ("user space", 0x10000000, "unmapped: user space (ronx maps nothing below 0xc0000000)"),
        ("a kernel stack's guard page", 0xFE000000, "kernel stack area: a guard page (never mapped)"),
        ("a kernel stack slot", 0xFE001000,
         "kernel stack area: a slot's stack pages (mapped while a task has the slot)"),
        ("past the stack area", 0xFE200000, "unmapped: nothing is mapped here"),
        ("module area hole", 0xFB000000, "module area (no module here)"),
    ]


def module_cases(lsmod):
    regs = regions(lsmod)
    cases = []
    for (name, kind), g in sorted(regs.items()):
        for group, label in (("text", "text"), ("ro", "rodata"), ("roai", "ro_after_init"),
                             ("rw", "data")):
            addr, size = g[group]
            if size:
                cases.append(("%s %s %s" % (name, kind, label), addr,
                              "module %s: %s %s" % (name, kind, label)))
    for m in FREED.finditer(lsmod):
        cases.append(("%s init freed" % m.group(1), int(m.group(2), 16),
                      "module %s: init (freed)" % m.group(1)))
    return cases


def check_walk(t, g, cr3, pt, what, va, region, tag):
    before = pae_walk(g.monitor, cr3, va)
    out = g.command("walk 0x%08x" % va)
    after = pae_walk(g.monitor, cr3, va)
    w = walk.parse(out)
    where = "[%s] walk %s 0x%08x" % (tag, what, va)
    t.check(w.cr3 == cr3, where + ": CR3 as QEMU has it",
            "walk says %s, QEMU 0x%x\n%s" % (w.cr3 and hex(w.cr3), cr3, out))
    # hardware may set A or D between two reads: walk must equal one of them
    same = [(l, i) for l, i, _ in w.entries] == [(l, i) for l, i, _ in before] and all(
        v in (b[2], a[2]) for (_, _, v), b, a in zip(w.entries, before, after))
    t.check(same, where + ": PDPTE/PDE/PTE raw values = QEMU's xp",
            "walk: %s\nxp:   %s\n%s" % (fmt(w.entries), fmt(before), out))
    m = pt.lookup(va)
    want = m.perm() if m else "not mapped"
    t.check(w.perm == want, where + ": effective %s = info tlb" % want,
            "walk says %s, info tlb %s\n%s" % (w.perm, want, out))
    t.check(w.region == region, where + ": region '%s'" % region,
            "walk says %r\n%s" % (w.region, out))
    return w


def fmt(entries):
    return " ".join("%s[%d]=%016x" % e for e in entries)


def boot_and_walk(t, tag, cases_for, **guest):
    with Guest("walk " + tag, **guest) as g:
        g.wait_ready()
        s = g.symbols()         # moved by the boot's Kernel Offset (kaslr)
        cr3 = registers(g.monitor("info registers"))["CR3"]
        pt = PageTables(g.monitor("info tlb"))
        walks = {what: check_walk(t, g, cr3, pt, what, va, region, tag)
                 for what, va, region in cases_for(s, g)}
        g.poweroff()
    return walks


def test_walk_every_region(t):
    def cases(s, g):
        return image_cases(s, HOLE_X) + module_cases(g.command("lsmod"))
    walks = boot_and_walk(t, "default", cases)
    t.check(len(walks["direct map 2M page"].entries) == 2 and
            walks["direct map 2M page"].entries[1][2] & 0x80,
            "[default] a 2M page's walk ends at a PDE with PS set",
            walks["direct map 2M page"].text)
    t.check("module hello: core text" in [w.region for w in walks.values()],
            "[default] the module cases include hello's text", sorted(walks))
    text = walks["text"].text
    t.check("  read-only: PTE.RW clear (PDE.RW set)" in text and
            "  executable: no NX at any level" in text and "PAE: the PDPTE has no RW" in text,
            "[default] text's reason names PTE.RW, no NX, and the PDPTE's missing bits", text)


def test_walk_without_pci_bios_or_nx(t):
    def hole_cases(hole):
        return lambda s, g: [c for c in image_cases(s, hole)
                             if c[0] in ("text", "data", "BIOS hole start", "rodata")]
    boot_and_walk(t, "pci=nobios", hole_cases(HOLE_NX), cmdline="pci=nobios")
    walks = boot_and_walk(t, "no-nx cpu", hole_cases(HOLE_X), cpu=CPU_NO_NX)
    t.check("EFER.NXE is off" in walks["data"].text,
            "[no-nx cpu] data's reason says EFER.NXE is off", walks["data"].text)


def test_walk_bad_input_and_names(t):
    with Guest("walk bad input") as g:
        g.wait_ready()
        sym = g.symbols()["mark_rodata_ro"]
        for line, want in (("walk", "walk: usage: walk VA"),
                           ("walk xyz", "walk: 'xyz' is neither a hex address"),
                           ("walk 0x1234567890", "walk: '0x1234567890' does not fit in 32 bits"),
                           ("walk 0xc0100000 0xc0101000", "walk: '0xc0101000' is not a pid"),
                           ("walk 0xc0100000 7", "walk: no process with pid 7"),
                           ("walk 0xc0100000 0", "walk: pid 0 is shell, a kernel task"),
                           ("walk 0xc0100000 1 2", "walk: usage: walk VA")):
            out = g.command(line).strip()
            t.check(out.startswith(want) and "\n" not in out,
                    "'%s' gets one line: %s" % (line, want), out)
        out = g.command("help")
        t.check("walk VA" in out, "help lists walk VA", out)
        by_name, by_addr = g.command("walk mark_rodata_ro"), g.command("walk 0x%x" % sym)
        t.check(by_name.replace("\n", " ").startswith("walk 0x%08x" % sym) and by_name == by_addr,
                "walk mark_rodata_ro walks its address (from kallsyms)", by_name)
        g.poweroff()
