# SPDX-License-Identifier: GPL-2.0-only
"""make bench, user mode: what a system call, a context switch and a
spawn cost, on ronx and on Debian's Linux in the same QEMU (TCG, the
same CPU model), with the same binaries (user/bin/bench_*), in one run.

Every number is TSC cycles counted inside the guest (under TCG the
guest's rdtsc reads the host's counter), the median of many samples:

- system call: bench_getpid, getpid() round trips;
- context switch: bench_yield pair, a parent and its child yielding in
  turn on one CPU (SCHED_FIFO on Linux, ronx's round robin), so one call
  costs two switches and two system calls; each copy counts the yields
  that came back after one yield of the other, and the row's median
  counts only when nearly all did on both sides (bench_yield alone: the
  call with no one to switch to);
- spawn-to-exit: bench_spawn (vfork, execve, wait4 of a program that
  exits at once), on both kernels;
- fork: bench_fork, a fork+exit+wait round trip, one copy-on-write fault
  (the parent's first write to a page it shares with a sleeping child),
  and one first-touch fault of an anonymous page (a write: a new frame; a
  read: the zero page).

Linux boots twice: its default command line (page-table isolation on,
a CR3 switch on every kernel entry and exit) and pti=off mitigations=off.
ronx boots twice too, pti=on (its default on qemu32) and pti=off: each
row gives both, ronx(pti=on)/ronx(pti=off) (what PTI's two CR3 writes
per entry/exit cost: 32-bit x86 has no PCID, so each write flushes the
whole TLB, and ronx clears CR4.PGE while PTI is on, so the kernel's own
entries go too), ronx(pti=off)/Linux(pti=off) and, the issue's goal for
getpid, ronx(pti=on)/Linux(default).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "linux"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import BUILD, Guest  # noqa: E402
import user as linux_user  # noqa: E402
import progs  # noqa: E402
import benchchart  # noqa: E402
import bench_appel  # noqa: E402

# (label, command line, boot name)
LINUX_BOOTS = (("default", "", "bench-default"),
               ("pti=off mitigations=off", "pti=off mitigations=off", "bench-nopti"))
# "bench_getpid: getpid round trip: min 1113 median 1197 cycles", and the
# same "min N median M cycles" at the end of ronx's "run -n" summary
LINE = re.compile(r"^(.*?)min (\d+) median (\d+) cycles", re.M)


def medians(text):
    """[(what, median)] from the lines that report min and median cycles."""
    return [(m.group(1), int(m.group(3))) for m in LINE.finditer(text)]


def linux_runs(kernel, initrd, name, cmdline, mode="bench"):
    """The bench runs (tests/user/progs.py's BENCH, or the initramfs's
    RUN.mode) in Debian's guest."""
    outdir = os.path.join(BUILD, "bench", "linux-user")
    subprocess.run([sys.executable, os.path.join(ROOT, "linux", "boot.py"), "--user",
                    "--name", name, "--kernel", kernel, "--initrd", initrd,
                    "--append", (cmdline + " ronx_user=" + mode).strip(), "--outdir", outdir],
                   check=False)
    text, _ = linux_user.read_boot(outdir, name)
    return {k: r.output for k, r in linux_user.parse(text).items()}


RONX_BOOTS = ("pti=on", "pti=off")
# the chart's two ratios (tools/benchchart.py); getpid's goal with PTI off is 0.5 (issue 31)
OFF_PAIR, ON_PAIR = "ronx pti=off / Linux pti=off", "ronx pti=on / Linux default"


PAIR_KEY = "bench_yield-pair"
# each copy's "...; 19998 of 20000 came back after one yield of the other copy"
ALTERNATED = re.compile(r"(\d+) of (\d+) came back after one yield of the other copy")
# the ping-pong's median is a switch's cost only if (nearly) every yield switched
MIN_ALTERNATION = 0.95


def ronx_yield_pair(g, n=20000):
    """bench_yield's ping-pong in guest g: both copies' lines (the child's first)."""
    return g.command("run bench_yield pair %d" % n, timeout=600)


def alternation(text):
    """(yields that came back after one of the other copy's, yields), both
    copies of the ping-pong together; None without both copies' counts."""
    got = ALTERNATED.findall(text or "")
    if len(got) != 2:
        return None
    return sum(int(a) for a, _ in got), sum(int(n) for _, n in got)


def alternated(runs):
    """Whether the ping-pong in runs switched on (nearly) every yield."""
    a = alternation(runs.get(PAIR_KEY)) if runs else None
    return bool(a) and a[0] >= MIN_ALTERNATION * a[1]


def ronx_runs(cmdline=""):
    """The same runs on ronx, through its shell (None: no user mode yet)."""
    out = {}
    with Guest("bench user " + cmdline, cmdline=cmdline) as g:
        g.wait_ready()
        if not re.search(r"^\s+run ", g.command("help"), re.M):
            g.poweroff()
            return None
        # the whole list over again each time, as in Linux's RUN.bench
        for i in range(progs.BENCH_REPEATS):
            print("bench: ronx %s, round %d of %d" % (cmdline, i + 1, progs.BENCH_REPEATS),
                  flush=True)
            key = lambda k: progs.bench_key(k, i)  # noqa: E731
            out[key("bench_getpid")] = g.command("run bench_getpid 100000", timeout=300)
            out[key("bench_yield-alone")] = g.command("run bench_yield 20000", timeout=300)
            out[key("bench_yield-pair")] = ronx_yield_pair(g)
            out[key("bench_spawn")] = g.command("run bench_spawn 1000 /bin/true", timeout=600)
            out[key("bench_fork")] = g.command("run bench_fork 200", timeout=600)
            out[key(bench_appel.KEY)] = bench_appel.ronx_run(g)
        if re.search(r"^\s+cr3bench ", g.command("help"), re.M):
            out["cr3bench"] = g.command("cr3bench", timeout=300)
        g.poweroff()
    return out


def cell_once(text, key, what=None):
    """The median of one run's output (the mean of the two copies' medians
    for the ping-pong, None unless it alternated)."""
    if key == PAIR_KEY and not alternated({PAIR_KEY: text}):
        return None
    vals = [med for w, med in medians(text) if what is None or what in w]
    return sum(vals) // len(vals) if vals else None


def cell(runs, key, what=None):
    """A row's reading: the lowest of its repeats' medians (the host's
    slow phases only ever add: progs.BENCH_REPEATS)."""
    vals = [v for v in (cell_once(t, key, what) for t in progs.bench_outputs(runs, key)) if v]
    return min(vals) if vals else None


def rows(row, kernel, initrd):
    linux = {label: linux_runs(kernel, initrd, name, cmdline)
             for label, cmdline, name in LINUX_BOOTS} if kernel and os.path.exists(initrd) else {}
    ronx = {label: ronx_runs(label) for label in RONX_BOOTS}
    chart = []
    for title, key, what, goal in (
            ("system call (getpid round trip)", "bench_getpid", "getpid round trip", True),
            ("sched_yield alone (no switch)", "bench_yield-alone", None, False),
            ("sched_yield ping-pong, parent and child alternating on one CPU "
             "(2 switches + 2 calls)", PAIR_KEY, None, False),
            ("spawn-to-exit of a program that exits at once", "bench_spawn", None, True),
            ("fork+exit+wait round trip", "bench_fork", "fork+exit+wait", True),
            ("one copy-on-write fault (a 4K copy)", "bench_fork", "cow fault", False),
            ("one first-touch write fault (a new zeroed frame)", "bench_fork", "first-touch write", False),
            ("one first-touch read fault (the zero page)", "bench_fork", "first-touch read", False)):
        lv = {label: cell(runs, key, what) for label, runs in linux.items()}
        rv = {label: cell(runs, key, what) for label, runs in ronx.items()}
        parts = ["Linux %s: %s" % (label, "%d" % v if v else "not measured") for label, v in lv.items()]
        if key == PAIR_KEY:
            parts.append("yields that came back after the other copy ran: " + alternation_note(
                [("Linux " + k, v) for k, v in linux.items()] +
                [("ronx " + k, v) for k, v in ronx.items()]))
        for label, runs in ronx.items():
            if runs is None:
                parts.append("ronx %s: not measured (this kernel has no run command)" % label)
            elif rv[label] is None:
                parts.append("ronx %s: not measured (%s)" % (label,
                             "`run -n` prints no cycle count" if key == "bench_spawn" else
                             "did not alternate" if key == PAIR_KEY else "no reading"))
            else:
                parts.append("ronx %s: %d" % (label, rv[label]))
        on, off = rv.get("pti=on"), rv.get("pti=off")
        if on and off:
            parts.append("ronx pti=on/pti=off = %.2f" % (on / off))
        base = lv.get("pti=off mitigations=off")
        verdict = ""
        chart.append((title, {OFF_PAIR: off / base if off and base else None,
                              ON_PAIR: on / lv["default"] if on and lv.get("default") else None},
                      {OFF_PAIR: 0.5} if key == "bench_getpid" else None))
        if off and base:
            parts.append("ronx(pti=off)/Linux(pti=off) = %.2f" % (off / base))
        if on and lv.get("default"):
            ratio = on / lv["default"]
            parts.append("ronx(pti=on)/Linux(default) = %.2f" % ratio)
            if goal:
                verdict = "meets the goal" if ratio <= 1 else "short of the goal"
        row(title, "median TSC cycles: " + "; ".join(parts),
            "ronx with PTI no slower than Linux's default (PTI on)" if goal else
            "(measured, no goal)",
            "user/bin/%s in the guest, rdtsc around each call; Linux booted with and without "
            "PTI from build/linux/initrd-user.cpio.gz (linux/user-run.sh, ronx_user=bench), "
            "ronx with its shell's run, booted pti=on and pti=off" % key.split("-")[0], verdict)
    # Appel and Li's rows and lat_sig's, from the same boots (tools/bench_appel.py)
    chart += bench_appel.rows(row, linux, ronx)
    svg = benchchart.write(os.path.join(BUILD, "bench", "user.svg"), benchchart.ratio_svg(
        "User mode: ronx's cycles over Linux's, same binaries, same QEMU", chart,
        [OFF_PAIR, ON_PAIR]))
    print("bench: the chart of these rows: %s" % svg, flush=True)
    cr3 = [CR3BENCH.search(runs.get("cr3bench", "")) for runs in ronx.values() if runs]
    cr3 = [m.groups() for m in cr3 if m]
    row("one CR3 write, and the refill after it (ronx)",
        "; ".join("%s cycles (min %s), then %s cycles per page touched" % (c[0], c[1], c[2])
                  for c in cr3) if cr3 else "not measured (no cr3bench)",
        "(measured, no goal): what PTI adds twice per system call",
        "the shell's cr3bench in each ronx boot: write_cr3(read_cr3()) timed 1000 times; 16 pages "
        "of the direct map read warm and right after a CR3 write, the difference per page")


def alternation_note(boots):
    """'Linux default 40000/40000, ...' for [(boot, runs)]: the ping-pong's
    alternation count in each boot (the row's median needs it)."""
    notes = []
    for label, runs in boots:
        a = alternation(runs.get(PAIR_KEY)) if runs else None
        notes.append("%s %s" % (label, "%d/%d" % a if a else "no count"))
    return ", ".join(notes)


CR3BENCH = re.compile(r"cr3bench: one CR3 write: (\d+) cycles \(min (\d+)\);.*?: (\d+) per page refilled")


