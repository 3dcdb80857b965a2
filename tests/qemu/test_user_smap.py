# SPDX-License-Identifier: GPL-2.0-only
"""SMEP and SMAP lanes: on a CPU that has them (on, nosmep, nosmap, both
off) and on one that does not. The boot log says what is on, CR4 agrees
(read by QEMU), LKDTM's EXEC_USERSPACE and ACCESS_USERSPACE oops naming
the protection that stopped them or go through and say so, and the
smep_smap self-tests pass or skip with the reason."""
import re

from guest import Guest
from tlb import registers

CPU_SMEP = "qemu32,+nx,+pae,+smep,+smap"
CPU_PLAIN = "qemu32,+nx,+pae"
CR4_SMEP, CR4_SMAP = 1 << 20, 1 << 21

# lane name, cpu, command line, SMEP on, SMAP on, the CPU has them
LANES = [
    ("smep+smap", CPU_SMEP, "", True, True, True),
    ("nosmep", CPU_SMEP, "nosmep", False, True, True),
    ("nosmap", CPU_SMEP, "nosmap", True, False, True),
    ("nosmep nosmap", CPU_SMEP, "nosmep nosmap", False, False, True),
    ("no smep/smap cpu", CPU_PLAIN, "", False, False, False),
]


def boot_line(what, on, has):
    state = "on" if on else ("off (nosmep/nosmap on the command line)" if has
                             else "not supported by this CPU")
    return r"^ronx: %s \(.*\): %s$" % (what, re.escape(state))


def lane(t, name, cpu, cmdline, smep, smap, has):
    with Guest("smap " + name, cpu=cpu, cmdline=cmdline) as g:
        log = g.wait_ready()
        t.check(re.search(boot_line("SMEP", smep, has), log, re.M), "[%s] boot log: SMEP %s" % (name, smep), log[-900:])
        t.check(re.search(boot_line("SMAP", smap, has), log, re.M), "[%s] boot log: SMAP %s" % (name, smap))
        cr4 = registers(g.monitor("info registers")).get("CR4", 0)
        t.check(bool(cr4 & CR4_SMEP) == smep and bool(cr4 & CR4_SMAP) == smap,
                "[%s] CR4 (read by QEMU) has SMEP=%d SMAP=%d" % (name, smep, smap), "CR4=%#x" % cr4)
        out = g.command("crash EXEC_USERSPACE")
        if smep:
            ok = "unable to execute userspace code (SMEP?)" in out and "ronx: SMEP stopped it" in out \
                and "oopsed as it should" in out
        else:
            ok = "FAIL: survived bad execution of a user page" in out and "Oops" not in out \
                and "SMEP is %s" % ("off (nosmep)" if has else "not supported") in out
        t.check(ok, "[%s] EXEC_USERSPACE: %s" % (name, "SMEP stops it" if smep else "goes through, and says so"), out)
        out = g.command("crash ACCESS_USERSPACE")
        if smap:
            ok = "ronx: SMAP stopped it" in out and "#PF: supervisor read access in kernel mode" in out
        else:
            ok = "FAIL: survived bad read" in out and "Oops" not in out
        t.check(ok, "[%s] ACCESS_USERSPACE: %s" % (name, "SMAP stops it" if smap else "goes through, and says so"), out)
        leaves = t.ktap(g.command("selftest smep_smap"), "selftest[%s]" % name)
        status = {leaf[1]: leaf[2] for leaf in leaves}
        t.check(status.get("smep_stops_kernel_exec") == ("ok" if smep else "skip")
                and status.get("smap_stops_kernel_read") == ("ok" if smap else "skip")
                and status.get("without_smep_kernel_runs_user_page") == ("skip" if smep else "ok"),
                "[%s] the self-tests run where they can and skip where they cannot" % name, str(status))
        leaves = t.ktap(g.command("selftest uaccess"), "selftest[%s]" % name)
        out = g.command("run hello")
        t.check("exit status 0" in out, "[%s] a process still runs (copy_*_user with stac/clac or without)" % name, out)
        t.check(g.poweroff() == 1, "[%s] poweroff" % name)


def test_smep_smap_lanes(t):
    for args in LANES:
        try:
            lane(t, *args)
        except Exception as e:  # one lane that breaks must not hide the others
            t.fail("[%s] boots and runs the SMEP/SMAP checks" % args[0], str(e))
