# SPDX-License-Identifier: GPL-2.0-only
"""No system call returns a kernel address (issue 23, item 3). user/bin/kleak
makes every system call ronx has (the numbers in include/ronx/unistd_32.h,
the kernel's own list) with valid arguments and prints each 32-bit word it
got back (the seven registers after each call, every buffer the kernel
filled, what exec left on its stack) at or above 0xc0000000 that is not an
-errno. This test decides from outside, under kaslr, whether any is a
kernel address: inside this boot's image (kernel.elf's _text.._end plus
the boot's "Kernel Offset") or mapped in the kernel half at all (QEMU's
`info tlb` with the CPU stopped in ring 0: the direct map, the alias area,
modules). The control, `kleak leak`, adds the GDT and IDT bases that sgdt
and sidt read in ring 3 (qemu32 has no UMIP): they must be caught, and
must lie in the CPU entry area, a fixed address that tells nothing of the
offset. With UMIP (-cpu qemu32,+umip) the control's sgdt faults instead."""
import os
import re
import subprocess

import cea
from guest import PROMPT, ROOT, Guest
from tlb import PageTables, registers
from test_pti import stop_in_ring

PAGE_OFFSET = 0xC0000000
FOUND = re.compile(r"^kleak: (\S+) (\S+)\+(\d+) 0x([0-9a-f]{8})$", re.M)
SUMMARY = re.compile(r"^kleak: (\d+) words checked, (\d+) at or above", re.M)
CALLED = re.compile(r"^kleak: called((?: \d+)+)$", re.M)


def syscall_numbers():
    text = open(os.path.join(ROOT, "include", "ronx", "unistd_32.h")).read()
    return {int(n) for n in re.findall(r"^#define __NR_\w+\s+(\d+)", text, re.M)}


def run_kleak(g, args=""):
    mark = len(g.out)
    g.send(("run kleak %s" % args).strip().encode() + b"\r")
    g.wait_for("kleak: type a line", start=mark)
    g.send(b"a line for read\r")
    g.wait_for(SUMMARY.pattern, start=mark, timeout=120)
    g.wait_for("^" + re.escape(PROMPT), start=mark)
    return g.out[mark:].replace("\r", "")


class KernelRange:
    """This boot's kernel addresses, read from outside."""

    def __init__(self, g):
        syms = g.symbols()
        self.offset = g.kernel_offset()
        self.image = (syms["_text"], syms["_end"])
        regs = stop_in_ring(g, 0)
        self.maps = [(x.va, x.va + x.size) for x in PageTables(g.monitor("info tlb")).maps
                     if x.va >= PAGE_OFFSET] if regs else []
        g.monitor("cont")

    def why(self, w):
        """Why w is a kernel address, or None."""
        if self.image[0] <= w < self.image[1]:
            return "in the kernel image %#x-%#x" % self.image
        for lo, hi in self.maps:
            if lo <= w < hi:
                return "mapped in the kernel half (%#x-%#x)" % (lo, hi)
        return None


def check_run(t, tag, out, kr):
    """[(call, where, word, why)] of the kernel addresses kleak printed."""
    m = SUMMARY.search(out)
    t.check(m and int(m.group(1)) >= 300, "[%s] kleak checked %s words (at least 300)"
            % (tag, m.group(1) if m else "no"), out[-600:])
    c = CALLED.search(out)
    called = {int(n) for n in c.group(1).split()} if c else set()
    missing = syscall_numbers() - called
    t.check(c and not missing, "[%s] kleak made every system call in unistd_32.h (%d)"
            % (tag, len(syscall_numbers())), "missing %s" % sorted(missing))
    t.check("[1] kleak: exit status 0" in out or re.search(r"kleak: exit status 0", out),
            "[%s] kleak exits 0 (exit_group)" % tag, out[-300:])
    hits = []
    for call, where, off, w in FOUND.findall(out):
        why = kr.why(int(w, 16))
        print("  %s: %s %s+%s 0x%s: %s" % (tag, call, where, off, w, why or "not a kernel address"))
        if why:
            hits.append((call, where, w, why))
    return hits


def test_kleak_under_kaslr(t):
    with Guest("kleak kaslr", cmdline="kaslr") as g:
        g.wait_ready()
        kr = KernelRange(g)
        t.check(kr.offset, "kaslr: the image moved (Kernel Offset %#x)" % kr.offset)
        t.check(len(kr.maps) > 100, "the kernel half read from QEMU in ring 0 (%d mappings)" % len(kr.maps))
        out = run_kleak(g)
        hits = check_run(t, "kleak", out, kr)
        t.check(not hits, "no system call returned a kernel address (registers, buffers, exec's stack)",
                str(hits))
        out = run_kleak(g, "leak")
        hits = check_run(t, "kleak leak", out, kr)
        leaked = {where for call, where, w, why in hits if call == "leak"}
        t.check(leaked == {"sgdt", "sidt"},
                "control: the GDT and IDT bases sgdt/sidt give ring 3 are caught as kernel addresses",
                str(hits))
        t.check(not [h for h in hits if h[0] != "leak"], "control run: nothing else", str(hits))
        bases = [int(w, 16) for call, where, off, w in FOUND.findall(out) if call == "leak"]
        t.check(len(bases) == 2 and all(cea.CEA_BASE <= b < cea.CEA_END for b in bases),
                "...but both are in the CPU entry area, the same in every boot: they say nothing "
                "of the offset (%#x)" % kr.offset, str([hex(b) for b in bases]))
        g.poweroff()


CPU_UMIP = "qemu32,+nx,+pae,+umip"
CR4_UMIP = 1 << 11
GP_LINE = re.compile(r"^traps: kleak\[\d+\] general protection fault ip:([0-9a-f]+) ", re.M)


def sgdt_addresses(elf):
    """The addresses of the sgdt instructions in a user ELF (objdump)."""
    out = subprocess.run(["objdump", "-d", elf], capture_output=True, text=True, check=True).stdout
    return {int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):\s[^\n]*\tsgdt", out, re.M)}


def test_umip_takes_the_control_away(t):
    """On a CPU with UMIP (-cpu qemu32,+umip) ronx sets CR4.UMIP (read from
    outside), and the control's sgdt faults (#GP) in ring 3 instead of
    handing out the GDT's address: killed by SIGSEGV at that very
    instruction (objdump of the kleak that was booted), after every system
    call's words were checked. On qemu32 the boot says UMIP is missing."""
    with Guest("kleak umip", cmdline="kaslr", cpu=CPU_UMIP) as g:
        g.wait_ready()
        t.check("x86/cpu: User Mode Instruction Prevention (UMIP) activated" in g.out,
                "+umip: 'x86/cpu: User Mode Instruction Prevention (UMIP) activated'")
        regs = stop_in_ring(g, 0)
        cr4 = registers(regs).get("CR4", 0) if regs else 0
        g.monitor("cont")
        t.check(cr4 & CR4_UMIP, "CR4.UMIP (bit 11) is set, read by QEMU (CR4=%#x)" % cr4)
        mark = len(g.out)
        g.send(b"run kleak leak\r")
        g.wait_for("kleak: type a line", start=mark)
        g.send(b"a line for read\r")
        g.wait_for(r"kleak: (exit status|killed by)", start=mark, timeout=120)
        g.wait_for("^" + re.escape(PROMPT), start=mark)
        out = g.out[mark:].replace("\r", "")
        m = GP_LINE.search(out)
        sgdt = sgdt_addresses(os.path.join(ROOT, "build", "user", "kleak.elf"))
        t.check(m and int(m.group(1), 16) in sgdt and "kleak: killed by SIGSEGV" in out and
                SUMMARY.search(out) is None,
                "kleak leak: a general protection fault at its sgdt (%s, objdump), before it "
                "could print the GDT's address" % ", ".join("%#x" % a for a in sorted(sgdt)),
                out[-600:])
        t.check(not [f for f in FOUND.findall(out) if f[0] == "leak"], "no leak word printed",
                out[-400:])
        g.poweroff()
    with Guest("kleak no umip") as g:
        g.wait_ready()
        t.check(re.search(r"^ronx: UMIP: not on this CPU: ring 3's sgdt and sidt read where the "
                          r"GDT and IDT are \(the CPU entry area, a fixed address\)$", g.out, re.M),
                "qemu32: the boot says UMIP is missing and what that leaves open", g.out[-1500:])
        g.poweroff()
