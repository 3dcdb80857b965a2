# SPDX-License-Identifier: GPL-2.0-only
"""Lab 1, layout: linker.ld lays the image out in whole pages (seed 001
steps 1-2, seed 002's vmlinux_32.lds.S hunks). See docs/labs/layout.md."""
import os
import re
import subprocess

from grading import (CheckFailed, check, expect_log, kernel_symbols, ktap_check, pages_check,
                     readelf, step)

PAGE = 4096
# (symbol, the section it must start or end) in image order
BOUNDARIES = [
    ("_text", ".text", "start"), ("_etext", ".text", "end"),
    ("__start_rodata", ".rodata", "start"), ("__end_rodata", ".rodata", "end"),
    ("__start_ro_after_init", ".data..ro_after_init", "start"),
    ("__end_ro_after_init", ".data..ro_after_init", "end"),
    ("_sdata", ".data", "start"), ("_edata", ".data", "end"),
    ("__init_begin", ".init.text", "start"), ("__init_end", ".init.data", "end"),
    ("__bss_start", ".bss", "start"), ("_end", ".bss", "end"),
]


# one step per strip line: each output section ends on a page boundary
TEXT = step(".text", "end .text on a page boundary, before _etext is taken", "text-end")
RODATA = step(".rodata", "end .rodata on a page boundary, before __end_rodata", "text-only")
ROAI = step(".data..ro_after_init", "end ro_after_init on a page boundary", "ro-after-init-end")
DATA = step(".data", "end .data on a page boundary", "data-end")
INIT_TEXT = step(".init.text", "end init text on a page boundary", "init-text-end")
INIT_DATA = step(".init.data", "end init data on a page boundary (__init_end)", "init-data-end")
BSS = step(".bss", "end .bss on a page boundary (_end)", "bss-end")
SYMBOLS = [TEXT, RODATA, ROAI, DATA, INIT_DATA, BSS]     # the steps a symbol marks
SEGMENT_EDGES = [TEXT, RODATA, DATA, INIT_TEXT, INIT_DATA, BSS]


def sections(ctx):
    """name -> (address, size) from readelf -S."""
    out = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]{8})\s+[0-9a-f]+\s+([0-9a-f]+)",
                         readelf(ctx, "-S")):
        out[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    return out


# nasm's flags for the pad object's piece of each section
PAD_SECTIONS = [
    (".text", "progbits alloc exec nowrite"), (".rodata", "progbits alloc noexec nowrite"),
    (".data..ro_after_init", "progbits alloc noexec write"),
    (".data", "progbits alloc noexec write"), (".init.text", "progbits alloc exec nowrite"),
    (".init.data", "progbits alloc noexec write"), (".bss", "nobits alloc noexec write"),
]


def padded_link(ctx):
    """{symbol: address} of the kernel linked again with the student's
    linker.ld and one more object, with 16-4080 bytes (a multiple of 16,
    from the seed) in each section. A section that ends on a page boundary
    in kernel.elf without an ALIGN (its contents a whole number of pages
    by chance) ends inside a page here: no mistake hides."""
    rng = ctx.rng("pad")
    lines = []
    for name, flags in PAD_SECTIONS:
        size = 16 * rng.randint(1, 255)
        fill = "resb %d" % size if "nobits" in flags else "times %d db 0" % size
        lines += ["section %s %s align=16" % (name, flags), "\t" + fill]
    asm, obj = (os.path.join(ctx.build, "layout-pad." + x) for x in ("asm", "o"))
    with open(asm, "w") as f:
        f.write("\n".join(lines) + "\n")
    for cmd in (["nasm", "-f", "elf32", asm, "-o", obj],
                ["make", "-C", ctx.root, "--no-print-directory", "-s",
                 "build/kernel.padded.elf", "PAD=" + obj]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise CheckFailed("expected the padded link (%s) to work, found:\n%s"
                              % (" ".join(cmd[:1]), (r.stdout + r.stderr).strip()[-800:]))
    return kernel_symbols(os.path.join(ctx.build, "kernel.padded.elf"))


def unaligned(syms, where):
    return ["%s = 0x%08x%s: expected a multiple of 0x1000, found 0x%03x into its page"
            % (s, syms[s], where, syms[s] % PAGE)
            for s, _, _ in BOUNDARIES if s in syms and syms[s] % PAGE]


@check(points=10, name="every section boundary symbol is on a page boundary", steps=SYMBOLS)
def boundaries_aligned(ctx):
    for s, _, _ in BOUNDARIES:
        ctx.sym(s)
    bad = unaligned(ctx.syms, "") or unaligned(
        padded_link(ctx), " (linked with a pad object: a few more bytes in every section)")
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=5, name="the symbols mark where the sections really start and end", steps=[TEXT])
def symbols_match_sections(ctx):
    secs, bad = sections(ctx), []
    for s, sec, edge in BOUNDARIES:
        if sec not in secs:
            bad.append("expected a section %s, found none" % sec)
            continue
        addr, size = secs[sec]
        # a section ends where its page-aligned contents end
        want = addr if edge == "start" else addr + size
        if ctx.sym(s) != want:
            bad.append("%s: expected 0x%08x (the %s of %s), found 0x%08x"
                       % (s, want, edge, sec, ctx.sym(s)))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=5, name="program headers: text R E and page-aligned segments, none RWE",
       steps=SEGMENT_EDGES)
def program_headers(ctx):
    bad = []
    for line in readelf(ctx, "-l").splitlines():
        f = line.split()
        if not f or f[0] != "LOAD":
            continue
        va, memsz, flags = int(f[2], 16), int(f[5], 16), " ".join(f[6:-1])
        if "W" in flags and "E" in flags:
            bad.append("LOAD at 0x%08x: expected RW or R E, found %s" % (va, flags))
        if va % PAGE or (va + memsz) % PAGE:
            bad.append("LOAD at 0x%08x-0x%08x (%s): expected whole pages, found an edge "
                       "inside a page" % (va, va + memsz, flags))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=5, name="the kernel applies its policy (image laid out in pages)", steps=SYMBOLS)
def policy_applied(ctx):
    g = ctx.boot()
    bad = re.findall(r"^ronx: image layout: .*$", g.log, re.M)
    if bad:
        raise CheckFailed("expected no layout complaint at boot, found:\n" + "\n".join(bad))
    expect_log(g, r"^Write protecting the kernel text: \d+k$", "the text write-protected")


pages_check(10, "text RO+X, rodata RO+NX page by page (info tlb)", [
    ("_text", "_etext", "RO+X", ".text"),
    ("__start_rodata", "__end_ro_after_init", "RO+NX", ".rodata and ro_after_init")],
    steps=SYMBOLS)
pages_check(10, "data, freed init and bss RW+NX page by page (info tlb)", [
    ("_sdata", "_edata", "RW+NX", ".data"),
    ("__init_begin", "__init_end", "RW+NX", "freed init memory"),
    ("__bss_start", "_end", "RW+NX", ".bss")], steps=SYMBOLS)


ktap_check(5, "selftest image: the kernel's own probes of its image", "image", steps=SYMBOLS)
