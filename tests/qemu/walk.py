# SPDX-License-Identifier: GPL-2.0-only
"""Parse the output of the shell's `walk VA` (and gdb's ronx-walk, which
prints the same lines)."""
import re

ENTRY = re.compile(r"^(PDPTE|PDE|PTE)\[(\d+)\]\s+0x([0-9a-f]{16})\s", re.M)
CR3 = re.compile(r"^CR3\s+0x([0-9a-f]+)", re.M)
EFFECTIVE = re.compile(r"^effective: (RW\+X|RW\+NX|RO\+X|RO\+NX|not mapped)", re.M)
REGION = re.compile(r"^region: (.*)$", re.M)


class Walk:
    def __init__(self, text):
        self.text = text
        self.entries = [(m.group(1), int(m.group(2)), int(m.group(3), 16))
                        for m in ENTRY.finditer(text)]
        m = CR3.search(text)
        self.cr3 = int(m.group(1), 16) if m else None
        m = EFFECTIVE.search(text)
        self.perm = m.group(1) if m else None
        m = REGION.search(text)
        self.region = m.group(1).strip() if m else None


def parse(text):
    return Walk(text)
