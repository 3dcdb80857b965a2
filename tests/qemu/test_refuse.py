# SPDX-License-Identifier: GPL-2.0-only
"""Machines ronx cannot run on (issue 10, point 3): it must say why in one
line and stop, and under the test runner QEMU must exit with status 7
(isa-debug-exit code 3), not 0 as after a triple fault with -no-reboot."""
import os
import re
import time

from guest import BUILD, Guest
from tlb import kernel_symbols

REFUSED = 7
NO_PAE = re.escape("ronx: cannot boot: this CPU has no PAE (CPUID 1 EDX bit 6); "
                   "ronx needs a CPU with PAE (Pentium Pro or later)")


def refused(t, name, line, guest=None, **kwargs):
    """line: a regex for the one line that must say why."""
    with guest or Guest("refuse " + name, **kwargs) as g:
        status = g.exit_status()
        lines = [ln for ln in g.out.splitlines() if "cannot boot" in ln]
        t.check(status == REFUSED, "[%s] QEMU exits with status %d" % (name, REFUSED),
                "status %s; output:\n%s" % (status, g.out[-600:]))
        t.check(len(lines) == 1 and re.search(line, lines[0]), "[%s] one line says why" % name,
                "\n".join(lines) or g.out[-600:])
        t.check("ronx: ready" not in g.out, "[%s] the boot goes no further" % name)


def test_cpu_without_pae(t):
    # QEMU's 486 and pentium models have CPUID but no PAE; qemu32,-pae is a
    # CPU that has everything else. (A 486 without CPUID, the first check
    # in boot/cpucheck.asm, is not a model QEMU offers.)
    for cpu in ("486", "pentium", "qemu32,-pae"):
        refused(t, "-cpu " + cpu, NO_PAE, cpu=cpu)
    refused(t, "-cpu qemu32,-pge", re.escape("no global pages (CPUID 1 EDX bit 13 PGE)"),
            cpu="qemu32,-pge")
    refused(t, "-cpu qemu32,-cmov", re.escape("no CMOV (CPUID 1 EDX bit 15)"), cpu="qemu32,-cmov")
    # no x87 (a 486SX): ronx keeps each process's FPU registers and emulates none
    refused(t, "-cpu qemu32,-fpu", re.escape("no x87 FPU (CPUID 1 EDX bit 0)"), cpu="qemu32,-fpu")


def vga_text(g, chars):
    """The first chars of the VGA text screen, read from outside (QEMU's xp)."""
    words = []
    for line in g.monitor("xp /%dhx 0xb8000" % chars).splitlines():
        words += [int(w, 16) for w in line.split(":", 1)[1].split()]
    return "".join(chr(w & 0xff) for w in words)


def halted_registers(g, patience=10.0):
    """The line is out before the CPU reaches its final hlt (the VGA copy and
    cli come after it, and a loaded host may be slow to run them): wait for
    the halt rather than read the registers a moment too early."""
    deadline = time.monotonic() + patience
    while True:
        regs = g.monitor("info registers")
        if "HLT=1" in regs or time.monotonic() > deadline:
            return regs
        time.sleep(0.1)


def test_cpu_without_pae_plain_qemu(t):
    """Without isa-debug-exit (plain `make run` QEMU) ronx halts, interrupts
    off, with the reason on the VGA screen too, and no triple fault."""
    line = ("ronx: cannot boot: this CPU has no PAE (CPUID 1 EDX bit 6); "
            "ronx needs a CPU with PAE (Pentium Pro or later)")
    with Guest("refuse 486 plain", cpu="486", debug_exit=False) as g:
        g.wait_for(re.escape(line))
        first = halted_registers(g)
        again = g.monitor("info registers")
        efl = int(re.search(r"EFL=([0-9a-f]+)", again).group(1), 16)
        t.check("HLT=1" in again and not efl & (1 << 9),
                "[486 plain] the CPU halts with interrupts off", again[:200])
        t.check(re.search(r"EIP=(\w+)", first).group(1) == re.search(r"EIP=(\w+)", again).group(1),
                "[486 plain] and stays halted", "%s / %s" % (first[:40], again[:40]))
        t.check(vga_text(g, len(line)) == line, "[486 plain] the VGA text screen has the line",
                vga_text(g, len(line)))
        t.check(g.proc.poll() is None, "[486 plain] QEMU still runs: no triple fault")


# QEMU's e820 ends RAM this far below -m's size on a small machine
E820_BELOW_TOP_K = 128


def test_too_little_memory(t):
    """A machine whose RAM ends just past the kernel's image (its bss
    included, or the boot's page tables would land in no RAM at all, and
    QEMU would end with nothing said): too little left for ronx's 128K.
    The size follows the image, which grows as ronx does."""
    end_k = (kernel_symbols(os.path.join(BUILD, "kernel.elf"))["_end"] - 0xc0000000) >> 10
    ram_end_k = (end_k + 63) // 64 * 64 + 64
    memory_k = ram_end_k + E820_BELOW_TOP_K
    refused(t, "-m %dK" % memory_k, r"only \d+K free after the kernel and initrd \(RAM ends at "
            r"%dK\); ronx needs 128K free \(2M of RAM will do\)$" % ram_end_k, memory="%dK" % memory_k)


def test_smallest_machine(t):
    """2M, the smallest size the refusal promises, boots and passes selftest,
    with the sample modules' initrd (the self-tests load modules, never bin/)."""
    with Guest("refuse smallest 2M", memory="2M",
               initrd=os.path.join(BUILD, "initrd-modules.cpio")) as g:
        g.wait_ready()
        t.ktap(g.command("selftest", timeout=180), "selftest[2M]")
        t.check(g.poweroff() == 1, "[2M] poweroff ends QEMU")


def shim(name, cmdline):
    """ronx loaded by tests/qemu/mbshim.c, a multiboot1 loader without a memory map."""
    g = Guest(name, cmdline=cmdline, initrd=os.path.join(BUILD, "kernel.elf") + ","
              + os.path.join(BUILD, "initrd.cpio"))
    g.kernel = os.path.join(BUILD, "mbshim.elf")
    return g


def test_no_memory_map(t):
    # control: the same loader passing the map on boots ronx to the prompt
    with shim("refuse shim keepmap", "keepmap") as g:
        g.wait_ready()
        t.check(g.poweroff() == 1, "[shim keepmap] the shim boots ronx when it passes the map")
    refused(t, "no memory map", re.escape(
        "ronx: cannot boot: multiboot1 gave no memory map (flags bit 6, mmap_addr/mmap_length); "
        "ronx needs one to know where RAM is"), guest=shim("refuse no mmap", ""))
