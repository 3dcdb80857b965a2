#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Count the results of every build/results/*.ktap, one row per stage with
its wall time (build/results/NAME.seconds, written by make test around
each stage; "-" where a stage ran inside another: qemu-ronx-checks in
linux); then every failed test by name, so that the last lines of a long
run (all a CI page may keep) say what broke; then the whole run's wall
time (build/results/started, written when make test began). The last
line printed is
'N passed, N failed, N skipped'. Exits non-zero if anything failed."""
import glob
import os
import re
import sys
import time

LINE = re.compile(r"^\s*(not )?ok \d+ .*?(#\s*SKIP.*)?$")


def count(path, failures):
    """Counts path's results; appends each failed line to failures."""
    passed = failed = skipped = 0
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            if m.group(1):
                failed += 1
                failures.append(line.strip())
            elif m.group(2):
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def number(path):
    """The number in the file at path, or None."""
    try:
        with open(path) as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def seconds(path):
    """'Ns' from the file at path (make test's stage times), or '-'."""
    n = number(path)
    return "-" if n is None else "%ds" % round(n)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "build/results"
    files = sorted(glob.glob(os.path.join(folder, "*.ktap")))
    total = [0, 0, 0]
    failures = []
    for path in files:
        stage = os.path.basename(path)[:-5]
        mine = []
        p, f, s = count(path, mine)
        print("%-16s %5d passed, %d failed, %d skipped  %6s" % (
            stage, p, f, s, seconds(path[:-5] + ".seconds")))
        failures += ["%s: %s" % (stage, line) for line in mine]
        total = [total[0] + p, total[1] + f, total[2] + s]
    for line in failures:
        print("failed: %s" % line[:300])
    if not files:
        print("no results found in %s" % folder)
        total[1] = 1
    began = number(os.path.join(folder, "started"))
    if began is not None:
        print("make test: %ds of wall time so far" % round(time.time() - began))
    print("%d passed, %d failed, %d skipped" % tuple(total))
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main())
