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


def draw(name, dump, syms):
    """Writes NAME.svg and NAME.png; returns (svg text, decoded PNG, layout).
    Raises ValueError or ET.ParseError when the SVG is not well-formed."""
    os.makedirs(OUT, exist_ok=True)
    base = os.path.join(OUT, name)
    lay = memmap.layout(dump, syms)
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

    # the check must be able to fail: draw rodata RW+X, compare with the real dump
    rodata = syms["__start_rodata"]
    _, bad_img, bad_lay = draw("rodata-flipped-rwx", flip_to_rwx(dump, rodata), syms)
    wrong = wrong_pages(bad_img, bad_lay, runs, rodata, syms["__end_rodata"], "image")
    bar, x = bad_lay.locate(rodata + PAGE // 2, "image")
    t.check(wrong and matches(bad_img.pixel(x, bar.sample_y), memmap.COLOURS["RW+X"]),
            "a dump with rodata flipped to RW+X is drawn red and fails the check",
            "pages flagged: %d" % len(wrong))
