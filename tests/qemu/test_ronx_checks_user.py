# SPDX-License-Identifier: GPL-2.0-only
"""ronx's side of the user-mode table in docs/linux-vs-ronx.md: every
program of tests/user/progs.py run with the shell's `run`, checked as
Linux's run is (with ronx's W^X policy), and spin's pages walked from
outside through QEMU while it runs. The readings go into
build/results/ronx-checks.json under "user" and "user_walk" (make
ronx-checks; linux-check reads them)."""
import json
import os
import re
import sys
import time

from guest import BUILD, Guest, echo_pattern
from tlb import walk_summary
from userprog import run_spin_in_background

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "user"))
import progs  # noqa: E402

CTRL_C, CTRL_D = b"\x03", b"\x04"
# spin's first line; it may follow the prompt on the same line
SPIN = re.compile(r"spin: text 0x([0-9a-f]+) rodata 0x([0-9a-f]+) data 0x([0-9a-f]+) "
                  r"stack 0x([0-9a-f]+)$", re.M)


def result(name, text):
    """A progs.Result from what the console showed for one run: the
    shell's "[PID] NAME: exit status N" or "killed by SIG..." line, the
    kernel's segfault line, and the rest (the program's output)."""
    status = signal = kernel_line = None
    out = []
    for line in text.splitlines():
        m = re.match(r"^\[\d+\] %s: (?:exit status (\d+)|killed by (SIG\w+))$" % re.escape(name), line)
        if m:
            status = int(m.group(1)) if m.group(1) else None
            signal = m.group(2)
        elif progs.SEGFAULT_LINE.search(line) or progs.TRAPS_LINE.search(line):
            kernel_line = line
        else:
            out.append(line + "\n")
    return progs.Result("".join(out), status, signal, kernel_line)


def run_on_ronx(g, run):
    line = " ".join(["run", run.name] + run.argv("ronx"))
    if run.stdin is None and not run.timeout:
        return result(run.name, g.command(line, timeout=300))
    start = len(g.out)
    g.send(line.encode() + b"\r")
    g.wait_for(echo_pattern(line), 30, start)
    if run.stdin is not None:
        # typed at the console: the tty echoes each line, then cat copies it
        time.sleep(0.5)
        g.send(run.stdin.replace("\n", "\r").encode() + CTRL_D)
    else:
        g.wait_for(re.escape(run.ready) + "$", 30, start)
        time.sleep(run.timeout)
        g.send(CTRL_C)
    end = g.wait_for(r"^\[\d+\] %s: .*\n(?=ronx> )" % run.name, 60, start)
    g.wait_for(r"^ronx> ", 10, end.end())
    return result(run.name, g.out[start:end.end()].split("\n", 1)[1])


def walk_spin(g):
    """spin's text, rodata, data and stack pages as the CPU sees them, from
    its CR3 (ps) and QEMU's physical memory (xp)."""
    pid, out = run_spin_in_background(g)
    m = SPIN.search(out)
    cr3 = int(re.search(r"^\s*%s \w+\s+0x([0-9a-f]+)" % pid, g.command("ps"), re.M).group(1), 16)
    walk = {label: "%s %s" % (label, walk_summary(g.monitor, cr3, int(va, 16) & ~0xFFF))
            for label, va in zip(("text", "rodata", "data", "stack"), m.groups())}
    g.command("kill %s" % pid)
    return walk


def test_user_programs(t):
    readings = {}
    with Guest("ronx-checks user") as g:
        g.wait_ready()
        if not re.search(r"^\s+run ", g.command("help"), re.M):
            t.skip("user programs", "this kernel has no run command (no user mode yet)")
            g.poweroff()
            return
        for run in progs.TESTS:
            r = readings[run.key] = run_on_ronx(g, run)
            for ok, desc, detail in progs.checks(run, r, "ronx"):
                t.check(ok, desc, detail)
        walk = walk_spin(g)
        g.poweroff()
    want = {"text": "RO+X", "rodata": "RO+NX", "data": "RW+NX", "stack": "RW+NX"}
    for label, perm in want.items():
        m = re.search(r" pte=0x([0-9a-f]+).*effective=(\S+)$", walk[label])
        user = m and int(m.group(1), 16) & 4
        t.check(m and user and m.group(2) == perm,
                "spin's %s page from outside: %s, US=1" % (label, perm), walk[label])
    path = os.path.join(BUILD, "results", "ronx-checks.json")
    data = json.load(open(path)) if os.path.exists(path) else {}
    data["user"] = {k: r.to_json() for k, r in readings.items()}
    data["user_walk"] = walk
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
