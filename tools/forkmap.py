#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make map`'s fork picture: a parent's and a child's pages and the frames
under them, after fork (the writable pages share frames, read-only, COW)
and after the child's write (that page has a frame of its own).

Boots ronx, runs `cowtest hold` (it forks and holds still at each step
while a `park` lives), and at each step reads `memview -p PID` (which
pages each process has, and of what kind) and `memview -p` (each frame's
owner), then walks both CR3s with QEMU's monitor for every present page:
the frame under each page comes from the CPU's own tables, not from the
kernel's word. Writes OUTDIR/fork.svg (and .png with rsvg-convert) and
OUTDIR/fork.json (the data drawn).
    usage: tools/forkmap.py [OUTDIR]
"""
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, HERE)
from guest import PROMPT, Guest  # noqa: E402
from tlb import pae_walk  # noqa: E402
from userprog import PS_LINE, run_park_in_background  # noqa: E402
import memmap  # noqa: E402

FRAME = 0x000FFFFFFFFFF000
PAGE = 4096
ROW = re.compile(r"^([0-9a-f]{8}) (\S+)$", re.M)

SQ, GAP, MARGIN = 12, 2, 30
KIND_FILL = {"T": "#9ecae1", "R": "#a1d99b", "D": "#fdd0a2", "H": "#fdae6b", "M": "#dadaeb",
             "S": "#fcbba1", "C": "#e6550d", "0": "#ffffff"}
FRAME_FILL = {"shared": "#e6550d", "parent": "#3182bd", "child": "#31a354"}


def cells(out):
    """address -> character, for every page a `memview -p` picture draws."""
    res = {}
    for m in ROW.finditer(out):
        base = int(m.group(1), 16)
        for i, c in enumerate(m.group(2)):
            res[base + i * PAGE] = c
    return res


def leaf(g, cr3, va):
    e = pae_walk(g.monitor, cr3, va)
    return e[-1][2] if len(e) == 3 and e[-1][2] & 1 else None


def snapshot(g, name, pids, cr3):
    """One stage: each process's present pages [va, kind char, frame] (frames
    from QEMU's walk) and the physical picture's character of each frame."""
    virt = {pid: cells(g.command("memview -p %d" % pid)) for pid in pids}
    phys = cells(g.command("memview -p"))
    g.monitor("stop")
    pages = {}
    try:
        for pid in pids:
            pages[pid] = []
            for va, c in sorted(virt[pid].items()):
                pte = leaf(g, cr3[pid], va) if c != "." else None
                if pte is not None:
                    pages[pid].append([va, c, pte & FRAME])
    finally:
        g.monitor("cont")
    frames = {f for p in pages.values() for _, _, f in p}
    return {"name": name, "pages": {str(p): v for p, v in pages.items()},
            "phys": {str(f): phys.get(f, "?") for f in sorted(frames)}}


def step_on(g, park, pattern):
    """Kills a holding park; prompts until the shell reaped it and pattern came."""
    mark = len(g.out)
    g.command("kill %d" % park)
    for _ in range(100):
        if re.search(pattern, g.out[mark:]):
            break
        g.command("ps")
        time.sleep(0.05)
    g.wait_for(pattern, 30, mark)
    time.sleep(0.3)


def capture(g):
    """The two stages of cowtest hold, and the page cowtest writes."""
    s1, s2 = run_park_in_background(g)[0], run_park_in_background(g)[0]
    mark = len(g.out)
    g.send(b"run cowtest hold %d %d &\r" % (s1, s2))
    m = g.wait_for(r"cowtest: child (\d+) of (\d+): shared", start=mark)
    g.wait_for("^" + re.escape(PROMPT), start=mark)
    time.sleep(0.3)
    child, parent = int(m.group(1)), int(m.group(2))
    va = int(re.search(r"cowtest: page at (?:0x)?([0-9a-f]+) holds 'P'", g.out[mark:]).group(1), 16)
    cr3 = {int(p.group(1)): int(p.group(3), 16) for p in PS_LINE.finditer(g.command("ps"))}
    stages = [snapshot(g, "after fork", (parent, child), cr3)]
    step_on(g, s1, r"cowtest: child wrote 'C'")
    stages.append(snapshot(g, "after the child's write", (parent, child), cr3))
    step_on(g, s2, r"\[%d\] cowtest: exit status" % parent)
    return {"parent": parent, "child": child, "cow_page": va, "stages": stages}


def frame_owner(stage, parent, child, frame):
    users = {pid for pid in (parent, child)
             if any(f == frame for _, _, f in stage["pages"][str(pid)])}
    return "shared" if len(users) == 2 else "parent" if parent in users else "child"


def draw_stage(stage, parent, child, cow_page, y, width):
    """One panel: the parent's pages, the frames, the child's pages, and a
    line from each page to its frame."""
    out = [memmap.text(MARGIN, y, stage["name"], 14, "start", "bold")]
    frames = [int(f) for f in stage["phys"]]
    fx = {f: MARGIN + i * (SQ + GAP) for i, f in enumerate(frames)}
    rows = {parent: y + 30, child: y + 190}
    fy = y + 110
    owners = {f: frame_owner(stage, parent, child, f) for f in frames}
    for pid in (parent, child):
        for i, (va, c, f) in enumerate(stage["pages"][str(pid)]):
            x, yy = MARGIN + i * (SQ + GAP), rows[pid]
            top, bottom = (yy + SQ, fy) if pid == parent else (fy + SQ, yy)
            colour = FRAME_FILL["shared"] if owners[f] == "shared" else "#999"
            out.append(memmap.line(x + SQ / 2, top, fx[f] + SQ / 2, bottom, colour,
                                   1.5 if owners[f] == "shared" else 0.7))
            stroke = "#000" if va == cow_page else "#666"
            out.append('<rect class="page" data-pid="%d" data-va="%#x" data-frame="%#x" x="%d" '
                       'y="%d" width="%d" height="%d" fill="%s" stroke="%s"/>'
                       % (pid, va, f, x, yy, SQ, SQ, KIND_FILL.get(c.upper(), "#eee"), stroke))
            out.append(memmap.text(x + SQ / 2, yy + SQ - 2, c, 9))
    for f in frames:
        out.append('<rect class="frame %s" data-frame="%#x" x="%d" y="%d" width="%d" height="%d" '
                   'fill="%s" stroke="#333"/>' % (owners[f], f, fx[f], fy, SQ, SQ,
                                                   FRAME_FILL[owners[f]]))
        out.append(memmap.text(fx[f] + SQ / 2, fy + SQ - 2, stage["phys"][str(f)], 9, fill="#fff"))
    counts = {k: sum(1 for o in owners.values() if o == k) for k in FRAME_FILL}
    out.append(memmap.text(width - MARGIN, y, "frames: %d shared, %d the parent's alone, %d the "
                           "child's alone" % (counts["shared"], counts["parent"], counts["child"]),
                           12, "end"))
    out.append(memmap.text(MARGIN - 4, rows[parent] + SQ - 2, "parent %d" % parent, 11, "end"))
    out.append(memmap.text(MARGIN - 4, fy + SQ - 2, "frames", 11, "end"))
    out.append(memmap.text(MARGIN - 4, rows[child] + SQ - 2, "child %d" % child, 11, "end"))
    return out


def render(data):
    n = max(max(len(p) for p in s["pages"].values()) for s in data["stages"])
    n = max(n, max(len(s["phys"]) for s in data["stages"]))
    left = 90
    width = left + MARGIN + n * (SQ + GAP) + MARGIN
    height = 100 + len(data["stages"]) * 250
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">'
           % (width, height), memmap.rect(0, 0, width, height, "#fff"),
           memmap.text(20, 24, "fork with copy-on-write: cowtest's pages and the frames under "
                       "them (QEMU's walk of each CR3; letters from memview)", 15, "start", "bold"),
           memmap.text(20, 44, "pages: T text, R rodata, D data, H heap, M mmap, S stack, C COW "
                       "(read-only, shared), lower case shared read-only", 11, "start"),
           memmap.text(20, 60, "frames: orange shared by both, blue the parent's, green the "
                       "child's (letters: memview's physical picture); the page cowtest writes "
                       "is outlined black", 11, "start")]
    out.append('<g transform="translate(%d,0)">' % left)
    for i, stage in enumerate(data["stages"]):
        out += draw_stage(stage, data["parent"], data["child"], data["cow_page"], 95 + i * 250,
                          width - left)
    out.append("</g></svg>")
    return "\n".join(out) + "\n"


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "map")
    os.makedirs(outdir, exist_ok=True)
    print("map: booting for the fork picture (cowtest hold)", flush=True)
    with Guest("map fork") as g:
        g.wait_ready()
        data = capture(g)
        g.poweroff()
    base = os.path.join(outdir, "fork")
    with open(base + ".json", "w") as f:
        json.dump(data, f, indent=1)
    with open(base + ".svg", "w") as f:
        f.write(render(data))
    png = memmap.to_png(base + ".svg", base + ".png")
    print("map:   wrote %s.svg%s and .json" % (base, " and .png" if png else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
