# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of labs/pagemodel.py, the outside model of the page tables:
a hand-made RAM of 64 pages with the kernel's tree, two processes that
share a frame copy-on-write, the zero page and a PROT_NONE frame, the
count table and the allocator's bitmap. The honest machine has no
problem; each wrong bit, count or frame is named by level, address and
bit, expected against found."""
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))

import pagemodel as pm  # noqa: E402
from pagemodel import A, G, NX, P, PCD, PROTNONE, PS, PWT, RW, US  # noqa: E402

K = pm.PAGE_OFFSET
SYMS = {"swapper_pg_dir": K + 0x1000, "frame_refs": K + 0xD000, "zero_page_pa": K + 0xD004,
        "pfn_bits": K + 0xF000, "max_low_pfn": K + 0xD008}
USER_PDE = P | RW | US
VA = 0x04000000     # the processes' page table covers 0x04000000-0x041fffff
ZERO = 0x12000


class Ram:
    """The RAM of the honest machine; each test spoils one thing."""

    def __init__(self):
        self.b = bytearray(64 * pm.PAGE)
        self.q(0x1000 + 24, 0x2000 | P)                 # the kernel: PDPT entry 3
        self.q(0x2000, 0 | P | RW | PS | G)             # a 2 MiB page at 0xc0000000
        self.q(0x2008, 0x200000 | P | RW | PS | G | NX)
        for pdpt, pds, pt in ((0x3000, (0x4000, 0x5000, 0x6000), 0x7000),
                              (0x8000, (0x9000, 0xA000, 0xB000), 0xC000)):
            for i, pd in enumerate(pds):
                self.q(pdpt + 8 * i, pd | P)
            self.q(pdpt + 24, 0x2000 | P)
            self.q(pds[0] + 8 * (VA >> 21), pt | USER_PDE)
        # process a: its own page, the shared one, the zero page, a PROT_NONE frame
        self.pte("a", 0, 0x10000 | P | US | RW | NX)
        self.pte("a", 1, 0x11000 | P | US | NX)
        self.pte("a", 2, ZERO | P | US | NX)
        self.pte("a", 3, 0x13000 | PROTNONE)
        self.pte("b", 1, 0x11000 | P | US | NX)         # process b shares page 1
        self.b[0xD000:0xD00C] = struct.pack("<III", K + 0xE000, ZERO, 64)
        for pfn, n in ((0x10, 1), (0x11, 2), (0x13, 1)):
            self.b[0xE000 + pfn] = n
        self.b[0xF000:0xF008] = b"\xff" * 8             # every frame in use

    def q(self, pa, v):
        self.b[pa:pa + 8] = struct.pack("<Q", v)

    def q_at(self, pa):
        return struct.unpack("<Q", self.b[pa:pa + 8])[0]

    def pte(self, proc, i, v):
        self.q({"a": 0x7000, "b": 0xC000}[proc] + 8 * i, v)

    def free(self, pfn):
        self.b[0xF000 + pfn // 8] &= ~(1 << pfn % 8)

    def machine(self, nxe=True):
        return pm.Machine(pm.bytes_fetch(bytes(self.b)), SYMS, {"a": 0x3000, "b": 0x8000}, nxe)


PAGES = {"a": 4 + 5 + 1, "b": 1 + 5 + 1}


def problems(ram, nxe=True, pages=PAGES, **kw):
    return ram.machine(nxe).problems(pages, **kw)


def expect(ram, words, nxe=True, **kw):
    got = problems(ram, nxe, **kw)
    assert got, "expected a problem with %s, found none" % words
    for w in words:
        assert any(w in line for line in got), "expected %r in:\n%s" % (w, "\n".join(got))


def test_honest_machine():
    r = Ram()
    assert problems(r) == [], problems(r)
    m = r.machine()
    assert [t.pages() for t in m.trees] == [10, 7]
    assert m.by_name["a"].leaf(VA + 0x234).frame == 0x10000
    assert m.by_name["a"].leaf(VA + 3 * pm.PAGE) is None
    assert m.by_name["a"].pte(VA + 3 * pm.PAGE).frame == 0x13000
    assert m.page(0x11000) == bytes(pm.PAGE)
    # without NX the honest tree has no NX bit; with it, the same tree passes
    for i, v in ((0, 0x10000 | P | US | RW), (1, 0x11000 | P | US), (2, ZERO | P | US)):
        r.pte("a", i, v)
    r.pte("b", 1, 0x11000 | P | US)
    r.q(0x2008, 0x200000 | P | RW | PS | G)
    assert problems(r, nxe=False) == [], problems(r, nxe=False)


def test_pdpte_reserved_bits():
    for bit, name in ((RW, "RW"), (US, "US"), (0x40, "D"), (PS, "PS"), (G, "G"), (NX, "NX"),
                      (1 << 40, "bit 40")):
        r = Ram()
        r.q(0x3000, 0x4000 | P | bit)
        expect(r, ["a PDPTE of 0x00000000", "reserved %s set" % name])
    r = Ram()
    r.q(0x8000 + 8, 0xA000 | P | A)         # TCG sets A as it walks: not the kernel's
    assert problems(r) == []
    assert any("reserved A" in line for line in
               pm.tree_problems(r.machine().by_name["b"], True, cpu_sets_pdpte_a=False))


def test_pde_and_pte_reserved_bits():
    r = Ram()
    r.q(0x4000 + 8 * (VA >> 21), 0x7000 | USER_PDE | 1 << 36)
    expect(r, ["a PDE of 0x04000000", "reserved bit 36 set"])
    r = Ram()
    r.pte("a", 0, 0x10000 | P | US | RW | 1 << 51)
    expect(r, ["a PTE of 0x04000000", "reserved bit 51"])
    r = Ram()       # NX on a CPU without it (EFER.NXE clear)
    expect(r, ["a PTE of 0x04000000", "reserved NX"], nxe=False)
    r = Ram()       # a 2 MiB page's frame must be 2 MiB aligned: bits 13-20 reserved
    r.q(0x2000, 0x2000 | P | RW | PS | G)
    expect(r, ["the kernel PDE of 0xc0000000", "reserved bit 13"])


def test_not_present_entries_have_no_reserved_bits():
    # the CPU reads no bit of an entry that is not present: a PROT_NONE
    # PTE that kept NX on a CPU without it, or high bits, is no problem
    # (the same rule as reserved_entries())
    r = Ram()
    for i, v in ((0, 0x10000 | P | US | RW), (1, 0x11000 | P | US), (2, ZERO | P | US)):
        r.pte("a", i, v)
    r.pte("b", 1, 0x11000 | P | US)
    r.q(0x2008, 0x200000 | P | RW | PS | G)
    r.pte("a", 3, 0x13000 | PROTNONE | NX | 1 << 51)
    assert problems(r, nxe=False) == [], problems(r, nxe=False)
    assert pm.reserved_entries(r.machine(nxe=False).by_name["a"], False) == []
    r.pte("a", 3, 0x13000 | PROTNONE | P | NX)      # present: the CPU reads NX
    expect(r, ["a PTE of 0x04003000", "reserved NX"], nxe=False)


def test_pte_policy_bits():
    for bit, name, want in ((G, "G", 0), (PWT, "PWT", 0), (PCD, "PCD", 0), (PS, "PS", 0)):
        r = Ram()
        r.pte("a", 0, 0x10000 | P | US | RW | NX | bit)
        expect(r, ["a PTE of 0x04000000", "bit %s: expected %d, found 1" % (name, want)])
    r = Ram()
    r.pte("a", 0, 0x10000 | P | RW | NX)
    expect(r, ["a PTE of 0x04000000", "bit US: expected 1, found 0"])
    r = Ram()
    r.pte("a", 5, 0x15000)      # not present, no PROTNONE, a frame left in it
    expect(r, ["a PTE of 0x04005000", "expected a not-present PTE 0 or PROT_NONE"])
    r = Ram()       # what the CPU never reads in a not-present PTE may be anything
    r.pte("a", 3, 0x13000 | PROTNONE | US | NX)
    assert problems(r) == [], problems(r)
    r.q(0x4000 + 8 * (VA >> 21), 0x7000 | USER_PDE | G)     # G: ignored over a table
    assert problems(r) == [], problems(r)
    r = Ram()
    r.pte("a", 3, PROTNONE)     # PROT_NONE without its frame
    expect(r, ["a PTE of 0x04003000", "PROT_NONE with a frame"])


def test_area_bits():
    """want(e) gives RW and NX as the area asks: a lost NX is named."""
    r = Ram()
    want = {"a": lambda e: RW | NX if e.va == VA else NX}
    assert problems(r, want=want) == []
    r.pte("a", 0, 0x10000 | P | US | RW)
    expect(r, ["a PTE of 0x04000000", "bit NX: expected 1, found 0", "as its area asks"],
           want=want)


def test_pde_policy_bits():
    for val, words in ((0x7000 | P | RW, "bit US: expected 1, found 0"),
                       (0x7000 | P | US, "bit RW: expected 1, found 0"),
                       (0x7000 | USER_PDE | NX, "bit NX: expected 0, found 1"),
                       (0x7000 | USER_PDE | PCD, "bit PCD: expected 0, found 1")):
        r = Ram()
        r.q(0x4000 + 8 * (VA >> 21), val)
        expect(r, ["a PDE of 0x04000000", words])


def test_kernel_entries():
    r = Ram()
    r.q(0x8000 + 24, 0x2000 | P | PWT)
    expect(r, ["b PDPTE of 0xc0000000: expected the kernel's own"])
    r = Ram()
    r.q(0x2008, 0x200000 | P | RW | PS | G | US)
    expect(r, ["the kernel PDE of 0xc0200000", "bit US: expected 0"])


def test_frame_counts():
    r = Ram()
    r.b[0xE000 + 0x11] = 1      # a get forgotten: two PTEs, one count
    expect(r, ["frame 0x11000: expected frame_refs[0x11] = 2", "a at 0x04001000, b at 0x04001000",
               "found 1"])
    r = Ram()
    r.b[0xE000 + 0x13] = 0      # the PROT_NONE frame is counted too
    expect(r, ["frame 0x13000: expected frame_refs[0x13] = 1", "found 0"])
    r = Ram()
    r.b[0xE000 + 0x20] = 1      # counted, mapped by no PTE: looked at when asked
    assert problems(r) == []
    expect(r, ["frame 0x20000: expected frame_refs[0x20] = 0 (no PTE maps it), found 1"],
           leaks=True)
    assert problems(Ram(), leaks=True) == []
    m = r.machine()
    assert any("frame 0x20000: expected frame_refs[0x20] = 0" in line for line in
               pm.frame_problems(m.trees, m.refs, m.zero, m.in_use, counted=[0x20]))


def test_zero_page():
    r = Ram()
    r.b[0xE000 + 0x12] = 1
    expect(r, ["the zero page", "expected frame_refs[0x12] = 0 (never counted), found 1"])
    r = Ram()
    r.pte("a", 2, ZERO | P | US | RW | NX)
    expect(r, ["the zero page", "expected read-only everywhere, found RW in a at 0x04002000"])
    r = Ram()
    r.b[ZERO + 0x123] = 0x5a
    expect(r, ["the zero page", "expected zeros, found byte 0x123 = 0x5a"])
    r = Ram()
    r.free(0x12)
    expect(r, ["frame 0x12000", "free in the page allocator"])


def test_freed_while_mapped():
    r = Ram()
    r.free(0x11)
    expect(r, ["frame 0x11000: mapped by a at 0x04001000, b at 0x04001000", "freed while still "
               "mapped"])
    r = Ram()
    r.free(0x7)
    expect(r, ["a: its page table at 0x7000 is free"])


def test_shared_writable():
    r = Ram()
    r.pte("b", 1, 0x11000 | P | US | RW | NX)   # the parent kept RW at fork
    expect(r, ["frame 0x11000: mapped by 2 PTEs, expected read-only in each", "RW in b at "
               "0x04001000"])
    assert not any("read-only in each" in line for line in problems(r, private=False))


def test_mm_pages():
    expect(Ram(), ["b: expected ps PAGES 7 (1 frames its PTEs hold, 6 pages of tables", "found 6"],
           pages={"a": 10, "b": 6})


def test_runs():
    assert pm.runs([1, 2, 3, 7, 9, 10]) == [(1, 3), (7, 1), (9, 2)]
    assert pm.runs([]) == []


def test_bits_named():
    assert pm.bits(RW | NX) == "RW|NX"
    assert pm.bits(1 << 40 | 1) == "P|bit 40"


# pti's user set: a PDPT at a's + 0x800, entries 0-2 a's, entry 3 its own
# kernel half (a directory at 0x14000, one table at 0x15000, one page)
USET, HALF, CEA = 0x3800, 0x14000, K + 5 * pm.PAGE


def user_set():
    r = Ram()
    for i in range(3):
        r.q(USET + 8 * i, r.q_at(0x3000 + 8 * i))
    r.q(USET + 24, HALF | P)
    r.q(HALF, 0x15000 | P | RW)
    r.q(0x15000 + 8 * 5, 0x16000 | P | RW | NX)
    return r


def user_tree(r, nxe=True):
    read = pm.Pages(pm.bytes_fetch(bytes(r.b))).read
    t = pm.Tree(read, USET, "the user set", only=range(4), descend=[3])
    return t, pm.reserved_entries(t, nxe)


def test_user_set_at_any_pdpt():
    r = user_set()
    t, bad = user_tree(r)
    assert bad == [] and [e.level for e in t.entries] == [pm.PDPTE] * 4 + [pm.PDE, pm.PTE]
    assert t.leaf(CEA).frame == 0x16000 and t.tables == [0x3000, HALF, 0x15000]
    read = pm.Pages(pm.bytes_fetch(bytes(r.b))).read
    assert pm.pdpt_of(read, USET)[:3] == pm.pdpt_of(read, 0x3000)[:3]
    half = pm.Tree.directory(read, HALF, 3 << 30, "the kernel half")
    assert [(e.level, e.va) for e in half.entries] == [(pm.PDE, K), (pm.PTE, CEA)]


def test_user_set_reserved_entries():
    for pa, v, where, nxe in ((USET + 24, HALF | P | RW, (pm.PDPTE, K), True),
                              (USET + 8, 0xA000 | P | US, (pm.PDPTE, 1 << 30), True),
                              (HALF, 0x15000 | P | RW | 1 << 40, (pm.PDE, K), True),
                              (0x15000 + 40, 0x16000 | P | RW | 1 << 36, (pm.PTE, CEA), True),
                              (0x15000 + 40, 0x16000 | P | RW | NX, (pm.PTE, CEA), False)):
        r = user_set()
        r.q(pa, v)
        _, bad = user_tree(r, nxe)
        assert [(e.level, e.va) for e, _ in bad] == [where], (hex(v), bad)
    r = user_set()      # the CPU reads nothing else of an entry not present
    r.q(0x15000 + 48, 0x17000 | RW | 1 << 40)
    assert user_tree(r)[1] == []


def test_walk():
    read = pm.Pages(pm.bytes_fetch(bytes(user_set().b))).read
    w = pm.walk(read, USET, CEA + 0x123)
    assert [(e.level, e.index, e.va) for e in w] == [(pm.PDPTE, 3, K), (pm.PDE, 0, K),
                                                     (pm.PTE, 5, CEA)]
    assert w[-1].raw == 0x16000 | P | RW | NX
    assert [e.level for e in pm.walk(read, USET, K + (2 << 20))] == [pm.PDPTE, pm.PDE]
    big = pm.walk(read, 0x1000, K + 0x1234)         # the kernel's 2 MiB page: no PTE
    assert [e.level for e in big] == [pm.PDPTE, pm.PDE] and big[-1].raw & PS
    assert [e.level for e in pm.walk(read, 0x3000, VA + 4 * pm.PAGE)] == [pm.PDPTE, pm.PDE,
                                                                           pm.PTE]


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items())
         if n.startswith("test_") and callable(f)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)
