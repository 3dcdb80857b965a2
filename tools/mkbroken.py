#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""mkbroken.py - make deliberately broken module objects from a good one.

Usage: mkbroken.py GOOD.ko OUTDIR

Writes OUTDIR/NAME.ko for each breakage below and OUTDIR/EXPECTED, one
line per object: NAME<TAB>a substring of the error the loader must give.
The good object is expected to be hello.ko (it calls printk, defines
init_module and has .text with relocations).

Two are refused by the kernel rather than by elf_check():
  undef_sym   its printk became printq: "unknown symbol printq", when
              symbols are resolved against the export table;
  dup_hello   an unchanged copy of hello (.modinfo name=hello): refused
              as "already loaded" while hello is loaded.
"""
import os
import struct
import sys

EHDR = struct.Struct('<16sHHIIIIIHHHHHH')
SHDR = struct.Struct('<IIIIIIIIII')
SYM = struct.Struct('<IIIBBH')
REL = struct.Struct('<II')
SHT_STRTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 3, 4, 8, 9


class Elf:
    """A mutable ELF32 file with named access to its section headers."""

    def __init__(self, data):
        self.data = bytearray(data)
        h = EHDR.unpack_from(self.data)
        self.shoff, self.shnum, self.shstrndx = h[6], h[12], h[13]
        names = self.shdr(self.shstrndx)[4]
        self.names = [self.cstr(names + self.shdr(i)[0]) for i in range(self.shnum)]

    def cstr(self, off):
        return self.data[off:self.data.index(b'\0', off)].decode()

    def shdr(self, i):
        return list(SHDR.unpack_from(self.data, self.shoff + 40 * i))

    def set_shdr(self, i, fields):
        SHDR.pack_into(self.data, self.shoff + 40 * i, *fields)

    def index(self, name):
        return self.names.index(name)

    def section(self, name):
        return self.shdr(self.index(name))

    def set_field(self, name, field, value):
        s = self.section(name)
        s[field] = value
        self.set_shdr(self.index(name), s)

    def rename_string(self, table, old, new):
        """Replace NUL-delimited string OLD by NEW (same length) in TABLE."""
        off, size = self.section(table)[4:6]
        blob = self.data[off:off + size]
        at = blob.index(b'\0' + old.encode() + b'\0') + 1
        self.data[off + at:off + at + len(new)] = new.encode()


# field numbers in a section header
NAME, TYPE, FLAGS, ADDR, OFFSET, SIZE, LINK, INFO, ALIGN, ENTSIZE = range(10)


def first_rel(elf):
    off = elf.section('.rel.text')[OFFSET]
    return off, list(REL.unpack_from(elf.data, off))


def truncated(elf):
    del elf.data[20:]
    return 'file too short for an ELF header (20 bytes, need 52)'


def bad_class(elf):
    elf.data[4] = 2
    return 'e_ident[EI_CLASS] 2 is not ELFCLASS32 (1)'


def bad_ident_version(elf):
    elf.data[6] = 0
    return 'e_ident[EI_VERSION] 0 is not EV_CURRENT (1)'


def bad_machine(elf):
    struct.pack_into('<H', elf.data, 18, 62)
    return 'e_machine 62 is not EM_386 (3, i386)'


def not_rel(elf):
    struct.pack_into('<H', elf.data, 16, 2)
    return 'e_type 2 is not ET_REL (1, relocatable)'


def sec_beyond(elf):
    i = elf.index('.text')
    off = len(elf.data) - 4
    elf.set_field('.text', OFFSET, off)
    return 'section %d (.text) sh_offset 0x%x sh_size 0x%x beyond file' % (
        i, off, elf.section('.text')[SIZE])


def sec_overlap(elf):
    off, size = elf.section('.text')[OFFSET:SIZE + 1]
    elf.set_field('.data', OFFSET, off)
    return 'section .text (sh_offset 0x%x sh_size 0x%x) overlaps section .data (sh_offset 0x%x sh_size 0x%x)' % (
        off, size, off, elf.section('.data')[SIZE])


def strtab_unterminated(elf):
    off, size = elf.section('.strtab')[OFFSET:SIZE + 1]
    elf.data[off + size - 1] = ord('x')
    return '.strtab (section %d) is not NUL-terminated: its last byte is 0x78' % elf.index('.strtab')


def sym_out_of_range(elf):
    nsyms = elf.section('.symtab')[SIZE] // 16
    off, (r_offset, info) = first_rel(elf)
    REL.pack_into(elf.data, off, r_offset, ((nsyms + 5) << 8) | (info & 0xff))
    return 'relocation 0 in .rel.text: r_info symbol %d out of range (%d symbols)' % (nsyms + 5, nsyms)


def reloc_beyond(elf):
    size = elf.section('.text')[SIZE]
    off, (r_offset, info) = first_rel(elf)
    REL.pack_into(elf.data, off, size - 2, info)
    return 'relocation 0 in .rel.text: r_offset 0x%x beyond section .text (sh_size 0x%x)' % (size - 2, size)


def bad_reltype(elf):
    off, (r_offset, info) = first_rel(elf)
    REL.pack_into(elf.data, off, r_offset, (info & ~0xff) | 10)
    return 'relocation 0 in .rel.text: r_info type R_386_GOTPC (10) is not R_386_32 or R_386_PC32'


def rela(elf):
    elf.set_field('.rel.text', TYPE, SHT_RELA)
    return 'section .rel.text sh_type is SHT_RELA (4): RELA relocations are not used on i386'


def wx_section(elf):
    flags = elf.section('.data')[FLAGS] | 4
    elf.set_field('.data', FLAGS, flags)
    return 'section .data sh_flags 0x%x: both writable and executable (SHF_WRITE|SHF_EXECINSTR)' % flags


def bad_shstrndx(elf):
    struct.pack_into('<H', elf.data, 50, elf.shnum + 3)
    return 'e_shstrndx %d out of range (%d sections)' % (elf.shnum + 3, elf.shnum)


def undef_sym(elf):
    elf.rename_string('.strtab', 'printk', 'printq')
    return 'unknown symbol printq'


def dup_hello(elf):
    return 'already loaded'


def no_init(elf):
    elf.rename_string('.strtab', 'init_module', 'init_mudule')
    return 'no init_module symbol'


BREAKAGES = [truncated, bad_class, bad_ident_version, bad_machine, not_rel, sec_beyond, sec_overlap,
             strtab_unterminated, sym_out_of_range, reloc_beyond, bad_reltype, rela,
             wx_section, bad_shstrndx, undef_sym, dup_hello, no_init]


def main():
    good, outdir = sys.argv[1], sys.argv[2]
    with open(good, 'rb') as f:
        data = f.read()
    os.makedirs(outdir, exist_ok=True)
    lines = []
    for breakage in BREAKAGES:
        elf = Elf(data)
        expected = breakage(elf)
        with open(os.path.join(outdir, breakage.__name__ + '.ko'), 'wb') as f:
            f.write(elf.data)
        lines.append('%s\t%s\n' % (breakage.__name__, expected))
    with open(os.path.join(outdir, 'EXPECTED'), 'w') as f:
        f.writelines(lines)


if __name__ == '__main__':
    main()
