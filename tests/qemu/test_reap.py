# SPDX-License-Identifier: GPL-2.0-only
"""Kills that race with fork, orphans, the process limit (issue 34), each
on -smp 1 and -smp 2, with user/bin/forkloop:

- Ctrl-C against `forkloop race` (fork, one in four a vfork, in a tight
  loop; each child spins a moment, sleeps 30 ms and prints "forkloop:
  marker PID"), 20 rounds at different points of the loop:
  after the prompt is back, no marker is printed and ps shows no forkloop
  (a group kill and fork are ordered by tasks_lock, kernel/fork.c's
  fork_commit(); a write checks the kill under console_lock, which the
  prompt takes too). Before the fix a child fork was still making missed
  the kill and printed after the prompt (1 to 7 rounds of 20).
- `forkloop bomb &` (every process forks forever) ended by ONE shell
  command, `kill -9 -PGID`: no process left, every page back.
- `forkloop orphans 10` typed at bin/sh's prompt 12 times (120 orphans,
  more than NPROC_MAX): every fork succeeds, and, still in sh, the task
  table read from outside (QEMU's xp at the `tasks` symbol) holds no
  zombie: orphans are autoreaped, not left for the kernel shell's prompt.
- `forkloop fill &` on -smp 2 (every process forks until EAGAIN, then
  sleeps, so none exits and ps's count is the most there ever were): never
  more than NPROC_MAX processes, in several rounds; then `forkloop churn &`
  (processes fork, reap and exit, the last slot fought for constantly):
  the kernel's peak count, read with xp, is NPROC_MAX, never more.

Every verdict is a count or a line that must (not) be there; the waits
are bounded waits for what must happen."""
import os
import re
import subprocess
import time

from guest import Guest, ROOT
from userprog import free_pages, settled_free_pages
from test_sh import SH_PROMPT, start_sh, sh

CTRL_C = b"\x03"
RACE_ROUNDS = 20
ORPHAN_RUNS, ORPHANS = 12, 10
FILL_ROUNDS = 3
CHURN_SAMPLES = 25
MARKER = re.compile(r"forkloop: marker (\d+)")
TASK_ZOMBIE = 5         # enum task_state, include/ronx/sched.h


def nproc_max():
    """NPROC_MAX (include/ronx/process.h): NR_TASKS - 8."""
    sched = open(os.path.join(ROOT, "include/ronx/sched.h")).read()
    proc = open(os.path.join(ROOT, "include/ronx/process.h")).read()
    nr = int(re.search(r"^#define NR_TASKS\s+(\d+)", sched, re.M).group(1))
    less = int(re.search(r"^#define NPROC_MAX\s+\(NR_TASKS - (\d+)\)", proc, re.M).group(1))
    return nr - less


def forkloops(g):
    """ps's forkloop lines: pid -> state."""
    out = g.command("ps", timeout=120)
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\s*(\d+) (\w+) .* forkloop$", out, re.M)}


def wait_no_forkloop(g, seconds=20):
    """Polls ps until no forkloop is listed (bounded); the last list."""
    deadline = time.monotonic() + seconds
    while True:
        procs = forkloops(g)
        if not procs or time.monotonic() > deadline:
            return procs
        time.sleep(0.2)


def lanes(t, name, body):
    for smp in (1, 2):
        with Guest("reap %s smp%d" % (name, smp), extra=["-smp", str(smp)]) as g:
            g.wait_ready()
            g.command("run true")
            body(t, g, "[-smp %d] " % smp)


def no_oops(t, g, tag):
    out = g.command("meminfo")
    t.check(re.search(r"^Oopses:\s+0$", out, re.M) and not re.search(r"^(BUG|Oops:|Kernel panic)", g.out, re.M),
            tag + "no oops, no BUG line", g.out[-600:])


def ctrl_c_rounds(t, g, tag):
    before = free_pages(g)
    late, left, rounds = [], [], 0
    for i in range(RACE_ROUNDS):
        start = len(g.out)
        g.send(b"run forkloop race\r")
        g.wait_for(r"^forkloop: race: forking$", 30, start)
        time.sleep(0.1 + 0.05 * (i % 8))       # Ctrl-C at different points of the loop
        g.send(CTRL_C)
        killed = g.wait_for(r"^\[\d+\] forkloop: killed by SIGINT\n", 30, start)
        prompt = g.wait_for(r"ronx> ", 30, killed.end()).end()
        procs = wait_no_forkloop(g)
        after = g.out[prompt:]
        late += ["round %d: %s" % (i, m.group(0)) for m in MARKER.finditer(after)]
        if procs:
            left.append("round %d: %s" % (i, procs))
        rounds += 1
    t.check(rounds == RACE_ROUNDS and not late,
            tag + "Ctrl-C on fork/vfork in a loop, %d rounds: no child prints after the prompt"
            % RACE_ROUNDS, "; ".join(late[:10]))
    t.check(not left, tag + "no forkloop left in ps after any round", "; ".join(left[:5]))
    t.check(settled_free_pages(g, before) == before,
            tag + "every page back after the rounds (PagesFree %d)" % before,
            "after: %d" % free_pages(g))
    no_oops(t, g, tag)


def test_reap_ctrl_c_race(t):
    lanes(t, "ctrl-c", ctrl_c_rounds)


def start_background(g, prog):
    out = g.command("run %s &" % prog)
    m = re.search(r"^\[(\d+)\] forkloop$", out, re.M)
    if not m:
        raise AssertionError("run %s &: no [PID] line: %r" % (prog, out))
    return int(m.group(1))


def wait_count(g, want, seconds=60):
    """Polls ps until at least want forkloops run (bounded); the last list."""
    deadline = time.monotonic() + seconds
    while True:
        procs = forkloops(g)
        if len(procs) >= want or time.monotonic() > deadline:
            return procs
        time.sleep(0.5)


def bomb(t, g, tag):
    limit = nproc_max()
    before = free_pages(g)
    pgid = start_background(g, "forkloop bomb")
    procs = wait_count(g, limit)
    t.check(len(procs) == limit, tag + "the bomb fills the process limit: %d processes (NPROC_MAX %d)"
            % (len(procs), limit))
    out = g.command("kill -9 -%d" % pgid, timeout=120)
    m = re.search(r"^kill: SIGKILL sent to (\d+) processes of group %d$" % pgid, out, re.M)
    t.check(m, tag + "one command, kill -9 -%d, signals the whole group" % pgid, out)
    procs = wait_no_forkloop(g)
    t.check(not procs, tag + "no forkloop left after the one kill", str(procs))
    t.check(re.search(r"^\[%d\] forkloop: killed by SIGKILL$" % pgid, g.out, re.M),
            tag + "the shell reports its job killed by SIGKILL", g.out[-400:])
    t.check(settled_free_pages(g, before) == before,
            tag + "every page back (PagesFree %d)" % before,
            "after: %d" % free_pages(g))
    no_oops(t, g, tag)


def test_reap_bomb_one_kill(t):
    lanes(t, "bomb", bomb)


def task_states(g):
    """Every slot's state, read from outside: QEMU's xp of the `tasks` array."""
    syms = g.symbols()
    nm = subprocess.run(["nm", "-S", g.kernel], capture_output=True, text=True, check=True).stdout
    size = int(re.search(r"^[0-9a-f]+ ([0-9a-f]+) [bBdD] tasks$", nm, re.M).group(1), 16)
    nr = int(re.search(r"^#define NR_TASKS\s+(\d+)",
                       open(os.path.join(ROOT, "include/ronx/sched.h")).read(), re.M).group(1))
    stride = size // nr
    states = []
    for i in range(nr):
        out = g.monitor("xp /1wx 0x%x" % (syms["tasks"] + i * stride - 0xC0000000))
        states.append(int(out.split(":", 1)[1].split()[0], 16))
    return states


def orphans(t, g, tag):
    before = free_pages(g)
    start_sh(g)
    bad = []
    for i in range(ORPHAN_RUNS):
        out = sh(g, "forkloop orphans %d" % ORPHANS, timeout=120)
        if not re.search(r"^forkloop: orphans: %d of %d forks$" % (ORPHANS, ORPHANS), out, re.M):
            bad.append("run %d: %s" % (i, out.strip()[-200:]))
    t.check(not bad, tag + "%d runs of forkloop orphans %d under sh (%d orphans, NPROC_MAX %d): every fork "
            "succeeds" % (ORPHAN_RUNS, ORPHANS, ORPHAN_RUNS * ORPHANS, nproc_max()), "; ".join(bad[:4]))
    deadline = time.monotonic() + 10
    while True:
        zombies = task_states(g).count(TASK_ZOMBIE)
        if not zombies or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    t.check(zombies == 0, tag + "still in sh: no zombie in the task table (read with xp from outside)",
            "%d zombies" % zombies)
    mark = len(g.out)
    g.send(b"exit 0\r")
    g.wait_for(r"^\[\d+\] sh: exit status 0\n", 30, mark)
    g.wait_for(r"ronx> ", 30, mark)
    t.check(not wait_no_forkloop(g), tag + "ps after sh: no forkloop")
    t.check(settled_free_pages(g, before) == before,
            tag + "every page back (PagesFree %d)" % before,
            "after: %d" % free_pages(g))
    no_oops(t, g, tag)


def test_reap_orphans_under_sh(t):
    lanes(t, "orphans", orphans)


def read_int(g, name):
    """A kernel int, read from outside (QEMU's xp at its symbol)."""
    out = g.monitor("xp /1wx 0x%x" % (g.symbols()[name] - 0xC0000000))
    return int(out.split(":", 1)[1].split()[0], 16)


def test_reap_nproc_smp2(t):
    """fill: nobody exits, so the count once all sleep is the most ever;
    churn: the last slot fought for over and over, the kernel's own peak
    count (nr_processes_peak, read with xp) never above the limit."""
    limit = nproc_max()
    with Guest("reap nproc smp2", extra=["-smp", "2"]) as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        counts = []
        for _ in range(FILL_ROUNDS):
            pgid = start_background(g, "forkloop fill")
            wait_count(g, limit)
            deadline = time.monotonic() + 30
            while True:      # every one done forking: all asleep
                procs = forkloops(g)
                if all(s == "sleeping" for s in procs.values()) or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            counts.append(len(procs))
            g.command("kill -9 -%d" % pgid, timeout=120)
            t.check(not wait_no_forkloop(g), "fill round %d: every forkloop killed" % len(counts))
        t.check(counts and all(c == limit for c in counts),
                "-smp 2, %d rounds of every process forking until EAGAIN: exactly NPROC_MAX (%d) "
                "processes each time, never more" % (FILL_ROUNDS, limit), str(counts))
        pgid = start_background(g, "forkloop churn")
        samples = []
        for _ in range(CHURN_SAMPLES):
            samples.append(len(forkloops(g)))
            time.sleep(0.2)
        g.command("kill -9 -%d" % pgid, timeout=120)
        t.check(not wait_no_forkloop(g), "churn: every forkloop killed")
        t.check(max(samples) <= limit, "-smp 2, churn at the limit: ps never counts more than %d (%d samples, "
                "most %d)" % (limit, len(samples), max(samples)), str(samples))
        print("  reap: churn: ps counts %s" % samples)
        peak = read_int(g, "nr_processes_peak")
        t.check(peak == limit, "the kernel's peak process count (xp of nr_processes_peak) is NPROC_MAX, "
                "never more: %d" % peak)
        t.check(settled_free_pages(g, before) == before,
                "every page back after the rounds (PagesFree %d)" % before,
                "after: %d" % free_pages(g))
        no_oops(t, g, "")
