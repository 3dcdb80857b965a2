# SPDX-License-Identifier: GPL-2.0-only
"""ronx on a second platform: build/ronx.iso in Bochs, with Bochs's own BIOS
(not SeaBIOS), its own BIOS32 directory and $PCI service, and a PAE model
that checks what QEMU lets pass (PDPT entries' reserved bits, checked and
cached at each CR3 load). One long Bochs session does everything; one QEMU
boot of the same ISO is the reference for the comparisons.

What may differ between the two platforms, and nothing else:
  - the BIOS32 directory and $PCI entry addresses (boot log and lspci);
  - the top of RAM in the BIOS's memory map, and the sizes that follow from
    it (the "Memory:" and "Direct map:" lines). In ptdump it is one
    address: where the direct map's last RW run ends and the unmapped run
    up to 0xc8000000 starts. Written as DIRECT_MAP_END on both sides (and
    the size column dropped, it follows from the addresses), the two dumps
    must be the same, line for line. The PCI BIOS hole itself does not
    move: it is 640K-1M whatever the BIOS.
"""
import difflib
import re

from bochs import BochsGuest
from guest import Guest
from ptdump import parse as parse_ptdump
from results import progress
from test_crash import crash_all
from test_modules import INSMOD_ALL, RMMOD_ALL, regions, reload_leaks_nothing, run_clean

POLICY_LINES = [
    "NX (Execute Disable) protection: active",
    "PCI : PCI BIOS area is rw and x. Use pci=nobios if you want it NX.",
    "ronx: policy: rodata=on noexec=on, PCI BIOS hole 640K-1M RW+X (PCI BIOS in use)",
    "Freeing unused kernel memory: ",
    "Write protecting the kernel text: ",
    "Write protecting the kernel read-only data: ",
    "NX-protecting the kernel data: ",
    "ronx: W+X check: 96 W+X pages, all in the declared PCI BIOS hole 0xc00a0000-0xc0100000",
]
BIOS32 = re.compile(r"BIOS32 Service Directory structure at 0x([0-9a-f]+), entry at 0x([0-9a-f]+)")
DIRECT_MAP = re.compile(r"^Direct map: 0xc0000000-0x([0-9a-f]{8})", re.M)
# what the BIOS decides, in the boot log: where its BIOS32 directory and
# $PCI entry are, and the top of RAM in its memory map
BIOS_NUMBERS = [
    (r"^(PCI: BIOS32 Service Directory structure at )0x[0-9a-f]+(, entry at )0x[0-9a-f]+",
     r"\1ADDR\2ADDR"),
    (r"^(PCI: PCI BIOS revision \d+\.\d+ entry at )0x[0-9a-f]+", r"\1ADDR"),
    (r"^Memory: \d+K/\d+K", "Memory: NK/NK"),
    (r"^Direct map: 0xc0000000-0x[0-9a-f]+ \(\d+M", "Direct map: 0xc0000000-END (NM"),
]
CR0_PG, CR0_CD, CR0_NW, CR0_WP = 1 << 31, 1 << 30, 1 << 29, 1 << 16
CR4_PAE, EFER_NXE = 1 << 5, 1 << 11
PDPTE_RESERVED = 0xFFF00000000001E6     # bits 1-2, 5-8, 52-63 (Intel SDM 4.4.1)
MODULES = ("hello", "provider", "user")
MODULE_AREA = (0xF8000000, 0xFC000000)


def test_bochs(t):
    with Guest("bochs qemu twin", iso=True) as q:
        qlog = q.wait_ready()
        qemu_ptdump = q.command("ptdump")
        q.poweroff()
    with BochsGuest("bochs") as g:
        log = g.wait_ready()
        progress("  bochs: the prompt after %.1fs" % g.ready_seconds)
        check_boot_log(t, log, qlog)
        check_registers(t, g)
        check_selftest(t, g)
        check_ptdump(t, g, log, qemu_ptdump, qlog)
        check_lspci(t, g, log)
        check_modules(t, g)
        crash_all(t, g)
        tab = info_tab(g)
        t.check(not any(s <= 0xFC001000 < e for s, e in tab),
                "Bochs: EXEC_VMALLOC's page 0xfc001000 is unmapped after its oops")
        g.poweroff()
        t.check("Shutdown port: shutdown requested" in g.bochs_out,
                "poweroff ends Bochs through its shutdown port 0x8900", g.bochs_out[-600:])
        check_bochs_log(t, g)


def test_bochs_without_nx(t):
    """A PAE CPU without NX (Pentium III): bit 63 of an entry is reserved
    there, and Bochs faults on a reserved bit."""
    with BochsGuest("bochs no-nx", cpu="p3_katmai") as g:
        log = g.wait_ready()
        t.check("NX (Execute Disable) protection: not present" in log,
                "[no-nx] the kernel reports NX not present", log[-800:])
        check_selftest(t, g, "[no-nx] ")
        out = g.command("crash EXEC_DATA")
        t.check("FAIL: survived bad execution" in out and "Oops" not in out,
                "[no-nx] EXEC_DATA runs and reports FAIL", out)
        g.poweroff()
        check_bochs_log(t, g, "[no-nx] ")


def test_bochs_smp(t):
    """Two CPUs in Bochs (Debian's Bochs is built with SMP; its BIOS lists
    both in the MADT): both up, each read from Bochs's debugger (`set $cpu`,
    then creg and sreg: the same control registers, its own GDT, TSS and
    per-CPU %fs), every self-test, and the SMP crash demos faulting on the
    other CPU. Bochs keeps global TLB entries across a CR3 write, as real
    CPUs do (QEMU drops them), so a shootdown that only reloads CR3 would
    show here."""
    with BochsGuest("bochs smp", smp=2) as g:
        log = g.wait_ready()
        t.check(re.search(r"^smpboot: CPU 1 APIC 0x1 \.\.\. ok: .*\(as the boot CPU\)$", log, re.M)
                and "smp: Brought up 1 node, 2 CPUs" in log,
                "[smp] Bochs: CPU 1 up, with the boot CPU's registers", log[-1000:])
        outs = g.monitor("set $cpu = 0", "creg", "sreg", "set $cpu = 1", "creg", "sreg", "set $cpu = 0")
        regs = [registers(outs[1]), registers(outs[4])]
        bases = [dict(re.findall(r"^(gdtr):base=0x([0-9a-f]+)", o, re.M) +
                      re.findall(r"^(fs):.*\n\s+Data segment, base=0x([0-9a-f]+)", o, re.M))
                 for o in (outs[2], outs[5])]
        t.check(regs[0] and regs[0] == regs[1] and regs[0].get("CR0", 0) & CR0_PG,
                "[smp] Bochs: both CPUs have the same CR0, CR3, CR4 and EFER, paging on",
                "%s / %s" % (regs[0], regs[1]))
        t.check(all(b.get("gdtr") and b.get("fs") for b in bases) and
                bases[0]["gdtr"] != bases[1]["gdtr"] and bases[0]["fs"] != bases[1]["fs"],
                "[smp] Bochs: each CPU has its own GDT and per-CPU %fs segment", "%s" % bases)
        check_selftest(t, g, "[smp] ")
        for demo, want in (("SMP_STALE_WRITE", "the write faulted on CPU"),
                           ("SMP_STALE_EXEC", "the call faulted on CPU")):
            out = g.command("crash " + demo)
            t.check(want in out and "FAIL" not in out,
                    "[smp] Bochs: %s faults on the other CPU" % demo, out[-600:])
        g.poweroff()
        check_bochs_log(t, g, "[smp] ")


def check_bochs_log(t, g, tag=""):
    """Bochs logs at "error" level what its CPU refuses (a failed PDPTR check
    at a CR3 load, a reserved bit in a control register...)."""
    errors = [l for l in open(g.bochs_log) if re.match(r"^\d+e\[", l)]
    t.check(not errors, tag + "Bochs logged no error in the whole session",
            "".join(errors[:10]))


# -- boot -------------------------------------------------------------------
def mask_bios(log):
    """The boot log with the BIOS_NUMBERS written as names."""
    for pattern, name in BIOS_NUMBERS:
        log = re.sub(pattern, name, log, flags=re.M)
    return log.splitlines()


def check_boot_log(t, log, qlog):
    for line in POLICY_LINES:
        t.check(line in log, "boot prints '%s'" % line.strip(), log[-1200:])
    m = BIOS32.search(log)
    t.check(m and all(0xE0000 <= int(a, 16) < 0x100000 for a in m.groups()),
            "ronx finds Bochs's BIOS32 directory and entry in 0xe0000-0xfffff", log[-1200:])
    diff = list(difflib.unified_diff(mask_bios(qlog), mask_bios(log), "qemu", "bochs",
                                     lineterm="", n=0))
    t.check(not diff, "the boot log is QEMU's but for the BIOS's addresses and memory sizes",
            "\n".join(diff[:30]))


def registers(text):
    return {k: int(v, 16) for k, v in re.findall(r"\b(CR0|CR3|CR4|EFER)=0x([0-9a-f]+)", text)}


def check_registers(t, g):
    regs = registers(g.monitor("creg"))
    cr0 = regs.get("CR0", 0)
    t.check(cr0 & CR0_PG and cr0 & CR0_WP, "Bochs: CR0.PG and CR0.WP set", "CR0=%#x" % cr0)
    t.check(not cr0 & (CR0_CD | CR0_NW), "Bochs: CR0.CD and CR0.NW clear (caches on)",
            "CR0=%#x: Bochs's BIOS hands over with the caches off" % cr0)
    t.check(regs.get("CR4", 0) & CR4_PAE, "Bochs: CR4.PAE set", "CR4=%#x" % regs.get("CR4", 0))
    t.check(regs.get("EFER", 0) & EFER_NXE, "Bochs: EFER.NXE set",
            "EFER=%#x" % regs.get("EFER", 0))
    # the PDPT, read from physical memory: Bochs loads these four at each
    # CR3 write and raises #GP on a reserved bit (QEMU does not look)
    dump = g.monitor("xp /8wx %#x" % (regs.get("CR3", 0) & ~31))
    words = [int(w, 16) for line in re.findall(r">:(.*)$", dump, re.M)
             for w in re.findall(r"0x([0-9a-f]+)", line)]
    pdpt = [words[i] | words[i + 1] << 32 for i in range(0, len(words) - 1, 2)]
    t.check(len(pdpt) == 4 and all(e & 1 and not e & PDPTE_RESERVED for e in pdpt),
            "Bochs: the 4 PDPT entries are present with no reserved bit set",
            " ".join("%016x" % e for e in pdpt))


def check_selftest(t, g, tag=""):
    leaves = t.ktap(g.command("selftest", timeout=300), tag + "bochs selftest")
    bare = ["%s.%s" % (s, n) for s, n, status, why in leaves if status == "skip" and not why]
    t.check(leaves and not bare, tag + "every skipped self-test on Bochs says why",
            ", ".join(bare))
    t.check(re.search(r"Oopses:\s+0\b", g.command("meminfo")),
            tag + "the self-tests caused no oops")


# -- page tables, from inside and from Bochs's debugger ---------------------
def info_tab(g):
    """Bochs's `info tab`: the mapped linear ranges, [start, end)."""
    return [(int(a, 16), int(b, 16) + 1) for a, b in
            re.findall(r"^0x([0-9a-f]+)-0x([0-9a-f]+) ->", g.monitor("info tab"), re.M)]


def merged(ranges):
    out = []
    for s, e in sorted(ranges):
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def page_walk(text):
    """Bochs's `page VA` as (rw, nx, pse), or None if VA is not mapped."""
    if "physical address not available" in text:
        return None
    entries = [int(v, 16) for v in re.findall(r"^\s*(?:PDE|PTE): 0x([0-9a-f]+)", text, re.M)]
    return (all(e & 2 for e in entries), any(e >> 63 for e in entries),
            bool(entries[0] & 0x80))


def for_dump(ptdump, end):
    """ptdump's lines with the direct map's end written as a name, sizes dropped."""
    lines = []
    for line in ptdump.splitlines():
        line = line.replace("0x%08x" % end, "DIRECT_MAP_END")
        lines.append(re.sub(r"^(\S+)\s+\d+[KMG]\s", r"\1 ", line.strip()))
    return lines


def check_ptdump(t, g, log, qemu_ptdump, qlog):
    out = g.command("wxcheck")
    t.check("96 W+X pages, all in the declared PCI BIOS hole" in out,
            "wxcheck: the only W+X pages are the 96 of the PCI BIOS hole", out)
    ptdump = g.command("ptdump")
    ends = [DIRECT_MAP.search(x) for x in (qlog, log)]
    if not all(ends):
        t.fail("both boots print the direct map's end", log[-800:])
        return
    qemu, bochs = (for_dump(d, int(m.group(1), 16)) for d, m in zip((qemu_ptdump, ptdump), ends))
    diff = list(difflib.unified_diff(qemu, bochs, "qemu", "bochs", lineterm="", n=0))
    t.check(not diff, "ptdump on Bochs is QEMU's but for the top of RAM (%s vs %s)"
            % tuple("0x" + m.group(1) for m in ends), "\n".join(diff[:30]))

    runs = parse_ptdump(ptdump)
    mapped = merged((r.start, r.end) for r in runs if r.present)
    tab = merged(info_tab(g))
    t.check(mapped == tab, "Bochs's `info tab` maps exactly the ranges ptdump shows present",
            "ptdump %s\ninfo tab %s" % ([(hex(s), hex(e)) for s, e in mapped],
                                        [(hex(s), hex(e)) for s, e in tab]))
    # each present run's first and last page, walked by Bochs
    probes = [(r, va) for r in runs if r.present for va in (r.start, r.end - 4096)]
    walks = g.monitor(*["page %#x" % va for _, va in probes])
    wrong = ["%08x: ptdump %s, Bochs %s" % (va, (r.rw, r.nx, r.pse), page_walk(w))
             for (r, va), w in zip(probes, walks) if page_walk(w) != (r.rw, r.nx, r.pse)]
    t.check(not wrong, "Bochs's page walk agrees with ptdump (RW, NX, PSE) at both ends of "
            "all %d present runs" % (len(probes) // 2), "\n".join(wrong[:8]))


# -- PCI BIOS -----------------------------------------------------------------
def check_lspci(t, g, log):
    out = g.command("lspci")
    m = BIOS32.search(log)
    t.check(m and "read through the PCI BIOS" in out and
            ("via BIOS32 at 0x%s" % m.group(2)) in out,
            "lspci reads through Bochs's PCI BIOS, at the BIOS32 entry found at boot", out)
    for dev, what in (("00:00.0 8086:1237", "i440FX host bridge"),
                      ("00:01.0 8086:7000", "PIIX3 ISA bridge"),
                      ("00:01.2 8086:7020", "PIIX3 USB controller"),
                      ("00:01.3 8086:7113", "PIIX4 power management (Bochs's ACPI)")):
        t.check(re.search("^%s " % dev, out, re.M), "lspci lists the %s %s" % (what, dev), out)
    t.check(not re.search(r"\(rev [0-9a-f]{2}\)\s*$", out, re.M),
            "lspci names every device's class", out)


# -- modules ----------------------------------------------------------------
def check_modules(t, g):
    regs = regions(g.command("lsmod"))
    probes = []
    for name in MODULES:
        if not t.check((name, "core") in regs, "lsmod shows %s's core groups" % name):
            continue
        for group, want in (("text", (False, False)), ("ro", (False, True)),
                            ("rw", (True, True))):
            start, size = regs[(name, "core")][group]
            if size:
                probes += [(name, group, want, va) for va in (start, start + size - 1)]
    walks = g.monitor(*["page %#x" % (va & ~0xFFF) for *_, va in probes])
    wrong = ["%s %s %08x: %s" % (n, grp, va, page_walk(w))
             for (n, grp, want, va), w in zip(probes, walks)
             if not page_walk(w) or page_walk(w)[:2] != want]
    t.check(probes and not wrong, "Bochs walks each module group as RO+X text, RO+NX "
            "rodata, RW+NX data", "\n".join(wrong))
    run_clean(t, g, RMMOD_ALL)
    left = [(s, e) for s, e in info_tab(g) if s < MODULE_AREA[1] and e > MODULE_AREA[0]]
    t.check(not left, "Bochs: nothing mapped in the module area after rmmod",
            ", ".join("%08x-%08x" % r for r in left))
    reload_leaks_nothing(t, g)
    # back to the boot state for what follows (the crash demos use hello)
    run_clean(t, g, INSMOD_ALL)
