# SPDX-License-Identifier: GPL-2.0-only
"""One outside model of the machine's paging state, for every lab that
grades memory (issue 33, item 1).

With the guest stopped (snapshot()), QEMU saves the pages the model
reads (pmemsave: each table as the walk reaches it, then the frames the
tables map, one pmemsave per run of consecutive frames); everything
after that is read from those bytes, on the host:
every process's PAE tree from the CR3 ps printed, the kernel's from
swapper_pg_dir, the kernel's frame counts (frame_refs[], mm/page_ref.c),
its zero page and the page allocator's bitmap (pfn_bits, mm/page_alloc.c:
a bit set is a frame in use). Nothing is asked of the kernel.

The rest is pure and host-tested (tests/labs/test_pagemodel.py): decoding
every entry at every level, the bits the CPU reserves (Intel SDM vol. 3,
4.4.2), the bits ronx's policy gives each level, and the frames: each
frame's mapping count over every tree against its count in frame_refs[],
the zero page, each mm's page count, nothing free that is still mapped.
A problem names the process, the level, the address, the bit, expected
against found."""
import collections
import contextlib
import os
import struct

PAGE = 4096
PAGE_OFFSET = TASK_SIZE = 0xC0000000
P, RW, US, PWT, PCD, A, D, PS, G = 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80, 0x100
PROTNONE = 0x200            # ronx's software bit: a not-present PTE keeping a PROT_NONE frame
NX = 1 << 63
# QEMU's qemu32 and Bochs model 36 physical address bits: a frame below 64 GiB
MAXPHYADDR = 36
ADDR = ((1 << MAXPHYADDR) - 1) & ~(PAGE - 1)
HIGH = ((1 << 63) - 1) & ~((1 << MAXPHYADDR) - 1)      # bits MAXPHYADDR-62
PDPTE, PDE, PTE = "PDPTE", "PDE", "PTE"
NAMES = ((0, "P"), (1, "RW"), (2, "US"), (3, "PWT"), (4, "PCD"), (5, "A"), (6, "D"),
         (7, "PS"), (8, "G"), (9, "PROTNONE"), (63, "NX"))
# mm_alloc(): the page of the mm itself, the PDPT's, one directory per user PDPT entry
MM_FIXED_PAGES = 2 + 3


def bits(mask):
    """The bits of mask by name ("RW|NX"), the rest by number."""
    out = [n for b, n in NAMES if mask >> b & 1]
    rest = mask & ~sum(1 << b for b, _ in NAMES)
    out += ["bit %d" % b for b in range(64) if rest >> b & 1]
    return "|".join(out) or "none"


def reserved(level, e, nxe, cpu_sets_pdpte_a=True):
    """The reserved bits set in entry e of level (0 if none). A PAE PDPTE
    reserves bits 1-2 and 5-8 (no RW, US, A, D, PS, G) and, as every
    level, the bits from MAXPHYADDR up; bit 63 too (a PDPTE has no NX).
    A 2 MiB PDE reserves bits 13-20 of its frame. NX is reserved
    wherever EFER.NXE is clear. cpu_sets_pdpte_a: QEMU's TCG sets A in
    the PDPTEs as it walks (real CPUs and Bochs never do): not the
    kernel's doing, so not counted."""
    if level == PDPTE:
        mask = HIGH | NX | 0x1E6
        if cpu_sets_pdpte_a:
            mask &= ~A
    else:
        mask = HIGH | (0 if nxe else NX)
        if level == PDE and e & PS:
            mask |= 0x1FE000
    return e & mask


class Entry(collections.namedtuple("Entry", "level va index raw table")):
    """One entry: its level, the first address it maps, its index in its
    table, its value and its table's physical address."""
    __slots__ = ()

    @property
    def present(self):
        return bool(self.raw & P)

    @property
    def frame(self):
        return self.raw & ADDR

    @property
    def has_frame(self):
        """A user PTE that holds a frame (mm/pgd.c's pte_has_frame())."""
        return self.level == PTE and bool(self.raw & (P | PROTNONE))

    def where(self):
        return "%s of 0x%08x (table 0x%x[%d])" % (self.level, self.va, self.table, self.index)


def pdpt_of(read, cr3):
    """The four PDPT entries under cr3 (a PDPT at any 32-byte aligned
    address: pti's user set lives at its kernel set's + 0x800)."""
    return struct.unpack("<4Q", read(cr3 & 0xFFFFFFE0, 32))


class Tree:
    """Every non-zero entry of the PAE tree under cr3, at every level, read
    with read(pa, size). Only the user part (PDPT entries 0-2) of a
    process is walked: its PDPT entry 3 is the kernel's, shared, read as
    the kernel's own tree (kernel=True: entry 3 only). only: the PDPT
    entries looked at instead, descend: those of them walked down (all
    of only by default)."""

    def __init__(self, read, cr3, name, kernel=False, only=None, descend=None):
        self.cr3, self.name = cr3 & 0xFFFFFFE0, name
        self.entries, self.tables = [], [self.cr3 & ~(PAGE - 1)]
        self.pdpt = pdpt_of(read, cr3)
        only = only if only is not None else [3] if kernel else range(3)
        for i in only:
            e = Entry(PDPTE, i << 30, i, self.pdpt[i], self.cr3)
            self.entries.append(e)
            if e.present and (descend is None or i in descend):
                self._pd(read, e.frame, i << 30)

    @classmethod
    def directory(cls, read, pd, base, name):
        """The tree below one page directory alone (physical pd, mapping
        from va base), as no PDPT may point at it yet."""
        t = cls.__new__(cls)
        t.cr3, t.name, t.entries, t.tables, t.pdpt = None, name, [], [], ()
        t._pd(read, pd, base)
        return t

    def _table(self, read, pa):
        self.tables.append(pa)
        return struct.unpack("<512Q", read(pa, PAGE))

    def _pd(self, read, pa, base):
        for j, raw in enumerate(self._table(read, pa)):
            if not raw:
                continue
            e = Entry(PDE, base | j << 21, j, raw, pa)
            self.entries.append(e)
            if e.present and not raw & PS:
                for k, t in enumerate(self._table(read, e.frame)):
                    if t:
                        self.entries.append(Entry(PTE, e.va | k << 12, k, t, e.frame))

    def at(self, level):
        return [e for e in self.entries if e.level == level]

    def leaf(self, va):
        """The present PTE (or 2 MiB PDE) that maps va, or None."""
        if not hasattr(self, "_leaves"):
            self._leaves = {(e.level, e.va): e for e in self.entries if e.present and
                            (e.level == PTE or e.level == PDE and e.raw & PS)}
            self._ptes = {e.va: e for e in self.at(PTE)}
        return self._leaves.get((PTE, va & ~(PAGE - 1))) or \
            self._leaves.get((PDE, va & ~((2 << 20) - 1)))

    def pte(self, va):
        """The PTE of va, present or not (PROT_NONE), or None."""
        self.leaf(va)
        return self._ptes.get(va & ~(PAGE - 1))

    def frames(self):
        """The user PTEs that hold a frame."""
        return [e for e in self.entries if e.has_frame]

    def pages(self):
        """What the kernel charges this mm (mm_charged_pages(), ps PAGES):
        each PTE that holds a frame (the zero page too), its page tables,
        the PDPT's page, the user directories and the mm's own page."""
        return len(self.frames()) + MM_FIXED_PAGES + \
            sum(1 for e in self.at(PDE) if e.present and not e.raw & PS)


def walk(read, cr3, va):
    """The entries the CPU reads to translate va under cr3, PDPTE first,
    stopping at one not present or at a 2 MiB PDE."""
    out, table = [], cr3 & 0xFFFFFFE0
    for level, shift, nr in ((PDPTE, 30, 4), (PDE, 21, 512), (PTE, 12, 512)):
        index = va >> shift & (nr - 1)
        raw = struct.unpack("<Q", read(table + 8 * index, 8))[0]
        out.append(Entry(level, va & ~((1 << shift) - 1), index, raw, table))
        if not raw & P or level == PDE and raw & PS:
            break
        table = raw & ADDR
    return out


# -- the bits of each level -------------------------------------------------
def reserved_entries(tree, nxe, cpu_sets_pdpte_a=True):
    """The present entries of tree with a bit the CPU reserves set:
    [(entry, those bits)]. The CPU reads no bit of an entry not present."""
    return [(e, r) for e in tree.entries if e.present
            for r in [reserved(e.level, e.raw, nxe, cpu_sets_pdpte_a)] if r]


def differ(tree, e, want, mask, why):
    """A line for each bit of mask where e differs from want."""
    out = []
    for b, name in NAMES:
        if mask >> b & 1 and (e.raw ^ want) >> b & 1:
            out.append("%s %s: bit %s: expected %d, found %d (entry 0x%016x; %s)"
                       % (tree.name, e.where(), name, want >> b & 1, e.raw >> b & 1, e.raw, why))
    return out


def tree_problems(tree, nxe, kernel_pdpte=None, want=None, cpu_sets_pdpte_a=True,
                  levels=(PDPTE, PDE, PTE)):
    """Every entry of a process's tree against the CPU's rules and ronx's
    policy: no reserved bit at any level; a user PDPTE P and nothing else
    (bit 5 aside where the CPU sets it), the PDPT's entry 3 the kernel's;
    a PDE over a user page table P|RW|US, no NX, PWT, PCD or PS (a PTE
    decides what ring 3 may do); no 2 MiB user page; a present user PTE
    US, never G, PWT, PCD or PAT; a not-present one 0 or PROT_NONE with
    a frame. want(e): the leaf's RW and NX bits as its area asks (a mask
    of RW|NX), or None for "whatever". levels: the levels looked at."""
    out = []
    for e in (e for e in tree.entries if e.level in levels):
        # as reserved_entries(): the CPU reads no bit of an entry not present
        r = e.present and reserved(e.level, e.raw, nxe, cpu_sets_pdpte_a)
        if r:
            out.append("%s %s: reserved %s set (entry 0x%016x): expected 0, the CPU faults on "
                       "them" % (tree.name, e.where(), bits(r), e.raw))
            continue
        if e.level == PDPTE:
            ign = A if cpu_sets_pdpte_a else 0
            out += differ(tree, e, P, (P | PWT | PCD | PROTNONE) & ~ign, "a user PDPT entry")
        elif e.level == PDE:
            # G is ignored in an entry over a table: not looked at
            out += differ(tree, e, P | RW | US, P | RW | US | PWT | PCD | PS | NX,
                          "the directory entry over a user page table")
        elif e.raw & P:
            out += differ(tree, e, US, US | PWT | PCD | PS | G | PROTNONE, "a user page")
        elif not e.raw & PROTNONE or not e.frame:
            # the CPU reads no other bit of it: a stray US or NX there harms nothing
            out.append("%s %s: expected a not-present PTE 0 or PROT_NONE with a frame, found "
                       "0x%016x" % (tree.name, e.where(), e.raw))
    if want and PTE in levels:
        out += area_problems(tree, want, nxe)
    if kernel_pdpte is not None and tree.pdpt[3] != kernel_pdpte:
        out.append("%s PDPTE of 0xc0000000: expected the kernel's own 0x%016x, found 0x%016x"
                   % (tree.name, kernel_pdpte, tree.pdpt[3]))
    return out


def area_problems(tree, want, nxe):
    """Each present user PTE's RW and NX (RW alone without NX) against
    want(e), the mask of them its area asks, or None for "whatever"."""
    out = []
    for e in tree.at(PTE):
        w = want(e) if e.raw & P else None
        if w is not None:
            out += differ(tree, e, w, (RW | NX) if nxe else RW, "as its area asks")
    return out


def kernel_problems(tree, nxe):
    """The kernel's tree (swapper_pg_dir's entry 3): no reserved bit, no
    entry that ring 3 may use (US)."""
    out = []
    for e in tree.entries:
        r = e.present and reserved(e.level, e.raw, nxe)
        if r:
            out.append("%s %s: reserved %s set (entry 0x%016x): expected 0"
                       % (tree.name, e.where(), bits(r), e.raw))
        elif e.level != PDPTE and e.raw & P and e.raw & US:
            out.append("%s %s: bit US: expected 0 (a kernel page), found 1 (entry 0x%016x)"
                       % (tree.name, e.where(), e.raw))
    return out


# -- the frames -------------------------------------------------------------
def mappings(trees):
    """frame -> [(tree, entry)] over every user PTE of trees that holds one."""
    out = collections.defaultdict(list)
    for t in trees:
        for e in t.frames():
            out[e.frame].append((t, e))
    return out


def who(maps, more=3):
    s = ", ".join("%s at 0x%08x" % (t.name, e.va) for t, e in maps[:more])
    return s + (" and %d more" % (len(maps) - more) if len(maps) > more else "")


def frame_problems(trees, refs, zero, in_use, zero_bytes=None, private=True, counted=None):
    """The frames of trees (every process's) against the kernel's books:
    refs(pfn) is frame_refs[pfn]; zero the zero page's address (0: none);
    in_use(pfn) the allocator's bit; zero_bytes the zero page's bytes.
    Every frame a user PTE holds counts as many PTEs as hold it (the zero
    page none) and is in use; the zero page is mapped read-only, holds
    zeros and is in use. private: no areas are MAP_SHARED, so a frame two
    PTEs hold is read-only in both (copy-on-write). counted: the frames
    whose count to look at when no PTE holds them (default: none)."""
    out = []
    maps = mappings(trees)
    for pa in sorted(maps):
        m, pfn = maps[pa], pa >> 12
        if not in_use(pfn):
            out.append("frame 0x%x: mapped by %s, found free in the page allocator (pfn_bits): "
                       "freed while still mapped" % (pa, who(m)))
        if pa == zero:
            w = [(t, e) for t, e in m if e.raw & RW]
            if w:
                out.append("frame 0x%x (the zero page): expected read-only everywhere, found RW "
                           "in %s" % (pa, who(w)))
            if refs(pfn):
                out.append("frame 0x%x (the zero page): expected frame_refs[0x%x] = 0 (never "
                           "counted), found %d" % (pa, pfn, refs(pfn)))
            continue
        if refs(pfn) != len(m):
            out.append("frame 0x%x: expected frame_refs[0x%x] = %d (the PTEs that map it: %s), "
                       "found %d" % (pa, pfn, len(m), who(m), refs(pfn)))
        if private and len(m) > 1:
            w = [(t, e) for t, e in m if e.raw & RW]
            if w:
                out.append("frame 0x%x: mapped by %d PTEs, expected read-only in each (no area "
                           "is shared), found RW in %s" % (pa, len(m), who(w)))
    for pfn in sorted(counted or ()):
        if (pfn << 12) not in maps and pfn << 12 != zero and refs(pfn):
            out.append("frame 0x%x: expected frame_refs[0x%x] = 0 (no PTE maps it), found %d"
                       % (pfn << 12, pfn, refs(pfn)))
    if zero:
        if not in_use(zero >> 12):
            out.append("frame 0x%x (the zero page): found free in the page allocator" % zero)
        if zero_bytes is not None and zero_bytes.strip(b"\0"):
            at = next(i for i, b in enumerate(zero_bytes) if b)
            out.append("frame 0x%x (the zero page): expected zeros, found byte 0x%x = 0x%02x"
                       % (zero, at, zero_bytes[at]))
    for t in trees:
        for pa in t.tables:
            if not in_use(pa >> 12):
                out.append("%s: its page table at 0x%x is free in the page allocator"
                           % (t.name, pa))
    return out


def pages_problems(trees, pages):
    """Each mm's count (pages: tree name -> ps PAGES) against its tree."""
    return ["%s: expected ps PAGES %d (%d frames its PTEs hold, %d pages of tables and its mm), "
            "found %d" % (t.name, t.pages(), len(t.frames()), t.pages() - len(t.frames()),
                          pages[t.name])
            for t in trees if t.name in pages and pages[t.name] != t.pages()]


# -- the machine, read once -------------------------------------------------
class Pages:
    """Guest RAM read a page at a time as asked, with the CPU stopped,
    kept: fetch(pfns) -> {pfn: page} (pmem_fetch(): a pmemsave per run
    of pages). After done() nothing more is read."""

    def __init__(self, fetch):
        self.fetch, self.kept = fetch, {}

    def need(self, pas):
        """Fetches the pages of pas not yet kept, in one call."""
        want = sorted({pa >> 12 for pa in pas} - set(self.kept))
        if want:
            self.kept.update(self.fetch(want))

    def read(self, pa, size):
        """size bytes at pa, within one page."""
        if pa >> 12 not in self.kept:
            if self.fetch is None:
                raise KeyError("0x%x: a page the model did not read" % pa)
            self.need([pa])
        return self.kept[pa >> 12][pa % PAGE:pa % PAGE + size]

    def done(self):
        self.fetch = None       # the CPU goes on: nothing more is read

    def u32(self, pa):
        return struct.unpack("<I", self.read(pa, 4))[0]

    def page(self, pa):
        return self.read(pa & ~(PAGE - 1), PAGE)


class Machine(Pages):
    """The machine as the guest's RAM holds it, read with the CPU stopped:
    the trees of the processes procs ({name: cr3}) and of the kernel, and
    the pages a check may read (the tables, the frames they map, the
    counts, the bitmap, the zero page), fetched by fetch(pfns) ->
    {pfn: page} (pmem_fetch(): a pmemsave per run of pages)."""

    def __init__(self, fetch, syms, procs, nxe=True):
        Pages.__init__(self, fetch)
        self.nxe = nxe
        words = [syms[n] - PAGE_OFFSET for n in ("frame_refs", "zero_page_pa", "max_low_pfn")]
        self.refs_table, self.zero, self.pfns = (self.u32(w) for w in words)
        self.bitmap = syms["pfn_bits"] - PAGE_OFFSET
        keep = spanned(self.bitmap, self.pfns // 8 + 4)
        if self.refs_table:
            keep |= spanned(self.refs_table - PAGE_OFFSET, self.pfns)
        self.need(keep)
        self.kernel = Tree(self.read, syms["swapper_pg_dir"] - PAGE_OFFSET, "the kernel",
                           kernel=True)
        # a kernel task (the shell) runs on the kernel's own tables: no mm
        self.trees = [Tree(self.read, cr3, name) for name, cr3 in sorted(procs.items())
                      if cr3 & ~(PAGE - 1) != self.kernel.cr3]
        self.by_name = {t.name: t for t in self.trees}
        self.need({self.zero} | {e.frame for t in self.trees for e in t.frames()})
        self.done()

    def refs(self, pfn):
        return self.read(self.refs_table - PAGE_OFFSET + pfn, 1)[0] if self.refs_table else 0

    def in_use(self, pfn):
        return bool(self.u32(self.bitmap + 4 * (pfn // 32)) >> (pfn % 32) & 1)

    def counted(self):
        """The frames frame_refs[] counts (a count not 0)."""
        if not self.refs_table:
            return []
        table = self.refs_table - PAGE_OFFSET
        data = b"".join(self.page(pa) for pa in sorted(spanned(table, self.pfns)))
        data = data[table % PAGE:table % PAGE + self.pfns]
        return [pfn for pfn, n in enumerate(data) if n]

    def problems(self, pages=None, want=None, private=True, leaks=False):
        """Every problem of every tree and frame, as lines; pages: name ->
        ps PAGES; want: name -> the want(e) of tree_problems(); leaks: a
        frame counted that no PTE of the processes maps is one too (only
        where procs is every process and nothing else, a memfd, holds a
        count)."""
        out = kernel_problems(self.kernel, self.nxe)
        for t in self.trees:
            out += tree_problems(t, self.nxe, self.kernel.pdpt[3], (want or {}).get(t.name))
        if not self.refs_table and self.trees:
            out.append("frame_refs: expected the count table while processes run, found NULL")
        else:
            out += frame_problems(self.trees, self.refs, self.zero, self.in_use,
                                  self.page(self.zero) if self.zero else None, private,
                                  self.counted() if leaks else None)
        out += pages_problems(self.trees, pages or {})
        return out


def spanned(pa, size):
    """The pages [pa, pa + size) touches."""
    return set(range(pa & ~(PAGE - 1), pa + size, PAGE))


def runs(pfns):
    """Sorted pfns as [(first, count)] of consecutive ones."""
    out = []
    for pfn in pfns:
        if out and out[-1][0] + out[-1][1] == pfn:
            out[-1][1] += 1
        else:
            out.append([pfn, 1])
    return [tuple(r) for r in out]


def bytes_fetch(ram):
    """fetch() over a RAM image held here (the host tests')."""
    return lambda pfns: {pfn: bytes(ram[pfn * PAGE:(pfn + 1) * PAGE]).ljust(PAGE, b"\0")
                         for pfn in pfns}


def pmem_fetch(g, tmpdir):
    """fetch() by QEMU: a pmemsave per run of consecutive pages."""
    path = os.path.join(tmpdir, "pmem.bin")

    def fetch(pfns):
        out = {}
        for first, n in runs(pfns):
            said = g.monitor('pmemsave 0x%x 0x%x "%s"' % (first * PAGE, n * PAGE, path))
            if said.strip():
                raise RuntimeError("pmemsave: %s" % said.strip())
            with open(path, "rb") as f:
                data = f.read()
            out.update({first + i: data[i * PAGE:(i + 1) * PAGE] for i in range(n)})
        os.remove(path)
        return out
    return fetch


@contextlib.contextmanager
def stopped(g):
    """The CPU stopped by the monitor for the block's reads (not where the
    gdbstub holds it: the monitor's cont would let it go)."""
    g.monitor("stop")
    try:
        yield
    finally:
        g.monitor("cont")


def snapshot(g, syms, procs, tmpdir, nxe=True):
    """A Machine of g now, every page of it read with the CPU stopped."""
    with stopped(g):
        return Machine(pmem_fetch(g, tmpdir), syms, procs, nxe)
