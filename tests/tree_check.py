#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make test leaves the tree as it found it: `snapshot` records what git
sees before the run (every changed, deleted or untracked file that
.gitignore does not cover, with a hash of its contents), `compare` takes
the same reading after the run and writes one KTAP line, `not ok` with
the list of files if any tracked file changed or a new untracked file
appeared. It compares before with after, so a tree that was already dirty
is judged by what the run did to it. Regenerated documents change only
with `make docs`.

    tests/tree_check.py snapshot build/tree-before.json
    tests/tree_check.py compare build/tree-before.json build/results/tree.ktap
"""
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(*args):
    return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True)


def reading():
    """{path: (status, content hash)} of what is not clean, or None outside a git tree."""
    if git("rev-parse", "--is-inside-work-tree").stdout.strip() != b"true":
        return None
    out = git("status", "--porcelain=v1", "-z", "--untracked-files=all").stdout.decode()
    entries, fields, i = {}, out.split("\0"), 0
    while i < len(fields):
        f = fields[i]
        i += 1
        if len(f) < 4:
            continue
        status, path = f[:2], f[3:]
        if status[0] in "RC":   # a rename names its source next
            i += 1
        full = os.path.join(ROOT, path)
        digest = "absent"
        if os.path.isfile(full):
            with open(full, "rb") as fh:
                digest = hashlib.sha1(fh.read()).hexdigest()
        entries[path] = [status, digest]
    return entries


def changes(before, after):
    """What the run did: ["path (how)"]."""
    out = []
    for path in sorted(set(before) | set(after)):
        b, a = before.get(path), after.get(path)
        if b == a:
            continue
        if b is None:
            how = "new, untracked" if a[0] == "??" else "changed"
        elif a is None:
            how = "removed" if b[0] == "??" else "restored to the committed version"
        else:
            how = "changed again"
        out.append("%s (%s)" % (path, how))
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        with open(sys.argv[2], "w") as f:
            json.dump(reading(), f)
        return 0
    if len(sys.argv) != 4 or sys.argv[1] != "compare":
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        before = json.load(f)
    after = reading()
    desc = "make test left the tree as it found it (git status before and after)"
    if before is None or after is None:
        lines = ["ok 1 %s # SKIP not a git work tree" % desc]
    else:
        diff = changes(before, after)
        lines = ["ok 1 %s, %d path(s) already dirty" % (desc, len(before))] if not diff else \
            ["not ok 1 %s" % desc,
             "# changed by the run (make docs regenerates documents; tests write under build/):"] + \
            ["#   " + d for d in diff]
    with open(sys.argv[3], "w") as f:
        f.write("KTAP version 1\n1..1\n" + "\n".join(lines) + "\n")
    print("\n".join("tree: " + l for l in lines))
    return 0 if lines[0].startswith("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
