# SPDX-License-Identifier: GPL-2.0-only
"""Read the guest's page tables from QEMU's `info tlb`, independently of
anything the kernel says about itself.

A line is "<virt>: <phys> <flags>", flags XGPDACTUW where X means NX set,
P a 2 MiB page, W writable, U user, G global; '-' where a bit is clear.
"""
import bisect
import re

LINE = re.compile(r"^([0-9a-f]+): ([0-9a-f]+) ([XGPDACTUW-]{9})$")
PAGE = 4096
LARGE = 2 << 20


class Mapping:
    __slots__ = ("va", "pa", "size", "nx", "rw", "user", "glb", "pse")

    def __init__(self, va, pa, flags):
        self.va, self.pa = va, pa
        self.nx, self.glb, self.pse = flags[0] == "X", flags[1] == "G", flags[2] == "P"
        self.user, self.rw = flags[7] == "U", flags[8] == "W"
        self.size = LARGE if self.pse else PAGE

    @property
    def exec(self):
        return not self.nx

    def perm(self):
        return "%s+%s" % ("RW" if self.rw else "RO", "NX" if self.nx else "X")

    def attrs(self):
        return (self.rw, self.nx, self.user, self.glb, self.pse)


class PageTables:
    def __init__(self, text):
        self.maps = []
        for line in text.splitlines():
            m = LINE.match(line.strip())
            if m:
                self.maps.append(Mapping(int(m.group(1), 16) & 0xffffffff,
                                         int(m.group(2), 16), m.group(3)))
        self.maps.sort(key=lambda m: m.va)
        self.starts = [m.va for m in self.maps]

    def lookup(self, va):
        """The mapping that covers va, or None."""
        i = bisect.bisect_right(self.starts, va) - 1
        if i >= 0 and self.maps[i].va <= va < self.maps[i].va + self.maps[i].size:
            return self.maps[i]
        return None

    def pages(self, start, end):
        """Every 4 KiB page in [start, end) with its mapping (or None)."""
        for va in range(start & ~(PAGE - 1), end, PAGE):
            yield va, self.lookup(va)

    def pages_where(self, start, end, bad):
        """Pages in [start, end) whose mapping (None if unmapped) makes
        bad() true, as text for a failure message."""
        return ["%08x %s" % (va, m.perm() if m else "unmapped")
                for va, m in self.pages(start, end) if bad(m)]

    def wx_pages(self, start=0, end=1 << 32):
        """4 KiB pages mapped writable and executable with va in [start, end)."""
        return sum(m.size // PAGE for m in self.maps if start <= m.va < end and m.rw and m.exec)

    def ranges(self):
        """Runs of contiguous pages with equal attributes: (start, end, Mapping)."""
        runs = []
        for m in self.maps:
            if runs and runs[-1][1] == m.va and runs[-1][2].attrs()[:4] == m.attrs()[:4] \
                    and runs[-1][2].pse == m.pse:
                runs[-1][1] = m.va + m.size
            else:
                runs.append([m.va, m.va + m.size, m])
        return [tuple(r) for r in runs]


_NM = {}     # (elf, its mtime and size) -> nm's lines: a grader asks once per seed


def kernel_symbols(elf, offset=0):
    """name -> address, from nm (a second opinion on where sections are).
    offset: a kaslr boot's Kernel Offset (Guest.kernel_offset()); every
    symbol of the image moves by it, absolute ones (nm's 'a', constants
    such as PAGE_OFFSET) stay."""
    import os
    import subprocess
    st = os.stat(elf)
    key = (os.path.abspath(elf), st.st_mtime_ns, st.st_size)
    if key not in _NM:
        _NM[key] = subprocess.run(["nm", elf], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
    syms = {}
    for line in _NM[key]:
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16) + (0 if parts[1] in "aA" else offset)
    return syms


def registers(text):
    """Control registers from `info registers`."""
    regs = {}
    for name in ("CR0", "CR2", "CR3", "CR4", "EFER"):
        m = re.search(r"\b%s=([0-9a-f]+)" % name, text)
        if m:
            regs[name] = int(m.group(1), 16)
    return regs


def xp64(monitor, phys):
    """One 64-bit word of guest-physical memory, read by QEMU itself
    (`xp`); monitor is a function that runs one monitor command."""
    return xp_qwords(monitor, phys, 1)[0]


def xp_qwords(monitor, phys, n):
    """n 64-bit words of guest-physical memory from phys, one `xp`."""
    out = monitor("xp /%dgx 0x%x" % (n, phys))
    words = [int(w, 16) for line in out.splitlines() if ":" in line
             for w in re.findall(r"0x([0-9a-fA-F]+)", line.split(":", 1)[1])]
    if len(words) != n:
        raise ValueError("xp /%dgx 0x%x: %r" % (n, phys, out[-300:]))
    return words


def pae_walk(monitor, cr3, va):
    """The PAE walk for va as QEMU reads physical memory: a list of
    (level, index, raw entry), PDPTE first, stopping at an entry that is
    not present or at a 2 MiB PDE."""
    entries, table = [], cr3 & 0xFFFFFFE0
    for level, index in (("PDPTE", (va >> 30) & 3), ("PDE", (va >> 21) & 511),
                         ("PTE", (va >> 12) & 511)):
        e = xp64(monitor, table + 8 * index)
        entries.append((level, index, e))
        if not e & 1 or (level == "PDE" and e & 0x80):
            break
        table = e & 0x000FFFFFFFFFF000
    return entries


def walk_summary(monitor, cr3, va):
    """One line for va: each level's raw entry, then the page size and the
    effective permission (writable only if every level allows it; NX if
    any level sets it), e.g. "0x08048000 pdpte=0x... pde=0x... pte=0x...
    level=4K effective=RO+X". linux/ and the user-mode checks read it."""
    entries = pae_walk(monitor, cr3, va)
    res = "0x%08x" % va + "".join(" %s=0x%016x" % (level.lower(), e) for level, _, e in entries)
    level, _, leaf = entries[-1]
    if not leaf & 1:
        return res + " effective=not-present"
    pde = entries[1][2]
    if level == "PDE":
        size, rw, nx = "2M", pde & 2, pde >> 63
    else:
        size, rw, nx = "4K", pde & leaf & 2, (pde | leaf) >> 63
    return res + " level=%s effective=%s+%s" % (size, "RW" if rw else "RO", "NX" if nx else "X")
