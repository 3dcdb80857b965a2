# SPDX-License-Identifier: GPL-2.0-only
"""Run docs/lab.md: every `ronx>` command in its console blocks, in order,
booting as its `<!-- lab: boot ... -->` markers say, and check that every
line shown under a command appears in what ronx printed (`...` is a
wildcard, runs of spaces match any spacing). `(boot)` checks the boot log.

docs/lab.md shows the default boot, kaslr off (the README says why): under
RONX_BOOT_EXTRA=kaslr the lines that show a kernel-half address are skipped
with that reason; every command still runs, its other lines checked."""
import os
import re

from guest import ROOT, Guest, skip_under_boot_extra

BOOT = re.compile(r"<!-- lab: boot ?(.*?) -->")
BLOCK = re.compile(r"```console\n(.*?)```", re.S)
KERNEL_HALF = re.compile(r"\b(?:0x)?[c-f][0-9a-f]{7}\b")


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
                desc = "lab [%s] %s" % (boot or "default", cmd or "(boot)")
                out = log if cmd is None else g.command(cmd, timeout=60)
                fixed = [e for e in expected if KERNEL_HALF.search(e)]
                if fixed and skip_under_boot_extra(
                        t, desc + ": %d lines with kernel addresses" % len(fixed),
                        "docs/lab.md shows the fixed layout's addresses"):
                    expected = [e for e in expected if e not in fixed]
                missing = [e for e in expected if not pattern(e).search(out)]
                t.check(not missing, desc,
                        "missing %s in:\n%s" % (missing, out[-800:]))
    finally:
        if g:
            g.close()
