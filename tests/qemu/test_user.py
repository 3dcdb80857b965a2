# SPDX-License-Identifier: GPL-2.0-only
"""User mode, proven from outside (issue 14): processes in ring 3, each
in its own page tables, read from QEMU while they run; the segfault line
for each protection demo; Ctrl-C, kill, several processes switched by the
timer; 1000 spawn/exit cycles with the free-page count unchanged; the
loader's refusals; a kernel bug in a system call killing only that
process."""
import os
import re
import time

from guest import Guest
from tlb import PageTables, pae_walk, registers
from userprog import (GUARD, PAGE, SEGV, STACK_BOTTOM, TASK_SIZE, expected_perms,
                      free_pages, initrd_path, program, ps, run_spin_in_background)
from guest import BUILD

CPU_SMEP = "qemu32,+nx,+pae,+smep,+smap"
CR4_SMEP, CR4_SMAP = 1 << 20, 1 << 21
KERNEL = 0xC0100000

# program -> (fault address or None for "ip", error code, what it shows)
DEMOS = {
    "nullread": (0, 0x4, "a read of page 0: not present, user"),
    "nullwrite": (0, 0x6, "a write to page 0: not present, write, user"),
    "stackexec": (None, 0x15, "running the stack: present, user, instruction fetch (NX)"),
    "writetext": (None, 0x7, "writing its own text: present, write, user (RO)"),
    # PTI is on by default: the user set does not map the kernel at all
    # (tests/qemu/test_pti.py: with pti=off, present and US=0: 5, 7, 0x15)
    "readkernel": (KERNEL, 0x4, "reading the kernel: not present in the user set (PTI), user"),
    "writekernel": (KERNEL, 0x6, "writing the kernel: not present in the user set (PTI), write, user"),
    "execkernel": (KERNEL, 0x14, "calling into kernel text: not present in the user set (PTI), user, fetch"),
    "stackoverflow": ("guard", 0x6, "recursing into the guard page: not present, write"),
}


def test_user_programs(t):
    with Guest("user programs", cmdline="norandmaps", cpu=CPU_SMEP) as g:
        g.wait_ready()
        before = free_pages(g)
        out = g.command("run hello one two")
        m = re.search(r"hello from user space, pid (\d+)", out)
        t.check(m and re.search(r"\[%s\] hello: exit status 0" % (m and m.group(1)), out)
                and 'argv[2] = "two"' in out, "run hello: its line, its argv, exit status 0", out)
        for name, (addr, err, what) in DEMOS.items():
            out = g.command("run " + name)
            m = SEGV.search(out)
            ok = m and m.group(1) == name and int(m.group(6), 16) == err
            if ok and addr == "guard":
                ok = GUARD <= int(m.group(3), 16) < STACK_BOTTOM
            elif ok and addr is None:
                ok = name != "stackexec" or m.group(3) == m.group(4).lstrip("0")
            elif ok:
                ok = int(m.group(3), 16) == addr
            t.check(ok and "%s: killed by SIGSEGV" % name in out,
                    "%s: Linux's segfault line, error %x (%s), then killed" % (name, err, what), out)
        out = g.command("run mmaprwx")
        t.check("EACCES" in out and "exit status 0" in out, "mmap RWX is refused with EACCES", out)
        out = g.command("run jit")
        t.check("returned 42" in out and "exit status 0" in out, "jit: RW, then RX, then run: works", out)
        out = g.command("run wxsegment")
        t.check(re.search(r"exec: bin/wxsegment: PT_LOAD .*W\^X: refused", out),
                "a W+X PT_LOAD is refused with one line naming it", out)
        out = g.command("meminfo")
        t.check("Oopses:            0" in out, "no oops from any demo", out)
        t.check(free_pages(g) == before, "every page back after the demos",
                "before %d, after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the demos")


def user_mappings(pt):
    return [m for m in pt.maps if m.va < TASK_SIZE]


def check_tables_of_running(t, g, pid, cr3, elf):
    """info tlb is the tables in CR3: the stopped CPU's, which must be pid's."""
    pt = PageTables(g.monitor("info tlb"))
    want = expected_perms(elf)
    users = user_mappings(pt)
    t.check(users and all(m.user and not m.glb for m in users),
            "[pid %d] every user-half page is US=1 and not global" % pid,
            "; ".join("%08x U=%d G=%d" % (m.va, m.user, m.glb) for m in users if not m.user or m.glb))
    kern = [m for m in pt.maps if m.va >= TASK_SIZE and m.user]
    t.check(not kern, "[pid %d] every kernel page is US=0" % pid,
            "; ".join("%08x" % m.va for m in kern[:5]))
    t.check(pt.wx_pages(0, TASK_SIZE) == 0, "[pid %d] no user page is W+X" % pid)
    bad = ["%08x %s" % (m.va, m.perm()) for m in users
           if m.va not in want or (m.rw, m.exec) != want[m.va]]
    missing = [va for va in want if not pt.lookup(va)]
    t.check(not bad and not missing,
            "[pid %d] each user page has the permission its segment (or the stack) asked for" % pid,
            "wrong: %s; missing: %s" % (bad[:6], ["%08x" % v for v in missing[:6]]))
    t.check(pt.lookup(GUARD) is None, "[pid %d] the guard page %08x is absent" % (pid, GUARD))
    return {m.pa for m in users}


def walk_frames(g, cr3, vas):
    """va -> (leaf entry or None), by QEMU's own reads of another process's tables."""
    mon = g.monitor
    out = {}
    for va in vas:
        e = pae_walk(mon, cr3, va)
        out[va] = e[-1][2] if len(e) == 3 and e[-1][2] & 1 else None
    return out


def test_user_page_tables_from_outside(t):
    with Guest("user page tables", cmdline="norandmaps", cpu=CPU_SMEP) as g:
        g.wait_ready()
        elf = program(initrd_path(g), "spin")
        pids = [run_spin_in_background(g)[0] for _ in range(2)]
        time.sleep(0.5)
        procs = ps(g)
        cr3s = {pid: procs[pid][1] for pid in pids}
        t.check(len(set(cr3s.values())) == 2, "two processes, two CR3s (each its own PDPT)", str(cr3s))
        pti = "Kernel/User page tables isolation: enabled" in g.out
        # the shell may still be printing ps's output when QEMU stops the CPU:
        # let it run on (a few times at most) until a spinner is on the CPU
        for _ in range(20):
            g.monitor("stop")
            regs_text = g.monitor("info registers")
            regs = registers(regs_text)
            # ps shows the kernel set; in ring 3 with PTI (on by default) the
            # CPU runs on its user set, the PDPT 0x800 further in the same page
            cpl3 = re.search(r"\bCPL=3\b", regs_text)
            seen = regs.get("CR3", 0) & 0xFFFFFFE0
            running = [p for p in pids if seen == (cr3s[p] | 0x800 if cpl3 and pti else cr3s[p])]
            if running:
                break
            g.monitor("cont")
            time.sleep(0.1)
        t.check(len(running) == 1, "the stopped CPU's CR3 is one spinning process's (%s set)"
                % ("user" if cpl3 and pti else "kernel"),
                "CR3=%#x, processes: %s" % (regs.get("CR3", 0), cr3s))
        t.check(regs.get("CR4", 0) & CR4_SMEP and regs.get("CR4", 0) & CR4_SMAP,
                "CR4.SMEP and CR4.SMAP are set", "CR4=%#x" % regs.get("CR4", 0))
        if running:
            a = running[0]
            b = [p for p in pids if p != a][0]
            frames_a = check_tables_of_running(t, g, a, cr3s[a], elf)
            want = expected_perms(elf)
            leaves = walk_frames(g, cr3s[b], sorted(want))
            bad = ["%08x" % va for va, e in leaves.items()
                   if e is None or not e & 4 or bool(e & 2) != want[va][0]
                   or (not (e >> 63)) != want[va][1]]
            t.check(not bad, "[pid %d] PDPTE/PDE/PTE walk (xp): every page US=1 with its segment's permission" % b,
                    ", ".join(bad[:8]))
            frames_b = {e & 0x000FFFFFFFFFF000 for e in leaves.values() if e}
            t.check(frames_b and not frames_a & frames_b,
                    "no frame of pid %d is in pid %d's user half, and none of %d's in %d's" % (b, a, a, b),
                    "shared: %s" % sorted(hex(f) for f in frames_a & frames_b)[:5])
            guard = pae_walk(g.monitor, cr3s[b], GUARD)
            t.check(not guard[-1][2] & 1, "[pid %d] the guard page is absent in its walk" % b, str(guard))
        g.monitor("cont")
        out = g.command("wxcheck")
        t.check("user space of 2 processes: passed" in out, "wxcheck audits both processes' user half", out)
        out = g.command("ptdump %d" % pids[0])
        t.check(out.startswith("---[ User Space ]---") and re.search(r"^0xbffe0000-0xc0000000 +128K USR RW +NX pte$", out, re.M),
                "ptdump PID: the user half under Linux's marker, the stack USR RW NX", out[:600])
        out = g.command("walk %#x %d" % (GUARD, pids[0]))
        t.check("region: user guard page of spin" in out and "not mapped" in out,
                "walk VA PID names the guard page", out)
        for pid in pids:
            g.command("kill %d" % pid)
        g.command("ps")
        t.check(g.poweroff() == 1, "poweroff after the page-table checks")


def reported(g, pattern, tries=30):
    """A background job's end is reported before a later prompt: prompt until it is."""
    start = len(g.out)
    for _ in range(tries):
        if re.search(pattern, g.out[start:]):
            return True
        g.command("ps")
        time.sleep(0.05)
    return bool(re.search(pattern, g.out[start:]))


def test_user_processes_and_signals(t):
    with Guest("user processes", cpu=CPU_SMEP) as g:
        g.wait_ready()
        before = free_pages(g)
        start = len(g.out)
        g.send(b"run spin\r")
        g.wait_for(r"spin: pid \d+", start=start)
        g.send(b"\x03")
        g.wait_for(r"\[\d+\] spin: killed by SIGINT\n", start=start)
        g.wait_for("^ronx> ", start=start + 10)
        t.check(True, "Ctrl-C kills the foreground spin (SIGINT) and the prompt comes back")
        pids = [run_spin_in_background(g)[0] for _ in range(3)]
        time.sleep(0.3)
        first = ps(g)
        time.sleep(1.0)
        second = ps(g)
        t.check(all(p in second and second[p][0] in ("runnable", "running") for p in pids),
                "three processes alive at once", g.command("ps"))
        out = g.command("ps")
        ticks = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^\s*(\d+) \w+\s+0x\w+\s+(\d+)", out, re.M)}
        t.check(all(ticks.get(p, 0) > 5 for p in pids),
                "the timer switches between them: each has run for ticks of its own", out)
        t.check(len({second[p][1] for p in pids}) == 3, "each has its own CR3", out)
        for p in pids:
            t.check("SIGKILL sent to spin[%d]" % p in g.command("kill %d" % p), "kill %d" % p)
        t.check(all(reported(g, r"\[%d\] spin: killed by SIGKILL" % p) or
                    "[%d] spin: killed by SIGKILL" % p in g.out for p in pids),
                "each killed process is reported", g.out[-800:])
        t.check(not any(re.search(r"^\s*%d " % p, g.command("ps"), re.M) for p in pids),
                "killed processes are gone from ps")
        out = g.command("kill 0")
        t.check("kernel task: refused" in out, "kill refuses the shell", out)
        out = g.command("run cat &")
        t.check(reported(g, r"\[\d+\] cat: exit status 0"), "a background cat reads end of file at once",
                g.out[-800:])
        start = len(g.out)
        g.send(b"run cat\r")
        g.wait_for(r"run cat\n", start=start)
        g.send(b"through the tty\r")
        g.wait_for(r"through the tty\nthrough the tty\n", start=start)
        g.send(b"\x04")
        g.wait_for(r"cat: exit status 0", start=start)
        g.wait_for("^ronx> ", start=start + 10)
        t.check(True, "a foreground cat echoes a line, Ctrl-D ends it")
        t.check(free_pages(g) == before, "every page back after Ctrl-C, kill and cat",
                "before %d after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the process checks")


def test_user_spawn_cycles(t):
    with Guest("user spawn cycles") as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        t0 = time.monotonic()
        out = g.command("run -n 1000 true", timeout=300)
        took = time.monotonic() - t0
        t.check("1000 runs of true: 1000 exit status 0" in out, "1000 spawn/exit cycles of true", out)
        after = free_pages(g)
        t.check(before == after, "free pages equal before and after 1000 cycles",
                "before %d, after %d" % (before, after))
        out = g.command("run -n 100 nullread", timeout=300)
        t.check("100 killed" in out and free_pages(g) == before,
                "100 segfaulting runs: every page back", out[-300:])
        print("  spawn cycles: 1000 runs of true in %.1fs; free pages %d before, %d after"
              % (took, before, after))
        t.check(g.poweroff() == 1, "poweroff after the cycles")


def test_user_kernel_bug_in_syscall(t):
    with Guest("user kernel bug") as g:
        g.wait_ready()
        g.command("crash SYSCALL_BUG")
        out = g.command("run hello")
        t.check("Oops" in out and re.search(r"ronx: hello\[\d+\] dies of the oops; the kernel goes on", out)
                and "hello: killed by SIGSEGV" in out,
                "a kernel bug in a system call oopses and kills only that process", out[-800:])
        out = g.command("run hello")
        t.check("exit status 0" in out, "the next process runs normally", out)
        t.check(g.poweroff() == 1, "poweroff after the oops")


def test_user_loader_refusals(t):
    manifest = os.path.join(BUILD, "exec", "EXPECTED")
    rows = [line.rstrip("\n").split("\t") for line in open(manifest) if "\t" in line]
    with Guest("user refusals") as g:
        g.wait_ready()
        before = free_pages(g)
        for name, want in rows:
            out = g.command("run broken/" + name)
            if want == "ok":
                t.check("ok: a minimal ET_EXEC ran in ring 3" in out and "ok: exit status 0" in out,
                        "broken/ok (a minimal ET_EXEC) runs", out)
            elif want.startswith("runs: "):
                t.check(re.search(r"^traps: %s\[\d+\] %s ip:80480c0 sp:bf[89a-f][0-9a-f]{5} error:0 in %s\[8048000\+1000\]$"
                                  % (name, re.escape(want[6:]), name), out, re.M)
                        and "%s: killed by SIG" % name in out,
                        "broken/%s: Linux's traps: line (%s), then killed" % (name, want[6:]), out)
            else:
                t.check(re.search(r"^exec: bin/broken/%s: .*%s" % (name, re.escape(want)), out, re.M),
                        "broken/%s is refused: %s" % (name, want), out)
        t.check(free_pages(g) == before, "no page left behind by %d refusals" % len(rows))
        t.check(g.poweroff() == 1, "poweroff after the refusals")


# bench_appel's rows (user/bin/bench_appel.c): every one must be printed
APPEL_ROWS = ("trap", "prot1+trap+unprot", "protN+trap+unprot", "appel1", "appel2",
              "lat_sig install", "lat_sig catch", "lat_sig prot")


def test_user_bench_appel(t):
    """bench_appel runs to completion: its rows well-formed, and every
    fault and signal its rows caused reached its handlers (no timing)."""
    with Guest("user bench_appel") as g:
        g.wait_ready()
        out = g.command("run bench_appel 50", timeout=300)
        got = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
            r"^bench_appel: (.+?): min (\d+) median (\d+) cycles$", out, re.M)}
        t.check(list(got) == list(APPEL_ROWS) and all(0 < lo <= med for lo, med in got.values()),
                "bench_appel: its 8 rows in order, each 0 < min <= median", out[-1200:])
        # trap, prot1, protN, appel1: 50 faults each; appel2: 5 rounds of 100; lat_sig prot: 51
        t.check(re.search(r"^bench_appel: 751 SIGSEGV handled \(expected 751\), "
                          r"50 SIGUSR1 caught \(expected 50\)$", out, re.M) and
                re.search(r"\[\d+\] bench_appel: exit status 0", out),
                "bench_appel: every fault and signal reached its handler, exit status 0", out[-600:])
        out = g.command("meminfo")
        t.check("Oopses:            0" in out, "no oops from bench_appel", out)
        t.check(g.poweroff() == 1, "poweroff after bench_appel")


def test_user_vm_demos(t):
    """guardpage and writebarrier (user/bin/): their verdicts, from the
    fault addresses and counts their SIGSEGV handlers saw."""
    with Guest("user vm demos") as g:
        g.wait_ready()
        out = g.command("run guardpage 100")
        obj = re.search(r"^guardpage: a 100-byte object at (0x[0-9a-f]+), the guard page at "
                        r"(0x[0-9a-f]+)$", out, re.M)
        seg = re.search(r"^guardpage: SIGSEGV \(SEGV_ACCERR\) at (0x[0-9a-f]+): 0 bytes past the "
                        r"end of the 100-byte object at (0x[0-9a-f]+)$", out, re.M)
        t.check(obj and seg and int(obj.group(1), 16) + 100 == int(obj.group(2), 16) ==
                int(seg.group(1), 16) and seg.group(2) == obj.group(1) and
                "guardpage: wrote all 100 bytes: 0 faults" in out,
                "guardpage: the object ends at the guard page; writing it all faults never, one "
                "byte past faults at the guard page's first byte (SEGV_ACCERR, offset 0)", out)
        t.check(re.search(r"^guardpage: SIGSEGV \(SEGV_ACCERR\) at 0x[0-9a-f]+: 7 bytes past the end",
                          out, re.M) and
                "guardpage: caught: each overflow faulted at the byte it wrote" in out and
                re.search(r"\[\d+\] guardpage: exit status 0", out), "guardpage: a write 7 bytes past: si_addr that byte; caught, exit 0", out)
        out = g.command("run writebarrier 64")
        eps = re.findall(r"^writebarrier: epoch \d: \d+ writes to (\d+) of 64 pages; the handler saw "
                         r"(\d+) first writes, dirty pages: (\d+)$", out, re.M)
        t.check(eps == [("22", "22", "22"), ("13", "13", "13")],
                "writebarrier: each epoch's dirty count is the pages written (22, then 13 of 64)", out)
        t.check("the dirty set is exactly the pages written, both epochs" in out and
                re.search(r"\[\d+\] writebarrier: exit status 0", out), "writebarrier: exit 0", out)
        t.check(g.poweroff() == 1, "poweroff after the demos")
