# SPDX-License-Identifier: GPL-2.0-only
"""What the labs see happen through QEMU's gdbstub, not through anything
the kernel prints: a shell command run with breakpoints set, each stop
recorded with the CPU that made it (the gdbstub's thread) and, for a
page fault, what the CPU itself pushed and loaded: the error code, the
faulting instruction and its privilege (the exception frame at the #PF
vector's entry, stub_14 in boot/traps.asm), CR2 and CR3.

A lab file can print any line it likes; it cannot make the CPU take a
page fault it did not take, nor make another CPU run the teacher's code.

    w = Watch(ctx, g, calls={"cpuwrite_here": ctx.sym("cpuwrite_here")})
    out, events = w.run("cpuwrite 1 c5000000 90")
    [e for e in events if e.kind == "#PF" and e.cpu == 1]

on_fault(event), if given, runs while the CPU is still stopped at the
fault (to read the page tables as the CPU saw them: walk(), xp).
until(event), if given, is the last event the caller needs: the line then
runs on with no breakpoint (a program that grows its stack by 2000
faults costs one stop, not 2000).

A program stuck on a fault (the kernel returns to the instruction without
resolving it) is told by counting: the same fault REPEATS times in a row
in one address space fails the line at once, where waiting would only
reach its time limit (fault_loop() watches a program started in the
background the same way).
"""
import re
import time

from gdbstub import GdbStub, GdbStubError
from grading import CheckFailed, GuestError, deadline

PROMPT = "ronx> "


class Event:
    """One stop: kind ("#PF" or a call's name), cpu (QEMU's index), eip;
    for "#PF": err, the faulting eip (fault_ip), its cs, cr2, cr3."""

    def __init__(self, kind, cpu, eip):
        self.kind, self.cpu, self.eip = kind, cpu, eip
        self.err = self.fault_ip = self.cs = self.cr2 = self.cr3 = None
        self.pte = None

    @property
    def user(self):
        return self.cs is not None and self.cs & 3 == 3

    def __repr__(self):
        if self.kind == "#PF":
            return ("#PF on CPU %d at 0x%08x, error %#x, ip 0x%08x (ring %d)"
                    % (self.cpu, self.cr2, self.err, self.fault_ip, self.cs & 3))
        return "%s on CPU %d" % (self.kind, self.cpu)


class _Stub(GdbStub):
    def next_stop(self, timeout):
        """The guest's next stop reply within timeout, or None (it runs on)."""
        try:
            reply = self._recv(timeout)
        except GdbStubError as e:
            if "closed" in str(e):
                raise
            return None
        self.running = False
        return reply


def attach_stub(guest):
    """QEMU's gdbstub for guest, or CheckFailed saying the grader cannot reach it."""
    try:
        return _Stub(guest)
    except (OSError, GdbStubError) as e:
        raise CheckFailed("the grader could not reach QEMU's gdbstub: %s" % e)


def registers(text):
    return {k: int(v, 16) for k, v in re.findall(r"\b(CR[0234]|EIP|ESP)=([0-9a-f]+)", text)}


class Watch:
    def __init__(self, ctx, g, faults=True, calls=None, on_fault=None, reads=(), on_call=None,
                 until=None, armed=None):
        self.ctx, self.g = ctx, g
        # the addresses whose breakpoints are set when the line starts (all
        # of names by default); on_call can set and clear the others, with
        # the CPU stopped (syscalls(): the exits only while a call is in)
        self.armed = armed
        # until(event): the last event the caller needs; once it is seen the
        # breakpoints go and the line runs to its end unwatched (a program
        # that takes 2000 faults costs one stop, not 2000)
        self.until = until
        self.on_call = on_call          # on_call(event, stub) at a call's stop, the CPU stopped
        self.reads = list(reads)        # addresses whose every read stops the CPU ("read")
        self.names = {}
        if faults:
            self.names[ctx.sym("stub_14")] = "#PF"
        for name, addr in (calls or {}).items():
            self.names[addr] = name
        self.on_fault = on_fault

    def _event(self, stub, reply, pf=None, quiet=False, regs=None):
        m = re.search(r"thread:(?:p[0-9a-f]+\.)?([0-9a-f]+)", reply)
        cpu = int(m.group(1), 16) - 1 if m else 0
        regs = regs or stub.regs()
        ev = Event(pf or self.names.get(regs["eip"], "0x%08x" % regs["eip"]), cpu, regs["eip"])
        if ev.kind == "#PF":
            esp = regs["esp"]
            ev.err, ev.fault_ip, ev.cs = (stub.read32(esp), stub.read32(esp + 4),
                                          stub.read32(esp + 8) & 0xFFFF)
            r = registers(self.g.guest.monitor("info registers", cpu=cpu))
            ev.cr2, ev.cr3 = r.get("CR2"), r.get("CR3", 0) & 0xFFFFFFE0
            if self.on_fault and not quiet:
                self.on_fault(ev)
        else:
            ev.regs = regs
            if self.on_call:
                self.on_call(ev, stub)
        return ev

    def run(self, line, timeout=30):
        """Runs the shell line with the breakpoints set: (what it printed
        before the next prompt, [Event])."""
        g, events = self.g, []
        stub = attach_stub(g.guest)
        start = len(g.guest.out)
        give_up = deadline(timeout)
        watching, probed, unwatched = True, False, None
        loop = FaultLoop()
        try:
            for addr in self.names if self.armed is None else self.armed:
                stub.break_at(addr)
            for addr in self.reads:
                if stub.command("Z3,%x,1" % addr) != "OK":
                    raise CheckFailed("QEMU refused a read watchpoint at 0x%08x" % addr)
            stub.cont()
            g.guest.send(line.encode() + b"\r")
            while self._prompt(start, line) is None:
                reply = stub.next_stop(0.02)
                if reply is not None:
                    ev = None
                    regs = stub.regs()      # once per stop: the event and cont() use them
                    w = re.search(r"[ar]?watch:([0-9a-f]+)", reply)
                    if w:
                        m = re.search(r"thread:(?:p[0-9a-f]+\.)?([0-9a-f]+)", reply)
                        ev = Event("read", int(m.group(1), 16) - 1 if m else 0, regs["eip"])
                        ev.cr2 = int(w.group(1), 16)
                    elif regs["eip"] in self.names:
                        ev = self._event(stub, reply, regs=regs)
                    if ev is not None:
                        events.append(ev)
                        if loop.add(ev):
                            g.dead = True
                            raise CheckFailed(looping(ev, "`%s`" % line))
                        if watching and self.until and self.until(ev):
                            watching = False
                            self._unwatch(stub)
                            unwatched = time.monotonic()
                    stub.cont(regs["eip"])
                elif not watching and not probed and time.monotonic() - unwatched >= PROBE_AFTER:
                    # still running after what the caller needed: a fault loop?
                    probed = True
                    stub.stop()
                    hit = self.probe(stub, lambda: self._prompt(start, line) is not None,
                                     give_up)
                    if hit:
                        g.dead = True
                        raise CheckFailed(looping(hit, "`%s`" % line))
                    stub.cont()
                if time.monotonic() > give_up or g.guest.proc.poll() is not None:
                    g.dead = True
                    raise CheckFailed("expected `%s` to finish within %.0fs, found it still "
                                      "running:\n%s" % (line, give_up.seconds, g.guest.out[start:][-600:]))
        except GdbStubError as e:
            g.dead = True
            raise CheckFailed("QEMU's gdbstub stopped answering during `%s`: %s" % (line, e))
        finally:
            try:
                stub.stop()
                if watching:
                    self._unwatch(stub)
                stub.detach()
            except (OSError, GdbStubError):
                g.dead = True
        end = self._prompt(start, line)
        text = g.guest.out[start:end]
        echo = text.find(line + "\n")
        return (text[echo + len(line) + 1:] if echo >= 0 else text), events

    def probe(self, stub, done, give_up, idle=False):
        """With stub stopped: the guest runs, stopped at each page fault,
        until done() or the time give_up; the fault a CPU took REPEATS times in a
        row, or None. idle: also an Idle once every CPU was halted (QEMU's
        HLT) in IDLE_SAMPLES samples in a row, for a program that never
        sleeps: it can only be blocked; or a Spinning once every CPU was in
        cpu_relax() in as many (a deadlock). It leaves the guest stopped,
        the breakpoint gone."""
        loop, pf = FaultLoop(), self.ctx.sym("stub_14")
        stuck, next_sample = Stuck(self.ctx), time.monotonic() + IDLE_EVERY
        stub.break_at(pf)
        stub.cont()
        try:
            while not done() and time.monotonic() < give_up and \
                    self.g.guest.proc.poll() is None:
                reply = stub.next_stop(0.02)
                if reply is None:
                    if idle and time.monotonic() >= next_sample:
                        next_sample = time.monotonic() + IDLE_EVERY
                        found = stuck.sample(self.g)
                        if found:
                            return found
                    continue
                stuck.reset()       # a fault: the guest is not idle
                regs = stub.regs()
                if regs["eip"] == pf:
                    hit = loop.add(self._event(stub, reply, pf="#PF", quiet=True, regs=regs))
                    if hit:
                        return hit
                stub.cont(regs["eip"])
            return None
        finally:
            stub.stop()
            stub.clear(pf)

    def _unwatch(self, stub):
        for addr in list(stub.breakpoints):
            stub.clear(addr)
        for addr in self.reads:
            stub.command("z3,%x,1" % addr)

    def _prompt(self, start, line):
        """Where the prompt after the echo of line is, or None."""
        text = self.g.guest.out
        echo = text.find(line + "\n", start)
        if echo < 0:
            return None
        m = re.compile("^" + re.escape(PROMPT), re.M).search(text, echo + len(line) + 1)
        return m.start() if m else None


# exit and exit_group (Linux's i386 numbers): calls that never return
NO_RETURN = (1, 252)


def syscalls(ctx, g, line, timeout=30):
    """Runs the shell line with the CPU stopped at every int $0x80
    (stub_128, or entry_INT80_32 without PTI: its number and arguments in
    the registers) and every ret_from_trap, or int80_exit without PTI (the
    frame the kernel returns with: vector, ring, eax):
    (what it printed, [(nr, ebx, ecx, edx, result)] of each system call
    from ring 3, in order), each result as ring 3 received it.
    The ways out stop the CPU only while a call is in: with PTI every
    trap leaves by ret_from_trap, and a program's page faults and the
    timer's ticks are most of its stops otherwise."""
    calls, entered = [], {}
    entries = {"int80": ctx.sym("stub_128"), "int80 without PTI": ctx.sym("entry_INT80_32")}
    exits = {"ret_from_trap": ctx.sym("ret_from_trap"),
             "return without PTI": ctx.sym("int80_exit")}

    def seen(ev, stub):
        if ev.kind.startswith("int80"):
            if ev.regs["eax"] in NO_RETURN:
                return      # no way out to wait for: the exits would stay armed
            if not entered:
                for addr in exits.values():
                    stub.break_at(addr)
            entered[ev.cpu] = (ev.regs["eax"], ev.regs["ebx"], ev.regs["ecx"], ev.regs["edx"])
        elif ev.cpu in entered:
            esp = ev.regs["esp"]
            if stub.read32(esp + 48) == 0x80 and stub.read32(esp + 60) & 3 == 3:
                ret = stub.read32(esp + 44)
                calls.append(entered.pop(ev.cpu) + (ret - (1 << 32) if ret >> 31 else ret,))
                if not entered:
                    for addr in exits.values():
                        stub.clear(addr)
    out, _ = Watch(ctx, g, faults=False, on_call=seen, calls=dict(entries, **exits),
                   armed=entries.values()).run(line, timeout)
    return out, calls


# the same page fault this many times in a row on one CPU: the kernel
# returns to the faulting instruction without resolving the fault, for ever
# (an honest kernel resolves a fault or kills the program the first time)
REPEATS = 100
PROBE_AFTER = 2     # seconds a line runs on unwatched before its page faults are watched


# a program that never sleeps and has not said it is ready, with every CPU
# halted (idle: nothing to run) in this many samples in a row, IDLE_EVERY
# seconds apart, is blocked for good (the timer's tick runs for microseconds)
IDLE_SAMPLES = 4
IDLE_EVERY = 0.5


class Idle:
    """probe()'s finding: the guest idle, every CPU halted."""

    def __repr__(self):
        return "every CPU halted (QEMU's HLT) in %d samples in a row, %.1f s apart" % (
            IDLE_SAMPLES, IDLE_EVERY)


class Spinning:
    """probe()'s finding: every CPU in a busy wait that nothing ends."""

    def __repr__(self):
        return ("every CPU spinning in cpu_relax() (a busy wait: a lock or a cross-CPU call "
                "that no CPU is left to give) in %d samples in a row, %.1f s apart"
                % (IDLE_SAMPLES, IDLE_EVERY))


class Stuck:
    """Samples of every CPU (QEMU's info registers -a, the guest running):
    an Idle once every CPU was halted, a Spinning once every CPU was in
    cpu_relax(), IDLE_SAMPLES samples in a row the same. Every busy wait
    of the kernel turns in cpu_relax(), which also serves the cross-CPU
    calls sent to its CPU: with every CPU there, none is left to release
    what the others wait for. A correct kernel waits there microseconds;
    a CPU that holds a lock runs elsewhere, even while QEMU's host thread
    for it is descheduled."""

    def __init__(self, ctx):
        start = ctx.sym("cpu_relax")
        self.relax = (start, min((a for a in ctx.syms.values() if a > start),
                                 default=start + 1))
        self.reset()

    def reset(self):
        self.last, self.count = None, 0

    def state(self, text):
        """"halted", "spinning" or None, from one info registers -a."""
        cpus = re.findall(r"\bEIP=([0-9a-f]+)\b.*?\bHLT=(\d)", text, re.S)
        if not cpus:
            return None
        if all(h == "1" for _, h in cpus):
            return "halted"
        lo, hi = self.relax
        if all(h == "0" and lo <= int(eip, 16) < hi for eip, h in cpus):
            return "spinning"
        return None

    def sample(self, g):
        now = self.state(g.guest.monitor("info registers -a"))
        self.count = self.count + 1 if now and now == self.last else (1 if now else 0)
        self.last = now
        if self.count >= IDLE_SAMPLES:
            return Idle() if now == "halted" else Spinning()
        return None


class FaultLoop:
    """Counts, per address space (CR3: two stuck processes take turns on
    a CPU), how many times in a row it took the same page fault in ring 3
    (address, error code, instruction)."""

    def __init__(self):
        self.last, self.count = {}, {}

    def add(self, ev):
        """ev, an Event; the fault once it repeated REPEATS times, else None."""
        if ev.kind != "#PF" or not ev.user:
            return None
        key = (ev.cr2, ev.err, ev.fault_ip)
        same = self.last.get(ev.cr3) == key
        self.last[ev.cr3] = key
        self.count[ev.cr3] = self.count.get(ev.cr3, 0) + 1 if same else 1
        return ev if self.count[ev.cr3] >= REPEATS else None


def looping(ev, what):
    return ("%s: the CPU took the same page fault %d times in a row (QEMU's gdbstub: %s): "
            "the kernel returns to the instruction without resolving the fault"
            % (what, REPEATS, ev))


def fault_loop(ctx, g, done, timeout, idle=False):
    """Watches g's page faults (the #PF entry) until done() or timeout:
    the first one a CPU took REPEATS times in a row, or None (idle: or an
    Idle, the guest idle). The verdict is a count of the CPU's own faults
    or QEMU's halted CPUs, never a time: timeout (the seconds left of the
    caller's deadline, stretched already) only ends the watch."""
    stub = attach_stub(g.guest)
    try:
        return Watch(ctx, g).probe(stub, done, time.monotonic() + timeout, idle)
    except GdbStubError as e:
        g.dead = True
        raise CheckFailed("QEMU's gdbstub stopped answering: %s" % e)
    finally:
        try:
            stub.detach()
        except (OSError, GdbStubError):
            g.dead = True


def faults(events, cpu=None, user=None):
    return [e for e in events if e.kind == "#PF" and (cpu is None or e.cpu == cpu)
            and (user is None or e.user == user)]


__all__ = ["Watch", "Event", "faults", "syscalls", "GuestError"]
