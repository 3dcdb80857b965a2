#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Keep the docs true: every ronx symbol docs/seed-map.md names must be
defined in the file it names; every lab in labs/ORDER that exists has a
handout docs/labs/<lab>.md whose symbols exist, whose relative links
resolve, and which lists each of the lab's graded checks; docs/redteam.md
has one row per red-team case with the outcomes tests/user/progs.py
expects; and, when this run's linux-check wrote
build/results/linux-vs-ronx.md, the tracked docs/linux-vs-ronx.md has its
sections and rows (the values change every run; `make docs` refreshes
them). Writes build/results/docs.ktap."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROW = re.compile(r"^\|[^|]*\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|")


def defines(path, name):
    """True if path defines name: a C function or variable at column 0, a
    #define, an asm label or nasm macro, or (linker scripts) a symbol or PHDRS block."""
    with open(path) as f:
        text = f.read()
    w = re.escape(name)
    patterns = [r"^(?:static\s+|extern\s+)?[A-Za-z_][^;\n]*\b%s\s*\(" % w,   # function
                r"^[A-Za-z_][^(\n]*\b%s\b[^(\n]*[;=\[]" % w,                 # variable
                r"^#define\s+%s\b" % w, r"^%s:" % w,                         # macro, label
                r"^%%macro\s+%s\b" % w,                                      # nasm macro
                r"^\s+[A-Za-z_][^(\n]*\b%s\s*[,;\[][^(\n]*;" % w,              # struct field
                r"^\s*%s\s*=" % w, r"^\s*%s\s*\{" % w, r"\b%s\s*=\s*\." % w]  # linker script
    return any(re.search(p, text, re.M) for p in patterns)


def rows(md):
    with open(md) as f:
        for line in f:
            m = ROW.match(line)
            if m and m.group(1) != "ronx file":
                yield m.group(1), m.group(2)


def labs():
    """The labs in labs/ORDER that have a directory (written so far)."""
    with open(os.path.join(ROOT, "labs", "ORDER")) as f:
        names = [ln.split("#")[0].strip() for ln in f]
    return [n for n in names if n and os.path.isdir(os.path.join(ROOT, "labs", n))]


def anchors(md):
    """The #anchors of md's headings, as GitHub makes them."""
    with open(md) as f:
        heads = re.findall(r"^#+\s+(.*)$", f.read(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def handout_problems(lab):
    """What is wrong with docs/labs/<lab>.md, as a list of lines."""
    doc = os.path.join(ROOT, "docs", "labs", lab + ".md")
    if not os.path.exists(doc):
        return ["docs/labs/%s.md: no handout for lab %s" % (lab, lab)]
    with open(doc) as f:
        text = f.read()
    bad = []
    for link, anchor in re.findall(r"\]\(([^)#:]+)(?:#([^)]*))?\)", text):
        target = os.path.join(os.path.dirname(doc), link)
        if not os.path.exists(target):
            bad.append("docs/labs/%s.md: link %s leads nowhere" % (lab, link))
        elif anchor and anchor not in anchors(target):
            bad.append("docs/labs/%s.md: %s has no heading #%s" % (lab, link, anchor))
    for c in lab_checks(lab):
        if "| %d | %s |" % (c.points, c.name) not in text:
            bad.append("docs/labs/%s.md: the graded check %r (%d points) is not listed"
                       % (lab, c.name, c.points))
    return bad


def lab_checks(lab):
    """The lab's checks as the grader loads them (labs/<lab>/checks.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lab as labtool
    return labtool.load_checks(lab)


def shape(text):
    """A Markdown document's headings and the first cell of each table row,
    outside code blocks: what stays when the measured values change."""
    out, code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            code = not code
        elif not code and re.match(r"^#+ ", line):
            out.append(line.strip())
        elif not code and line.startswith("|") and not re.match(r"^\|[-| :]+\|$", line):
            out.append("| " + line.split("|")[1].strip())
    return out


def generated_doc_problems():
    """docs/linux-vs-ronx.md against the one this run generated; None if
    linux-check did not write one."""
    fresh = os.path.join(ROOT, "build", "results", "linux-vs-ronx.md")
    if not os.path.exists(fresh):
        return None
    with open(fresh) as f:
        new = shape(f.read())
    with open(os.path.join(ROOT, "docs", "linux-vs-ronx.md")) as f:
        old = shape(f.read())
    missing = [x for x in new if x not in old]
    extra = [x for x in old if x not in new]
    bad = ["docs/linux-vs-ronx.md lacks: " + x for x in missing[:10]] + \
          ["docs/linux-vs-ronx.md has, the run did not: " + x for x in extra[:10]]
    if not bad and new != old:
        bad.append("docs/linux-vs-ronx.md has the run's rows in another order")
    return bad


def redteam_problems():
    """docs/redteam.md's table against tests/user/progs.py's REDTEAM."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "user"))
    import progs
    with open(os.path.join(ROOT, "docs", "redteam.md")) as f:
        text = f.read()
    bad = []
    for a in progs.REDTEAM:
        row = re.search(r"^\| `%s` \| [^\n]*$" % re.escape(a.case), text, re.M)
        if not row:
            bad.append("docs/redteam.md: no row for case %s" % a.case)
            continue
        cells = [c.strip() for c in row.group(0).strip("|").split(" | ")]
        want = [progs.redteam_outcome(a.ronx, "ronx"), progs.redteam_outcome(a.linux, "linux")]
        if cells[2:4] != want:
            bad.append("docs/redteam.md: case %s says %s, progs.py expects %s" % (a.case, cells[2:4], want))
    return bad


def main():
    out, n, failed = [], 0, 0
    docs = ["docs/seed-map.md"] + ["docs/labs/%s.md" % lab for lab in labs()
                                   if os.path.exists(os.path.join(ROOT, "docs", "labs", lab + ".md"))]
    for doc in docs:
        for path, name in rows(os.path.join(ROOT, doc)):
            n += 1
            full = os.path.join(ROOT, path)
            ok = os.path.exists(full) and defines(full, name)
            failed += not ok
            out.append("%sok %d %s names %s in %s" % ("" if ok else "not ", n, doc, name, path))
    for lab in labs():
        n += 1
        bad = handout_problems(lab)
        failed += bool(bad)
        out.append("%sok %d handout for lab %s" % ("not " if bad else "", n, lab))
        out += ["# " + b for b in bad]
    n += 1
    bad = redteam_problems()
    failed += bool(bad)
    out.append("%sok %d docs/redteam.md: one row per red-team case, outcomes as progs.py expects"
               % ("not " if bad else "", n))
    out += ["# " + b for b in bad]
    n += 1
    bad = generated_doc_problems()
    desc = "docs/linux-vs-ronx.md has the sections and rows of this run's table"
    if bad is None:
        out.append("ok %d %s # SKIP linux-check wrote no build/results/linux-vs-ronx.md" % (n, desc))
    else:
        failed += bool(bad)
        out.append("%sok %d %s%s" % ("not " if bad else "", n, desc, " (make docs refreshes it)" if bad else ""))
        out += ["# " + b for b in bad]
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "results", "docs.ktap"), "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (n, "\n".join(out)))
    for line in out:
        if line.startswith("not") or line.startswith("# "):
            print(line)
    print("docs: %d symbols checked, %d missing" % (n, failed))
    return 1 if failed or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
