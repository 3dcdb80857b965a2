# SPDX-License-Identifier: GPL-2.0-only
"""The foundation: boot (with and without NX, by -kernel and through GRUB),
paging state read from QEMU, the shell, and the in-kernel self-tests."""
import re

from guest import CPU_NO_NX, Guest
from tlb import PageTables, registers

CR0_WP, CR0_PG, CR4_PAE, EFER_NXE = 1 << 16, 1 << 31, 1 << 5, 1 << 11
PAGE_OFFSET = 0xC0000000


def check_paging(t, g, nx):
    regs = registers(g.monitor("info registers"))
    t.check(regs.get("CR0", 0) & CR0_PG and regs["CR0"] & CR0_WP,
            "CR0.PG and CR0.WP set", "CR0=%#x" % regs.get("CR0", 0))
    t.check(regs.get("CR4", 0) & CR4_PAE, "CR4.PAE set", "CR4=%#x" % regs.get("CR4", 0))
    t.check(bool(regs.get("EFER", 0) & EFER_NXE) == nx,
            "EFER.NXE is %d" % nx, "EFER=%#x" % regs.get("EFER", 0))
    pt = PageTables(g.monitor("info tlb"))
    # 0xc0100000 -> 1 MiB, or both moved by the boot's Kernel Offset (kaslr)
    va = g.symbols()["_text"]
    text = pt.lookup(va)
    t.check(text is not None and text.pa == va - PAGE_OFFSET,
            "info tlb maps _text (0x%08x) to physical 0x%x" % (va, va - PAGE_OFFSET),
            "mapping: %s" % (text and hex(text.pa)))
    low = [m for m in pt.maps if m.va < 0xC0000000]
    t.check(not low, "no identity (or any user-half) mapping left after boot",
            "first: %s" % (low and hex(low[0].va)))


def test_boot_nx(t):
    with Guest("boot nx") as g:
        log = g.wait_ready()
        t.check("NX (Execute Disable) protection: active" in log,
                "kernel reports NX active", log[-500:])
        check_paging(t, g, nx=True)
        t.check(g.poweroff() == 1, "poweroff ends QEMU through isa-debug-exit")


def test_boot_without_nx(t):
    with Guest("boot no-nx", cpu=CPU_NO_NX) as g:
        log = g.wait_ready()
        t.check("NX (Execute Disable) protection: not present" in log,
                "kernel reports NX not present", log[-500:])
        check_paging(t, g, nx=False)
        pt = PageTables(g.monitor("info tlb"))
        t.check(not any(m.nx for m in pt.maps), "no pte carries NX on a CPU without it")


def test_boot_iso_grub(t):
    with Guest("boot iso", iso=True) as g:
        log = g.wait_ready()
        t.check("booted by multiboot2" in log, "GRUB boots the ISO with multiboot2")
        out = g.command("help")
        for cmd in ("help", "dmesg", "meminfo", "cmdline", "poweroff", "selftest"):
            t.check(re.search(r"^\s+%s\b" % cmd, out, re.M), "help lists %s" % cmd, out)
        check_paging(t, g, nx=True)
        t.check(g.poweroff() == 1, "poweroff ends QEMU booted from the ISO")


def test_shell(t):
    with Guest("shell", cmdline="bogus=1 noexec=maybe") as g:
        log = g.wait_ready()
        t.check("unknown command line option 'bogus' (ignored)" in log,
                "unknown boot option is reported", log[-600:])
        t.check("bad value 'maybe' for option 'noexec' (expected on|off)" in log,
                "bad value for a known option is reported")
        out = g.command("frobnicate")
        t.check("unknown command 'frobnicate'" in out, "unknown shell command is refused", out)
        out = g.command("cmdline")
        t.check(out.strip() == g.full_cmdline, "cmdline echoes the command line",
                "%r, given %r" % (out, g.full_cmdline))
        out = g.command("dmesg")
        t.check("ronx: ready" in out and "Memory:" in out, "dmesg replays the boot log", out[-300:])
        out = g.command("meminfo")
        m = re.search(r"PagesFree:\s+(\d+)", out)
        t.check(m and int(m.group(1)) > 20000, "meminfo reports free pages", out)
        out = g.command("poweroff nine")
        t.check("exit code must be a number" in out, "poweroff refuses a bad exit code", out)
        t.check(g.poweroff() == 1, "poweroff after errors still works")


def test_selftest(t):
    for name, cpu, cmdline in (("nx", None, ""), ("no-nx cpu", CPU_NO_NX, ""),
                               ("noexec=off", None, "noexec=off"),
                               ("rodata=off", None, "rodata=off")):
        kwargs = {"cpu": cpu} if cpu else {}
        with Guest("selftest " + name, cmdline=cmdline, **kwargs) as g:
            g.wait_ready()
            t.ktap(g.command("selftest", timeout=120), "selftest[%s]" % name)
            # the first run may leave page tables behind (a split, the alias
            # area's table); a second run must not take one page more
            free = re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1)
            g.command("selftest", timeout=120)
            out = g.command("meminfo")
            after = re.search(r"PagesFree:\s+(\d+)", out).group(1)
            t.check(free == after, "[%s] a second selftest run leaks no page" % name,
                    "before %s, after %s" % (free, after))
            t.check("Oopses:            0" in out, "[%s] self-tests caused no oops" % name, out)


def test_selftest_under_grader_options(t):
    """The solved tree's self-tests pass under every boot option the lab
    graders use (module_ronx=noalign was one where they did not)."""
    for cmdline in ("module_ronx=noalign", "module_ronx=off", "pci=nobios", "pci=bios_tight",
                    "autoload=off"):
        with Guest("selftest " + cmdline, cmdline=cmdline) as g:
            g.wait_ready()
            t.ktap(g.command("selftest", timeout=180), "selftest[%s]" % cmdline)


def test_poweroff_codes(t):
    """`help` promises CODE 0-127 (isa-debug-exit's status is (CODE << 1) | 1)."""
    with Guest("poweroff codes") as g:
        g.wait_ready()
        t.check("CODE 0-127" in g.command("help"), "help gives poweroff's range")
        # 999 used to pass: the range check ran before the last digit was added
        for arg in ("128", "999", "4294967424"):
            out = g.command("poweroff " + arg)
            t.check("exit code %s is out of range 0-127" % arg in out,
                    "poweroff %s is refused as out of range" % arg, out)
        for arg in ("-1", "+1", "0x10", "12a"):
            out = g.command("poweroff " + arg)
            t.check("exit code must be a number 0-127, not '%s'" % arg in out,
                    "poweroff %s is refused as not a number" % arg, out)
        out = g.command("poweroff 1 2")
        t.check("usage: poweroff [CODE]" in out, "poweroff with two arguments is refused", out)
        g.proc.stdin.write(b"poweroff 127\r")
        g.proc.stdin.flush()
        t.check(g.exit_status() == 255, "poweroff 127 ends QEMU with status 255")
