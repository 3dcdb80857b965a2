# SPDX-License-Identifier: GPL-2.0-only
"""Lab 14, kernel-stacks: every kernel stack between two pages that are
never mapped (Linux's VMAP_STACK), and the double fault an overflow
becomes taken on a task of its own (Linux's doublefault_32.c). See
docs/labs/kernel-stacks.md.

Everything graded is seen from outside, through QEMU:

  - the stacks: at tasks the grade starts (how many, between how many
    short-lived ones: from the seed), each task's stack as the teacher's
    struct task says it (tasks[], read by QEMU's xp at its symbol, with
    the offsets from the kernel's own debug information) against the
    page tables QEMU reads (info tlb): the stack from its slot's second
    page, RW+NX, its frames, the slot's first page and the page above
    not present, nothing else of the stack area mapped;
  - the guards fault: QEMU's gdbstub sees the #PF of LKDTM's reads below
    and above the stack (the teacher's lkdtm_stack.c), at those addresses;
  - the free: after the tasks exit nothing but the shell's stack is
    mapped, and more processes than the area has slots still run; every
    stack frame is given back (the teacher's free_page()), and only after
    a flush_tlb_kernel_range() over the stack (the teacher's mm/tlb.c),
    in the order QEMU's gdbstub sees them;
  - the double fault: `crash EXHAUST_STACK` under -no-reboot (a triple
    fault ends QEMU), the shell answering after it; each CPU's IDT
    vector 8, GDT entry 7 and the double-fault TSS it names, read with
    xp: a task gate, and a TSS with its own stack, the kernel's CR3 and
    doublefault_entry.
"""
import re
import subprocess

from grading import CheckFailed, GuestError, check, step
from tlb import PageTables
from watch import Watch, faults

PAGE, PAGE_OFFSET = 4096, 0xC0000000
AREA, AREA_END, SLOT = 0xFE000000, 0xFE200000, 32 << 10   # include/ronx/{memlayout,vmap_stack}.h
NR_TASKS = 64
DF_STACK = 2048                 # DOUBLEFAULT_STACK_SIZE
CPUS = 2
KERNEL_CS, KERNEL_DS, PERCPU_SEL, DF_SEL = 0x08, 0x10, 0x30, 0x38
# the double-fault TSS's selectors (include/ronx/segment.h)
DF_SELECTORS = {"cs": KERNEL_CS, "ss": KERNEL_DS, "ds": KERNEL_DS, "es": KERNEL_DS,
                "fs": PERCPU_SEL, "gs": KERNEL_DS}
FRAME_MASK = 0x000FFFFFFFFFF000   # info tlb prints the pte's high bits (NX) beside the frame
RUNS = 70                       # more processes than the area has slots (64)

GUARD = step("map_stack", "the stack from the slot's second page up: the guard never mapped",
             "guard-mapped")
EXACT = step("map_stack", "exactly PFN_UP(size) pages", "one-page-too-many")
NX = step("map_stack", "mapped RW+NX (PAGE_KERNEL)", "stack-executable")
FRAMES = step("map_stack", "a fresh frame or the frames from pa on", "same-frame-for-every-page")
UNDO = step("map_stack", "on a failure unmap what was mapped and put the slot back", None,
            "a stack is refused only when memory or the 64 slots run out, which the shell's "
            "commands cannot bring about without failing the checks that would see it first")
UNMAP = step("free_thread_stack", "unmap the stack's pages and give their frames back",
             "never-unmapped")
FLUSH = step("free_thread_stack", "only once every CPU's TLB has dropped them",
             "unmap-without-flush")
SLOTBACK = step("free_thread_stack", "put the slot back", "slot-kept")
EIP = step("setup_doublefault_tss", "eip at doublefault_entry", "eip-left-zero")
ESP = step("setup_doublefault_tss", "esp at the top of this CPU's own double-fault stack",
           "esp-on-task-stack")
CR3 = step("setup_doublefault_tss", "cr3 the kernel's page tables", "cr3-left-zero")
SEGS = step("setup_doublefault_tss", "cs KERNEL_CS, ss ds es gs KERNEL_DS, fs PERCPU_SEL",
            "data-segments-null")
GATE = step("doublefault_gate", "a task gate to DOUBLEFAULT_TSS_SEL", "interrupt-gate")


# -- what the teacher's kernel says, read from outside ----------------------
def layout(ctx):
    """struct task's offsets, from the graded kernel's DWARF (gdb on the host)."""
    got = getattr(ctx, "kstacks_layout", None)
    if got:
        return got
    exprs = ["sizeof(struct task)"] + ["(int)&((struct task *)0)->%s" % f
                                       for f in ("state", "pid", "stack", "stack_size", "kthread")]
    r = subprocess.run(["gdb", "-batch", "-nx", ctx.elf] + sum((["-ex", "print " + e]
                                                                for e in exprs), []),
                       capture_output=True, text=True, timeout=60)
    vals = [int(v) for v in re.findall(r"^\$\d+ = (\d+)$", r.stdout, re.M)]
    if len(vals) != len(exprs):
        raise CheckFailed("expected gdb to read struct task from build/kernel.elf, found:\n%s"
                          % (r.stdout + r.stderr)[-400:])
    ctx.kstacks_layout = dict(zip(("size", "state", "pid", "stack", "stack_size", "kthread"),
                                  vals))
    return ctx.kstacks_layout


def xp_words(g, va, n):
    """n 32-bit words at kernel image address va, read by QEMU's xp."""
    out = g.monitor("xp /%dwx 0x%x" % (n, va - PAGE_OFFSET))
    words = [int(w, 16) for line in out.splitlines() if ":" in line
             for w in re.findall(r"0x([0-9a-f]+)", line.split(":", 1)[1])]
    if len(words) != n:
        raise CheckFailed("expected QEMU's xp to read %d words at 0x%08x, found: %r"
                          % (n, va, out[-300:]))
    return words


def stacks(ctx, g):
    """[(pid, kthread, stack, size)] of every task of tasks[] holding a stack."""
    lay = layout(ctx)
    words = xp_words(g, ctx.sym("tasks"), NR_TASKS * lay["size"] // 4)
    out = []
    for i in range(NR_TASKS):
        base = i * lay["size"] // 4
        w = lambda off: words[base + off // 4]     # noqa: E731
        if w(lay["state"]) != 0 and w(lay["stack"]):
            out.append((w(lay["pid"]), w(lay["kthread"] & ~3) >> 8 * (lay["kthread"] & 3) & 0xff,
                        w(lay["stack"]), w(lay["stack_size"])))
    return out


def area_pages(pt):
    return {m.va: m for m in pt.maps if AREA <= m.va < AREA_END}


def plan(r):
    """How many short-lived processes first, then per sleeper how many
    more after it: at least two sleepers, so that stacks sit in slots
    apart and the slots' numbers move with the seed."""
    return r.randrange(0, 9), [r.randrange(0, 3) for _ in range(r.randrange(2, 6))]


def start_tasks(ctx, g, r):
    """The plan's short-lived processes and sleepers; returns the sleepers' pids."""
    def runs(n):
        if n:
            out = g.sh("run -n %d true" % n)
            if "%d exit status 0" % n not in out:
                raise CheckFailed("expected `run -n %d true` to run them all, found: %s"
                                  % (n, out.strip()[-300:]))
    first, sleepers = plan(r)
    runs(first)
    pids = []
    for after in sleepers:
        start = len(g.guest.out)
        out = g.sh("run sleep 600000 &")
        m = re.search(r"^\[(\d+)\]", out, re.M)
        if not m:
            raise CheckFailed("expected `run sleep 600000 &` to start a process, found: %s"
                              % out.strip()[-300:])
        pids.append(int(m.group(1)))
        # its one line, before the next command: nothing prints into that one's echo
        g.guest.wait_for(r"sleep: nanosleep\(600 s, 0 ns\)", 30, start)
        runs(after)
    return pids


def scenario(ctx):
    """The two-CPU boot with the seeded tasks running: (g, sleepers' pids,
    stacks, page tables); made once per grade."""
    got = getattr(ctx, "kstacks_scenario", None)
    if isinstance(got, str):
        raise CheckFailed(got)
    if got:
        return got
    try:
        g = ctx.boot(smp=CPUS, tag="kstacks")
        pids = start_tasks(ctx, g, ctx.rng("kernel-stacks tasks"))
        got = (g, pids, stacks(ctx, g), g.tlb())
    except (CheckFailed, GuestError) as e:
        ctx.kstacks_scenario = str(e)
        raise CheckFailed(str(e))
    ctx.kstacks_scenario = got
    return got


def describe(m):
    return "not present" if m is None else "%s frame %08x" % (m.perm(), m.pa & FRAME_MASK)


# -- the double fault --------------------------------------------------------
def df_view(ctx, g, cpu):
    """CPU cpu's IDT vector 8 and the TSS its GDT entry 7 names, from xp."""
    regs = g.guest.monitor("info registers", cpu=cpu)
    idt = int(re.search(r"^IDT=\s*([0-9a-f]+)", regs, re.M).group(1), 16)
    gdt = int(re.search(r"^GDT=\s*([0-9a-f]+)", regs, re.M).group(1), 16)

    def words(va, n):   # through this CPU's page tables: the GDT is in its entry area
        out = g.guest.monitor("gva2gpa 0x%x" % va, cpu=cpu)
        m = re.search(r"gpa: 0x([0-9a-f]+)", out)
        if not m:
            raise CheckFailed("expected CPU %d to map 0x%08x, found: %s" % (cpu, va, out))
        return xp_words(g, int(m.group(1), 16) + PAGE_OFFSET, n)
    lo, hi = words(idt + 8 * 8, 2)
    dlo, dhi = words(gdt + 7 * 8, 2)
    base = (dlo >> 16) | (dhi & 0xff) << 16 | (dhi & 0xff000000)
    tss = words(base, 26)
    return {"gate": (hi, lo), "desc": (dhi, dlo), "base": base, "cr3": tss[7], "eip": tss[8],
            "eflags": tss[9], "esp": tss[14],
            "sel": {n: tss[i] & 0xffff for n, i in (("es", 18), ("cs", 19), ("ss", 20),
                                                     ("ds", 21), ("fs", 22), ("gs", 23))}}


def df_fields(ctx, g, after):
    """What is wrong with each CPU's vector 8 and double-fault TSS."""
    bad, tops = [], set()
    area = ctx.sym("doublefault_stack")
    eips = {ctx.sym("doublefault_entry")} | ({ctx.sym("doublefault_resume")} if after else set())
    for cpu in range(CPUS):
        v = df_view(ctx, g, cpu)
        hi, lo = v["gate"]
        if lo >> 16 != DF_SEL or (hi >> 8) & 0xff != 0x85:
            bad.append("CPU %d: expected IDT vector 8 a task gate (0x85) to selector 0x38, found "
                       "%08x:%08x (type %#x, selector %#x)" % (cpu, hi, lo, (hi >> 8) & 0xff,
                                                                lo >> 16))
        if (v["desc"][0] >> 8) & 0x1f != 0x09:
            bad.append("CPU %d: expected GDT entry 7 an available 32-bit TSS, found %08x:%08x"
                       % (cpu, v["desc"][0], v["desc"][1]))
        if v["esp"] not in {area + (k + 1) * DF_STACK for k in range(CPUS)}:
            bad.append("CPU %d: expected the double-fault TSS's esp at the top of one CPU's "
                       "doublefault_stack (0x%08x + (n + 1) * 0x%x), found %s"
                       % (cpu, area, DF_STACK, ctx.where(v["esp"])))
        elif v["esp"] in tops:
            bad.append("CPU %d: expected a double-fault stack of its own, found esp %08x, "
                       "another CPU's" % (cpu, v["esp"]))
        tops.add(v["esp"])
        want = ctx.sym("swapper_pg_dir") - PAGE_OFFSET
        if v["cr3"] != want:
            bad.append("CPU %d: expected the double-fault TSS's cr3 the kernel's page tables "
                       "(%08x), found %08x" % (cpu, want, v["cr3"]))
        if v["eip"] not in eips:
            bad.append("CPU %d: expected the double-fault TSS's eip at doublefault_entry%s, "
                       "found %s" % (cpu, " (or doublefault_resume once it ran)" if after else "",
                                     ctx.where(v["eip"])))
        if v["eflags"] & 0x200:
            bad.append("CPU %d: expected interrupts off in the double-fault TSS, found eflags %#x"
                       % (cpu, v["eflags"]))
        # TCG lets the handler use a null ds; a real CPU's first access #GPs
        wrong = ["%s %#x" % (n, v["sel"][n]) for n in sorted(DF_SELECTORS)
                 if v["sel"][n] != DF_SELECTORS[n]]
        if wrong:
            bad.append("CPU %d: expected the double-fault TSS's selectors cs 0x08, ss ds es gs "
                       "0x10, fs 0x30, found %s (a null data selector passes QEMU's TCG and "
                       "faults on a real CPU at the handler's first memory access)"
                       % (cpu, ", ".join(wrong)))
    return bad


@check(points=10, name="each CPU's vector 8 a task gate to a TSS with its own stack, the "
                       "kernel's CR3, doublefault_entry and the kernel's selectors (xp through "
                       "the IDT and GDT)",
       steps=[GATE, EIP, ESP, CR3, SEGS])
def df_tss(ctx):
    g = ctx.boot(smp=CPUS, tag="kstacks")
    bad = df_fields(ctx, g, after=False)
    if bad:
        raise CheckFailed("\n".join(bad[:8]))


@check(points=15, name="crash EXHAUST_STACK: the double fault's oops, never a triple fault "
                       "(QEMU runs on, -no-reboot), the shell answers, the TSS as before",
       steps=[GATE, EIP, ESP, CR3])
def exhaust(ctx):
    g = ctx.boot(smp=CPUS, tag="kstacks-crash")
    start = len(g.guest.out)
    try:
        out = g.sh("crash EXHAUST_STACK", timeout=60)
        g.sh("cmdline")
        alive = True
    except GuestError:
        g.dead = True
        out, alive = g.guest.out[start:], False
    if not alive or g.guest.proc.poll() is not None:
        raise CheckFailed("expected `crash EXHAUST_STACK` to oops and the shell to answer, found "
                          "QEMU %s:\n%s" % ("gone (a triple fault resets the CPU; -no-reboot "
                                           "ends QEMU)" if g.guest.proc.poll() is not None
                                           else "running but the shell silent",
                                           g.guest.out[start:][-600:]))
    if "kernel stack overflow (double-fault)" not in out or \
            "BUG: stack guard page was hit" not in out:
        raise CheckFailed("expected `crash EXHAUST_STACK` to print Linux's 'kernel stack "
                          "overflow (double-fault)' oops, found:\n%s" % out.strip()[-600:])
    bad = df_fields(ctx, g, after=True)
    if bad:
        raise CheckFailed("\n".join(bad[:8]))


# -- the stacks --------------------------------------------------------------
@check(points=20, name="each task's stack (tasks started at grade time) in its slot from the "
                       "second page, RW+NX; the slot's first page and the page above not "
                       "present; nothing else of the stack area mapped (xp, info tlb)",
       steps=[GUARD, EXACT, NX])
def mapped(ctx):
    g, pids, tasks, pt = scenario(ctx)
    pages = area_pages(pt)
    bad, ours = [], set()
    if not {p for p, _, _, _ in tasks} >= set(pids):
        bad.append("expected a stack for each sleeper %s in tasks[], found tasks %s"
                   % (pids, [p for p, _, _, _ in tasks]))
    for pid, _, stack, size in tasks:
        who = "pid %d's stack %08x..%08x" % (pid, stack, stack + size)
        if not AREA <= stack < AREA_END or (stack - AREA) % SLOT != PAGE:
            bad.append("%s: expected it to start at its slot's second page (0x%08x + n * "
                       "0x%x + 0x1000), found it at slot offset 0x%x"
                       % (who, AREA, SLOT, (stack - AREA) % SLOT))
            continue
        slot = stack - PAGE
        for va in range(stack, stack + size, PAGE):
            ours.add(va)
            m = pt.lookup(va)
            if m is None or not m.rw or not m.nx:
                bad.append("%s: expected page %08x RW+NX, found %s" % (who, va, describe(m)))
        for va, what in ((slot, "the slot's first page (the guard)"),
                         (stack - PAGE, "the page below"), (stack + size, "the page above")):
            if pt.lookup(va) is not None:
                bad.append("%s: expected %s, %08x, not present, found %s"
                           % (who, what, va, describe(pt.lookup(va))))
    for va, m in sorted(pages.items()):
        if va not in ours:
            bad.append("stack area page %08x is %s, but no task's stack covers it"
                       % (va, describe(m)))
    if bad:
        raise CheckFailed("\n".join(sorted(set(bad))[:8]))


@check(points=10, name="the shell's stack on the boot stack's frames, each process's on frames "
                       "of its own (info tlb against nm)", steps=[FRAMES])
def frames(ctx):
    g, _, tasks, pt = scenario(ctx)
    boot = ctx.sym("boot_stack") - PAGE_OFFSET
    # the image but its init pages, which were freed at boot and may be anyone's now
    image = [(ctx.sym(a) - PAGE_OFFSET, ctx.sym(b) - PAGE_OFFSET)
             for a, b in (("_text", "__init_begin"), ("__init_end", "_end"))]
    bad, seen = [], {}
    shells = [t for t in tasks if t[1]]
    if len(shells) != 1:
        bad.append("expected one kernel task (the shell) with a stack, found %d" % len(shells))
    for pid, kthread, stack, size in tasks:
        for i, va in enumerate(range(stack, stack + size, PAGE)):
            m = pt.lookup(va)
            if m is None:
                continue        # graded by the check above
            pa = m.pa & FRAME_MASK
            if pa in seen:
                bad.append("page %08x (pid %d) and %s map the same frame %08x"
                           % (va, pid, seen[pa], pa))
            seen[pa] = "page %08x (pid %d)" % (va, pid)
            if kthread and pa != boot + i * PAGE:
                bad.append("the shell's stack page %08x: expected the boot stack's frame "
                           "%08x (boot_stack + 0x%x), found %08x" % (va, boot + i * PAGE,
                                                                    i * PAGE, pa))
            if not kthread and any(lo <= pa < hi for lo, hi in image):
                bad.append("pid %d's stack page %08x: expected a fresh frame, found %08x, "
                           "inside the kernel image" % (pid, va, pa))
    if bad:
        raise CheckFailed("\n".join(bad[:8]))


def guard_read(ctx, g, name, where):
    """`crash NAME` watched: the #PF QEMU sees at the page where of the
    shell's stack; None or what was found instead."""
    shell = [t for t in stacks(ctx, g) if t[1]]
    if not shell:
        return "expected the shell's stack in tasks[], found none"
    _, _, stack, size = shell[0]
    want = stack - 1 if where == "below" else stack + size
    out, ev = Watch(ctx, g).run("crash " + name, timeout=60)
    pf = [e for e in faults(ev, user=False) if e.cr2 == want]
    if not pf or "kernel stack overflow (page fault)" not in out:
        return ("`crash %s`: expected a page fault at %08x, the page %s the shell's stack "
                "%08x..%08x (QEMU's gdbstub), and the oops, found %s:\n  %s"
                % (name, want, where, stack, stack + size,
                   "; ".join(map(str, faults(ev))) or "no fault",
                   "\n  ".join(out.strip().splitlines()[-3:])))
    try:
        g.sh("cmdline")
    except GuestError:
        return "the shell did not answer after `crash %s`" % name
    return None


@check(points=10, name="crash STACK_GUARD_PAGE_LEADING and _TRAILING fault at the page below "
                       "and above the shell's stack (QEMU sees the #PF), the shell answers",
       steps=[GUARD, EXACT])
def guards(ctx):
    g = ctx.boot(smp=CPUS, tag="kstacks-crash")
    bad = [why for why in (guard_read(ctx, g, "STACK_GUARD_PAGE_LEADING", "below"),
                           guard_read(ctx, g, "STACK_GUARD_PAGE_TRAILING", "above")) if why]
    if bad:
        raise CheckFailed("\n".join(bad))


# -- the free ----------------------------------------------------------------
@check(points=10, name="after the tasks exit only the shell's stack is mapped in the area, "
                       "and %d processes in a row still run (info tlb)" % RUNS,
       steps=[UNMAP, SLOTBACK])
def exited(ctx):
    g = ctx.boot(smp=CPUS, tag="kstacks-exit")
    r = ctx.rng("kernel-stacks exit")
    pids = start_tasks(ctx, g, r)
    before = stacks(ctx, g)
    start = len(g.guest.out)
    for pid in pids:
        g.sh("kill -9 %d" % pid)
    # the shell reports each background job's end before a prompt
    for _ in range(100):
        if all(re.search(r"^\[%d\] sleep: killed by SIGKILL" % p, g.guest.out[start:], re.M)
               for p in pids):
            break
        g.sh("cmdline")
    else:
        raise CheckFailed("expected the shell to report each killed sleeper %s, found:\n%s"
                          % (pids, g.guest.out[start:][-400:]))
    out = g.sh("run -n %d true" % RUNS, timeout=120)
    bad = []
    if "%d exit status 0" % RUNS not in out:
        bad.append("expected `run -n %d true` to run every one (a slot comes back at each "
                   "exit), found: %s" % (RUNS, out.strip()[-300:]))
    now = stacks(ctx, g)
    left = [t for t in now if not t[1]]
    if left:
        bad.append("expected only the shell to hold a stack, found pids %s"
                   % [t[0] for t in left])
    shell = {va for _, k, s, z in now if k for va in range(s, s + z, PAGE)}
    pt = g.tlb()
    for pid, k, s, z in before:
        if not k:
            gone = [va for va in range(s, s + z, PAGE) if pt.lookup(va) and va not in shell]
            if gone:
                bad.append("pid %d (killed) had its stack at %08x..%08x: expected it unmapped, "
                           "found %s still present" % (pid, s, s + z,
                                                       ", ".join("%08x" % v for v in gone)))
    extra = sorted(va for va in area_pages(pt) if va not in shell)
    if extra:
        bad.append("expected nothing but the shell's stack mapped in the stack area, found "
                   "%d more pages: %s" % (len(extra), ", ".join("%08x" % v for v in extra[:6])))
    if bad:
        raise CheckFailed("\n".join(bad[:6]))


class FreeOrder:
    """At each free_thread_stack() (the teacher's caller, kernel/sched.c,
    passes the stack): its frames, by QEMU's gva2gpa; then at each
    flush_tlb_kernel_range() (mm/tlb.c) and free_page() (mm/page_alloc.c)
    the order of events on that stack's pages and frames."""

    def __init__(self, ctx, g):
        self.g, self.stacks = g, []
        self.addr = {n: ctx.sym(n) for n in ("free_thread_stack", "flush_tlb_kernel_range",
                                             "free_page")}

    def frame(self, va, cpu):
        out = self.g.guest.monitor("gva2gpa 0x%x" % va, cpu=cpu)
        m = re.search(r"gpa: 0x([0-9a-f]+)", out)
        return int(m.group(1), 16) & ~(PAGE - 1) if m else None

    def __call__(self, ev, stub):
        a1, a2 = stub.read32(ev.regs["esp"] + 4), stub.read32(ev.regs["esp"] + 8)
        if ev.kind == "free_thread_stack":
            fr = {self.frame(va, ev.cpu) for va in range(a1, a1 + a2, PAGE)} - {None}
            self.stacks.append({"va": a1, "end": a1 + a2, "frames": fr, "flushed": False,
                                "freed": set(), "early": set()})
        elif ev.kind == "flush_tlb_kernel_range":
            for s in self.stacks:
                if a1 <= s["va"] and s["end"] <= a2:
                    s["flushed"] = True
        else:
            for s in self.stacks:
                if a1 in s["frames"]:
                    s["freed"].add(a1)
                    if not s["flushed"]:
                        s["early"].add(a1)


@check(points=15, name="every frame of a freed stack goes back, each only after a TLB flush "
                       "of the whole stack on every CPU (QEMU's gdbstub sees the order)",
       steps=[UNMAP, FLUSH])
def free_order(ctx):
    g = ctx.boot(smp=CPUS, tag="kstacks-exit")
    n = ctx.rng("kernel-stacks free").randrange(2, 5)
    order = FreeOrder(ctx, g)
    out, _ = Watch(ctx, g, faults=False, calls=order.addr, on_call=order).run(
        "run -n %d true" % n, timeout=120)
    bad = []
    if len(order.stacks) < n:
        bad.append("expected free_thread_stack() for each of the %d processes of `run -n %d "
                   "true`, found %d calls; it said: %s" % (n, n, len(order.stacks),
                                                         out.strip()[-300:]))
    for s in order.stacks:
        what = "the stack %08x..%08x" % (s["va"], s["end"])
        if not s["frames"]:
            bad.append("%s: expected its frames mapped when it is freed, found none" % what)
        if s["early"]:
            bad.append("%s: frames %s given back (free_page()) before any flush_tlb_kernel_"
                       "range() over the stack: another CPU's TLB may still write them"
                       % (what, ", ".join("%08x" % f for f in sorted(s["early"]))))
        if s["frames"] - s["freed"]:
            bad.append("%s: expected its frames given back (free_page()), found %s never freed"
                       % (what, ", ".join("%08x" % f for f in sorted(s["frames"] - s["freed"]))))
        if not s["flushed"]:
            bad.append("%s: expected a flush_tlb_kernel_range() over it, found none" % what)
    if bad:
        raise CheckFailed("\n".join(bad[:6]))
