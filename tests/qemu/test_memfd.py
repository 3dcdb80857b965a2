# SPDX-License-Identifier: GPL-2.0-only
"""memfd (issue 30 item 3, docs/user-mode.md): a JIT's RW view and RX view
of one memfd page in one process, on one CPU and on two.

- `memfdtest`: two views of one memfd share their bytes; munmap of one
  keeps the other; close keeps the mappings; fork shares the descriptor
  (a mapping the child makes after fork sees the parent's bytes and the
  reverse); execve closes MFD_CLOEXEC only; Linux's errno for bad flags,
  names, descriptors, sizes and types; EMFILE; MAP_PRIVATE reads the
  memfd's bytes until its first write copies the page; a touch past the
  memfd's end is SIGBUS (BUS_ADRERR, si_addr), and the default action's
  line names the address. Every page is back after it exits (meminfo's
  PagesFree).
- `memfdtest hold`: from outside (xp of the process's tables and of the
  frames, and of the kernel's frame_refs[] counts), the private view's
  written page is a frame of its own holding the private byte while the
  memfd's frame keeps the memfd's; its unwritten page is the memfd's
  frame, read-only; the shared view's page past the end has no PTE; each
  frame counts its holders; and every page is back after a kill.
- `memfdtest shrink`: a 2-page memfd's shared view and private view, page
  1 written through both (the private write a copy), in a process and its
  forked child, shrunk to 1 page when a third process is killed (the
  cue); from outside, both processes map page 1 of each view
  (the memfd's frame counted by the memfd and two PTEs, the copy by two
  PTEs). After the shrink to 1 page, page 1's PTE is not present in
  either view of either process, both frames' counts are 0 (given
  back), page 0 is still mapped, and every page is back after a kill.
- `memfdtest race 300` on 2 CPUs: a shrink and a grow 300 times while a
  process writes both views and another forks children that touch them;
  no oops, no frame count below zero, every page back.
- `jitdual hold`: code written through the RW view runs through the RX
  view, and a patch through RW is what RX runs next. wxcheck passes (no
  page W+X in one mapping) and warns of the alias, naming the memfd page;
  ptdump PID lists both views as aliases of one frame; and QEMU's walk of
  the process's tables (xp from its CR3) finds the two virtual pages on
  one physical frame, RW+NX and RO+X, the frame wxcheck named."""
import os
import re
import sys

from guest import Guest
from tlb import pae_walk, xp64
from userprog import cr3_of, free_pages, settled_free_pages

SMP = (("1 CPU", []), ("2 CPUs", ["-smp", "2"]))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "user"))
import progs  # noqa: E402

CHECKS = progs.MEMFDTEST_CHECKS	# memfdtest's "ok" lines: fewer means a check did not run
HOLDING = re.compile(r"jitdual: holding, pid (\d+) rw (0x[0-9a-f]+) rx (0x[0-9a-f]+)\n")
SHRINK_HOLDING = re.compile(r"memfdtest: shrink holding, pid (\d+) child (\d+) trigger (\d+) "
                            r"shared (0x[0-9a-f]+) private (0x[0-9a-f]+)\n")
PRIV_HOLDING = re.compile(r"memfdtest: holding, pid (\d+) shared (0x[0-9a-f]+) private (0x[0-9a-f]+)\n")
BUS_LINE = re.compile(r"^memfdtest\[\d+\]: bus error at ([0-9a-f]+) ip [0-9a-f]+ sp [0-9a-f]+ error "
                      r"([0-9a-f]+).*: past the end of the memfd$", re.M)



def hold(g, command, pattern):
    """`run COMMAND &` until it says pattern (its holding line or its error)
    and the prompt is back: the match, and what the console showed."""
    start = len(g.out)
    g.send(b"run %s &\r" % command.encode())
    m = g.wait_for(pattern, start=start, timeout=60)
    g.wait_for("^ronx> ", start=start)
    return m, g.out[start:]


def guests(what):
    """On 1 CPU, then on 2: (label, the guest, PagesFree) once a first
    program has run; the guest is shut when the caller takes the next."""
    for label, extra in SMP:
        with Guest("%s %s" % (what, label), extra=extra) as g:
            g.wait_ready()
            g.command("run true")
            yield label, g, free_pages(g)


def test_memfd_checks(t):
    for label, g, before in guests("memfd checks"):
        out = g.command("run memfdtest", timeout=120)
        oks = re.findall(r"^memfdtest: \w+: ok$", out, re.M)
        for name in ("views", "munmap", "close", "private", "sigbus", "sizes", "fork", "cloexec",
                     "errors", "emfile", "refmax"):
            t.check(re.search(r"^memfdtest: %s: ok$" % name, out, re.M)
                    and not re.search(r"^memfdtest: %s: FAIL" % name, out, re.M),
                    "%s: memfdtest %s" % (label, name), out)
        t.check(len(oks) == CHECKS and "memfdtest: %d checks, 0 failed" % CHECKS in out
                and "exit status 0" in out,
                "%s: all %d memfd checks ran and passed" % (label, CHECKS), out)
        # the children that die of SIGBUS: a read at page + 12 past the end, the
        # size-0 memfd's page, and after a shrink the shared view's page, the
        # private copy, the 2-page view's page 1 and a new view's page; each
        # line names its address
        bus = [int(a, 16) for a, _ in BUS_LINE.findall(out)]
        t.check(len(bus) == 6 and bus[0] & 0xfff == 12 and
                all(b & 0xfff == 0 for b in bus[1:]) and
                all(e == "4" for _, e in BUS_LINE.findall(out)),
                "%s: the default SIGBUS kills with a line naming the address past the end"
                % label, out)
        after = settled_free_pages(g, before)
        t.check(after == before, "%s: every page back after memfdtest" % label,
                "before %d after %d" % (before, after))
        t.check(g.poweroff() == 1, "%s: poweroff" % label)


def test_memfd_jit(t):
    for label, extra in SMP:
        with Guest("memfd jit " + label, extra=extra) as g:
            g.wait_ready()
            out = g.command("run jitdual")
            ran = re.search(r"^jitdual: called through rx: 42, after patching through rw: 43$",
                            out, re.M)
            t.check(ran, "%s: code written through the RW view runs through the RX view" % label, out)
            if not ran:
                continue	# its hold would die the same way, unseen until the next prompt
            before = free_pages(g)
            m, said = hold(g, "jitdual hold", HOLDING.pattern + r"|jitdual: \w.*: E[A-Z]+")
            t.check(m.group(1), "%s: jitdual holds its two views" % label, said)
            if not m.group(1):
                continue
            pid, rw, rx = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
            out = g.command("wxcheck")
            warn = re.search(r"WARNING: frame 0x([0-9a-f]+) is writable in jitdual\[%d\] at 0x%08x "
                             r"and executable in jitdual\[%d\] at 0x%08x" % (pid, rw, pid, rx), out)
            t.check(warn, "%s: wxcheck warns of the alias inside one process" % label, out)
            t.check(warn and re.search(r"W\^X alias: frame 0x%s is memfd:jit page 0: two views of "
                                       r"one memfd" % warn.group(1), out),
                    "%s: wxcheck names the memfd page" % label, out)
            t.check("FAILED" not in out and re.search(r"user space of \d+ process(es)?: passed", out),
                    "%s: no page is W+X in one mapping" % label, out)
            dump = g.command("ptdump %d" % pid)
            frame = int(warn.group(1), 16) if warn else -1
            t.check(re.search(r"^0x%08x RW\+NX frame 0x%08x memfd:jit page 0, mapped by 2, alias of "
                              r"0x%08x RO\+X$" % (rw, frame, rx), dump, re.M)
                    and re.search(r"^0x%08x RO\+X  frame 0x%08x memfd:jit page 0, mapped by 2, "
                                  r"alias of 0x%08x RW\+NX$" % (rx, frame, rw), dump, re.M),
                    "%s: ptdump PID shows both views as aliases of one memfd frame" % label, dump)
            cr3 = cr3_of(g, pid)
            we, xe = pae_walk(g.monitor, cr3, rw)[-1][2], pae_walk(g.monitor, cr3, rx)[-1][2]
            pa = lambda e: e & 0x000ffffffffff000       # noqa: E731
            t.check(we & 1 and xe & 1 and pa(we) == pa(xe),
                    "%s: from outside, both virtual pages on one frame" % label, "%#x %#x" % (we, xe))
            t.check(we & 2 and we >> 63 and not xe & 2 and not xe >> 63,
                    "%s: from outside, RW+NX and RO+X" % label, "%#x %#x" % (we, xe))
            t.check(pa(we) == frame, "%s: wxcheck names the frame QEMU finds" % label,
                    "%#x %#x" % (pa(we), frame))
            g.command("kill %d" % pid)
            after = settled_free_pages(g, before)
            t.check(after == before, "%s: every page back after jitdual" % label,
                    "before %d after %d" % (before, after))
            t.check(g.poweroff() == 1, "%s: poweroff" % label)


def frame_refs(g, pa):
    """The kernel's count for the frame at pa (mm/page_ref.c's frame_refs[]), read by QEMU."""
    table = xp64(g.monitor, g.symbols()["frame_refs"] - 0xC0000000) & 0xffffffff
    return xp64(g.monitor, table - 0xC0000000 + (pa >> 12)) & 0xff


def test_memfd_private(t):
    with Guest("memfd private") as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        m, said = hold(g, "memfdtest hold", PRIV_HOLDING.pattern + r"|memfdtest: hold: E[A-Z]+")
        t.check(m.group(1), "memfdtest holds a shared and a private view", said)
        if not m.group(1):
            return
        pid, s, p = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
        cr3 = cr3_of(g, pid)
        pte = lambda va: pae_walk(g.monitor, cr3, va)[-1]   # noqa: E731
        pa = lambda e: e[2] & 0x000ffffffffff000            # noqa: E731
        s0, s1, s2, p0, p1 = pte(s), pte(s + 0x1000), pte(s + 0x2000), pte(p), pte(p + 0x1000)
        detail = "shared %s private %s" % ([hex(e[2]) for e in (s0, s1, s2)], [hex(e[2]) for e in (p0, p1)])
        t.check(all(e[0] == "PTE" and e[2] & 1 for e in (s0, s1, p0, p1)),
                "from outside, both views' pages within the memfd are mapped", detail)
        t.check(pa(p0) != pa(s0) and p0[2] & 2,
                "from outside, the written private page is a frame of its own, writable", detail)
        byte = lambda phys: xp64(g.monitor, phys) & 0xff     # noqa: E731
        t.check(byte(pa(s0)) == ord("M") and byte(pa(p0)) == ord("P"),
                "from outside, the memfd's frame keeps its byte; the copy has the private write",
                "memfd %#x copy %#x" % (byte(pa(s0)), byte(pa(p0))))
        t.check(pa(p1) == pa(s1) and not p1[2] & 2 and s1[2] & 2,
                "from outside, the unwritten private page is the memfd's frame, read-only there", detail)
        t.check(not s2[2] & 1, "from outside, the shared view's page past the end has no PTE", detail)
        refs = (frame_refs(g, pa(s0)), frame_refs(g, pa(s1)), frame_refs(g, pa(p0)))
        t.check(refs == (2, 3, 1), "the counts: memfd page 0 by the memfd and one PTE, page 1 by "
                "the memfd and two PTEs, the copy by its PTE", "got %s" % (refs,))
        dump = g.command("ptdump %d" % pid)
        t.check(re.search(r"^0x%08x RW\+NX frame 0x%08x no memfd's frame \(a MAP_PRIVATE copy"
                          % (p, pa(p0)), dump, re.M)
                and re.search(r"^0x%08x RO\+NX frame 0x%08x memfd:priv page 1, mapped by 2, alias "
                              r"of 0x%08x RW\+NX$" % (p + 0x1000, pa(s1), s + 0x1000), dump, re.M),
                "ptdump PID: the copy is no memfd's frame; the unwritten page is memfd page 1", dump)
        g.command("kill %d" % pid)
        after = settled_free_pages(g, before)
        t.check(after == before, "every page back after the kill (the copy and the memfd's)",
                "before %d after %d" % (before, after))
        t.check(g.poweroff() == 1, "poweroff")


def test_memfd_shrink(t):
    for label, g, before in guests("memfd shrink"):
        m, said = hold(g, "memfdtest shrink", SHRINK_HOLDING.pattern + r"|memfdtest: shrink: E[A-Z]+")
        t.check(m.group(1), "%s: memfdtest shrink holds its views in two processes" % label, said)
        if not m.group(1):
            continue
        pids = (int(m.group(1)), int(m.group(2)))
        trigger, s, p = int(m.group(3)), int(m.group(4), 16), int(m.group(5), 16)
        cr3s = [cr3_of(g, pid) for pid in pids]
        pte = lambda cr3, va: pae_walk(g.monitor, cr3, va)[-1][2]   # noqa: E731
        pa = lambda e: e & 0x000ffffffffff000                          # noqa: E731
        old = [(pte(c, s + 0x1000), pte(c, p + 0x1000)) for c in cr3s]
        detail = "before: %s" % [[hex(e) for e in pair] for pair in old]
        t.check(all(e & 1 for pair in old for e in pair),
                "%s: from outside, page 1 of both views is mapped in both processes" % label, detail)
        memfd_frame, copy = pa(old[0][0]), pa(old[0][1])
        t.check(memfd_frame != copy and all(pa(a) == memfd_frame and pa(b) == copy for a, b in old),
                "%s: one memfd frame and one private copy, shared by fork" % label, detail)
        refs = (frame_refs(g, memfd_frame), frame_refs(g, copy))
        t.check(refs == (3, 2), "%s: the counts: the memfd's frame by the memfd and two PTEs, "
                "the copy by two PTEs" % label, "got %s" % (refs,))
        start = len(g.out)
        g.command("kill %d" % trigger)	# the cue: memfdtest shrinks the memfd
        shrunk = g.wait_for(r"memfdtest: shrunk: (\w+)\r?\n", start=start, timeout=30)
        t.check(shrunk.group(1) == "ok", "%s: the memfd shrinks to 1 page" % label,
                g.out[start:])
        new = [(pte(c, s + 0x1000), pte(c, p + 0x1000)) for c in cr3s]
        kept = [(pte(c, s), pte(c, p)) for c in cr3s]
        detail = "after: %s, page 0: %s" % ([[hex(e) for e in pair] for pair in new],
                                            [[hex(e) for e in pair] for pair in kept])
        t.check(not any(e & 1 for pair in new for e in pair),
                "%s: from outside, page 1's PTE is not present in either view of either process"
                % label, detail)
        t.check(all(e & 1 for pair in kept for e in pair),
                "%s: from outside, page 0 is still mapped in both" % label, detail)
        refs = (frame_refs(g, memfd_frame), frame_refs(g, copy))
        t.check(refs == (0, 0), "%s: the memfd's frame and the private copy are given back "
                "(count 0)" % label, "got %s" % (refs,))
        for pid in pids:
            g.command("kill %d" % pid)
        after = settled_free_pages(g, before)
        t.check(after == before, "%s: every page back after the kill" % label,
                "before %d after %d" % (before, after))
        t.check(g.poweroff() == 1, "%s: poweroff" % label)


def test_memfd_race(t):
    """A shrink and a grow, 300 times, while other processes fault on the
    pages, copy them and fork (memfdtest race): on 2 CPUs the shrink's
    zap and a fault or a fork on the other CPU meet. No oops, no count
    below zero, and every page back."""
    with Guest("memfd race", extra=["-smp", "2"]) as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        out = g.command("run memfdtest race 300", timeout=300)
        t.check(re.search(r"^memfdtest: race: 300 shrinks and grows, 0 failed$", out, re.M)
                and "exit status 0" in out, "300 shrinks and grows under faults and forks", out)
        t.check(re.search(r"^Oopses:\s+0$", g.command("meminfo"), re.M) and
                not re.search(r"^(BUG|Oops:|Kernel panic|WARNING)|dropped below zero", g.out, re.M),
                "no oops, no count below zero", g.out[-2000:])
        after = settled_free_pages(g, before)
        t.check(after == before, "every page back after the race",
                "before %d after %d" % (before, after))
        t.check(g.poweroff() == 1, "poweroff")
