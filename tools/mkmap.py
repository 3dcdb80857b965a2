#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make map`: boot ronx with the default command line and with rodata=off,
capture `ptdump` (and `lsmod`, when the shell has it) over the serial
console, and draw each with tools/memmap.py into build/map/NAME.svg and
.png. A third boot runs `spin &` and draws `ptdump PID`: a process's two
halves. With --docs (make docs), the pictures shown in the README and in
docs/user-mode.md are copied into docs/ (docs/memmap*); without it nothing
outside OUTDIR is written.
    usage: tools/mkmap.py [--docs] [OUTDIR]
"""
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import Guest  # noqa: E402
import memmap  # noqa: E402
from userprog import run_spin_in_background  # noqa: E402

# name, command line, the copy in docs/, a process to dump (ptdump PID)
SCENARIOS = [("default", "", "memmap", None), ("rodata-off", "rodata=off", "memmap-rodata-off", None),
             ("process", "", "memmap-process", "spin")]
# loaded first, when the shell can load modules, so the module area is not empty
MODULES = ["hello"]


def has_command(help_text, name):
    return re.search(r"^\s+%s\b" % re.escape(name), help_text, re.M) is not None


def capture(name, cmdline, prog=None):
    """(ptdump, lsmod or '') from one boot; with prog, ptdump of that process."""
    print("map: booting %s (command line: %r)" % (name, cmdline), flush=True)
    with Guest("map " + name, cmdline=cmdline) as g:
        g.wait_ready()
        shell = g.command("help")
        if has_command(shell, "insmod"):
            for mod in MODULES:
                print("map:   insmod %s" % mod, flush=True)
                g.command("insmod " + mod)
        lsmod = g.command("lsmod") if has_command(shell, "lsmod") else ""
        pid = None
        if prog:    # "spin": the helper waits for its lines before ptdump
            pid = run_spin_in_background(g)[0]
        dump = g.command("ptdump %s" % pid if pid else "ptdump")
        g.poweroff()
    return dump, lsmod


def draw(outdir, name, cmdline, dump, lsmod, prog=None):
    base = os.path.join(outdir, name)
    for ext, text in ((".ptdump", dump), (".lsmod", lsmod)):
        with open(base + ext, "w") as f:
            f.write(text)
    syms = memmap.read_nm(os.path.join(ROOT, "build", "kernel.elf"))
    title = "command line '%s'" % cmdline if cmdline else "default command line"
    with open(base + ".svg", "w") as f:
        user = "The user half of a process (%s)" % prog if prog else None
        if prog:
            title += ", ptdump of a running %s" % prog
        f.write(memmap.render(memmap.layout(dump, syms, memmap.parse_lsmod(lsmod), user), title))
    png = memmap.to_png(base + ".svg", base + ".png")
    print("map:   wrote %s.svg%s" % (base, " and .png" if png else
                                     " (no PNG: rsvg-convert is not installed)"), flush=True)
    return png


def main():
    args = sys.argv[1:]
    to_docs = "--docs" in args
    args = [a for a in args if a != "--docs"]
    outdir = args[0] if args else os.path.join(ROOT, "build", "map")
    os.makedirs(outdir, exist_ok=True)
    for name, cmdline, doc, prog in SCENARIOS:
        dump, lsmod = capture(name, cmdline, prog)
        png = draw(outdir, name, cmdline, dump, lsmod, prog)
        if not to_docs:
            continue
        for ext in (".svg", ".png") if png else (".svg",):
            shutil.copy(os.path.join(outdir, name + ext), os.path.join(ROOT, "docs", doc + ext))
        print("map:   copied to docs/%s%s" % (doc, ".{svg,png}" if png else ".svg"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
