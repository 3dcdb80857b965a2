# SPDX-License-Identifier: GPL-2.0-only
"""Signal handlers on Linux's i386 ABI (issue 30, items 1-2): user/bin/sigtest
runs in ring 3 and reports each case in TAP (kill and tgkill to a handler,
the mask, SIGSEGV with si_code and si_addr repaired by its handler, the
x87 state across a handler, fork's inheritance, the old frame of a
handler without SA_SIGINFO and its sigreturn, forged rt_sigreturn and
sigreturn frames that must never gain ring 0 or IOPL, the alternate
stack: sigaltstack's errors, SA_ONSTACK, a stack overflow caught there,
nested frames that would overflow it; SA_RESTART, alarm, and
setitimer/getitimer on the one ITIMER_REAL timer). Every case is checked here by
its line; then, from outside, the kernel is intact (it still answers and
runs a program) and the forged frames' deaths are Linux's SIGSEGV. Once
with FXSR (fxsave frames) and once without (fnsave frames)."""
import re

from guest import CPU_NX, Guest
from userprog import check_tap_program

CPU_FSAVE = "qemu32,+nx,+pae,-fxsr,-sse,-sse2"
CASES = 36


def run_sigtest(t, lane, cpu):
    with Guest("signals " + lane, cpu=cpu) as g:
        g.wait_ready()
        out = g.command("run sigtest", timeout=120)
        check_tap_program(t, out, "sigtest", CASES, lane + ": ")
        t.check(re.search(r"^sigtest\[\d+\] overflowed sigaltstack$", out, re.M),
                "%s: the frame that would run off the alternate stack is refused with Linux's line"
                % lane, out)
        # sigtest also takes Linux's answers (SIGILL at the iret, a ds not loaded); ronx's is
        # stricter: the forged cs, ss and ds of each frame refused in the call, a line each
        for call in ("rt_sigreturn", "sigreturn"):
            n = len(re.findall(r"^sigtest\[\d+\] bad frame in %s frame:" % call, out, re.M))
            t.check(n == 3, "%s: 3 forged frames (cs, ss, ds) refused in %s with Linux's "
                    "bad-frame line (%d)" % (lane, call, n), out)
        t.check(not re.search(r"Oops|BUG|general protection fault.*kernel", out),
                "%s: no kernel oops on the forged frames" % lane, out)
        out = g.command("run hello")
        t.check("exit status 0" in out, "%s: the kernel still runs a program afterwards" % lane, out)


def test_signals_fxsave(t):
    run_sigtest(t, "fxsave", CPU_NX)


def test_signals_fsave(t):
    run_sigtest(t, "fnsave", CPU_FSAVE)
