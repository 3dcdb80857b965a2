# SPDX-License-Identifier: GPL-2.0-only
"""Lab 15, signals: the rt signal frame on the user stack and its return,
rt_sigreturn, with the checks that make the return safe
(kernel/signal_frame.c; docs/labs/signals.md).

Everything graded is seen from outside, through QEMU's gdbstub, with the
CPU stopped at the test program's own addresses (sigprobe.c, built at
grade time): its registers at the signal point (the int $0x80 of a kill,
the write that faults), at the handler's first instruction and after the
return; the frame's bytes read from the user stack with the CPU in the
process's address space; the mask as sigprocmask() (teacher code) reports
it, read from the program's registers. The seed picks the registers the
program loads, the signals, the mask, the faulting address, the
alternate stack's place and size, the words on top of the stack and the
order of the cases; every seed has every case (a kill, a kill whose
handler is SA_ONSTACK, a fault; each forged frame).

Forged frames: each child of `sigprobe forge` rewrites its own saved
context and returns. The grader stops the CPU at the landing address the
frame names, at the kernel's die() (an oops: a fault in ring 0 on the way
out, at the pops or the iret) and at the parent's report of how the child
ended. A landing reached in ring 0, or with IOPL, NT or VM set, or a
kernel fault, fails the check; refusing the frame (SIGSEGV) or landing in
ring 3 with the flags cleaned both pass.
"""
import os
import re
import struct
import time

from gdbstub import GdbStub
from grading import CheckFailed, GuestError, check, deadline, step
from userlab import build_program, built_once, died, gdbstub_session, initrd_with, symbols, work_dir

LAB = "signals"
HERE = os.path.dirname(os.path.abspath(__file__))
USER_CS, USER_DS = 0x1B, 0x23
SIGSEGV, SIGKILL, SIGSTOP = 11, 9, 19
SEGV_ACCERR, SI_USER = 2, 0
FRAME = 268                     # struct rt_sigframe
INFO, UC = 16, 144              # offsetof(struct rt_sigframe, info), (..., uc)
SC = UC + 20                    # the sigcontext in the ucontext
FPSTATE = 624                   # struct _fpstate_32 with fxsave
EF_TF, EF_DF, EF_IF, EF_NT, EF_VM, EF_IOPL = 0x100, 0x400, 0x200, 0x4000, 0x20000, 0x3000
EF_AC = 0x40000
SS_DISABLE, SS_AUTODISARM = 2, 1 << 31
# the signals the seed picks from: none that stops, continues or is a fault's
SIGNALS = [1, 2, 3, 10, 12, 14, 15, 16, 23, 24, 25, 26, 27, 28, 29, 30, 31] + list(range(34, 65))
REG16 = ("eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
         "cs", "ss", "ds", "es", "fs", "gs")
GENERAL = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp")
FORGE_LETTERS = "crsDEFGevmo"   # sigprobe forge's children (FORGED, below, names them)

# -- the steps: each verb of labs/signals/strip's hints ---------------------
BELOW = step("get_sigframe", "below the interrupted esp and the FPU state under it",
             "frame-over-fpstate")
ALIGN = step("get_sigframe", "esp + 4 16-byte aligned at the handler's entry",
             "frame-esp-aligned")
ALT = step("get_sigframe", "from the top of the alternate stack for SA_ONSTACK when not on it",
           "altstack-ignored")
OVERFLOW = step("get_sigframe", "refused if it would run off the alternate stack's bottom",
                "altstack-overflow-allowed")
SAVED = step("fill_sigcontext", "every register of the trap frame in its slot",
             "sc-dx-cx-swapped")
ENTRY = step("enter_handler", "eip the handler, esp the frame, eax the signal, user selectors",
             "eax-not-signal")
FLAGS = step("enter_handler", "DF and TF cleared", "df-kept")
AC = step("enter_handler", "AC cleared", "ac-kept")
DISARM = step("enter_handler", "an SA_ONSTACK frame on an SS_AUTODISARM stack disarms it",
              "autodisarm-ignored")
RET = step("setup_rt_frame", "the return address the restorer (SA_RESTORER)", "retcode-always")
ARGS = step("setup_rt_frame", "edx &info and ecx &uc (regparm)", "regparm-swapped")
UCMASK = step("setup_rt_frame", "the old mask and the alternate stack in the ucontext",
              "uc-sigmask-unset")
RESTORE = step("restore_sigcontext", "every register from the sigcontext", "esp-not-restored")
CS_SS = step("restore_sigcontext", "cs and ss the user selectors, nothing else", "cs-trusted")
EFLAGS = step("restore_sigcontext", "only the EFLAGS bits ring 3 may change (FIX_EFLAGS)",
              "eflags-whole")
DATA = step("data_sel_ok", "a data selector null or USER_DS, nothing else", "data-sel-rpl3")
MASKBACK = step("set_current_blocked", "the saved mask back, all 64 signals",
                "mask-low-word-only")
NOKILL = step("set_current_blocked", "never SIGKILL or SIGSTOP", "sigkill-blockable")


# -- the program and its scenario ---------------------------------------------
class Scenario:
    """From the seed: the seven registers, the two signals, the mask (at
    least one signal of 1-32 and one of 33-64), the faulting offset, the
    alternate stack's offset and size, the two words on top of the stack,
    the order of the three cases; the order of the forged frames (each
    data selector forged in a frame of its own)."""

    def __init__(self, r):
        self.regs = dict(zip(GENERAL, r.sample(range(1 << 32), 7)))
        self.sigk, self.siga = r.sample(SIGNALS, 2)
        rest = [s for s in SIGNALS if s not in (self.sigk, self.siga)]
        low, high = [s for s in rest if s <= 32], [s for s in rest if s > 32]
        blocked = r.sample(low, r.randrange(1, 4)) + r.sample(high, r.randrange(1, 4))
        self.mask = sum(1 << (s - 1) for s in blocked)
        self.foff = r.randrange(0, 1023) * 4
        self.aoff = r.randrange(0, 256) * 4
        self.asize = r.randrange(2048, 3 * 4096, 4)
        self.canary = r.sample(range(1 << 32), 2)
        self.order = "".join(r.sample("kfa", 3))
        self.forge = "".join(r.sample(FORGE_LETTERS, len(FORGE_LETTERS)))

    def deliver_line(self):
        v = [self.regs[n] for n in GENERAL] + [self.sigk, self.siga, self.mask & 0xFFFFFFFF,
                                               self.mask >> 32, self.foff, self.aoff,
                                               self.asize] + self.canary
        return "sigprobe deliver %s %s" % (self.order, ",".join("%x" % x for x in v))

    def forge_line(self):
        return "sigprobe forge %s" % self.forge


class Program:
    def __init__(self, ctx):
        d = work_dir(ctx, LAB)
        elf = build_program(ctx, os.path.join(d, "sigprobe"), [os.path.join(HERE, "sigprobe.c")],
                            os.path.join(ctx.root, "user", "user.ld"))
        self.initrd, _ = initrd_with(ctx, LAB, {"sigprobe": elf})
        self.syms = symbols(elf)
        self.scn = Scenario(ctx.rng("signals/scenario"))


def program(ctx):
    return built_once(ctx, "signals_program", Program)


# -- the gdbstub ----------------------------------------------------------------
class Stub(GdbStub):
    def regs16(self):
        raw = bytes.fromhex(self.command("g"))
        return dict(zip(REG16, struct.unpack_from("<16I", raw)))


ENDED = re.compile(r"(?:^|(?<=ronx> ))(\[\d+\] sigprobe: (exit status|killed by)|"
                   r"sigprobe\[\d+\]: segfault|BUG: |Kernel panic)", re.M)


# more stops than any run of the program makes: a program that loops (a
# handler entered again and again: its return went astray) is told at once
MAX_STOPS = 300
LOOPED = " (it looped: %d breakpoint stops, more than a right run makes)" % MAX_STOPS


def follow(g, stub, line, at, on_stop, done, timeout=30):
    """Runs `line` in the background with breakpoints at the addresses of
    at ({address: name}); on_stop(name, regs) at each stop, the CPU
    stopped, until done(), the program's end (the shell's line, a
    segfault, an oops), MAX_STOPS stops or timeout (a program that hangs:
    the whole run takes well under a second). Each stop is an event the
    CPU made: what is graded is their order and contents, never a time.
    Returns (where the run's output starts, whether it stopped on
    MAX_STOPS: the program loops)."""
    mark = len(g.guest.out)
    for a in at:
        stub.break_at(a)
    stub.cont()
    g.guest.send(("run " + line + " &\r").encode())
    give_up = deadline(timeout)
    quiet = stops = 0
    while not done() and stops < MAX_STOPS:
        if stub.wait_stop(0.5) or stub.regs()["eip"] in stub.breakpoints:
            quiet = 0
            stops += 1
            regs = stub.regs16()
            if regs["eip"] in at:
                on_stop(at[regs["eip"]], regs)
            if done():
                break
            stub.cont(regs["eip"])
            continue
        out = g.guest.out[mark:]
        if ENDED.search(out) or time.monotonic() > give_up or g.guest.proc.poll() is not None:
            break
        quiet += 1
        stub.cont()
        if quiet % 4 == 0:
            # a background job's end shows at the shell's next prompt: ask for one
            g.guest.send(b"\r")
    return mark, stops >= MAX_STOPS and not done()


def last_line(g, mark, line):
    """Waits (bounded) for the program's last line, or its end, before
    the shell is asked anything: a line it prints while a command is typed
    cuts into that command's echo, and the shell would seem not to answer."""
    try:
        g.guest.wait_for("%s|%s" % (re.escape(line), ENDED.pattern), 20, mark)
    except GuestError:
        pass        # the command's own wait says what is wrong


# -- the delivery: three cases, each stopped three times -------------------------
class Case:
    def __init__(self, kind, at):
        self.kind, self.at = kind, at
        self.handler = self.frame = self.after = self.mask = None
        self.canary_at = self.canary_after = None
        self.alt_seen = None        # (flags, size): sigaltstack() in the handler
        self.alt = None             # (low, high) of the alternate stack


class Delivery:
    """What the gdbstub saw of `sigprobe deliver`: one Case per signal,
    in the order they came."""

    def __init__(self, ctx, g, prog):
        self.cases, self.err, self.out = [], None, ""
        s = prog.scn
        y = prog.syms
        names = ("probe_kill_at", "probe_fault_at", "probe_kill_after", "probe_fault_after",
                 "probe_handler", "probe_alt_seen", "probe_mask_seen")
        at = {y[n]: n for n in names}
        self.syms = y

        def on_stop(name, r):
            cur = self.cases[-1] if self.cases else None
            if name.endswith("_at"):
                if cur and cur.after is None and cur.at["eip"] == r["eip"] and cur.handler:
                    return      # the faulting write again, after the handler
                kind = "f" if name == "probe_fault_at" else ("k" if r["ecx"] == s.sigk else "a")
                c = Case(kind, r)
                c.canary_at = stub.words(r["esp"], 2)
                if kind == "a":
                    area = stub.words(y["probe_alt_area"], 1)[0]
                    c.alt = (area + s.aoff, area + s.aoff + s.asize)
                self.cases.append(c)
            elif cur is None:
                return
            elif name == "probe_handler" and cur.handler is None and cur.after is None:
                cur.handler = r
                cur.frame = stub.read(r["esp"] & ~3, FRAME) if r["esp"] < 0xC0000000 - FRAME \
                    else None
            elif name == "probe_alt_seen" and cur.handler and cur.alt_seen is None:
                cur.alt_seen = tuple(stub.words(r["esp"] + 4, 2))
            elif name.endswith("_after") and cur.after is None:
                cur.after = r
                cur.canary_after = stub.words(r["esp"], 2)
            elif name == "probe_mask_seen" and cur.mask is None:
                cur.mask = stub.words(r["esp"] + 4, 2)

        def done():
            return len(self.cases) == 3 and self.cases[-1].mask is not None
        start = len(g.guest.out)
        looped = False
        try:
            with gdbstub_session(g, start, "follow sigprobe's signals", Stub) as stub:
                mark, looped = follow(g, stub, s.deliver_line(), at, on_stop, done)
                self.out = g.guest.out[mark:]
        except CheckFailed as e:
            self.err = str(e)
        if not done() and not self.err:
            self.err = "expected sigprobe to take its three signals, found %d (%s)%s:\n%s" % (
                len(self.cases), "".join(c.kind for c in self.cases),
                LOOPED if looped else "", died(self.out))
        # a program that loops may never print its last line: its verdict
        # is in, and the shell is not asked (no wait for a line not coming)
        if not looped and g.guest.proc.poll() is None and not getattr(g, "dead", False):
            try:
                last_line(g, start, "sigprobe: cases done")
                g.sh("cmdline")
            except GuestError:
                g.dead = True


def watched(ctx, kind):
    """(the program, kind(ctx, g, prog)) on kind's own boot, run once per
    grade (each check asks for the boot: its stub lines count)."""
    prog = program(ctx)
    g = ctx.boot(initrd=prog.initrd, tag="signals-" + kind.__name__.lower())
    seen = getattr(g, "signals_seen", None)
    if seen is None:
        seen = g.signals_seen = kind(ctx, g, prog)
    return prog, seen


def delivery(ctx):
    return watched(ctx, Delivery)


CASE = {"k": "kill", "a": "kill with an SA_ONSTACK handler", "f": "the write fault"}


def signal_of(prog, c):
    return {"k": prog.scn.sigk, "a": prog.scn.siga, "f": SIGSEGV}[c.kind]


def label(prog, c):
    return "%s (signal %d)" % (CASE[c.kind], signal_of(prog, c))


def need(d, prog, attr, what):
    """Every case of the seed's order, each having reached attr."""
    bad = []
    seen = "".join(c.kind for c in d.cases)
    for k in prog.scn.order:
        if k not in seen:
            bad.append("%s: the signal point never reached" % CASE[k])
    for c in d.cases:
        if getattr(c, attr) is None:
            bad.append("%s: expected %s, found it never came%s" % (
                label(prog, c), what, "" if not d.err else "; " + d.err.splitlines()[0]))
    if bad:
        raise CheckFailed("\n".join(bad[:6]) + ("\n" + died(d.out) if d.out else ""))


def fail_if(bad):
    if bad:
        raise CheckFailed("\n".join(bad[:8]) + ("\n... and %d more" % (len(bad) - 8)
                                                 if len(bad) > 8 else ""))


def interrupted_top(c):
    """Where the frame and its FPU state must end: the interrupted esp,
    or the top of the alternate stack."""
    return c.alt[1] if c.kind == "a" else c.at["esp"]


@check(points=20, name="at the handler's first instruction (gdbstub): eip the handler, esp + 4 "
       "16-byte aligned below the interrupted esp (or inside the alternate stack for "
       "SA_ONSTACK), eax the signal, edx &info, ecx &uc, user cs/ss/ds/es, DF, TF and AC clear; "
       "in the SA_ONSTACK handler only, its SS_AUTODISARM stack disarmed (sigaltstack())",
       steps=[ALIGN, ALT, ENTRY, ARGS, FLAGS, AC, DISARM])
def handler_entry(ctx):
    prog, d = delivery(ctx)
    need(d, prog, "handler", "the handler's first instruction")
    need(d, prog, "alt_seen", "the handler's report of sigaltstack()")
    bad = []
    for c in d.cases:
        h, who = c.handler, label(prog, c)
        sig = signal_of(prog, c)
        esp = h["esp"]
        if (esp + 4) % 16:
            bad.append("%s: esp %#x, expected esp + 4 16-byte aligned (as after a call)"
                       % (who, esp))
        if c.kind == "a":
            lo, hi = c.alt
            if not (lo <= esp and esp + FRAME <= hi):
                bad.append("%s: esp %#x, expected the frame inside the alternate stack "
                           "%#x..%#x" % (who, esp, lo, hi))
        elif esp + FRAME > c.at["esp"]:
            bad.append("%s: esp %#x, expected the %d-byte frame below the interrupted esp %#x"
                       % (who, esp, FRAME, c.at["esp"]))
        want = {"eax": sig, "edx": esp + INFO, "ecx": esp + UC, "cs": USER_CS, "ss": USER_DS,
                "ds": USER_DS, "es": USER_DS}
        for n, v in want.items():
            if h[n] != v:
                bad.append("%s: %s %#x, expected %#x (%s)" % (
                    who, n, h[n], v, {"eax": "the signal", "edx": "&info = esp + 16",
                                      "ecx": "&uc = esp + 144"}.get(n, "the user selector")))
        if h["eflags"] & (EF_DF | EF_TF | EF_AC):
            bad.append("%s: eflags %#x, expected DF, TF and AC clear (the program had DF and "
                       "AC set)" % (who, h["eflags"]))
        flags, size = c.alt_seen
        if c.kind == "a" and (not flags & SS_DISABLE or size):
            bad.append("%s: in the handler sigaltstack() says flags %#x, size %#x; expected the "
                       "SS_AUTODISARM stack disarmed (SS_DISABLE, size 0)" % (who, flags, size))
        if c.kind != "a" and (flags & SS_DISABLE or size != prog.scn.asize):
            bad.append("%s: in the handler sigaltstack() says flags %#x, size %#x; expected the "
                       "alternate stack still set (size %#x): only an SA_ONSTACK frame disarms "
                       "it" % (who, flags, size, prog.scn.asize))
    fail_if(bad)


def frame_fields(b):
    w = lambda off: struct.unpack_from("<I", b, off)[0]            # noqa: E731
    h = lambda off: struct.unpack_from("<H", b, off)[0]            # noqa: E731
    sc = SC
    return {
        "pretcode": w(0), "sig": w(4), "pinfo": w(8), "puc": w(12),
        "si_signo": w(INFO), "si_errno": w(INFO + 4), "si_code": w(INFO + 8),
        "si_word": w(INFO + 12),
        "uc_stack": (w(UC + 8), w(UC + 12), w(UC + 16)),
        "gs": h(sc), "fs": h(sc + 4), "es": h(sc + 8), "ds": h(sc + 12),
        "edi": w(sc + 16), "esi": w(sc + 20), "ebp": w(sc + 24), "esp": w(sc + 28),
        "ebx": w(sc + 32), "edx": w(sc + 36), "ecx": w(sc + 40), "eax": w(sc + 44),
        "trapno": w(sc + 48), "err": w(sc + 52), "eip": w(sc + 56), "cs": h(sc + 60),
        "eflags": w(sc + 64), "sp_at_signal": w(sc + 68), "ss": h(sc + 72),
        "fpstate": w(sc + 76), "oldmask": w(sc + 80), "cr2": w(sc + 84),
        "uc_sigmask": w(UC + 108) | w(UC + 112) << 32,
    }


def saved_regs(prog, c):
    """The sigcontext the case should save: the registers at the signal
    point, but eip where the CPU goes back to, and a kill's result in eax."""
    want = {n: c.at[n] for n in ("gs", "fs", "es", "ds", "edi", "esi", "ebp", "esp", "ebx",
                                 "edx", "ecx", "eax", "cs", "eflags", "ss")}
    want["sp_at_signal"] = c.at["esp"]
    if c.kind == "f":
        want.update(eip=prog.syms["probe_fault_at"], trapno=14, cr2=c.at["edi"])
    else:
        want.update(eip=prog.syms["probe_kill_after"], eax=0, trapno=0x80, cr2=0)
    return want


@check(points=25, name="the frame's bytes on the user stack (gdbstub, the process's CR3): "
       "return address the restorer, sig, &info, &uc, the siginfo, the sigcontext holding the "
       "registers the program loaded (eip at the faulting write), the FPU state between the "
       "frame and the interrupted esp, the old mask, the alternate stack",
       steps=[BELOW, SAVED, RET, UCMASK])
def frame_bytes(ctx):
    prog, d = delivery(ctx)
    need(d, prog, "handler", "the handler's first instruction")
    s, bad = prog.scn, []
    for c in d.cases:
        who = label(prog, c)
        if c.frame is None:
            bad.append("%s: esp %#x, no frame to read" % (who, c.handler["esp"]))
            continue
        esp = c.handler["esp"]
        f = frame_fields(c.frame)
        sig = {"k": s.sigk, "a": s.siga, "f": SIGSEGV}[c.kind]
        if f["pretcode"] != prog.syms["probe_restorer"]:
            bad.append("%s: return address %#x, expected the sa_restorer %#x (probe_restorer)"
                       % (who, f["pretcode"], prog.syms["probe_restorer"]))
        for n, v in (("sig", sig), ("pinfo", esp + INFO), ("puc", esp + UC), ("si_signo", sig),
                     ("si_code", SEGV_ACCERR if c.kind == "f" else SI_USER)):
            if f[n] != v:
                bad.append("%s: the frame's %s %#x, expected %#x" % (who, n, f[n], v))
        if c.kind == "f" and f["si_word"] != c.at["edi"]:
            bad.append("%s: si_addr %#x, expected the faulting address %#x"
                       % (who, f["si_word"], c.at["edi"]))
        for n, v in saved_regs(prog, c).items():
            if f[n] != v and not (n == "eflags" and (f[n] ^ v) & ~0x10000 == 0):
                bad.append("%s: the sigcontext's %s %#x, expected %#x (the program's, at the "
                           "signal)" % (who, n, f[n], v))
        if c.kind == "f" and f["err"] & 6 != 6:
            bad.append("%s: the sigcontext's err %#x, expected the CPU's error code of a user "
                       "write (bits 1 and 2 set)" % (who, f["err"]))
        fp, top = f["fpstate"], interrupted_top(c)
        if fp % 64 or not esp + FRAME <= fp or fp + FPSTATE > top:
            bad.append("%s: the FPU state at %#x, expected it 64-byte aligned between the frame's "
                       "end %#x and %#x (%s)" % (who, fp, esp + FRAME, top - FPSTATE,
                                                 "the alternate stack's top - 624"
                                                 if c.kind == "a" else "the interrupted esp - 624"))
        if f["oldmask"] != s.mask & 0xFFFFFFFF or f["uc_sigmask"] != s.mask:
            bad.append("%s: the saved mask %#x (oldmask %#x), expected the mask blocked at the "
                       "signal %#x" % (who, f["uc_sigmask"], f["oldmask"], s.mask))
        want_stack = next((x.alt for x in d.cases if x.alt), None)
        if want_stack and f["uc_stack"] != (want_stack[0], SS_AUTODISARM, s.asize):
            bad.append("%s: uc_stack (sp, flags, size) %s, expected (%#x, SS_AUTODISARM, %#x): "
                       "the alternate stack, not in use at the signal" % (
                           who, "(%#x, %#x, %#x)" % f["uc_stack"], want_stack[0], s.asize))
    fail_if(bad)


@check(points=20, name="after the handler returns (gdbstub at the instruction after the "
       "signal point): every register as the program had it, the words on top of its stack "
       "intact, the mask back (sigprocmask, all 64 signals)",
       steps=[BELOW, SAVED, RESTORE, UCMASK, MASKBACK])
def after_return(ctx):
    prog, d = delivery(ctx)
    need(d, prog, "mask", "the return and the mask's report after it")
    s, bad = prog.scn, []
    for c in d.cases:
        who, a = label(prog, c), c.after
        want = dict(c.at)
        want["eip"] = prog.syms["probe_fault_after" if c.kind == "f" else "probe_kill_after"]
        if c.kind != "f":
            want["eax"] = 0
        for n in REG16:
            if a[n] != want[n] and not (n == "eflags" and (a[n] ^ want[n]) & ~0x10000 == 0):
                bad.append("%s: after the return %s %#x, expected %#x" % (who, n, a[n], want[n]))
        if c.canary_after != s.canary:
            bad.append("%s: the words on top of the interrupted stack %s, expected %s: the frame "
                       "or the FPU state was written over them" % (
                           who, " ".join("%08x" % x for x in c.canary_after),
                           " ".join("%08x" % x for x in s.canary)))
        got = c.mask[0] | c.mask[1] << 32
        if got != s.mask:
            bad.append("%s: after the return sigprocmask() says %#x blocked, expected the mask "
                       "before the signal %#x" % (who, got, s.mask))
    fail_if(bad)


# -- forged frames ------------------------------------------------------------------
FORGED = {"c": "cs KERNEL_CS (0x08)", "r": "cs 0x18 (the user code segment, RPL 0)",
          "s": "ss KERNEL_DS (0x10)", "D": "ds KERNEL_DS | 3 (0x13)",
          "E": "es KERNEL_DS | 3 (0x13)", "F": "fs KERNEL_DS | 3 (0x13)",
          "G": "gs KERNEL_DS | 3 (0x13)",
          "e": "EFLAGS IOPL 3 and NT", "v": "EFLAGS VM", "m": "uc_sigmask every signal",
          "o": "a signal 256 bytes above the alternate stack's bottom"}


class Forgery:
    """What the gdbstub saw of `sigprobe forge`: per child letter, the
    landings (registers), the handler entries, the mask it reported, how
    it ended; and every die() (an oops)."""

    def __init__(self, ctx, g, prog):
        y = prog.syms
        at = {y[n]: n for n in ("probe_landing", "probe_landed", "probe_child_end",
                                "probe_handler", "forge_handler")}
        at[ctx.sym("die")] = "die"
        self.ends, self.landed, self.masks, self.handler, self.oops = {}, {}, {}, {}, []
        self.forged = set()
        self.err, self.out, self.answers = None, "", True
        order = prog.scn.forge
        self.alt = {}

        def cur():
            return order[len(self.ends)] if len(self.ends) < len(order) else None

        def on_stop(name, r):
            k = cur()
            if name == "die":
                self.oops.append(k)
            elif name == "forge_handler":
                self.forged.add(k)
            elif name == "probe_landing":
                self.landed.setdefault(k, r)
            elif name == "probe_landed":
                self.masks.setdefault(k, stub.words(r["esp"] + 4, 2))
            elif name == "probe_handler":
                area = stub.words(y["probe_alt_area"], 1)[0]
                self.handler.setdefault(k, []).append((r, area + 4096, area + 8192))
            elif name == "probe_child_end":
                letter, status = stub.words(r["esp"] + 4, 2)
                self.ends[chr(letter & 0xff)] = status

        def done():
            # an oops, or ring 0 at the landing: what runs next is the forger's
            return len(self.ends) == len(order) or bool(self.oops) or \
                any(r["cs"] & 3 != 3 for r in self.landed.values())
        start = len(g.guest.out)
        looped = False
        try:
            with gdbstub_session(g, start, "follow sigprobe's forged frames", Stub) as stub:
                mark, looped = follow(g, stub, prog.scn.forge_line(), at, on_stop, done)
                self.out = g.guest.out[mark:]
        except CheckFailed as e:
            self.err = str(e)
        if looped:
            self.err = "sigprobe" + LOOPED
        if any(r["cs"] & 3 != 3 for r in self.landed.values()):
            # the forger's code runs in ring 0: nothing this boot says counts
            # now, and the checks that grade this run ask for it again (not
            # dead: it would be booted again, and forged again, for each)
            self.answers = False
            return
        if self.oops or looped:
            # an oops fails every forged frame's check (its own, or the ones
            # it kept from running), and so does a loop: no more to ask of
            # this boot (a looping program may never print its last line)
            return
        try:
            if g.guest.proc.poll() is not None:
                raise GuestError("QEMU is gone")
            last_line(g, start, "sigprobe: forged frames done")
            g.sh("cmdline", timeout=20)
        except (GuestError, OSError):
            self.answers = False
            self.out = g.guest.out[start:]
            g.dead = True

    def problems(self, letters):
        bad = []
        for k in self.oops:
            if k in letters or k is None:
                bad.append("%s: the kernel oopsed (die() reached, QEMU's gdbstub): a fault "
                           "in ring 0 on the way back to the forged frame" % FORGED.get(k, k))
        if not self.answers:
            bad.append("the shell stopped answering after the forged frames; the console's "
                       "last words:\n%s" % self.out.strip()[-500:])
        for k in letters:
            if k != "o" and k in self.ends and k not in self.forged:
                bad.append("%s: the child's handler never ran: no frame to forge (status %#x)"
                           % (FORGED[k], self.ends[k]))
            land = self.landed.get(k)
            if land is not None:
                if land["cs"] & 3 != 3:
                    bad.append("%s: the landing address ran in ring %d (cs %#x)"
                               % (FORGED[k], land["cs"] & 3, land["cs"]))
                if land["eflags"] & (EF_IOPL | EF_NT | EF_VM) or not land["eflags"] & EF_IF:
                    bad.append("%s: at the landing eflags %#x, expected IOPL 0, NT and VM "
                               "clear, IF set" % (FORGED[k], land["eflags"]))
                if land["ss"] != USER_DS or land["cs"] != USER_CS or \
                        land["ds"] not in (0, USER_DS) or land["es"] not in (0, USER_DS):
                    bad.append("%s: at the landing cs %#x ss %#x ds %#x es %#x, expected the "
                               "user selectors" % (FORGED[k], land["cs"], land["ss"], land["ds"],
                                                   land["es"]))
            if k not in self.ends and k not in self.oops:
                why = "; " + self.err.splitlines()[0] if self.err else ""
                if self.oops:
                    why = "; the run stopped at the oops of an earlier forged frame (%s)" \
                        % FORGED.get(self.oops[0], self.oops[0])
                bad.append("%s: the child's end never reported%s" % (FORGED[k], why))
        return bad


def forgery(ctx):
    return watched(ctx, Forgery)


def refused_or_landed(f, k, must_land=False):
    """A forged frame's child: SIGSEGV (refused), or it landed (then its
    landing was graded by problems())."""
    status = f.ends.get(k)
    if status is None:
        return []
    if k in f.landed:
        return []
    if must_land:
        return ["%s: expected the child to land with the flags cleaned (only the bits ring 3 "
                "may set are taken), found it never landed (status %#x)" % (FORGED[k], status)]
    if status & 0x7F != SIGSEGV:
        return ["%s: expected the frame refused (SIGSEGV) or the child landing in ring 3, found "
                "status %#x" % (FORGED[k], status)]
    return []


@check(points=10, name="forged frames with a kernel cs (0x08, or RPL 0) or ss: never ring 0 "
       "(gdbstub at the landing: cs & 3 == 3), no oops (gdbstub at die()), the shell answers",
       steps=[CS_SS])
def forged_cs_ss(ctx):
    prog, f = forgery(ctx)
    bad = f.problems("crs")
    for k in "crs":
        bad += refused_or_landed(f, k)
    fail_if(bad)


@check(points=5, name="forged frames with a kernel data selector, one each in ds, es, fs and gs: "
       "refused or never loaded, no oops (gdbstub at die())", steps=[DATA])
def forged_data(ctx):
    prog, f = forgery(ctx)
    bad = f.problems("DEFG")
    for k in "DEFG":
        bad += refused_or_landed(f, k)
    fail_if(bad)


@check(points=10, name="forged EFLAGS (IOPL 3 and NT; VM): the child lands in ring 3 with IOPL 0, "
       "NT and VM clear, IF set (gdbstub at the landing)", steps=[EFLAGS])
def forged_eflags(ctx):
    prog, f = forgery(ctx)
    bad = f.problems("ev")
    for k in "ev":
        bad += refused_or_landed(f, k, must_land=True)
    fail_if(bad)


@check(points=5, name="a forged uc_sigmask with every signal: after the return SIGKILL and "
       "SIGSTOP are not blocked, every other one is (sigprocmask, read at the landing)",
       steps=[NOKILL, MASKBACK])
def forged_mask(ctx):
    prog, f = forgery(ctx)
    bad = f.problems("m")
    m = f.masks.get("m")
    want = ((1 << 64) - 1) & ~(1 << (SIGKILL - 1)) & ~(1 << (SIGSTOP - 1))
    if m is None:
        bad.append("%s: the child never reported its mask after the return" % FORGED["m"])
    elif m[0] | m[1] << 32 != want:
        bad.append("%s: after the return %#x blocked, expected %#x (all but SIGKILL and SIGSTOP)"
                   % (FORGED["m"], m[0] | m[1] << 32, want))
    fail_if(bad)


@check(points=5, name="a signal taken 256 bytes above the alternate stack's bottom: the frame is "
       "refused (SIGSEGV), never written below the stack (gdbstub at the handler)",
       steps=[OVERFLOW])
def alt_overflow(ctx):
    prog, f = forgery(ctx)
    bad = f.problems("o")
    h = f.handler.get("o", [])
    if not h:
        bad.append("the first signal of the child (its SA_ONSTACK handler, not on the alternate "
                   "stack yet): expected the handler to run, found it never did")
    elif not h[0][1] <= h[0][0]["esp"] < h[0][2]:
        bad.append("the first signal of the child: the handler ran with esp %#x, expected it on "
                   "the alternate stack %#x..%#x" % (h[0][0]["esp"], h[0][1], h[0][2]))
    for r, lo, hi in h[1:]:
        bad.append("%s: the handler ran with esp %#x: the frame went below the alternate stack "
                   "(%#x..%#x)" % (FORGED["o"], r["esp"], lo, hi))
    status = f.ends.get("o")
    if status is not None and status & 0x7F != SIGSEGV:
        bad.append("%s: expected the child killed by SIGSEGV, found status %#x"
                   % (FORGED["o"], status))
    fail_if(bad)
