# SPDX-License-Identifier: GPL-2.0-only
"""Appel and Li's virtual-memory primitives and lmbench's lat_sig rows
(user/bin/bench_appel.c), on ronx and on Debian's 6.1 686-pae in the same
QEMU: the same static binary, TSC cycles, medians.

make bench takes these rows through tools/bench_user.py (the same boots
as its other user rows; bench_appel is in tests/user/progs.py's BENCH).
Alone, for this part only:

    python3 tools/bench_appel.py [N]

boots ronx pti=on and pti=off and Linux default and pti=off mitigations=off
with a small initramfs that runs bench_appel N (default 1000) and nothing
else, progs.BENCH_REPEATS times in each boot (a row its lowest median, as
make bench), records the load average before each boot, prints the rows as
docs/bench.md's table and draws build/bench/appel.svg. The goal of every
row is ronx at half Linux's cycles or less, both pairs.

    python3 tools/bench_appel.py stages [N] [CMDLINE]

instead builds ronx with a signal's stage marks (make SIGSTAGES=on),
boots it once with `stagestat`, prints bench_appel's rows and the
kernel's own per-stage cycle counts of the faults, signals and returns
they made (kernel/stagestat.c), and builds ronx without them again.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "user"))
import progs  # noqa: E402

# (what the row measures, the name bench_appel prints before "min")
ROWS = (
    ("TRAP: a write to a read-only page, to its SIGSEGV handler and back", "trap"),
    ("PROT1+TRAP+UNPROT: mprotect one page, the fault, the handler's mprotect", "prot1+trap+unprot"),
    ("PROTN+TRAP+UNPROT: mprotect 100 pages, one fault, unprotect it", "protN+trap+unprot"),
    ("appel1: a random protected page; the handler protects one, unprotects it", "appel1"),
    ("appel2: protect 100 pages, fault on each in random order (per page)", "appel2"),
    ("lat_sig install: rt_sigaction", "lat_sig install"),
    ("lat_sig catch: kill(getpid(), SIGUSR1) to a handler", "lat_sig catch"),
    ("lat_sig prot: a SIGSEGV on a protected page, back to the same write", "lat_sig prot"),
)
GOAL = 0.5
KEY = "bench_appel"
OFF_PAIR, ON_PAIR = "ronx pti=off / Linux pti=off", "ronx pti=on / Linux default"


def ronx_run(g, n=1000):
    """bench_appel N in ronx guest g: its output."""
    return g.command("run bench_appel %d" % n, timeout=900)


def medians(text):
    """{row name: median} from bench_appel's lines."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^bench_appel: (.+?): min \d+ median (\d+) cycles", text or "", re.M)}


def lowest_medians(runs):
    """{row name: the lowest median of the repeats of bench_appel in one
    boot's runs} (tests/user/progs.py's BENCH_REPEATS)."""
    best = {}
    for text in progs.bench_outputs(runs, KEY):
        for name, v in medians(text).items():
            best[name] = min(v, best.get(name, v))
    return best


def rows(row, linux, ronx):
    """One row() each; returns the chart's rows. linux: {"default" |
    "pti=off mitigations=off": {key: output}}; ronx: {"pti=on" | "pti=off":
    {key: output} or None}."""
    lm = {label: lowest_medians(runs) for label, runs in linux.items()}
    rm = {label: lowest_medians(runs) for label, runs in ronx.items()}
    chart = []
    for title, name in ROWS:
        ld, lo = lm.get("default", {}).get(name), lm.get("pti=off mitigations=off", {}).get(name)
        on, off = rm.get("pti=on", {}).get(name), rm.get("pti=off", {}).get(name)
        ratios = {OFF_PAIR: off / lo if off and lo else None,
                  ON_PAIR: on / ld if on and ld else None}
        chart.append((title, ratios, GOAL))
        parts = ["%s: %s" % (label, "%d" % v if v else "not measured") for label, v in (
            ("Linux default", ld), ("Linux pti=off mitigations=off", lo),
            ("ronx pti=on", on), ("ronx pti=off", off))]
        parts += ["%s = %.2f" % (k.replace(" / ", "/"), r) for k, r in ratios.items() if r]
        got = [r for r in ratios.values() if r]
        verdict = "" if len(got) < 2 else "meets the goal" if max(got) <= GOAL else "short of the goal"
        row(title, "median TSC cycles: " + "; ".join(parts),
            "ronx(pti=off)/Linux(pti=off) and ronx(pti=on)/Linux(default) at most %.1f" % GOAL,
            "user/bin/bench_appel in the guest (rdtsc around each sample, the median); Linux "
            "booted with and without PTI, ronx with its shell's run, booted pti=on and pti=off",
            verdict)
    return chart


def linux_initrd(outdir, n):
    """A small initramfs: busybox, linux/init.sh, bench_appel and a RUN.appel
    that runs it BENCH_REPEATS times (linux/user-run.sh, ronx_user=appel)."""
    env = dict(l.strip().split("=", 1) for l in open(os.path.expanduser(
        "~/.cache/ronx/linux/fetch.env")) if "=" in l)
    d = os.path.join(outdir, "initrd-appel")
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("bin", "proc", "sys", "dev", "ubin"):
        os.makedirs(os.path.join(d, sub))
    shutil.copy(env["BUSYBOX"], os.path.join(d, "bin", "busybox"))
    shutil.copy(os.path.join(ROOT, "linux", "init.sh"), os.path.join(d, "init"))
    shutil.copy(os.path.join(ROOT, "linux", "user-run.sh"), os.path.join(d, "ubin", "run.sh"))
    shutil.copy(os.path.join(ROOT, "build", "user", "bin", KEY), os.path.join(d, "ubin", KEY))
    with open(os.path.join(d, "ubin", "RUN.appel"), "w") as f:
        for i in range(progs.BENCH_REPEATS):
            f.write("%s 0 - one %s %d\n" % (progs.bench_key(KEY, i), KEY, n))
    out = os.path.join(outdir, "initrd-appel.cpio.gz")
    subprocess.run("cd %s && find . | cpio -o -H newc --quiet | gzip -9 > %s" % (d, out),
                   shell=True, check=True)
    shutil.rmtree(d)
    return env["VMLINUZ"], out


def stages(n, cmdline):
    """One ronx boot with stagestat: bench_appel n, then the stages it went through."""
    make = ["make", "-C", ROOT, "-j2"]
    subprocess.run(make + ["SIGSTAGES=on"], check=True, stdout=subprocess.DEVNULL)
    try:
        stages_boot(n, cmdline)
    finally:
        subprocess.run(make, check=True, stdout=subprocess.DEVNULL)


def stages_boot(n, cmdline):
    from guest import Guest

    with Guest("bench appel stages", cmdline=(cmdline + " stagestat").strip()) as g:
        g.wait_ready()
        print("bench_appel: stages, ronx %s (load %s)" % (
            cmdline, open("/proc/loadavg").read().split()[0]), flush=True)
        g.command("stagestat")
        text = ronx_run(g, n)
        print("\n".join(l for l in text.splitlines() if "cycles" in l))
        print(g.command("stagestat").strip(), flush=True)
        g.poweroff()


def main():
    sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from guest import BUILD, Guest
    import bench_user
    import benchchart

    if sys.argv[1:2] == ["stages"]:
        stages(int(sys.argv[2]) if len(sys.argv) > 2 else 1000, " ".join(sys.argv[3:]))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    outdir = os.path.join(BUILD, "bench")
    os.makedirs(outdir, exist_ok=True)
    kernel, initrd = linux_initrd(outdir, n)
    loads = []
    linux, ronx = {}, {}
    for label, cmdline, name in bench_user.LINUX_BOOTS:
        loads.append(("Linux " + label, os.getloadavg()))
        linux[label] = bench_user.linux_runs(kernel, initrd, name + "-appel", cmdline, mode="appel")
    for label in bench_user.RONX_BOOTS:
        loads.append(("ronx " + label, os.getloadavg()))
        with Guest("bench appel " + label, cmdline=label) as g:
            g.wait_ready()
            ronx[label] = {progs.bench_key(KEY, i): ronx_run(g, n)
                           for i in range(progs.BENCH_REPEATS)}
            g.poweroff()
    table = []
    chart = rows(lambda *r: table.append(r), linux, ronx)
    print("bench_appel %d; load average (1, 5, 15 min) before each boot: %s" % (n, "; ".join(
        "%s %.2f %.2f %.2f" % ((label,) + l) for label, l in loads)))
    print("\n| what | measured | goal | verdict |\n|---|---|---|---|")
    for what, value, goal, _, verdict in table:
        print("| %s | %s | %s | %s |" % (what, value, goal, verdict))
    svg = benchchart.write(os.path.join(outdir, "appel.svg"), benchchart.ratio_svg(
        "Appel & Li, lat_sig: ronx's cycles over Linux's, same binary, same QEMU", chart,
        [OFF_PAIR, ON_PAIR]))
    print("bench_appel: the chart: %s" % svg)


if __name__ == "__main__":
    main()
