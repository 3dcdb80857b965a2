# SPDX-License-Identifier: GPL-2.0-only
"""Crash demos (`crash NAME`, LKDTM's names): each must oops with the right
reason, the shell must come back, and nothing may be left behind."""
import re

from guest import CPU_NO_NX, Guest
from tlb import PageTables

WRITE = ["#PF: supervisor write access in kernel mode", "permissions violation"]
NX = ["kernel tried to execute NX-protected page - exploit attempt?",
      "#PF: supervisor instruction fetch in kernel mode", "permissions violation"]
EXPECTED = {
    "WRITE_RO": WRITE, "WRITE_RO_AFTER_INIT": WRITE, "WRITE_KERN": WRITE,
    "EXEC_DATA": NX, "EXEC_STACK": NX, "EXEC_KMALLOC": NX, "EXEC_VMALLOC": NX,
    "EXEC_RODATA": NX, "EXEC_INIT": NX,
    "EXEC_NULL": ["#PF: supervisor instruction fetch in kernel mode", "not-present page"],
    "ACCESS_NULL": ["#PF: supervisor read access in kernel mode", "not-present page"],
    "WRITE_MODULE_TEXT": WRITE, "EXEC_MODULE_DATA": NX,
    "EXEC_MODULE_INIT": ["#PF: supervisor instruction fetch in kernel mode", "not-present page"],
}


def free_pages(g):
    return int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))


def crash_all(t, g):
    """Every demo once, on a guest that has not oopsed yet (QEMU or Bochs):
    each is listed, must oops for its own reason, the shell come back, no page leak."""
    listing = g.command("crash")
    for name in EXPECTED:
        t.check(re.search(r"^\s+%s\s" % name, listing, re.M), "crash lists %s" % name, listing)
    before = free_pages(g)
    for n, (name, lines) in enumerate(EXPECTED.items(), 1):
        out = g.command("crash " + name)
        missing = [l for l in lines if l not in out]
        t.check(not missing and ("Oops: " in out) and ("[#%d]" % n) in out
                and "oopsed as it should" in out,
                "%s oopses with the right reason and the shell comes back" % name,
                "missing %s in:\n%s" % (missing, out[-900:]))
    t.check(free_pages(g) == before, "no page leaked by %d oopses" % len(EXPECTED))


def test_crash_demos(t):
    with Guest("crash demos") as g:
        g.wait_ready()
        crash_all(t, g)
        pt = PageTables(g.monitor("info tlb"))
        t.check(pt.lookup(0xFC001000) is None, "EXEC_VMALLOC's mapping is gone after its oops")
        out = g.command("crash NO_SUCH")
        t.check("no crash type 'NO_SUCH'" in out, "an unknown crash type is refused", out)
        t.check(g.poweroff() == 1, "the kernel still powers off cleanly after the demos")


def test_crash_without_nx(t):
    """Without NX the execute demos survive: the demo says so instead of hiding it."""
    with Guest("crash no-nx", cpu=CPU_NO_NX) as g:
        g.wait_ready()
        out = g.command("crash EXEC_DATA")
        t.check("FAIL: survived bad execution" in out and "Oops" not in out,
                "EXEC_DATA runs and reports FAIL on a CPU without NX", out)
        out = g.command("crash WRITE_RO")
        t.check(all(l in out for l in WRITE), "WRITE_RO still faults without NX", out)
