# SPDX-License-Identifier: GPL-2.0-only
# The same bug on both kernels: the bugs of ronx's `crash` command that
# Debian's kernel defends against, made on Linux by module/ronx_crash.c
# (linux/init.sh, boot "debian-crash") and on ronx by its shell
# (tests/qemu/test_ronx_checks_crash.py writes build/results/ronx-crash.json).
# Here: the KTAP checks and the document's section.
import json
import os
import re

from evidence import strip_ts

BOOT = "debian-crash"
# LKDTM's names. Debian's 686-pae kernel has HARDENED_USERCOPY=y and
# STACKPROTECTOR_STRONG=y; it has
# no LKDTM, no KFENCE and (32-bit) no VMAP_STACK, so these are the bugs
# both kernels can be asked about.
NAMES = ["USERCOPY_HEAP_SIZE_TO", "USERCOPY_HEAP_SIZE_FROM", "USERCOPY_STACK_FRAME_TO",
         "USERCOPY_STACK_FRAME_FROM", "USERCOPY_STACK_BEYOND", "USERCOPY_KERNEL",
         "READ_AFTER_FREE", "WRITE_AFTER_FREE", "CORRUPT_STACK"]
# The ones whose defence panics: made last, each kernel's run ends there.
PANICS = {"CORRUPT_STACK"}
# The ones SLUB's poison catches (Linux: slub_debug=FP): a line, no oops.
POISON = {"READ_AFTER_FREE", "WRITE_AFTER_FREE"}
# usercopy_abort()'s line (mm/usercopy.c), ronx's and Linux's alike,
# __stack_chk_fail()'s panic, and what the slab poison shows
REPORT = re.compile(r"usercopy: Kernel memory (exposure|overwrite) attempt detected (from|to) "
                    r"(SLUB object|process stack|kernel text)( '[^']*')? \(offset \d+, size \d+\)!"
                    r"|Kernel panic - not syncing: (stack-protector): Kernel stack is corrupted in: \S+"
                    r"|Memory correctly (poisoned) \(\w+\)|BUG \S+ \([^)]*\): (Poison overwritten)")


def report_line(lines):
    """The usercopy or stack-protector line among lines, or None."""
    for line in lines:
        m = REPORT.search(line)
        if m:
            return m.group(0)
    return None


def kind(line):
    """What a line says was refused: (direction, object), or the stack protector's panic."""
    m = REPORT.search(line or "")
    if not m:
        return None
    for g in (5, 6, 7):
        if m.group(g):
            return (m.group(g),)
    return (m.group(1), m.group(3))


def linux_readings(boots_dir):
    """Per name, from the crash boot's console: the usercopy line, the
    subshell's status (139: the oops ended it) and whether a BUG was
    printed; {} if the boot left no log."""
    p = os.path.join(boots_dir, BOOT + ".serial.log")
    text = open(p, errors="replace").read().replace("\r", "") if os.path.exists(p) else ""
    out = {}
    for m in re.finditer(r"^=== ronx-crash: begin (\S+)\n(.*?)^=== ronx-crash: end \1$", text, re.M | re.S):
        lines = [strip_ts(l) for l in m.group(2).splitlines()]
        st = re.search(r"^=== ronx-crash: status (\d+)$", m.group(2), re.M)
        out[m.group(1)] = {"line": report_line(lines), "status": int(st.group(1)) if st else None,
                           "bug": any(l.startswith("kernel BUG at mm/usercopy.c") for l in lines)}
    for name in PANICS:	# the console to its end: the panic is the last thing it prints
        m = re.search(r"^=== ronx-crash: begin %s\n(.*)" % name, text, re.M | re.S)
        if m and name not in out:
            lines = [strip_ts(l) for l in m.group(1).splitlines()]
            out[name] = {"line": report_line(lines), "status": None,
                         "panic": any(l.startswith("---[ end Kernel panic") for l in lines)}
    out["_done"] = "=== ronx-crash: done" in text or all(out.get(n, {}).get("panic") for n in PANICS)
    return out


def ronx_readings(results_dir):
    p = os.path.join(results_dir, "ronx-crash.json")
    return json.load(open(p)) if os.path.exists(p) else None


def check(kt, boots_dir, results_dir):
    linux, ronx = linux_readings(boots_dir), ronx_readings(results_dir)
    kt.add(linux.get("_done"), f"{BOOT}: ran every crash and went on to its last line")
    for name in NAMES:
        lx = linux.get(name)
        rx = (ronx or {}).get(name)
        rline = 'not measured' if ronx is None else rx and rx['line'] or 'no such line'
        if name in POISON:
            kt.add(lx and lx["line"] and lx["status"] == 0,
                   f"{BOOT}: {name}: SLUB's poison shows it, the writer goes on "
                   f"({lx and lx['line']}; status {lx and lx['status']})")
            kt.add(rx and rx["line"] and rx["shell"] and not rx["bug"],
                   f"ronx: crash {name}: the slab's poison shows it, no oops, the shell answers "
                   f"({rline})")
        elif name in PANICS:
            kt.add(lx and lx["line"] and lx["panic"],
                   f"{BOOT}: {name}: the stack protector's panic ({lx and lx['line']})")
            kt.add(rx and rx["line"] and rx["panic"],
                   f"ronx: crash {name}: the stack protector's panic ({rline})")
        else:
            kt.add(lx and lx["line"] and lx["bug"] and lx["status"] == 139,
                   f"{BOOT}: {name}: refused with usercopy's line and a BUG that ended the writer "
                   f"({lx and lx['line']}; status {lx and lx['status']})")
            kt.add(rx and rx["line"] and rx["bug"] and rx["shell"],
                   f"ronx: crash {name}: refused with usercopy's line and a BUG, the shell answers "
                   f"({rline})")
        kt.add(lx and rx and kind(lx["line"]) and kind(lx["line"]) == kind(rx["line"]),
               f"{name}: both kernels catch it the same way "
               f"(Linux {kind(lx and lx['line'])}, ronx {kind(rx and rx['line'])})")
    return linux, ronx


def document(linux, ronx, meta):
    deb = meta.get("KVER", "?")
    o = ["\n## The same bug on both kernels\n",
         "The bugs of ronx's `crash` command that Debian's kernel has a defence for, made on "
         f"purpose on both. Linux {deb} has `CONFIG_HARDENED_USERCOPY=y` and "
         "`CONFIG_STACKPROTECTOR_STRONG=y` but no LKDTM, so "
         "`linux/module/ronx_crash.c` makes each bug under LKDTM's name (boot "
         f"`{BOOT}`, one subshell per name: a caught bug ends it with an oops, status 139, and "
         "the kernel goes on; `CORRUPT_STACK`'s stack protector panics, on both kernels, so "
         "it comes last; `READ_AFTER_FREE` and `WRITE_AFTER_FREE` need Linux's slab poison, "
         "`slub_debug=FP` on the boot's command line, where ronx poisons and checks by default); "
         "ronx's "
         "column is its shell's `crash NAME` "
         "(`tests/qemu/test_ronx_checks_crash.py`). Linux's 32-bit kernel has no VMAP_STACK "
         "and Debian builds it without KFENCE, so ronx's stack-overflow and KFENCE crashes have "
         "no Linux row.\n",
         f"| crash | Linux {deb} | ronx |", "|---|---|---|"]
    for name in NAMES:
        lx = linux.get(name)
        lcell = "not measured" if not lx else f"`{lx['line']}`" if lx["line"] else \
            f"not caught (status {lx['status']})"
        rx = (ronx or {}).get(name)
        rcell = "not measured" if ronx is None else "no such crash type" if not rx or not rx["listed"] \
            else f"`{rx['line']}`" if rx["line"] else "not caught"
        o.append(f"| `{name}` | {lcell} | {rcell} |")
    return o
