# SPDX-License-Identifier: GPL-2.0-only
"""make bench: what each of the kernel's defences against its own bugs
(issue 32) costs, booted with and without it: the boot, a fork+exit+wait
round trip, and a signal's delivery and return (lat_sig catch: the frame
goes out with copy_to_user and back with copy_from_user, so the hardened
usercopy check runs on every one). The same numbers on Debian's Linux
where its kernel has the option (init_on_free=1, hardened_usercopy=off);
it has no DEBUG_PAGEALLOC and no KFENCE (Linux samples by time, ronx by count: N=1 sends every kmalloc to the pool).

Alone, for these rows only:

    python3 tools/bench_options.py
"""
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest import Guest  # noqa: E402
import bench_user  # noqa: E402

# (option, ronx's command line, Linux's command line or None where Linux has no such option)
OPTIONS = (
    ("none (the defaults)", "", ""),
    ("init_on_free=1", "init_on_free=1", "init_on_free=1"),
    ("hardened_usercopy=off", "hardened_usercopy=off", "hardened_usercopy=off"),
    ("debug_pagealloc", "debug_pagealloc", None),
    ("kfence.sample_interval=1 (every kmalloc)", "kfence.sample_interval=1", None),
)
BOOTS = 3


def ronx_costs(cmdline):
    """(median boot seconds, fork+exit+wait cycles, lat_sig catch cycles) booted with cmdline."""
    boots, fork, catch = [], None, None
    for i in range(BOOTS):
        with Guest("bench option %s %d" % (cmdline or "default", i), cmdline=cmdline) as g:
            g.wait_ready()
            boots.append(g.ready_seconds)
            if i == 0:
                fork = bench_user.cell({"f": g.command("run bench_fork 200", timeout=600)},
                                       "f", "fork+exit+wait")
                catch = bench_user.cell({"a": g.command("run bench_appel 300", timeout=900)},
                                        "a", "lat_sig catch")
            g.poweroff()
    return statistics.median(boots), fork, catch


def linux_costs(kernel, initrd, cmdline, name):
    """(fork+exit+wait, lat_sig catch) on Debian's Linux booted with cmdline."""
    runs = bench_user.linux_runs(kernel, initrd, name, cmdline)
    return (bench_user.cell(runs, "bench_fork", "fork+exit+wait"),
            bench_user.cell(runs, bench_user.bench_appel.KEY, "lat_sig catch"))


def times(v, base):
    return "%d (%.2fx)" % (v, v / base) if v and base else "%s" % (v or "not measured")


def rows(row, kernel=None, initrd=None):
    base_ronx = base_linux = None
    for label, ronx_cmd, linux_cmd in OPTIONS:
        boot, fork, catch = ronx_costs(ronx_cmd)
        if base_ronx is None:
            base_ronx = (boot, fork, catch)
        parts = ["ronx: boot %.3f s (%+.3f s), fork+exit+wait %s, lat_sig catch %s cycles"
                 % (boot, boot - base_ronx[0], times(fork, base_ronx[1]), times(catch, base_ronx[2]))]
        if linux_cmd is None:
            parts.append("Linux: no such option in Debian's 686-pae kernel")
        elif kernel and initrd and os.path.exists(initrd):
            lf, lc = linux_costs(kernel, initrd, linux_cmd,
                                 "bench-option-" + re.sub(r"\W+", "-", linux_cmd or "default"))
            if base_linux is None:
                base_linux = (lf, lc)
            parts.append("Linux: fork+exit+wait %s, lat_sig catch %s cycles"
                         % (times(lf, base_linux[0]), times(lc, base_linux[1])))
        else:
            parts.append("Linux: not measured (make linux-check makes its initramfs)")
        row("option %s" % label, "; ".join(parts),
            "(measured, no goal): the price of the defence",
            "median of %d boots to 'ronx: ready'; user/bin/bench_fork 200 and bench_appel 300 "
            "in the first boot, median TSC cycles, ratio against the defaults; Linux: the same "
            "binaries from build/linux/initrd-user.cpio.gz (ronx_user=bench)" % BOOTS)


def main():
    import bench
    kernel, _ = bench.linux_files()
    rows(bench.row, kernel, os.path.join(bench.LINUX_DIR, "initrd-user.cpio.gz"))
    print("\n| what | measured | goal | verdict | method |\n|---|---|---|---|---|")
    for r in bench.ROWS:
        print("| %s |" % " | ".join(r))


if __name__ == "__main__":
    main()
