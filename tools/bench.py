#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench: measure what the policy costs, in one run on this machine.

Every row says how it was measured and the goal it is held to. Nothing
here is a pass/fail test: benchmarks measure, tests assert.
"""
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import BUILD, Guest  # noqa: E402
from tlb import PageTables  # noqa: E402

PAGE = 4096
ROWS = []


def row(what, value, goal, method, verdict=""):
    ROWS.append((what, value, goal, verdict, method))
    print("bench: %s: %s" % (what, value), flush=True)


def boot_ronx(runs=5):
    times = []
    for i in range(runs):
        with Guest("bench boot %d" % i) as g:
            g.wait_ready()
            times.append(g.ready_seconds)
            g.poweroff()
    return statistics.median(times), times


def map_sections(path):
    """From an ld map: {output section: (start, end, end of its content)}."""
    out, cur, pending = {}, None, ""
    for line in open(path):
        # ld puts a long section name on a line of its own
        if re.match(r"^ ?\.[\w.]+\s*$", line):
            pending = line.rstrip()
            continue
        if pending:
            line, pending = pending + " " + line.strip() + "\n", ""
        m = re.match(r"^(\.[\w.]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", line)
        if m:
            cur = m.group(1)
            start = int(m.group(2), 16)
            out[cur] = [start, start + int(m.group(3), 16), start]
            continue
        m = re.match(r"^ (\.[\w.]+|__\w+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+\S", line)
        if m and cur and int(m.group(3), 16):
            out[cur][2] = max(out[cur][2], int(m.group(2), 16) + int(m.group(3), 16))
    return out


def image_padding():
    secs = map_sections(os.path.join(BUILD, "kernel.elf.map"))
    total_pad = total_min = 0
    parts = []
    for name in (".text", ".rodata", ".data..ro_after_init", ".data", ".init.text",
                 ".init.data", ".bss"):
        if name not in secs:
            continue
        start, end, content = secs[name]
        pad = end - content
        minimum = (-(content - start)) % PAGE
        total_pad += pad
        total_min += minimum
        parts.append("%s %d" % (name, pad))
    return total_pad, total_min, parts


def pagetables_and_flushes():
    with Guest("bench pagetables") as g:
        g.wait_ready()
        used = int(re.search(r"PageTables:\s+(\d+)", g.command("meminfo")).group(1))
        cpa = g.command("cpastat")
        pt = PageTables(g.monitor("info tlb"))
        g.poweroff()
    stat = {k: int(v) for k, v in re.findall(r"^(.*?):\s+(\d+)$", cpa, re.M)}
    # the minimum: one page directory for the kernel's 1G, plus one page
    # table for every 2 MiB region whose pages do not share one set of
    # attributes (or are not all mapped)
    mixed = 0
    for base in {m.va & ~((2 << 20) - 1) for m in pt.maps if not m.pse and m.va >= 0xC0000000}:
        pages = [pt.lookup(base + i * PAGE) for i in range(512)]
        attrs = {(p.rw, p.nx) if p else None for p in pages}
        mixed += len(attrs) > 1
    return used, 1 + mixed, stat


def make_test_seconds():
    t0 = time.monotonic()
    subprocess.run(["make", "-s", "test"], cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    print("bench: booting ronx 5 times under TCG", flush=True)
    med, times = boot_ronx()
    row("boot to 'ronx: ready'", "%.3f s (median of %d: %s)" % (
        med, len(times), ", ".join("%.3f" % t for t in times)),
        "at least 10x faster than Linux to init",
        "wall clock from starting qemu-system-i386 -accel tcg -cpu qemu32,+nx,+pae "
        "-m 128M -kernel to the line 'ronx: ready' on the serial console")

    pad, minimum, parts = image_padding()
    row("kernel image padding from page alignment", "%d bytes (%s)" % (pad, ", ".join(parts)),
        "equal to the minimum, %d bytes" % minimum,
        "build/kernel.elf.map: each output section's end minus the end of its last "
        "input section; minimum = each section's content rounded up to a page",
        "meets the goal" if pad == minimum else "short of the goal by %d bytes" % (pad - minimum))

    used, need, stat = pagetables_and_flushes()
    row("page-table pages of the kernel mapping", "%d" % used,
        "the minimum the policy needs, %d" % need,
        "meminfo PageTables (page directories + page tables ronx allocated) after boot; "
        "minimum = one page directory for the kernel's 1 GiB + one page table per 2 MiB "
        "region whose pages differ (read from info tlb)",
        "meets the goal" if used == need else
        "%d more: ronx keeps all four PAE page directories present, as Linux does, "
        "and three are for the empty user half" % (used - need))
    calls = stat.get("set_memory calls", 0)
    flushes = stat.get("invlpg flushes", 0) + stat.get("full TLB flushes", 0)
    row("TLB flushes per set_memory_*() call during boot", "%.1f (%d calls, %d invlpg, %d full)"
        % (flushes / calls if calls else 0, calls, stat.get("invlpg flushes", 0),
           stat.get("full TLB flushes", 0)),
        "one invlpg per changed page up to 32, then one full flush",
        "the kernel's own counters (shell 'cpastat') after boot")

    print("bench: timing make test", flush=True)
    row("make test wall time", "%.1f s" % make_test_seconds(), "well under 20 minutes",
        "wall clock of 'make -s test' after everything is built")

    print("\n| what | measured | goal | verdict | method |\n|---|---|---|---|---|")
    for r in ROWS:
        print("| %s |" % " | ".join(r))


if __name__ == "__main__":
    main()
