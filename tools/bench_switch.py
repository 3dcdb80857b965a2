# SPDX-License-Identifier: GPL-2.0-only
"""tools/bench_switch.py [ROUNDS]: the context-switch and fault rows of
`make bench` alone (issue 31), quickly: sched_yield alone and in a
ping-pong (bench_yield pair: parent and child on one CPU, each counting
the yields that alternated), and bench_fork's fault rows, on Debian's 6.1 686-pae
(pti=off mitigations=off, then its default) and on ronx (pti=off, then
pti=on), the four boots interleaved in each round, the same
user/bin/bench_* binaries. `tools/bench_switch.py stages [CMDLINE]`
instead boots ronx once with `stagestat` and prints the kernel's own
per-stage cycle counts (kernel/stagestat.c) after each benchmark.

The Linux guest's initramfs is made here (busybox, linux/init.sh,
linux/user-run.sh, the bench programs and a RUN.bench of these rows
only), from the Debian tree `make linux-fetch` unpacks; no small
kernels are built. Prints one table per round and the load average at
each boot's start, and draws each round's ratios (each row the lowest
median of its progs.BENCH_REPEATS repeats in the boot, as make bench)
(build/bench/switch/roundN.svg, tools/benchchart.py). Numbers only: it
asserts nothing.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "linux"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import BUILD, Guest  # noqa: E402
import bench_user  # noqa: E402
import benchchart  # noqa: E402

CACHE = os.environ.get("RONX_LINUX_CACHE", os.path.expanduser("~/.cache/ronx/linux"))
OUT = os.path.join(BUILD, "bench", "switch")
# key, program, arguments, "one" or "cpu0" (linux/user-run.sh's list format)
RUNS = (("bench_getpid", "bench_getpid", "100000", "one"),
        ("bench_yield-alone", "bench_yield", "20000", "one"),
        (bench_user.PAIR_KEY, "bench_yield", "pair 20000", "cpu0"),
        ("bench_fork", "bench_fork", "200", "one"))
ROWS = (("getpid round trip", "bench_getpid", None),
        ("sched_yield alone", "bench_yield-alone", None),
        ("sched_yield ping-pong (2 switches + 2 calls)", bench_user.PAIR_KEY, None),
        ("first-touch read fault", "bench_fork", "first-touch read"),
        ("first-touch write fault", "bench_fork", "first-touch write"),
        ("copy-on-write fault", "bench_fork", "cow fault"))
# each ratio of the chart: ronx's boot over Linux's
PAIRS = {bench_user.OFF_PAIR: ("ronx pti=off", "Linux pti=off"),
         bench_user.ON_PAIR: ("ronx pti=on", "Linux default")}
# the goals where they are not 1.0: getpid at most half Linux's pti=off
GOALS = {"bench_getpid": {bench_user.OFF_PAIR: 0.5}}


def linux_initrd():
    """build/bench/switch/initrd.cpio.gz: the bench rows for linux/user-run.sh."""
    roots = glob.glob(os.path.join(CACHE, "root-*"))
    kernels = glob.glob(os.path.join(CACHE, "root-*", "boot", "vmlinuz-*-686-pae"))
    if not roots or not kernels:
        sys.exit("bench_switch: no Debian tree in %s (make linux-fetch)" % CACHE)
    os.makedirs(OUT, exist_ok=True)
    d = tempfile.mkdtemp(prefix="ronx-bench-initrd-")
    try:
        for sub in ("bin", "proc", "sys", "dev", "ubin"):
            os.makedirs(os.path.join(d, sub))
        shutil.copy(os.path.join(roots[0], "bin", "busybox"), os.path.join(d, "bin"))
        shutil.copy(os.path.join(ROOT, "linux", "init.sh"), os.path.join(d, "init"))
        shutil.copy(os.path.join(ROOT, "linux", "user-run.sh"), os.path.join(d, "ubin", "run.sh"))
        for prog in sorted({r[1] for r in RUNS}):
            shutil.copy(os.path.join(BUILD, "user", "bin", prog), os.path.join(d, "ubin"))
        with open(os.path.join(d, "ubin", "RUN.bench"), "w") as f:
            for i in range(bench_user.progs.BENCH_REPEATS):
                for key, prog, args, how in RUNS:
                    f.write("%s 0 - %s %s %s\n" % (bench_user.progs.bench_key(key, i), how, prog,
                                                   args))
        out = os.path.join(OUT, "initrd.cpio.gz")
        subprocess.run("find . | cpio -o -H newc --quiet | gzip -1 > %s" % out,
                       shell=True, cwd=d, check=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return kernels[0], out


def ronx(cmdline):
    out = {}
    with Guest("bench switch " + cmdline, cmdline=cmdline) as g:
        g.wait_ready()
        for i in range(bench_user.progs.BENCH_REPEATS):
            key = lambda k: bench_user.progs.bench_key(k, i)  # noqa: E731
            out[key("bench_getpid")] = g.command("run bench_getpid 100000", timeout=300)
            out[key("bench_yield-alone")] = g.command("run bench_yield 20000", timeout=300)
            out[key(bench_user.PAIR_KEY)] = bench_user.ronx_yield_pair(g)
            out[key("bench_fork")] = g.command("run bench_fork 200", timeout=600)
        g.poweroff()
    return out


def load():
    return open("/proc/loadavg").read().split()[0]


def main():
    if sys.argv[1:2] == ["stages"]:
        stages(" ".join(sys.argv[2:]))
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    kernel, initrd = linux_initrd()
    boots = (("Linux pti=off", "pti=off mitigations=off"), ("ronx pti=off", "pti=off"),
             ("Linux default", ""), ("ronx pti=on", "pti=on"))
    for r in range(rounds):
        res, loads = {}, {}
        for label, cmdline in boots:
            loads[label] = load()
            print("bench_switch: round %d: %s (load %s)" % (r + 1, label, loads[label]), flush=True)
            if label.startswith("Linux"):
                res[label] = bench_user.linux_runs(kernel, initrd,
                                                   "switch-" + ("nopti" if cmdline else "default"),
                                                   cmdline)
            else:
                res[label] = ronx(cmdline)
        print("\nround %d, load average at each boot's start: %s" % (
            r + 1, ", ".join("%s %s" % kv for kv in loads.items())))
        print("| what | %s | ronx/Linux pti=off | ronx pti=on/Linux default |" %
              " | ".join(b[0] for b in boots))
        print("|---|" + "---|" * (len(boots) + 2))
        chart = []
        for title, key, what in ROWS:
            v = {b[0]: bench_user.cell(res[b[0]], key, what) for b in boots}
            ratios = {s: v[a] / v[b] if v[a] and v[b] else None for s, (a, b) in PAIRS.items()}
            print("| %s | %s | %s |" % (
                title, " | ".join(str(v[b[0]]) for b in boots),
                " | ".join("%.2f" % r if r else "-" for r in ratios.values())))
            chart.append((title, ratios, GOALS.get(key)))
        # the ping-pong's median is a row only where this count is near 1
        print("| ping-pong: yields that came back after the other copy ran | %s | | |" % " | ".join(
            "%d/%d" % a if a else "no count"
            for a in (bench_user.alternation(res[b[0]].get(bench_user.PAIR_KEY)) for b in boots)))
        svg = os.path.join(OUT, "round%d.svg" % (r + 1))
        benchchart.write(svg, benchchart.ratio_svg(
            "Context switch and faults, round %d: ronx's cycles over Linux's (load %s)"
            % (r + 1, ", ".join(loads.values())), chart, list(PAIRS)))
        print("bench_switch: the chart: %s\n" % svg, flush=True)


def stages(cmdline):
    """One ronx boot with stagestat: each benchmark, then the stages it went through."""
    with Guest("bench stages", cmdline=(cmdline + " stagestat").strip()) as g:
        g.wait_ready()
        print("bench_switch: stages, ronx %s (load %s)" % (cmdline, load()), flush=True)
        g.command("stagestat")
        for what, cmd in (("sched_yield alone", "run bench_yield 20000"),
                          ("sched_yield ping-pong", None),
                          ("bench_fork (fork+exit+wait, cow, first-touch write, read)",
                           "run bench_fork 200")):
            text = g.command(cmd, timeout=600) if cmd else bench_user.ronx_yield_pair(g)
            print("\n%s:\n%s\n%s" % (what, "\n".join(l for l in text.splitlines()
                                                     if "cycles" in l),
                                        g.command("stagestat").strip()), flush=True)
        g.poweroff()


if __name__ == "__main__":
    main()
