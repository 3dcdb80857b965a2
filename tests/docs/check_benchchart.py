#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The bench chart (tools/benchchart.py) draws what the numbers say.

No benchmark runs here: the rows are made up, or canned guest output fed
through tools/bench_user.py's rows() as `make bench` feeds the real one.
Each bar is read back from the SVG and compared with where the ratio
belongs on a log scale worked out here, independently: a cheaper ronx
runs left of the 1.0 line, a dearer one right, 0.5 and 2.0 the same
length; a goal's mark sits at its ratio; an unmeasured pair has words
and no bar; an off-scale ratio stops at the edge and says its value; a
label with XML's special characters still makes a valid SVG. Writes
build/results/benchchart.ktap.

    python3 tests/docs/check_benchchart.py"""
import math
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import bench_user  # noqa: E402
import bench_appel  # noqa: E402
import progs  # noqa: E402
import benchchart  # noqa: E402
from results import Results  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
OFF, ON = bench_user.OFF_PAIR, bench_user.ON_PAIR


def expected_x(ratio):
    """ratio's x: 1/8 at the plot's left, 8 at its right, each factor of 2 a sixth."""
    r = min(max(ratio, 1 / 8), 8)
    return benchchart.LABEL_W + (math.log2(r) + 3) / 6 * benchchart.PLOT_W


def bars(svg):
    """The root, and [(series, ratio rounded, left, right)] of every bar."""
    root = ET.fromstring(svg)
    out = []
    for e in root.iter(NS + "rect"):
        if e.get("class") == "bar":
            left = float(e.get("x"))
            out.append((e.get("data-series"), round(float(e.get("data-ratio")), 2),
                        left, left + float(e.get("width"))))
    return root, out


def near(a, b):
    return abs(a - b) < 0.2


def check_made_up_rows(t):
    rows = [("getpid <&> round trip", {OFF: 0.5, ON: 2.0}, {OFF: 0.5}),
            ("copy-on-write fault", {OFF: 0.39, ON: None}, None),
            ("ping-pong", {OFF: 20.0, ON: 1.0}, None)]
    svg = benchchart.ratio_svg("made up", rows, [OFF, ON])
    try:
        root, got = bars(svg)
    except ET.ParseError as e:
        t.fail("the SVG parses (a label with < & >)", str(e))
        return
    t.check(True, "the SVG parses (a label with < & >)")
    texts = ["".join(e.itertext()) for e in root.iter(NS + "text")]
    t.check("getpid <&> round trip" in texts, "the label's text survives its escaping", repr(texts[:8]))
    one = expected_x(1)
    for series, ratio, left, right in got:
        end = left if ratio < 1 else right
        start = right if ratio < 1 else left
        t.check(near(start, one) and near(end, expected_x(ratio)),
                "%s %.2f: the bar runs from 1.0 to its ratio on the log scale" % (series, ratio),
                "bar %.1f-%.1f, expected %.1f to %.1f" % (left, right, one, expected_x(ratio)))
    by = {(s, r): (left, right) for s, r, left, right in got}
    half, double = by.get((OFF, 0.5)), by.get((ON, 2.0))
    t.check(half and double and half[1] <= one + 0.2 and double[0] >= one - 0.2 and
            near(half[1] - half[0], double[1] - double[0]),
            "0.5 runs left of 1.0, 2.0 right, the two the same length", "%r %r" % (half, double))
    t.check(sum(1 for b in got if b[0] == ON) == 2 and
            any("%s: not measured" % ON in s for s in texts),
            "an unmeasured pair is said in words, with no bar", repr(got))
    far = by.get((OFF, 20.0))
    t.check(far and near(far[1], expected_x(8)) and any("20.00 (off the scale)" in s for s in texts),
            "a ratio beyond the scale stops at its edge and says its value", repr(far))
    goals = [(e.get("data-series"), float(e.get("data-goal")), float(e.get("x1")))
             for e in root.iter(NS + "line") if e.get("class") == "goal"]
    t.check(len(goals) == 6 and (OFF, 0.5, round(expected_x(0.5), 1)) in
            [(s, g, round(x, 1)) for s, g, x in goals] and
            sum(1 for s, g, x in goals if g == 1.0 and near(x, one)) == 5,
            "each pair's goal is marked at its ratio (getpid's pti=off at 0.5, the rest 1.0)",
            repr(goals))


def canned(cycles, alt=20000):
    """What the guests print, with these medians; alt of the ping-pong's
    20000 yields a copy came back after one of the other's."""
    pair = ("bench_yield: pid %%d, pair, SCHED_FIFO, 20000 yields: min 1 median %d cycles per "
            "sched_yield; %d of 20000 came back after one yield of the other copy\n" % (cycles[2], alt))
    return {"bench_getpid": "bench_getpid: getpid round trip: min 1 median %d cycles\n" % cycles[0],
            "bench_yield-alone": "bench_yield: pid 1: min 1 median %d cycles\n" % cycles[1],
            "bench_yield-pair": pair % 3 + pair % 2,
            "bench_fork": "fork+exit+wait: min 1 median %d cycles\n" % cycles[3]}


def user_svg_from(linux, ronx):
    """bench_user.rows() with the guests' output canned (linux and ronx:
    boot name -> {program: output}); it writes build/bench/user.svg."""
    saved = bench_user.linux_runs, bench_user.ronx_runs
    bench_user.linux_runs = lambda kernel, initrd, name, cmdline: linux[name]
    bench_user.ronx_runs = lambda label: ronx[label]
    try:
        with tempfile.NamedTemporaryFile() as initrd:
            bench_user.rows(lambda *r: None, "vmlinuz", initrd.name)
    finally:
        bench_user.linux_runs, bench_user.ronx_runs = saved


def check_make_bench_rows(t):
    """bench_user.rows() with canned guest output: user.svg holds its ratios."""
    # medians of getpid, yield alone, each copy of the yield pair, fork+exit+wait
    linux = {"bench-default": canned((16000, 24000, 80000, 400000)),
             "bench-nopti": canned((2000, 4000, 60000, 300000))}
    ronx = {"pti=on": canned((8000, 6000, 40000, 200000)),
            "pti=off": canned((1000, 8000, 120000, 150000))}
    user_svg_from(linux, ronx)
    with open(os.path.join(ROOT, "build", "bench", "user.svg")) as f:
        _, got = bars(f.read())
    # ronx over Linux, row by row: getpid, yield alone, ping-pong, fork+exit+wait
    want = [(OFF, 0.5), (ON, 0.5), (OFF, 2.0), (ON, 0.25), (OFF, 2.0), (ON, 0.5),
            (OFF, 0.5), (ON, 0.5)]
    t.check([(s, r) for s, r, _, _ in got] == want,
            "make bench's user rows reach user.svg as ronx over Linux, one bar a measured pair",
            "bars %r, expected %r" % ([(s, r) for s, r, _, _ in got], want))
    # a ping-pong that did not alternate (CFS giving the CPU back to the
    # yielder) is no switch's cost: that pair of the row has no bar
    linux["bench-nopti"] = canned((2000, 4000, 60000, 300000), alt=15000)
    user_svg_from(linux, ronx)
    with open(os.path.join(ROOT, "build", "bench", "user.svg")) as f:
        _, got = bars(f.read())
    want = want[:4] + want[5:]
    t.check([(s, r) for s, r, _, _ in got] == want,
            "a ping-pong with 75% of its yields alternating gets no bar, the other pair keeps its",
            "bars %r, expected %r" % ([(s, r) for s, r, _, _ in got], want))


def appel_output(scale):
    """bench_appel's lines, each row's median scale times its place (1, 2, ...)."""
    return {"bench_appel": "".join("bench_appel: %s: min 1 median %d cycles\n" % (name, scale * (i + 1))
                                   for i, (_, name) in enumerate(bench_appel.ROWS))}


def check_appel_rows(t):
    """bench_appel's rows through bench_user.rows(): two bars each, goal 0.5."""
    linux = {"bench-default": appel_output(8000), "bench-nopti": appel_output(1000)}
    ronx = {"pti=on": appel_output(2000), "pti=off": appel_output(2000)}
    user_svg_from(linux, ronx)
    with open(os.path.join(ROOT, "build", "bench", "user.svg")) as f:
        root, got = bars(f.read())
    want = [(OFF, 2.0), (ON, 0.25)] * len(bench_appel.ROWS)
    t.check([(s, r) for s, r, _, _ in got] == want,
            "bench_appel's %d rows reach user.svg: ronx pti=off over Linux pti=off, pti=on over "
            "Linux default" % len(bench_appel.ROWS), repr(got))
    goals = [(e.get("data-series"), float(e.get("data-goal")))
             for e in root.iter(NS + "line") if e.get("class") == "goal"]
    t.check(goals[-2 * len(bench_appel.ROWS):] == [(OFF, 0.5), (ON, 0.5)] * len(bench_appel.ROWS),
            "each bench_appel row's goal is 0.5 for both pairs", repr(goals))


def check_repeats(t):
    """A row keeps the lowest median of its repeats in a boot (the host's
    slow phases only add), for the user rows and for bench_appel's."""
    slow, fast = canned((2000, 4000, 60000, 300000)), canned((1000, 3000, 50000, 250000))
    runs = dict(slow)
    runs.update({progs.bench_key(k, 2): v for k, v in fast.items()})
    got = [bench_user.cell(runs, "bench_getpid", "getpid round trip"),
           bench_user.cell(runs, "bench_fork", "fork+exit+wait")]
    t.check(got == [1000, 250000], "a user row is the lowest of its repeats' medians",
            "getpid and fork %r, expected [1000, 250000]" % got)
    runs = {progs.bench_key(bench_appel.KEY, 0): appel_output(3)[bench_appel.KEY],
            progs.bench_key(bench_appel.KEY, 1): appel_output(2)[bench_appel.KEY],
            progs.bench_key(bench_appel.KEY, 4): appel_output(5)[bench_appel.KEY]}
    got = bench_appel.lowest_medians(runs)
    want = {name: 2 * (i + 1) for i, (_, name) in enumerate(bench_appel.ROWS)}
    t.check(got == want, "each bench_appel row is the lowest of its repeats' medians",
            "%r, expected %r" % (got, want))
    t.check(bench_user.cell({}, "bench_getpid") is None and bench_appel.lowest_medians({}) == {},
            "a row with no repeat measured has no reading", "")


def main():
    t = Results()
    t.group = "benchchart"
    check_made_up_rows(t)
    check_make_bench_rows(t)
    check_repeats(t)
    check_appel_rows(t)
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    t.write(os.path.join(ROOT, "build", "results", "benchchart.ktap"))
    print("benchchart: %d checks, %d failed" % (t.count, t.failed))
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
