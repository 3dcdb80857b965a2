# SPDX-License-Identifier: GPL-2.0-only
"""Run docs/lab.md: every `ronx>` command in its console blocks, in order,
booting as its `<!-- lab: boot ... -->` markers say, and check that every
line shown under a command appears in what ronx printed (`...` is a
wildcard, runs of spaces match any spacing). `(boot)` checks the boot log."""
import os
import re

from guest import ROOT, Guest

BOOT = re.compile(r"<!-- lab: boot ?(.*?) -->")
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def steps(text):
    """[(cmdline or None, [(command, [expected lines])])] in document order."""
    out, pos, boot = [], 0, None
    for m in BLOCK.finditer(text):
        marks = BOOT.findall(text, pos, m.start())
        if marks:
            boot = marks[-1].strip()
        cmds = []
        for line in m.group(1).splitlines():
            if line.startswith("ronx> ") or line == "(boot)":
                cmds.append((line[len("ronx> "):] if line != "(boot)" else None, []))
            elif line.strip() and cmds:
                cmds[-1][1].append(line)
        out.append((boot if marks else None, cmds))
        pos = m.end()
    return out


def pattern(line):
    parts = [re.escape(p) for p in line.strip().split("...")]
    rx = ".*".join(parts)
    return re.compile(re.sub(r"(\\ )+", r"\\s+", rx))


def test_lab(t):
    text = open(os.path.join(ROOT, "docs", "lab.md")).read()
    g = log = None
    try:
        for boot, cmds in steps(text):
            if boot is not None or g is None:
                if g:
                    g.close()
                g = Guest("lab " + (boot or "default"), cmdline=boot or "")
                g.start()
                log = g.wait_ready()
            for cmd, expected in cmds:
                out = log if cmd is None else g.command(cmd, timeout=60)
                missing = [e for e in expected if not pattern(e).search(out)]
                t.check(not missing, "lab [%s] %s" % (boot or "default", cmd or "(boot)"),
                        "missing %s in:\n%s" % (missing, out[-800:]))
    finally:
        if g:
            g.close()
