# SPDX-License-Identifier: GPL-2.0-only
"""The machine matrix (issue 10, point 2): fast -kernel boots on other
memory sizes, chipsets and CPUs, each to the prompt, then `selftest` (every
suite) and `wxcheck`. Every self-test must pass, or skip with its reason.

One boot per machine; each prints a progress line with its time, and the
whole matrix its total, so a slow lane shows up in the log."""
import re
import time

from guest import Guest
from results import progress
from tlb import registers

CR0_PG = 1 << 31
LOWMEM_MB = 896
HOLE = "0xc00a0000-0xc0100000"

# name, memory, CPU, more QEMU arguments, what the machine lacks
MACHINES = [
    ("16M", "16M", "qemu32,+nx,+pae", [], ""),
    ("128M", "128M", "qemu32,+nx,+pae", [], ""),
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
    ("smp4", "128M", "qemu32,+nx,+pae", ["-smp", "4"], ""),
]


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


def check_aps_parked(t, name, g):
    """-smp: ronx starts no other CPU; theirs stay as the BIOS left them, paging off."""
    dumps = g.monitor("info registers -a").split("CPU#")[1:]
    t.check(len(dumps) == 4, "[%s] QEMU has 4 CPUs" % name, "%d" % len(dumps))
    for d in dumps[1:]:
        cr0 = registers(d).get("CR0", 0)
        t.check(not cr0 & CR0_PG, "[%s] CPU#%s stays parked (paging off)" % (name, d.split()[0]),
                "CR0=%#x" % cr0)


def boot_one(t, name, memory, cpu, extra, lacks):
    t0 = time.monotonic()
    with Guest("matrix " + name, cpu=cpu, memory=memory, extra=extra) as g:
        log = g.wait_ready()
        check_boot_log(t, name, log, memory, lacks)
        leaves = t.ktap(g.command("selftest", timeout=180), "selftest[%s]" % name)
        check_wxcheck(t, name, g.command("wxcheck"), lacks)
        if "-smp" in extra:
            check_aps_parked(t, name, g)
        t.check(g.poweroff() == 1, "[%s] poweroff ends QEMU" % name)
    skips = sum(1 for leaf in leaves if leaf[2] == "skip")
    failed = sum(1 for leaf in leaves if leaf[2] == "not ok")
    progress("matrix %-11s -m %-4s -cpu %-16s %-9s ready in %.1fs, %d self-tests (%d skipped, %d failed), %.1fs"
             % (name, memory, cpu, " ".join(extra), g.ready_seconds, len(leaves), skips,
                failed, time.monotonic() - t0))


def test_matrix(t):
    t0 = time.monotonic()
    for name, memory, cpu, extra, lacks in MACHINES:
        try:
            boot_one(t, name, memory, cpu, extra, lacks)
        except Exception as e:  # one machine that breaks must not hide the others
            t.fail("[%s] boots to the prompt and runs selftest" % name, str(e))
    progress("matrix: %d machines in %.1fs" % (len(MACHINES), time.monotonic() - t0))
