#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Count the results of every build/results/*.ktap; the last line printed is
'N passed, N failed, N skipped'. Exits non-zero if anything failed."""
import glob
import os
import re
import sys

LINE = re.compile(r"^\s*(not )?ok \d+ .*?(#\s*SKIP.*)?$")


def count(path):
    passed = failed = skipped = 0
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            if m.group(1):
                failed += 1
            elif m.group(2):
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "build/results"
    files = sorted(glob.glob(os.path.join(folder, "*.ktap")))
    total = [0, 0, 0]
    for path in files:
        p, f, s = count(path)
        print("%-12s %4d passed, %d failed, %d skipped" % (os.path.basename(path)[:-5], p, f, s))
        total = [total[0] + p, total[1] + f, total[2] + s]
    if not files:
        print("no results found in %s" % folder)
        total[1] = 1
    print("%d passed, %d failed, %d skipped" % tuple(total))
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main())
