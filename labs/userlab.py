# SPDX-License-Identifier: GPL-2.0-only
"""What the user-mode labs (process-pagetables, uaccess) share: a test
program built at grade time with the tree's own user library (make
user-prog), an initrd with it under bin/, a boot of their own, the
kernel's segfault line parsed, and a process stopped by QEMU while it
runs so that its page tables can be read from outside.

Nothing here asks the kernel what it did: the program's layout comes from
the ELF the grader linked, the page tables from QEMU (info tlb, xp), the
fault's address and error code from the kernel's segfault line, which the
CPU's error code fills (kernel/signal.c, never a lab file)."""
import contextlib
import glob
import os
import re
import subprocess
import time

from gdbstub import GdbStub, GdbStubError
from grading import PANIC, CheckFailed, deadline
from tlb import PageTables, pae_walk, registers
import pagemodel
from userprog import PS_LINE, SEGV, cpio_files

PAGE = 4096
TASK_SIZE = 0xC0000000
STACK_TOP = TASK_SIZE
STACK_BOTTOM = STACK_TOP - (128 << 10)     # the stack mapped at exec
STACK_GUARD = STACK_TOP - (8 << 20) - PAGE  # under the 8 MiB the stack may grow to on faults
PF_X, PF_W, PF_R = 1, 2, 4
CPU_SMAP = "qemu32,+nx,+pae,+smep,+smap"


def work_dir(ctx, lab):
    d = os.path.join(ctx.root, "build", "lab-" + lab)
    os.makedirs(d, exist_ok=True)
    return d


def built_once(ctx, key, make):
    """make(ctx) once per grade run, kept as ctx.<key>; a build that failed
    (CheckFailed) fails every later call with the same words, not again."""
    if getattr(ctx, key, None) is None:
        try:
            setattr(ctx, key, make(ctx))
        except CheckFailed as e:
            setattr(ctx, key, str(e))
    got = getattr(ctx, key)
    if isinstance(got, str):
        raise CheckFailed(got)
    return got


def build_program(ctx, out, srcs, ld):
    """Links out from srcs with the tree's crt0 and library (user/user.mk's
    user-prog); CheckFailed with the compiler's words if it fails. An out
    newer than all it is made from is kept: each seed's grade of a tree
    asks for the same program."""
    made_from = list(srcs) + [ld] + [os.path.join(ctx.root, f) for f in (
        "Makefile", "user/user.mk", "build/user/obj/user/lib/crt0.o", "build/user/libulib.a")]
    made_from += glob.glob(os.path.join(ctx.root, "user", "include", "*.h"))
    made_from += [h for d in {os.path.dirname(x) for x in srcs}
                  for h in glob.glob(os.path.join(d, "*.h"))]
    if newer_than(out, made_from):
        return out
    r = subprocess.run(["make", "-s", "-C", ctx.root, "--no-print-directory", "user-prog",
                        "PROG=" + out, "PROG_SRCS=" + " ".join(srcs), "PROG_LD=" + ld],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckFailed("the grader could not build its test program %s:\n%s"
                          % (os.path.basename(out), (r.stdout + r.stderr)[-1200:]))
    return out


def newer_than(path, sources):
    """Whether path exists and no file of sources is newer (a missing
    source counts as newer: build again, and let make say why)."""
    try:
        t = os.stat(path).st_mtime_ns
        return all(os.stat(s).st_mtime_ns <= t for s in sources)
    except OSError:
        return False


def cpio_write(path, files):
    """A cpio newc archive of {name: bytes} (what tools/mkinitrd.sh makes)."""
    out = bytearray()

    def entry(name, data, mode):
        nm = name.encode() + b"\0"
        out.extend(b"070701" + b"".join(b"%08X" % v for v in (
            0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nm), 0)) + nm)
        out.extend(b"\0" * (-len(out) % 4))
        out.extend(data)
        out.extend(b"\0" * (-len(out) % 4))
    for name in sorted(files):
        entry(name, files[name], 0o100644)
    entry("TRAILER!!!", b"", 0)
    with open(path, "wb") as f:
        f.write(out)
    return path


def initrd_with(ctx, lab, programs, d=None):
    """build/initrd.cpio of the tree with programs ({name: ELF path}) added
    under bin/, stripped as the Makefile strips its own, in d (default:
    the lab's work directory); returns the initrd's path and {name: the
    stripped file's path}."""
    files = cpio_files(os.path.join(ctx.root, "build", "initrd.cpio"))
    d = d or work_dir(ctx, lab)
    stripped = {}
    for name, elf in programs.items():
        stripped[name] = os.path.join(d, name + ".stripped")
        subprocess.run(["objcopy", "--strip-all", elf, stripped[name]], check=True)
        with open(stripped[name], "rb") as f:
            files["bin/" + name] = f.read()
    return cpio_write(os.path.join(d, "initrd.cpio"), files), stripped


def symbols(elf):
    out = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (ln.split() for ln in out.splitlines()) if len(p) == 3}


def segfault(out):
    """(addr, ip, error) of the kernel's segfault line in out, or None."""
    m = SEGV.search(out)
    return (int(m.group(3), 16), int(m.group(4), 16), int(m.group(6), 16)) if m else None


def died(out):
    """What ended a run, for a failure message: its segfault, traps or
    oops line, or its exit status line."""
    for pat in (r"^\S+\[\d+\]: segfault at .*$", r"^traps: .*$", r"^BUG: .*$",
                r"^\[\d+\] \S+: (exit status|killed by) .*$"):
        # the line may follow the shell's prompt: "ronx> spin[3]: segfault at ..."
        m = re.search(r"(?:^|(?<=ronx> ))" + pat[1:], out, re.M)
        if m:
            return m.group(0)
    return "no end line; it printed:\n" + out[-400:]


OOPS_DEATH = re.compile(r"\S+\[\d+\] dies of the oops")


def died_line(prog):
    """A regex of prog's end (a segfault of any process, prog killed, an
    oops, the OOM killer), at a line's start or right after the shell's
    prompt ("ronx> cowprobe[4]: segfault at ...": a background program's
    line comes whenever it comes, often right after the prompt of the line
    that ran it). Only prog's kill: the grader kills its own helpers."""
    return re.compile(r"(?:^|(?<=ronx> ))(\S+\[\d+\]: segfault at .*|\[\d+\] %s: killed by .*|"
                      r"BUG: .*|Out of memory: .*)$" % re.escape(prog), re.M)


def start_background(g, line, ready, timeout=20, ctx=None, watch=(), never_sleeps=False):
    """Runs `run LINE &`; waits until the program prints the regex ready;
    returns (pid, cr3 from ps, the match). CheckFailed if it dies first
    (or one of the pids in watch, started before it), if any process dies
    of an oops meanwhile, or (given ctx) if QEMU sees it take the same
    page fault again and again
    (labs/watch.py fault_loop(): a program that never gets past a fault
    is told at once, not at the timeout); never_sleeps: also if QEMU sees
    the guest idle before it is ready (it is blocked: a lost child, a
    wake-up that never comes), or every CPU in cpu_relax() (a deadlock)."""
    from watch import PROBE_AFTER, Idle, Spinning, fault_loop, looping
    start = len(g.guest.out)
    out = g.sh("run %s &" % line)
    m = re.search(r"^\[(\d+)\] ", out, re.M)
    if not m:
        raise CheckFailed("expected `run %s &` to start a process, found:\n%s" % (line, out[-400:]))
    pid = int(m.group(1))
    t0, give_up = time.monotonic(), deadline(timeout)
    probed = ctx is None

    def ended(text):
        """The first of pid and watch that ended in text, or None."""
        return next((p for p in (pid,) + tuple(watch) if
                     re.search(r"(?:^|(?<=ronx> ))\[%d\] \S+: (exit status|killed by)" % p, text,
                               re.M) or re.search(r"\[%d\]: segfault at" % p, text) or
                     re.search(r"traps: \S+\[%d\] " % p, text) or     # a #GP, #UD, ...
                     re.search(r"\[%d\] dies of the oops" % p, text)),  # at once, unlike the end line
                    None)
    while time.monotonic() < give_up:
        text = g.guest.out[start:]
        hit = re.search(ready, text, re.M)
        if hit:
            break
        if PANIC in text:       # nothing runs after it: no reason to wait on
            raise CheckFailed("expected %s to run and print /%s/, found the kernel panicked:\n%s"
                              % (line.split()[0], ready, text[text.index(PANIC):][:400]))
        gone = ended(text)
        if gone is not None:
            raise CheckFailed("expected %s to run and print /%s/, found %s ended: %s"
                              % (line.split()[0], ready, "it" if gone == pid else
                                 "the one started before it (pid %d)" % gone, died(text)))
        # another process (its child) killed by an oops: the kernel's state is
        # suspect from there, and waiting on cost the whole bound on two spinning CPUs
        oops = OOPS_DEATH.search(text)
        if oops:
            raise CheckFailed("expected %s to run and print /%s/, found the kernel oopsed in "
                              "another process: %s\n%s" % (line.split()[0], ready, oops.group(0),
                                                           text[-400:]))
        if not probed and time.monotonic() - t0 >= PROBE_AFTER:
            probed = True
            f = fault_loop(ctx, g, lambda: re.search(ready, g.guest.out[start:], re.M) or
                           ended(g.guest.out[start:]) is not None, give_up - time.monotonic(),
                           idle=never_sleeps)
            if isinstance(f, Idle):
                raise CheckFailed("expected %s to print /%s/, found it blocked: %s, and it "
                                  "never sleeps:\n%s" % (line.split()[0], ready, f,
                                                         g.guest.out[start:][-400:]))
            if isinstance(f, Spinning):
                raise CheckFailed("expected %s to print /%s/, found the kernel stuck: %s:\n%s"
                                  % (line.split()[0], ready, f, g.guest.out[start:][-400:]))
            if f:
                raise CheckFailed(looping(f, "expected %s to print /%s/, found it stuck"
                                          % (line.split()[0], ready)))
            continue
        time.sleep(0.05)
    else:
        raise CheckFailed("expected %s to print /%s/ within %.0fs, found:\n%s"
                          % (line.split()[0], ready, give_up.seconds, g.guest.out[start:][-400:]))
    ps = g.sh("ps")
    m = re.search(r"^\s*%d \w+\s+0x([0-9a-f]{8})" % pid, ps, re.M)
    if not m:
        raise CheckFailed("expected pid %d in ps, found:\n%s" % (pid, ps))
    return pid, int(m.group(1), 16), hit


def stopped_in(g, cr3, tries=40):
    """Stops the CPU while it runs in the address space cr3 (the process
    spins, the shell waits): returns info tlb then, as PageTables, and
    lets the CPU go on. CheckFailed if it never was."""
    for _ in range(tries):
        g.monitor("stop")
        try:
            regs = registers(g.monitor("info registers"))
            # its kernel set, or in ring 3 with PTI its user set (+0x800, ronx/pti.h)
            if regs.get("CR3", 0) & 0xFFFFFFE0 in (cr3, cr3 | 0x800):
                return PageTables(g.monitor("info tlb")), regs
        finally:
            g.monitor("cont")
        time.sleep(0.03)
    raise CheckFailed("expected to catch the CPU running the process (CR3 0x%08x) within %d "
                      "stops, found it never there" % (cr3, tries))


def walk(g, cr3, va):
    """The PAE walk QEMU reads (tests/qemu/tlb.py): [(level, index, entry)]."""
    return pae_walk(g.monitor, cr3, va)


def kill(g, pid):
    g.sh("kill %d" % pid)
    for _ in range(40):
        if not re.search(r"^\s*%d " % pid, g.sh("ps"), re.M):
            return
        time.sleep(0.05)


def read_phys(g, pa, size, tmpdir):
    """size bytes of guest-physical memory at pa, read by QEMU (pmemsave)."""
    path = os.path.join(tmpdir, "pmem-%x.bin" % pa)
    out = g.monitor('pmemsave 0x%x 0x%x "%s"' % (pa, size, path))
    if out.strip():
        raise CheckFailed("pmemsave 0x%x: %s" % (pa, out.strip()))
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    return data



def watched_run(ctx, g, line, timeout=30, reads_only=False):
    """Runs `run LINE` with QEMU's gdbstub stopping the CPU at every page
    fault (labs/watch.py): (what it printed, the first fault the CPU took in
    ring 3 or None). That fault is the CPU's own: its error code and
    faulting instruction from the exception frame, CR2 and CR3 from QEMU,
    and fault.pte the leaf entry the walk from that CR3 reads then (xp),
    or None if the walk ends above it. reads_only: the first fault of a
    read (no W bit in its error code), for a program whose writes before
    it take faults of their own (an anonymous page's frame comes on its
    first touch)."""
    from watch import Watch

    def wanted(ev):
        return ev.kind == "#PF" and ev.user and not (reads_only and ev.err & 2)

    def pte(ev):
        if wanted(ev):
            e = walk(g, ev.cr3, ev.cr2)
            ev.pte = e[2][2] if len(e) == 3 else None
    # only the first such fault is returned: the run goes on unwatched after it
    out, events = Watch(ctx, g, on_fault=pte, until=wanted).run("run " + line, timeout)
    user = [e for e in events if wanted(e)]
    return out, (user[0] if user else None)


def fault_said(f, out):
    """A fault (or its absence) and how the run ended, for a message."""
    if f is None:
        return "no fault in ring 3 (QEMU's gdbstub at the #PF entry); the run: %s" % died(out)
    return "the CPU's fault at 0x%08x, error %#x, ip 0x%08x%s" % (
        f.cr2, f.err, f.fault_ip, "" if f.pte is None else ", pte 0x%016x" % f.pte)


@contextlib.contextmanager
def gdbstub_session(g, mark, what, make=GdbStub):
    """QEMU's gdbstub (make(g.guest)) for a with-block. A QEMU that died (a
    triple fault), or a stub that stopped answering, fails the check with
    the guest's last words since mark, and the boot counts as dead: the
    next check boots again."""
    try:
        stub = make(g.guest)
    except (GdbStubError, OSError) as e:
        g.dead = True
        raise CheckFailed("expected to %s with QEMU's gdbstub, found QEMU gone (%s):\n%s"
                          % (what, e, died(g.guest.out[mark:])))
    try:
        yield stub
    except (GdbStubError, OSError) as e:
        g.dead = True
        raise CheckFailed("expected to %s with QEMU's gdbstub, found: %s\n%s"
                          % (what, e, died(g.guest.out[mark:])))
    finally:
        try:
            stub.detach()
        except (GdbStubError, OSError):
            g.dead = True


def model_of_ps(ctx, g, listing, lab):
    """The page-table model now (labs/pagemodel.py: pmemsave, the CPU
    stopped) of every process of the ps listing, each tree named "pid N",
    with each one's ps PAGES in .ps_pages."""
    lines = list(PS_LINE.finditer(listing))
    m = pagemodel.snapshot(g, ctx.syms, {"pid " + x.group(1): int(x.group(3), 16) for x in lines},
                           work_dir(ctx, lab))
    m.ps_pages = {"pid " + x.group(1): int(x.group(5)) for x in lines}
    return m
