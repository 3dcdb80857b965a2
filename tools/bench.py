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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_user  # noqa: E402
import bench_smp  # noqa: E402
import bench_irq  # noqa: E402
import bench_options  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "linux"))
from boot import NO_TIMER_CHECK, PANIC_END  # noqa: E402  (linux/boot.py: the same boot rules)

PAGE = 4096
ROWS = []


def row(what, value, goal, method, verdict=""):
    ROWS.append((what, value, goal, verdict, method))
    print("bench: %s: %s" % (what, value), flush=True)


def boot_ronx(runs=5, cmdline=""):
    times = []
    for i in range(runs):
        with Guest("bench boot %d" % i, cmdline=cmdline) as g:
            g.wait_ready()
            times.append(g.ready_seconds)
            g.poweroff()
    return statistics.median(times), times


LINUX_DIR = os.path.join(BUILD, "linux")
LINUX_INIT_LINE = b"=== ronx-peer: cmdline"


def linux_files():
    """Debian's vmlinuz and the test initramfs, made by make linux-check."""
    import glob
    kernels = glob.glob(os.path.expanduser("~/.cache/ronx/linux/root-*/boot/vmlinuz-*-686-pae"))
    initrd = os.path.join(LINUX_DIR, "initrd-debian.cpio.gz")
    if not kernels or not os.path.exists(initrd):
        print("bench: Debian's kernel is not here yet: running make linux-check", flush=True)
        subprocess.run(["make", "-s", "linux-check"], cwd=ROOT)
        kernels = glob.glob(os.path.expanduser("~/.cache/ronx/linux/root-*/boot/vmlinuz-*-686-pae"))
    return (kernels[-1] if kernels else None), initrd


def boot_linux(runs=3):
    """Seconds from starting QEMU to the first line of Linux's /init."""
    kernel, initrd = linux_files()
    if not kernel or not os.path.exists(initrd):
        return None, []
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        q = subprocess.Popen(["qemu-system-i386", "-accel", "tcg", "-cpu", "qemu32,+nx,+pae",
                              "-m", "128M", "-display", "none", "-no-reboot", "-net", "none",
                              "-serial", "stdio", "-kernel", kernel, "-initrd", initrd,
                              "-append", "console=ttyS0 " + NO_TIMER_CHECK],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        buf = b""
        while LINUX_INIT_LINE not in buf and PANIC_END not in buf and \
                time.monotonic() - t0 < 300:
            chunk = q.stdout.read1(4096)
            if not chunk:
                break
            buf += chunk
        if LINUX_INIT_LINE in buf:
            times.append(time.monotonic() - t0)
        q.kill()
        q.wait()
    return (statistics.median(times) if times else None), times


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


def pagealloc_costs(cmdline, runs=5):
    """debug_pagealloc's price on 2 CPUs: (PageTables at the prompt,
    shootdowns by then, shootdowns per `run hello`), from meminfo and cpastat."""
    def counts(g):
        tables = int(re.search(r"PageTables:\s+(\d+)", g.command("meminfo")).group(1))
        # cpastat's per-CPU rows: CPU, shootdowns, IPIs sent, ...
        sent = sum(int(n) for n in re.findall(r"^\s*\d+\s+(\d+)\s+\d+\s+\d+", g.command("cpastat"), re.M))
        return tables, sent
    with Guest("bench pagealloc " + (cmdline or "off"), cmdline=cmdline, extra=["-smp", "2"]) as g:
        g.wait_ready()
        tables, before = counts(g)
        for _ in range(runs):
            g.command("run hello")
        after = counts(g)[1]
        g.poweroff()
    return tables, before, (after - before) / runs


def pagealloc_rows():
    off, on = pagealloc_costs(""), pagealloc_costs("debug_pagealloc")
    row("debug_pagealloc: page-table pages, shootdowns at boot and per process (-smp 2)",
        "PageTables %d (off %d); shootdowns by the prompt %d (off %d); per `run hello` %.0f (off %.0f)"
        % (on[0], off[0], on[1], off[1], on[2], off[2]),
        "(none: a debug option; 4K ptes for all of RAM and a shootdown per free are its price)",
        "meminfo PageTables and the sum of cpastat's per-CPU shootdowns, booted with and "
        "without debug_pagealloc on 2 CPUs, at the prompt and after 5 runs of bin/hello")


BENCH = os.path.join(BUILD, "bench")
MOD_CFLAGS = ["-m32", "-ffreestanding", "-fno-pic", "-fno-pie", "-fno-stack-protector",
              "-mno-sse", "-mno-mmx", "-fno-asynchronous-unwind-tables", "-fno-common",
              "-fcf-protection=none", "-nostdlib", "-O2", "-Imodules/include", "-Iinclude"]


def sh(*cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, **kw)


def build_loader_bench():
    os.makedirs(BENCH, exist_ok=True)
    exe = os.path.join(BENCH, "bench_loader")
    sh("gcc", "-O2", "-g", "-Iinclude", "-Imodload", "-Imodules/include",
       "tools/bench/bench_loader.c", "-o", exe)
    return exe


def gen_module(k):
    """A module with k functions, strings and exports (tools/bench/genmod.py)."""
    base = os.path.join(BENCH, "gen%d" % k)
    with open(base + ".c", "w") as f:
        f.write(sh(sys.executable, "tools/bench/genmod.py", str(k)).stdout)
    sh("gcc", *MOD_CFLAGS, "-DKBUILD_MODNAME=gen%d" % k, "-c", base + ".c", "-o", base + ".o")
    sh("ld", "-m", "elf_i386", "-r", base + ".o", "-o", base + ".ko")
    rel = sh("readelf", "-rW", base + ".ko").stdout.count("R_386_")
    syms = sh("readelf", "-sW", base + ".ko").stdout.count(": ")
    return base + ".ko", rel, syms


def instructions(*args):
    """Instructions callgrind counts for one run of the program."""
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                         + list(args), cwd=ROOT, capture_output=True, text=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_run(exe, mode, arg, n1, n2):
    """Instructions per operation: the difference of two run counts, so the
    program's start-up and set-up cancel out."""
    return (instructions(exe, mode, arg, str(n2)) - instructions(exe, mode, arg, str(n1))) \
        / (n2 - n1)


def loader_rows():
    exe = build_loader_bench()
    costs = []
    for k in (10, 100, 1000):
        ko, rel, syms = gen_module(k)
        cost = per_run(exe, "load", ko, 1, 11)
        costs.append((k, rel, syms, cost))
    base = costs[0][3] / costs[0][1]
    row("loader cost (check + layout + relocate), generated modules",
        "; ".join("%d relocs, %d symbols: %.0f instr (%.0f per reloc)" % (rel, syms, c, c / rel)
                  for _, rel, syms, c in costs),
        "linear: the same cost per relocation at 1x, 10x, 100x",
        "host build of modload/ (tools/bench/bench_loader.c) under valgrind --tool=callgrind; "
        "instructions per load = (count for 11 loads - count for 1 load) / 10",
        "per-relocation cost at 100x is %.2fx the 1x cost" % ((costs[-1][3] / costs[-1][1]) / base))
    lookups = [(n, per_run(exe, "lookup", str(n), 1000, 11000)) for n in (100, 1000, 10000)]
    row("symbol lookup, by number of exports",
        "; ".join("%d exports: %.0f instr" % (n, c) for n, c in lookups),
        "grows like log2(exports), not with the number of exports",
        "bench_loader lookup: instructions per lookup = (count for 11000 - count for 1000) / 10000",
        "100x the exports costs %.1fx per lookup" % (lookups[-1][1] / lookups[0][1]))
    sizes = sh(exe, "sizes", *sorted(
        os.path.join("build", "modules", f) for f in os.listdir(os.path.join(BUILD, "modules"))
        if f.endswith(".ko"))).stdout
    parts, at_min = [], True
    for line in sizes.splitlines():
        f = line.split()
        name = os.path.basename(f[0])[:-3]
        on, off, low, ion, ioff, ilow = map(int, (f[2], f[3], f[4], f[6], f[7], f[8]))
        at_min &= on == low and ion == ilow
        parts.append("%s core %dK (off %dB, min %dK) init %dK (off %dB, min %dK)"
                     % (name, on // 1024, off, low // 1024, ion // 1024, ioff, ilow // 1024))
    row("module memory with alignment on / off / minimum", "; ".join(parts),
        "aligned size equal to the minimum (each non-empty group rounded up to a page)",
        "bench_loader sizes: layout_sections() with module RO/NX on and off, on the sample "
        "modules; minimum from the bytes of each group's sections",
        "meets the goal" if at_min else "above the minimum for some module")


GRADE_LAB = os.environ.get("BENCH_GRADE_LAB", "wx-audit")


def generated_class(name, n, dest):
    """n submissions for lab name in dest: the solved files, the stripped
    tree and each wrong solution, in turn (names s000, s001, ...)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lab
    kinds = ["solved", "stripped"] + sorted(
        p[:-len(".patch")] for p in os.listdir(os.path.join(ROOT, "labs", name, "wrong")))
    stripped = os.path.join(dest, ".stripped")
    lab.start(name, stripped, git=False)
    for i in range(n):
        kind, d = kinds[i % len(kinds)], os.path.join(dest, "s%03d-%s" % (i, kinds[i % len(kinds)]))
        if kind == "stripped":
            subprocess.run(["cp", "-a", stripped, d], check=True)
            continue
        for rel in lab.lab_files(name):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            subprocess.run(["cp", os.path.join(ROOT, rel), os.path.join(d, rel)], check=True)
        if kind != "solved":
            subprocess.run(["patch", "-p1", "-s", "-i",
                            os.path.join(ROOT, "labs", name, "wrong", kind + ".patch")],
                           cwd=d, check=True)
    return kinds


def grade_class_seconds(name, directory, jobs):
    """Wall seconds of make grade-class over directory with jobs workers."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab.py"), "grade-class", name,
                    directory, "--jobs", str(jobs), "--seed", "1"], cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0


def submission_dir(lab, name, d, wrong=None):
    """d/ with the solved files of lab name, with labs/NAME/wrong/WRONG.patch applied."""
    for rel in lab.lab_files(name):
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        subprocess.run(["cp", os.path.join(ROOT, rel), os.path.join(d, rel)], check=True)
    if wrong:
        subprocess.run(["patch", "-p1", "-s", "-i", os.path.join(ROOT, "labs", name, "wrong",
                                                                 wrong + ".patch")],
                       cwd=d, check=True)
    return d


def per_lab_grading_rows(labs, tmp):
    """Per lab: the wall time of one graded submission (the solved files,
    and the first wrong solution), and of the inspection before linking
    with the stubs compiled afresh; returns {lab: worst seconds}."""
    import shutil
    import lab
    import labinspect  # noqa: F401 (lab.inspect uses it)
    singles, inspect = {}, {}
    for name in labs:
        wrongs = sorted(p[:-len(".patch")] for p in
                        os.listdir(os.path.join(ROOT, "labs", name, "wrong"))
                        if p.endswith(".patch"))
        times = []
        for kind in ["solved"] + wrongs[:1]:
            d = submission_dir(lab, name, os.path.join(tmp, "one-%s-%s" % (name, kind)),
                               None if kind == "solved" else kind)
            t0 = time.monotonic()
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lab.py"), "grade", name,
                            "--submission", d, "--seed", "1", "--results",
                            os.path.join(tmp, name + ".json")], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append((kind, time.monotonic() - t0))
        singles[name] = times
        shutil.rmtree(os.path.join(ROOT, "build", "grade", "stubs"), ignore_errors=True)
        t0 = time.monotonic()
        lab.inspect([name], ROOT)
        inspect[name] = time.monotonic() - t0
        print("bench: grading one %s submission: %s; inspection %.1f s" % (
            name, ", ".join("%s %.1f s" % kv for kv in times), inspect[name]), flush=True)
    worst = {n: max(s for _, s in t) for n, t in singles.items()}
    row("time to grade one submission, per lab", ", ".join(
        "%s %s" % (n, " / ".join("%.1f s" % s for _, s in t)) for n, t in singles.items()),
        "under a minute per lab on 2 cores (issue 21); a few seconds, so that a class is "
        "graded in minutes",
        "wall clock of tools/lab.py grade LAB --submission DIR, one at a time: the solved lab "
        "files / the lab's first wrong solution (%s); each: copy of the teacher's tree and "
        "build/, inspection, make, every boot of the lab; %d cores"
        % (", ".join("%s: %s" % (n, t[-1][0]) for n, t in singles.items() if len(t) > 1),
           os.cpu_count() or 1),
        "meets the goal" if max(worst.values()) < 60 else "short of the goal")
    row("inspection of a lab's files before linking, per lab", ", ".join(
        "%s %.2f s" % kv for kv in inspect.items()),
        "seconds, not minutes (part of every grade above)",
        "wall clock of tools/lab.py's inspect() on the solved files with the stubs' cache "
        "emptied: make of each lab object (up to date), each stub compiled, the rules of "
        "tools/labinspect.py")
    return worst


def grading_rows():
    """One submission of each lab; a class of 100; 1 core against all."""
    import shutil
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lab
    tmp = tempfile.mkdtemp(prefix="ronx-bench-grade-")
    try:
        worst = per_lab_grading_rows(lab.written_labs(), tmp)
        cores = os.cpu_count() or 1
        big = os.path.join(tmp, "class")
        os.makedirs(big)
        kinds = generated_class(GRADE_LAB, 100, big)
        shutil.rmtree(os.path.join(big, ".stripped"))
        print("bench: grading a class of 100 %s submissions on %d cores" % (GRADE_LAB, cores),
              flush=True)
        wall = grade_class_seconds(GRADE_LAB, big, cores)
        row("a class of 100 %s submissions, all %d cores" % (GRADE_LAB, cores),
            "%.0f s wall, %.1f submissions per minute" % (wall, 6000 / wall),
            "200 students on 16 cores in under 10 minutes (extrapolated below)",
            "make grade-class on 100 generated submissions (%s, in turn), one grade per core"
            % ", ".join(kinds))
        small = os.path.join(tmp, "twenty")
        os.makedirs(small)
        generated_class(GRADE_LAB, 20, small)
        shutil.rmtree(os.path.join(small, ".stripped"))
        one = grade_class_seconds(GRADE_LAB, small, 1)
        allc = grade_class_seconds(GRADE_LAB, small, cores)
        speedup = one / allc
        row("scaling from 1 to %d cores (20 %s submissions)" % (cores, GRADE_LAB),
            "%.0f s on 1 core, %.0f s on %d: %.2fx (%.0f%% of linear)"
            % (one, allc, cores, speedup, 100 * speedup / cores),
            "close to linear: each grade is one QEMU and one make at a time",
            "make grade-class JOBS=1 and JOBS=%d on the same 20 submissions" % cores)
        per = one / 20
        est = 200 * per / (16 * speedup / cores)
        worst = max(worst.values())
        row("EXTRAPOLATION, not measured: 200 students on 16 cores",
            "%.1f min for %s (%.1f s per submission on one core, at this machine's %.0f%% "
            "per-core efficiency); %.1f min if every grade took as long as the slowest lab's "
            "(%.1f s)" % (est / 60, GRADE_LAB, per, 100 * speedup / cores,
                          200 * worst / (16 * speedup / cores) / 60, worst),
            "under 10 minutes",
            "200 x (1-core seconds per submission) / (16 x the measured per-core efficiency); "
            "assumes 16 cores as fast as these and memory for 16 QEMUs (128 MiB each)",
            "meets the goal" if est < 600 else "short of the goal")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def make_test_seconds():
    t0 = time.monotonic()
    subprocess.run(["make", "-s", "test"], cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    if sys.argv[1:2] == ["grading"]:
        # tools/bench.py grading [LAB...]: only the per-lab grading rows
        import shutil
        import tempfile
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import lab
        tmp = tempfile.mkdtemp(prefix="ronx-bench-grade-")
        try:
            per_lab_grading_rows(sys.argv[2:] or lab.written_labs(), tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print("\n| what | measured | goal | verdict | method |\n|---|---|---|---|---|")
        for r in ROWS:
            print("| %s |" % " | ".join(r))
        return
    print("bench: booting ronx 5 times under TCG", flush=True)
    med, times = boot_ronx()
    row("boot to 'ronx: ready'", "%.3f s (median of %d: %s)" % (
        med, len(times), ", ".join("%.3f" % t for t in times)),
        "at least 10x faster than Linux to init (next row)",
        "wall clock from starting qemu-system-i386 -accel tcg -cpu qemu32,+nx,+pae "
        "-m 128M -kernel to the line 'ronx: ready' on the serial console")

    print("bench: booting ronx 5 times with kaslr", flush=True)
    kmed, ktimes = boot_ronx(cmdline="kaslr")
    row("boot to 'ronx: ready' with kaslr", "%.3f s (median of %d: %s); %+.3f s against the "
        "row above" % (kmed, len(ktimes), ", ".join("%.3f" % t for t in ktimes), kmed - med),
        "(none: the copy of the image and its relocations are the cost)",
        "as the row above, with -append kaslr (kernel/kaslr.c copies the image and "
        "applies its relocation table before start_kernel)")

    print("bench: booting Debian's 686-pae Linux 3 times under TCG", flush=True)
    lmed, ltimes = boot_linux()
    if lmed is None:
        row("boot of Debian's Linux 686-pae to its init", "not measured: the kernel or "
            "initramfs is missing (make linux-check makes them)", "", "", "not measured")
    else:
        ratio = lmed / med
        row("boot of Debian's Linux 686-pae to its init", "%.2f s (median of %d: %s); "
            "Linux/ronx = %.0fx" % (lmed, len(ltimes), ", ".join("%.2f" % t for t in ltimes),
                                    ratio),
            "ronx at least 10x faster",
            "same QEMU options as ronx (-m 128M, TCG, qemu32,+nx,+pae, -kernel/-initrd), "
            "wall clock to the first line the initramfs's /init prints",
            "meets the goal" if ratio >= 10 else "short of the goal")

    print("bench: user mode: system call, context switch, spawn (ronx, Linux with and "
          "without PTI)", flush=True)
    kernel, _ = linux_files()
    bench_user.rows(row, kernel, os.path.join(LINUX_DIR, "initrd-user.cpio.gz"))

    print("bench: several CPUs: set_memory_ro() with 1, 2, 4, 8 CPUs; boot with 1 and 4",
          flush=True)
    bench_smp.rows(row)

    print("bench: interrupts in system calls: Ctrl-C and kill during a 1 MiB write, getpid",
          flush=True)
    bench_irq.rows(row)

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
        "one invlpg per page of a request up to 32 pages, then one full flush",
        "the kernel's own counters (shell 'cpastat') after boot")

    print("bench: debug_pagealloc with and without (2 CPUs)", flush=True)
    pagealloc_rows()

    print("bench: the defences' boot options, each with and without (ronx, Linux)", flush=True)
    bench_options.rows(row, kernel, os.path.join(LINUX_DIR, "initrd-user.cpio.gz"))

    print("bench: the loader's cost under callgrind (a minute)", flush=True)
    loader_rows()

    print("bench: grading (one submission per lab, a class of 100, 1 core against all)",
          flush=True)
    grading_rows()

    print("bench: timing make test", flush=True)
    row("make test wall time", "%.1f s" % make_test_seconds(), "well under 20 minutes",
        "wall clock of 'make -s test' after everything is built")

    print("\n| what | measured | goal | verdict | method |\n|---|---|---|---|---|")
    for r in ROWS:
        print("| %s |" % " | ".join(r))


if __name__ == "__main__":
    main()
