# SPDX-License-Identifier: GPL-2.0-only
"""`make map`'s fork picture (tools/forkmap.py, issue 22 item 5): it is
produced, and it shows the sharing. The tool boots ronx and reads each
page's frame from QEMU's walk of the parent's and the child's CR3; this
test runs it as make map does, then checks the data and the SVG: after
fork the two processes map common frames (COW pages on them, drawn shared
in the physical picture), and after the child's write cowtest's page sits
on two frames; the SVG draws every shared frame as shared and no other."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from guest import BUILD, ROOT
import png

OUT = os.path.join(BUILD, "results", "forkmap")


def frames_of(stage, pid):
    return {f for _, _, f in stage["pages"][str(pid)]}


def test_forkmap(t):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "forkmap.py"), OUT],
                          capture_output=True, text=True, timeout=600)
    base = os.path.join(OUT, "fork")
    t.check(done.returncode == 0 and os.path.exists(base + ".svg") and os.path.exists(base + ".json"),
            "tools/forkmap.py writes fork.svg and fork.json", done.stdout[-500:] + done.stderr[-1500:])
    if done.returncode:
        return
    with open(base + ".json") as f:
        data = json.load(f)
    parent, child, va = data["parent"], data["child"], data["cow_page"]
    fork, write = data["stages"]
    shared = frames_of(fork, parent) & frames_of(fork, child)
    cow = [(p, c) for p, c in zip(fork["pages"][str(parent)], fork["pages"][str(child)])
           if p[1] == "C"]
    t.check(len(shared) >= 16 and cow and all(p[2] == c[2] and p[0] == c[0] for p, c in cow),
            "after fork: parent and child map %d common frames; each COW page of one is on the "
            "other's frame at the same address (%d)" % (len(shared), len(cow)))
    t.check(all(fork["phys"][str(f)] == "S" for f in shared),
            "after fork: memview's physical picture draws every common frame S")
    before = {p[0]: p[2] for p in fork["pages"][str(parent)]}
    pw = {p[0]: p[2] for p in write["pages"][str(parent)]}
    cw = {p[0]: p[2] for p in write["pages"][str(child)]}
    t.check(va in pw and va in cw and pw[va] != cw[va] and pw[va] == before.get(va),
            "after the child's write: cowtest's page %#x on two frames, the parent's the old one"
            % va)
    svg = open(base + ".svg").read()
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    drawn = [(r.get("class"), int(r.get("data-frame"), 16)) for r in root.iter(ns + "rect")
             if (r.get("class") or "").startswith("frame")]
    first = [f for cls, f in drawn[:len(fork["phys"])] if cls == "frame shared"]
    t.check(sorted(first) == sorted(shared),
            "fork.svg's first panel draws exactly the common frames as shared (%d)" % len(first))
    if os.path.exists(base + ".png"):
        img = png.read(base + ".png")
        t.check(img is not None, "fork.png decodes")
