#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Keep the docs true: every ronx symbol docs/seed-map.md names must be
defined in the file it names. Writes build/results/docs.ktap."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROW = re.compile(r"^\|[^|]*\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|")


def defines(path, name):
    """True if path defines name: a C function or variable at column 0, a
    #define, an asm label, or (linker scripts) a symbol or PHDRS block."""
    with open(path) as f:
        text = f.read()
    w = re.escape(name)
    patterns = [r"^(?:static\s+|extern\s+)?[A-Za-z_][^;\n]*\b%s\s*\(" % w,   # function
                r"^[A-Za-z_][^(\n]*\b%s\b[^(\n]*[;=\[]" % w,                 # variable
                r"^#define\s+%s\b" % w, r"^%s:" % w,                         # macro, label
                r"^\s+[A-Za-z_][^(\n]*\b%s\s*[,;\[][^(\n]*;" % w,              # struct field
                r"^\s*%s\s*=" % w, r"^\s*%s\s*\{" % w, r"\b%s\s*=\s*\." % w]  # linker script
    return any(re.search(p, text, re.M) for p in patterns)


def rows(md):
    with open(md) as f:
        for line in f:
            m = ROW.match(line)
            if m and m.group(1) != "ronx file":
                yield m.group(1), m.group(2)


def main():
    out, n, failed = [], 0, 0
    for doc in ("docs/seed-map.md",):
        for path, name in rows(os.path.join(ROOT, doc)):
            n += 1
            full = os.path.join(ROOT, path)
            ok = os.path.exists(full) and defines(full, name)
            failed += not ok
            out.append("%sok %d %s names %s in %s" % ("" if ok else "not ", n, doc, name, path))
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "results", "docs.ktap"), "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (n, "\n".join(out)))
    for line in out:
        if line.startswith("not"):
            print(line)
    print("docs: %d symbols checked, %d missing" % (n, failed))
    return 1 if failed or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
