# SPDX-License-Identifier: GPL-2.0-only
"""Page-table isolation (issue 23), proven from outside: QEMU stopped
while a process spins in ring 3 shows, under the CR3 of that moment (the
user set), a kernel half of exactly the trampoline (.entry.text, RO+X) and
the entry area (.entry.data: the per-CPU TSS/GDT/entry stacks and the
IDT, RW+NX), none user-accessible, none W+X, the same frames as the
kernel's; stopped in ring 0 the kernel set is whole; with pti=off the
ring-3 CR3 shows the whole supervisor-only kernel half. On -smp 2 each
CPU's TSS.esp0 is its own entry stack. Addresses come from nm plus the
boot's own "Kernel Offset" line, so the checks hold under kaslr too."""
import re
import time

import cea
from guest import Guest
from smp import cpu_states
from tlb import PageTables, registers, walk_summary, xp64
from userprog import run_spin_in_background

PAGE = 4096
PAGE_OFFSET = 0xC0000000
USER_BIT = 0x800               # ronx/pti.h PTI_USER_PGD_OFFSET
CR4_PGE = 1 << 7
ENABLED = "Kernel/User page tables isolation: enabled"
DISABLED = "Kernel/User page tables isolation: disabled on command line."
CPL = re.compile(r"\bCPL=(\d)")


def image_ranges(g):
    """(entry text pages, entry data pages) as sets of va, for this boot."""
    syms = g.symbols()
    text = set(range(syms["__entry_text_start"], syms["__entry_text_end"], PAGE))
    data = set(range(syms["__entry_data_start"], syms["__entry_data_end"], PAGE))
    return text, data


def frame_of(g, va):
    """The physical page va should map: the direct map's, or for the CPU
    entry area the .entry.data page it aliases."""
    return cea.phys(g.symbols(), va)


def stop_in_ring(g, ring, tries=40):
    """Stops QEMU with CPU 0 in the given ring; its `info registers`, or None."""
    for _ in range(tries):
        g.monitor("stop")
        regs = g.monitor("info registers")
        m = CPL.search(regs)
        if m and int(m.group(1)) == ring:
            return regs
        g.monitor("cont")
        time.sleep(0.05)
    return None


def kernel_half(g):
    return [m for m in PageTables(g.monitor("info tlb")).maps if m.va >= PAGE_OFFSET]


def check_user_set(t, tag, g, regs):
    """The ring-3 CR3's kernel half: the trampoline and entry area, nothing else."""
    text, data = image_ranges(g)
    alias = set(cea.alias_pages(g.symbols()))
    r = registers(regs)
    cr3 = r.get("CR3", 0)
    t.check(cr3 & USER_BIT, "[%s] in ring 3, CR3 %#x is a user set (bit 11: the PDPT's second half)" % (tag, cr3))
    t.check(not r.get("CR4", 0) & CR4_PGE, "[%s] CR4.PGE is clear while PTI is on (no global pages)" % tag,
            "CR4=%#x" % r.get("CR4", 0))
    half = kernel_half(g)
    pages = {m.va: m for m in half}
    t.check(all(m.size == PAGE for m in half), "[%s] the user set's kernel half has only 4K pages" % tag,
            str([hex(m.va) for m in half if m.size != PAGE][:4]))
    t.check(set(pages) == text | data | alias,
            "[%s] the user set's kernel half is exactly .entry.text (%d pages) + .entry.data (%d pages), "
            "and .entry.data again at the CPU entry area" % (tag, len(text), len(data)),
            "extra: %s missing: %s" % (sorted(hex(v) for v in set(pages) - text - data - alias)[:6],
                                       sorted(hex(v) for v in (text | data | alias) - set(pages))[:6]))
    t.check(not [m for m in half if m.user], "[%s] no kernel-half page of the user set is user-accessible" % tag,
            str([hex(m.va) for m in half if m.user][:4]))
    t.check(not [m for m in half if m.rw and m.exec], "[%s] no kernel-half page of the user set is W+X" % tag)
    t.check(all(pages[v].perm() == "RO+X" for v in text if v in pages),
            "[%s] the trampoline pages are RO+X" % tag,
            str([(hex(v), pages[v].perm()) for v in text if v in pages and pages[v].perm() != "RO+X"]))
    t.check(all(pages[v].perm() == "RW+NX" for v in data | alias if v in pages),
            "[%s] the entry-area pages are RW+NX, at both addresses" % tag,
            str([(hex(v), pages[v].perm()) for v in data | alias if v in pages and pages[v].perm() != "RW+NX"]))
    t.check(all(m.pa & 0xFFFFFFFFFF000 == frame_of(g, m.va) for m in half),
            "[%s] each is the kernel's own frame (va - PAGE_OFFSET, or the .entry.data page the CPU "
            "entry area aliases: not a copy; QEMU shows NX in bit 63)" % tag,
            str([(hex(m.va), hex(m.pa)) for m in half if m.pa & 0xFFFFFFFFFF000 != frame_of(g, m.va)][:4]))
    # the user half is shared, not copied: PDPT entries 0-2 equal in both sets
    kset, uset = cr3 & ~USER_BIT & 0xFFFFFFE0, cr3 & 0xFFFFFFE0
    k = [xp64(g.monitor, kset + 8 * i) for i in range(4)]
    u = [xp64(g.monitor, uset + 8 * i) for i in range(4)]
    addr = 0x000FFFFFFFFFF001  # the directory and present: QEMU sets bit 5 (accessed) as it walks
    t.check([e & addr for e in k[:3]] == [e & addr for e in u[:3]] and all(e & 1 for e in u[:3]),
            "[%s] PDPT entries 0-2 of the user set are the kernel set's (xp)" % tag,
            "kernel %s user %s" % ([hex(e) for e in k], [hex(e) for e in u]))
    t.check(k[3] != u[3], "[%s] PDPT entry 3 differs: the user set has its own kernel-half directory" % tag)
    return cr3


def kernel_secret(g):
    """A kernel data address, this boot's: the per-CPU structs (struct cpu)."""
    return g.symbols()["cpus"]


def demo_kernel_address(t, tag, g, cr3, mapped):
    """What PTI takes away, read by QEMU from the ring-3 CR3's tables."""
    va = kernel_secret(g)
    line = walk_summary(g.monitor, cr3, va)
    print("  %s: ring-3 CR3 %#x, cpus[] at %#x: %s" % (tag, cr3, va, line))
    if mapped:
        t.check("effective=RW+NX" in line, "[%s] the ring-3 tables map kernel data (cpus[] %#x), "
                "supervisor-only: a Meltdown read can reach it" % (tag, va), line)
    else:
        t.check("effective=not-present" in line, "[%s] the ring-3 tables do not map kernel data "
                "(cpus[] %#x): nothing for Meltdown to read" % (tag, va), line)


def kstack_push_error(g):
    out = g.command("run redteam kstack_push", timeout=60)
    m = re.search(r"redteam\[\d+\]: segfault at c00ffffc ip [0-9a-f]+ sp [0-9a-f]+ error (\d+)", out)
    return int(m.group(1)) if m else None, out


def check_shell_views(t, g, pid):
    """wxcheck, ptdump PID and walk VA PID see the user set too."""
    text, data = image_ranges(g)
    out = g.command("wxcheck")
    t.check("W+X check: PTI user set (entry text and entry area): passed, no W+X pages found" in out,
            "wxcheck audits the PTI user set's kernel half", out)
    out = g.command("ptdump %d" % pid)
    m = re.search(r"^---\[ PTI user set \(CR3 (0x[0-9a-f]+) in ring 3\) \]---$", out, re.M)
    t.check(m, "ptdump PID: the user set after the kernel set, with its CR3", out[-800:])
    if m:
        kpart = out[m.end():].split("---[ Kernel Mapping ]---", 1)[-1]
        mapped = re.findall(r"^0x([0-9a-f]{8})-0x([0-9a-f]{8}) +\S+ +(USR )?(ro|RW) +(GLB )?(x|NX) +pte$",
                            kpart, re.M)
        alias = sorted(cea.alias_pages(g.symbols()))
        want = [("%08x" % min(text), "%08x" % (max(text) + PAGE), "", "ro", "", "x"),
                ("%08x" % min(data), "%08x" % (max(data) + PAGE), "", "RW", "", "NX"),
                ("%08x" % alias[0], "%08x" % (alias[-1] + PAGE), "", "RW", "GLB ", "NX")]
        t.check(mapped == want, "ptdump PID's user set: the kernel half maps only the trampoline (ro x), "
                "the entry area (RW NX) and its alias in the CPU entry area (RW NX; global, the same "
                "in both sets)", "%s vs %s" % (mapped, want))
    secret = kernel_secret(g)
    out = g.command("walk %#x %d" % (secret, pid))
    t.check("PTI: mapped in the kernel set only (not while in ring 3)" in out,
            "walk cpus[] PID: in the kernel set only", out)
    out = g.command("walk %#x %d" % (min(text), pid))
    t.check("PTI: mapped in both sets (kernel and user)" in out, "walk <entry text> PID: in both sets", out)


def check_kernel_demos(t, tag, g, want):
    """readkernel/writekernel/execkernel: the P bit of the error says whether
    ring 3's tables map 0xc0100000 at all."""
    for name, err in want.items():
        out = g.command("run " + name)
        m = re.search(r"%s\[\d+\]: segfault at c0100000 ip [0-9a-f]+ sp [0-9a-f]+ error ([0-9a-f]+)" % name, out)
        t.check(m and int(m.group(1), 16) == err, "[%s] %s: segfault at c0100000 error %x" % (tag, name, err), out)


def check_kernel_set_whole(t, tag, g, regs):
    text, data = image_ranges(g)
    cr3 = registers(regs).get("CR3", 0)
    t.check(not cr3 & USER_BIT, "[%s] in ring 0, CR3 %#x is a kernel set" % (tag, cr3))
    half = kernel_half(g)
    n = sum(m.size // PAGE for m in half)
    t.check(n > 1000 and len(text | data) < n,
            "[%s] in ring 0 the kernel half is whole (%d pages, the direct map and the image)" % (tag, n))
    t.check(not [m for m in half if m.user], "[%s] the kernel set's kernel half is supervisor-only" % tag)


def syscall_gate_type(g):
    """The type byte of IDT vector 0x80's gate, read from outside: the IDT
    base QEMU shows (the CPU entry area's alias), read through the CPU's
    own page tables (x)."""
    idt = int(re.search(r"^IDT=\s*([0-9a-f]+)", g.monitor("info registers"), re.M).group(1), 16)
    out = g.monitor("x /2wx %#x" % (idt + 0x80 * 8))
    return (int(out.split()[2], 16) >> 8) & 0xff


def test_pti_user_set_from_outside(t):
    with Guest("pti") as g:
        g.wait_ready()
        t.check(re.search("^" + re.escape(ENABLED) + "$", g.out, re.M),
                "qemu32, pti=auto by default: '%s'" % ENABLED, g.out[:1200])
        regs = stop_in_ring(g, 0)
        if t.check(regs, "stopped in ring 0 (the shell)"):
            check_kernel_set_whole(t, "shell", g, regs)
            gate = syscall_gate_type(g)
            t.check(gate == 0xEE, "with PTI, int $0x80's gate is an interrupt gate (0xee: DPL 3, "
                    "IF cleared: no IRQ lands on the entry stack)", "type %#x" % gate)
        g.monitor("cont")
        pid, _ = run_spin_in_background(g)
        time.sleep(0.3)
        regs = stop_in_ring(g, 3)
        if t.check(regs, "stopped with spin (pid %d) in ring 3" % pid):
            cr3 = check_user_set(t, "pti=auto", g, regs)
            demo_kernel_address(t, "pti=auto", g, cr3, False)
        g.monitor("cont")
        check_shell_views(t, g, pid)
        err, out = kstack_push_error(g)
        t.check(err == 6, "redteam kstack_push: the kernel's page is absent from the user set (error 6)", out)
        check_kernel_demos(t, "pti=auto", g, {"readkernel": 4, "writekernel": 6, "execkernel": 0x14})
        out = g.command("kill %d" % pid)
        out = g.command("run hello")
        t.check("hello from user space" in out, "processes still run after the stop", out)
        g.poweroff()


def test_pti_on_under_kaslr(t):
    with Guest("pti kaslr", cmdline="kaslr pti=on") as g:
        g.wait_ready()
        t.check(ENABLED in g.out, "pti=on kaslr: '%s'" % ENABLED)
        pid, _ = run_spin_in_background(g)
        time.sleep(0.3)
        regs = stop_in_ring(g, 3)
        if t.check(regs, "stopped with spin in ring 3 (kaslr)"):
            check_user_set(t, "kaslr", g, regs)
        g.monitor("cont")
        out = g.command("run hello")
        t.check("hello from user space" in out, "processes run under kaslr with PTI", out)
        g.poweroff()


def test_pti_off(t):
    with Guest("pti off", cmdline="pti=off") as g:
        g.wait_ready()
        t.check(re.search("^" + re.escape(DISABLED) + "$", g.out, re.M),
                "pti=off: '%s'" % DISABLED, g.out[:1200])
        pid, _ = run_spin_in_background(g)
        time.sleep(0.3)
        regs = stop_in_ring(g, 3)
        if t.check(regs, "stopped with spin in ring 3 (pti=off)"):
            r = registers(regs)
            t.check(not r.get("CR3", 0) & USER_BIT, "pti=off: the ring-3 CR3 is the kernel set",
                    "CR3=%#x" % r.get("CR3", 0))
            t.check(r.get("CR4", 0) & CR4_PGE, "pti=off: CR4.PGE stays on")
            check_kernel_set_whole(t, "pti=off ring 3", g, regs)
            demo_kernel_address(t, "pti=off", g, r.get("CR3", 0), True)
            gate = syscall_gate_type(g)
            t.check(gate == 0xEF, "pti=off: int $0x80's gate is a trap gate (0xef: DPL 3, IF "
                    "left on, as Linux 2.6.38's set_system_trap_gate())", "type %#x" % gate)
        g.monitor("cont")
        err, out = kstack_push_error(g)
        t.check(err == 7, "pti=off: redteam kstack_push: the kernel's page is present, "
                "supervisor-only (error 7)", out)
        check_kernel_demos(t, "pti=off", g, {"readkernel": 5, "writekernel": 7, "execkernel": 0x15})
        g.poweroff()


def test_pti_smp2(t):
    with Guest("pti smp2", extra=["-smp", "2"]) as g:
        g.wait_ready()
        pids = [run_spin_in_background(g)[0] for _ in range(2)]
        time.sleep(0.5)
        text, data = image_ranges(g)
        states = None
        for _ in range(40):
            g.monitor("stop")
            block = g.monitor("info registers -a")
            cpls = [int(c) for c in CPL.findall(block)]
            if len(cpls) == 2 and cpls == [3, 3]:
                states = cpu_states(g)
                break
            g.monitor("cont")
            time.sleep(0.05)
        if t.check(states, "both CPUs stopped in ring 3 (two spins)"):
            cr3s = [s["CR3"] for s in states]
            t.check(all(c & USER_BIT for c in cr3s), "each CPU's CR3 is a user set", str([hex(c) for c in cr3s]))
            t.check(not [s for s in states if s["CR4"] & CR4_PGE], "CR4.PGE is clear on every CPU",
                    str([hex(s["CR4"]) for s in states]))
            alias = cea.alias_pages(g.symbols())
            for s in states:
                tss = s["TR"]
                area = tss & ~(PAGE - 1)
                esp0 = xp64(g.monitor, cea.phys(g.symbols(), tss)) >> 32 & 0xffffffff
                t.check(area in alias and esp0 == area + PAGE,
                        "CPU %d: TSS.esp0 %#x is the top of its own entry area %#x (in the CPU entry "
                        "area, the fixed alias of .entry.data)" % (s["cpu"], esp0, area))
            t.check(len({s["TR"] for s in states}) == 2, "two CPUs, two entry areas")
            check_user_set(t, "smp2 CPU 0", g, g.monitor("info registers"))
        g.monitor("cont")
        for pid in pids:
            g.command("kill %d" % pid)
        g.poweroff()


ENTRY_STACK_PAINT = 0x57acb0b0   # ronx/pti.h: what pti_init() paints the entry stacks with
ENTRY_STACK_WORST = 4 * (19 + 3 * 17)   # boot/traps.asm's count, in bytes


def entry_stack_high_water(g, regs):
    """Bytes of CPU 0's entry stack ever used, read from outside: the top of
    its cpu_entry_area page (TR's base, rounded down) down to the long run
    of paint left below. None if no run of paint is found."""
    m = re.search(r"^TR\s*=[0-9a-f]+ ([0-9a-f]+)", regs, re.M)
    if not m:
        return None
    area = int(m.group(1), 16) & ~(PAGE - 1)
    dump = g.monitor("xp /1024wx %#x" % cea.phys(g.symbols(), area))
    words = [int(w, 16) for line in dump.splitlines() if ":" in line
             for w in re.findall(r"0x([0-9a-f]{8})", line.split(":", 1)[1])]
    if len(words) != 1024:
        return None
    run = 0
    for i in range(1023, -1, -1):
        run = run + 1 if words[i] == ENTRY_STACK_PAINT else 0
        if run == 16:
            return PAGE - 4 * (i + 16)
    return None


def test_pti_exit_window(t):
    """An entry in the exit window (ring 0, entry stack, user set: after
    ret_from_trap's switch, before its iret) must return there on the user
    set. `crash PTI_EXIT_WINDOW` puts DR0 on the window's first
    instruction, so every exit to ring 3 takes a #DB there; stopped in
    ring 3 afterwards, the CPU must still be on the user set. Without the
    switch back in entry_common the process ran in ring 3 on the whole
    kernel set until its next entry (the control run: CR3 bit 11 clear)."""
    for cmdline in ("pti=on", "pti=on kaslr"):
        exit_window_boot(t, cmdline)


def exit_window_boot(t, cmdline):
    with Guest("pti exit window " + cmdline, cmdline=cmdline) as g:
        g.wait_ready()
        out = g.command("crash PTI_EXIT_WINDOW")
        t.check(re.search(r"lkdtm: armed on CPU 0: a #DB at pti_exit_window", out),
                "crash PTI_EXIT_WINDOW arms DR0 on the exit window", out)
        pid, _ = run_spin_in_background(g)
        out = g.command("run hello")
        t.check("hello from user space" in out, "a process's system calls return through the armed window", out)
        time.sleep(0.3)
        for n in range(3):
            regs = stop_in_ring(g, 3)
            if not t.check(regs, "stop %d: spin (pid %d) in ring 3, after exits through the window" % (n, pid)):
                break
            m = re.search(r"\bDR7=([0-9a-f]+)", regs)
            dr7 = int(m.group(1), 16) if m else 0
            t.check(dr7 & 1, "stop %d: DR7.L0 is set: the breakpoint is armed (outside: info registers)" % n,
                    "DR7=%#x" % dr7)
            check_user_set(t, "%s, stop %d" % (cmdline, n), g, regs)
            if n == 2:
                depth = entry_stack_high_water(g, regs)
                # boot/traps.asm's count for one nesting level: the exit frame (19 words)
                # + a #DB's at most 17 (7 in, 17 copied back out); its C handler ran
                # on the task's kernel stack (on the entry stack it reached 192 bytes)
                t.check(depth is not None and 76 < depth <= 76 + 68 <= ENTRY_STACK_WORST,
                        "the entry stack's high-water mark (xp, from outside) is %s bytes: the exit "
                        "frame and one nested ring-0 entry, at most %d as counted in boot/traps.asm "
                        "(worst case with 3 nested: %d)" % (depth, 76 + 68, ENTRY_STACK_WORST))
            g.monitor("cont")
            time.sleep(0.1)
        out = g.command("crash PTI_EXIT_WINDOW")
        m = re.search(r"lkdtm: PTI_EXIT_WINDOW disarmed after (\d+) hits", out)
        t.check(m and int(m.group(1)) > 10,
                "the #DB really entered in the window (more than 10 hits, one per exit to ring 3)", out)
        g.command("kill %d" % pid)
        out = g.command("run hello")
        t.check("hello from user space" in out, "processes run after the window's breakpoint is gone", out)
        g.poweroff()
