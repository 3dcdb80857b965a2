# SPDX-License-Identifier: GPL-2.0-only
"""SMEP and SMAP lanes: on a CPU that has them (on, nosmep, nosmap, both
off) and on one that does not. The boot log says what is on, CR4 agrees
(read by QEMU), LKDTM's EXEC_USERSPACE and ACCESS_USERSPACE oops naming
the protection that stopped them or go through and say so, and the
smep_smap self-tests pass or skip with the reason. And `make run`'s own
CPU has both."""
import re
import subprocess

from guest import ROOT, Guest
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


def make_run_cpus():
    """target -> the -cpu of the QEMU command `make -n TARGET` prints."""
    out = subprocess.run(["make", "-s", "-n", "run", "run-kernel", "debug"], cwd=ROOT,
                         capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if l.startswith("qemu-system-i386 ")]
    return dict(zip(("run", "run-kernel", "debug"),
                    (re.search(r" -cpu (\S+)", l).group(1) for l in lines)))


def test_make_run_has_smep_smap(t):
    """The default boot shows the protections it has (issue 20, item 9):
    make run, run-kernel and debug boot a CPU with SMEP and SMAP, and the
    ISO booted as make run boots it stops EXEC_USERSPACE and ACCESS_USERSPACE."""
    cpus = make_run_cpus()
    t.check(len(cpus) == 3 and all("+smep" in c and "+smap" in c for c in cpus.values()),
            "make run, run-kernel and debug pass -cpu ...,+smep,+smap", str(cpus))
    with Guest("make run cpu", cpu=cpus.get("run", CPU_SMEP), iso=True, debug_exit=False) as g:
        log = g.wait_ready()
        t.check("SMEP (the kernel cannot execute user pages): on" in log and
                "SMAP (the kernel cannot touch user pages outside copy_*_user): on" in log,
                "[make run] the boot log says SMEP and SMAP are on", log[-800:])
        out = g.command("crash EXEC_USERSPACE")
        t.check("ronx: SMEP stopped it" in out and "oopsed as it should" in out and
                "FAIL" not in out, "[make run] crash EXEC_USERSPACE: SMEP stops it", out)
        out = g.command("crash ACCESS_USERSPACE")
        t.check("ronx: SMAP stopped it" in out and "FAIL" not in out,
                "[make run] crash ACCESS_USERSPACE: SMAP stops it", out)


def test_make_run_bochs_has_smep_smap(t):
    """make run-bochs picks a Bochs CPU with SMEP and SMAP (BOCHS_CPU) on
    Bochs's command line; booted with it, EXEC_USERSPACE stops on SMEP."""
    from bochs import BochsGuest
    out = subprocess.run(["make", "-s", "-n", "run-bochs"], cwd=ROOT, capture_output=True,
                         text=True).stdout
    m = re.search(r"'cpu: model=(\w+),", out)
    t.check(m, "make run-bochs gives Bochs a cpu: line", out[-400:])
    if not m:
        return
    with BochsGuest("make run-bochs cpu", cpu=m.group(1)) as g:
        log = g.wait_ready()
        t.check("SMEP (the kernel cannot execute user pages): on" in log and
                "SMAP (the kernel cannot touch user pages outside copy_*_user): on" in log,
                "[run-bochs %s] the boot log says SMEP and SMAP are on" % m.group(1), log[-800:])
        out = g.command("crash EXEC_USERSPACE", timeout=120)
        t.check("ronx: SMEP stopped it" in out and "oopsed as it should" in out,
                "[run-bochs %s] crash EXEC_USERSPACE: SMEP stops it" % m.group(1), out[-600:])
