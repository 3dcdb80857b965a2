# SPDX-License-Identifier: GPL-2.0-only
"""The machine matrix (issue 10, point 2): fast -kernel boots on other
memory sizes, chipsets and CPUs, each to the prompt, then `selftest` (every
suite) and `wxcheck`. Every self-test must pass, or skip with its reason.

With -smp 1, 2, 4 and 8 (issue 16) every CPU must be up, read from QEMU
one by one (tests/qemu/smp.py): the same CR0, CR4, EFER and the kernel's
CR3, a GDT, TSS and per-CPU segment of its own; the trampoline gone from
the page tables; and the SMP crash demos fault on the other CPU.

Two lanes boot with `kaslr` (issue 23 item 3), on one CPU and on two: the
same checks, with every address that comes from kernel.elf (the kernel's
CR3 is swapper_pg_dir's) moved by the boot's own "Kernel Offset:" line;
the lane also proves from QEMU that the image did move.

One boot per machine; each prints a progress line with its time, and the
whole matrix its total, so a slow lane shows up in the log."""
import re
import time

from guest import Guest, asks_kaslr
from results import progress
from smp import PAGE_OFFSET, check_cpus_up, check_trampoline_gone, cpu_states
from tlb import PAGE, PageTables

LOWMEM_MB = 896
CR4_SMEP, CR4_SMAP = 1 << 20, 1 << 21
HOLE = "0xc00a0000-0xc0100000"

# name, memory, CPU, more QEMU arguments, what the machine lacks[, command line]
MACHINES = [
    ("16M", "16M", "qemu32,+nx,+pae", [], ""),
    ("128M smp1", "128M", "qemu32,+nx,+pae", ["-smp", "1"], ""),
    ("1G", "1G", "qemu32,+nx,+pae", [], ""),
    ("3G", "3G", "qemu32,+nx,+pae", [], ""),
    ("5G", "5G", "qemu32,+nx,+pae", [], ""),
    ("pc", "128M", "qemu32,+nx,+pae", ["-M", "pc"], ""),
    ("q35", "128M", "qemu32,+nx,+pae", ["-M", "q35"], ""),
    ("isapc", "128M", "qemu32,+nx,+pae", ["-M", "isapc"], "pci"),
    ("qemu32+nx", "128M", "qemu32,+nx", [], ""),
    ("pentium3", "128M", "pentium3", [], "nx"),
    ("core2duo", "128M", "core2duo", [], ""),
    ("Opteron_G1", "128M", "Opteron_G1", [], ""),
    ("smp2", "128M", "qemu32,+nx,+pae", ["-smp", "2"], ""),
    ("smp4", "128M", "qemu32,+nx,+pae,+smep,+smap", ["-smp", "4"], ""),
    ("smp8 q35", "128M", "qemu32,+nx,+pae", ["-smp", "8", "-M", "q35"], ""),
    ("kaslr", "128M", "qemu32,+nx,+pae", ["-smp", "1"], "", "kaslr"),
    ("kaslr smp2", "128M", "qemu32,+nx,+pae", ["-smp", "2"], "", "kaslr"),
]
STALE = {"SMP_STALE_WRITE": "the write faulted on CPU", "SMP_STALE_EXEC": "the call faulted on CPU"}


def megabytes(size):
    n, unit = int(size[:-1]), size[-1]
    return n * 1024 if unit == "G" else n


def check_boot_log(t, name, log, memory, lacks):
    """The boot lines that depend on the machine: memory, HIGHMEM, NX, PCI."""
    high = re.search(r"^(\d+)MB HIGHMEM available, not used", log, re.M)
    if megabytes(memory) > LOWMEM_MB:
        # QEMU's RAM below 4G ends at 3G (the rest goes above 4G)
        expect = megabytes(memory) - LOWMEM_MB
        t.check(high and abs(int(high.group(1)) - expect) <= 1,
                "[%s] boot reports %dMB HIGHMEM not used" % (name, expect),
                high.group(0) if high else "no HIGHMEM line")
        t.check("(896M of low memory)" in log, "[%s] the direct map stops at 896M" % name)
    else:
        t.check(not high, "[%s] no HIGHMEM line under 896M" % name, high and high.group(0))
    nx = "NX (Execute Disable) protection: %s" % ("not present" if lacks == "nx" else "active")
    t.check(nx in log, "[%s] %s" % (name, nx))
    nobus = "no device is on bus 0-0: no PCI bus on this machine" in log
    t.check(nobus == (lacks == "pci"), "[%s] boot says 'no PCI bus' only when there is none" % name,
            "said it" if nobus else "did not say it")


def check_wxcheck(t, name, out, lacks):
    if lacks == "nx":
        ok = "W+X check: skipped, NX is not in use" in out
    else:
        ok = re.search(r"W\+X check: 96 W\+X pages, all in the declared PCI BIOS hole %s" % HOLE, out)
    t.check(ok, "[%s] wxcheck: only the declared hole, or skipped for want of NX" % name, out)


def smp_count(extra):
    return int(extra[extra.index("-smp") + 1]) if "-smp" in extra else 1


def check_wx_per_cpu(t, name, g, ncpus):
    """The W^X audit from outside, on each CPU: QEMU's info tlb with that
    CPU's CR3 finds W+X pages only in the declared PCI BIOS hole."""
    lo, hi = (int(x, 16) for x in HOLE.split("-"))
    for n in range(ncpus):
        pt = PageTables(g.monitor("info tlb", cpu=n))
        wx = pt.wx_pages()
        t.check(pt.maps and wx == pt.wx_pages(lo, hi) == (hi - lo) // PAGE,
                "[%s] CPU#%d: info tlb finds W+X pages only in the hole %s (%d pages)"
                % (name, n, HOLE, (hi - lo) // PAGE),
                "%d W+X pages, %d of them in the hole" % (wx, pt.wx_pages(lo, hi)))


def check_smp(t, name, g, log, ncpus, cpu):
    """All ncpus up, from the boot log and from QEMU; the demos fault on another CPU."""
    ok = re.findall(r"^smpboot: CPU (\d+) APIC 0x[0-9a-f]+ \.\.\. ok: .*\(as the boot CPU\)$", log, re.M)
    t.check(len(ok) == ncpus - 1, "[%s] %d 'smpboot: CPU N ... ok' lines, registers as the boot CPU's"
            % (name, ncpus - 1), "%d found" % len(ok))
    want = "smp: Brought up 1 node, %d CPU%s" % (ncpus, "s" if ncpus > 1 else "")
    t.check(want in log, "[%s] %s" % (name, want))
    cr3 = g.symbols()["swapper_pg_dir"] - PAGE_OFFSET
    states = cpu_states(g)
    t.check(len(states) == ncpus, "[%s] QEMU has %d CPUs" % (name, ncpus), "%d" % len(states))
    check_cpus_up(t, name, states, set(range(ncpus)), cr3)
    if "+smep,+smap" in cpu:
        t.check(all(s.get("CR4", 0) & (CR4_SMEP | CR4_SMAP) == CR4_SMEP | CR4_SMAP for s in states),
                "[%s] SMEP and SMAP on every CPU (CR4 from QEMU)" % name,
                " ".join("CPU#%d:%#x" % (s["cpu"], s.get("CR4", 0)) for s in states))
    check_wx_per_cpu(t, name, g, ncpus)
    if ncpus > 1:
        check_trampoline_gone(t, name, g, log)
    for demo, faulted in STALE.items():
        out = g.command("crash " + demo)
        if ncpus == 1:
            t.check("needs a second CPU" in out, "[%s] %s says it needs a second CPU" % (name, demo), out)
        else:
            t.check(faulted in out and "Oops: " in out and "CPU: " in out and "FAIL" not in out,
                    "[%s] %s: the other CPU oopses, the shell goes on" % (name, demo), out[-900:])


def check_moved(t, name, g):
    """A kaslr lane: the boot says the image moved, and QEMU's page tables
    map the moved text (kernel.elf's _text..._etext + offset) RO+X onto the
    physical pages moved by the same offset."""
    off = g.kernel_offset()
    if not t.check(off and off % PAGE == 0, "[%s] dmesg: Kernel Offset: a non-zero 4 KiB multiple" % name,
                   "0x%x" % off):
        return
    s = g.symbols()
    pt = PageTables(g.monitor("info tlb"))
    bad = [p for p in pt.pages_where(s["_text"], s["_etext"], lambda x: not x or x.perm() != "RO+X")]
    bad += ["%08x phys 0x%x" % (va, x.pa & 0xFFFFFFFFF000) for va, x in pt.pages(s["_text"], s["_etext"])
            if x and (x.pa & 0xFFFFFFFFF000) + (va - x.va) != va - PAGE_OFFSET]
    t.check(not bad, "[%s] info tlb: the text moved by 0x%x, RO+X, at phys va - PAGE_OFFSET" % (name, off),
            bad[:5])


def boot_one(t, name, memory, cpu, extra, lacks, cmdline=""):
    t0 = time.monotonic()
    with Guest("matrix " + name, cpu=cpu, memory=memory, extra=extra, cmdline=cmdline) as g:
        log = g.wait_ready()
        check_boot_log(t, name, log, memory, lacks)
        if asks_kaslr(g.full_cmdline):     # RONX_BOOT_EXTRA's words, then the lane's
            check_moved(t, name, g)
        leaves = t.ktap(g.command("selftest", timeout=180 if smp_count(extra) == 1 else 900), "selftest[%s]" % name)
        check_wxcheck(t, name, g.command("wxcheck"), lacks)
        if "-smp" in extra:
            check_smp(t, name, g, log, smp_count(extra), cpu)
        t.check(g.poweroff() == 1, "[%s] poweroff ends QEMU" % name)
    skips = sum(1 for leaf in leaves if leaf[2] == "skip")
    failed = sum(1 for leaf in leaves if leaf[2] == "not ok")
    progress("matrix %-11s -m %-4s -cpu %-16s %-9s%s ready in %.1fs, %d self-tests (%d skipped, %d failed), %.1fs"
             % (name, memory, cpu, " ".join(extra), " " + cmdline if cmdline else "", g.ready_seconds,
                len(leaves), skips,
                failed, time.monotonic() - t0))


def test_matrix(t):
    t0 = time.monotonic()
    for machine in MACHINES:
        name = machine[0]
        try:
            boot_one(t, *machine)
        except Exception as e:  # one machine that breaks must not hide the others
            t.fail("[%s] boots to the prompt and runs selftest" % name, str(e))
    progress("matrix: %d machines in %.1fs" % (len(MACHINES), time.monotonic() - t0))
