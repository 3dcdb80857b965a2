# SPDX-License-Identifier: GPL-2.0-only
"""Proof from outside: the kernel image policy checked page by page in the
guest's real page tables (QEMU `info tlb`), against section addresses read
from build/kernel.elf with nm, in every scenario; and the kernel's own
ptdump and W^X audit checked against the same tables."""
import os

from guest import BUILD, CPU_NO_NX, Guest
import ptdump
from tlb import PageTables, kernel_symbols

PAGE_OFFSET = 0xC0000000
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000

# name, QEMU options, command line, the policy the scenario must show
# (hole: SeaBIOS in QEMU has a BIOS32 directory, so 640K-1M must be RW+X
# unless pci=nobios keeps it NX)
SCENARIOS = [
    ("default", {}, "", dict(nx=True, rodata=True, hole=True)),
    ("pci=nobios", {}, "pci=nobios", dict(nx=True, rodata=True, hole=False)),
    ("rodata=off", {}, "rodata=off", dict(nx=True, rodata=False, hole=True)),
    ("noexec=off", {}, "noexec=off", dict(nx=False, rodata=True, hole=True)),
    ("no-nx cpu", {"cpu": CPU_NO_NX}, "", dict(nx=False, rodata=True, hole=True)),
    ("iso", {"iso": True}, "", dict(nx=True, rodata=True, hole=True)),
]


def expect(t, pt, start, end, what, bad, scenario):
    found = pt.pages_where(start, end, bad)
    t.check(not found, "[%s] %s (%08x-%08x)" % (scenario, what, start, end),
            "%d pages wrong, first: %s" % (len(found), ", ".join(found[:4])))


def check_image(t, pt, s, pol, name, log):
    text, etext = s["_text"], s["_etext"]
    nx, ro = pol["nx"], pol["rodata"]
    mapped = lambda m: m is not None  # noqa: E731
    expect(t, pt, text, s["_end"], "whole image mapped", lambda m: not mapped(m), name)
    expect(t, pt, text, etext, "text executable", lambda m: m.nx, name)
    if ro:
        expect(t, pt, text, etext, "text read-only", lambda m: m.rw, name)
        expect(t, pt, s["__start_rodata"], s["__end_rodata"], "rodata read-only",
               lambda m: m.rw, name)
        expect(t, pt, s["__start_ro_after_init"], s["__end_ro_after_init"],
               "ro_after_init read-only", lambda m: m.rw, name)
    else:
        expect(t, pt, text, etext, "rodata=off: text left writable", lambda m: not m.rw, name)
    if nx and ro:
        expect(t, pt, etext, s["_end"], "_etext.._end NX", lambda m: m.exec, name)
    elif nx:
        expect(t, pt, s["__bss_start"], s["_end"], "rodata=off: bss still NX (PAGE_KERNEL)",
               lambda m: m.exec, name)
    else:
        expect(t, pt, PAGE_OFFSET, PAGE_OFFSET + (64 << 20), "no NX bit anywhere without NX",
               lambda m: m.nx, name)
    expect(t, pt, s["_sdata"], s["_edata"], "data writable", lambda m: not m.rw, name)
    expect(t, pt, s["__bss_start"], s["_end"], "bss writable", lambda m: not m.rw, name)
    if nx:
        expect(t, pt, s["__init_begin"], s["__init_end"], "freed init NX (or unmapped)",
               lambda m: m is not None and m.exec, name)
        expect(t, pt, PAGE_OFFSET, BIOS_BEGIN, "low 640K RW+NX",
               lambda m: not m.rw or m.exec, name)
        hole_open = pol["hole"]
        t.check(("PCI BIOS area is rw and x" in log) == hole_open,
                "[%s] the kernel %s the PCI BIOS hole" % (name, "announces" if hole_open
                                                          else "does not announce"))
        expect(t, pt, BIOS_BEGIN, BIOS_END, "640K-1M RW+%s" % ("X" if hole_open else "NX"),
               lambda m: not m.rw or m.exec != hole_open, name)


def check_ptdump_and_wx(t, g, pt, name, nx):
    runs = ptdump.parse(g.command("ptdump"))
    t.check(runs and runs[0].start == 0 and runs[-1].end == 1 << 32,
            "[%s] ptdump covers 4G" % name)
    bad = ptdump.disagreements(runs, pt)
    t.check(not bad, "[%s] ptdump agrees with info tlb, page by page" % name, "; ".join(bad))
    out = g.command("wxcheck")
    wx_pages = pt.wx_pages() if nx else 0
    hole = pt.wx_pages(BIOS_BEGIN, BIOS_END) if nx else 0
    if not nx:
        t.check("skipped, NX is not in use" in out, "[%s] wxcheck says it cannot judge without NX"
                % name, out)
    elif wx_pages == 0:
        t.check("passed, no W+X pages found" in out, "[%s] wxcheck passes; info tlb agrees"
                % name, out)
    else:
        outside = wx_pages - hole
        ok = (("FAILED, %d W+X pages found" % outside) in out) if outside else \
             (("%d W+X pages, all in the declared PCI BIOS hole" % hole) in out)
        t.check(ok, "[%s] wxcheck reports the %d W+X pages info tlb shows (%d in the hole)"
                % (name, wx_pages, hole), out)
    return wx_pages, hole


def test_linker_layout(t):
    """Seed 001 steps 1 and 2, checked on the ELF file itself."""
    import subprocess
    elf = os.path.join(BUILD, "kernel.elf")
    s = kernel_symbols(elf)
    for sym in ("_text", "_etext", "__start_rodata", "__end_rodata", "__start_ro_after_init",
                "__end_ro_after_init", "_sdata", "_edata", "__init_begin", "__init_end",
                "__bss_stop", "_end"):
        t.check(s[sym] % 4096 == 0, "%s is page-aligned" % sym, hex(s[sym]))
    phdrs = subprocess.run(["readelf", "-lW", elf], capture_output=True, text=True).stdout
    loads = [l.split() for l in phdrs.splitlines() if l.strip().startswith("LOAD")]
    t.check(loads and not any("RWE" in " ".join(l) for l in loads),
            "readelf -lW shows no RWE segment", phdrs)
    t.check(any(l[-2:] == ["E", "0x1000"] and l[-3] == "R" for l in loads),
            "text segment is R E", phdrs)


def test_image_policy(t):
    for name, opts, cmdline, pol in SCENARIOS:
        with Guest("image " + name, cmdline=cmdline, **opts) as g:
            log = g.wait_ready()
            syms = g.symbols()      # moved by the boot's Kernel Offset (kaslr)
            pt = PageTables(g.monitor("info tlb"))
            check_image(t, pt, syms, pol, name, log)
            check_ptdump_and_wx(t, g, pt, name, pol["nx"])
            g.poweroff()
