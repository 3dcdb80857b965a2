# SPDX-License-Identifier: GPL-2.0-only
"""SMP (issue 16), from outside as well as inside: the CPUs ronx starts
and the ones it must not (nosmp, maxcpus=, a CPU that never answers), read
from QEMU per CPU; the trampoline mapped executable while CPUs start and
gone after (gdb stops the boot inside smp_init); and cpa_shootdown=off,
with which the stale TLB entry is real: the crash demos' writes go
through and the self-tests that look for stale entries fail, proving
that they can."""
import os
import re
import shutil
import subprocess
import time

import cea
from guest import BUILD, ROOT, Guest, skip_under_boot_extra
from smp import (check_cpus_parked, check_cpus_up, check_trampoline_gone, cpu_states,
                 PAGE_OFFSET)
from tlb import PageTables
from userprog import ps, run_spin_in_background

ELF = os.path.join(BUILD, "kernel.elf")


def kernel_cr3(g):
    """The kernel's page tables (swapper_pg_dir, moved by the boot's Kernel Offset)."""
    return g.symbols()["swapper_pg_dir"] - PAGE_OFFSET


def check_smp_selftests(t, g, name, where):
    ktap = []
    for suite in ("smp", "smp_stress"):
        ktap += t.ktap(g.command("selftest " + suite, timeout=600), "selftest[%s]" % name)
    t.check(ktap and all(st == "ok" for _, _, st, _ in ktap),
            "every smp and smp_stress self-test passes" + where)


def test_smp_every_cpu_up(t):
    """-smp 4: the boot lines, each CPU from QEMU and from `cpus`, the counters."""
    with Guest("smp4", extra=["-smp", "4"]) as g:
        log = g.wait_ready()
        for cpu in (1, 2, 3):
            t.check(re.search(r"^smpboot: CPU %d APIC 0x%x \.\.\. ok: CR0 [0-9a-f]{8} CR3 %08x "
                              r"CR4 [0-9a-f]{8} EFER [0-9a-f]+ \(as the boot CPU\)$"
                              % (cpu, cpu, kernel_cr3(g)), log, re.M),
                    "boot says CPU %d is up with the kernel's CR3, as the boot CPU" % cpu)
        t.check("smp: Bringing up secondary CPUs ..." in log and
                "smp: Brought up 1 node, 4 CPUs" in log, "Linux's smp: lines")
        stat = g.command("cpastat")
        rows = {int(m.group(1)): [int(x) for x in m.group(2).split()]
                for m in re.finditer(r"^\s*(\d)\s+((?:\d+\s+){5}\d+)$", stat, re.M)}
        states = cpu_states(g)
        check_cpus_up(t, "smp4", states, {0, 1, 2, 3}, kernel_cr3(g))
        check_trampoline_gone(t, "smp4", g, log)
        line = [l for l in g.monitor("info tlb").splitlines() if l.startswith("00000000ffe00000:")]
        t.check(re.match(r"^00000000ffe00000: 80000000fee00000 XG-[D-][A-]CT-W$", line[0] if line else ""),
                "the local APIC's registers: 0xffe00000 -> 0xfee00000, RW+NX, uncached "
                "(PCD, PWT: C and T in info tlb)", "%s" % line)
        out = g.command("cpus")
        for s in states:
            t.check(re.search(r"^\s+%d\s+0x%x\s+%08x\s+%08x\s+%08x\s+%08x\s"
                              % (s["cpu"], s["cpu"], s["CR0"], s["CR3"], s["CR4"], s["EFER"]),
                              out, re.M),
                    "`cpus` CPU %d: the registers QEMU reads" % s["cpu"], out)

        t.check(len(rows) == 4 and rows[0][0] > 0 and rows[0][1] == 3 * rows[0][0],
                "cpastat: CPU 0's boot shootdowns each sent 3 IPIs", stat)
        t.check(all(rows.get(c, [0] * 6)[2] == rows[0][0] for c in (1, 2, 3)),
                "cpastat: each other CPU ran every one of them", stat)
        check_smp_selftests(t, g, "smp4", "")
        t.check(g.poweroff() == 1, "poweroff with 4 CPUs up")


def test_smp_cpus_left_out(t):
    """nosmp and maxcpus=2: the others stay as the BIOS left them (QEMU says so)."""
    for cmdline, up, line in (("nosmp", 1, "smp: nosmp on the command line: the other 3 CPUs stay halted"),
                              ("maxcpus=2", 2, "smpboot: CPU APIC 0x2 not started: maxcpus on the command line")):
        with Guest("smp " + cmdline, cmdline=cmdline, extra=["-smp", "4"]) as g:
            log = g.wait_ready()
            t.check(line in log and "smp: Brought up 1 node, %d CPU%s" % (up, "s" if up > 1 else "") in log,
                    "[%s] %s" % (cmdline, line), log[-600:])
            states = cpu_states(g)
            check_cpus_up(t, cmdline, states, set(range(up)), kernel_cr3(g))
            check_cpus_parked(t, cmdline, states, set(range(up, 4)))
            out = g.command("crash SMP_STALE_WRITE")
            t.check(("needs a second CPU" in out) == (up == 1),
                    "[%s] the demo runs only with a second CPU" % cmdline, out)
            g.poweroff()


def test_smp_cpu_that_does_not_answer(t):
    """smpboot_fail=2: CPU 2 gets no STARTUP; the boot says so and runs on the other three."""
    with Guest("smp fail", cmdline="smpboot_fail=2", extra=["-smp", "4"]) as g:
        log = g.wait_ready()
        t.check(re.search(r"^smpboot: CPU 2 APIC 0x2 \.\.\. not responding after \d+ ms .*going on without it$",
                          log, re.M), "the boot reports CPU 2 not responding", log[-900:])
        t.check("smp: Brought up 1 node, 3 CPUs" in log, "the kernel runs on 3 CPUs")
        states = cpu_states(g)
        check_cpus_up(t, "fail", states, {0, 1, 3}, kernel_cr3(g))
        check_cpus_parked(t, "fail", states, {2})
        t.check("(did not answer at boot)" in g.command("cpus"), "`cpus` names the CPU that did not answer")
        check_smp_selftests(t, g, "smpboot_fail=2", " on the CPUs that came up")
        t.check(g.poweroff() == 1, "poweroff")


def stale_on_partner(out, what):
    """True if out reports 'what' going through on another CPU than the shell's.
    The shell is a task like any other: either CPU may run it, so either
    may be the partner."""
    m = re.search(r"%s on CPU (\d+) after set_memory_\w+\(\) on CPU (\d+): stale TLB entry"
                  % re.escape(what), out)
    return bool(m) and m.group(1) != m.group(2) and "Oops" not in out


def test_smp_stale_tlb_without_shootdown(t):
    """cpa_shootdown=off: the write and the call go through on the other CPU,
    and the self-tests that look for stale entries find them (each can fail)."""
    with Guest("smp shootdown off", cmdline="cpa_shootdown=off", extra=["-smp", "2"]) as g:
        g.wait_ready()
        out = g.command("crash SMP_STALE_WRITE")
        t.check(stale_on_partner(out, "write went through"),
                "SMP_STALE_WRITE: the write goes through on the other CPU", out)
        out = g.command("crash SMP_STALE_EXEC")
        t.check(stale_on_partner(out, "code ran"), "SMP_STALE_EXEC: the call runs on the other CPU", out)
        t.check("OFF (cpa_shootdown=off" in g.command("cpastat"), "cpastat says the shootdown is off")
        out = g.command("selftest smp", timeout=600)
        res = {name: (st, detail) for _, name, st, detail in __import__("ktap").parse(out)}
        for name, why in (("no_stale_write_after_set_memory_ro", "stale TLB entries"),
                          ("no_stale_exec_after_set_memory_nx", "stale TLB entries"),
                          ("a_long_request_is_flushed_whole_on_every_cpu", "stale TLB entry"),
                          ("the_ceiling_decides_page_by_page_or_everything_on_every_cpu",
                           "left another page's entry"),
                          ("set_memory_ro_waits_for_every_cpu", "did not wait for the flush"),
                          ("two_cpus_flushing_at_once_each_flush_their_own_range",
                           "stale TLB entries"),
                          ("process_mapping_changes_reach_a_cpu_that_has_it_loaded",
                           "stale TLB entries")):
            st, detail = res.get(name, ("missing", ""))
            t.check(st == "not ok" and why in detail,
                    "without the shootdown, smp.%s fails: %s" % (name, why), "%s %s" % (st, detail))
        g.poweroff()


def test_smp_trampoline_only_while_cpus_start(t):
    """gdb stops the boot in teardown_trampoline(): the low page is mapped
    RO+X at its own address (info tlb), every CPU is up; at the prompt it
    is gone (see also the matrix)."""
    if skip_under_boot_extra(t, "gdb stops the boot in teardown_trampoline()",
                             "gdb breaks at teardown_trampoline's link address before the boot "
                             "starts; under kaslr it runs in the moved copy, whose offset gdb "
                             "reads only after trap_init (tools/gdb/ronx.py)"):
        return
    if not shutil.which("gdb"):
        t.fail("gdb is installed", "no gdb on PATH: tools/setup.sh installs it")
        return
    from test_gdb import free_port
    port = free_port()
    with Guest("smp trampoline", extra=["-smp", "2", "-gdb", "tcp::%d" % port, "-S"]) as g:
        cmds = ["target remote :%d" % port, "break teardown_trampoline", "continue",
                "echo ===tlb\\n", "monitor info tlb", "echo ===end\\n", "delete", "detach"]
        gdb = subprocess.run(["gdb", "-batch", "-nx", ELF] + [a for c in cmds for a in ("-ex", c)],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        # gdb prints what the monitor answers on stderr, its own echo on stdout
        stopped = "hit Breakpoint 1, teardown_trampoline" in gdb.stdout
        t.check(stopped, "gdb stopped the boot in teardown_trampoline()", gdb.stdout[-600:])
        pt = PageTables(gdb.stderr if stopped else "")
        low = [m for m in pt.maps if m.va < PAGE_OFFSET]
        t.check(len(low) == 1 and low[0].va == low[0].pa and low[0].perm() == "RO+X"
                and not low[0].user and not low[0].glb,
                "while CPUs start: one page below 640K mapped at its own address, RO+X, "
                "supervisor, not global (info tlb)",
                " ".join("%#x->%#x %s" % (m.va, m.pa, m.perm()) for m in low) or
                (gdb.stdout + gdb.stderr)[-900:])
        log = g.wait_ready()
        tramp = check_trampoline_gone(t, "trampoline", g, log)
        t.check(low and tramp == low[0].va, "the page gdb saw mapped is the one the boot unmapped",
                "%r vs %r" % (low and low[0].va, tramp))


def cpl(block):
    m = re.search(r"CPL=(\d)", block)
    return int(m.group(1)) if m else None


def ring3_cpus(g):
    """{cpu: (CR3, TR base)} for the CPUs QEMU finds in ring 3 now."""
    out = {}
    for block in g.monitor("info registers -a").split("CPU#")[1:]:
        cpu = int(block.split()[0])
        if cpl(block) == 3:
            cr3 = int(re.search(r"\bCR3=([0-9a-f]+)", block).group(1), 16)
            tr = int(re.search(r"^TR\s*=[0-9a-f]+ ([0-9a-f]+)", block, re.M).group(1), 16)
            out[cpu] = (cr3, tr)
    return out


def check_getcpu(t, g):
    """getcpu(2) answers the CPU the caller runs on: bin/getcpu pairs each
    answer with the base of the GDT it ran under (sgdt, before and after
    the call), and QEMU says whose GDT that is. A fourth spin makes every
    CPU busy, so that each time getcpu wakes up it runs on whichever CPU
    the timer frees first."""
    gdt = {s["GDT"]: s["cpu"] for s in cpu_states(g)}
    pid = run_spin_in_background(g)[0]
    out = g.command("run getcpu 100", timeout=300)
    g.command("kill %d" % pid)
    deadline = time.monotonic() + 60
    while pid in ps(g) and time.monotonic() < deadline:
        time.sleep(0.2)
    pairs = [(int(c), int(b, 16)) for c, b in
             re.findall(r"^getcpu: CPU (\d+) with GDT at 0x([0-9a-f]+), \d+ times$", out, re.M)]
    wrong = ["answered %d under CPU %s's GDT (%#x)" % (c, gdt.get(b, "?"), b)
             for c, b in pairs if gdt.get(b) != c]
    t.check(pairs and not wrong and "exit status 0" in out,
            "getcpu answers the CPU it runs on, as QEMU names each CPU's GDT",
            "; ".join(wrong) or out.strip()[-400:])
    t.check(len({c for c, _ in pairs}) >= 2,
            "getcpu ran on %d CPUs (moved by the timer among the spins)" % len({c for c, _ in pairs}),
            out.strip()[-400:])


def test_smp_processes_on_every_cpu(t):
    """-smp 4: three spin processes run at once on three CPUs (QEMU: ring 3
    with their CR3 on each), each CPU entering the kernel on its own stack
    (TSS.esp0, read from memory); kill stops them on their CPUs; spawn and
    exit on several CPUs leak no page."""
    from tlb import xp64
    with Guest("smp processes", extra=["-smp", "4"]) as g:
        g.wait_ready()
        start = len(g.out)
        g.send(b"run spin\r")
        g.wait_for(r"spin: pid \d+ looping", start=start)
        on = [c for c, (cr3, _) in ring3_cpus(g).items()]
        g.send(b"\x03")
        g.wait_for(r"\[\d+\] spin: killed by SIGINT\n", start=start)
        g.wait_for("^ronx> ", start=start + 10)
        t.check(True, "Ctrl-C (taken by CPU 0's COM1 interrupt) kills the foreground spin "
                "(it ran on CPU %s); the prompt comes back" % (on or "?"))
        for _ in range(3):
            run_spin_in_background(g)
        procs = {pid: cr3 for pid, (state, cr3, name) in ps(g).items() if name == "spin"}
        t.check(len(procs) == 3, "three spin processes alive", g.command("ps"))
        seen, deadline = {}, time.monotonic() + 60
        while time.monotonic() < deadline:
            seen = ring3_cpus(g)
            if len({cr3 for cr3, _ in seen.values()}) == 3:
                break
            time.sleep(0.2)
        # with PTI (on by default) ring 3 runs on each process's user set:
        # ps's CR3 (the kernel set) + 0x800, in the same page (ronx/pti.h)
        user_set = 0x800 if "Kernel/User page tables isolation: enabled" in g.out else 0
        t.check(len(seen) == 3 and {cr3 for cr3, _ in seen.values()} ==
                {cr3 | user_set for cr3 in procs.values()},
                "QEMU: three CPUs in ring 3 at once, each with one spin's CR3%s"
                % (" (its PTI user set)" if user_set else ""),
                "ring 3: %s; spins: %s" % ({c: hex(v[0]) for c, v in seen.items()},
                                           {p: hex(c) for p, c in procs.items()}))
        syms = g.symbols()
        esp0 = {cpu: xp64(g.monitor, cea.phys(syms, tr) + 4) & 0xFFFFFFFF
                for cpu, (cr3, tr) in seen.items()}
        t.check(len(set(esp0.values())) == len(esp0) and all(v > PAGE_OFFSET for v in esp0.values()),
                "each of those CPUs enters the kernel on its own stack (TSS.esp0 read by xp)",
                " ".join("CPU#%d:%#x" % kv for kv in sorted(esp0.items())))
        runs = g.command("cpus")
        t.check(len(re.findall(r"spin\[\d+\]$", runs, re.M)) == 3, "`cpus` shows three CPUs running a spin", runs)
        check_getcpu(t, g)
        mark = len(g.out)
        for pid in procs:
            g.command("kill %d" % pid)
        deadline = time.monotonic() + 60
        while any(n == "spin" for _, _, n in ps(g).values()) and time.monotonic() < deadline:
            time.sleep(0.2)
        killed = re.findall(r"^\[(\d+)\] spin: killed by SIGKILL$", g.out[mark:], re.M)
        t.check(sorted(int(p) for p in killed) == sorted(procs),
                "kill stops each spin on its CPU: three 'killed by SIGKILL' reports", g.out[mark:][-600:])
        t.check(not {cr3 for cr3, _ in ring3_cpus(g).values()} & set(procs.values()),
                "after kill no CPU runs a spin's page tables (QEMU)")
        before = int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))
        out = g.command("run -n 300 hello", timeout=300)
        after = int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))
        t.check("300 exit status 0" in out and before == after,
                "300 spawn/exit cycles on 4 CPUs: every page back (%d free before and after)" % before,
                "%s; free %d -> %d" % (out.strip()[-200:], before, after))
        t.check(g.poweroff() == 1, "poweroff")
