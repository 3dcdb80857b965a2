# SPDX-License-Identifier: GPL-2.0-only
"""A process's memory as the kernel charges and shares it (issue 34;
docs/redteam.md, docs/user-mode.md), on one CPU and on two:

- the page-table bomb: several `ptbomb hold` at once, each reading one
  byte every 2 MiB of a 3 GiB address space (a page table per read, the
  zero page behind it). Page tables are charged to their process and the
  kernel keeps its reserve, so a bomb is OOM-killed with Linux's line and
  a non-zero pgtables field; once the rest are killed, every page is back
  and `run true` starts;
- MAP_SHARED|MAP_ANONYMOUS across fork: the child writes a page first and
  the parent reads it, then the parent writes one first and the child
  reads it (`shmfork share`);
- the W/X alias: a shared page RW in the parent, RX in the child after
  mprotect (`shmfork alias`): `wxcheck` warns with both owners, without
  failing, and QEMU's walk of each process's tables (xp from its CR3)
  finds the one frame RW+NX in the parent and RO+X in the child."""
import re
import time

from guest import Guest
from tlb import pae_walk
from userprog import cr3_of, free_pages, settled_free_pages

SMP = (("1 CPU", []), ("2 CPUs", ["-smp", "2"]))
# what the machine has: 48M holds about five bombs' page tables
MEMORY = "48M"
BOMBS = 12
# not at a line's start: a background program's line may follow the prompt
OOM = re.compile(r"Out of memory: Killed process (\d+) \(ptbomb\) total-vm:(\d+)kB, "
                 r"anon-rss:(\d+)kB, .* pgtables:(\d+)kB")
HOLDING = re.compile(r"ptbomb: holding, pid (\d+), (\d+) reads")


def oopses(g):
    return int(re.search(r"Oopses:\s+(\d+)", g.command("meminfo")).group(1))


def ps_pids(g):
    return {int(m.group(1)): m.group(2)
            for m in re.finditer(r"^\s*(\d+) \w+\s+0x[0-9a-f]+\s+\d+\s+\d+ (\S+)$", g.command("ps"), re.M)}


def wait_gone(g, pids):
    """Polls ps until none of pids is listed (a killed process exits on its CPU)."""
    for _ in range(100):
        if not set(pids) & set(ps_pids(g)):
            return True
        time.sleep(0.1)
    return False



def start_bombs(g, n):
    """n `run ptbomb hold &`; their pids, once each is holding or OOM-killed."""
    pids = []
    for _ in range(n):
        start = len(g.out)
        g.send(b"run ptbomb hold &\r")
        pids.append(int(g.wait_for(r"^\[(\d+)\] ptbomb$", start=start).group(1)))
        g.wait_for("^ronx> ", start=start)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        done = {int(m.group(1)) for m in HOLDING.finditer(g.out)} | \
               {int(m.group(1)) for m in OOM.finditer(g.out)}
        if set(pids) <= done:
            break
        time.sleep(0.2)
    return pids


def ptbomb(t, label, extra):
    with Guest("pgmem ptbomb " + label, memory=MEMORY, extra=extra) as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        pids = start_bombs(g, BOMBS)
        killed = list(OOM.finditer(g.out))
        held = [p for p in pids if p not in {int(k.group(1)) for k in killed}]
        print("  ptbomb %s: PagesFree %d at start; %d bombs, %d OOM-killed%s"
              % (label, before, len(pids), len(killed),
                 ": " + killed[0].group(0) if killed else ""))
        t.check(killed, "%s: %d bombs: one or more OOM-killed with Linux's line" % (label, BOMBS),
                g.out[-800:])
        t.check(all(int(k.group(1)) in pids for k in killed),
                "%s: every process killed is a bomb" % label)
        t.check(all(int(k.group(4)) >= 1024 for k in killed),
                "%s: the Out of memory line's pgtables field counts the bomb's page tables, "
                "1 MiB or more (%s kB)" % (label, ", ".join(k.group(4) for k in killed)))
        t.check(wait_gone(g, [int(k.group(1)) for k in killed]),
                "%s: the killed bombs are gone from ps" % label)
        low = free_pages(g)
        t.check(16 <= low < 2 * 1536, "%s: the bombs hold the memory, the kernel its reserve: "
                "PagesFree %d" % (label, low))
        # more than the bombs left free (at least 6 MiB): with two CPUs more
        # bombs may be OOM-killed while they start, and 7 MiB were left once
        mib = max(6, low // 256 + 2)
        mark = len(g.out)
        out = g.command("run oomtouch %d" % mib, timeout=120)
        victims = [int(k.group(1)) for k in OOM.finditer(g.out[mark:])]
        t.check(re.search(r"^oomtouch: touched all %d MiB$" % mib, out, re.M) and
                "exit status 0" in out,
                "%s: a program needing more than is free runs: the OOM killer takes a bomb, "
                "not it" % label, out[-600:])
        t.check(victims and all(v in held for v in victims),
                "%s: oomtouch's faults OOM-kill the largest, a bomb (%s)" % (label, victims),
                out[-600:])
        held = [p for p in held if p not in victims]
        out = g.command("run true")
        t.check("exit status 0" in out, "%s: run true starts beside the bombs" % label, out)
        t.check(oopses(g) == 0, "%s: no oops with memory short" % label)
        for pid in held:
            g.command("kill %d" % pid)
        t.check(wait_gone(g, held), "%s: the held bombs are killed" % label)
        after = settled_free_pages(g, before)
        print("  ptbomb %s: PagesFree %d before, %d with the bombs held, %d after"
              % (label, before, low, after))
        t.check(after == before, "%s: every page back after the bombs" % label,
                "before %d after %d" % (before, after))
        out = g.command("run true")
        t.check("exit status 0" in out, "%s: run true starts after the bombs" % label, out)
        t.check(oopses(g) == 0, "%s: no oops" % label)
        t.check(g.poweroff() == 1, "%s: poweroff after the bombs" % label)


def test_pgmem_ptbomb(t):
    for label, extra in SMP:
        ptbomb(t, label, extra)


def test_pgmem_shared_anon(t):
    for label, extra in SMP:
        with Guest("pgmem shared " + label, extra=extra) as g:
            g.wait_ready()
            g.command("run true")
            before = free_pages(g)
            out = g.command("run shmfork share", timeout=120)
            t.check(re.search(r"^shmfork: child wrote first, parent reads it: shared$", out, re.M),
                    "%s: MAP_SHARED anon: the child's first write, read by the parent" % label, out)
            t.check(re.search(r"^shmfork: parent wrote first, child read it: shared$", out, re.M),
                    "%s: MAP_SHARED anon: the parent's first write, read by the child" % label, out)
            t.check("exit status 0" in out, "%s: shmfork share exits 0" % label, out)
            out = g.command("run cowtest", timeout=120)
            t.check("exit status 0" in out, "%s: private mappings still copy-on-write (cowtest)"
                    % label, out)
            after = free_pages(g)
            t.check(after == before, "%s: every page back" % label,
                    "before %d after %d" % (before, after))
            t.check(g.poweroff() == 1, "%s: poweroff" % label)


ALIAS = re.compile(r"shmfork: alias: holding, parent (\d+) rw (0x[0-9a-f]+), child (\d+) "
                   r"rx (0x[0-9a-f]+)\n")


def test_pgmem_wx_alias(t):
    for label, extra in SMP:
        with Guest("pgmem alias " + label, extra=extra) as g:
            g.wait_ready()
            g.command("run true")
            before = free_pages(g)
            start = len(g.out)
            g.send(b"run shmfork alias &\r")
            m = g.wait_for(ALIAS.pattern + r"|shmfork: .*never came", start=start, timeout=60)
            g.wait_for("^ronx> ", start=start)
            t.check(m.group(1) and re.search(r"ran the parent's code: 42", g.out[start:]),
                    "%s: the child runs code the parent wrote after the fork" % label, g.out[start:])
            if not m.group(1):
                continue
            parent, child, va = int(m.group(1)), int(m.group(3)), int(m.group(2), 16)
            out = g.command("wxcheck")
            warn = re.search(r"WARNING: frame 0x([0-9a-f]+) is writable in shmfork\[%d\] at 0x%08x "
                             r"and executable in shmfork\[%d\] at 0x%08x" % (parent, va, child, va), out)
            t.check(warn, "%s: wxcheck warns of the W/X alias, naming both pids and VAs" % label, out)
            t.check("FAILED" not in out and re.search(r"user space of \d+ processes: passed", out),
                    "%s: the alias is a warning, not a failure of the W+X check" % label, out)
            pw = pae_walk(g.monitor, cr3_of(g, parent), va)[-1][2]
            cw = pae_walk(g.monitor, cr3_of(g, child), va)[-1][2]
            frame = lambda e: e & 0x000ffffffffff000       # noqa: E731
            t.check(pw & 1 and cw & 1 and frame(pw) == frame(cw),
                    "%s: from outside, one frame under both (parent %#x, child %#x)" % (label, pw, cw))
            t.check(pw & 2 and pw >> 63 and not cw & 2 and not cw >> 63,
                    "%s: RW+NX in the parent, RO+X in the child" % label, "%#x %#x" % (pw, cw))
            t.check(warn and int(warn.group(1), 16) == frame(pw),
                    "%s: wxcheck names the frame QEMU finds" % label)
            g.command("kill %d" % child)
            g.command("kill %d" % parent)
            t.check(wait_gone(g, [parent, child]), "%s: both killed" % label)
            after = settled_free_pages(g, before)
            t.check(after == before, "%s: every page back" % label,
                    "before %d after %d" % (before, after))
            t.check(g.poweroff() == 1, "%s: poweroff" % label)
