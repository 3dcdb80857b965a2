# SPDX-License-Identifier: GPL-2.0-only
# What one boot left behind (serial log, "info tlb", PAE walk), read
# back for linux/report.py and linux/wx_series.py; plus the KTAP writer.
import os
import re

PAGE_OFFSET = 0xC0000000
HOLE = (PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000)
BOOT_LINE = re.compile(r"NX \(Execute Disable\)|WARNING: CPU|Write protecting|NX-protecting|PCI BIOS|"
                       r"W\+X|Freeing unused kernel|DEBUG_WX_SELFTEST|Checking user space|"
                       r"page tables isolation|Kernel command line")
MOD = re.compile(r"ronx-peer: (ok|not ok) (\d+) - (\S+) = (.*?) "
                 r"(?:\[(\S+) @ 0x([0-9a-f]+)\] expect (\S+)|# SKIP (.*))$")


def section(text, name):
    m = re.search(rf"^=== ronx-peer: {name}\n(.*?)^=== ronx-peer: {name} end", text, re.M | re.S)
    return m.group(1).splitlines() if m else []


def strip_ts(line):
    return re.sub(r"^\[\s*[0-9.]+\] ", "", line)


class Boot:
    def __init__(self, d, name):
        self.name = name
        p = os.path.join(d, name)
        self.text = open(p + ".serial.log", errors="replace").read().replace("\r", "") \
            if os.path.exists(p + ".serial.log") else ""
        self.ready = "=== ronx-peer: ready-for-tlb" in self.text and os.path.exists(p + ".tlb.txt")
        self.dmesg = [strip_ts(l) for l in section(self.text, "dmesg")]
        self.lines = [l for l in self.dmesg if BOOT_LINE.search(l)]
        self.ptdump = section(self.text, "page_tables")
        self.module = {}
        for l in self.dmesg:
            m = MOD.search(l)
            if m and m.group(3) not in self.module:
                self.module[m.group(3)] = m
        self.iomem = {m.group(2): int(m.group(1), 16) for m in re.finditer(
            r"^\s*([0-9a-f]+)-[0-9a-f]+ : Kernel (code|rodata|data|bss)", self.text, re.M)}
        self.tlb = {}
        if os.path.exists(p + ".tlb.txt"):
            for l in open(p + ".tlb.txt"):
                m = re.match(r"([0-9a-f]{16}): ([0-9a-f]{16}) (.{9})$", l.strip())
                if m:
                    f = m.group(3)
                    self.tlb[int(m.group(1), 16)] = (f[8] == "W", f[0] == "X", f[2] == "P")
        self.walk, self.walk_raw = {}, {}
        self.pdptes = set()
        if os.path.exists(p + ".walk.txt"):
            for l in open(p + ".walk.txt"):
                m = re.search(r"pdpte=0x([0-9a-f]+)", l)
                if m:
                    self.pdptes.add(int(m.group(1), 16))
                m = re.match(r"0x([0-9a-f]+) .*effective=(\S+)", l)
                if m:
                    self.walk_raw[int(m.group(1), 16)] = l.strip()
                    self.walk[int(m.group(1), 16)] = m.group(2).replace("not-present", "not present")

    def tlb_flags(self, va):
        e = self.tlb.get(va & ~0xFFF)
        if e is None:
            e = self.tlb.get(va & ~0x1FFFFF)
            if e is None or not e[2]:
                return "not present"
        rw, nx, _ = e
        return f"{'RW' if rw else 'RO'}+{'NX' if nx else 'X'}"

    def wx_pages(self):
        """Kernel-half pages that info tlb shows writable and executable."""
        hole = other = 0
        for va, (rw, nx, pse) in self.tlb.items():
            if va < PAGE_OFFSET or not rw or nx:
                continue
            n = 512 if pse else 1
            if HOLE[0] <= va < HOLE[1]:
                hole += n
            else:
                other += n
        return hole, other

    def audit(self):
        """What the kernel's own W+X check printed, as a short summary."""
        parts = []
        for l in self.dmesg:
            m = re.search(r"PCI BIOS W\+X mapping (\d+) pages", l)
            if m:
                parts.append(f"PCI BIOS W+X mapping {m.group(1)} pages")
        res = []
        for l in self.dmesg:
            if "Checked W+X mappings: passed" in l:
                res.append("passed")
            m = re.search(r"Checked W\+X mappings: FAILED, (\d+) W\+X pages", l)
            if m:
                res.append(f"FAILED, {m.group(1)} W+X pages")
        if not res:
            return "no W+X check ran"
        # With PTI the check runs twice (kernel and user tables); say it once
        # when both agree.
        return "; ".join(parts + [" / ".join(dict.fromkeys(res))])

    def pcibios(self):
        return any("PCI BIOS area is rw and x" in l for l in self.dmesg)

    def cmdline(self):
        """The command line as /init saw it (None if /init never ran)."""
        m = re.search(r"^=== ronx-peer: cmdline (.*)$", self.text, re.M)
        return m.group(1).strip() if m else None

    def wx_results(self):
        """Each W+X check's verdict in order, as (tables, verdict): the
        kernel tables first, then (with PTI) the user copy."""
        out, tables = [], "kernel"
        for l in self.dmesg:
            if "Checking user space page tables" in l:
                tables = "user"
            m = re.search(r"Checked W\+X mappings: (.*?)\.?$", l)
            if m:
                out.append((tables, m.group(1)))
        return out

    def check_wx_pages(self):
        """What reading /sys/kernel/debug/check_wx_pages said (None if absent)."""
        m = re.search(r"^=== ronx-peer: check_wx_pages (\S+)", self.text, re.M)
        return m.group(1) if m else None

    def hole(self):
        """640K-1M page by page: (RW+X in info tlb, RW+X in the walk, walked)."""
        pages = range(HOLE[0], HOLE[1], 0x1000)
        tlb = sum(self.tlb_flags(va) == "RW+X" for va in pages)
        walk = sum(self.walk.get(va) == "RW+X" for va in pages)
        return tlb, walk, sum(va in self.walk for va in pages)

    def planted(self):
        for l in self.dmesg:
            m = re.search(r"planted a W\+X page at 0x([0-9a-f]+)", l)
            if m:
                return int(m.group(1), 16)
        return None


def pdpte_check(kt, name, b):
    """The premise of the PAE blindness: present PDPTEs carry no RW bit."""
    seen = ", ".join(f"0x{v:x}" for v in sorted(b.pdptes)) or "none"
    kt.add(bool(b.pdptes) and all(v & 1 and not v & 2 for v in b.pdptes),
           f"{name}: PAE walk: the PDPTEs in use are present with RW clear ({seen})")


def predicted_audit(b, fixed):
    """The audit output expected from info tlb: blind or seeing."""
    hole, other = b.wx_pages()
    if not fixed:
        return "passed"
    res = ["passed" if other == 0 else f"FAILED, {other} W+X pages"]
    # With page-table isolation a second pass walks the user copy, which
    # maps neither the BIOS hole nor vmalloc space: it should pass.
    if any("Checking user space page tables" in l for l in b.dmesg):
        res.append("passed")
    pre = f"PCI BIOS W+X mapping {hole} pages; " if hole and b.pcibios() else ""
    return pre + " / ".join(dict.fromkeys(res))


class Ktap:
    def __init__(self):
        self.lines, self.failed = [], 0

    def add(self, ok, desc, skip=None):
        n = len(self.lines) + 1
        if skip:
            self.lines.append(f"ok {n} - {desc} # SKIP {skip}")
            return
        self.failed += not ok
        self.lines.append(f"{'ok' if ok else 'not ok'} {n} - {desc}")

    def text(self):
        return "KTAP version 1\n" + f"1..{len(self.lines)}\n" + "\n".join(self.lines) + "\n"
