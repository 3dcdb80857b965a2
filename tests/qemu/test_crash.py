# SPDX-License-Identifier: GPL-2.0-only
"""Crash demos (`crash NAME`, LKDTM's names): each must oops with the right
reason, the shell must come back, and nothing may be left behind."""
import os
import re
import subprocess
import tempfile
import time

from guest import BUILD, CPU_NO_NX, CPU_NX, PROMPT, ROOT, Guest
from tlb import PageTables
from userprog import free_pages_and_empty_slabs

WRITE = ["#PF: supervisor write access in kernel mode", "permissions violation"]
NX = ["kernel tried to execute NX-protected page - exploit attempt?",
      "#PF: supervisor instruction fetch in kernel mode", "permissions violation"]
EXPECTED = {
    "WRITE_RO": WRITE, "WRITE_RO_AFTER_INIT": WRITE, "WRITE_KERN": WRITE,
    "EXEC_DATA": NX, "EXEC_STACK": NX, "EXEC_KMALLOC": NX, "EXEC_VMALLOC": NX,
    "EXEC_RODATA": NX, "EXEC_INIT": NX,
    "EXEC_NULL": ["#PF: supervisor instruction fetch in kernel mode", "not-present page"],
    "ACCESS_NULL": ["#PF: supervisor read access in kernel mode", "not-present page"],
    "WRITE_MODULE_TEXT": WRITE, "EXEC_MODULE_DATA": NX,
    "EXEC_MODULE_INIT": ["#PF: supervisor instruction fetch in kernel mode", "not-present page"],
}


def crash_all(t, g):
    """Every demo once, on a guest that has not oopsed yet (QEMU or Bochs):
    each is listed, must oops for its own reason, the shell come back, no page leak."""
    listing = g.command("crash")
    for name in EXPECTED:
        t.check(re.search(r"^\s+%s\s" % name, listing, re.M), "crash lists %s" % name, listing)
    before = free_pages_and_empty_slabs(g)
    for n, (name, lines) in enumerate(EXPECTED.items(), 1):
        out = g.command("crash " + name)
        missing = [l for l in lines if l not in out]
        t.check(not missing and ("Oops: " in out) and ("[#%d]" % n) in out
                and "oopsed as it should" in out,
                "%s oopses with the right reason and the shell comes back" % name,
                "missing %s in:\n%s" % (missing, out[-900:]))
    t.check(free_pages_and_empty_slabs(g) == before, "no page leaked by %d oopses" % len(EXPECTED))


def test_crash_demos(t):
    with Guest("crash demos") as g:
        g.wait_ready()
        crash_all(t, g)
        pt = PageTables(g.monitor("info tlb"))
        t.check(pt.lookup(0xFC001000) is None, "EXEC_VMALLOC's mapping is gone after its oops")
        out = g.command("crash NO_SUCH")
        t.check("no crash type 'NO_SUCH'" in out, "an unknown crash type is refused", out)
        t.check(g.poweroff() == 1, "the kernel still powers off cleanly after the demos")


def test_crash_without_nx(t):
    """Without NX the execute demos survive: the demo says so instead of hiding it."""
    with Guest("crash no-nx", cpu=CPU_NO_NX) as g:
        g.wait_ready()
        out = g.command("crash EXEC_DATA")
        t.check("FAIL: survived bad execution" in out and "Oops" not in out,
                "EXEC_DATA runs and reports FAIL on a CPU without NX", out)
        out = g.command("crash WRITE_RO")
        t.check(all(l in out for l in WRITE), "WRITE_RO still faults without NX", out)


GUARD_HIT = re.compile(r"^BUG: stack guard page was hit at ([0-9a-f]{8}) \(stack is ([0-9a-f]{8})\.\.([0-9a-f]{8})\)$",
                       re.M)
STACK_CASES = [  # name, Linux's die() line, where the hit must be: below or above the stack
    ("STACK_GUARD_PAGE_LEADING", "kernel stack overflow (page fault)", "below"),
    ("STACK_GUARD_PAGE_TRAILING", "kernel stack overflow (page fault)", "above"),
    ("EXHAUST_STACK", "kernel stack overflow (double-fault)", "below"),
]


def monitor_word(g, va, cpu=None):
    """The 32-bit word at kernel virtual address va, as QEMU reads guest
    memory: gva2gpa (CPU cpu's own page tables), then xp."""
    out = g.monitor("gva2gpa 0x%x" % va, cpu=cpu)
    m = re.search(r"gpa: 0x([0-9a-f]+)", out)
    assert m, "gva2gpa 0x%x: %r" % (va, out)
    out = g.monitor("xp /1wx 0x%s" % m.group(1))
    return int(re.search(r":\s*0x([0-9a-f]+)", out).group(1), 16)


OOPS_CPU = re.compile(r"^CPU: (\d+)$", re.M)  # die() names the CPU when more than one is online


def check_doublefault_gate(t, g, tag, cpu):
    """From outside, after EXHAUST_STACK on CPU cpu: that CPU's IDT vector
    8 is a task gate to GDT entry 7, an available 32-bit TSS (its iret
    took it back) whose saved eip is just past that iret and whose CR3 is
    the kernel's page tables. Each CPU has its own double-fault TSS, and
    the shell may run on any CPU: the monitor reads the one that faulted.
    Each QMP command is a monitor of its own, where a `cpu N` before does
    not hold: the CPU goes with each command (cpu-index)."""
    regs = g.monitor("info registers", cpu=cpu)
    idt = int(re.search(r"^IDT=\s*([0-9a-f]+)", regs, re.M).group(1), 16)
    gdt = int(re.search(r"^GDT=\s*([0-9a-f]+)", regs, re.M).group(1), 16)
    lo, hi = monitor_word(g, idt + 8 * 8, cpu), monitor_word(g, idt + 8 * 8 + 4, cpu)
    t.check(lo >> 16 == 0x38 and (hi >> 8) & 0xff == 0x85,
            tag + "IDT vector 8 is a task gate (type 0x85) to selector 0x38",
            "gate %08x:%08x" % (hi, lo))
    dlo, dhi = monitor_word(g, gdt + 7 * 8, cpu), monitor_word(g, gdt + 7 * 8 + 4, cpu)
    base = (dlo >> 16) | (dhi & 0xff) << 16 | (dhi & 0xff000000)
    t.check((dhi >> 8) & 0xff == 0x89, tag + "GDT entry 7 is an available 32-bit TSS (not busy after the double fault)",
            "descriptor %08x:%08x" % (dhi, dlo))
    eip, cr3 = monitor_word(g, base + 0x20, cpu), monitor_word(g, base + 0x1c, cpu)
    want = g.symbols().get("doublefault_resume")
    t.check(want is not None and eip == want,
            tag + "the double-fault task ran and went back by its iret: its TSS's eip is doublefault_resume",
            "eip %08x, doublefault_resume %s" % (eip, want and "%08x" % want))
    swapper = g.symbols().get("swapper_pg_dir")
    t.check(swapper is not None and cr3 == swapper - 0xc0000000,
            tag + "the double-fault TSS's CR3 is the kernel's page tables (swapper_pg_dir)",
            "cr3 %08x" % cr3)


def stack_guard_lane(t, tag, cmdline="", extra=()):
    with Guest("crash stacks " + tag, cmdline=cmdline, extra=list(extra)) as g:
        g.wait_ready()
        tag = "[%s] " % tag
        before = free_pages_and_empty_slabs(g)
        listing = g.command("crash")
        df_cpu = None
        for n, (name, line, where) in enumerate(STACK_CASES, 1):
            t.check(re.search(r"^\s+%s\s" % name, listing, re.M), tag + "crash lists " + name)
            out = g.command("crash " + name, timeout=120)
            if "double-fault" in line:
                cpu = OOPS_CPU.search(out)
                df_cpu = int(cpu.group(1)) if cpu else None if "-smp" in extra else 0
            m = GUARD_HIT.search(out)
            t.check(m and "%s: 0000 [#%d]" % (line, n) in out and "oopsed as it should" in out,
                    tag + "%s: Linux's guard-page line, '%s', the shell comes back" % (name, line),
                    out[-1200:])
            if not m:
                continue
            hit, bottom, top = (int(x, 16) for x in m.groups())
            inside = bottom - 4096 <= hit < bottom if where == "below" else top < hit <= top + 4096
            t.check(inside, tag + "%s: the address hit is in the page %s the stack" % (name, where), m.group(0))
            pt = PageTables(g.monitor("info tlb"))
            t.check(pt.lookup(bottom - 4096) is None and pt.lookup(top + 1) is None
                    and all(pt.lookup(va) for va in range(bottom, top, 4096)),
                    tag + "%s: from outside (info tlb) the stack %08x..%08x is mapped, the page below and above it not"
                    % (name, bottom, top))
        if "-smp" in extra:
            t.check(df_cpu is not None, tag + "the double fault's oops names the CPU it ran on")
        if df_cpu is not None:
            check_doublefault_gate(t, g, tag, df_cpu)
        out = g.command("run hello")
        t.check("exit status 0" in out, tag + "a process still runs after the overflows (FPU and CR0.TS intact)", out)
        t.check(free_pages_and_empty_slabs(g) == before, tag + "no page leaked by the stack crashes (PagesFree+SlabEmpty %d)" % before)
        t.check(g.poweroff() == 1, tag + "the kernel still powers off cleanly")


def test_crash_stack_guard(t):
    stack_guard_lane(t, "1 CPU")


def test_crash_stack_guard_smp2(t):
    stack_guard_lane(t, "smp 2", extra=["-smp", "2"])


def test_crash_stack_guard_pti(t):
    stack_guard_lane(t, "pti", cmdline="pti=on")


def test_crash_stack_guard_kaslr(t):
    stack_guard_lane(t, "kaslr", cmdline="kaslr")


# The stack protector (kernel/stackprotector.c): Linux's panic line, naming
# the function whose canary was overwritten, as %pB names it
CORRUPTED = re.compile(r"^Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: "
                       r"(\w+)\+0x([0-9a-f]+)/0x([0-9a-f]+)$", re.M)


def cpu_stopped(g, cpu, tries=100):
    """From outside: the CPU sits in hlt with IF clear (a stopped CPU, not
    the idle loop, which halts with interrupts on). The IPI is sent without
    a wait, so look again a few times (a bound, not a timing condition)."""
    for _ in range(tries):
        regs = g.monitor("info registers", cpu=cpu)
        eflags = re.search(r"EFL=([0-9a-f]+)", regs)
        if "HLT=1" in regs and eflags and not int(eflags.group(1), 16) & 0x200:
            return True
        time.sleep(0.1)
    return False


def wait_panic_end(g, start, timeout=60):
    """The output from start to the end of a panic (Linux's "---[ end
    Kernel panic" line): Guest.wait_for gives up at the first panic line."""
    end = re.compile(r"^---\[ end Kernel panic - not syncing: .* \]---$", re.M)
    deadline = time.monotonic() + timeout
    with g.lock:
        while not end.search(g.out, start) and time.monotonic() < deadline and g.proc.poll() is None:
            g.lock.wait(0.5)
        return g.out[start:]


def corrupt_stack_lane(t, tag, extra=()):
    """CORRUPT_STACK in a boot of its own: a panic ends it, the shell does not come back."""
    with Guest("crash CORRUPT_STACK " + tag, extra=list(extra)) as g:
        g.wait_ready()
        tag = "[%s] " % tag
        t.check(re.search(r"^\s+CORRUPT_STACK\s", g.command("crash"), re.M), tag + "crash lists CORRUPT_STACK")
        start = len(g.out)
        g.send(b"crash CORRUPT_STACK\r")
        out = wait_panic_end(g, start)
        m = CORRUPTED.search(out)
        t.check(m and m.group(1) == "lkdtm_CORRUPT_STACK",
                tag + "Linux's stack-protector panic line names lkdtm_CORRUPT_STACK", out[-900:])
        if m:
            t.check(0 < int(m.group(2), 16) <= int(m.group(3), 16),
                    tag + "the offset named is inside the function (%s)" % m.group(0).split()[-1])
        t.check("Corrupting stack containing char array" in out and "FAIL" not in out,
                tag + "the demo found its canary and overwrote it", out[-900:])
        t.check(PROMPT not in out, tag + "the shell does not come back after the panic", out[-600:])
        if "-smp" in extra:
            ncpus = int(extra[extra.index("-smp") + 1])
            t.check(all(cpu_stopped(g, c) for c in range(ncpus)),
                    tag + "panic stopped every CPU: from outside, each halted with interrupts off")


def test_crash_corrupt_stack(t):
    corrupt_stack_lane(t, "1 CPU")


def test_crash_corrupt_stack_smp2(t):
    corrupt_stack_lane(t, "smp 2", extra=["-smp", "2"])


def test_crash_stack_canary_from_outside(t):
    """From outside, in three boots (one with kaslr, its symbols moved by its
    offset; one on a CPU with RDRAND, the canary's other source):
    __stack_chk_guard lies in ro_after_init, its page is read-only once
    boot is done, and its value is nonzero and differs every boot."""
    values = []
    for n, (cmdline, cpu) in enumerate([("", CPU_NX), ("", CPU_NX + ",+rdrand"), ("kaslr", CPU_NX)], 1):
        with Guest("stack canary %d" % n, cmdline=cmdline, cpu=cpu) as g:
            g.wait_ready()
            s = g.symbols()
            va = s["__stack_chk_guard"]
            t.check(s["__start_ro_after_init"] <= va < s["__end_ro_after_init"],
                    "boot %d: __stack_chk_guard (%08x) is in .data..ro_after_init" % (n, va))
            m = PageTables(g.monitor("info tlb")).lookup(va)
            t.check(m and not m.rw and m.nx, "boot %d%s: its page is RO+NX in info tlb" %
                    (n, " (kaslr)" if cmdline else ""), m and m.perm())
            values.append(monitor_word(g, va))
            t.check(g.poweroff() == 1, "boot %d: powers off cleanly" % n)
    t.check(all(values), "the canary is never 0: %s" % ["%08x" % v for v in values])
    t.check(len(set(values)) == len(values), "the canary differs in each of 3 boots: %s"
            % ["%08x" % v for v in values])


def canary_checkers(path):
    """The functions in path (an object, or kernel.relocs.elf, which keeps
    its relocations) that compare something with __stack_chk_guard: a sub,
    xor or cmp whose operand the linker resolves to it (objdump -dr); a
    plain mov, as boot_init_stack_canary()'s store, is no check."""
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    found, fn, insn = set(), None, ""
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1).split(".")[0]     # recursive_loop.isra.0: recursive_loop
        elif re.search(r"\sR_386_32\s+__stack_chk_guard$", line):
            if re.match(r"^\s*[0-9a-f]+:\s+(sub|xor|cmp)\b", insn):
                found.add(fn)
        elif line.strip():
            insn = line
    return found


def test_crash_stack_protector_objdump(t):
    """No boot: the built kernel's functions really check the canary."""
    elf = os.path.join(BUILD, "kernel.relocs.elf")
    fns = canary_checkers(elf)
    t.check(len(fns) >= 100, "kernel.relocs.elf: %d functions compare with __stack_chk_guard (>= 100)" % len(fns))
    for fn, why in (("lkdtm_CORRUPT_STACK", "a char array"), ("recursive_loop", "a 1K array"),
                    ("lkdtm_EXEC_STACK", "an array of code bytes")):
        t.check(fn in fns, "%s (%s) checks its canary" % (fn, why))
    for fn in ("kaslr_relocate", "boot_init_stack_canary"):
        t.check(fn not in fns, "%s, which runs before the canary is set, has no check" % fn)
    # the check can fail: lkdtm_stack.c built with the same flags but -fno-stack-protector
    flags = open(os.path.join(BUILD, ".cflags")).read().split()
    off = [f for f in flags if "stack-protector" not in f] + ["-fno-stack-protector"]
    with tempfile.TemporaryDirectory() as d:
        seen = {}
        for name, cflags in (("on", flags), ("off", off)):
            obj = os.path.join(d, name + ".o")
            subprocess.run(["gcc"] + cflags + ["-c", "kernel/shell/lkdtm_stack.c", "-o", obj], cwd=ROOT,
                           check=True)
            seen[name] = "lkdtm_CORRUPT_STACK" in canary_checkers(obj)
    t.check(seen == {"on": True, "off": False},
            "and it sees no check in lkdtm_stack.c built with -fno-stack-protector (it does with the kernel's flags)",
            repr(seen))
