# SPDX-License-Identifier: GPL-2.0-only
"""The memory-map picture (tools/memmap.py) tells the truth: a real dump is
drawn, rendered to PNG by rsvg-convert, decoded here, and the colour of the
pixels where the layout says each page is drawn is compared with the
permission the dump gives that page. The same check on a dump with one
range flipped to RW+X must fail, so the check can fail at all."""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

from guest import BUILD, ROOT, Guest
import png
import ptdump

sys.path.insert(0, os.path.join(ROOT, "tools"))
import memmap  # noqa: E402

PAGE = 4096
OUT = os.path.join(BUILD, "results", "map")
# a rendered colour may differ from the SVG's by antialiasing at most this
TOLERANCE = 10


def ranges(syms):
    """(what, start, end, bar) checked page by page."""
    off = memmap.PAGE_OFFSET
    return [("low 640K", off, memmap.BIOS_BEGIN, "direct"),
            ("BIOS hole 640K-1M", memmap.BIOS_BEGIN, memmap.BIOS_END, "direct"),
            ("kernel text", syms["_text"], syms["_etext"], "direct"),
            ("kernel text", syms["_text"], syms["_etext"], "image"),
            ("rodata", syms["__start_rodata"], syms["__end_rodata"], "image"),
            ("ro_after_init", syms["__start_ro_after_init"], syms["__end_ro_after_init"], "image"),
            ("data", syms["_sdata"], syms["_edata"], "image"),
            ("freed init", syms["__init_begin"], syms["__init_end"], "image"),
            ("bss", syms["__bss_start"], syms["_end"], "image")]


def expected(runs, va):
    """The colour the dump gives va (read by the tests' own parser), or
    None where it is not present."""
    run = next(r for r in runs if r.start <= va < r.end)
    return memmap.COLOURS[memmap.perm_of(run.rw, run.nx)] if run.present else None


def rgb(hexcolour):
    return tuple(int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))


def matches(pixel, colour):
    """A present page must show its colour; an absent one none of the four."""
    if colour is None:
        return not any(matches(pixel, c) for c in memmap.COLOURS.values())
    return all(abs(p - q) <= TOLERANCE for p, q in zip(pixel, rgb(colour)))


def wrong_pages(img, lay, runs, lo, hi, key):
    """Pages in [lo, hi) drawn in bar key in a colour the dump does not give them."""
    wrong = []
    for va in range(lo, hi, PAGE):
        bar, x = lay.locate(va + PAGE // 2, key)
        pixel = img.pixel(x, bar.sample_y)
        if not matches(pixel, expected(runs, va)):
            wrong.append("%08x drawn %s at x=%d, dump says %s"
                         % (va, "#%02x%02x%02x" % pixel, x, expected(runs, va) or "absent"))
    return wrong


def wrong_overview(img, lay, runs):
    """The middle of each block of the overview, against its run."""
    bar = lay.bar("overview")
    wrong = []
    for start, end, x0, x1 in bar.segs:
        pixel = img.pixel((x0 + x1) / 2, bar.sample_y)
        if not matches(pixel, expected(runs, start)):
            wrong.append("block %08x-%08x drawn #%02x%02x%02x" % ((start, end % (1 << 32)) + pixel))
    return wrong


def overlaps(lay):
    """Pairs of labels whose texts overlap (same bar, same side, same row)."""
    out = []
    for bar in lay.bars:
        for side in (bar.above, bar.below):
            out += ["%s / %s" % (a.text, b.text) for i, a in enumerate(side) for b in side[i + 1:]
                    if a.row == b.row and a.left < b.right and b.left < a.right]
    return out


# what the module loader gives each group (seed 003)
GROUP_PERM = {"text": "ro             GLB x ", "ro": "ro             GLB NX",
              "ro_after_init": "ro             GLB NX", "rw": "RW             GLB NX"}


def with_modules(dump, groups):
    """The dump with the module area holding groups (from lsmod lines)."""
    def run(start, end, attrs):
        return "0x%08x-0x%08x   %9dK %-26spte" % (start, end, (end - start) >> 10, attrs)

    lines, va = [], memmap.MODULES_VADDR
    for g in sorted(groups, key=lambda g: g.start):
        if g.start > va:
            lines.append(run(va, g.start, ""))
        lines.append(run(g.start, g.start + g.size, "    " + GROUP_PERM[g.group]))
        va = g.start + g.size
    lines.append(run(va, memmap.MODULES_END, ""))
    return re.sub(r"^0xf8000000-0xfc000000.*$", "\n".join(lines), dump, flags=re.M)


def draw(name, dump, syms, groups=()):
    """Writes NAME.svg and NAME.png; returns (svg text, decoded PNG, layout).
    Raises ValueError or ET.ParseError when the SVG is not well-formed."""
    os.makedirs(OUT, exist_ok=True)
    base = os.path.join(OUT, name)
    lay = memmap.layout(dump, syms, groups)
    svg = memmap.render(lay, name)
    with open(base + ".svg", "w") as f:
        f.write(svg)
    ET.fromstring(svg)
    memmap.to_png(base + ".svg", base + ".png")
    return svg, png.read(base + ".png"), lay


def flip_to_rwx(dump, va):
    """The dump with the run that holds va turned RW+X."""
    def flip(m):
        start, end = int(m.group(1), 16), int(m.group(2), 16) or 1 << 32
        if not start <= va < end:
            return m.group(0)
        return "%s     RW             GLB x  %s" % (m.group(0)[:m.start(3) - m.start(0)],
                                                   m.group(4))
    rx = re.compile(r"^(?:0x([0-9a-f]{8})-0x([0-9a-f]{8})\s+\d+[KMGT])(\s.*?)(pte|pmd)$", re.M)
    return rx.sub(flip, dump)


def test_map(t):
    if not shutil.which("rsvg-convert"):
        t.skip("memory map rendered and its colours checked",
               "rsvg-convert is not installed (Debian: librsvg2-bin)")
        return
    with Guest("map") as g:
        g.wait_ready()
        dump = g.command("ptdump")
        g.poweroff()
    syms = memmap.read_nm(os.path.join(BUILD, "kernel.elf"))
    runs = ptdump.parse(dump)
    try:
        svg, img, lay = draw("default", dump, syms)
    except (ValueError, ET.ParseError) as e:
        t.fail("the SVG is well-formed and rsvg-convert renders it", str(e))
        return
    t.check(img.width == memmap.WIDTH and img.height == lay.height,
            "the SVG is well-formed and rsvg-convert renders it (%dx%d PNG)"
            % (img.width, img.height))
    for what, lo, hi, key in ranges(syms):
        wrong = wrong_pages(img, lay, runs, lo, hi, key)
        pages = (hi - lo) // PAGE
        t.check(not wrong, "%s bar: %s (%d page%s) drawn in the dump's colour"
                % (key, what, pages, "s" if pages != 1 else ""), "; ".join(wrong[:4]))
    wrong = wrong_overview(img, lay, runs)
    t.check(not wrong, "overview: every ptdump block drawn in its colour", "; ".join(wrong[:4]))
    bad = overlaps(lay)
    t.check(not bad, "no two labels overlap", "; ".join(bad[:4]))
    check_modules(t, dump, syms)

    # the check must be able to fail: draw rodata RW+X, compare with the real dump
    rodata = syms["__start_rodata"]
    _, bad_img, bad_lay = draw("rodata-flipped-rwx", flip_to_rwx(dump, rodata), syms)
    wrong = wrong_pages(bad_img, bad_lay, runs, rodata, syms["__end_rodata"], "image")
    bar, x = bad_lay.locate(rodata + PAGE // 2, "image")
    t.check(wrong and matches(bad_img.pixel(x, bar.sample_y), memmap.COLOURS["RW+X"]),
            "a dump with rodata flipped to RW+X is drawn red and fails the check",
            "pages flagged: %d" % len(wrong))


def check_modules(t, dump, syms):
    """The lsmod format documented in memmap.py, drawn into the module area
    of a dump that has those pages (the loader itself is tested elsewhere)."""
    groups = memmap.parse_lsmod(memmap.__doc__)
    t.check(len(groups) == 5, "memmap parses its documented lsmod example (5 groups)",
            repr(groups))
    if not groups:
        return
    dump = with_modules(dump, groups)
    svg, img, lay = draw("modules-example", dump, syms, groups)
    lo, hi = groups[0].start, groups[-1].start + groups[-1].size
    wrong = wrong_pages(img, lay, ptdump.parse(dump), lo, hi + PAGE, "modules")
    t.check(not wrong, "modules bar: each group's pages drawn in the dump's colour",
            "; ".join(wrong[:4]))
    t.check("hello (core)" in svg and "hello (init)" in svg and "rw 4K" in svg,
            "modules bar: regions and groups labelled from lsmod")
