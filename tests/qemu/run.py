#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Boot ronx in QEMU for every scenario in tests/qemu/test_*.py.

Each test_* function takes a Results and boots what it needs. A scenario
that raises is one failed check (with the guest's last output), and the
run goes on. Results go to build/results/qemu.ktap (or $QEMU_KTAP there),
in the files' order whatever order they ran in.

    tests/qemu/run.py               all of them
    tests/qemu/run.py image pci     only files/functions whose name has these
    QEMU_JOBS=1 tests/qemu/run.py   one scenario file at a time
    QEMU_ALONE=only / skip          only the RUN_ALONE files / all but them

Scenario files run in parallel, one QEMU per CPU by default (each guest
has its own sockets and temporary directory); the scenarios of one file
run in order, in one worker. Files with a wall-clock bound run alone at
the end (RUN_ALONE).
"""
import glob
import importlib
import inspect
import multiprocessing
import os
import re
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from guest import BUILD  # noqa: E402
from results import Results, cpu_seconds, progress  # noqa: E402

# a file that reads what another one wrote runs after it, in its worker
RUNS_AFTER = {"test_ronx_checks_user": "test_peer"}
# files that assert a bound in wall-clock time (the "within 1 s")
# run alone, after the others, with no other guest competing for the CPU
RUN_ALONE = ("test_syscall_irq",)
# the longest files start first, so that the last one to finish is short
LONGEST_FIRST = ("test_matrix", "test_kaslr", "test_fork", "test_lab", "test_redteam", "test_smp",
                 "test_lifetimes", "test_fpu", "test_user")
TAP_LINE = re.compile(r"^(ok|not ok) \d+ ")


def discover(filters):
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        mod = importlib.import_module(os.path.basename(path)[:-3])
        for name in sorted(n for n in dir(mod) if n.startswith("test_")):
            fn = getattr(mod, name)
            # a scenario is a function of this file, not one it imported
            if not inspect.isfunction(fn) or fn.__module__ != mod.__name__:
                continue
            full = "%s.%s" % (mod.__name__, name)
            if not filters or any(f in full for f in filters):
                yield full, fn


def batches(tests):
    """[[(index, name)]]: one list per file, a file that depends on
    another appended to that one's list, longest files first."""
    by_file = {}
    for i, (name, _) in enumerate(tests):
        by_file.setdefault(name.split(".")[0], []).append((i, name))
    for later, first in RUNS_AFTER.items():
        if later in by_file and first in by_file:
            by_file[first] += by_file.pop(later)
    rank = {f: n for n, f in enumerate(LONGEST_FIRST)}
    order = sorted(by_file, key=lambda f: rank.get(f, len(rank)))
    return ([by_file[f] for f in order if f not in RUN_ALONE],
            [by_file[f] for f in order if f in RUN_ALONE])


def run_one(fn, name, results):
    results.group = name.split(".", 1)[1][len("test_"):]
    try:
        fn(results)
    except Exception as e:  # a scenario that breaks is a failure, not a stop
        results.fail("scenario completed", "%s\n%s" % (e, traceback.format_exc(limit=3)))


def run_batch(batch):
    """In a worker: each scenario of the batch, its KTAP lines apart, with
    its wall and CPU seconds."""
    tests = dict(_TESTS)
    out = []
    for i, name in batch:
        progress("[%d/%d] %s" % (i + 1, len(_TESTS), name))
        r = Results()
        t0, c0 = time.monotonic(), cpu_seconds()
        run_one(tests[name], name, r)
        out.append((i, r.lines, r.failed, (name, time.monotonic() - t0, cpu_seconds() - c0)))
    return out


def slowest(done, n=8):
    """The n scenarios that took longest: where the stage's time goes."""
    times = sorted((x[3] for x in done), key=lambda t: -t[1])
    return ", ".join("%s %.0fs (CPU %.0fs)" % (name.split(".", 1)[1], s, c)
                     for name, s, c in times[:n])


def merge(done, results):
    """The workers' lines, in the order of the files, numbered again."""
    for _, lines, failed, _ in sorted(done):
        for line in lines:
            m = TAP_LINE.match(line)
            if m:
                results.count += 1
                line = "%s %d %s" % (m.group(1), results.count, line[m.end():])
            results.lines.append(line)
        results.failed += failed


_TESTS = []


def background(sig):
    """make test builds the small Linux kernels beside this stage, at nice
    19, in the process group RONX_BACKGROUND_PGID: the files that assert
    wall-clock bounds (RUN_ALONE) run with it stopped (SIGSTOP, SIGCONT)."""
    pgid = int(os.environ.get("RONX_BACKGROUND_PGID") or 0)
    try:
        # still that build (its leader, make, lives as long as it does), not
        # a group that took its number since
        with open("/proc/%d/cmdline" % pgid, "rb") as f:
            if pgid > 1 and b"linux-small-kernels" in f.read() and os.getpgid(pgid) == pgid:
                os.killpg(pgid, sig)
    except (OSError, ValueError):
        pass


def main():
    _TESTS.extend(discover(sys.argv[1:]))
    jobs = int(os.environ.get("QEMU_JOBS") or os.cpu_count() or 1)
    results = Results()
    t0 = time.monotonic()
    # make test runs the RUN_ALONE files first, on the idle machine
    # (QEMU_ALONE=only), and the rest beside the labs (QEMU_ALONE=skip)
    which = os.environ.get("QEMU_ALONE", "")
    if which not in ("", "only", "skip"):
        sys.exit("tests/qemu/run.py: QEMU_ALONE is 'only' or 'skip' (or unset), not %r" % which)
    if which:
        _TESTS[:] = [x for x in _TESTS if (x[0].split(".")[0] in RUN_ALONE) == (which == "only")]
    work, alone = batches(_TESTS)
    if jobs > 1 and len(work) > 1:
        progress("qemu: %d scenarios in %d files, %d at a time (QEMU_JOBS=1: one at a time)"
                 % (len(_TESTS), len(work) + len(alone), jobs))
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            done = [x for out in pool.imap_unordered(run_batch, work) for x in out]
    else:
        done = [x for batch in work for x in run_batch(batch)]
    if alone:
        background(signal.SIGSTOP)
        try:
            done += [x for batch in alone for x in run_batch(batch)]
        finally:
            background(signal.SIGCONT)
    merge(done, results)
    os.makedirs(os.path.join(BUILD, "results"), exist_ok=True)
    # a second run in the same make test (linux-check's test_ronx_checks)
    # names its own file: it must not overwrite the qemu stage's results
    ktap = os.environ.get("QEMU_KTAP", "qemu.ktap")
    results.write(os.path.join(BUILD, "results", ktap))
    progress("qemu: the slowest scenarios: " + slowest(done))
    # every scenario's seconds and CPU, the costliest (in CPU) first
    with open(os.path.join(BUILD, "results", os.path.splitext(ktap)[0] + "-times.txt"), "w") as f:
        f.write("".join("%6.1f s  CPU %6.1f s  %s\n" % (s, c, name)
                        for name, s, c in sorted((x[3] for x in done), key=lambda t: -t[2])))
    progress("qemu: %d scenarios in %.1fs (CPU %.0fs), %d checks failed"
             % (len(_TESTS), time.monotonic() - t0, sum(x[3][2] for x in done), results.failed))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
