# SPDX-License-Identifier: GPL-2.0-only
"""Processes that make processes (issue 22), proven from outside: QEMU
walks each process's page tables from the CR3 `ps` prints (pae_walk, xp)
while programs hold still at known steps (they go on when a `park` whose
pid they were given is killed: wait_gone() in the user library; a park
only sleeps, so no CPU is kept busy meanwhile).

After fork the parent's and the child's PTEs point at one frame, both
read-only; after the child writes, two frames, and the parent's bytes
(read by xp) unchanged. Untouched anonymous pages are absent, then all
on the one zero-page frame, read-only, until written. The stack's pages
appear as it grows. The process limit ends a fork bomb with EAGAIN, a
toucher that exhausts RAM is killed with Linux's line, and every page
comes back. cr0_wp=off shows the kernel's write landing in the frame the
other process still maps."""
import re
import time

from guest import PROMPT, Guest
from tlb import pae_walk, registers, xp64
from userprog import GUARD, PAGE, STACK_TOP, free_pages, ps, run_park_in_background

FRAME = 0x000FFFFFFFFFF000
RW, USER = 2, 4
SMP2 = ["-smp", "2"]


def leaf(g, cr3, va):
    """The PTE QEMU finds for va under cr3, or None if va is not mapped."""
    e = pae_walk(g.monitor, cr3, va)
    return e[-1][2] if len(e) == 3 and e[-1][2] & 1 else None


def reap(g, pid, tries=40):
    """Kills the park pid and prompts until the shell has reported (reaped) it."""
    g.command("kill %d" % pid)
    for _ in range(tries):
        if re.search(r"\[%d\] park: killed by SIGKILL" % pid, g.out):
            return True
        g.command("ps")
        time.sleep(0.05)
    return False


def start(g, line, pattern):
    """Sends a shell line that starts a background program; waits for pattern; its match."""
    mark = len(g.out)
    g.send(line.encode() + b"\r")
    m = g.wait_for(pattern, start=mark)
    g.wait_for("^" + re.escape(PROMPT), start=mark)
    time.sleep(0.2)         # the program's next step is a wait: nothing more to print
    return m


def step(g, park, pattern):
    """Lets a holding program go on (its park dies) and waits for its next line.
    The last step too waits for the program's last line: a command typed while
    it still prints would have its echo cut by those lines (command() then
    never sees its own echo)."""
    mark = len(g.out)
    reap(g, park)
    m = g.wait_for(pattern, start=mark)
    time.sleep(0.2)
    return m


def test_fork_cow_from_outside(t):
    with Guest("fork cow", extra=SMP2) as g:
        g.wait_ready()
        before = free_pages(g)
        s1, s2 = run_park_in_background(g)[0], run_park_in_background(g)[0]
        mark = len(g.out)
        m = start(g, "run cowtest hold %d %d &" % (s1, s2),
                  r"cowtest: child (\d+) of (\d+): shared")
        child, parent = int(m.group(1)), int(m.group(2))
        va = int(re.search(r"cowtest: page at (?:0x)?([0-9a-f]+) holds 'P'", g.out[mark:]).group(1), 16)
        procs = ps(g)
        cr3p, cr3c = procs[parent][1], procs[child][1]
        t.check(cr3p != cr3c, "parent %d and child %d have two CR3s" % (parent, child), str(procs))
        g.monitor("stop")
        pe, ce = leaf(g, cr3p, va), leaf(g, cr3c, va)
        shared = pe and ce and pe & FRAME == ce & FRAME
        t.check(shared, "after fork: parent's and child's PTEs for %#x point at one frame" % va,
                "parent %s child %s" % (pe and hex(pe), ce and hex(ce)))
        t.check(pe and ce and not pe & RW and not ce & RW and pe & USER and ce & USER,
                "after fork: both PTEs read-only (RW=0), US=1", "parent %s child %s" % (pe and hex(pe), ce and hex(ce)))
        t.check(pe and xp64(g.monitor, pe & FRAME) == 0x5050505050505050,
                "xp: the shared frame holds the parent's 'P' bytes")
        g.monitor("cont")
        out = g.command("walk %#x %d" % (va, parent))
        t.check(re.search(r"^frame: 0x[0-9a-f]+ COW, mapped by 2 PTEs: read-only since fork", out, re.M),
                "walk VA PID: the frame is COW, mapped by 2 PTEs", out[-400:])
        out = g.command("ptdump %d" % child)
        runs = [(int(a, 16), int(b, 16)) for a, b in
                re.findall(r"^0x([0-9a-f]{8})-0x([0-9a-f]{8}) +\d+K COW +each frame mapped by 2:", out, re.M)]
        t.check(re.search(r"^---\[ Shared frames of cowtest\[%d\] \]---$" % child, out, re.M) and
                any(a <= va < b for a, b in runs),
                "ptdump PID: a Shared frames section; the page is in a COW run, each frame mapped by 2",
                out[-900:])
        out = g.command("meminfo")
        cow = re.search(r"CowPtes:\s+(\d+)", out)
        t.check(cow and int(cow.group(1)) >= 2, "meminfo counts the COW PTEs", out)

        step(g, s1, r"cowtest: child wrote 'C'")
        g.monitor("stop")
        pe2, ce2 = leaf(g, cr3p, va), leaf(g, cr3c, va)
        t.check(pe2 and ce2 and pe2 & FRAME != ce2 & FRAME and pe2 & FRAME == pe & FRAME,
                "after the child's write: two frames, the parent's the old one",
                "parent %s child %s" % (pe2 and hex(pe2), ce2 and hex(ce2)))
        t.check(ce2 and ce2 & RW, "the child's new PTE is writable")
        t.check(pe2 and xp64(g.monitor, pe2 & FRAME) == 0x5050505050505050 and
                xp64(g.monitor, (pe2 & FRAME) + PAGE - 8) == 0x5050505050505050,
                "xp: the parent's frame still holds 'P'")
        t.check(ce2 and xp64(g.monitor, ce2 & FRAME) == 0x4343434343434343,
                "xp: the child's frame holds 'C'")
        g.monitor("cont")
        out = g.command("walk %#x %d" % (va, parent))
        t.check("COW, last user" in out, "walk: the parent's page is read-only with no other user left", out[-300:])

        step(g, s2, r"cowtest: (ok|FAIL) hold_parent_unchanged")
        for _ in range(100):
            if "[%d] cowtest: exit status 0" % parent in g.out:
                break
            g.command("ps")
            time.sleep(0.05)
        t.check("[%d] cowtest: exit status 0" % parent in g.out and "cowtest: ok hold_parent_unchanged" in g.out,
                "cowtest: the parent read its own bytes and exited 0", g.out[-500:])
        t.check(free_pages(g) == before, "every page back after fork, COW and exit",
                "before %d after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the COW checks")


def test_fork_first_touch_zero_page(t):
    with Guest("first touch", extra=SMP2) as g:
        g.wait_ready()
        before = free_pages(g)
        parks = [run_park_in_background(g)[0] for _ in range(3)]
        m = start(g, "run zerotest hold %d %d %d &" % tuple(parks), r"zerotest: mapped, nothing touched")
        h = re.search(r"zerotest: mmap at (?:0x)?([0-9a-f]+), heap at (?:0x)?([0-9a-f]+)", g.out)
        mm, heap = int(h.group(1), 16), int(h.group(2), 16)
        pid = [p for p, (_, _, name) in ps(g).items() if name == "zerotest"][0]
        cr3 = ps(g)[pid][1]
        vas = [mm + i * PAGE for i in range(8)] + [heap + i * PAGE for i in range(8)]
        g.monitor("stop")
        t.check(all(leaf(g, cr3, va) is None for va in vas),
                "mmap and brk: no page is mapped before the first touch")
        g.monitor("cont")
        step(g, parks[0], r"zerotest: read every page")
        g.monitor("stop")
        leaves = [leaf(g, cr3, va) for va in vas]
        zero = {e & FRAME for e in leaves if e}
        t.check(all(leaves) and len(zero) == 1 and not any(e & RW for e in leaves),
                "after reads: all 16 pages on one frame (the zero page), read-only",
                " ".join(hex(e) if e else "-" for e in leaves))
        z = min(zero) if zero else 0
        t.check(z and all(xp64(g.monitor, z + off) == 0 for off in range(0, PAGE, 512)),
                "xp: the zero page holds zeros")
        g.monitor("cont")
        out = g.command("meminfo")
        zp = re.search(r"ZeroPtes:\s+(\d+)", out)
        t.check(zp and int(zp.group(1)) >= 16, "meminfo counts the zero-page PTEs", out)
        out = g.command("walk %#x %d" % (mm, pid))
        t.check("is the zero page" in out, "walk VA PID names the zero page", out[-300:])
        step(g, parks[1], r"zerotest: wrote the even pages")
        g.monitor("stop")
        leaves = [leaf(g, cr3, va) for va in vas]
        even = [e for i, e in enumerate(leaves) if i % 2 == 0]
        odd = [e for i, e in enumerate(leaves) if i % 2]
        t.check(all(even) and all(e & RW for e in even) and len({e & FRAME for e in even}) == 8
                and z not in {e & FRAME for e in even},
                "written pages: 8 frames of their own, writable, none the zero page",
                " ".join(hex(e) if e else "-" for e in even))
        t.check(all(odd) and {e & FRAME for e in odd} == {z} and not any(e & RW for e in odd),
                "pages only read stay on the zero page, read-only")
        t.check(z and xp64(g.monitor, z) == 0, "xp: the zero page is still zero")
        g.monitor("cont")
        step(g, parks[2], r"zerotest: \d+ of \d+ checks passed")
        for _ in range(100):
            if re.search(r"\[%d\] zerotest: exit status 0" % pid, g.out):
                break
            g.command("ps")
            time.sleep(0.05)
        t.check(re.search(r"\[%d\] zerotest: exit status 0" % pid, g.out) and
                "zerotest: 5 of 5 checks passed" in g.out, "zerotest passes its own checks", g.out[-600:])
        t.check(free_pages(g) == before, "every page back (the zero page and the frame counts go with the last mm)",
                "before %d after %d" % (before, free_pages(g)))
        out = g.command("run zerotest")
        t.check("zerotest: 5 of 5 checks passed" in out, "the zero page still reads zero for the next process", out)
        t.check(g.poweroff() == 1, "poweroff after the first-touch checks")


def test_fork_stack_grows(t):
    with Guest("stack growth", cmdline="norandmaps") as g:
        g.wait_ready()
        before = free_pages(g)
        s1, s2 = run_park_in_background(g)[0], run_park_in_background(g)[0]
        start(g, "run stackgrow hold %d %d &" % (s1, s2), r"stackgrow: 1024 KiB deep")
        pid = [p for p, (_, _, name) in ps(g).items() if name == "stackgrow"][0]
        cr3 = ps(g)[pid][1]
        g.monitor("stop")
        near, far = leaf(g, cr3, STACK_TOP - (960 << 10)), leaf(g, cr3, STACK_TOP - (1280 << 10))
        t.check(near and near & RW and near >> 63 and far is None,
                "1 MiB deep: the stack's pages are there down to 1 MiB, RW+NX, none below",
                "%s %s" % (near and hex(near), far and hex(far)))
        g.monitor("cont")
        out = g.command("walk %#x %d" % (STACK_TOP - (1280 << 10), pid))
        t.check("user stack room of stackgrow" in out, "walk names the room the stack may grow into", out[-300:])
        step(g, s1, r"stackgrow: 2048 KiB deep")
        g.monitor("stop")
        near, far = leaf(g, cr3, STACK_TOP - (1984 << 10)), leaf(g, cr3, STACK_TOP - (2304 << 10))
        t.check(near and near & RW and far is None, "2 MiB deep: the new pages appeared, none below",
                "%s %s" % (near and hex(near), far and hex(far)))
        t.check(leaf(g, cr3, GUARD) is None, "the guard page %#x is absent" % GUARD)
        g.monitor("cont")
        step(g, s2, r"stackgrow: grew to 2048 KiB")
        for _ in range(100):
            if "stackgrow: grew to 2048 KiB" in g.out and "[%d] stackgrow: exit status 0" % pid in g.out:
                break
            g.command("ps")
            time.sleep(0.05)
        t.check("[%d] stackgrow: exit status 0" % pid in g.out, "stackgrow hold ends, exit 0", g.out[-400:])
        out = g.command("run stackgrow", timeout=120)
        t.check(re.search(r"stackgrow\[\d+\]: segfault at bf7[0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error 6", out)
                and "grew to 6144 KiB" in out and "exit status 0" in out,
                "stackgrow: 6 MiB deep works; a touch beyond 8 MiB is SIGSEGV (error 6)", out[-600:])
        out = g.command("meminfo")
        t.check(re.search(r"StackGrows:\s+[1-9]", out) and free_pages(g) == before,
                "meminfo counts the growth; every page back", out)
        t.check(g.poweroff() == 1, "poweroff after the stack checks")


def test_fork_programs_and_cycles(t):
    with Guest("fork programs", extra=SMP2) as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        out = g.command("run forktest", timeout=120)
        m = re.search(r"forktest: (\d+) of (\d+) checks passed", out)
        t.check(m and m.group(1) == m.group(2) and re.search(r"\[\d+\] forktest: exit status 0", out),
                "forktest: every check passes (%s)" % (m and m.group(0)), out[-1500:])
        out = g.command("run cowtest", timeout=120)
        t.check("cowtest: 5 of 5 checks passed" in out, "cowtest: COW both ways and the kernel's write", out[-800:])
        t.check(free_pages(g) == before, "every page back after forktest and cowtest",
                "before %d after %d" % (before, free_pages(g)))
        out = g.command("run bench_fork 1000", timeout=600)
        t.check(re.search(r"bench_fork: fork\+exit\+wait: min \d+ median \d+ cycles", out),
                "1000 fork+exit+wait cycles", out[-600:])
        after = free_pages(g)
        t.check(after == before, "free pages equal before and after 1000 fork/exit cycles",
                "before %d after %d" % (before, after))
        out = g.command("run forkbomb", timeout=300)
        t.check(re.search(r"forkbomb: fork failed with EAGAIN after \d+ children", out) and
                re.search(r"forkbomb: killed and reaped (\d+) of \1 children", out) and "exit status 0" in out,
                "a fork bomb meets the process limit: EAGAIN, then every child reaped", out[-600:])
        out = g.command("run forkbomb tree", timeout=300)
        t.check("stopped after" in out and "EAGAIN" in out and "forkbomb: exit status 0" in out,
                "the classic tree fork bomb ends: every process saw EAGAIN", out[-600:])
        for _ in range(20):
            procs = ps(g)
            if list(procs) == [0]:
                break
            time.sleep(0.2)
        t.check(list(ps(g)) == [0], "the shell answers, and only it is left", g.command("ps"))
        park = run_park_in_background(g)[0]
        mark = len(g.out)
        g.send(b"run cowtest hold %d %d\r" % (park, park))
        g.wait_for(r"cowtest: child \d+ of \d+: shared", start=mark)
        time.sleep(0.3)
        g.send(b"\x03")
        g.wait_for(r"\[\d+\] cowtest: killed by SIGINT", start=mark)
        g.wait_for("^" + re.escape(PROMPT), start=mark)
        time.sleep(0.3)
        left = [p for p, (st, _, name) in ps(g).items() if name == "cowtest" and st != "zombie"]
        t.check(not left, "Ctrl-C kills the foreground job's whole group: the forked child too",
                g.command("ps"))
        reap(g, park)
        t.check(free_pages(g) == before, "every page back after the fork bombs",
                "before %d after %d" % (before, free_pages(g)))
        t.check(g.poweroff() == 1, "poweroff after the fork programs")


def test_fork_out_of_memory(t):
    with Guest("out of memory", memory="24M") as g:
        g.wait_ready()
        g.command("run true")
        before = free_pages(g)
        out = g.command("run oomtouch 64", timeout=300)
        t.check(re.search(r"^Out of memory: Killed process (\d+) \(oomtouch\) total-vm:\d+kB", out, re.M)
                and re.search(r"\[\d+\] oomtouch: killed by SIGKILL", out),
                "running out of RAM in a fault: Linux's line naming the process, then SIGKILL", out[-600:])
        t.check(free_pages(g) == before, "every page back after the OOM kill",
                "before %d after %d" % (before, free_pages(g)))
        out = g.command("run hello")
        t.check("exit status 0" in out, "the next process runs", out)
        t.check("Oopses:            0" in g.command("meminfo"), "no oops")
        t.check(g.poweroff() == 1, "poweroff after the OOM kill")


def test_fork_cr0_wp(t):
    with Guest("cr0.wp on", extra=SMP2) as g:
        g.wait_ready()
        out = g.command("crash COW_KERNEL_WRITE", timeout=60)
        t.check("the parent kept its bytes" in out and "FAIL" not in out,
                "CR0.WP set: the kernel's copy_to_user into a COW page copies it", out)
        t.check(registers(g.monitor("info registers"))["CR0"] & (1 << 16), "QEMU: CR0.WP is set")
        t.check(g.poweroff() == 1, "poweroff (cr0.wp on)")
    with Guest("cr0.wp off", cmdline="cr0_wp=off", extra=SMP2) as g:
        log = g.wait_ready()
        t.check("cr0_wp=off: CR0.WP is clear" in log, "cr0_wp=off says what it does at boot")
        for cpu in (0, 1):
            t.check(not registers(g.monitor("info registers", cpu=cpu))["CR0"] & (1 << 16),
                    "QEMU: CR0.WP is clear on CPU %d" % cpu)
        out = g.command("crash COW_KERNEL_WRITE", timeout=60)
        t.check('the parent\'s page reads "cow-child"' in out and
                "lkdtm: FAIL: the kernel's copy_to_user() wrote into the frame the parent still maps" in out,
                "CR0.WP clear: the kernel's write lands in the frame the parent still sees", out)
        t.check(g.poweroff() == 1, "poweroff (cr0.wp off)")
