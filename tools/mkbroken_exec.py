#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""mkbroken_exec.py - a minimal good executable and broken twins for the
loader's refusals (kernel/elf_exec_check.c), written byte by byte here so
that they depend on no toolchain's choices.

Usage: mkbroken_exec.py OUTDIR

Writes OUTDIR/broken/NAME for each executable and OUTDIR/EXPECTED, one
line per file: NAME<TAB>a substring of the error the loader must give;
"ok" for the good one (it prints a line and exits 0); "runs: TEXT" for a
good file whose code faults in ring 3 with a `traps:` line holding TEXT
(gp: hlt, a privileged instruction; ud: ud2). They go into the initrd
under bin/broken/, so the shell runs them as `run broken/NAME`.
"""
import os
import struct
import sys

EHDR = struct.Struct('<16sHHIIIIIHHHHHH')
PHDR = struct.Struct('<IIIIIIII')
PT_NULL, PT_LOAD, PT_INTERP = 0, 1, 3
PF_X, PF_W, PF_R = 1, 2, 4
BASE = 0x08048000
MSG = b"ok: a minimal ET_EXEC ran in ring 3\n"


def code(msg_addr):
    """write(1, msg, len); exit(0), in i386 machine code."""
    return (b"\xb8\x04\x00\x00\x00" + b"\xbb\x01\x00\x00\x00" +
            b"\xb9" + struct.pack("<I", msg_addr) + b"\xba" + struct.pack("<I", len(MSG)) +
            b"\xcd\x80" + b"\xb8\x01\x00\x00\x00" + b"\x31\xdb" + b"\xcd\x80")


class Exe:
    """text (R E, headers and code), rodata (R, the message), data+bss (RW)."""

    def __init__(self, text=None):
        self.text = text
        self.ident = b"\x7fELF\x01\x01\x01" + bytes(9)
        self.e_type, self.machine, self.phentsize = 2, 3, 32
        self.entry = BASE + 0xc0
        self.phoff = 52
        # small files: each segment's bytes follow the last, offset and
        # address agree modulo the page size, as Linux's loader needs too
        self.phdrs = [
            [PT_LOAD, 0, BASE, BASE, 0x100, 0x100, PF_R | PF_X, 0x1000],
            [PT_LOAD, 0x100, BASE + 0x1100, BASE + 0x1100, len(MSG), len(MSG), PF_R, 0x1000],
            [PT_LOAD, 0x140, BASE + 0x2140, BASE + 0x2140, 4, 0x2000 - 0x140, PF_R | PF_W, 0x1000],
        ]
        self.size = 0x144

    def bytes(self):
        out = bytearray(self.size)
        n = len(self.phdrs)
        EHDR.pack_into(out, 0, self.ident, self.e_type, self.machine, 1, self.entry,
                       self.phoff, 0, 0, 52, self.phentsize, n, 40, 0, 0)
        if self.phoff + 32 * n <= len(out):
            for i, p in enumerate(self.phdrs):
                PHDR.pack_into(out, self.phoff + 32 * i, *p)
        c = self.text or code(BASE + 0x1100)
        out[0xc0:0xc0 + len(c)] = c
        out[0x100:0x100 + len(MSG)] = MSG
        return bytes(out)


def variant(fn):
    e = Exe()
    fn(e)
    return e


def set_phdr(i, field, value):
    def fn(e):
        e.phdrs[i][field] = value
    return fn


OFFSET, VADDR, FILESZ, MEMSZ, FLAGS = 1, 2, 4, 5, 6

BROKEN = {
    "not_elf": (lambda e: setattr(e, "ident", b"\x7fELG" + e.ident[4:]), "not an ELF file"),
    "class64": (lambda e: setattr(e, "ident", e.ident[:4] + b"\x02" + e.ident[5:]), "EI_CLASS"),
    "not_i386": (lambda e: setattr(e, "machine", 62), "e_machine 62 is not EM_386"),
    "pie": (lambda e: setattr(e, "e_type", 3), "ET_DYN"),
    "object": (lambda e: setattr(e, "e_type", 1), "ET_REL"),
    "phdrs_outside": (lambda e: setattr(e, "phoff", 0x10000), "do not fit in the file"),
    "filesz_gt_memsz": (set_phdr(2, FILESZ, 0x3000), "is larger than p_memsz"),
    "beyond_file": (set_phdr(1, OFFSET, 0x140), "does not fit in the file"),
    "kernel_half": (set_phdr(2, VADDR, 0xbffff000), "reaches into the kernel half"),
    "stack_area": (set_phdr(2, VADDR, 0x50000000), "reaches the mmap area and the stack"),
    "low": (set_phdr(1, VADDR, 0x1000), "below mmap_min_addr"),
    "overlap": (set_phdr(1, VADDR, BASE + 0x80), "overlaps PT_LOAD"),
    "wx_load": (set_phdr(2, FLAGS, PF_R | PF_W | PF_X), "asks for a writable and executable segment"),
    "entry_outside": (lambda e: setattr(e, "entry", BASE + 0x2140), "is not in an executable"),
    "interp": (set_phdr(1, 0, PT_INTERP), "dynamically linked"),
    "no_load": (lambda e: [p.__setitem__(0, PT_NULL) for p in e.phdrs], "no PT_LOAD"),
}


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "broken"), exist_ok=True)
    lines = []
    with open(os.path.join(out, "broken", "ok"), "wb") as f:
        f.write(Exe().bytes())
    lines.append("ok\tok")
    with open(os.path.join(out, "broken", "truncated"), "wb") as f:
        f.write(Exe().bytes()[:20])
    lines.append("truncated\tfile too short for an ELF header")
    for name, text, msg in (("gp", b"\xf4", "general protection fault"),
                            ("ud", b"\x0f\x0b", "trap invalid opcode")):
        with open(os.path.join(out, "broken", name), "wb") as f:
            f.write(Exe(text).bytes())
        lines.append("%s\truns: %s" % (name, msg))
    for name, (fn, msg) in sorted(BROKEN.items()):
        with open(os.path.join(out, "broken", name), "wb") as f:
            f.write(variant(fn).bytes())
        lines.append("%s\t%s" % (name, msg))
    with open(os.path.join(out, "EXPECTED"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
