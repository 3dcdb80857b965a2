# SPDX-License-Identifier: GPL-2.0-only
"""The library every labs/<lab>/checks.py imports; tools/lab.py runs it.

A lab is three files (docs/labs/README.md has the whole recipe):

    labs/<lab>/strip       what lab-start strips: "<path> <function> <hint>"
                           lines; the paths are the lab's files, the only
                           ones a submission's grade takes from it
    labs/<lab>/checks.py   the lab's steps and graded checks (below)
    labs/<lab>/wrong/*.patch   one plausible wrong solution per step, at least

checks.py declares the steps of its strip lines (each verb of a hint is a
step) and the checks, in the order they print:

    from grading import check, step, CheckFailed, expect_pages, expect_ktap

    TEXT_RO = step("mark_rodata_ro", "text RO", wrong="text-left-rw")

    @check(points=5, name="text is RO+X in the real page tables", steps=[TEXT_RO])
    def text_ro_x(ctx):
        g = ctx.boot()                  # booted once per grade run and options
        expect_pages(ctx, g, "_text", "_etext", "RO+X")
        expect_ktap(g, "image", ["write_to_text_faults"])

step(function, name, wrong, why=None): function is the strip line's target,
wrong the labs/<lab>/wrong/<wrong>.patch that leaves out exactly this step
(the test of the grader proves that one of the checks listing the step
fails in it). A step no observer can tell apart gets wrong=None and why=.

A check passes (full points) if it returns, fails (0 points) if it raises
CheckFailed("expected ..., found ..."); any other exception, a boot that
never reaches the prompt or a kernel panic also scores 0, with the reason
and the end of the serial log, and grading goes on. A check whose boots
printed the stub line of a function one of its steps belongs to ("ronx:
lab LAB: FN() is not written yet") scores 0 whatever else it saw.

ctx (Context), one per grade run of one tree, shared by the labs graded in it:
    ctx.boot(cmdline="", cpu=CPU_NX, memory="128M", iso=False, initrd=None, tag="",
             smp=1)
                        -> Boot: a -kernel boot (with build/initrd.cpio
                        unless initrd names another, with smp CPUs) up to
                        the first `ronx> ` prompt; cached per options, so checks that
                        boot alike share one QEMU; a boot that failed is not
                        retried (every check using it fails with its reason).
                        Checks that change the kernel's state (load modules,
                        patch text) pass their own tag and get their own boot
    ctx.rng("scenario") a random.Random from the grade's seed and the
                        scenario's name alone: where to plant W+X pages,
                        which pages to change, which order to load modules
                        in. The seed is printed; SEED=N repeats a grade
    ctx.syms            {symbol: address} from nm build/kernel.elf
    ctx.elf             path of build/kernel.elf (for readelf checks)
    ctx.root            the tree being graded (a scratch tree for a submission)
    ctx.sym(name)       one address, CheckFailed if the symbol is missing
    ctx.where(va)       "0xc0101000 (_text+0x1000)" for failure messages
    ctx.teacher_tests() {suite: [names]}: the KTEST table of the teacher's
                        build/kernel.elf (Context(..., teacher=TREE))

g (Boot):
    g.pt                tlb.PageTables from QEMU's `info tlb`, read at the
                        prompt before any command ran; g.tlb() reads them now
    g.log               the serial output up to the first prompt
    g.sh("lsmod")       run one shell command, return what it printed (a
                        command that times out marks the boot dead: the next
                        ctx.boot() with the same options boots afresh)
    g.ktap("image")     `selftest image` -> {case: (ok, diagnostic)};
                        a skipped case is (False, "skipped: reason");
                        g.ktap(suite, timeout=N) for a suite slower than 30 s.
                        Read from port 0xe9 (QEMU's -debugcon: only
                        kernel/selftest/ktest.c writes there), never the console,
                        and held to the teacher's list of the suite
                        (ctx.teacher_tests(), from the teacher's kernel.elf):
                        a duplicate, missing or extra name or another plan
                        fails every check reading the suite
    g.monitor("info registers")    one QEMU monitor command
    g.guest             the Guest (tests/qemu/guest.py); gdbstub.GdbStub(g.guest)
                        stops it at an address (labs/module-lifecycle)

Helpers that raise CheckFailed with what was expected and what was found:
    expect_pages(ctx, g, start, end, "RO+NX")   every page in [start, end)
                        (symbols or addresses); also "RO", "NX", "RW", "X"
    expect_ktap(g, suite, cases=None)   the named cases (or all) pass

Checks that are only "these self-tests pass" or "these ranges have these
permissions" are one call each:
    ktap_check(10, "a split copies the attributes", "pageattr", ["split_keeps_attributes"],
               steps=[SPLIT])
    pages_check(5, "text RO with rodata=on", [("_text", "_etext", "RO", ".text")],
                steps=[TEXT_RO], cmdline="rodata=on")
    expect_log(g, regex, what)          the boot log has a line matching

Prefer what the kernel cannot make up: QEMU's view (info tlb, xp, the
monitor's registers, its gdbstub), the host's (nm, readelf, the module
layout from the .ko files: labs/modlab.py), and scenarios only the grade
knows (wxplant=, set_memory at pages from ctx.rng).

Output of a grade: "Seed: N ...", one line per check,
    "  PASS  10/10  <lab>: <name>"  or  "  FAIL   0/10  <lab>: <name>"
then, for a failure, indented lines saying what was expected and found;
the last line is "Score: N/M". results.json holds the same in
Gradescope's autograder format (gradescope() below), rewritten after
every check, so a grade cut short still has what it did.
"""
import os
import random
import re
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from guest import CPU_NX, CPU_NO_NX, PANIC, PROMPT, Guest, GuestError, echo_pattern, load_scaled  # noqa: E402,F401
from ktap import parse  # noqa: E402
from tlb import PageTables, kernel_symbols  # noqa: E402
import elf32  # noqa: E402

_registry = []
_steps = []
STUB_LINE = re.compile(r"^ronx: lab ([\w-]+): (\w+)\(\) is not written yet", re.M)


class CheckFailed(Exception):
    """A graded check did not hold; the message says expected vs found."""


class Step:
    """One thing a lab asks for: a verb of a strip line's hint (or the
    handout). function is the strip line's target (a C function, or a
    linker script section); wrong names labs/<lab>/wrong/<wrong>.patch,
    the solution that leaves out exactly this step. Checks say which
    steps they grade (check(..., steps=[...])); the test of the grader
    proves, per step, that one of those checks fails without it."""

    def __init__(self, function, name, wrong, why=None):
        self.function, self.name, self.wrong, self.why = function, name, wrong, why

    def __repr__(self):
        return "%s: %s" % (self.function, self.name)


class Check:
    def __init__(self, name, points, fn, steps):
        self.name, self.points, self.fn, self.steps = name, points, fn, tuple(steps)

    def __iter__(self):     # name, points, fn = check
        return iter((self.name, self.points, self.fn))


def step(function, name, wrong, why=None):
    """Declares a step of this lab (see Step) and returns it. A step no
    observer can tell from its absence has wrong=None and why= saying so:
    it is listed as not graded, never counted as proven."""
    s = Step(function, name, wrong, why)
    _steps.append(s)
    return s


def check(points, name, steps=()):
    """Registers the decorated function as a graded check of its lab,
    grading the given steps."""
    def register(fn):
        _registry.append(Check(name, points, fn, steps))
        return fn
    return register


def ktap_check(points, name, suite, cases=None, cmdline="", steps=()):
    """Registers a check that passes if the kernel's own KTAP cases of
    suite (all of them if cases is None) pass in the boot with cmdline."""
    def run(ctx):
        expect_ktap(ctx.boot(cmdline=cmdline), suite, cases)
    run.__name__ = "ktap_" + suite
    _registry.append(Check(name, points, run, steps))


def pages_check(points, name, ranges, steps=(), **boot):
    """Registers a check that, in ctx.boot(**boot), every page of each
    (start, end, want, what) range has the permission want (info tlb)."""
    def run(ctx):
        g = ctx.boot(**boot)
        for start, end, want, what in ranges:
            expect_pages(ctx, g, start, end, want, what)
    run.__name__ = "pages"
    _registry.append(Check(name, points, run, steps))


def take_registered():
    """(checks, steps) registered since the last call (one checks.py's)."""
    got = (list(_registry), list(_steps))
    del _registry[:]
    del _steps[:]
    return got


def teacher_tests(elf):
    """{suite: [test names]} of the KTEST table (.ktests, between
    __start_ktests and __stop_ktests) of the kernel at elf: the teacher's
    self-tests, the only ones whose results count."""
    e = elf32.Elf32(elf)
    syms = {s.name: s.value for s in e.symbols() if s.name in ("__start_ktests",
                                                               "__stop_ktests")}
    if len(syms) != 2:
        raise CheckFailed("expected __start_ktests and __stop_ktests in %s, found %s"
                          % (elf, sorted(syms) or "neither"))
    out = {}
    for va in range(syms["__start_ktests"], syms["__stop_ktests"], 20):
        suite, name = struct.unpack("<II", e.read_va(va, 8))     # struct ktest's first two
        out.setdefault(e.cstring_at(suite), []).append(e.cstring_at(name))
    return out


def check_test_list(suite, got, want):
    """The results of `selftest suite` as port 0xe9 carried them against the
    teacher's list of the suite: [problems] (a duplicate, a missing or an
    extra name, a plan that is not the teacher's count)."""
    names = [n for n, _, _ in got["results"]]
    bad = []
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        bad.append("%s reported more than once: %s" % (", ".join(dup[:5]), "a result counts "
                                                       "once, for a test of the teacher's kernel"))
    extra = sorted(set(names) - set(want))
    if extra:
        bad.append("%s: not self-tests of the teacher's kernel" % ", ".join(extra[:5]))
    missing = [n for n in want if n not in names]
    if missing:
        bad.append("no result for %s%s" % (", ".join(missing[:5]),
                                             " and %d more" % (len(missing) - 5)
                                             if len(missing) > 5 else ""))
    if got["plan"] != len(want):
        bad.append("a plan of %s tests where the teacher's kernel has %d"
                   % (got["plan"], len(want)))
    if bad:
        return ["selftest %s: the results do not match the teacher's %d tests of the suite: %s"
                % (suite, len(want), "; ".join(bad))]
    return []


def port_ktap(text, suite):
    """{"plan": N or None, "results": [(name, status, detail)]} of suite in
    the KTAP text."""
    plan = None
    m = re.search(r"^\s*# Subtest: %s\n\s*1\.\.(\d+)$" % re.escape(suite), text, re.M)
    if m:
        plan = int(m.group(1))
    return {"plan": plan, "results": [(name, status, detail) for s, name, status, detail
                                      in parse(text) if s == suite]}


BOOT_SILENCE = 10     # seconds a booting kernel may print nothing before it counts as hung


def symbol_at(syms, va):
    """"name+0xoff" of the image's symbol nearest at or below va (name alone
    at its start), or None."""
    best = None
    lo, hi = syms.get("_text", 0), syms.get("_end", 1 << 32)
    for name, a in syms.items():
        # only the image's symbols: nm also lists constants (EFER = 0xc0000080)
        if lo <= a < hi and a <= va and va - a < 1 << 20 and (best is None or a > best[1] or
                                                             (a == best[1] and name < best[0])):
            best = (name, a)
    if best is None:
        return None
    off = va - best[1]
    return best[0] + ("+0x%x" % off if off else "")


class Stalled(GuestError):
    """wait_talking() gave up: quiet (nothing new for `silence` s) or not
    done within the timeout; seconds: how long it had been quiet."""
    def __init__(self, quiet, seconds, timeout):
        GuestError.__init__(self, "quiet for %d s" % seconds if quiet else
                            "not within %d s" % timeout)
        self.quiet, self.seconds, self.timeout = quiet, seconds, timeout


class Deadline(float):
    """A time.monotonic() instant; .seconds is the bound it ends, already
    stretched, for the message that says what was waited for."""


def deadline(seconds):
    """time.monotonic() seconds from now, stretched by the host's load
    (load_scaled()): a wait a check bounds ends no sooner on a busy
    machine, so the verdict does not depend on how busy it is."""
    bound = load_scaled(seconds)
    d = Deadline(time.monotonic() + bound)
    d.seconds = bound
    return d


def wait_talking(guest, pattern, start, timeout, silence, said, stretch_silence=True):
    """guest.wait_for(pattern) for as long as the guest keeps saying
    something new in said() (the serial log, the KTAP port): a kernel that
    hangs costs `silence` seconds, not the whole timeout. Both are
    stretched by the host's load (the silence unless stretch_silence is
    False); a hang fails with either (Stalled)."""
    timeout = load_scaled(timeout)
    silence = load_scaled(silence) if stretch_silence else silence
    give_up = time.monotonic() + timeout
    seen, since = -1, time.monotonic()
    while True:
        try:
            return guest.wait_for(pattern, timeout=1, start=start)
        except GuestError:
            if guest.proc.poll() is not None or PANIC in guest.out:
                raise
        now, text = time.monotonic(), said()
        if len(text) != seen:
            seen, since = len(text), now
        if now - since >= silence or now >= give_up:
            raise Stalled(now - since >= silence, now - since, timeout)


def wait_ready(guest, timeout=30, silence=BOOT_SILENCE):
    """guest.wait_ready(), but a boot that prints nothing for `silence`
    seconds before its prompt is taken as hung at once (a healthy boot
    prints all along and is at its prompt in a second or two). The silence
    is not stretched by load: no healthy boot has come near it, and every
    hung boot of a class would pay the stretch (94 s at load 18)."""
    try:
        wait_talking(guest, r"^ronx: ready$", 0, timeout, silence, lambda: guest.out,
                     stretch_silence=False)
    except Stalled as e:
        raise GuestError("%s: no 'ronx: ready' line: %s; last output:\n%s"
                         % (guest.name, "the boot printed nothing for %ds" % e.seconds
                            if e.quiet else "not within %ds" % e.timeout, guest.out[-1500:]))
    return guest.wait_ready()


class Boot:
    """One QEMU boot at the shell prompt."""

    def __init__(self, guest, tests=None):
        self.guest = guest
        self.log = wait_ready(guest)
        self.pt = PageTables(guest.monitor("info tlb"))
        self._ktap = {}
        self.dead = False
        self.tests = tests      # () -> the teacher's {suite: [names]}; None: any

    def alive(self):
        return not self.dead and self.guest.proc.poll() is None and PANIC not in self.guest.out

    def sh(self, line, timeout=30):
        """One shell command; a kernel that stops answering is booted
        again for the next check instead of timing out on every one."""
        try:
            return self.guest.command(line, timeout)
        except GuestError:
            self.dead = True
            raise

    def monitor(self, cmd):
        return self.guest.monitor(cmd)

    def sh_while_ktap(self, line, timeout, stall):
        """sh(line) for a self-test suite that writes a KTAP line to port 0xe9
        after each test: a kernel stuck in one test (a CPU looping on a
        range read from a stack frame that is gone) is told after `stall`
        seconds with no new line, not after the whole suite's `timeout`.
        Both are stretched by the host's load; a hang fails with either."""
        g = self.guest
        stall = float(os.environ.get("RONX_GRADE_STALL") or stall)  # tests/labs: a short one
        with g.lock:
            start = len(g.out)
        g.send(line.encode() + b"\r")
        try:
            echo = g.wait_for(echo_pattern(line), timeout, start)
            m = wait_talking(g, "^" + re.escape(PROMPT), echo.end(), timeout, stall,
                             g.debugcon_text)
            return g.out[echo.end():m.start()]
        except Stalled as e:
            self.dead = True
            last = [x.strip() for x in g.debugcon_text().splitlines() if x.strip()][-1:]
            raise GuestError("`%s`: %s after %r; the CPUs were at %s"
                             % (line, "no KTAP line for %d s" % e.seconds if e.quiet
                                else "not ended in %d s" % e.timeout,
                                (last or ["nothing"])[0], self.where_cpus()))
        except GuestError:
            self.dead = True
            raise

    def where_cpus(self):
        """Each CPU's eip as a kernel symbol+offset (QEMU's `info registers`)."""
        try:
            cpus = re.findall(r"CPU #(\d+):", self.monitor("info cpus"))
            pcs = [(c, re.search(r"EIP=([0-9a-f]+)", self.guest.monitor("info registers",
                                                                         cpu=int(c))).group(1))
                   for c in cpus]
            syms = self.guest.symbols()
        except (GuestError, OSError) as e:
            return "(QEMU did not say: %s)" % e
        return ", ".join("CPU %s %s" % (cpu, symbol_at(syms, int(pc, 16)) or "0x" + pc)
                         for cpu, pc in pcs) or "(no CPU in `info cpus`)"

    def ktap(self, suite, timeout=30, stall=None):
        """`selftest suite`'s results as kernel/selftest/ktest.c wrote them to port
        0xe9 (never what the console shows: code under test can print
        there), checked against the teacher's list of the suite's tests.
        stall: fail once no test has ended for that many seconds."""
        if suite not in self._ktap:
            port = getattr(self.guest, "debugcon", False)   # a Guest made with debugcon=True
            start = len(self.guest.debugcon_text()) if port else 0
            if stall and port:
                out = self.sh_while_ktap("selftest " + suite, timeout, stall)
            else:
                out = self.sh("selftest " + suite, timeout)
            text = self.guest.debugcon_text()[start:] if port else out
            got = port_ktap(text, suite)
            if not got["results"]:
                raise CheckFailed("expected KTAP results of `selftest %s` on port 0xe9 "
                                  "(kernel/selftest/ktest.c writes them there), found none; the console "
                                  "showed:\n%s" % (suite, out[-600:]))
            want = self.tests() if self.tests else None
            if want is not None:
                if suite not in want:
                    raise CheckFailed("expected a suite %s in the teacher's kernel, found none"
                                      % suite)
                bad = check_test_list(suite, got, want[suite])
                if bad:
                    self._ktap[suite] = bad[0]
            if suite not in self._ktap:
                cases = {}
                for name, status, detail in got["results"]:
                    # "# EXPECTATION FAILED at f.c:12: msg | ..." -> "f.c:12: msg | ..."
                    detail = re.sub(r"(^|\| )# (EXPECTATION FAILED at )?", r"\1", detail)
                    cases[name] = (status == "ok",
                                   "skipped: " + detail if status == "skip" else detail)
                self._ktap[suite] = cases
        if isinstance(self._ktap[suite], str):
            raise CheckFailed(self._ktap[suite])
        return self._ktap[suite]

    def tlb(self):
        """The page tables now (g.pt is as they were at the prompt)."""
        return PageTables(self.monitor("info tlb"))

    def tail(self, n=1200):
        return self.guest.out[-n:]


class Context:
    """One grade run of one tree: its build/, its boots, its seed."""

    def __init__(self, root=ROOT, seed=0, teacher=None):
        self.root = root
        self.build = os.path.join(root, "build")
        self.elf = os.path.join(self.build, "kernel.elf")
        self.seed = seed
        # the teacher's tree (its build/kernel.elf's KTEST table is the list
        # of self-tests whose results count); default: the tree graded
        self.teacher_elf = os.path.join(teacher or root, "build", "kernel.elf")
        self._tests = None
        self._syms = None
        self._boots = {}
        self._used = []         # the boots the running check asked for

    def teacher_tests(self):
        """{suite: [names]}: the teacher's self-tests (teacher_tests())."""
        if self._tests is None:
            self._tests = teacher_tests(self.teacher_elf)
        return self._tests

    def rng(self, key):
        """A random.Random for one scenario, from the run's seed and the
        scenario's name alone: the same seed gives every check the same
        scenario whatever ran before it (a class grades like one)."""
        return random.Random("%s/%s" % (self.seed, key))

    @property
    def syms(self):
        if self._syms is None:
            self._syms = kernel_symbols(self.elf)
        return self._syms

    def sym(self, name):
        if name not in self.syms:
            raise CheckFailed("expected a symbol %s in build/kernel.elf, found none" % name)
        return self.syms[name]

    def where(self, va):
        """va with the nearest symbol at or below it, for messages."""
        at = symbol_at(self.syms, va)
        return "0x%08x (%s)" % (va, at) if at else "0x%08x" % va

    def boot(self, cmdline="", cpu=CPU_NX, memory="128M", iso=False, initrd=None, tag="",
             smp=1):
        # The handouts print the fixed layout (0x40000000, the stack at
        # 0xbffe0000) and the checks compute from it: labs boot norandmaps.
        cmdline = (cmdline + " norandmaps").strip()
        key = (cmdline, cpu, memory, iso, initrd, tag, smp)
        got = self._boots.get(key)
        if isinstance(got, Boot) and not got.alive():
            self._used.append(got.guest)    # its last words still count
            got.guest.close()
            got = None
        if got is None:
            name = "grade-%s%s-%s%s" % (tag + "-" if tag else "", cmdline or "default",
                                         "nx" if cpu == CPU_NX else "cpu",
                                         "-smp%d" % smp if smp > 1 else "")
            guest = Guest(re.sub(r"[^\w.=-]", "_", name)[:120], cmdline=cmdline, cpu=cpu,
                          memory=memory, iso=iso, initrd=initrd, build=self.build,
                          extra=["-smp", str(smp)] if smp > 1 else [],
                          debugcon=True).start()
            self._used.append(guest)
            try:
                got = Boot(guest, self.teacher_tests)
            except GuestError as e:
                guest.close()
                got = "the kernel did not reach the shell prompt (boot %s): %s" % (
                    cmdline or "default", e)
            self._boots[key] = got
        if isinstance(got, str):
            raise CheckFailed(got)
        self._used.append(got.guest)
        return got

    def stubs_seen(self, lab):
        """The functions of lab whose stub line ("ronx: lab LAB: FN() is
        not written yet") a boot the running check used has printed."""
        return {fn for g in self._used for lab_, fn in STUB_LINE.findall(g.out) if lab_ == lab}

    def close(self):
        for b in self._boots.values():
            if isinstance(b, Boot):
                b.guest.close()
        self._boots.clear()


def _addr(ctx, x):
    return ctx.sym(x) if isinstance(x, str) else x


def _describe(m):
    if m is None:
        return "not mapped"
    return "%s%s%s" % (m.perm(), " GLB" if m.glb else "", " 2M" if m.pse else " 4K")


def xp_byte(g, va):
    """The byte at kernel address va (in the direct map), read by QEMU's xp
    from physical memory: what is there, whatever the kernel says."""
    out = g.monitor("xp /1bx 0x%x" % (va - 0xC0000000))
    m = re.search(r":\s*0x([0-9a-f]+)", out)
    if not m:
        raise CheckFailed("expected QEMU's xp to read 0x%08x, found: %r" % (va, out))
    return int(m.group(1), 16)


def expect_pages(ctx, g, start, end, want, what=None):
    """Every 4 KiB page in [start, end) has the permission want: "RO+X",
    "RW+NX", ... or one half of it ("RO", "NX"); start and end may be
    symbol names; g is a Boot (its g.pt) or PageTables (e.g. g.tlb())."""
    pt = g if isinstance(g, PageTables) else g.pt
    lo, hi = _addr(ctx, start), _addr(ctx, end)
    what = what or ("%s..%s" % (start, end) if isinstance(start, str) else "range")
    parts = want.split("+")
    bad = []
    for va, m in pt.pages(lo, hi):
        if m is None or any(p not in m.perm().split("+") for p in parts):
            bad.append((va, m))
    if bad:
        lines = ["expected %s for every page of %s (0x%08x-0x%08x); %d of %d pages differ:"
                 % (want, what, lo, hi, len(bad), max(1, (hi - lo + 4095) // 4096))]
        lines += ["  %s: found %s" % (ctx.where(va), _describe(m)) for va, m in bad[:4]]
        if len(bad) > 4:
            lines.append("  ... and %d more" % (len(bad) - 4))
        raise CheckFailed("\n".join(lines))


def expect_ktap(g, suite, cases=None):
    """The kernel's own tests: the named cases of suite (all if None) pass."""
    res = g.ktap(suite)
    names = cases if cases is not None else sorted(res)
    bad = []
    for n in names:
        if n not in res:
            bad.append("%s.%s: expected a result, found none (not in this kernel?)" % (suite, n))
        elif res[n][1].startswith("skipped"):
            bad.append("%s.%s: expected ok, found %s" % (suite, n, res[n][1]))
        elif not res[n][0]:
            diag = [d for d in res[n][1].split(" | ") if d]
            more = ["  ... and %d more" % (len(diag) - 4)] if len(diag) > 4 else []
            bad.append("\n".join(["%s.%s: expected ok, found not ok%s" % (
                suite, n, ":" if diag else "")] + ["  " + d for d in diag[:4]] + more))
    if bad:
        raise CheckFailed("\n".join(bad))


def expect_log(g, regex, what):
    if not re.search(regex, g.log, re.M):
        raise CheckFailed("expected the boot log to show %s (/%s/), found no such line"
                          % (what, regex))


def readelf(ctx, *args):
    return subprocess.run(["readelf", "-W"] + list(args) + [ctx.elf],
                          capture_output=True, text=True, check=True).stdout


class Outcome:
    def __init__(self, lab, name, points, score, output, seconds):
        self.lab, self.name, self.points = lab, name, points
        self.score, self.output, self.seconds = score, output, seconds

    def line(self):
        return "  %s %3d/%-3d %s: %s" % ("PASS" if self.score == self.points else "FAIL",
                                         self.score, self.points, self.lab, self.name)


def run_check(ctx, lab, c):
    """Runs check c; a check whose boots printed the stub line of a
    function it grades (one of its steps') scores 0 however it went."""
    t0 = time.monotonic()
    if ctx is not None:
        ctx._used = []
    try:
        c.fn(ctx)
        score, out = c.points, ""
    except CheckFailed as e:
        score, out = 0, str(e)
    except GuestError as e:
        score, out = 0, "the kernel stopped answering: %s" % e
    except Exception as e:  # a crashing check scores 0 and grading goes on
        score, out = 0, "the check crashed: %s: %s" % (type(e).__name__, e)
    if ctx is not None:
        stubs = sorted(ctx.stubs_seen(lab) & {s.function for s in c.steps})
        if stubs:
            said = "; ".join("ronx: lab %s: %s() is not written yet" % (lab, f) for f in stubs)
            out = "\n".join(x for x in ("a graded boot printed %s: the points of %s go"
                                        % (said, ", ".join(f + "()" for f in stubs)),
                                        out if score == 0 else "") if x)
            score = 0
    return Outcome(lab, c.name, c.points, score, out, time.monotonic() - t0)


def gradescope(outcomes, seconds, extra=None, output=""):
    """The results.json Gradescope's autograder reads (its documented
    fields: score, execution_time, output, visibility, stdout_visibility,
    extra_data, and tests, each with name, score, max_score, status,
    output, visibility)."""
    score = sum(o.score for o in outcomes)
    total = sum(o.points for o in outcomes)
    return {
        "score": score,
        "execution_time": int(round(seconds)),
        "output": "\n".join(x for x in (output, "Score: %d/%d" % (score, total)) if x),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": dict(extra or {}, max_score=total),
        "tests": [{"name": "%s: %s" % (o.lab, o.name), "score": o.score,
                   "max_score": o.points,
                   "status": "passed" if o.score == o.points else "failed",
                   "output": o.output, "visibility": "visible"} for o in outcomes],
    }
