# SPDX-License-Identifier: GPL-2.0-only
"""The red-team suite (docs/redteam.md): every attack of user/bin/redteam.c
run with the shell's `run`, each checked as tests/user/progs.py says
(refused with the right errno, or killed by the right signal with the
kernel's line naming the right exception and error code), and from
outside: QEMU still running after each (a jump into ring 0 would stop the
machine with status 181, redteam_landing), the free-page count equal
before and after each case, no oops, `wxcheck` passing and QEMU's
`info tlb` showing no W+X page that was not there before; on the plain
CPU and again on make run's (+smep,+smap), where a case that never ends
fails within 20 s (issue 34: a fault served and retried forever). Then
the W+X requests read from outside while the process waits, memory hogs
side by side until one is OOM-killed, more spinners than task slots, and
spawn/exit churn of the attacks on 2, 3 and 4 CPUs."""
import os
import re
import sys
import time

from guest import CPU_NX, CPU_SMAP, Guest, GuestError
from tlb import PageTables, pae_walk
from userprog import free_pages
from test_ronx_checks_user import result

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "user"))
import progs  # noqa: E402

RUNS = [r for r in progs.TESTS if r.name == "redteam"] + progs.RONX_ONLY
MARKER_STATUS = 181     # (0x5a << 1) | 1: redteam_landing reached ring 0
TASK_SIZE = 0xC0000000


def oopses(g):
    return int(re.search(r"Oopses:\s+(\d+)", g.command("meminfo")).group(1))


def kernel_wx(g):
    """W+X pages QEMU sees in the kernel half of the CPU's current tables."""
    return PageTables(g.monitor("info tlb")).wx_pages(TASK_SIZE, 1 << 32)


def still_running(g):
    return g.proc.poll() is None


def smap_checks(run, r):
    """On make run's CPU: a case that irets in ring 3 may end at its iret
    (progs.SMAP_IRET_CASES says why); every other case as everywhere."""
    usual = progs.checks(run, r, "ronx")
    if run.args[0] in progs.SMAP_IRET_CASES and not all(ok for ok, _, _ in usual):
        return progs.smap_iret_checks(run, r)
    return [(ok, "[smap] " + desc, detail) for ok, desc, detail in usual]


def test_redteam_cases(t):
    run_cases(t, "redteam cases", CPU_NX, lambda run, r: progs.checks(run, r, "ronx"), 60)


def test_redteam_cases_smap(t):
    """The same cases on make run's CPU (+smep,+smap), each given 20 s: a
    fault the kernel serves and retries forever shows as a case that never ends."""
    run_cases(t, "redteam cases smap", CPU_SMAP, smap_checks, 20)


def run_cases(t, name, cpu, checks, timeout):
    """Every case in one boot of cpu, each checked by checks(run, result)
    and given timeout seconds to end, then the checks from outside."""
    lane = "[smap] " if cpu == CPU_SMAP else ""
    with Guest(name, cpu=cpu) as g:
        g.wait_ready()
        g.command("run true")
        before, wx_before = free_pages(g), kernel_wx(g)
        leaked, t0 = [], time.monotonic()
        for run in RUNS:
            try:
                text = g.command(" ".join(["run", run.name] + run.args), timeout=timeout)
            except GuestError:
                tail = g.out[-300:]
                t.fail("%s%s: ends within %d s" % (lane, run.key, timeout),
                       "no prompt after it: the process never ended (a fault the kernel serves "
                       "and retries forever looks so: issue 34); last output: %r" % tail)
                return
            r = result(run.name, text)
            for ok, desc, detail in checks(run, r):
                t.check(ok, desc, detail)
            if not still_running(g):
                t.fail("%s%s: QEMU still running after it" % (lane, run.key),
                       "QEMU exited with %s (%d: redteam_landing ran in ring 0)"
                       % (g.proc.returncode, MARKER_STATUS))
                return
            now = free_pages(g)
            if now != before:
                leaked.append("%s: %d" % (run.key, now - before))
        took = time.monotonic() - t0
        t.check(not leaked, "%severy page back after each of the %d cases (PagesFree %d)"
                % (lane, len(RUNS), before), "; ".join(leaked))
        t.check(oopses(g) == 0, "%sno oops from any case" % lane)
        dmesg = g.command("dmesg")
        t.check(not re.search(r"^(BUG|Oops|Kernel panic)", dmesg, re.M),
                "%sdmesg has no BUG or Oops line" % lane, dmesg[-600:])
        out = g.command("wxcheck")
        t.check(re.search(r"W\+X check: (passed|\d+ W\+X pages, all in the declared PCI BIOS hole)", out)
                and "FAILED" not in out, "%swxcheck after the cases: no W+X page outside the declared hole"
                % lane, out)
        wx_after = kernel_wx(g)
        t.check(wx_after == wx_before, "%sinfo tlb: W+X pages in the kernel half %d before, %d after"
                % (lane, wx_before, wx_after))
        t.check(g.poweroff() == 1, "%spoweroff after the cases (QEMU's status 1, not %d)"
                % (lane, MARKER_STATUS))
        print("  redteam: %s%d cases in %.1fs" % (lane, len(RUNS), took))


# the whole line, up to its end: a line still arriving would match with its
# last address cut short (seen once: "stack 0xbfe2" read as page 0xb000)
HOLDING = re.compile(r"redteam: wx: holding, pid (\d+): rw (0x[0-9a-f]+) rx (0x[0-9a-f]+) "
                     r"text (0x[0-9a-f]+) data (0x[0-9a-f]+) stack (0x[0-9a-f]+)\r?\n")


def test_redteam_wx_from_outside(t):
    """The W+X requests, refused; then the process's pages read by QEMU."""
    with Guest("redteam wx") as g:
        g.wait_ready()
        before = free_pages(g)
        start = len(g.out)
        g.send(b"run redteam wx hold &\r")
        m = g.wait_for(HOLDING.pattern, start=start)
        g.wait_for("^ronx> ", start=start)     # the process prints after the prompt
        pid = int(m.group(1))
        said = re.findall(r"redteam: wx: policy: (.*): (\S+)$", g.out[start:], re.M)
        t.check(len(said) == 7 and all(w == "EACCES" for _, w in said),
                "every W+X request refused with EACCES", str(said))
        out = g.command("wxcheck")
        t.check("user space of 1 process: passed" in out, "wxcheck: the process's user half passes",
                out)
        cr3 = int(re.search(r"^\s*%d \w+\s+0x([0-9a-f]+)" % pid, g.command("ps"), re.M).group(1), 16)
        want = {"rw": (True, False), "rx": (False, True), "text": (False, True),
                "data": (True, False), "stack": (True, False)}
        bad = []
        for i, (name, (rw, x)) in enumerate(want.items(), 2):
            va = int(m.group(i), 16) & ~0xFFF
            leaf = pae_walk(g.monitor, cr3, va)[-1][2]
            got = (bool(leaf & 2), not leaf >> 63) if leaf & 1 else None
            if got != (rw, x) or not leaf & 4:
                bad.append("%s %08x: entry %#x" % (name, va, leaf))
        t.check(not bad, "its pages from outside (xp walk of its CR3): rw RW+NX, the JIT page RO+X, "
                "text RO+X, data and stack RW+NX, all US=1", "; ".join(bad))
        g.command("kill %d" % pid)
        time.sleep(0.3)
        g.command("ps")
        t.check(free_pages(g) == before, "every page back after kill",
                "before %d after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the W+X checks")


# not at a line's start: a background hog's fault comes after the prompt
OOM_LINE = r"Out of memory: Killed process (\d+) \(redteam\) total-vm:\d+kB"


def test_redteam_hogs(t):
    """Memory hogs side by side (each touches 24 MiB and holds it) until RAM
    runs out: the next hog's fault finds no page, and the OOM killer takes
    the largest process, a hog that holds (Linux's choice, mm/oom_kill.c),
    with Linux's line; the new hog gets its memory, the others keep
    theirs, the shell keeps answering, every page comes back."""
    with Guest("redteam hogs") as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        pids, got, oom, last = [], [], None, None
        for _ in range(8):
            start = len(g.out)
            g.send(b"run redteam hog hold &\r")
            last = int(g.wait_for(r"^\[(\d+)\] redteam$", start=start).group(1))
            m = g.wait_for(r"redteam: hog: holding, pid (\d+), (\d+) MiB touched|" + OOM_LINE +
                           r"|^exec: bin/redteam: .*\n", start=start, timeout=60)
            g.wait_for("^ronx> ", start=start)
            if not m.group(1):
                oom = m
                break
            pids.append(int(m.group(1)))
            got.append(int(m.group(2)))
        t.check(len(pids) >= 3 and min(got) == 24,
                "%d hogs side by side, each holding the 24 MiB it touched" % len(pids))
        victim = int(oom.group(3)) if oom and oom.group(3) else None
        t.check(victim in pids, "the next hog's fault finds no page: Linux's Out of memory line "
                "names the largest process, a hog that holds, not the new one (pid %s)" % last,
                g.out[-600:])
        # the new hog goes on touching and prints as it goes: wait for its
        # last line before typing, or its lines would cut into the echo
        held = g.wait_for(r"redteam: hog: holding, pid %d, (\d+) MiB touched" % last,
                          start=start, timeout=60)
        t.check(held and int(held.group(1)) == 24, "the new hog gets the 24 MiB it touches")
        for _ in range(40):
            if re.search(r"^\[%s\] redteam: killed by SIGKILL$" % victim, g.out, re.M):
                break
            g.command("ps")
            time.sleep(0.05)
        t.check(re.search(r"^\[%s\] redteam: killed by SIGKILL$" % victim, g.out, re.M),
                "the shell answers and reports that hog killed by SIGKILL", g.out[-600:])
        pids = [p for p in pids if p != victim] + [last]
        procs = g.command("ps")
        t.check(all(re.search(r"^\s*%d \w+ .* redteam$" % p, procs, re.M) for p in pids),
                "the other hogs keep running", procs)
        low = free_pages(g)
        t.check(low < before // 8, "the hogs hold the memory: PagesFree %d of %d" % (low, before))
        out = g.command("run hello")
        t.check("exit status 0" in out, "with memory short, a new process runs", out)
        t.check(oopses(g) == 0, "no oops with the memory gone")
        for pid in pids:
            g.command("kill %d" % pid)
        time.sleep(0.5)
        g.command("ps")
        after = free_pages(g)
        for _ in range(50):
            if after == before:
                break
            time.sleep(0.1)
            after = free_pages(g)
        t.check(after == before, "every page back after the hogs are killed",
                "before %d after %d" % (before, after))
        t.check(g.poweroff() == 1, "poweroff after the hogs")


def whole_lines(text):
    """text up to its last newline: a regex's $ must not match a line
    still arriving (it once took "run: bin/redteam: no free tas")."""
    return text[:text.rfind("\n") + 1]


def typed_ahead(g, lines, answer, batch):
    """Sends lines batch at a time without waiting for each prompt (the
    console's ring holds 256 bytes), each batch until every line of it has
    its answer (a regex); the answers' matches, in order."""
    found = []
    for i in range(0, len(lines), batch):
        part = lines[i:i + batch]
        start = len(g.out)
        g.send("".join(l + "\r" for l in part).encode())
        deadline = time.monotonic() + 120
        while len(list(re.finditer(answer, whole_lines(g.out[start:]), re.M))) < len(part):
            if time.monotonic() > deadline:
                raise AssertionError("no answer to %r; last output:\n%s" % (part, g.out[-800:]))
            time.sleep(0.05)
        found += list(re.finditer(answer, whole_lines(g.out[start:]), re.M))[:len(part)]
    g.wait_for("ronx> $", start=len(g.out) - 8)
    return found


def test_redteam_spinners(t):
    """70 silent spinners (redteam spinner): more than the task slots; the
    shell keeps answering, each one too many is refused in one line, and
    killing them all gives every page back."""
    with Guest("redteam spinners", extra=["-smp", "2"]) as g:
        g.wait_ready()
        g.command("run true")
        before, t0 = free_pages(g), time.monotonic()
        answers = typed_ahead(g, ["run redteam spinner &"] * 70,
                              r"^\[(\d+)\] redteam$|^run: bin/redteam: .*$", 8)
        pids = [int(m.group(1)) for m in answers if m.group(1)]
        refused = [m.group(0) for m in answers if not m.group(1)]
        started = time.monotonic() - t0
        t.check(len(pids) >= 60 and len(pids) + len(refused) == 70,
                "70 spinners asked for: %d run, %d refused" % (len(pids), len(refused)))
        t.check(refused and all(re.match(r"^run: bin/redteam: no free task slot", r) for r in refused),
                "each one past the task slots is refused in one line", "; ".join(refused[:3]))
        t1 = time.monotonic()
        out = g.command("meminfo")
        t.check("Oopses:            0" in out, "meminfo answers with %d spinners (%.1fs)"
                % (len(pids), time.monotonic() - t1), out)
        killed = typed_ahead(g, ["kill %d" % p for p in pids], r"^kill: SIGKILL sent to redteam\[\d+\]$", 16)
        t.check(len(killed) == len(pids), "kill each of them")
        for _ in range(50):
            if not re.search(r" redteam$", g.command("ps"), re.M):
                break
            time.sleep(0.1)
        t.check(free_pages(g) == before, "every page back after all are killed",
                "before %d after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the spinners")
        print("  redteam: %d spinners started in %.1fs, killed in %.1fs"
              % (len(pids), started, time.monotonic() - t1))


# spawn/exit churn per CPU count: runs of a fatal case, of a held case, of true
CHURN = [("redteam int3", "killed"), ("redteam kstack", "exit status 0"), ("true", "exit status 0")]


def test_redteam_smp_churn(t):
    """On 2, 3 and 4 CPUs, with a spinner on every CPU but one: the attacks
    spawned and ended over and over, the kill path on every CPU."""
    for ncpu in (2, 3, 4):
        with Guest("redteam smp %d" % ncpu, extra=["-smp", str(ncpu)]) as g:
            g.wait_ready()
            g.command("run true")
            before = free_pages(g)
            spinners = [int(re.search(r"^\[(\d+)\] redteam$", g.command("run redteam spinner &"),
                                      re.M).group(1)) for _ in range(ncpu - 1)]
            t0 = time.monotonic()
            for prog, how in CHURN:
                out = g.command("run -n 100 %s" % prog, timeout=120)
                m = re.search(r"run: 100 runs of \S+: (\d+) exit status 0, (\d+) other status, (\d+) killed",
                              out)
                n = {"exit status 0": m and m.group(1), "killed": m and m.group(3)}[how]
                t.check(n == "100", "-smp %d: 100 runs of %s: all %s" % (ncpu, prog, how), out)
            took = time.monotonic() - t0
            for pid in spinners:
                g.command("kill %d" % pid)
            time.sleep(0.3)
            g.command("ps")
            t.check(oopses(g) == 0 and free_pages(g) == before,
                    "-smp %d: no oops, every page back (PagesFree %d)" % (ncpu, before),
                    "after: %d" % free_pages(g))
            t.check(g.poweroff() == 1, "-smp %d: poweroff" % ncpu)
            print("  redteam: -smp %d: 300 spawn/exit cycles in %.1fs" % (ncpu, took))
