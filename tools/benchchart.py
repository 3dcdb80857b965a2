# SPDX-License-Identifier: GPL-2.0-only
"""The ratio chart of `make bench` (issue 31 item 5): for each row, ronx's
cycles over Linux's, one bar per pair of kernels (ronx pti=off against
Linux pti=off, ronx pti=on against Linux's default), on a log scale.

A bar starts at 1.0, the line where ronx costs what Linux costs, and runs
left when ronx is cheaper, right when it is dearer: a log scale makes
0.5 and 2.0 the same length, each the same factor away from Linux. Each
pair's goal is a dashed mark across its bar (1.0 unless the row says
otherwise). A ratio beyond the scale is drawn to its edge and labelled
with its value; a pair not measured is said in words, with no bar.

    svg = ratio_svg(title, rows, series)   rows: [(label, {series: ratio}, goal)]
    write(path, svg)
"""
import math
import os
from xml.sax.saxutils import escape

LO, HI = 1 / 8, 8               # the scale's ends
LABEL_W, PLOT_W = 470, 480      # the row labels (make bench's are long), then the plot
BAR_H, ROW_GAP, TOP = 13, 12, 58
COLOURS = ("#3a6ea5", "#d9822b", "#5b9b4a", "#8e5ea2")


def x_of(ratio):
    """The x of ratio on the plot, clamped to the scale's ends."""
    r = min(max(ratio, LO), HI)
    return LABEL_W + (math.log2(r) - math.log2(LO)) / (math.log2(HI) - math.log2(LO)) * PLOT_W


def row_height(series):
    return len(series) * BAR_H + ROW_GAP


def axis(height):
    """The ticks at each power of two, and the 1.0 line."""
    out = []
    k = math.log2(LO)
    while k <= math.log2(HI):
        r = 2 ** k
        x = x_of(r)
        text = "%g" % r if r >= 1 else "1/%d" % round(1 / r)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, TOP - 6, x, height - 24))
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>' % (x, height - 10, text))
        k += 1
    x = x_of(1)
    out.append('<line class="linux" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-width="1.5"/>'
               % (x, TOP - 10, x, height - 24))
    out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">as fast as Linux</text>'
               % (x, TOP - 14))
    return out


def bar(ratio, y, colour, name):
    """One pair's bar from 1.0 to ratio, with its value at the end."""
    x1, x2 = x_of(1), x_of(ratio)
    left, width = min(x1, x2), abs(x2 - x1)
    clipped = ratio < LO or ratio > HI
    value = "%.2f%s" % (ratio, " (off the scale)" if clipped else "")
    anchor, tx = ("end", x2 - 3) if x2 < x1 else ("start", x2 + 3)
    fill = "#000"
    if ratio < LO:      # no room left of the scale: the value goes inside the bar
        anchor, tx, fill = "start", x2 + 3, "#fff"
    return ['<rect class="bar" data-series="%s" data-ratio="%.4f" x="%.1f" y="%d" width="%.1f" '
            'height="%d" fill="%s"/>' % (escape(name, {'"': "&quot;"}), ratio, left, y,
                                         width, BAR_H - 2, colour),
            '<text x="%.1f" y="%d" font-size="10" text-anchor="%s" fill="%s">%s</text>'
            % (tx, y + BAR_H - 4, anchor, fill, value)]


def one_row(label, ratios, goal, series, y):
    out = ['<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>'
           % (LABEL_W - 8, y + BAR_H, escape(label))]
    for i, name in enumerate(series):
        by = y + i * BAR_H
        r = ratios.get(name)
        if r:
            out += bar(r, by, COLOURS[i % len(COLOURS)], name)
        else:
            out.append('<text class="unmeasured" x="%.1f" y="%d" font-size="10">%s: not measured</text>'
                       % (x_of(1) + 3, by + BAR_H - 4, escape(name)))
        g = goal.get(name, 1.0) if isinstance(goal, dict) else goal or 1.0
        out.append('<line class="goal" data-series="%s" data-goal="%.4f" x1="%.1f" y1="%d" x2="%.1f" '
                   'y2="%d" stroke="#c00" stroke-dasharray="3,2"/>'
                   % (escape(name, {'"': "&quot;"}), g, x_of(g), by - 1, x_of(g), by + BAR_H - 1))
    return out


def legend(series):
    out, x = [], LABEL_W
    for i, name in enumerate(series):
        out.append('<rect x="%d" y="24" width="10" height="10" fill="%s"/>' % (x, COLOURS[i % len(COLOURS)]))
        out.append('<text x="%d" y="33" font-size="11">%s</text>' % (x + 14, escape(name)))
        x += 18 + 7 * len(name)
    out.append('<line x1="%d" y1="29" x2="%d" y2="29" stroke="#c00" stroke-dasharray="3,2"/>' % (x, x + 14))
    out.append('<text x="%d" y="33" font-size="11">goal</text>' % (x + 18))
    return out


def ratio_svg(title, rows, series):
    """rows: [(label, {series name: ratio or None}, goal)]; goal: a ratio for
    every series of the row, {series name: ratio}, or None (1.0)."""
    height = TOP + len(rows) * row_height(series) + 30
    width = LABEL_W + PLOT_W + 130
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">'
           % (width, height),
           '<rect width="100%" height="100%" fill="#fff"/>',
           '<text x="8" y="16" font-size="14" font-weight="bold">%s</text>' % escape(title)]
    out += legend(series)
    out += axis(height)
    for i, (label, ratios, goal) in enumerate(rows):
        out += one_row(label, ratios, goal, series, TOP + i * row_height(series))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(path, svg):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(svg)
    return path
