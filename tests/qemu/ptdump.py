# SPDX-License-Identifier: GPL-2.0-only
"""Parse the kernel's `ptdump` (Linux dump_pagetables format)."""
import re

LINE = re.compile(r"^0x([0-9a-f]{8})-0x([0-9a-f]{8})\s+\d+[KMGT] (.*?)\s*(pte|pmd)$")


class Run:
    __slots__ = ("start", "end", "present", "rw", "nx", "pse", "level")

    def __init__(self, start, end, attrs, level):
        self.start, self.end, self.level = start, end or 1 << 32, level
        words = attrs.split()
        self.present = bool(words)
        self.rw = "RW" in words
        self.nx = "NX" in words
        self.pse = "PSE" in words


def parse(text):
    runs = []
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            runs.append(Run(int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)))
    return runs


def disagreements(runs, tables, start=0xC0000000, limit=8):
    """Pages where the dump and QEMU's `info tlb` (a tlb.PageTables) differ."""
    out = []
    for run in runs:
        if run.end <= start:
            continue
        step = 2 << 20 if run.level == "pmd" else 4096
        for va in range(max(run.start, start), run.end, step):
            m = tables.lookup(va)
            if not run.present:
                bad = m is not None
            else:
                bad = m is None or m.rw != run.rw or m.nx != run.nx or m.pse != run.pse
            if bad:
                out.append("%08x: ptdump %s, info tlb %s" % (
                    va, "%s%s" % ("RW" if run.rw else "ro", "+NX" if run.nx else "+x")
                    if run.present else "not present", m.perm() if m else "not present"))
                if len(out) >= limit:
                    return out
    return out
