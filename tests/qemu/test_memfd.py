# SPDX-License-Identifier: GPL-2.0-only
"""memfd (issue 30 item 3, docs/user-mode.md): a JIT's RW view and RX view
of one memfd page in one process, on one CPU and on two.

- `memfdtest`: two views of one memfd share their bytes; munmap of one
  keeps the other; close keeps the mappings; fork shares the descriptor
  (a mapping the child makes after fork sees the parent's bytes and the
  reverse); execve closes MFD_CLOEXEC only; Linux's errno for bad flags,
  names, descriptors, sizes and types; EMFILE. Every page is back after
  it exits (meminfo's PagesFree).
- `jitdual hold`: code written through the RW view runs through the RX
  view, and a patch through RW is what RX runs next. wxcheck passes (no
  page W+X in one mapping) and warns of the alias, naming the memfd page;
  ptdump PID lists both views as aliases of one frame; and QEMU's walk of
  the process's tables (xp from its CR3) finds the two virtual pages on
  one physical frame, RW+NX and RO+X, the frame wxcheck named."""
import re

from guest import Guest
from tlb import pae_walk
from userprog import cr3_of, free_pages, settled_free_pages

SMP = (("1 CPU", []), ("2 CPUs", ["-smp", "2"]))
CHECKS = 35	# memfdtest's "ok" lines: fewer means a check did not run
HOLDING = re.compile(r"jitdual: holding, pid (\d+) rw (0x[0-9a-f]+) rx (0x[0-9a-f]+)\n")



def test_memfd_checks(t):
    for label, extra in SMP:
        with Guest("memfd checks " + label, extra=extra) as g:
            g.wait_ready()
            g.command("run true")
            before = free_pages(g)
            out = g.command("run memfdtest", timeout=120)
            oks = re.findall(r"^memfdtest: \w+: ok$", out, re.M)
            for name in ("views", "munmap", "close", "sizes", "fork", "cloexec", "errors", "emfile", "refmax"):
                t.check(re.search(r"^memfdtest: %s: ok$" % name, out, re.M)
                        and not re.search(r"^memfdtest: %s: FAIL" % name, out, re.M),
                        "%s: memfdtest %s" % (label, name), out)
            t.check(len(oks) == CHECKS and "memfdtest: %d checks, 0 failed" % CHECKS in out
                    and "exit status 0" in out,
                    "%s: all %d memfd checks ran and passed" % (label, CHECKS), out)
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
            start = len(g.out)
            g.send(b"run jitdual hold &\r")
            m = g.wait_for(HOLDING.pattern + r"|jitdual: \w.*: E[A-Z]+", start=start, timeout=60)
            g.wait_for("^ronx> ", start=start)
            t.check(m.group(1), "%s: jitdual holds its two views" % label, g.out[start:])
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
