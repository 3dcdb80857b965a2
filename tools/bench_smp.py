# SPDX-License-Identifier: GPL-2.0-only
"""make bench, several CPUs: what a TLB shootdown costs, and what starting
the other CPUs adds to the boot.

- set_memory_ro() of one page and of one whole 2 MiB page (512 pages),
  with 1, 2, 4 and 8 CPUs: the shell's `cpabench`, which times only
  set_memory_ro() with the TSC (under TCG the guest's rdtsc reads the
  host's counter) and counts the cycles flush_tlb_kernel_range() took
  inside it: on one CPU that is the local flush, on several the IPIs and
  the wait for every acknowledgement.
- boot to `ronx: ready` with 1 and with 4 CPUs, and the same kernel before
  this work (main before issue 16's first commit, built here from git),
  with one CPU, the yardstick. Goal: 4 CPUs within 1.3x of one.
"""
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from guest import BUILD, Guest  # noqa: E402
from bench_tree import build_tree_at  # noqa: E402

BEFORE = "b64d7f0"      # main before issue 16 (SMP) began
CPABENCH = re.compile(r"cpabench: set_memory_ro\(\) of (\d+) pages? on (\d+) CPUs?, (\d+) calls: "
                      r"(\d+) cycles each, (\d+) \((\d+)%\) in flush_tlb_kernel_range")


def cpabench(ncpus, calls=300):
    """{pages: (cycles per call, flush cycles, flush %)} on ncpus CPUs."""
    res = {}
    with Guest("bench smp%d" % ncpus, extra=["-smp", str(ncpus)]) as g:
        g.wait_ready()
        for pages in (1, 512):
            out = g.command("cpabench %d %d" % (pages, calls), timeout=600)
            m = CPABENCH.search(out)
            if m:
                res[pages] = (int(m.group(4)), int(m.group(5)), int(m.group(6)))
        g.poweroff()
    return res


def boot_times(ncpus, runs, kernel=None, initrd=None, cmdline=""):
    """Medians of (wall clock to `ronx: ready`, the kernel's part of it:
    from its first line on the serial console to `ronx: ready`), and the
    wall clock of each boot."""
    times, kernel_part = [], []
    for i in range(runs):
        g = Guest("bench boot smp%d %d" % (ncpus, i), cmdline=cmdline,
                  extra=["-smp", str(ncpus)], initrd=initrd)
        if kernel:
            g.kernel = kernel
        with g:
            g.wait_for(r"^ronx: ")
            first = time.monotonic() - g.started
            g.wait_ready()
            times.append(g.ready_seconds)
            kernel_part.append(g.ready_seconds - first)
            g.poweroff()
    return statistics.median(times), statistics.median(kernel_part), times


def build_before():
    """build/bench/before/build/kernel.elf and initrd: the tree at BEFORE, or None."""
    return build_tree_at(BEFORE, "before", ["build/kernel.elf", "build/initrd.cpio"])


def rows(row, runs=5):
    results = {n: cpabench(n) for n in (1, 2, 4, 8)}
    for pages in (1, 512):
        cells = ["%d CPU%s: %d cycles, %d%% in the flush" % (n, "s" if n > 1 else "", *res[pages][::2])
                 for n, res in results.items() if pages in res]
        row("set_memory_ro() of %s" % ("1 page" if pages == 1 else "512 pages (a whole 2 MiB page)"),
            "; ".join(cells) or "not measured", "measured: what each CPU more costs",
            "shell `cpabench %d 300` booted with -smp 1, 2, 4, 8: TSC cycles per "
            "set_memory_ro() (the mean of 300 calls) and the share spent in "
            "flush_tlb_kernel_range(): with 1 CPU the local flush, with more the IPIs and "
            "the wait for every acknowledgement (the shootdown)" % pages)

    one, k1, t1 = boot_times(1, runs)
    four, k4, t4 = boot_times(4, runs)
    parked, kp, _ = boot_times(4, runs, cmdline="nosmp")
    before = build_before()
    if before:
        base, kb, tb = boot_times(1, runs, *before)
        base_text = "; before this work (%s), 1 CPU: %.3f s (%s), the kernel's part %.3f s" % (
            BEFORE, base, ", ".join("%.3f" % t for t in tb), kb)
    else:
        base_text = "; before this work: not measured (no git history to build %s from)" % BEFORE
    ratio = four / one
    row("boot to 'ronx: ready' with 1 and 4 CPUs",
        "1 CPU: %.3f s (%s); 4 CPUs: %.3f s (%s), %.2fx; 4 CPUs with nosmp (QEMU and its "
        "firmware with 4 CPUs, ronx on one): %.3f s; the kernel's part (its first line to "
        "ready): 1 CPU %.3f s, 4 CPUs %.3f s, 4 CPUs nosmp %.3f s%s" % (
            one, ", ".join("%.3f" % t for t in t1), four, ", ".join("%.3f" % t for t in t4),
            ratio, parked, k1, k4, kp, base_text),
        "4 CPUs within 1.3x of one",
        "median of %d boots each, wall clock from starting qemu-system-i386 -accel tcg "
        "-smp N -kernel to the line 'ronx: ready', and from the kernel's first line on the "
        "serial console to it; the kernel before this work built from git (%s) into "
        "build/bench/before" % (runs, BEFORE),
        "meets the goal" if ratio <= 1.3 else "short of the goal")
