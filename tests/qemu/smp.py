# SPDX-License-Identifier: GPL-2.0-only
"""Reading several CPUs from outside: QEMU's `info registers -a`, one block
per CPU, gives each CPU's control registers and the bases of its GDT, IDT,
TSS (TR) and %fs, which ronx sets up per CPU (struct cpu). Used by the
machine matrix and tests/qemu/test_smp.py."""
import re

from tlb import PageTables, registers

CR0_PG = 1 << 31
CR0_WP = 1 << 16
CR4_PAE = 1 << 5
EFER_NXE = 1 << 11
PAGE_OFFSET = 0xC0000000


def cpu_states(g):
    """[{cpu, CR0, CR3, CR4, EFER, GDT, IDT, TR, FS, HLT}] from QEMU, CPU#0 first."""
    states = []
    for block in g.monitor("info registers -a").split("CPU#")[1:]:
        s = registers(block)
        s["cpu"] = int(block.split()[0])
        for seg in ("GDT", "IDT"):
            m = re.search(r"^%s=\s*([0-9a-f]+)" % seg, block, re.M)
            s[seg] = int(m.group(1), 16) if m else None
        for seg in ("TR", "FS"):
            m = re.search(r"^%s\s*=[0-9a-f]+ ([0-9a-f]+)" % seg, block, re.M)
            s[seg] = int(m.group(1), 16) if m else None
        m = re.search(r"HLT=(\d)", block)
        s["HLT"] = m and m.group(1) == "1"
        states.append(s)
    return states


def check_cpus_up(t, name, states, online, kernel_cr3):
    """Every CPU in online runs ronx as the boot CPU does: paging, WP, PAE
    and NXE on, the kernel's page tables, the same CR0/CR4/EFER; each has
    its own GDT, TSS and per-CPU segment, and all share one IDT."""
    boot = states[0]
    for s in states:
        if s["cpu"] not in online:
            continue
        n = "[%s] CPU#%d" % (name, s["cpu"])
        t.check(s.get("CR0", 0) & (CR0_PG | CR0_WP) == CR0_PG | CR0_WP and
                s.get("CR4", 0) & CR4_PAE,
                "%s: paging, WP and PAE on (from QEMU)" % n,
                "CR0=%#x CR4=%#x" % (s.get("CR0", 0), s.get("CR4", 0)))
        same = [r for r in ("CR0", "CR4", "EFER") if s.get(r) != boot.get(r)]
        t.check(not same, "%s: CR0, CR4, EFER as CPU#0's" % n,
                ", ".join("%s=%#x (CPU#0 %#x)" % (r, s.get(r, -1), boot.get(r, -1)) for r in same))
        t.check(s.get("CR3") == kernel_cr3, "%s: CR3 is the kernel's page tables (%#x)"
                % (n, kernel_cr3), "CR3=%#x" % s.get("CR3", -1))
        t.check(s["IDT"] == boot["IDT"], "%s: the one IDT" % n, "IDT at %#x" % (s["IDT"] or 0))
    ups = [s for s in states if s["cpu"] in online]
    for seg in ("GDT", "TR", "FS"):
        bases = [s[seg] for s in ups]
        t.check(None not in bases and len(set(bases)) == len(bases) and
                all(b >= PAGE_OFFSET for b in bases),
                "[%s] each CPU has its own %s, in the kernel (from QEMU)" % (name, seg),
                " ".join("CPU#%d:%s" % (s["cpu"], "%#x" % s[seg] if s[seg] else "?") for s in ups))


def check_cpus_parked(t, name, states, parked):
    """CPUs ronx did not start are as the BIOS left them: paging off."""
    for s in states:
        if s["cpu"] in parked:
            t.check(not s.get("CR0", 0) & CR0_PG,
                    "[%s] CPU#%d was not started: paging off (from QEMU)" % (name, s["cpu"]),
                    "CR0=%#x" % s.get("CR0", 0))


def trampoline_page(log):
    m = re.search(r"^smpboot: trampoline at 0x([0-9a-f]+) unmapped", log, re.M)
    return int(m.group(1), 16) if m else None


def check_trampoline_gone(t, name, g, log):
    """After boot nothing is mapped below PAGE_OFFSET (the trampoline's
    identity mapping is gone), and its page is RW+NX in the direct map."""
    tramp = trampoline_page(log)
    t.check(tramp is not None and tramp < 0xA0000 and tramp % 4096 == 0,
            "[%s] the trampoline sat on a page below 640K" % name, "boot log: %r" % tramp)
    pt = PageTables(g.monitor("info tlb"))
    low = [m for m in pt.maps if m.va < PAGE_OFFSET]
    t.check(not low, "[%s] nothing mapped below 0xc0000000 after boot (info tlb)" % name,
            " ".join("%#x" % m.va for m in low[:4]))
    if tramp is not None:
        m = pt.lookup(PAGE_OFFSET + tramp)
        t.check(m is not None and m.perm() == "RW+NX",
                "[%s] the trampoline's page is RW+NX in the direct map" % name,
                m.perm() if m else "not mapped")
    return tramp
