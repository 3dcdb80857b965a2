#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Draw ronx's kernel address space, coloured by page permission, from a
`ptdump` capture (Linux dump_pagetables format) as an SVG (and a PNG).

    tools/memmap.py DUMP|- -o OUT.svg [--png OUT.png] [--title TEXT]
                    [--nm build/kernel.elf] [--lsmod FILE]

With --user NAME (a dump from `ptdump PID`), a first bar shows the
process's user half the same way, each run named (text, rodata,
data/bss/heap, mmap, stack), the unmapped guard page under the stack.

The picture: an overview bar of the whole kernel half (0xc0000000 and up)
in which each ptdump run gets a width that grows with the log of its size,
so a 4K run stays visible next to 768M; under it, bars drawn to scale page
by page: the first 2 MiB of the direct map (low 640K, the BIOS hole, the
kernel image), the kernel image alone with its sections, and the module
area with each module's groups.

--nm takes build/kernel.elf (nm is run on it) or a saved `nm` output, and
reads _text _etext __start_rodata __end_rodata __start_ro_after_init
__end_ro_after_init _sdata _edata __init_begin __init_end __bss_start _end.

--lsmod FILE: the format this tool accepts, one line per module region
(a module's core, or its init region while it exists):

    NAME REGION GROUP ADDR SIZE [GROUP ADDR SIZE]...

    hello core text 0xf8000000 4096 ro 0xf8001000 4096 ro_after_init 0xf8002000 0 rw 0xf8002000 4096
    hello init text 0xf8003000 4096 ro 0xf8004000 0 ro_after_init 0xf8004000 0 rw 0xf8004000 4096

REGION is `core` or `init`; GROUP is `text`, `ro`, `ro_after_init` or `rw`;
ADDR is hex with 0x; SIZE is in bytes, decimal or 0x-hex; groups of size 0
are not drawn. Any line that does not have this shape (a header, a blank
line, a message) is ignored.

The layout is exposed for tests: layout(...) returns a Layout whose
locate(addr) gives the bar and the x coordinate where addr is drawn.
"""
import argparse
import math
import re
import shutil
import subprocess
import sys
from collections import namedtuple

PAGE = 4096
PAGE_OFFSET = 0xC0000000
TOP = 1 << 32
MB = 1 << 20
BIOS_BEGIN, BIOS_END = PAGE_OFFSET + 0xA0000, PAGE_OFFSET + 0x100000
MODULES_VADDR, MODULES_END = 0xF8000000, 0xFC000000

# permission -> (fill, legend text); red is kept for the one that is wrong
PERMS = {
    "RO+X": ("#3b6fd1", "RO+X   read-only, executable (text)"),
    "RO+NX": ("#2e9e4f", "RO+NX  read-only, not executable (rodata)"),
    "RW+NX": ("#f0c44c", "RW+NX  writable, not executable (data)"),
    "RW+X": ("#d62728", "RW+X   writable AND executable: W^X violation"),
}
COLOURS = {perm: fill for perm, (fill, _) in PERMS.items()}

NM_SYMBOLS = ("_text _etext __start_rodata __end_rodata __start_ro_after_init "
              "__end_ro_after_init _sdata _edata __init_begin __init_end "
              "__bss_start _end").split()
# (first symbol, last symbol, label) for the kernel image's close-up
SECTIONS = [("_text", "_etext", ".text"),
            ("__start_rodata", "__end_rodata", ".rodata"),
            ("__start_ro_after_init", "__end_ro_after_init", "ro_after_init"),
            ("_sdata", "_edata", ".data"),
            ("__init_begin", "__init_end", "init (freed)"),
            ("__bss_start", "_end", ".bss")]

# geometry, in px; DejaVu Sans Mono's advance is 0.602 em
WIDTH, MARGIN = 1280, 80
FONT = 12
CHAR_W = 0.61 * FONT
ROW_H = FONT + 5
LEADER_H = 16           # between a bar and its first row of labels: room for leaders
BAR_H = 40
# tests sample colours in this strip at the top of a bar: no text goes there
SAMPLE_DY = 5
HEADER_H = 124          # title, subtitle and legend

# ---------------------------------------------------------------- input --

Run = namedtuple("Run", "start end perm")     # perm None: not present
Group = namedtuple("Group", "module region group start size")

DUMP_LINE = re.compile(r"^0x([0-9a-f]{8})-0x([0-9a-f]{8})\s+\d+[KMGT]\s*(.*?)\s*(pte|pmd|pud|pgd)$")
MARKER = re.compile(r"^---\[ (.*) \]---$")


def perm_of(rw, nx):
    return "%s+%s" % ("RW" if rw else "RO", "NX" if nx else "X")


def parse_ptdump(text):
    """Runs, and markers as (address, name) for the run that follows each."""
    runs, markers, pending = [], [], []
    for line in text.splitlines():
        line = line.strip()
        m = MARKER.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = DUMP_LINE.match(line)
        if not m:
            continue
        start, end = int(m.group(1), 16), int(m.group(2), 16) or TOP
        words = m.group(3).split()
        perm = perm_of("RW" in words, "NX" in words) if words else None
        runs.append(Run(start, end, perm))
        markers += [(start, name) for name in pending]
        pending = []
    return runs, markers


def parse_nm(text):
    syms = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in NM_SYMBOLS:
            syms[parts[2]] = int(parts[0], 16)
    return syms


def read_nm(path):
    """path is an ELF file (nm is run on it) or a saved nm output."""
    with open(path, "rb") as f:
        elf = f.read(4) == b"\x7fELF"
    if elf:
        return parse_nm(subprocess.run(["nm", path], capture_output=True, text=True,
                                       check=True).stdout)
    with open(path) as f:
        return parse_nm(f.read())


LSMOD_LINE = re.compile(r"^(\S+) (core|init)((?: (?:text|ro|ro_after_init|rw) 0x[0-9a-fA-F]+ (?:0x[0-9a-fA-F]+|\d+))+)$")


def parse_lsmod(text):
    groups = []
    for line in text.splitlines():
        m = LSMOD_LINE.match(" ".join(line.split()))
        if not m:
            continue
        words = m.group(3).split()
        for i in range(0, len(words), 3):
            size = int(words[i + 2], 0)
            if size:
                groups.append(Group(m.group(1), m.group(2), words[i], int(words[i + 1], 16), size))
    return groups

# --------------------------------------------------------------- layout --


class Bar:
    """A horizontal bar: addresses map to x piecewise linearly over segs,
    a list of (start, end, x0, x1). One segment = drawn to scale."""

    def __init__(self, key, title, segs, runs):
        self.key, self.title, self.segs, self.runs = key, title, segs, runs
        self.start, self.end = segs[0][0], segs[-1][1]
        self.x0, self.x1 = segs[0][2], segs[-1][3]
        self.above, self.below = [], []     # Labels over and under the bar
        self.top, self.rows_above = 0, 0
        self.grid = False       # draw page boundaries
        self.empty = False      # say that nothing is mapped here

    def contains(self, addr):
        return self.start <= addr < self.end

    def x(self, addr):
        for start, end, x0, x1 in self.segs:
            if start <= addr <= end:
                return x0 + (x1 - x0) * (addr - start) / (end - start)
        raise ValueError("%#x is outside bar %s" % (addr, self.key))

    @property
    def bottom(self):
        return self.top + BAR_H

    @property
    def sample_y(self):
        return self.top + SAMPLE_DY


class Label:
    """Text for a bar, at anchor x, or for the span [x0, x1] (a bracket);
    left and right start centred on the anchor, place() moves them."""

    def __init__(self, text, x0, x1=None, bold=False):
        self.text, self.x0, self.x1, self.bold = text, x0, x0 if x1 is None else x1, bold
        self.anchor = (self.x0 + self.x1) / 2
        half = len(text) * CHAR_W / 2
        centre = min(max(self.anchor, MARGIN / 2 + half), WIDTH - MARGIN / 2 - half)
        self.left, self.right = centre - half, centre + half
        self.row = 0


class Layout:
    def __init__(self, bars, height):
        self.bars, self.height = bars, height

    def bar(self, key):
        return next(b for b in self.bars if b.key == key)

    def locate(self, addr, key=None):
        """(bar, x) where addr is drawn: in bar key, or the closest zoom."""
        bars = [self.bar(key)] if key else [b for b in self.bars if b.contains(addr)]
        if not bars:
            raise ValueError("%#x is on no bar" % addr)
        bar = min(bars, key=lambda b: b.end - b.start)
        return bar, bar.x(addr)


def place(labels, gap=14):
    """Puts labels in as few rows as their widths allow and spreads each
    row sideways so that no two texts overlap; a text moved away from its
    anchor gets a bent leader (draw_label). Returns the number of rows."""
    labels = sorted(labels, key=lambda l: l.anchor)
    need = sum(l.right - l.left + gap for l in labels)
    rows = math.ceil(need / (WIDTH - MARGIN)) if labels else 0
    for r in range(rows):
        for lab in labels[r::rows]:
            lab.row = r
        spread(labels[r::rows], gap)
    return rows


def spread(labels, gap):
    """One row, sorted by anchor: overlapping neighbours merge into a
    cluster laid side by side, centred on its anchors and kept inside the
    picture; merging repeats until no two clusters touch."""
    clusters = []
    for lab in labels:
        clusters.append([lab])
        while len(clusters) > 1 and cluster_left(clusters[-1], gap) < \
                cluster_left(clusters[-2], gap) + cluster_width(clusters[-2], gap) + gap:
            last = clusters.pop()
            clusters[-1] += last
    for cluster in clusters:
        x = cluster_left(cluster, gap)
        for lab in cluster:
            width = lab.right - lab.left
            lab.left, lab.right = x, x + width
            x += width + gap


def cluster_width(cluster, gap):
    return sum(l.right - l.left for l in cluster) + gap * (len(cluster) - 1)


def cluster_left(cluster, gap):
    width = cluster_width(cluster, gap)
    centre = sum(l.anchor for l in cluster) / len(cluster)
    return min(max(centre - width / 2, MARGIN / 2), WIDTH - MARGIN / 2 - width)


def clip(runs, lo, hi):
    return [Run(max(r.start, lo), min(r.end, hi), r.perm) for r in runs
            if r.end > lo and r.start < hi]


def human(size):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return "%d%s" % (size >> shift, unit)
    return "%dK" % (size >> 10) if size >= 1024 else "%dB" % size


def scale_bar(key, title, runs, lo, hi):
    """A bar drawn to scale over [lo, hi)."""
    bar = Bar(key, title, [(lo, hi, MARGIN, WIDTH - MARGIN)], clip(runs, lo, hi))
    px = (WIDTH - 2 * MARGIN) * PAGE / (hi - lo)
    bar.title = "%s, 0x%08x-0x%08x, to scale: 1 page = %s px" % (
        title, lo, hi % TOP, ("%.1f" % px) if px < 10 else "%d" % px)
    return bar


def log_bar(key, title, runs, lo, hi):
    """A bar over [lo, hi) where a run's width grows with the log of its size,
    so that 4K and 768M runs are both visible. The constant 3 is the
    minimum: a 4K run still gets room for its boundary address."""
    runs = clip(runs, lo, hi)
    weights = [3 + math.log2((r.end - r.start) / PAGE) for r in runs]
    unit = (WIDTH - 2 * MARGIN) / sum(weights)
    segs, x = [], MARGIN
    for r, w in zip(runs, weights):
        segs.append((r.start, r.end, x, x + w * unit))
        x += w * unit
    bar = Bar(key, title, segs, runs)
    for r in runs:
        bar.below.append(Label("0x%08x" % r.start, bar.x(r.start)))
    bar.below.append(Label("0x%08x" % ((hi - 1) % TOP), bar.x1))
    return bar


def overview_bar(runs, markers):
    """The kernel half, one block per ptdump line, named by the markers."""
    bar = log_bar("overview", "The kernel half, 0xc0000000-0xffffffff: one block per ptdump "
                  "line (not to scale: width grows with log size)", runs, PAGE_OFFSET, TOP)
    regions = [(a, n) for a, n in markers if a >= PAGE_OFFSET]
    for (a, name), nxt in zip(regions, [a for a, _ in regions[1:]] + [TOP]):
        bar.above.append(Label(name, bar.x(a), bar.x(nxt), bold=True))
    return bar


# A process's user half (ronx's layout, include/ronx/memlayout.h): what each
# present run below 0xc0000000 is, named for the labels above the bar.
def user_region(start, end, perm):
    if start >= 0xBFFE0000:
        return "stack"
    if start >= 0x40000000:
        return "mmap"
    return {"RO+X": "text", "RO+NX": "rodata", "RW+NX": "data/bss/heap"}.get(perm, perm)


def user_bar(runs, title):
    """A process's user half (ptdump PID), when the dump has one."""
    bar = log_bar("user", title + ", 0x00000000-0xbfffffff: one block per ptdump line "
                  "(not to scale); the page under the stack is the guard", runs, 0, PAGE_OFFSET)
    for r in bar.runs:
        if r.perm:
            bar.above.append(Label(user_region(r.start, r.end, r.perm), bar.x(r.start),
                                   bar.x(r.end), bold=True))
    return bar


def direct_bar(runs, syms):
    lo = PAGE_OFFSET
    bar = scale_bar("direct", "Zoom: the first 2 MiB of the direct map", runs, lo, lo + 2 * MB)
    spans = [(lo, BIOS_BEGIN, "low 640K (RAM)"),
             (BIOS_BEGIN, BIOS_END, "BIOS hole 640K-1M" + uniform_perm(bar, BIOS_BEGIN, BIOS_END))]
    if "_text" in syms and "_end" in syms:
        spans.append((syms["_text"], page_up(syms["_end"]),
                      "kernel image (%s)" % human(page_up(syms["_end"]) - syms["_text"])))
        spans.append((page_up(syms["_end"]), lo + 2 * MB, "RAM after the image"))
    add_spans(bar, spans)
    add_boundaries(bar, {lo, BIOS_BEGIN, BIOS_END, lo + 2 * MB} | run_edges(bar))
    return bar


def image_bar(runs, syms):
    if "_text" in syms and "_end" in syms:
        lo, hi = syms["_text"], page_up(syms["_end"])
    else:       # without nm: the first 256K from 1 MiB, where the image is linked
        lo, hi = BIOS_END, BIOS_END + (256 << 10)
    bar = scale_bar("image", "Zoom: the kernel image and its sections (from nm)", runs, lo, hi)
    bar.grid = True
    spans = [(syms[a], syms[b], "%s %s" % (name, human(syms[b] - syms[a])))
             for a, b, name in SECTIONS if a in syms and b in syms and syms[b] > syms[a]]
    add_spans(bar, spans)
    add_boundaries(bar, {s for a, b, _ in SECTIONS for s in (syms.get(a), syms.get(b))
                         if s is not None and lo <= s <= hi} | {lo, hi} | run_edges(bar))
    return bar


def module_window(runs, groups):
    """Where modules are: present pages and lsmod's groups, with some room."""
    addrs = [a for r in clip(runs, MODULES_VADDR, MODULES_END) if r.perm
             for a in (r.start, r.end)]
    addrs += [a for g in groups for a in (g.start, g.start + g.size)]
    step = 8 * PAGE
    lo = min(addrs, default=MODULES_VADDR) // step * step
    hi = -(-max(addrs, default=MODULES_VADDR) // step) * step
    return lo, max(hi, lo + 2 * step)


def module_bar(runs, groups):
    lo, hi = module_window(runs, groups)
    bar = scale_bar("modules", "Zoom: the module area", runs, lo, hi)
    bar.grid = True
    bar.empty = not groups and not any(r.perm for r in bar.runs)
    add_spans(bar, [(g.start, g.start + g.size, "%s %s" % (g.group, human(g.size)))
                    for g in groups if g.start < hi and g.start + g.size > lo])
    regions = {}
    for g in groups:
        lo_, hi_ = regions.get((g.module, g.region), (g.start, g.start + g.size))
        regions[(g.module, g.region)] = (min(lo_, g.start), max(hi_, g.start + g.size))
    for (name, region), (a, b) in regions.items():
        bar.above.append(Label("%s (%s)" % (name, region), bar.x(max(a, lo)), bar.x(min(b, hi)),
                               bold=True))
    add_boundaries(bar, {lo, hi} | {a for a, _ in regions.values()})
    return bar


def uniform_perm(bar, lo, hi):
    """': RW+X' when [lo, hi) has one permission (the hole's is the lesson)."""
    perms = {r.perm for r in clip(bar.runs, lo, hi)}
    return ": %s" % perms.pop() if len(perms) == 1 and None not in perms else ""


def page_up(addr):
    return -(-addr // PAGE) * PAGE


def run_edges(bar):
    return {e for r in bar.runs for e in (r.start, r.end)}


def add_spans(bar, spans):
    for a, b, text in spans:
        bar.below.append(Label(text, bar.x(max(a, bar.start)), bar.x(min(b, bar.end))))


def add_boundaries(bar, addrs):
    for a in sorted(addrs):
        if bar.start <= a <= bar.end:
            bar.above.append(Label("0x%08x" % (a % TOP), bar.x(a)))


def layout(dump, syms=None, groups=(), user_title=None):
    """Bars and their vertical positions, for a ptdump text."""
    runs, markers = parse_ptdump(dump)
    if not any(r.end > PAGE_OFFSET for r in runs):
        raise ValueError("no ptdump line for the kernel half (0xc0000000 and up)")
    syms = syms or {}
    bars = [overview_bar(runs, markers), direct_bar(runs, syms), image_bar(runs, syms),
            module_bar(runs, groups)]
    if user_title and any(r.perm and r.end <= PAGE_OFFSET for r in runs):
        bars.insert(0, user_bar(runs, user_title))
    y = HEADER_H
    for bar in bars:
        bar.rows_above = place(bar.above)
        y += 30 + bar.rows_above * ROW_H + LEADER_H   # title, then labels above
        bar.top = y
        y = bar.bottom + LEADER_H + place(bar.below) * ROW_H + 30
    return Layout(bars, y)

# ------------------------------------------------------------------ svg --


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(x, y, s, size=FONT, anchor="middle", weight="normal", fill="#222"):
    return ('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" font-weight="%s" '
            'fill="%s">%s</text>' % (x, y, size, anchor, weight, fill, esc(s)))


def line(x0, y0, x1, y1, stroke="#666", width=1):
    return '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"/>' % (
        x0, y0, x1, y1, stroke, width)


def rect(x, y, w, h, fill, stroke="none"):
    return '<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" stroke="%s"/>' % (
        x, y, w, h, fill, stroke)


def fill_of(perm):
    return COLOURS[perm] if perm else "url(#absent)"


DEFS = """<defs><pattern id="absent" width="8" height="8" patternUnits="userSpaceOnUse"
 patternTransform="rotate(45)"><rect width="8" height="8" fill="#ffffff"/>
<line x1="0" y1="0" x2="0" y2="8" stroke="#c4c4c4" stroke-width="3"/></pattern></defs>"""


def legend(y):
    """Two rows of swatches under the title."""
    out, items = [], list(PERMS.items()) + [(None, (None, "not mapped (no page)"))]
    for i, (perm, (_, label)) in enumerate(items):
        x, yy = MARGIN + (i % 3) * 380, y + (i // 3) * 22
        out.append(rect(x, yy, 22, 15, fill_of(perm), "#555"))
        out.append(text(x + 30, yy + 12, label, FONT, "start"))
    return out


def draw_bar(bar):
    out = [text(MARGIN, bar.top - LEADER_H - 16 - bar.rows_above * ROW_H, bar.title, 14, "start", "bold")]
    for r in bar.runs:
        x0, x1 = bar.x(r.start), bar.x(r.end)
        out.append(rect(x0, bar.top, x1 - x0, BAR_H, fill_of(r.perm)))
    if bar.grid:
        out += page_grid(bar)
    if bar.key == "overview":
        out += run_sizes(bar)
    if bar.empty:
        out.append(text((bar.x0 + bar.x1) / 2, bar.top + 30, "nothing mapped: no module loaded", 13,
                        fill="#444"))
    out.append(rect(bar.x0, bar.top, bar.x1 - bar.x0, BAR_H, "none", "#333"))
    out += [piece for lab in bar.above for piece in draw_label(bar, lab, above=True)]
    out += [piece for lab in bar.below for piece in draw_label(bar, lab, above=False)]
    return out


def page_grid(bar):
    """Page boundaries, when pages are wide enough to see them."""
    if bar.x(bar.start + PAGE) - bar.x0 < 6:
        return []
    return [line(bar.x(a), bar.top + SAMPLE_DY + 4, bar.x(a), bar.bottom, "#ffffff", 1)
            for a in range(bar.start + PAGE, bar.end, PAGE)]


def run_sizes(bar):
    out = []
    for r in bar.runs:
        x0, x1 = bar.x(r.start), bar.x(r.end)
        s = human(r.end - r.start)
        if x1 - x0 > len(s) * CHAR_W + 4:
            out.append(text((x0 + x1) / 2, bar.top + 30, s, FONT, fill="#111"))
    return out


def draw_label(bar, lab, above):
    """A label's text in its row, with a bracket for a span and a leader
    from the bar (or bracket) that bends to reach a text moved sideways."""
    centre = (lab.left + lab.right) / 2
    if above:
        base = bar.top - LEADER_H - lab.row * ROW_H
        edge, tick, tip = bar.top, bar.top - 4, base + 2
    else:
        base = bar.bottom + LEADER_H + lab.row * ROW_H + FONT - 2
        edge, tick, tip = bar.bottom, bar.bottom + 4, base - FONT + 1
    out = []
    if lab.x1 - lab.x0 > 3:
        out += [line(lab.x0, edge, lab.x0, tick), line(lab.x1, edge, lab.x1, tick),
                line(lab.x0, tick, lab.x1, tick)]
    bend = (tick + tip) / 2 if abs(centre - lab.anchor) < 1 else tick
    out += [line(lab.anchor, edge, lab.anchor, bend, "#888"),
            line(lab.anchor, bend, centre, tip, "#888")]
    out.append(text(centre, base, lab.text, weight="bold" if lab.bold else "normal"))
    return out


def wx_summary(runs, x):
    """The verdict a reader looks for first: any page both writable and executable?"""
    wx = [r for r in runs if r.perm == "RW+X"]
    if not wx:
        return text(x, 56, "W^X: no RW+X page", 13, "start", "bold", "#1f7a3a")
    pages = sum(r.end - r.start for r in wx) // PAGE
    where = ", ".join("0x%08x-0x%08x" % (r.start, r.end % TOP) for r in wx[:2])
    return text(x, 56, "W^X: %d RW+X page%s (%s%s)" % (
        pages, "s" if pages != 1 else "", where, ", ..." if len(wx) > 2 else ""),
        13, "start", "bold", COLOURS["RW+X"])


def projection(a, b, lo, hi):
    """A shaded band from [lo, hi) on bar a to the whole of bar b."""
    return ('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="#edf2fa"/>' % (
        a.x(lo), a.bottom, a.x(hi), a.bottom, b.x1, b.top, b.x0, b.top))


def render(lay, title):
    direct, image = lay.bar("direct"), lay.bar("image")
    overview = lay.bar("overview")
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, monospace">'
           % (WIDTH, lay.height, WIDTH, lay.height), DEFS,
           rect(0, 0, WIDTH, lay.height, "#ffffff"),
           text(MARGIN, 34, "ronx kernel memory map: " + title, 20, "start", "bold"),
           text(MARGIN, 56, "from `ptdump` over the serial console; colour = the page "
                "permission", 13, "start", fill="#444")]
    out.append(wx_summary(overview.runs, 680))
    out += legend(70)
    out.append(projection(overview, direct, direct.start, direct.end))
    out.append(projection(direct, image, image.start, image.end))
    for bar in lay.bars:
        out += draw_bar(bar)
    out.append("</svg>")
    return "\n".join(out) + "\n"

# ------------------------------------------------------------------ cli --


def to_png(svg_path, png_path):
    """rsvg-convert (Debian: librsvg2-bin); False when it is not installed,
    ValueError with its message when it refuses the SVG."""
    if not shutil.which("rsvg-convert"):
        return False
    done = subprocess.run(["rsvg-convert", "-o", png_path, svg_path], capture_output=True,
                          text=True)
    if done.returncode:
        raise ValueError("rsvg-convert failed on %s: %s" % (svg_path, done.stderr.strip()))
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="a ptdump capture, or - for stdin")
    ap.add_argument("-o", "--output", required=True, help="the SVG to write")
    ap.add_argument("--png", help="also write this PNG (needs rsvg-convert)")
    ap.add_argument("--title", default="ptdump", help="scenario, e.g. the command line")
    ap.add_argument("--nm", help="build/kernel.elf, or a saved nm output")
    ap.add_argument("--lsmod", help="module regions, in the format described above")
    ap.add_argument("--user", metavar="NAME",
                    help="the dump is `ptdump PID`: also draw its user half, titled NAME")
    args = ap.parse_args(argv)
    dump = sys.stdin.read() if args.dump == "-" else open(args.dump).read()
    syms = read_nm(args.nm) if args.nm else {}
    groups = parse_lsmod(open(args.lsmod).read()) if args.lsmod else []
    try:
        svg = render(layout(dump, syms, groups, args.user), args.title)
    except ValueError as e:
        sys.exit("memmap: %s" % e)
    with open(args.output, "w") as f:
        f.write(svg)
    if args.png and not to_png(args.output, args.png):
        print("memmap: rsvg-convert not found (apt-get install librsvg2-bin); no PNG",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
