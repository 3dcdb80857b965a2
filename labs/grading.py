# SPDX-License-Identifier: GPL-2.0-only
"""The library every labs/<lab>/checks.py imports; tools/lab.py runs it.

A lab's checks.py is a list of graded checks, in the order they print:

    from grading import check, CheckFailed, expect_pages, expect_ktap

    @check(points=5, name="text is RO+X in the real page tables")
    def text_ro_x(ctx):
        g = ctx.boot()                  # booted once per grade run and options
        expect_pages(ctx, g, "_text", "_etext", "RO+X")
        expect_ktap(g, "image", ["write_to_text_faults"])

A check passes (full points) if it returns, fails (0 points) if it raises
CheckFailed("expected ..., found ..."); any other exception, a boot that
never reaches the prompt or a kernel panic also scores 0, with the reason
and the end of the serial log, and grading goes on.

ctx (Context), one per `make grade` run, shared by every lab graded in it:
    ctx.boot(cmdline="", cpu=CPU_NX, memory="128M", iso=False, initrd=None, tag="",
             smp=1)
                        -> Boot: a -kernel boot (with build/initrd.cpio
                        unless initrd names another, with smp CPUs) up to
                        the first `ronx> ` prompt; cached per options, so checks that
                        boot alike share one QEMU; a boot that failed is not
                        retried (every check using it fails with its reason).
                        Checks that change the kernel's state (load modules,
                        patch text) pass their own tag and get their own boot
    ctx.syms            {symbol: address} from nm build/kernel.elf
    ctx.elf             path of build/kernel.elf (for readelf checks)
    ctx.root            the tree being graded
    ctx.sym(name)       one address, CheckFailed if the symbol is missing
    ctx.where(va)       "0xc0101000 (_text+0x1000)" for failure messages

g (Boot):
    g.pt                tlb.PageTables from QEMU's `info tlb`, read at the
                        prompt before any command ran; g.tlb() reads them now
    g.log               the serial output up to the first prompt
    g.sh("lsmod")       run one shell command, return what it printed (a
                        command that times out marks the boot dead: the next
                        ctx.boot() with the same options boots afresh)
    g.ktap("image")     `selftest image` -> {case: (ok, diagnostic)};
                        a skipped case is (False, "skipped: reason");
                        g.ktap(suite, timeout=N) for a suite slower than 30 s
    g.monitor("info registers")    one QEMU monitor command

Helpers that raise CheckFailed with what was expected and what was found:
    expect_pages(ctx, g, start, end, "RO+NX")   every page in [start, end)
                        (symbols or addresses); also "RO", "NX", "RW", "X"
    expect_ktap(g, suite, cases=None)   the named cases (or all) pass

Checks that are only "these self-tests pass" or "these ranges have these
permissions" are one call each:
    ktap_check(10, "a split copies the attributes", "pageattr", ["split_keeps_attributes"])
    pages_check(5, "text RO with rodata=on", [("_text", "_etext", "RO", ".text")],
                cmdline="rodata=on")
    expect_log(g, regex, what)          the boot log has a line matching

Output of `make grade [LAB=...]`: one line per check,
    "  PASS  10/10  <lab>: <name>"  or  "  FAIL   0/10  <lab>: <name>"
then, for a failure, indented lines saying what was expected and found;
the last line is "Score: N/M". build/grade/results.json holds the same in
Gradescope's autograder format: {"score", "output", "execution_time",
"tests": [{"name", "score", "max_score", "status", "output"}...]}.
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))

from guest import CPU_NX, CPU_NO_NX, PANIC, Guest, GuestError  # noqa: E402,F401
from ktap import parse  # noqa: E402
from tlb import PageTables, kernel_symbols  # noqa: E402

_registry = []


class CheckFailed(Exception):
    """A graded check did not hold; the message says expected vs found."""


def check(points, name):
    """Registers the decorated function as a graded check of its lab."""
    def register(fn):
        _registry.append((name, points, fn))
        return fn
    return register


def ktap_check(points, name, suite, cases=None, cmdline=""):
    """Registers a check that passes if the kernel's own KTAP cases of
    suite (all of them if cases is None) pass in the boot with cmdline."""
    def run(ctx):
        expect_ktap(ctx.boot(cmdline=cmdline), suite, cases)
    run.__name__ = "ktap_" + suite
    _registry.append((name, points, run))


def pages_check(points, name, ranges, **boot):
    """Registers a check that, in ctx.boot(**boot), every page of each
    (start, end, want, what) range has the permission want (info tlb)."""
    def run(ctx):
        g = ctx.boot(**boot)
        for start, end, want, what in ranges:
            expect_pages(ctx, g, start, end, want, what)
    run.__name__ = "pages"
    _registry.append((name, points, run))


def take_registered():
    """The checks registered since the last call (one checks.py's)."""
    got = list(_registry)
    del _registry[:]
    return got


class Boot:
    """One QEMU boot at the shell prompt."""

    def __init__(self, guest):
        self.guest = guest
        self.log = guest.wait_ready()
        self.pt = PageTables(guest.monitor("info tlb"))
        self._ktap = {}
        self.dead = False

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

    def ktap(self, suite, timeout=30):
        if suite not in self._ktap:
            out = self.sh("selftest " + suite, timeout)
            cases = {}
            for s, name, status, detail in parse(out):
                if s == suite:
                    # "# EXPECTATION FAILED at f.c:12: msg | ..." -> "f.c:12: msg | ..."
                    detail = re.sub(r"(^|\| )# (EXPECTATION FAILED at )?", r"\1", detail)
                    cases[name] = (status == "ok",
                                   "skipped: " + detail if status == "skip" else detail)
            if not cases:
                raise CheckFailed("expected KTAP results from `selftest %s`, found:\n%s"
                                  % (suite, out[-600:]))
            self._ktap[suite] = cases
        return self._ktap[suite]

    def tlb(self):
        """The page tables now (g.pt is as they were at the prompt)."""
        return PageTables(self.monitor("info tlb"))

    def tail(self, n=1200):
        return self.guest.out[-n:]


class Context:
    def __init__(self, root=ROOT):
        self.root = root
        self.elf = os.path.join(root, "build", "kernel.elf")
        self._syms = None
        self._boots = {}

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
        best = None
        lo, hi = self.syms.get("_text", 0), self.syms.get("_end", 1 << 32)
        for name, a in self.syms.items():
            # only the image's symbols: nm also lists constants (EFER = 0xc0000080)
            if lo <= a < hi and a <= va and va - a < 1 << 20 and (best is None or a > best[1] or
                                                 (a == best[1] and name < best[0])):
                best = (name, a)
        if best is None:
            return "0x%08x" % va
        off = va - best[1]
        return "0x%08x (%s%s)" % (va, best[0], "+0x%x" % off if off else "")

    def boot(self, cmdline="", cpu=CPU_NX, memory="128M", iso=False, initrd=None, tag="",
             smp=1):
        key = (cmdline, cpu, memory, iso, initrd, tag, smp)
        got = self._boots.get(key)
        if isinstance(got, Boot) and not got.alive():
            got.guest.close()
            got = None
        if got is None:
            name = "grade-%s%s-%s%s" % (tag + "-" if tag else "", cmdline or "default",
                                         "nx" if cpu == CPU_NX else "cpu",
                                         "-smp%d" % smp if smp > 1 else "")
            guest = Guest(re.sub(r"[^\w.=-]", "_", name), cmdline=cmdline, cpu=cpu,
                          memory=memory, iso=iso, initrd=initrd,
                          extra=["-smp", str(smp)] if smp > 1 else []).start()
            try:
                got = Boot(guest)
            except GuestError as e:
                guest.close()
                got = "the kernel did not reach the shell prompt (boot %s): %s" % (
                    cmdline or "default", e)
            self._boots[key] = got
        if isinstance(got, str):
            raise CheckFailed(got)
        return got

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


def run_check(ctx, lab, name, points, fn):
    t0 = time.monotonic()
    try:
        fn(ctx)
        score, out = points, ""
    except CheckFailed as e:
        score, out = 0, str(e)
    except GuestError as e:
        score, out = 0, "the kernel stopped answering: %s" % e
    except Exception as e:  # a crashing check scores 0 and grading goes on
        score, out = 0, "the check crashed: %s: %s" % (type(e).__name__, e)
    return Outcome(lab, name, points, score, out, time.monotonic() - t0)


def gradescope(outcomes, seconds):
    """The results.json Gradescope's autograder reads."""
    score = sum(o.score for o in outcomes)
    total = sum(o.points for o in outcomes)
    return {
        "score": score,
        "execution_time": int(round(seconds)),
        "output": "Score: %d/%d" % (score, total),
        "tests": [{"name": "%s: %s" % (o.lab, o.name), "score": o.score,
                   "max_score": o.points,
                   "status": "passed" if o.score == o.points else "failed",
                   "output": o.output} for o in outcomes],
    }
