# SPDX-License-Identifier: GPL-2.0-only
"""A small reader of 32-bit little-endian ELF files (the kernel's objects
and build/kernel.elf): sections, symbols, REL relocations, bytes at a
virtual address. Only what the lab grader needs (tools/labinspect.py,
labs/grading.py's teacher's self-test list); no pyelftools.

    e = Elf32(path)
    e.sections            [Section(name, type, flags, addr, offset, size, link, info, entsize)]
    e.section(".ktests")  one Section or None
    e.data(sec)           its bytes
    e.symbols()           [Symbol(name, value, size, bind, type, shndx)]
    e.relocations(sec)    [(offset, type, Symbol)] of the REL section applying to sec
    e.read_va(va, n)      n bytes at a virtual address (an allocated section's)
    e.cstring_at(va)      the NUL-terminated string there
"""
import struct
from collections import namedtuple

Section = namedtuple("Section", "index name type flags addr offset size link info entsize")
Symbol = namedtuple("Symbol", "name value size bind type shndx")

SHT_SYMTAB, SHT_REL, SHT_NOBITS = 2, 9, 8
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
STT_SECTION = 3
SHN_UNDEF, SHN_COMMON = 0, 0xfff2


class ElfError(Exception):
    pass


class Elf32:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.raw = f.read()
        if self.raw[:4] != b"\x7fELF" or self.raw[4] != 1 or self.raw[5] != 1:
            raise ElfError("%s: not a 32-bit little-endian ELF file" % path)
        (self.type, _machine, _v, _entry, _phoff, shoff, _flags, _ehsize, _phentsize, _phnum,
         shentsize, shnum, shstrndx) = struct.unpack_from("<HHIIIIIHHHHHH", self.raw, 16)
        heads = [struct.unpack_from("<IIIIIIIIII", self.raw, shoff + i * shentsize)
                 for i in range(shnum)]
        strtab = heads[shstrndx] if shnum else None
        self.sections = []
        for i, h in enumerate(heads):
            name = self._str(strtab[4], h[0]) if strtab else ""
            self.sections.append(Section(i, name, h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                                         h[9]))
        self._syms = None

    def _str(self, off, idx):
        end = self.raw.index(b"\0", off + idx)
        return self.raw[off + idx:end].decode("latin-1")

    def section(self, name):
        return next((s for s in self.sections if s.name == name), None)

    def data(self, sec):
        if sec.type == SHT_NOBITS:
            return b"\0" * sec.size
        return self.raw[sec.offset:sec.offset + sec.size]

    def symbols(self):
        if self._syms is None:
            self._syms = []
            tab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
            if tab is not None:
                strs = self.sections[tab.link].offset
                for i in range(tab.size // 16):
                    name, value, size, info, _other, shndx = struct.unpack_from(
                        "<IIIBBH", self.raw, tab.offset + i * 16)
                    nm = self._str(strs, name)
                    if info & 0xf == STT_SECTION and shndx < len(self.sections):
                        nm = self.sections[shndx].name
                    self._syms.append(Symbol(nm, value, size, info >> 4, info & 0xf, shndx))
        return self._syms

    def relocations(self, sec):
        """[(offset, type, Symbol)] of the REL section that applies to sec."""
        out = []
        syms = self.symbols()
        for r in self.sections:
            if r.type == SHT_REL and r.info == sec.index:
                for i in range(r.size // 8):
                    off, info = struct.unpack_from("<II", self.raw, r.offset + i * 8)
                    out.append((off, info & 0xff, syms[info >> 8]))
        return out

    def read_va(self, va, n):
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= va and va + n <= s.addr + s.size:
                return self.data(s)[va - s.addr:va - s.addr + n]
        raise ElfError("0x%08x: in no allocated section" % va)

    def cstring_at(self, va, limit=256):
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= va < s.addr + s.size:
                d = self.data(s)[va - s.addr:va - s.addr + limit]
                return d.split(b"\0", 1)[0].decode("latin-1")
        raise ElfError("0x%08x: in no allocated section" % va)
