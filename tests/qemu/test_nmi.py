# SPDX-License-Identifier: GPL-2.0-only
"""NMIs (QEMU's monitor `nmi`, sent to every CPU): ronx has no NMI source
of its own, so each is an unknown one, reported and survived as Linux
does (kernel/cpu/nmi.c). Before, an NMI in ring 0 was a fatal oops and
one in ring 3 killed the process.

- one CPU, the shell idle (ring 0): the report's two lines, the shell
  answers, no oops;
- one CPU stopped by QEMU in ring 3 (spin, CPL=3 in info registers) when
  the NMI comes: spin is still there and still counting afterwards (its
  TICKS grow), no oops;
- two CPUs: QEMU raises LINT1 on each, and only the boot CPU takes it
  (kernel/cpu/apic.c routes LINT1 to NMI there and masks it on the
  others, as Linux's setup_local_APIC() does): one report, CPU 0's, and
  none from CPU 1.

The entries an NMI makes on an entry stack (PTI's user set or kernel set)
are graded by lab pti's check "entries from ring 0 on an entry stack",
which tests/labs runs on this kernel's own code."""
import re
import time

from guest import Guest, GuestError
from userprog import PS_LINE, ps, run_spin_in_background

REPORT = r"Uhhuh\. NMI received for unknown reason [0-9a-f]{2} on CPU %d\.\nDazed and confused, but trying to continue$"


def no_oops(t, g, tag):
    out = g.command("meminfo")
    t.check(re.search(r"^Oopses:\s+0$", out, re.M) and
            not re.search(r"^(BUG|Oops:|Kernel panic|NMI: )", g.out, re.M),
            tag + "no oops", g.out[-800:])


def reported(g, cpu, mark):
    try:
        g.wait_for(REPORT % cpu, 30, mark)
        return True
    except GuestError:
        return False


def nmi(t, g, cpus, tag):
    """Sends one NMI; each of cpus must report it."""
    mark = len(g.out)
    g.monitor("nmi")
    for cpu in cpus:
        t.check(reported(g, cpu, mark), tag + "CPU %d reports the NMI and goes on" % cpu,
                g.out[mark:][-600:])


def stopped_in_ring3(g, tries=200):
    """QEMU stopped while its one CPU runs ring 3 (spin loops there)."""
    for _ in range(tries):
        g.monitor("stop")
        if re.search(r"\bCPL=3\b", g.monitor("info registers")):
            return True
        g.monitor("cont")
        time.sleep(0.01)
    return False


def ticks(g, pid):
    """pid's TICKS in ps (None if it is gone)."""
    return next((int(m.group(4)) for m in PS_LINE.finditer(g.command("ps"))
                 if int(m.group(1)) == pid), None)


def test_nmi_one_cpu(t):
    with Guest("nmi smp1") as g:
        g.wait_ready()
        nmi(t, g, [0], "[kernel] ")
        t.check("PID" in g.command("ps"), "[kernel] the shell answers after the NMI")
        pid, _ = run_spin_in_background(g)
        in_ring3 = stopped_in_ring3(g)
        t.check(in_ring3, "[user] QEMU stopped the CPU in ring 3 (spin)")
        mark = len(g.out)
        g.monitor("nmi")
        g.monitor("cont")
        t.check(reported(g, 0, mark), "[user] the NMI taken in ring 3 is reported",
                g.out[mark:][-600:])
        before = ticks(g, pid)
        deadline = time.monotonic() + 30
        after = before
        while after is not None and before is not None and after <= before \
                and time.monotonic() < deadline:
            time.sleep(0.2)
            after = ticks(g, pid)
        t.check(pid in ps(g) and after is not None and before is not None and after > before,
                "[user] spin lives on after the NMI and keeps running (TICKS %s -> %s)"
                % (before, after), g.out[mark:][-600:])
        no_oops(t, g, "[smp1] ")


def test_nmi_two_cpus(t):
    with Guest("nmi smp2", extra=["-smp", "2"]) as g:
        g.wait_ready()
        mark = len(g.out)
        nmi(t, g, [0], "[smp2] ")
        t.check("PID" in g.command("ps") and not re.search(REPORT % 1, g.out[mark:], re.M),
                "[smp2] CPU 1, its LINT1 masked, takes no NMI", g.out[mark:][-600:])
        t.check("PID" in g.command("ps"), "[smp2] the shell answers after the NMI")
        no_oops(t, g, "[smp2] ")
