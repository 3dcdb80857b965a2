# SPDX-License-Identifier: GPL-2.0-only
"""ronx's side of "The same bug on both kernels" in docs/linux-vs-ronx.md:
each crash type of linux/crashes.py run with the shell's `crash`, its
usercopy or poison line, its BUG and whether the shell still answers
(CORRUPT_STACK: its panic, in a boot of its own), written to
build/results/ronx-crash.json (make ronx-checks; linux-check reads it).
Whether each is caught is checked here and again, beside Linux's, in
linux/report.py."""
import json
import os
import re
import sys

from guest import BUILD, Guest
from test_crash import wait_panic_end

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "linux"))
import crashes  # noqa: E402


def panic_reading(t, name):
    """name in a boot of its own: its panic ends the boot."""
    with Guest("ronx-checks crash " + name) as g:
        g.wait_ready()
        listed = bool(re.search(r"^\s+%s\s" % name, g.command("crash"), re.M))
        out = ""
        if listed:
            start = len(g.out)
            g.send(("crash %s\r" % name).encode())
            out = wait_panic_end(g, start)
    r = {"listed": listed, "line": crashes.report_line(out.splitlines()),
         "panic": "---[ end Kernel panic" in out}
    t.check(listed and r["line"] and r["panic"], "crash %s: the stack protector's panic" % name,
            out[-1500:])
    return r


def test_ronx_checks_crash(t):
    readings = {name: panic_reading(t, name) for name in crashes.PANICS}
    with Guest("ronx-checks crash") as g:
        g.wait_ready()
        listing = g.command("crash")
        for name in crashes.NAMES:
            if name in crashes.PANICS:
                continue
            listed = bool(re.search(r"^\s+%s\s" % name, listing, re.M))
            out = g.command("crash " + name) if listed else ""
            shell = "PagesFree:" in g.command("meminfo")
            r = readings[name] = {"listed": listed, "line": crashes.report_line(out.splitlines()),
                                  "bug": "kernel BUG at mm/usercopy.c:" in out, "shell": shell}
            if name in crashes.POISON:
                t.check(listed and r["line"] and shell and not r["bug"],
                        "crash %s: the slab's poison shows it, no BUG, the shell answers" % name,
                        out[-1500:] or listing)
            else:
                t.check(listed and r["line"] and r["bug"] and shell,
                        "crash %s: usercopy's line, a BUG, and the shell answers after it" % name,
                        out[-1500:] or listing)
        g.poweroff()
    with open(os.path.join(BUILD, "results", "ronx-crash.json"), "w") as f:
        json.dump(readings, f, indent=1, sort_keys=True)
