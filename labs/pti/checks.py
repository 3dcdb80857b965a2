# SPDX-License-Identifier: GPL-2.0-only
"""Lab 13, pti: page-table isolation - the user set's kernel half and the
CR3 switches on the way in and out (mm/pti.c, boot/pti_entry.inc;
docs/labs/pti.md).

Everything is read from outside, with the CPU stopped: the user set by
QEMU's `info tlb` and by the page-table model (labs/pagemodel.py: its
tables as QEMU's pmemsave reads them) under the CR3 of a moment the
probe runs in ring 3; the entry and the exit by QEMU's gdbstub, stopped at addresses the
lab's code does not own (the int $0x80 stub, trap_common, pti_exit_window,
and the probe's own labels), where CR3, esp and the frame are read from
the CPU and memory. The test program (ptiprobe.c) is built at grade time;
the registers it enters the kernel with, the order of its ways back to
ring 3 and how many rounds it makes come from the grade's seed, and every
seed has every way back. One round boots two CPUs: two probes make system
calls without end, and the gdbstub holds one CPU in ring 3 while the
other runs alone (vCont), so that what each CPU's entries and exits
touch is seen without waiting for the two to race."""
import os
import re
import time

import cea
import pagemodel
from grading import CPU_NO_NX, CheckFailed, GuestError, check, deadline, load_scaled, step
from tlb import PageTables, registers
from userlab import (build_program, built_once, died, gdbstub_session, initrd_with,
                     start_background, symbols, work_dir)

LAB = "pti"
HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = 4096
PAGE_OFFSET = 0xC0000000
USER_BIT = 0x800                # ronx/pti.h PTI_USER_PGD_OFFSET: the user set's PDPT
FRAME_WORDS = 19                # struct trap_frame
NR_GETPID = 20
CPL = re.compile(r"\bCPL=(\d)")
TR = re.compile(r"^TR\s*=\s*[0-9a-f]+ ([0-9a-f]+)", re.M)
EIP = re.compile(r"\bEIP=([0-9a-f]+)")
DONE = r"(?:^|(?<=ronx> ))ptiprobe: rounds done$"     # the prompt may come first (-smp 2)
PDPTE_ADDR = 0x000FFFFFFFFFF001     # the directory and present (QEMU sets bit 5 as it walks)
FRAME = 0x000FFFFFFFFFF000          # QEMU's pa carries NX in bit 63

# -- the steps: each verb of labs/pti/strip's hints --------------------------
RANGE = step("pti_clone_range", "every page of [start, end), at its own frame",
             wrong="clone-range-short")
TRAMPOLINE_RO = step("pti_clone_user_shared", "the trampoline read-only and executable",
                     wrong="trampoline-writable")
ENTRY_NX = step("pti_clone_user_shared", "the entry areas writable and NX",
                wrong="entry-area-executable")
NOT_USER = step("pti_clone_user_shared", "never user-accessible", wrong="entry-area-user")
NOTHING_ELSE = step("pti_clone_user_shared", "nothing else of the kernel",
                    wrong="kernel-data-in-user-set")
SHARED = step("pti_clone_pgd", "entries 0-2 the kernel set's (shared)", wrong="pdpt-entry2-missing")
OWN_HALF = step("pti_clone_pgd", "entry 3 the user set's kernel half", wrong="pdpt-all-copied")
PRESENT_ONLY = step("pti_clone_pgd", "entry 3 present, no other bit (a PDPT entry has no RW "
                    "or US)", wrong="pdpt-entry3-table-bits")
CPU_BITS = step("pti_clone_range", "only the bits this CPU has", wrong="nx-on-every-cpu")
SWITCH_FIRST = step("PTI_ENTER_FROM_USER", "CR3 to the kernel set before touching anything "
                    "outside the entry area", wrong="switch-after-stack")
MOVE_IN = step("PTI_ENTER_FROM_USER", "the frame onto the task's kernel stack, every register "
               "as found", wrong="enter-clobbers-ecx")
ONTO_ENTRY = step("PTI_EXIT_TO_USER", "the frame onto this CPU's entry stack",
                  wrong="exit-switch-first")
USER_LAST = step("PTI_EXIT_TO_USER", "then CR3 to the user set, the last thing",
                 wrong="exit-no-switch")
SAVE_SET = step("SWITCH_TO_KERNEL_CR3", "to the kernel set, saying which set it was on",
                wrong="saved-set-zero")
RESTORE = step("RESTORE_CR3", "back on the set it was on", wrong="restore-missing")
ENTER_THIS_CPU = step("PTI_ENTER_FROM_USER", "the task's kernel stack this CPU's entry area "
                      "names, on every CPU", wrong="entry-mask-two-pages")
EXIT_THIS_CPU = step("PTI_EXIT_TO_USER", "this CPU's entry stack, on every CPU (never another's)",
                     wrong="exit-top-by-or")


# -- the program and its scenario --------------------------------------------
class Scenario:
    """From the seed: the six registers the probe's int $0x80 carries, the
    order of its ways back to ring 3 (each round has all three), the
    number of rounds, and where the probe is linked: always at an address
    with bits 29 and 17 set (an offset into the frame that reads the
    saved eip where it meant eflags sees X86_EFLAGS_VM there)."""

    def __init__(self, r):
        # ebx ecx edx esi edi ebp: six different values, so that a register
        # saved into another's place is seen
        self.regs = r.sample(range(1 << 32), 6)
        kinds = list("sfc")
        r.shuffle(kinds)
        self.order = "".join(kinds)
        self.rounds = r.randrange(2, 6)
        self.base = 0x20028000 | r.randrange(0, 256) << 20     # below the mmap area

    def line(self):
        return "ptiprobe %s %s %d" % (" ".join(str(v) for v in self.regs), self.order, self.rounds)


REG_NAMES = ("ebx", "ecx", "edx", "esi", "edi", "ebp")
WAYS_BACK = {"_start": "exec's first return", "probe_after_int80": "a system call's return",
             "probe_after_touch": "a page fault's return",
             "probe_after_fork": "fork's returns (the parent's and the child's first)"}


class Program:
    def __init__(self, ctx):
        d = work_dir(ctx, LAB)
        self.scn = Scenario(ctx.rng("pti/scenario"))
        # every user program's script, linked at the scenario's base
        with open(os.path.join(ctx.root, "user", "user.ld")) as f:
            script = f.read()
        if script.count("0x08048000 + SIZEOF_HEADERS") != 1:
            raise CheckFailed("expected user/user.ld to link at 0x08048000 + SIZEOF_HEADERS")
        ld = os.path.join(d, "ptiprobe.ld")
        with open(ld, "w") as f:
            f.write(script.replace("0x08048000 + SIZEOF_HEADERS",
                                   "0x%08x + SIZEOF_HEADERS" % self.scn.base))
        elf = build_program(ctx, os.path.join(d, "ptiprobe"), [os.path.join(HERE, "ptiprobe.c")], ld)
        self.initrd, _ = initrd_with(ctx, LAB, {"ptiprobe": elf})
        self.syms = symbols(elf)


def program(ctx):
    return built_once(ctx, "pti_program", Program)


def boot(ctx, tag, cpu=None):
    more = {"cpu": cpu} if cpu else {}
    return ctx.boot(initrd=program(ctx).initrd, tag=tag, **more)


# -- reading the CPU from outside ----------------------------------------------
def cpu_state(g, regs=None):
    """(CPL, CR3, this CPU's cpu_entry_area (TR's page)) from `info registers`."""
    regs = regs or g.monitor("info registers")
    m, tr = CPL.search(regs), TR.search(regs)
    return (int(m.group(1)) if m else None, registers(regs).get("CR3", 0),
            int(tr.group(1), 16) & ~(PAGE - 1) if tr else None)


def stopped_in_ring3(ctx, g, cr3=None, tries=60):
    """Stops the CPU in ring 3 running the process whose kernel set is cr3
    (any process if None); returns (CR3 then, info tlb then). The CPU is
    left stopped. Failing, says where the CPU was instead."""
    where, cr2 = {}, 0
    try:
        for _ in range(tries):
            g.monitor("stop")
            regs = g.monitor("info registers")
            cpl, now, _ = cpu_state(g, regs)
            if cpl == 3 and (cr3 is None or now & ~USER_BIT & ~0x1f == cr3):
                return now, PageTables(g.monitor("info tlb"))
            m = EIP.search(regs)
            key = "ring %s at %s" % (cpl, ctx.where(int(m.group(1), 16)) if m else "?")
            where[key] = where.get(key, 0) + 1
            cr2 = registers(regs).get("CR2", 0)
            g.monitor("cont")
            time.sleep(0.03)
        g.monitor("cont")
    except (GuestError, OSError) as e:
        raise CheckFailed("expected to stop the CPU in ring 3 in the probe, found QEMU gone "
                          "(%s; a triple fault?):\n%s" % (e, died(g.guest.out)))
    seen = ", ".join("%d x %s" % (n, k) for k, n in sorted(where.items(), key=lambda x: -x[1])[:3])
    raise CheckFailed("expected to stop the CPU in ring 3 in the probe within %d tries, found it "
                      "never there: %s; last CR2 %#x" % (tries, seen, cr2))


def start_probe(ctx, g):
    """`run ptiprobe ... &` until it has run its rounds (well under a
    second: 10 s is a probe that will never get there)."""
    pid, cr3, _ = start_background(g, program(ctx).scn.line(), DONE, timeout=10, ctx=ctx,
                                   never_sleeps=True)
    return pid, cr3


def stop_probe(g, pid):
    try:
        g.sh("kill %d" % pid)
    except (GuestError, OSError):
        pass        # QEMU is gone: the check already says so


# -- the user set ---------------------------------------------------------------
def expected_half(ctx):
    """{va: 'RO+X' or 'RW+NX'}: the trampoline and the entry areas, these
    also at their fixed alias (the CPU entry area: teacher code maps it)."""
    want = {va: "RO+X" for va in range(ctx.sym("__entry_text_start"), ctx.sym("__entry_text_end"), PAGE)}
    want.update({va: "RW+NX" for va in range(ctx.sym("__entry_data_start"),
                                             ctx.sym("__entry_data_end"), PAGE)})
    want.update({va: "RW+NX" for va in cea.alias_pages(ctx.syms)})
    return want


def user_set_problems(ctx, g, cr3, pt):
    bad = []
    if not cr3 & USER_BIT:
        return ["in ring 3, CR3 %#x is the kernel set (bit 11 clear): the kernel half is "
                "whole there (is PTI on? the boot said: %s)" % (cr3, pti_line(g))]
    want = expected_half(ctx)
    half = {}
    for m in pt.maps:
        if m.va >= PAGE_OFFSET:
            for va in range(m.va, m.va + m.size, PAGE):
                half[va] = m
    extra = sorted(set(half) - set(want))
    if extra:
        bad.append("%d kernel page(s) mapped in the user set that are neither the trampoline nor "
                   "the entry area, e.g. %s" % (len(extra), ", ".join(ctx.where(v) for v in extra[:3])))
    missing = sorted(set(want) - set(half))
    if missing:
        bad.append("%d page(s) of the trampoline or the entry area not mapped in the user set, "
                   "e.g. %s" % (len(missing), ", ".join(ctx.where(v) for v in missing[:3])))
    for va in sorted(set(want) & set(half)):
        m = half[va]
        if m.perm() != want[va]:
            bad.append("%s is %s in the user set, expected %s" % (ctx.where(va), m.perm(), want[va]))
        if m.user:
            bad.append("%s is user-accessible (US) in the user set" % ctx.where(va))
        pa = (m.pa & FRAME) + (va - m.va)
        if pa != cea.phys(ctx.syms, va):
            bad.append("%s maps frame %#x in the user set, expected its own, %#x"
                       % (ctx.where(va), pa, cea.phys(ctx.syms, va)))
    mem = ram(ctx, g)
    k, u = pagemodel.pdpt_of(mem.read, cr3 & ~USER_BIT), pagemodel.pdpt_of(mem.read, cr3)
    if [e & PDPTE_ADDR for e in k[:3]] != [e & PDPTE_ADDR for e in u[:3]]:
        bad.append("the user set's PDPT entries 0-2 (%s) are not the kernel set's (%s)"
                   % (" ".join("%#x" % e for e in u[:3]), " ".join("%#x" % e for e in k[:3])))
    if k[3] & PDPTE_ADDR == u[3] & PDPTE_ADDR:
        bad.append("the user set's PDPT entry 3 is the kernel set's own (%#x): the whole kernel "
                   "half" % u[3])
    return bad


def pti_line(g):
    m = re.search(r"^Kernel/User page tables isolation: .*$", g.log, re.M)
    return m.group(0) if m else "no 'Kernel/User page tables isolation' line"


def nx_enabled(g):
    return bool(registers(g.monitor("info registers")).get("EFER", 0) & 1 << 11)


def ram(ctx, g):
    """Guest RAM as the model reads it (pmemsave), the CPU already
    stopped by the caller (the gdbstub, or pagemodel.stopped())."""
    return pagemodel.Pages(pagemodel.pmem_fetch(g, work_dir(ctx, LAB)))


def reserved_lines(ctx, tree, nxe):
    """A line for each present entry of tree with a bit the CPU reserves."""
    return ["%s of %s in the user set is %#018x: reserved bit(s) %#x (%s) set%s"
            % (e.level, ctx.where(e.va) if e.va >= PAGE_OFFSET else "%#010x" % e.va, e.raw,
               bits, pagemodel.bits(bits),
               " (bit 63, NX, is reserved on a CPU without NX)" if bits >> 63 and not nxe else "")
            for e, bits in pagemodel.reserved_entries(tree, nxe)]


def reserved_problems(ctx, g, cr3):
    """The user set's entries that hold a bit the CPU reserves, read by
    the model: its PDPT and the kernel half below entry 3 (entries 0-2
    point at the kernel set's directories). TCG ignores most of these;
    Bochs and real CPUs fault."""
    nxe = nx_enabled(g)
    tree = pagemodel.Tree(ram(ctx, g).read, cr3, "the user set", only=range(4), descend=[3])
    return reserved_lines(ctx, tree, nxe)


def kernel_half_problems(ctx, g):
    """reserved_problems() of the user sets' shared kernel half alone (the
    directory at the teacher's pti_user_pmd), readable before any process
    runs: a CPU that faults on the first walk leaves nothing to stop in."""
    nxe = nx_enabled(g)
    with pagemodel.stopped(g):
        mem = ram(ctx, g)
        pd = mem.u32(ctx.sym("pti_user_pmd") - PAGE_OFFSET)
        tree = pagemodel.Tree.directory(mem.read, pd, 3 << 30, "the kernel half") if pd else None
    return reserved_lines(ctx, tree, nxe) if tree else []


def user_set_at_start(ctx, g, problems):
    """Stops the probe at its very first ring-3 instruction (a breakpoint:
    the gdbstub stops there before the fetch, so a loop of faults on it is
    caught too) and returns problems(cr3) of the user set there."""
    prog = program(ctx)
    start = prog.syms["_start"]
    mark = len(g.guest.out)
    # the boot serves this check alone: the probe is left running (a
    # wrong entry may keep it from ever ending: no wait for its end)
    with gdbstub_session(g, mark, "stop the probe at its first instruction") as stub:
        stub.break_at(start)
        run_under_stub(g, stub, prog.scn.line())
        wait_hit(stub, g, mark, "the probe's first instruction (_start) in ring 3")
        cpl, cr3, _ = cpu_state(g)
        bad = problems(cr3) if cpl == 3 else ["at the probe's _start the CPU is in ring %s"
                                              % cpl]
        stub.clear(start)
    return bad


@check(points=25, name="in ring 3 (QEMU stopped in the probe): the user set's kernel half is the "
       "trampoline RO+X and the entry areas RW+NX at their own frames, nothing else, nothing "
       "user-accessible; PDPT entries 0-2 shared with the kernel set, no reserved bit anywhere",
       steps=[RANGE, TRAMPOLINE_RO, ENTRY_NX, NOT_USER, NOTHING_ELSE, SHARED, OWN_HALF,
              PRESENT_ONLY])
def user_set(ctx):
    g = boot(ctx, "pti-user-set")
    bad = user_set_at_start(ctx, g, lambda cr3: user_set_problems(
        ctx, g, cr3, PageTables(g.monitor("info tlb"))) or reserved_problems(ctx, g, cr3))
    if bad:
        raise CheckFailed("expected the user set of the probe to map, of the kernel, only "
                          "the trampoline and the entry area; found:\n" + "\n".join(bad[:8]))


@check(points=10, name="on a CPU without NX (QEMU -nx, as on a Pentium III): the probe runs on "
       "the user set, whose entries hold no bit the CPU reserves (bit 63 among them)",
       steps=[CPU_BITS, PRESENT_ONLY])
def strict_bits(ctx):
    g = boot(ctx, "pti-no-nx", cpu=CPU_NO_NX)
    bad = kernel_half_problems(ctx, g) or user_set_at_start(ctx, g, lambda cr3: (
        [] if cr3 & USER_BIT else ["in ring 3, CR3 %#x is the kernel set (%s)"
                                   % (cr3, pti_line(g))]) or reserved_problems(ctx, g, cr3))
    if bad:
        raise CheckFailed("expected a user set a CPU without NX can walk; found:\n"
                          + "\n".join(bad[:8]))


# -- the entry ------------------------------------------------------------------
def frame_at(stub, esp, n):
    return [stub.read32(esp + 4 * i) for i in range(n)]


def run_under_stub(g, stub, line):
    """Types line at the shell while the gdbstub holds breakpoints."""
    stub.cont()
    g.guest.send(("run " + line + " &\r").encode())


# the probe's end: the shell's line, a segfault, an oops
ENDED = re.compile(r"(?:^|(?<=ronx> ))(\[\d+\] ptiprobe: (exit status|killed by)|ptiprobe\[\d+\]: "
                   r"segfault|traps: ptiprobe\[\d+\] |BUG: |Kernel panic)", re.M)


READY = re.compile(r"ptiprobe: pid (\d+) ready")


def next_stop(stub, g, mark, timeout=20, ready_within=10, until=None, give_up=None):
    """Waits for a breakpoint: True at one; False if the probe ended first
    (or printed the regex until), was not ready (its first lines) within
    ready_within seconds of mark, or nothing came within timeout (the
    guest is then stopped, by us). A background job's end shows only at
    the shell's next command: a probe whose system calls fail says
    nothing at all. give_up: the deadline() that ends the wait, if the
    caller made it (to name its bound)."""
    give_up, ready_by = give_up or deadline(timeout), deadline(ready_within)
    while True:
        if stub.wait_stop(0.5):
            return True
        # stopped by us: a breakpoint's stop may have crossed our interrupt
        if stub.regs()["eip"] in stub.breakpoints:
            return True
        out = g.guest.out[mark:]
        if ENDED.search(out) or time.monotonic() > give_up or \
                (until and re.search(until, out, re.M)) or \
                (time.monotonic() > ready_by and not READY.search(out)):
            return False
        stub.cont()


def wait_hit(stub, g, mark, what, timeout=20):
    give_up = deadline(timeout)
    if not next_stop(stub, g, mark, give_up=give_up):
        raise CheckFailed("expected %s, found %s:\n%s" % (
            what, no_stop_reason(g, mark, seconds=give_up.seconds), died(g.guest.out[mark:])))


def int80_at_stub(g, stub, mark, after):
    """Continues to the stub's stop for the probe's own int $0x80 (the
    CPU's frame, on the stack, returns to after): the registers there."""
    for _ in range(300):
        wait_hit(stub, g, mark, "the probe's int $0x80 at the stub")
        r = stub.regs()
        if stub.read32(r["esp"]) == after:
            return r
        stub.cont()
    raise CheckFailed("expected the probe's int $0x80 among the first 300, found none")


@check(points=20, name="the entry (gdbstub at the int $0x80 stub, then at trap_common): it "
       "arrives on the user set and the entry stack, and reaches C on the kernel set with the "
       "CPU's frame on top of the task's kernel stack and every register as ring 3 left it",
       steps=[SWITCH_FIRST, MOVE_IN])
def entry(ctx):
    g = boot(ctx, "pti-entry")
    if "isolation: enabled" not in pti_line(g):
        # the line only ends the wait sooner: one saying enabled is still checked below
        raise CheckFailed("expected PTI on, the probe's int $0x80 through the stub; found the "
                          "boot saying: %s" % pti_line(g))
    prog = program(ctx)
    after = prog.syms["probe_after_int80"]
    mark = len(g.guest.out)
    # the boot serves this check alone: no settle() (an entry that
    # clobbers a register may keep the probe from ever ending)
    with gdbstub_session(g, mark, "follow the probe's int $0x80") as stub:
        stub.break_at(ctx.sym("stub_128"))
        run_under_stub(g, stub, prog.scn.line())
        at_stub = int80_at_stub(g, stub, mark, after)
        _, cr3_in, cea = cpu_state(g)
        stub.clear(ctx.sym("stub_128"))
        stub.break_at(ctx.sym("trap_common"))
        stub.cont()
        wait_hit(stub, g, mark, "the entry to reach trap_common")
        r = stub.regs()
        frame = frame_at(stub, r["esp"], 4)
        _, cr3, _ = cpu_state(g)
        cr2 = registers(g.monitor("info registers")).get("CR2", 0)
        sp0 = stub.read32(cea) if cea else None     # cpu_entry_area.sp0
    if not cr3_in & USER_BIT or cea is None or not cea <= at_stub["esp"] < cea + PAGE:
        raise CheckFailed("expected the int $0x80 from ring 3 to arrive on the user set (CR3 "
                          "bit 11) and this CPU's entry stack (in its entry area %s); found CR3 "
                          "%#x, esp %#x (%s)" % (cea and "%#x" % cea, cr3_in, at_stub["esp"],
                                                 pti_line(g)))
    vector, _err, eip, cs = frame
    if vector != 0x80 or eip != after:
        what = ("a page fault (vector 14) in ring 0 at %s, CR2 %#x: the entry touched memory "
                "the user set does not map before it switched CR3" % (ctx.where(eip), cr2)
                if vector == 14 and not cs & 3 else "vector %#x from %#x (cs %#x)" % (vector, eip, cs))
        raise CheckFailed("expected the probe's system call (vector 0x80 from %#x) at "
                          "trap_common, found %s" % (after, what))
    bad = ["CR3 %#x is still the user set" % cr3] if cr3 & USER_BIT else []
    if r["esp"] + 4 * 7 != sp0:
        bad.append("the frame is at %#x, expected on top of the task's kernel stack (sp0 %#x "
                   "- 28 = %#x)" % (r["esp"], sp0, sp0 - 28))
    want = dict(zip(REG_NAMES, prog.scn.regs), eax=NR_GETPID)
    bad += ["%s is %#x, ring 3 left %#x" % (n, r[n], v) for n, v in want.items() if r[n] != v]
    if bad:
        raise CheckFailed("expected trap_common on the kernel set, the frame on the task's "
                          "kernel stack, every register as ring 3 left it; found: " + "; ".join(bad))


def probe_done(g, mark, timeout=30):
    """True once the probe has said it ran its rounds; False if it ended
    first or never said it was ready."""
    out = g.guest.out[mark:]
    if not READY.search(out) or ENDED.search(out):
        return False
    try:
        # an end (a segfault, an oops) stops the wait at once
        m = g.guest.wait_for("%s|%s" % (DONE, ENDED.pattern), timeout, mark)
    except GuestError:
        return False
    return re.match(DONE, m.group(0)) is not None


def settle(g, mark):
    """After a gdbstub session on a boot the check goes on using: the
    probe killed, if it still runs. A
    probe held before its first line (at its first system call) says it
    is ready once let go: waited for, or it would run on beside the
    next check's."""
    try:
        g.guest.wait_for("%s|%s" % (READY.pattern, ENDED.pattern), 10, mark)
    except GuestError:
        return
    m = READY.search(g.guest.out[mark:])
    if probe_done(g, mark):
        g.sh("kill %s" % m.group(1))


# -- the exit -------------------------------------------------------------------
class ExitStops:
    """What the gdbstub saw on the probe's ways back to ring 3."""

    def __init__(self):
        self.window = None      # (CR3, esp, entry area, frame) at pti_exit_window after its getpid
        self.labels = {}        # label -> [(CPL, CR3)]
        self.stops = 0
        self.ended = "not yet"  # why the gdbstub stopped following, for a failure's message

    def done(self):
        return self.window is not None and all(
            len(self.labels.get(n, [])) >= (2 if n == "probe_after_fork" else 1) for n in WAYS_BACK)


def follow_exits(ctx, g, prog, mark):
    window = ctx.sym("pti_exit_window")
    at = {prog.syms[n]: n for n in WAYS_BACK}
    seen = ExitStops()
    with gdbstub_session(g, mark, "follow the probe's exits") as stub:
        stub.break_at(window)
        for a in at:
            stub.break_at(a)
        run_under_stub(g, stub, prog.scn.line())
        t0 = time.monotonic()
        for _ in range(2000):
            if not next_stop(stub, g, mark, until=DONE):
                seen.ended = "no stop: %s, %d stops and %.0f s in" % (
                    no_stop_reason(g, mark, DONE), seen.stops, time.monotonic() - t0)
                break
            seen.stops += 1
            r = stub.regs()
            cpl, cr3, cea = cpu_state(g)
            if r["eip"] == window:
                frame = frame_at(stub, r["esp"], FRAME_WORDS)
                if frame[14] == prog.syms["probe_after_int80"] and seen.window is None:
                    seen.window = (cr3, r["esp"], cea, frame)
                    stub.clear(window)
            elif r["eip"] in at:
                seen.labels.setdefault(at[r["eip"]], []).append((cpl, cr3))
            if seen.done():
                seen.ended = "every way back seen, %d stops" % seen.stops
                break
            stub.cont()
    return seen


def no_stop_reason(g, mark, until=None, seconds=None):
    """Why next_stop() came back without a stop, in words (seconds: its
    bound, when the caller made it)."""
    out = g.guest.out[mark:]
    if ENDED.search(out):
        return "the probe ended first"
    if until and re.search(until, out, re.M):
        return "the probe printed /%s/" % until
    if not READY.search(out):
        return "the probe never said it was ready"
    return "nothing within %.0f s" % seconds if seconds else "nothing came"


def exit_problems(prog, seen, pid):
    bad = []
    if seen.window is None:
        bad.append("no exit to ring 3 through pti_exit_window after the probe's getpid (is PTI on?)")
    else:
        cr3, esp, cea, frame = seen.window
        if not cr3 & USER_BIT:
            bad.append("at pti_exit_window CR3 %#x is the kernel set" % cr3)
        if cea is None or esp != cea + PAGE - 4 * FRAME_WORDS:
            bad.append("at pti_exit_window esp %#x, expected the frame at the top of this CPU's "
                       "entry stack (%s)" % (esp, cea and "%#x" % (cea + PAGE - 4 * FRAME_WORDS)))
        # gs fs es ds, pusha (edi esi ebp esp ebx edx ecx eax), vector, error, eip cs eflags esp ss
        got = dict(edi=frame[4], esi=frame[5], ebp=frame[6], ebx=frame[8], edx=frame[9],
                   ecx=frame[10], eax=frame[11])
        want = dict(zip(REG_NAMES, prog.scn.regs), eax=pid)
        bad += ["the frame's %s is %#x there, expected %#x" % (n, got[n], v)
                for n, v in want.items() if got[n] != v]
        if frame[15] & 3 != 3:
            bad.append("the frame's cs is %#x there, expected ring 3's" % frame[15])
    for n, what in WAYS_BACK.items():
        stops = seen.labels.get(n, [])
        if not stops:
            bad.append("%s (%s) never reached" % (what, n))
        for cpl, cr3 in stops:
            if cpl != 3 or not cr3 & USER_BIT:
                bad.append("after %s: CPL %s, CR3 %#x: %s" % (what, cpl, cr3,
                           "the kernel set" if not cr3 & USER_BIT else "not ring 3"))
    return bad


@check(points=20, name="the exits (gdbstub at pti_exit_window and at the probe's own addresses): "
       "the frame on the entry stack and CR3 on the user set before the iret; back in ring 3 "
       "on the user set after exec, a system call, a page fault, fork (parent and child) and "
       "the timer (stopped while it spins)",
       steps=[ONTO_ENTRY, USER_LAST])
def exits(ctx):
    g = boot(ctx, "pti-exit")
    prog = program(ctx)
    mark = len(g.guest.out)
    seen = follow_exits(ctx, g, prog, mark)
    # the gdbstub gone, the probe runs on its own: its first line may come now
    if not READY.search(g.guest.out[mark:]):
        try:
            g.guest.wait_for("%s|%s" % (READY.pattern, ENDED.pattern), load_scaled(10), mark)
        except GuestError:
            pass
    if not probe_done(g, mark):
        raise CheckFailed("expected the probe to run its rounds and say so, found (the gdbstub "
                          "followed it until %s):\n%s" % (seen.ended, died(g.guest.out[mark:])))
    pid = int(READY.search(g.guest.out[mark:]).group(1))
    bad = exit_problems(prog, seen, pid)
    ps = g.sh("ps")
    m = re.search(r"^\s*%d \w+\s+0x([0-9a-f]{8})" % pid, ps, re.M)
    if m:
        for _ in range(3):      # the spin leaves ring 3 only for the timer
            cr3, _pt = stopped_in_ring3(ctx, g, int(m.group(1), 16))
            g.monitor("cont")
            if not cr3 & USER_BIT:
                bad.append("spinning (after a timer interrupt), CR3 %#x is the kernel set" % cr3)
                break
            time.sleep(0.05)
    stop_probe(g, pid)
    if bad:
        raise CheckFailed("expected every way back to ring 3 to end on the user set; found:\n"
                          + "\n".join(bad[:8]))


# -- entries from ring 0 on an entry stack ----------------------------------------
def nmi_here(ctx, g, stub, mark, what):
    """An NMI (QEMU's monitor `nmi`) taken where the stopped CPU is, in
    ring 0 on its entry stack: (CR3 there, CR3 when the NMI's iret is back
    there). The gdbstub sees the NMI's own stub and then the way back."""
    r = stub.regs()
    _, cr3, _ = cpu_state(g)
    for addr in list(stub.breakpoints):
        stub.clear(addr)
    nmi = ctx.sym("stub_2")
    stub.break_at(nmi)
    g.monitor("nmi")
    stub.cont(r["eip"])
    wait_hit(stub, g, mark, "the NMI's stub (vector 2), sent %s" % what)
    back = stub.read32(stub.regs()["esp"])      # the CPU's frame: eip, cs, eflags
    stub.clear(nmi)
    if back != r["eip"]:
        raise CheckFailed("expected the NMI sent %s (at %s) to interrupt that instruction, "
                          "found it returns to %s" % (what, ctx.where(r["eip"]), ctx.where(back)))
    stub.break_at(back)
    stub.cont(nmi)
    wait_hit(stub, g, mark, "the NMI's return to %s" % ctx.where(back))
    _, cr3_back, _ = cpu_state(g)
    stub.clear(back)
    return cr3, cr3_back


def after_the_switch(ctx, g, stub, steps=64):
    """Steps the stopped CPU, from pti_enter, to the first instruction that
    runs under the kernel set: (True if esp is still on the entry stack
    there, where)."""
    for _ in range(steps):
        stub.step()
        _, cr3, cea = cpu_state(g)
        if not cr3 & USER_BIT:
            esp = stub.regs()["esp"]
            return cea is not None and cea <= esp < cea + PAGE, esp
    raise CheckFailed("expected PTI_ENTER_FROM_USER to switch CR3 to the kernel set within %d "
                      "instructions of pti_enter, found it still on the user set" % steps)


def entry_stack_nmis(ctx, g):
    """Problems of the two entries from ring 0 on an entry stack that
    PTI_ENTER_FROM_USER's own window offers: an NMI before its CR3 switch
    (on the user set) and one after it (on the kernel set, esp still on
    the entry stack); each must go back on the set it interrupted."""
    if not pti_line(g).endswith("enabled"):
        # no entry will come through pti_enter: said now, not after the wait for one
        return ["no entry from ring 3 comes through pti_enter in this boot (%s)" % pti_line(g)]
    prog = program(ctx)
    mark = len(g.guest.out)
    bad = []
    with gdbstub_session(g, mark, "send NMIs into the entry") as stub:
        stub.break_at(ctx.sym("pti_enter"))
        run_under_stub(g, stub, prog.scn.line())
        wait_hit(stub, g, mark, "an entry from ring 3 at pti_enter")
        before, back = nmi_here(ctx, g, stub, mark, "at pti_enter")
        if not before & USER_BIT:
            bad.append("at pti_enter CR3 %#x is the kernel set already" % before)
        elif not back & USER_BIT:
            bad.append("an NMI at pti_enter (user set) returned there on the kernel set "
                       "(CR3 %#x)" % back)
        stub.break_at(ctx.sym("pti_enter"))
        stub.cont()
        wait_hit(stub, g, mark, "a second entry from ring 3 at pti_enter")
        stub.clear(ctx.sym("pti_enter"))
        on_entry_stack, esp = after_the_switch(ctx, g, stub)
        if not on_entry_stack:
            bad.append("right after PTI_ENTER_FROM_USER's switch to the kernel set esp %#x "
                       "is off the entry stack: no instruction ran there under the kernel "
                       "set, so an entry there was never made" % esp)
        else:
            before, back = nmi_here(ctx, g, stub, mark, "after the switch to the kernel set")
            if back & USER_BIT:
                bad.append("an NMI in PTI_ENTER_FROM_USER after its switch (kernel set, entry "
                           "stack) returned there on the user set (CR3 %#x)" % back)
    if not bad:
        settle(g, mark)     # the check goes on with this boot
    return bad


# -- an entry in the exit window --------------------------------------------------
@check(points=15, name="entries from ring 0 on an entry stack go back on the set they "
       "interrupted: NMIs (QEMU's monitor) at pti_enter (user set) and in PTI_ENTER_FROM_USER "
       "after its switch (kernel set), seen by the gdbstub; an entry in the exit window (crash "
       "PTI_EXIT_WINDOW: a #DB on every exit's pti_exit_window): ring 3 stays on the user set",
       steps=[SAVE_SET, RESTORE])
def exit_window(ctx):
    g = boot(ctx, "pti-window")
    bad = entry_stack_nmis(ctx, g)
    if bad:
        # the probe may never end now (not settled): nothing more is typed
        raise CheckFailed("expected each entry from ring 0 on an entry stack to go back on "
                          "the set it came from; found:\n" + "\n".join(bad))
    out = g.sh("crash PTI_EXIT_WINDOW")
    if not re.search(r"lkdtm: armed on CPU 0: a #DB at pti_exit_window", out):
        raise CheckFailed("expected `crash PTI_EXIT_WINDOW` to arm DR0 on the exit window, "
                          "found: %s (%s)" % (out.strip()[-300:], pti_line(g)))
    pid, kcr3 = start_probe(ctx, g)
    for _ in range(4):
        cr3, _pt = stopped_in_ring3(ctx, g, kcr3)
        dr7 = re.search(r"\bDR7=([0-9a-f]+)", g.monitor("info registers"))
        g.monitor("cont")
        if not dr7 or not int(dr7.group(1), 16) & 1:
            bad.append("DR7.L0 is clear: the breakpoint is not armed")
        if not cr3 & USER_BIT:
            bad.append("in ring 3 after exits through the window, CR3 %#x is the kernel set" % cr3)
        time.sleep(0.05)
    stop_probe(g, pid)
    out = g.sh("crash PTI_EXIT_WINDOW")
    m = re.search(r"lkdtm: PTI_EXIT_WINDOW disarmed after (\d+) hits", out)
    if not m or int(m.group(1)) < 10:
        bad.append("the #DB did not enter the window (disarming said: %s)" % out.strip()[-200:])
    if bad:
        raise CheckFailed("expected each entry from ring 0 on an entry stack to go back on "
                          "the set it came from; found:\n" + "\n".join(sorted(set(bad))))


# -- two CPUs ---------------------------------------------------------------------
CPUS = 2
WANT = 3                # entries from ring 3 and exits to it seen on each CPU
LOOP_DONE = r"ptiprobe: pid %d: (\d+) calls, (\d+) wrong"


def gone(g, mark):
    """What ended the probes or the kernel since mark, or None: a gdbstub
    wait for a stop ends there (no stop will come)."""
    if g.guest.proc.poll() is not None:
        return "QEMU has exited"
    m = ENDED.search(g.guest.out[mark:])
    return m and "the guest said %r" % m.group(0)


def cpu_regs(g, n):
    """`info registers` of CPU n (as after the monitor's `cpu n`)."""
    return g.guest.monitor("info registers", cpu=n)


def where_cpu(ctx, g, cpu):
    regs = cpu_regs(g, cpu)
    m = EIP.search(regs)
    return "CPU %d is in ring %s at %s" % (cpu, cpu_state(g, regs)[0],
                                           ctx.where(int(m.group(1), 16)) if m else "?")


def to_ring3(ctx, g, stub, mark, alone=None):
    """Runs every CPU (or only CPU alone, the others held where they are)
    until one is back in ring 3 from a probe's system call
    (probe_loop_after); every CPU is left stopped. Returns that CPU, its
    CR3 and its entry area. Which CPU gets there first does not matter:
    the caller holds it and lets the other run alone."""
    after = program(ctx).syms["probe_loop_after"]
    stub.break_at(after)
    eip = stub.regs()["eip"]
    for _ in range(400):
        if alone is None:
            stub.cont(eip)
        else:
            stub.cont_only(alone, eip)
        if not stub.wait_stop(10, until=lambda: gone(g, mark)):
            why = gone(g, mark)
            raise CheckFailed("expected a probe's system call to come back to ring 3 "
                              "(probe_loop_after) on %s, found none %s; %s; the guest said: %s"
                              % ("a CPU" if alone is None else "CPU %d" % alone,
                                 "(%s)" % why if why else "within 10 s",
                                 "; ".join(where_cpu(ctx, g, n) for n in range(CPUS)),
                                 died(g.guest.out[mark:])))
        eip = stub.regs()["eip"]
        if eip == after:
            break
    else:
        raise CheckFailed("expected CPU %s back in a probe within 400 stops, found it never "
                          "there; %s" % (alone, where_cpu(ctx, g, alone)))
    stub.clear(after)
    cpu = stub.stopped_cpu()
    cpl, cr3, cea = cpu_state(g, cpu_regs(g, cpu))
    if cpl != 3 or cea is None:
        raise CheckFailed("expected CPU %d in ring 3 at probe_loop_after, found CPL %s" % (cpu, cpl))
    return cpu, cr3, cea


def maps_entry_area(ctx, g, cpu, cr3, cea):
    """Problems of the user set cr3 (CPU cpu's, in ring 3, held by the
    gdbstub) for the page the CPU enters on: its entry area, present,
    writable, not user (the model's walk)."""
    walk = pagemodel.walk(ram(ctx, g).read, cr3, cea)
    if len(walk) != 3 or walk[-1].raw & 0x7 != 0x3:
        return ["CPU %d's user set (CR3 %#x) maps its entry area %#x as %s, expected present, "
                "writable, supervisor" % (cpu, cr3, cea, " ".join("%s=%#x" % (e.level, e.raw)
                                                                   for e in walk))]
    return []


class OneCpu:
    """What the gdbstub saw of one CPU running alone, the other held."""

    def __init__(self, cpu, held, cea_held, sp0_held):
        self.cpu, self.held, self.cea_held, self.sp0_held = cpu, held, cea_held, sp0_held
        self.entries = self.exits = 0
        self.bad = []

    def whose(self, addr):
        return " (CPU %d's entry area, held still)" % self.held \
            if self.cea_held <= addr < self.cea_held + PAGE else ""

    def entry(self, stub, r, cr3, cea):
        vector, _err, eip, cs = frame_at(stub, r["esp"], 4)
        if cs & 3 != 3:
            return          # an entry from ring 0: not PTI_ENTER_FROM_USER's
        self.entries += 1
        sp0 = stub.read32(cea)
        if r["esp"] + 4 * 7 != sp0:
            self.bad.append("CPU %d: an entry from ring 3 (vector %#x from %#x) reached "
                            "trap_common with its frame at %#x, expected on top of the task's "
                            "kernel stack that CPU %d's entry area names (sp0 %#x - 28)%s"
                            % (self.cpu, vector, eip, r["esp"], self.cpu, sp0,
                               ": that is CPU %d's sp0, %#x" % (self.held, self.sp0_held)
                               if r["esp"] + 4 * 7 == self.sp0_held else ""))
        if cr3 & USER_BIT:
            self.bad.append("CPU %d: at trap_common CR3 %#x is the user set" % (self.cpu, cr3))

    def exit(self, ctx, g, r, cr3, cea):
        self.exits += 1
        want = cea + PAGE - 4 * FRAME_WORDS
        if r["esp"] != want:
            self.bad.append("CPU %d: at pti_exit_window esp %#x, expected the frame at the top "
                            "of its own entry stack (%#x, in its entry area %#x)%s"
                            % (self.cpu, r["esp"], want, cea, self.whose(r["esp"])))
        if not cr3 & USER_BIT:
            self.bad.append("CPU %d: at pti_exit_window CR3 %#x is the kernel set" % (self.cpu, cr3))
        else:
            self.bad += maps_entry_area(ctx, g, self.cpu, cr3, cea)


def follow_alone(ctx, g, stub, cpu, held, mark):
    """CPU held stopped in ring 3 (to_ring3(): (cpu, CR3, entry area)),
    CPU cpu runs alone until WANT entries from ring 3 (trap_common) and
    WANT exits to it (pti_exit_window) have been seen: problems, among
    them any change to the held CPU's entry area meanwhile (only CPU cpu
    ran: a change is its write)."""
    held, cr3_h, cea_h = held
    seen = OneCpu(cpu, held, cea_h, stub.read32(cea_h))
    seen.bad += maps_entry_area(ctx, g, held, cr3_h, cea_h)
    before = stub.read(cea_h, PAGE)
    tc, window = ctx.sym("trap_common"), ctx.sym("pti_exit_window")
    stub.break_at(tc)
    stub.break_at(window)
    eip = None
    for _ in range(400):
        stub.cont_only(cpu, eip)
        if not stub.wait_stop(10, until=lambda: gone(g, mark)):
            break
        if stub.stopped_cpu() != cpu:
            raise CheckFailed("expected CPU %d alone to run, found CPU %s stopped at a "
                              "breakpoint" % (cpu, stub.stopped_cpu()))
        r = stub.regs()
        eip = r["eip"]
        _, cr3, cea = cpu_state(g, cpu_regs(g, cpu))
        if eip == tc and seen.entries < WANT:
            seen.entry(stub, r, cr3, cea)
        elif eip == window and seen.exits < WANT:
            seen.exit(ctx, g, r, cr3, cea)
        if seen.entries >= WANT and seen.exits >= WANT:
            break
    if seen.entries < WANT or seen.exits < WANT:
        seen.bad.append("CPU %d, running alone: %d entries from ring 3 (trap_common) and %d "
                        "exits to it (pti_exit_window), expected %d of each (%s)"
                        % (cpu, seen.entries, seen.exits, WANT, pti_line(g)))
    stub.clear(tc)
    stub.clear(window)
    after = stub.read(cea_h, PAGE)
    changed = [i for i in range(0, PAGE, 4) if before[i:i + 4] != after[i:i + 4]]
    if changed:
        seen.bad.append("CPU %d's entry area (held still) changed while CPU %d alone ran: %d "
                        "word(s) at offsets %#x..%#x (the top of its entry stack is %#x)"
                        % (held, cpu, len(changed), changed[0], changed[-1] + 3, PAGE))
    return seen.bad


def stop_call_loop(g, pid):
    """SIGUSR1 (from `ptiprobe stop PID`) ends a probe's call loop:
    (calls, wrong) it printed, or None."""
    mark = len(g.guest.out)
    g.sh("run ptiprobe stop %d" % pid)
    try:
        m = g.guest.wait_for(LOOP_DONE % pid, 10, mark)
    except GuestError:
        return None
    return int(m.group(1)), int(m.group(2))


@check(points=10, name="on two CPUs (QEMU -smp 2), two probes making system calls without end: "
       "with one CPU held still in ring 3 by the gdbstub, the other's entries reach C on its "
       "own task's kernel stack and its exits leave from its own entry stack, the held CPU's "
       "entry area untouched; each CPU's user set maps its entry area; both probes see every "
       "register come back",
       steps=[ENTER_THIS_CPU, EXIT_THIS_CPU])
def two_cpus(ctx):
    g = ctx.boot(initrd=program(ctx).initrd, tag="pti-smp", smp=CPUS)
    line = program(ctx).scn.line() + " calls"
    mark = len(g.guest.out)
    pids = []
    for _ in range(CPUS):   # a probe that died already ends the wait for the next
        pids.append(start_background(g, line, DONE, timeout=10, ctx=ctx, watch=pids,
                                     never_sleeps=True)[0])
    ps = g.sh("ps")
    left = [pid for pid in pids if not re.search(r"^\s*%d \w+\s+0x" % pid, ps, re.M)]
    if left:
        raise CheckFailed("expected both probes still making system calls, found probe %d "
                          "gone: %s" % (left[0], died(g.guest.out[mark:])))
    bad = []
    with gdbstub_session(g, mark, "hold one CPU and follow the other") as stub:
        first = to_ring3(ctx, g, stub, mark)
        other = 1 - first[0]
        bad += follow_alone(ctx, g, stub, other, first, mark)
        # the other back in ring 3, by itself (the first still held, in ring 3, holds no lock)
        bad += follow_alone(ctx, g, stub, first[0], to_ring3(ctx, g, stub, mark, other), mark)
    # the probes' own count: when the stops above saw a wrong CPU, it would only say it again
    for pid in pids if not bad else []:
        got = stop_call_loop(g, pid)
        if got is None:
            bad.append("probe %d: no 'ptiprobe: pid %d: N calls, W wrong' within 10 s of "
                       "SIGUSR1: %s" % (pid, pid, died(g.guest.out[mark:])))
        elif got[1] or not got[0]:
            bad.append("probe %d: %d of its %d system calls came back with a register other "
                       "than it left (or no call at all)" % (pid, got[1], got[0]))
    if bad:
        raise CheckFailed("expected each CPU to enter and leave through its own entry area; "
                          "found:\n" + "\n".join(list(dict.fromkeys(bad))[:8]))
