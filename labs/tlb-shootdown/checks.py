# SPDX-License-Identifier: GPL-2.0-only
"""Lab 12, tlb-shootdown: set_memory_*() on several CPUs. Each CPU caches
translations in its own TLB, so a page made read-only or NX on one CPU
stays writable or executable on the others until each has flushed it:
an IPI to every other CPU, each flushes (one page or all, by the
ceiling), acknowledges, and the caller waits (Linux: flush_tlb_kernel_range(),
smp_call_function_many()). The graded boots have three CPUs. See
docs/labs/tlb-shootdown.md.

Evidence the student's code cannot fake, seen through QEMU
(labs/watch.py): at pages and sizes the grade picks, every CPU writes a
byte (`cpuwrite`), the shell's CPU makes the pages read-only
(`set_memory ro`), each CPU writes again. QEMU's gdbstub sees which CPU
ran each write (the teacher's cpuwrite_here()) and each page fault the
CPU took (its error code and CR2 at the #PF entry), and QEMU's `xp`
reads the byte in memory: `wrote` and the byte changed on the first
pass, `faulted` and the byte unchanged on the second, on that very CPU.
A one-CPU boot and a cpa_shootdown=off boot are watched the same way.

That the caller waits is seen the same way, from the order of events,
never from a time (HeldFlush): during `set_memory ro`, the gdbstub holds
one other CPU, picked at grade time, at the teacher's IPI entry before
it has flushed, and runs only the others; the caller must poll the
teacher's call_function_pending() POLLS times (its own count of its
calls, read from outside) without returning from
flush_tlb_kernel_range(), and return once that CPU is let go. A caller
that does not wait leaves the other CPUs reading a stack frame that is
gone, and what they do then is up to the host's scheduler: so the same
round, run first with one page and the last CPU held (caller_waits()),
refuses every check with more than one CPU when the caller returns
early, and the grade is the same under every seed and every load.

The rest comes from the teacher's self-tests (`selftest smp`,
`pageattr`), with the crash demos' faults seen by the gdbstub too.

`selftest smp_stress` (shootdowns while other CPUs spin on locks, text
patching while another CPU runs the site) is not graded here: nothing in
this lab's three functions can break it that the checks below do not see
first (the deadlock it looks for is prevented by cpu_relax(), which the
lab leaves alone), and it is the slow half of the SMP tests."""
import os
import re
import time

from gdbstub import GdbStubError
from grading import CheckFailed, GuestError, check, deadline, echo_pattern, expect_ktap, step, xp_byte
from watch import PROMPT, Watch, attach_stub, faults

CPUS = 3
SUITE_TIMEOUT = 300     # selftest smp: seconds under TCG on a loaded machine, not minutes
# ... and between two of its tests: a solved tree's longest gap was 4.6 s at load 5 on two
# cores; a kernel looping in one test (a CPU flushing a range read from a stack frame
# that is gone) is told after this, not after SUITE_TIMEOUT (both stretched by load)
STALL = 30
PAGE, PAGE_OFFSET = 4096, 0xC0000000
CEILING = 32            # TLB_FLUSH_CEILING

SEND = step("smp_call_function_many", "send the call to every other online CPU of mask",
            "first-cpu-only")
WAIT = step("smp_call_function_many", "with wait, until each has acknowledged", "no-wait")
END = step("smp_call_function_many", "end the call (call_function_end)", "call-never-ended")
PAGES = step("do_kernel_range_flush", "invlpg each page of the range", "first-page-only")
ALL = step("do_kernel_range_flush", "past TLB_FLUSH_CEILING pages, the whole TLB",
           "one-page-past-ceiling")
GLOBALS = step("do_kernel_range_flush", "... global entries too", None,
               "QEMU's TCG drops global entries on a CR3 write too, so a flush by CR3 reload "
               "passes every check the grader can run in QEMU (Bochs keeps them: the handout)")
COUNTED = step("do_kernel_range_flush", "count flush_one or flush_all", "flushes-uncounted")
EVERY = step("flush_tlb_kernel_range", "every other online CPU flushes", "local-only")
ITSELF = step("flush_tlb_kernel_range", "this one too", "forgets-itself")
WAITS = step("flush_tlb_kernel_range", "the caller waits for all of them",
             "flush-without-waiting")
OFF = step("flush_tlb_kernel_range", "only this CPU when cpa_shootdown is off",
           "ignores-cpa-shootdown")
SHOOTDOWN = step("flush_tlb_kernel_range", "count a shootdown", "shootdowns-uncounted")


def smp_boot(ctx, cmdline=""):
    """The three-CPU boot, with `selftest smp` run once: a kernel that hangs
    in it (a wait that never ends) costs one timeout, not one per check."""
    caller_waits(ctx)
    key = "tlb_shootdown_failed" + cmdline
    failed = getattr(ctx, key, None)
    if failed:
        raise CheckFailed(failed)
    g = ctx.boot(cmdline=cmdline, smp=CPUS, tag="tlb")
    if cmdline:
        return g
    try:
        g.ktap("smp", timeout=SUITE_TIMEOUT, stall=STALL)
    except GuestError as e:
        setattr(ctx, key, "`selftest smp` did not finish on %d CPUs (a CPU waits for an "
                "acknowledgement that never comes, or loops?): %s" % (CPUS, str(e)[-800:]))
        raise CheckFailed(getattr(ctx, key))
    return g


@check(points=10, name="every CPU answers a call and runs with the boot CPU's registers",
       steps=[SEND, END])
def calls(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["every_online_cpu_answers_a_call",
                                       "every_cpu_runs_with_the_boot_cpus_control_registers"])


@check(points=10, name="set_memory_ro() and set_memory_nx() hold on every other CPU: "
                       "no stale write, no stale call, 2000 times each",
       steps=[SEND, EVERY, WAIT, WAITS])
def no_stale(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["no_stale_write_after_set_memory_ro",
                                       "no_stale_exec_after_set_memory_nx"])


@check(points=5, name="this CPU flushes too: a change is in force here at once",
       steps=[ITSELF])
def local(ctx):
    expect_ktap(smp_boot(ctx), "pageattr", ["ro_takes_effect_at_once", "nx_takes_effect_at_once"])


@check(points=10, name="every page of a request is flushed on every CPU: one by one up to the "
                       "ceiling (every size from 1), everything past it",
       steps=[PAGES, ALL, ITSELF])
def ceiling(ctx):
    g = smp_boot(ctx)
    expect_ktap(g, "smp", ["every_page_of_a_short_request_is_flushed_on_every_cpu",
                           "a_long_request_is_flushed_whole_on_every_cpu",
                           "the_ceiling_decides_page_by_page_or_everything_on_every_cpu"])
    expect_ktap(g, "pageattr", ["long_request_flushes_everything"])


CFD_PENDING = 8         # kernel/cpu/smp.c: struct call_function_data's pending (func, info, pending)
# the caller's call_function_pending() calls seen while a CPU is held: more
# than a wait that gives up after "enough" turns would make (10000, say)
POLLS = 100000
SAMPLE = 0.05           # seconds between two reads of the count while no breakpoint stops


class HeldFlush:
    """`set_memory ro VA N` with one other CPU held still by QEMU's gdbstub
    at the IPI's entry (the teacher's generic_smp_call_function_interrupt(),
    kernel/cpu/smp.c: before it has run the flush). Breakpoints, each stop
    recorded by the CPU that made it (the gdbstub's thread): the entry of
    flush_tlb_kernel_range() (which CPU calls it, and its return address:
    the teacher's set_memory code after the call), the IPI's entry, and
    that return address. Once the held CPU is at the IPI's entry only the
    other CPUs run (vCont names them; QEMU leaves a CPU it does not name
    stopped). Every stop but the held CPU's is stepped over on its own CPU.
    What a waiting caller polls, the teacher's call_function_pending(),
    counts its calls (call_function_polls): read at each breakpoint stop
    and, while none comes, every SAMPLE seconds with the guest stopped
    (a breakpoint there would cost a stop per poll).

    The verdict is the order of events, never how long anything took:
    the count must grow by POLLS, and the caller not return, while the
    held CPU has not flushed; then the held CPU is released, and the
    caller must return. A deadline only turns a hang into a failure that
    says so: no stop, and no poll while a CPU is held, for that long, and
    the command not finished."""

    def __init__(self, ctx, g, which):
        self.ctx, self.g, self.which = ctx, g, which   # which: 0 or 1, of the two other CPUs
        self.entry = ctx.sym("flush_tlb_kernel_range")
        self.ipi = ctx.sym("generic_smp_call_function_interrupt")
        self.count = ctx.sym("call_function_polls")
        self.caller = self.held = self.ret = None
        self.base = self.held_at = None   # the count at the caller's entry, at the hold
        self.holding = False        # the held CPU is stopped at the IPI's entry
        self.released = False
        self.polls = 0              # the caller's polls while the held CPU was held
        self.early = None           # what the caller did before its time
        self.unsent = False         # ... because the held CPU was never sent the call

    def _resume(self, stub):
        """The guest runs on: every CPU, or all but the held one."""
        if self.holding:
            stub._send("vCont" + "".join(";c:%x" % (cpu + 1) for cpu in range(CPUS)
                                         if cpu != self.held))
        else:
            stub._send("vCont;c")
        stub.running = True

    def _call_pending(self, stub):
        """Whether the held CPU's bit is set in the call in flight's mask
        (the teacher's cfd.pending, kernel/cpu/smp.c): the call was sent to
        it and it has not run it. (Its local APIC would not say: the IPI's
        handler takes the vector off with apic_eoi() before it reaches the
        breakpoint.)"""
        return bool(stub.read32(self.ctx.sym("cfd") + CFD_PENDING) & (1 << self.held))

    def _release(self, stub):
        stub.clear(self.ipi)
        self.holding, self.released = False, True

    def _polls(self, stub):
        """While the held CPU is held: the caller's polls since the hold
        (the count wraps at 2**32), and the CPU let go after POLLS. True
        when the count moved while it was held: progress, as a stop is
        (before the hold and after the release only stops are: a caller
        that polls for ever then is a hang, told by run()'s deadline)."""
        if not self.holding:
            return False
        before = self.polls
        self.polls = (stub.read32(self.count) - self.held_at) & 0xFFFFFFFF
        if self.polls >= POLLS:
            self._release(stub)
        return self.polls != before

    def _sample(self, stub):
        """No stop for SAMPLE seconds: the guest stopped (gdb's Ctrl-C), the
        count read. A breakpoint stop that came first is that stop (a CPU
        stopped on a breakpoint's address is there either way). True on
        progress: a stop, or polls while held."""
        reply = stub.stop()
        if stub.regs()["eip"] in stub.breakpoints:
            self._stop(stub, reply)
            return True
        moved = self._polls(stub)
        self._resume(stub)
        return moved

    def _stop(self, stub, reply):
        """One stop: what it means, then the CPUs that may run go on."""
        m = re.search(r"thread:(?:p[0-9a-f]+\.)?([0-9a-f]+)", reply)
        cpu = int(m.group(1), 16) - 1 if m else 0
        eip = stub.regs()["eip"]
        if eip == self.entry and self.caller is None:
            self.caller = cpu
            self.ret = stub.read32(stub.regs()["esp"])
            self.held = [c for c in range(CPUS) if c != cpu][self.which]
            self.base = stub.read32(self.count)
            stub.clear(self.entry)
            for addr in (self.ipi, self.ret):
                stub.break_at(addr)
        elif eip == self.ipi and cpu == self.held and not self.released:
            if not self.holding:        # (a sample may find it there again)
                self.holding = True     # stays where it is: it has not flushed
                self.held_at = stub.read32(self.count)
        elif eip == self.ret and cpu == self.caller:
            if not self.released:
                # held at the IPI's entry, or sent the call and not there
                # yet (a matter of timing): the same verdict, the same words
                if self.holding or self._call_pending(stub):
                    now = stub.read32(self.count)
                    self.early = ("returned while CPU %d, sent the call, had not run it "
                                  "(after %d calls of call_function_pending())"
                                  % (self.held, (now - self.base) & 0xFFFFFFFF))
                else:
                    self.unsent = True
                    self.early = ("returned without sending the call to CPU %d (its bit not "
                                  "set in the call's mask)" % self.held)
                if self.holding:
                    self._release(stub)
            stub.clear(self.ret)
            self.done = True
        elif eip in stub.breakpoints:
            stub.step_over(eip, cpu)
        if self.caller is not None and not self.done:
            self._polls(stub)
        self._resume(stub)

    def run(self, va, n, timeout=60):
        g, line = self.g, "set_memory ro %x %d" % (va, n)
        self.done = False
        stub = attach_stub(g.guest)
        start = len(g.guest.out)
        give_up = deadline(timeout)
        try:
            stub.break_at(self.entry)
            stub.cont()
            g.guest.send(line.encode() + b"\r")
            while not self.done:
                reply = stub.next_stop(SAMPLE)
                if reply is not None:
                    self._stop(stub, reply)
                    give_up = deadline(timeout)     # a stop is progress
                elif self.caller is not None and self._sample(stub):
                    give_up = deadline(timeout)     # and so is a poll
                if time.monotonic() > give_up or g.guest.proc.poll() is not None:
                    g.dead = True
                    raise CheckFailed(self._hang(line, give_up.seconds, start))
        except GdbStubError as e:
            g.dead = True
            raise CheckFailed("QEMU's gdbstub stopped answering during `%s`: %s" % (line, e))
        finally:
            try:
                stub.detach()
            except (OSError, GdbStubError):
                g.dead = True
        try:
            echo = g.guest.wait_for(echo_pattern(line), 30, start)
            end = g.guest.wait_for("^" + re.escape(PROMPT), 30, echo.end())
        except GuestError as e:
            g.dead = True
            raise CheckFailed("`%s` did not finish once every CPU ran again: %s" % (line, e))
        out = g.guest.out[echo.end():end.start()]
        if not re.search(r"set_memory_ro\(0x%08x, %d\) = 0" % (va, n), out):
            raise CheckFailed("expected `%s` to succeed, found: %s" % (line, out.strip()[-300:]))
        return self.early

    def _hang(self, line, timeout, start):
        if self.caller is None:
            where = "no CPU called flush_tlb_kernel_range()"
        elif not self.holding and not self.released:
            where = ("CPU %d called flush_tlb_kernel_range() and CPU %d never reached the "
                     "IPI's entry (generic_smp_call_function_interrupt()): the call did not "
                     "reach it" % (self.caller, self.held))
        elif self.holding:
            where = ("CPU %d held at the IPI's entry, CPU %d's flush_tlb_kernel_range() called "
                     "call_function_pending() %d times and did not return either"
                     % (self.held, self.caller, self.polls))
        else:
            where = ("CPU %d released after %d polls, CPU %d's flush_tlb_kernel_range() never "
                     "returned" % (self.held, self.polls, self.caller))
        return ("expected `%s` to finish, found it still running, with no breakpoint reached "
                "for %.0fs (QEMU's gdbstub: %s):\n%s"
                % (line, timeout, where, self.g.guest.out[start:][-400:]))


GATE_VA = PAGE_OFFSET + (121 << 20)    # above free_page_run()'s pages: no seed drawn
CALLER_WAITS = {}       # (kernel.elf, its mtime and size) -> caller_waits()'s finding


def caller_waits(ctx):
    """Raises CheckFailed when the caller of a shootdown returns before
    the other CPUs have flushed. They then read the range from its stack
    frame after the frame is gone: what they flush, and whether the
    self-tests hang, depends on how the host schedules QEMU's CPUs. So a
    multi-CPU check is refused with this reason, found from the order of
    events (HeldFlush: one page, the last other CPU held, then the first,
    the same under every seed, so run once per kernel: CALLER_WAITS), and
    a seed repeats the grade exactly. A round that breaks (a kernel that
    does not boot, a call that never ends) refuses nothing: the checks
    say what they find."""
    st = os.stat(ctx.elf)
    key = (ctx.elf, st.st_mtime_ns, st.st_size)
    if key not in CALLER_WAITS:
        early = None
        try:
            # smp_boot()'s boot: a kernel that does not come up costs one wait
            g = ctx.boot(smp=CPUS, tag="tlb")
            for which in (1, 0):    # a caller that waits for one CPU only is seen
                probe = HeldFlush(ctx, g, which)
                early = probe.run(GATE_VA, 1)
                if probe.unsent:    # the call never left: the checks say what that breaks
                    early = None
                if early:
                    g.dead = True   # its other CPUs flush what a dead frame says
                    break
                set_memory(ctx, g, "rw", GATE_VA, 1)
        except CheckFailed:
            pass
        CALLER_WAITS[key] = early
    if CALLER_WAITS[key]:
        raise CheckFailed("not graded: the caller does not wait for the other CPUs, so what "
                          "they flush is a matter of timing. `set_memory ro %x 1`: "
                          "flush_tlb_kernel_range() %s (QEMU's gdbstub saw the return)"
                          % (GATE_VA, CALLER_WAITS[key]))


@check(points=5, name="set_memory_ro() returns only when every CPU has flushed: with another "
                      "CPU held still by QEMU before its flush, the caller polls and does not "
                      "return (QEMU sees both)",
       steps=[WAIT, WAITS])
def waits(ctx):
    g = watch_boot(ctx)
    r = ctx.rng("tlb-shootdown waits")
    # each of the two other CPUs held in turn, one round flushed page by
    # page and one past the ceiling (which is which: the seed): a caller
    # that waits for one CPU only fails under every seed
    sizes = [r.randrange(1, CEILING + 1), r.randrange(CEILING + 1, 3 * CEILING)]
    r.shuffle(sizes)
    for which, n in enumerate(sizes):
        va = free_page_run(r, n)
        early = HeldFlush(ctx, g, which).run(va, n)
        if early:
            g.dead = True       # its pages stay read-only; its other CPUs read a dead frame
            raise CheckFailed("`set_memory ro %x %d`, the %s other CPU held: expected "
                              "flush_tlb_kernel_range() to return only once every other CPU "
                              "had flushed, found it %s (QEMU's gdbstub saw the return)"
                              % (va, n, ("first", "last")[which], early))
        set_memory(ctx, g, "rw", va, n)


@check(points=10, name="two CPUs flushing at once: each range flushed everywhere",
       steps=[SEND, EVERY, END])
def concurrent(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["two_cpus_flushing_at_once_each_flush_their_own_range"])


@check(points=5, name="a process's mprotect reaches the CPU that has its page tables loaded",
       steps=[SEND, WAIT])
def process(ctx):
    expect_ktap(smp_boot(ctx), "smp", ["process_mapping_changes_reach_a_cpu_that_has_it_loaded"])


def cpuwrite(ctx, g, cpu, va, byte, want):
    """`cpuwrite CPU VA BYTE` watched through QEMU: want "wrote" (CPU ran
    the teacher's cpuwrite_here(), took no fault at va, the byte is in
    memory) or "faulted" (it ran it and took a write fault at va, error 3,
    and memory kept its byte). Returns None, or what was found instead."""
    before = xp_byte(g, va)
    out, ev = Watch(ctx, g, calls={"cpuwrite_here": ctx.sym("cpuwrite_here")}).run(
        "cpuwrite %d %x %d" % (cpu, va, byte))
    ran = sorted({e.cpu for e in ev if e.kind == "cpuwrite_here"})
    pf = [e for e in faults(ev, cpu=cpu) if e.cr2 == va]
    now = xp_byte(g, va)
    said = out.strip().splitlines()[-1] if out.strip() else "nothing"
    if ran != [cpu]:
        return ("CPU %d never ran cpuwrite's write (QEMU's gdbstub saw cpuwrite_here() on %s): "
                "the call did not reach it; the kernel said: %s"
                % (cpu, "CPUs %s" % ran if ran else "no CPU", said))
    if want == "wrote" and (pf or now != byte):
        return ("CPU %d's write of %#x at 0x%08x: expected it to go through, found %s, memory "
                "%#x (QEMU's xp)" % (cpu, byte, va, pf[0] if pf else "no fault", now))
    if want == "faulted" and (not pf or pf[0].err != 3 or now != before):
        return ("CPU %d's write of %#x at 0x%08x: expected a write fault there (error 3) and "
                "memory unchanged (%#x), found %s, memory %#x (QEMU's xp): a stale TLB entry"
                % (cpu, byte, va, before, pf[0] if pf else "no fault on that CPU", now))
    return None


def set_memory(ctx, g, how, va, n):
    """`set_memory HOW VA N`; returns the CPU that ran set_memory_HOW()
    (QEMU's gdbstub), or None if it was not watched."""
    fn = "set_memory_" + how
    out, ev = Watch(ctx, g, faults=False, calls={fn: ctx.sym(fn)}).run(
        "set_memory %s %x %d" % (how, va, n))
    if not re.search(r"set_memory_%s\(0x%08x, %d\) = 0" % (how, va, n), out):
        raise CheckFailed("expected `set_memory %s %x %d` to succeed, found: %s"
                          % (how, va, n, out.strip()))
    return ev[0].cpu if ev else None


def watch_boot(ctx, cmdline="", cpus=CPUS):
    """A boot for the watched writes: no self-test run in it first."""
    return ctx.boot(cmdline=cmdline, smp=cpus, tag="tlb-watch")


def free_page_run(r, n):
    """n pages of free RAM of the 128M machine, away from what boot and the self-tests use."""
    return PAGE_OFFSET + r.randrange((64 << 20) // PAGE, ((120 << 20) // PAGE) - n) * PAGE


def tried_pages(r, va, n):
    """The pages of a request the CPUs write: its last, and one other
    (its first if it has two) - a flush of the first page only fails on
    every seed."""
    pages = [va + (n - 1) * PAGE]
    if n > 1:
        pages.append(va + r.randrange(0, n - 1) * PAGE)
    return pages


def request_sizes(r):
    """The sizes of the grade's requests: one up to the ceiling, one just
    past it or at it (1..TLB_FLUSH_CEILING + 1 in all), one well past."""
    return [r.randrange(1, CEILING + 1), r.choice((CEILING, CEILING + 1)),
            r.randrange(CEILING + 2, 4 * CEILING)]


def ro_round(ctx, g, r, n, cpus, bad):
    """Every CPU writes the tried pages of a request of n pages (each must
    go through), the shell makes it read-only, every CPU writes again
    (each must fault); the request made writable again."""
    va = free_page_run(r, n)
    for page in tried_pages(r, va, n):
        before = r.randrange(1, 128)
        for cpu in range(cpus):
            why = cpuwrite(ctx, g, cpu, page, before, "wrote")
            if why:
                bad.append(why)
                return
        here = set_memory(ctx, g, "ro", va, n)
        for cpu in range(cpus):
            why = cpuwrite(ctx, g, cpu, page, 128 + cpu, "faulted")
            if why:
                bad.append("page %d of set_memory ro 0x%08x %d (run on CPU %s): %s"
                           % ((page - va) // PAGE, va, n, here, why))
        set_memory(ctx, g, "rw", va, n)


@check(points=20, name="pages and sizes picked at grade time: after set_memory ro, every CPU's "
                       "write faults on that CPU and memory keeps its byte (QEMU sees both)",
       steps=[SEND, EVERY, PAGES, ALL, ITSELF])
def writes_seen_by_qemu(ctx):
    caller_waits(ctx)
    g = watch_boot(ctx)
    r = ctx.rng("tlb-shootdown writes")
    bad = []
    for n in request_sizes(r):
        ro_round(ctx, g, r, n, CPUS, bad)
    if bad:
        raise CheckFailed("\n".join(bad[:6]))


@check(points=10, name="one CPU: set_memory ro holds at once, its write faults (QEMU sees it)",
       steps=[ITSELF, EVERY])
def one_cpu(ctx):
    g = ctx.boot(tag="tlb-one")
    expect_ktap(g, "pageattr", ["ro_takes_effect_at_once", "nx_takes_effect_at_once"])
    r = ctx.rng("tlb-shootdown one cpu")
    bad = []
    ro_round(ctx, g, r, r.randrange(1, CEILING + 2), 1, bad)
    if bad:
        raise CheckFailed("\n".join(bad[:6]))


@check(points=5, name="crash SMP_STALE_WRITE and SMP_STALE_EXEC fault on the other CPU (QEMU "
                      "sees the fault)", steps=[EVERY])
def demos(ctx):
    caller_waits(ctx)
    g = watch_boot(ctx)
    for demo, want, err in (("SMP_STALE_WRITE", "the write faulted on CPU", 3),
                            ("SMP_STALE_EXEC", "the call faulted on CPU", 0x11)):
        out, ev = Watch(ctx, g).run("crash " + demo)
        pf = [e for e in faults(ev, user=False) if e.err == err and
              (err != 0x11 or e.cr2 == e.fault_ip)]
        if want not in out or "FAIL" in out or not pf:
            lines = [ln for ln in out.splitlines() if ln.startswith("lkdtm:")]
            raise CheckFailed("expected `crash %s` to oops on the other CPU (%r) with a fault "
                              "QEMU's gdbstub sees (error %#x), found %s:\n  %s"
                              % (demo, want, err, "; ".join(map(str, faults(ev))) or "no fault",
                                 "\n  ".join(lines[-4:]) or out.strip()[-300:]))


@check(points=5, name="cpa_shootdown=off: only this CPU flushes (its write faults, QEMU sees it), "
                      "and another CPU's stale entry shows", steps=[OFF])
def shootdown_off(ctx):
    caller_waits(ctx)       # cpuwrite's call to another CPU waits in smp_call_function_many()
    r = ctx.rng("tlb-shootdown off")
    bad = []
    # this CPU's own flush, tried within one command: between two shell
    # commands QEMU's TCG has dropped this CPU's entries anyway
    try:
        expect_ktap(ctx.boot(cmdline="cpa_shootdown=off", tag="tlb-off-one"), "pageattr",
                    ["ro_takes_effect_at_once", "nx_takes_effect_at_once"])
    except CheckFailed as e:
        bad.append("one CPU, cpa_shootdown=off: %s" % e)
    g = watch_boot(ctx, "cpa_shootdown=off")
    va = free_page_run(r, 1)
    for cpu in range(CPUS):
        why = cpuwrite(ctx, g, cpu, va, 7, "wrote")
        if why:
            bad.append(why)
    here = set_memory(ctx, g, "ro", va, 1)
    went = []
    for cpu in range(CPUS):
        if cpu == here:
            why = cpuwrite(ctx, g, cpu, va, 9, "faulted")
            if why:
                bad.append("CPU %d ran set_memory_ro() itself: %s" % (cpu, why))
        elif cpuwrite(ctx, g, cpu, va, 10 + cpu, "wrote") is None:
            went.append(cpu)
    set_memory(ctx, g, "rw", va, 1)
    if not went:
        bad.append("expected, with cpa_shootdown=off, another CPU than %s to keep its stale "
                   "entry and write 0x%08x after set_memory ro, found every write faulted"
                   % (here, va))
    if bad:
        raise CheckFailed("\n".join(bad[:6]))


ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)


def cpastat(g, cpus=CPUS):
    out = g.sh("cpastat")
    rows = {int(m.group(1)): [int(x) for x in m.groups()[1:]] for m in ROW.finditer(out)}
    if sorted(rows) != list(range(cpus)):
        raise CheckFailed("expected one cpastat row per CPU (0-%d), found:\n%s" % (cpus - 1, out))
    return rows


@check(points=5, name="cpastat: each request of a size picked at grade time counted once as a "
                      "shootdown, and on every CPU as its pages' invlpg or one full flush",
       steps=[COUNTED, SHOOTDOWN])
def counted(ctx):
    caller_waits(ctx)
    r = ctx.rng("tlb-shootdown counted")
    bad = []
    # three CPUs, a request up to the ceiling and one past it; one CPU (no shootdown to count)
    for cpus, g, n in ((CPUS, ctx.boot(smp=CPUS, tag="tlb-count"), r.randrange(1, CEILING + 1)),
                       (CPUS, ctx.boot(smp=CPUS, tag="tlb-count"),
                        r.randrange(CEILING + 1, 3 * CEILING)),
                       (1, ctx.boot(tag="tlb-one"), r.randrange(1, CEILING + 2))):
        va = free_page_run(r, n)
        before = cpastat(g, cpus)
        here = set_memory(ctx, g, "ro", va, n)
        after = cpastat(g, cpus)
        set_memory(ctx, g, "rw", va, n)
        want_one, want_all = (n, 0) if n <= CEILING else (0, 1)
        for cpu in range(cpus):
            d = [y - x for x, y in zip(before[cpu], after[cpu])]
            shoot, one, full = d[0], d[4], d[5]
            if shoot != (1 if cpu == here and cpus > 1 else 0):
                bad.append("set_memory ro of %d pages on CPU %s of %d: CPU %d counted %d "
                           "shootdowns, expected %d" % (n, here, cpus, cpu, shoot,
                                                        1 if cpu == here and cpus > 1 else 0))
            if (one, full) != (want_one, want_all):
                bad.append("set_memory ro of %d pages: CPU %d counted %d invlpg and %d full "
                           "flushes, expected %d and %d" % (n, cpu, one, full, want_one, want_all))
    if bad:
        raise CheckFailed("\n".join(bad[:8]))
