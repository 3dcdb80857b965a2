#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The user programs on the host, before any kernel: qemu-i386 (Debian's
qemu-user) runs static i386 Linux programs by translating their system
calls to the host's, so a program that passes here is a right Linux
i386 program. Writes build/results/user.ktap.

Also checked from outside: each binary is a static i386 ET_EXEC with one
PT_LOAD per permission and no RWE (wxsegment alone has one), and the
checks can fail: "usertest ronx" on Linux's policy must fail exactly its
two W^X checks, and the ronx expectations must reject Linux's answers.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(ROOT, "build", "user", "bin")
sys.path.insert(0, HERE)
from progs import QEMU_SKIP_RUNS, SIGNALS, TESTS, Result, Run, checks  # noqa: E402
from binfmt import i386_binfmt  # noqa: E402

lines = []


def add(ok, desc, detail=""):
    n = len(lines) + 1
    if detail.startswith("SKIP "):
        lines.append("ok %d - %s # %s" % (n, desc, detail))
        print("  skip %s -- %s" % (desc, detail[5:]), flush=True)
        return
    lines.append("%s %d - %s" % ("ok" if ok else "not ok", n, desc))
    if not ok and detail:
        lines.append("# " + detail.replace("\n", "\n# "))
    print("  %s %s%s" % ("ok  " if ok else "FAIL", desc, "" if ok else " -- " + detail[:300]),
          flush=True)


def run_qemu(run, args=None):
    args = run.argv("qemu") if args is None else args
    try:
        p = subprocess.run(["qemu-i386", "./" + run.name] + args, cwd=BIN,
                           input=(run.stdin or "").encode(), capture_output=True,
                           timeout=run.timeout or 120)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return Result(out, None, "SIGKILL")
    out = p.stdout.decode(errors="replace")
    if p.returncode < 0:
        return Result(out, None, SIGNALS.get(-p.returncode, "signal %d" % -p.returncode))
    return Result(out, p.returncode)


def segments(path):
    """(type, flags) of each program header, and the ELF type, from readelf."""
    out = subprocess.run(["readelf", "-hlW", path], capture_output=True, text=True).stdout
    etype = re.search(r"Type:\s+(\S+)", out).group(1)
    machine = re.search(r"Machine:\s+(.*)", out).group(1).strip()
    segs = re.findall(r"^\s+(LOAD|GNU_STACK|INTERP|DYNAMIC)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+"
                      r"([RWE ]{3})\s", out, re.M)
    return etype, machine, [(t, f.replace(" ", "")) for t, f in segs]


def check_binaries():
    names = sorted({r.name for r in TESTS} | {"bench_spawn"})
    for name in names:
        path = os.path.join(BIN, name)
        if not os.path.exists(path):
            add(False, "%s: built" % name, "missing: %s" % path)
            continue
        etype, machine, segs = segments(path)
        loads = [f for t, f in segs if t == "LOAD"]
        stack = [f for t, f in segs if t == "GNU_STACK"]
        static = not any(t in ("INTERP", "DYNAMIC") for t, _ in segs)
        if name == "wxsegment":
            ok = loads == ["RWE"]
            want = "one RWE PT_LOAD (ronx must refuse it)"
        else:
            ok = loads == ["RE", "R", "RW"] or loads == ["RE", "RW"] or loads == ["RE", "R"]
            want = "PT_LOADs R_E, R__, RW_ and never RWE"
        add(etype == "EXEC" and machine == "Intel 80386" and static and ok and stack == ["RW"],
            "%s: static i386 ET_EXEC, %s, PT_GNU_STACK RW_" % (name, want),
            "%s %s, segments %s" % (etype, machine, segs))


def main():
    if not shutil.which("qemu-i386"):
        add(False, "qemu-i386 is installed", "tools/setup.sh installs Debian's qemu-user")
    else:
        with i386_binfmt(os.path.join(BIN, "true")) as why:
            add(why is None, "the host runs i386 programs for a nested execve (natively or via "
                "binfmt_misc)", why or "")
            run_all()
    return write_results()


def run_all():
    """Every program under qemu-i386, and the checks that the checks can fail."""
    check_binaries()
    results = {}
    for run in TESTS:
        if run.key in QEMU_SKIP_RUNS:
            add(True, "qemu: %s" % run.key, "SKIP " + QEMU_SKIP_RUNS[run.key])
            continue
        print("user: qemu-i386 %s %s" % (run.name, " ".join(run.argv("qemu"))), flush=True)
        r = results[run.key] = run_qemu(run)
        for ok, desc, detail in checks(run, r, "qemu"):
            add(ok, "qemu: " + desc, detail)
    # vfork + execve + wait4 (the spawn benchmark), of the host's own
    # /bin/true: qemu-user hands execve to the host
    r = run_qemu(Run("bench_spawn"), ["5", "/bin/true"])
    add(r.status == 0 and r.has(r"^bench_spawn: 5 spawns of /bin/true: min \d+ median \d+"),
        "qemu: bench_spawn: vfork, execve and wait4 five times", r.output)
    # the checks fail the wrong answers: Linux's policy is not ronx's
    r = run_qemu(Run("usertest"), ["ronx"])
    failed = re.findall(r"^    not ok \d+ (\S+)", r.output, re.M)
    wx = sorted(f for f in failed if "_wx_" in f)
    add(wx == ["mmap_wx_refused_eacces", "mprotect_wx_refused_eacces"] and r.status == 1,
        "qemu: usertest ronx fails its two W^X checks on Linux's policy", "failed: %s" % failed)
    # qemu-user has no kernel half, so calls naming it go through: the
    # fuzzer must see that, and the checks for a real kernel reject it
    run = next(t for t in TESTS if t.key == "fuzz")
    m = re.search(r"succeeded: (\d+)$", results["fuzz"].output, re.M)
    verdicts = [ok for ok, desc, _ in checks(run, results["fuzz"], "linux") if "kernel's half" in desc]
    add(m and int(m.group(1)) > 0 and verdicts == [False],
        "qemu: fuzz counts the calls into the kernel's half that qemu-user let through, "
        "and the Linux/ronx check rejects that run", results["fuzz"].output[-300:])
    for key in ("mmaprwx", "mprotectrwx", "wxsegment"):
        run = next(t for t in TESTS if t.key == key)
        verdicts = checks(run, results[key], "ronx")
        add(verdicts and not any(ok for ok, _, _ in verdicts),
            "qemu: %s: the ronx checks reject what Linux's policy did" % key, str(verdicts))
    # the red-team checks too: W+X allowed, and int3's SIGTRAP, are not ronx's
    for key in ("redteam-wx", "redteam-int3"):
        run = next(t for t in TESTS if t.key == key)
        verdicts = checks(run, results[key], "ronx")
        add(verdicts and not all(ok for ok, _, _ in verdicts),
            "qemu: %s: the ronx checks reject Linux's outcome (%s)" % (key, results[key].ended()),
            str(verdicts))


def write_results():
    out = os.path.join(ROOT, "build", "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "user.ktap"), "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (sum(1 for l in lines if not l.startswith("#")),
                                                 "\n".join(lines)))
    failed = sum(1 for l in lines if l.startswith("not ok"))
    print("user: %d checks, %d failed" % (sum(1 for l in lines if not l.startswith("#")), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
