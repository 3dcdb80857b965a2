#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Boot ronx in QEMU for every scenario in tests/qemu/test_*.py.

Each test_* function takes a Results and boots what it needs. A scenario
that raises is one failed check (with the guest's last output), and the
run goes on. Results go to build/results/qemu.ktap.

    tests/qemu/run.py               all of them
    tests/qemu/run.py image pci     only files/functions whose name has these
"""
import glob
import importlib
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from guest import BUILD  # noqa: E402
from results import Results, progress  # noqa: E402


def discover(filters):
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        mod = importlib.import_module(os.path.basename(path)[:-3])
        for name in sorted(n for n in dir(mod) if n.startswith("test_")):
            full = "%s.%s" % (mod.__name__, name)
            if not filters or any(f in full for f in filters):
                yield full, getattr(mod, name)


def main():
    results = Results()
    tests = list(discover(sys.argv[1:]))
    t0 = time.monotonic()
    for i, (name, fn) in enumerate(tests, 1):
        progress("[%d/%d] %s" % (i, len(tests), name))
        results.group = name.split(".", 1)[1][len("test_"):]
        try:
            fn(results)
        except Exception as e:  # a scenario that breaks is a failure, not a stop
            results.fail("scenario completed", "%s\n%s" % (e, traceback.format_exc(limit=3)))
    results.group = ""
    os.makedirs(os.path.join(BUILD, "results"), exist_ok=True)
    results.write(os.path.join(BUILD, "results", "qemu.ktap"))
    progress("qemu: %d scenarios in %.1fs, %d checks failed"
             % (len(tests), time.monotonic() - t0, results.failed))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
