# SPDX-License-Identifier: GPL-2.0-only
"""The low 1 MiB and the PCI BIOS (issue 3, point 4), one boot per pci=
policy: the boot messages, lspci, the in-kernel pcbios self-tests, and the
page tables read from outside through QEMU's `info tlb`."""
import re

from guest import CPU_NO_NX, Guest
from tlb import PageTables

LOW_START, HOLE_START, HOLE_END = 0xC0000000, 0xC00A0000, 0xC0100000
AREA_MSG = "PCI : PCI BIOS area is rw and x. Use pci=nobios if you want it NX."
NX_OOPS = "kernel tried to execute NX-protected page - exploit attempt?"
# QEMU's i440FX machine: host bridge and PIIX3 ISA bridge on bus 0
HOST_BRIDGE = re.compile(r"^00:00\.0 8086:1237 class 0600", re.M)
ISA_BRIDGE = re.compile(r"^00:01\.0 8086:7000 class 0601", re.M)


def check_range(t, pt, start, end, rw, nx, what):
    bad = pt.pages_where(start, end, lambda m: m is None or m.rw != rw or m.nx != nx)
    t.check(not bad, "info tlb: %s %#x-%#x is %s+%s" % (what, start, end,
                                                         "RW" if rw else "RO",
                                                         "NX" if nx else "X"),
            "%d pages differ, first: %s" % (len(bad), ", ".join(bad[:4])))


def guest(name, cmdline, cpu=None):
    kwargs = {"cpu": cpu} if cpu else {}
    return Guest("pcbios " + name, cmdline=cmdline, **kwargs)


def ready(t, g, name):
    """The boot log up to the prompt; the kernel must get there in every policy."""
    g.wait_ready()
    t.check("ronx: ready" in g.out, "[%s] boot reaches 'ronx: ready'" % name)
    return g.out


def selftest(t, g, name):
    t.ktap(g.command("selftest pcbios", timeout=120), "selftest[pcbios %s]" % name)


def check_lspci_lists_qemu(t, out, name):
    t.check("read through the PCI BIOS" in out and "via BIOS32 at 0x" in out,
            "[%s] lspci says the devices were read through the PCI BIOS" % name, out)
    t.check(HOST_BRIDGE.search(out), "[%s] lspci lists the i440FX host bridge 8086:1237" % name, out)
    t.check(ISA_BRIDGE.search(out), "[%s] lspci lists the PIIX3 ISA bridge 8086:7000" % name, out)


def test_pcbios_default(t):
    with guest("default", "") as g:
        log = ready(t, g, "default")
        t.check(AREA_MSG in log, "seed 001's message (spelled 'area') is printed", log[-800:])
        t.check(re.search(r"^PCI: PCI BIOS revision \d+\.\d\d entry at 0x[0-9a-f]+", log, re.M),
                "PCI BIOS revision and entry are printed", log[-800:])
        check_lspci_lists_qemu(t, g.command("lspci"), "default")
        pt = PageTables(g.monitor("info tlb"))
        check_range(t, pt, LOW_START, HOLE_START, True, True, "low 640K")
        check_range(t, pt, HOLE_START, HOLE_END, True, False, "BIOS hole")
        wx = pt.wx_pages(LOW_START)
        t.check(wx == 96, "info tlb: the only W+X pages are the 96 of 640K-1M", "%d W+X pages" % wx)
        selftest(t, g, "default")


def test_pcbios_nobios(t):
    with guest("nobios", "pci=nobios") as g:
        log = ready(t, g, "nobios")
        t.check(AREA_MSG not in log and "BIOS32" not in log,
                "pci=nobios: no BIOS hole message, no BIOS32 scan", log[-800:])
        out = g.command("lspci")
        t.check("no PCI BIOS in use (pci=nobios)" in out, "lspci says the PCI BIOS is off", out)
        pt = PageTables(g.monitor("info tlb"))
        check_range(t, pt, LOW_START, HOLE_END, True, True, "whole low 1 MiB")
        wx = pt.wx_pages(LOW_START)
        t.check(wx == 0, "info tlb: no W+X page", "%d W+X pages" % wx)
        selftest(t, g, "nobios")


def test_pcbios_bios_nx(t):
    with guest("bios_nx", "pci=bios_nx") as g:
        log = ready(t, g, "bios_nx")
        t.check(NX_OOPS in log, "pci=bios_nx: the NX oops is printed", log[-1500:])
        t.check(re.search(r"^EIP: 0008:c00f[0-9a-f]{4}", log, re.M),
                "the oops's EIP is the BIOS32 entry in the direct map", log[-1500:])
        t.check("the oops above is the PCI BIOS call into NX-protected 640K-1M" in log,
                "ronx explains the oops (the seed's fix)", log[-800:])
        t.check(AREA_MSG not in log, "the hole is not opened")
        out = g.command("lspci")
        t.check("no PCI BIOS in use (pci=bios_nx)" in out and "faulted" in out,
                "lspci says there is no PCI BIOS after the fault", out)
        t.check(re.search(r"Oopses:\s+1\b", g.command("meminfo")), "exactly one oops at boot")
        pt = PageTables(g.monitor("info tlb"))
        check_range(t, pt, LOW_START, HOLE_END, True, True, "whole low 1 MiB")
        selftest(t, g, "bios_nx")


def test_pcbios_bios_tight(t):
    with guest("bios_tight", "pci=bios_tight") as g:
        log = ready(t, g, "bios_tight")
        m = re.search(r"PCI BIOS code at 0x([0-9a-f]+)-0x([0-9a-f]+) is ro and x", log)
        t.check(m, "pci=bios_tight: the RO+X range is printed", log[-800:])
        entry = re.search(r"BIOS32 Service Directory structure at 0x[0-9a-f]+, entry at 0x([0-9a-f]+)", log)
        if not m or not entry:
            return
        start, end = 0xC0000000 + int(m.group(1), 16), 0xC0000000 + int(m.group(2), 16)
        bios32 = 0xC0000000 + int(entry.group(1), 16)
        t.check(start <= bios32 < end, "the BIOS32 entry %#x is in the RO+X range" % bios32)
        t.check(end - start < HOLE_END - HOLE_START, "the RO+X range is smaller than 640K-1M",
                "%#x-%#x" % (start, end))
        check_lspci_lists_qemu(t, g.command("lspci"), "bios_tight")
        pt = PageTables(g.monitor("info tlb"))
        check_range(t, pt, LOW_START, start, True, True, "below the BIOS code")
        check_range(t, pt, start, end, False, False, "BIOS code")
        if end < HOLE_END:
            check_range(t, pt, end, HOLE_END, True, True, "above the BIOS code")
        wx = pt.wx_pages(LOW_START)
        t.check(wx == 0, "info tlb: no W+X page with the PCI BIOS in use", "%d W+X pages" % wx)
        selftest(t, g, "bios_tight")


def test_pcbios_bios_nx_without_nx(t):
    """Without NX the 2009 crash cannot happen: the BIOS simply works."""
    with guest("bios_nx no-nx cpu", "pci=bios_nx", cpu=CPU_NO_NX) as g:
        ready(t, g, "bios_nx no-nx cpu")
        t.check(NX_OOPS not in g.out, "no NX oops on a CPU without NX")
        check_lspci_lists_qemu(t, g.command("lspci"), "bios_nx no-nx cpu")
        selftest(t, g, "bios_nx no-nx")
