# SPDX-License-Identifier: GPL-2.0-only
"""make bench, interrupts in system calls (issue 20, item 4): how long a
user at the console waits for Ctrl-C, or a typed `kill PID`, to end a
process in the middle of one 1 MiB write() of newlines, and what turning
interrupts on in every system call costs a getpid() round trip.

- Ctrl-C / kill: user/bin/bigwrite 1048576, stopped 0.3 s into its write;
  the host's wall clock from sending the keys to QEMU's serial port to the
  shell's status line (tests/qemu/bigwrite.py), median of 5, on 1 and on
  2 CPUs. The kernel before this work (BEFORE, built from git into
  build/bench/before-irq, booted with today's initrd) is given 30 s.
- getpid: user/bin/bench_getpid 100000, median TSC cycles, this kernel
  and the one before, one CPU each, three boots of each, alternated.
"""
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import BUILD, Guest  # noqa: E402
import bigwrite  # noqa: E402
from bench_tree import build_tree_at  # noqa: E402

BEFORE = "4ed76d4"      # main before system calls ran with interrupts on
MIB = 1 << 20
GETPID = re.compile(r"getpid round trip: min (\d+) median (\d+) cycles")


def build_before():
    """build/bench/before-irq/build/kernel.elf: the kernel at BEFORE, or None."""
    built = build_tree_at(BEFORE, "before-irq", ["build/kernel.elf"])
    return built[0] if built else None


def guest(name, ncpus, kernel=None):
    g = Guest(name, extra=["-smp", str(ncpus)])
    if kernel:
        g.kernel = kernel
    return g


def stops(ncpus, runs, kernel=None, give_up=None):
    """[Ctrl-C Stop], [kill Stop]: runs of each, each kind on a boot of its own
    (a kernel that never ends the write would leave it writing)."""
    res = []
    for kind in (bigwrite.ctrl_c, bigwrite.kill):
        with guest("bench irq smp%d %s%s" % (ncpus, kind.__name__, " before" if kernel else ""),
                   ncpus, kernel) as g:
            g.wait_ready()
            done = []
            for _ in range(runs):
                done.append(kind(g, MIB, give_up=give_up))
                if not done[-1].status.startswith("killed"):
                    break       # still writing: the next run would wait for it
            res.append(done)
    return res


def ms(stops_):
    if not stops_:
        return "not measured"
    stuck = [s for s in stops_ if not s.status.startswith("killed")]
    if stuck:
        return "no status line within %.0f s: it was still writing" % stuck[0].seconds
    done = [s.seconds for s in stops_]
    return "%.0f ms (median of %d: %s)" % (statistics.median(done) * 1000, len(done),
                                          ", ".join("%.0f" % (s * 1000) for s in done))


def getpid_cycles(kernel=None):
    with guest("bench irq getpid%s" % (" before" if kernel else ""), 1, kernel) as g:
        g.wait_ready()
        m = GETPID.search(g.command("run bench_getpid 100000", timeout=300))
        g.poweroff()
    return int(m.group(2)) if m else None


def rows(row, runs=5):
    now = {n: stops(n, runs) for n in (1, 2)}
    before = build_before()
    old = stops(1, 1, before, give_up=30) if before else ([], [])
    for i, (what, signal) in enumerate((("Ctrl-C", "SIGINT"), ("kill PID typed at the shell", "SIGKILL"))):
        row("%s to the status line, during one 1 MiB write()" % what,
            "1 CPU: %s; 2 CPUs: %s; before this work (%s), 1 CPU: %s" % (
                ms(now[1][i]), ms(now[2][i]), BEFORE, ms(old[i]) if before else "not built"),
            "within 1 s (issue 20)",
            "user/bin/bigwrite 1048576 %sstopped 0.3 s into its write by %s; host wall clock "
            "from the keys sent to QEMU's serial port to '[PID] bigwrite: killed by %s' "
            "(tests/qemu/bigwrite.py), -smp 1 and 2" % (
                "" if i == 0 else "& (background) ", what, signal),
            "meets the goal" if all(s.status.startswith("killed") and s.seconds <= 1.0
                                    for n in (1, 2) for s in now[n][i]) else "short of the goal")
    # alternated, three boots each: under TCG the machine's load moves these
    pairs = [(getpid_cycles(), getpid_cycles(before) if before else None) for _ in range(3)]
    now_c = [a for a, _ in pairs if a]
    old_c = [b for _, b in pairs if b]
    ratio = ("; now/before = %.2f (medians)" % (statistics.median(now_c) / statistics.median(old_c))
             if now_c and old_c else "")
    row("getpid round trip with interrupts on in system calls",
        "median TSC cycles, three boots each: now %s; before this work (%s): %s%s" % (
            ", ".join(map(str, now_c)) or "not measured", BEFORE,
            ", ".join(map(str, old_c)) or "not measured", ratio),
        "(measured: what the sti/cli pair costs)",
        "user/bin/bench_getpid 100000 on one CPU, the same initrd, this kernel and the one "
        "at %s, boots alternated" % BEFORE)


if __name__ == "__main__":
    def show(what, value, goal, method, verdict=""):
        print("| %s | %s | %s | %s | %s |" % (what, value, goal, verdict, method), flush=True)
    rows(show)
