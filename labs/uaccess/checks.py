# SPDX-License-Identifier: GPL-2.0-only
"""Lab 11, uaccess: the user-access layer - access_ok(), the copy with
its exception-table entry, copy_from_user/copy_to_user, get_user/put_user,
strncpy_from_user, and stac/clac around user access only (mm/uaccess.c).
See docs/labs/uaccess.md.

A test program (uaprobe.c, built at grade time) makes one system call
per run with a pointer the grader chose from the grade's seed: a kernel
address whose bytes the grader read from QEMU, a range ending at
TASK_SIZE or wrapping round, a string running into an unmapped page. The
grader checks what the call returned, that the kernel's memory did not
change (pmemsave before and after), and, stopped by QEMU's gdbstub on
every way back to ring 3, that EFLAGS.AC is clear."""
import os
import re
import struct

from grading import CPU_NX, CheckFailed, check, expect_ktap, step
from userlab import CPU_SMAP, TASK_SIZE, build_program, initrd_with, read_phys, work_dir
from watch import Watch, syscalls

LAB = "uaccess"
HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = re.compile(r"^uaprobe: (\w+)\(0x([0-9a-f]+), (\d+)\) = (-?\w+)$", re.M)
X86_EFLAGS_AC, X86_CR4_SMAP = 1 << 18, 1 << 21
# the loop's end: its last line, or the shell's report (under any name: it renames itself)
ENDED = re.compile(r"^(uaprobe: loop done|\[\d+\] \S+: (exit status|killed by).*)$", re.M)

# -- the steps: each verb of labs/uaccess/strip's hints --------------------
WHOLE = step("access_ok", "the whole range, not only its start", wrong="access-ok-start-only")
UP_TO = step("access_ok", "a range may end exactly at TASK_SIZE", wrong="access-ok-below")
NO_WRAP = step("access_ok", "no wrap-around", wrong="access-ok-wraps")
STAC = step("__copy_user", "stac before the copy", wrong="no-stac")
EXTABLE = step("__copy_user", "rep movsb with an exception-table entry resuming after it",
               wrong="no-extable")
CLAC = step("__copy_user", "clac after the copy", wrong="no-clac")
LEFT = step("__copy_user", "return the bytes left (ecx)", wrong="copy-returns-zero")
CFU_CHECK = step("copy_from_user", "refuse unless access_ok()", wrong="cfu-no-access-ok")
CFU_ZERO = step("copy_from_user", "zero the bytes not copied", wrong="cfu-no-zero")
CTU_CHECK = step("copy_to_user", "refuse unless access_ok()", wrong="ctu-no-access-ok")
GU_CHECK = step("get_user_size", "access_ok() first", wrong="gu-no-access-ok")
GU_EFAULT = step("get_user_size", "-EFAULT if the copy faults", wrong="gu-fault-returns-0")
PU_CHECK = step("put_user_size", "access_ok() first", wrong="pu-no-access-ok")
PU_EFAULT = step("put_user_size", "-EFAULT if the copy faults", wrong="pu-fault-returns-0")
SN_STAC = step("strncpy_from_user", "stac before the loads", wrong="sn-no-stac")
SN_EXTABLE = step("strncpy_from_user", "each load with an exception-table entry",
                  wrong="sn-no-extable")
SN_COUNT = step("strncpy_from_user", "stop at the NUL (its length) or at count bytes (count)",
                wrong="sn-ignores-count")
SN_LIMIT = step("strncpy_from_user", "never reach TASK_SIZE", wrong="sn-no-task-size")
SN_CLAC = step("strncpy_from_user", "clac after the loads", wrong="sn-no-clac")
SN_FAULT_CLAC = step("strncpy_from_user", "on a fault: clac too", wrong="sn-no-clac-on-fault")
SN_EFAULT = step("strncpy_from_user", "on a fault: -EFAULT", wrong="sn-fault-returns-length")


# -- the program and its boot -------------------------------------------------
def program(ctx):
    """The initrd with the probe built for this grade (built once; its
    failure is said by every check that needs it)."""
    if getattr(ctx, "ualab_program", None) is None:
        try:
            d = work_dir(ctx, LAB)
            elf = build_program(ctx, os.path.join(d, "uaprobe"), [os.path.join(HERE, "uaprobe.c")],
                                os.path.join(ctx.root, "user", "user.ld"))
            ctx.ualab_program = (initrd_with(ctx, LAB, {"uaprobe": elf})[0], None)
        except CheckFailed as e:
            ctx.ualab_program = (None, str(e))
    initrd, failed = ctx.ualab_program
    if failed:
        raise CheckFailed(failed)
    return initrd


def boot(ctx, cpu=CPU_SMAP):
    return ctx.boot(initrd=program(ctx), cpu=cpu, tag=LAB)


NR = {"write": 4, "nanosleep": 162, "getcpu": 318, "setname": 172, "getname": 172,
      "sethostname": 74}
ERRNO = {14: "-EFAULT", 22: "-EINVAL", 9: "-EBADF"}


def probe(ctx, g, args):
    """Runs uaprobe ARGS: (its call's result as ring 3 received it, as text,
    or None; the whole output). The result is read by QEMU's gdbstub from
    the frame ret_from_trap returns with, not from what the program
    printed (that passes through copy_from_user(), this lab's code); the
    printed result must agree."""
    out, calls = syscalls(ctx, g, "run uaprobe " + args)
    call = args.split()[0]
    mine = [c for c in calls if c[0] == NR[call] and
            (call not in ("setname", "getname") or c[1] == (15 if call == "setname" else 16))]
    if call == "write":     # the probe's own write: fd 1, its length; printf's come after
        mine = [c for c in mine if c[1] == 1][:1]
    if not mine:
        return None, out
    r = mine[0][4]
    got = ERRNO.get(-r, "-%d" % -r) if -4096 < r < 0 else str(r)
    m = RESULT.search(out)
    if m and m.group(4) != got:
        return "%s (the program printed %s)" % (got, m.group(4)), out
    return got, out


def said(out):
    """What the run ended with, when it did not print its result."""
    for pat in (r"^BUG: .*$", r"^#PF: .*$", r"^\S+\[\d+\]: segfault at .*$", r"^traps: .*$",
                r"^ronx: \S+ dies .*$", r"^\[\d+\] \S+: .*$"):
        m = re.search(pat, out, re.M)
        if m:
            return m.group(0)
    return out.strip()[-300:]


def expect(ctx, g, args, want, what, bad, extra=None):
    """Runs uaprobe ARGS; appends to bad unless it printed = want (and
    extra, a regex, if given)."""
    got, out = probe(ctx, g, args)
    if got != want or (extra and not re.search(extra, out, re.M)):
        bad.append("%s (uaprobe %s): expected %s%s, found %s"
                   % (what, args, want, " and /%s/" % extra if extra else "",
                      got if got is not None else "no result: " + said(out)))
    return out


def oopses(g):
    m = re.search(r"Oopses:\s+(\d+)", g.sh("meminfo"))
    return int(m.group(1)) if m else -1


def word(r, lo, hi):
    return r.randrange(lo // 4, hi // 4) * 4


def name(r, n):
    return "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def kernel_target(ctx, g, r):
    """A word of writable kernel data no one reads: the domain name in
    kernel/utsname.c's `utsname` (its sixth field, 65 bytes in). Returns
    (address, its bytes now)."""
    va = ctx.sym("utsname") + 5 * 65 + word(r, 0, 48)
    return va, read_phys(g, va - TASK_SIZE, 16, work_dir(ctx, LAB))


def invalid_timespec(ctx, g, r):
    """An address in the kernel's rodata whose two words, read as a
    timespec, are invalid (tv_sec < 0, or tv_nsec outside [0, 1e9)): a
    nanosleep that read them would return EINVAL at once, never sleep."""
    start, end = ctx.sym("_etext"), ctx.sym("__end_rodata")
    for _ in range(20):
        base = word(r, start, end - 4096)
        data = read_phys(g, base - TASK_SIZE, 4096, work_dir(ctx, LAB))
        offs = [o for o in range(0, 4088, 4)
                if struct.unpack_from("<i", data, o)[0] < 0 or
                not 0 <= struct.unpack_from("<i", data, o + 4)[0] < 1000000000]
        if offs:
            return base + r.choice(offs)
    raise CheckFailed("the grader found no invalid timespec in the kernel's rodata")


# -- the checks ---------------------------------------------------------------
@check(points=10, name="good pointers work with SMAP on: write, nanosleep, getcpu, setname, getname",
       steps=[STAC, SN_STAC])
def good_pointers(ctx):
    g, r, bad = boot(ctx), ctx.rng("uaccess/good"), []
    text = name(r, r.randrange(8, 40))
    out = expect(ctx, g, "write buf:%d %d fill=%s" % (r.randrange(0, 4000), len(text), text),
                 str(len(text)), "write(1, a good buffer)", bad)
    if text not in out and not bad:
        bad.append("write(1, a good buffer): expected %r on the console, found:\n%s" % (text, out))
    expect(ctx, g, "nanosleep buf:%d" % word(r, 0, 4000), "0", "nanosleep({0, 1 ms})", bad)
    expect(ctx, g, "getcpu buf:%d" % word(r, 0, 4000), "0", "getcpu(a good pointer)", bad,
           r"^uaprobe: cpu 0$")
    nm = name(r, r.randrange(3, 15))
    off = r.randrange(0, 4000)
    expect(ctx, g, "setname buf:%d fillz=%s" % (off, nm), "0", "prctl(PR_SET_NAME)", bad,
           r'^uaprobe: name now "%s"$' % nm)
    expect(ctx, g, "getname buf:%d" % off, "0", "prctl(PR_GET_NAME)", bad, r'^uaprobe: got "uaprobe"$')
    host = name(r, r.randrange(1, 64))
    expect(ctx, g, "sethostname buf:%d %d fill=%s" % (r.randrange(0, 4000), len(host), host), "0",
           "sethostname(a good buffer)", bad, r"^uaprobe: nodename now %s$" % host.encode().hex())
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="access_ok(): into the kernel half, up to TASK_SIZE exactly, wrapping "
       "round, no bytes",
       steps=[WHOLE, UP_TO, NO_WRAP])
def ranges(ctx):
    g, r, bad = boot(ctx), ctx.rng("uaccess/ranges"), []
    n = r.randrange(4, 16)
    text = name(r, n)
    expect(ctx, g, "write top:%d %d fill=%s" % (n, n + r.randrange(1, 3000), text), "-EFAULT",
           "a buffer from the stack's top into the kernel half", bad)
    out = expect(ctx, g, "write top:%d %d fill=%s" % (n, n, text), str(n),
                 "a buffer ending exactly at TASK_SIZE", bad)
    if text not in out and not bad:
        bad.append("the buffer ending at TASK_SIZE: expected %r on the console" % text)
    # the buffer is above 0x08048000: an end below it is a wrap
    for k in (r.randrange(1, 4000), r.randrange(0x10000, 0x8000000)):
        expect(ctx, g, "write buf:%d wrap:0x%x" % (r.randrange(0, 64), k), "-EFAULT",
               "a length that wraps the range round to 0x%x" % k, bad)
    # a range of no bytes is a good range, wherever it is in user memory, up to TASK_SIZE
    expect(ctx, g, "write buf:%d 0" % r.randrange(0, 4000), "0", "write(1, a good buffer, 0)", bad)
    expect(ctx, g, "write top:0 0", "0", "write(1, TASK_SIZE, 0): no byte, ending at TASK_SIZE", bad)
    expect(ctx, g, "sethostname buf:%d 0" % r.randrange(0, 4000), "0", "sethostname(a good buffer, 0)",
           bad, r"^uaprobe: nodename now $")
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="kernel pointers are refused: write, sethostname, nanosleep, getcpu, getname "
       "get EFAULT, the kernel's memory unchanged",
       steps=[CFU_CHECK, GU_CHECK, PU_CHECK, CTU_CHECK])
def kernel_pointers(ctx):
    g, r, bad = boot(ctx), ctx.rng("uaccess/kernel"), []
    ro = word(r, ctx.sym("_etext"), ctx.sym("__end_rodata") - 256)
    expect(ctx, g, "write 0x%x %d" % (ro, r.randrange(16, 200)), "-EFAULT",
           "write(1, kernel rodata %s)" % ctx.where(ro), bad)
    ro = word(r, ctx.sym("_etext"), ctx.sym("__end_rodata") - 256)
    expect(ctx, g, "sethostname 0x%x %d" % (ro, r.randrange(4, 64)), "-EFAULT",
           "sethostname(kernel rodata %s)" % ctx.where(ro), bad)
    ts = invalid_timespec(ctx, g, r)
    expect(ctx, g, "nanosleep 0x%x" % ts, "-EFAULT", "nanosleep(kernel rodata %s)" % ctx.where(ts),
           bad)
    for call in ("getcpu", "getname"):
        va, before = kernel_target(ctx, g, r)
        expect(ctx, g, "%s 0x%x" % (call, va), "-EFAULT", "%s(kernel data %s)" % (call, ctx.where(va)),
               bad)
        after = read_phys(g, va - TASK_SIZE, 16, work_dir(ctx, LAB))
        if after != before:
            bad.append("%s(kernel data %s): the kernel's bytes changed: %s -> %s (pmemsave)"
                       % (call, ctx.where(va), before.hex(), after.hex()))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="faults are fixed up: a copy into a hole is a short count, get_user, "
       "put_user and copy_to_user there EFAULT, no oops", steps=[EXTABLE, LEFT, GU_EFAULT, PU_EFAULT])
def holes(ctx):
    g, r, bad = boot(ctx), ctx.rng("uaccess/holes"), []
    before = oopses(g)
    n = r.randrange(1, 60)
    text = name(r, n)
    expect(ctx, g, "write hole:%d %d fill=%s" % (n, n + r.randrange(1, 500), text), str(n),
           "write(1) of a buffer running into an unmapped page after %d bytes (its %d bytes "
           "on the console)" % (n, n), bad, re.escape(text))
    expect(ctx, g, "nanosleep hole:4", "-EFAULT", "nanosleep with tv_nsec on an unmapped page", bad)
    for hole in (0, 2):     # all 4 bytes unmapped; 2 mapped, then the hole
        expect(ctx, g, "getcpu hole:%d" % hole, "-EFAULT",
               "getcpu into an unmapped page (%d of its 4 bytes mapped)" % hole, bad)
    expect(ctx, g, "getname hole:%d" % r.randrange(1, 16), "-EFAULT",
           "PR_GET_NAME into a buffer running into an unmapped page", bad)
    after = oopses(g)
    if after != before:
        bad.append("expected no oops, found %d (meminfo's Oopses)" % (after - before))
    if bad:
        raise CheckFailed("\n".join(bad))


@check(points=15, name="strncpy_from_user(): count, the end of user memory, a fault in the string",
       steps=[SN_EXTABLE, SN_COUNT, SN_LIMIT, SN_EFAULT])
def strings(ctx):
    g, r, bad = boot(ctx), ctx.rng("uaccess/strings"), []
    before = oopses(g)
    text = name(r, 16)
    expect(ctx, g, "setname hole:16 fill=%s" % text, "0",
           "16 letters and no NUL before an unmapped page: PR_SET_NAME takes 15", bad,
           r'^uaprobe: name now "%s"$' % text[:15])
    n = r.randrange(3, 13)
    expect(ctx, g, "setname top:%d fill=%s" % (n, name(r, n)), "-EFAULT",
           "a string with no NUL before TASK_SIZE", bad)
    n = r.randrange(1, 13)
    expect(ctx, g, "setname hole:%d fill=%s" % (n, name(r, n)), "-EFAULT",
           "a string running into an unmapped page after %d bytes" % n, bad)
    # the edges: 15 letters, then the hole where the NUL would be (count is
    # 15: the 16th byte is never read) ...
    text = name(r, 15)
    expect(ctx, g, "setname hole:15 fill=%s" % text, "0",
           "15 letters and then an unmapped page: PR_SET_NAME takes all 15", bad,
           r'^uaprobe: name now "%s"$' % text)
    # ... a NUL as the last byte below TASK_SIZE, or the last before a hole
    for where in ("top", "hole"):
        n = r.randrange(2, 16)
        text = name(r, n - 1)
        expect(ctx, g, "setname %s:%d fillz=%s" % (where, n, text), "0",
               "%d letters and their NUL as the last byte before %s" %
               (n - 1, "TASK_SIZE" if where == "top" else "an unmapped page"), bad,
               r'^uaprobe: name now "%s"$' % text)
    # never a load at TASK_SIZE: QEMU's gdbstub watches the byte there
    n = r.randrange(3, 13)
    out, ev = Watch(ctx, g, faults=False, reads=[TASK_SIZE]).run(
        "run uaprobe setname top:%d fill=%s" % (n, name(r, n)))
    reads = [e for e in ev if e.kind == "read"]
    if reads:
        bad.append("a string with no NUL before TASK_SIZE: expected no read at TASK_SIZE "
                   "(0x%08x), found %d by the kernel (QEMU's gdbstub; the first at ip %s)"
                   % (TASK_SIZE, len(reads), ctx.where(reads[0].eip)))
    if oopses(g) != before:
        bad.append("expected no oops, found %d (meminfo's Oopses)" % (oopses(g) - before))
    if bad:
        raise CheckFailed("\n".join(bad))


def monitor_flags(g):
    """EFLAGS and CR4 from the monitor's register dump (info registers)."""
    out = g.monitor("info registers")
    efl, cr4 = re.search(r"\bEFL=([0-9a-f]+)", out), re.search(r"\bCR4=([0-9a-f]+)", out)
    if not efl or not cr4:
        raise CheckFailed("expected EFL= and CR4= in QEMU's info registers, found:\n" + out[:400])
    return int(efl.group(1), 16), int(cr4.group(1), 16)


@check(points=15, name="EFLAGS.AC is clear on every way back to ring 3 (QEMU's gdbstub at "
       "ret_from_trap), after good and faulting copies", steps=[CLAC, SN_CLAC, SN_FAULT_CLAC])
def ac_clear(ctx):
    from gdbstub import GdbStub
    g = boot(ctx)
    at = ctx.sym("ret_from_trap")
    rounds = 8
    stub = GdbStub(g.guest)
    seen, leaked = 0, []
    try:
        stub.break_at(at)
        start = len(g.guest.out)
        stub.cont()
        g.guest.send(b"run uaprobe loop %d\r" % rounds)
        for _ in range(3000):
            if not stub.wait_stop(10):
                break
            esp = stub.regs()["esp"]
            vector, cs = stub.read32(esp + 48), stub.read32(esp + 60) & 0xFFFF
            if vector == 0x80 and cs & 3 == 3:
                seen += 1
                eflags, cr4 = monitor_flags(g)
                if not cr4 & X86_CR4_SMAP:
                    raise CheckFailed("expected CR4.SMAP on in this boot (-cpu ...,+smap), "
                                      "found CR4=0x%x" % cr4)
                if eflags & X86_EFLAGS_AC:
                    leaked.append("system call returning %d at user ip 0x%08x"
                                  % (struct.unpack("<i", struct.pack("<I", stub.read32(esp + 44)))[0],
                                     stub.read32(esp + 56)))
            if ENDED.search(g.guest.out[start:]) or len(leaked) >= 4:
                break
            stub.cont()
    finally:
        stub.detach()
    g.guest.wait_for(r"\[\d+\] \S+: (exit status|killed by)", 20, start)
    g.sh("")
    if leaked:
        raise CheckFailed("expected EFLAGS.AC clear when the kernel returns to ring 3 (every "
                          "stac closed by a clac), found it set after:\n%s" % "\n".join(leaked[:4]))
    if seen < 5 * rounds:
        raise CheckFailed("expected to stop at the %d system calls' way back to ring 3, stopped "
                          "at %d:\n%s" % (5 * rounds, seen, g.guest.out[start:][-400:]))


@check(points=10, name="the kernel's own tests: uaccess (selftest)", steps=[CFU_ZERO, CLAC, SN_FAULT_CLAC])
def selftests(ctx):
    expect_ktap(boot(ctx), "uaccess")


@check(points=5, name="a CPU without SMAP: the same calls work (no stac or clac where they do not exist)",
       steps=[STAC])
def without_smap(ctx):
    g, r, bad = boot(ctx, cpu=CPU_NX), ctx.rng("uaccess/nosmap"), []
    text = name(r, r.randrange(8, 30))
    expect(ctx, g, "write buf:%d %d fill=%s" % (r.randrange(0, 4000), len(text), text),
           str(len(text)), "write(1, a good buffer)", bad)
    nm = name(r, r.randrange(3, 15))
    expect(ctx, g, "setname buf:0 fillz=%s" % nm, "0", "prctl(PR_SET_NAME)", bad,
           r'^uaprobe: name now "%s"$' % nm)
    if bad:
        raise CheckFailed("\n".join(bad))
