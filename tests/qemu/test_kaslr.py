# SPDX-License-Identifier: GPL-2.0-only
"""KASLR (issue 23 items 3-5): with `kaslr` the image moves, physical and
virtual together; every address below is read from the boot ("Kernel
Offset: 0x...") and kernel.elf, then checked from OUTSIDE: QEMU's `info
tlb` must map each symbol + offset to its physical address + offset with
the policy's permissions, the bytes QEMU reads there (`xp`) must be
kernel.elf's with the relocations applied, and the W+X pages must be only
the declared PCI BIOS hole. Each boot runs every self-test and wxcheck;
`walk` and the oopses' symbols must follow the image.

Two kaslr boots must put the text at different addresses. Two boots pick
the same one of the ~15800 slots once in that many pairs: the lane boots
a third time before it calls that a failure, and says so.
"""
import os
import re
import subprocess
import sys

import shutil
import tempfile

from guest import BUILD, CPU_NX, ROOT, Guest, skip_under_boot_extra
from results import progress
from smp import check_cpus_up, cpu_states
from test_matrix import check_wx_per_cpu
from test_walk import check_walk
from tlb import PageTables, kernel_symbols, registers

sys.path.insert(0, os.path.join(ROOT, "tools"))
from elf32 import Elf32  # noqa: E402
import relocs  # noqa: E402

KERNEL = os.path.join(BUILD, "kernel.elf")
RELOCS_ELF = os.path.join(BUILD, "kernel.relocs.elf")   # the same link, relocations kept
PAGE_OFFSET, LINK, LOAD = 0xC0000000, 0xC0100000, 0x100000
KASLR_MAX = 64 << 20
CR0_PG, CR0_WP, CR4_PAE, EFER_NXE = 1 << 31, 1 << 16, 1 << 5, 1 << 11
HOLE = (0xC00A0000, 0xC0100000)
OFFSET = re.compile(r"^Kernel Offset: 0x([0-9a-f]+) from 0xc0100000 \(one of (\d+) slots", re.M)
NX_OOPS = ["kernel tried to execute NX-protected page - exploit attempt?",
           "#PF: supervisor instruction fetch in kernel mode"]
WXCHECK = "W+X check: 96 W+X pages, all in the declared PCI BIOS hole 0xc00a0000-0xc0100000"


def phys(x, va):
    """The physical address info tlb maps va to (its column carries NX as bit 63)."""
    return (x.pa & 0x000FFFFFFFFFF000) + (va - x.va)


def table_in_image(elf, syms):
    """The relocation table as built into kernel.elf (kaslr_relocs[])."""
    n = int.from_bytes(elf.read_va(syms["kaslr_nr_relocs"], 4), "little")
    raw = elf.read_va(syms["kaslr_relocs"], 4 * n) if n else b""
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]


def readelf_r32_count():
    """R_386_32 relocations of the image's sections, by binutils' own reader."""
    out = subprocess.run(["readelf", "-rW", RELOCS_ELF], capture_output=True, text=True,
                         check=True).stdout
    count, keep = 0, False
    for line in out.splitlines():
        m = re.match(r"Relocation section '\.rel(\S+)'", line)
        if m:
            keep = not m.group(1).startswith(".debug")
        elif keep and " R_386_32 " in line:
            count += 1
    return count


def test_kaslr_relocs_table(t):
    elf, syms = Elf32(KERNEL), kernel_symbols(KERNEL)
    offs = relocs.relocations(Elf32(RELOCS_ELF))
    t.check(offs and table_in_image(elf, syms) == offs,
            "kernel.elf carries its own relocation table (%d entries)" % len(offs))
    n = readelf_r32_count()
    t.check(len(offs) == n, "the table lists every R_386_32 readelf finds in the image's sections",
            "table %d, readelf %d" % (len(offs), n))
    # a word may hold sym + addend past the image's ends (_end - 1, and
    # __pa(_end) + PMD_SIZE - 1 folded by gcc), never farther than 2 MiB
    lo, hi = syms["_text"] - (2 << 20), syms["_end"] + (2 << 20)
    bad = []
    for off in offs:
        w = int.from_bytes(elf.read_va(syms["_text"] + off, 4), "little")
        if not (lo <= w <= hi or lo - PAGE_OFFSET <= w <= hi - PAGE_OFFSET):
            bad.append("_text+0x%x holds 0x%08x" % (off, w))
    t.check(not bad, "every listed word is a virtual or physical address near the image",
            "; ".join(bad[:10]))
    for args, want in (([KERNEL], "link with --emit-relocs"),
                       ([os.path.join(ROOT, "README.md")], "not a 32-bit little-endian ELF"),
                       ([], "Usage:")):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "relocs.py")] + args,
                           capture_output=True, text=True)
        t.check(r.returncode != 0 and want in r.stderr and r.stderr.count("\n") <= 3 and not r.stdout,
                "relocs.py %s is refused in words: %s" % (" ".join(os.path.basename(a) for a in args), want),
                "rc %d: %r" % (r.returncode, r.stderr))


def test_kaslr_relocs_refuses_a_jump_out(t):
    """A call from the image to a fixed address would break when the image
    moves: tools/relocs.py must refuse such an ELF in one line."""
    tmp = tempfile.mkdtemp(prefix="ronx-relocs-")

    def link(name, body):
        src, obj, elf = (os.path.join(tmp, name + e) for e in (".asm", ".o", ".elf"))
        with open(src, "w") as f:
            f.write("global _start\nextern far_away\nsection .text\n_start:\n" + body)
        subprocess.run(["nasm", "-f", "elf32", src, "-o", obj], check=True)
        subprocess.run(["ld", "-m", "elf_i386", "-q", "-Ttext=0xc0100000", "--defsym",
                        "far_away=0x12345678", "--defsym", "_text=0xc0100000", "--defsym",
                        "_end=0xc0101000", "-o", elf, obj], check=True)
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "relocs.py"),
                               "--list", elf], capture_output=True, text=True)
    try:
        r = link("out", "\tcall far_away\n\tmov eax, _start\n")
        t.check(r.returncode == 1 and r.stderr.count("\n") == 1 and not r.stdout and
                "a relative jump to far_away, outside the image" in r.stderr,
                "relocs.py refuses a call out of the image to a fixed address, in one line",
                "rc %d: %r" % (r.returncode, r.stderr))
        r = link("in", "\tcall _start\n\tmov eax, _start\n")
        t.check(r.returncode == 0 and r.stdout.split() == ["0x6"],
                "the control, a call inside the image: one entry, mov's operand at _text+6",
                "rc %d: %r %r" % (r.returncode, r.stdout, r.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def xp_bytes(g, phys, n):
    out = g.monitor("xp /%dwx 0x%x" % (n // 4, phys))
    words = [int(w, 16) for line in out.splitlines() if ":" in line
             for w in re.findall(r"0x([0-9a-f]+)", line.split(":", 1)[1])]
    return b"".join(w.to_bytes(4, "little") for w in words)


def relocated_page(elf, offs, text, va, delta):
    """kernel.elf's page at link address va, as the moved image must hold it.
    A relocated word may straddle either edge of the page (an instruction's
    operand): relocate the page with 3 bytes more on each side, where the
    section has them, and keep the page."""
    def read(lo, n):
        try:
            return elf.read_va(lo, n)
        except Exception:       # the section's first or last page: no word crosses its edge
            return None
    before = 3 if va - 3 >= text and read(va - 3, 4096 + 3) else 0
    after = 3 if read(va - before, before + 4096 + 3) else 0
    data = bytearray(read(va - before, before + 4096 + after))
    for off in offs:
        at = text + off - (va - before)
        if 0 <= at <= len(data) - 4:
            w = (int.from_bytes(data[at:at + 4], "little") + delta) & 0xFFFFFFFF
            data[at:at + 4] = w.to_bytes(4, "little")
    return bytes(data[before:before + 4096])


def image_checks(t, g, tag, log, s, elf, offs):
    """Everything about one kaslr boot; returns its offset."""
    m = OFFSET.search(log)
    if not t.check(m, "[%s] dmesg: Kernel Offset: 0x... from 0xc0100000" % tag, log[:800]):
        return None
    off = int(m.group(1), 16)
    size = s["_end"] - s["_text"]
    t.check(off and off % 4096 == 0 and LOAD + off + size <= KASLR_MAX,
            "[%s] offset 0x%x: a 4 KiB multiple, the image below 64 MiB" % (tag, off))
    regs = registers(g.monitor("info registers"))
    t.check(regs.get("CR0", 0) & CR0_PG and regs["CR0"] & CR0_WP and regs.get("CR4", 0) & CR4_PAE
            and regs.get("EFER", 0) & EFER_NXE, "[%s] CR0.PG, CR0.WP, CR4.PAE, EFER.NXE set" % tag,
            str(regs))
    t.check("NX (Execute Disable) protection: active" in log, "[%s] kernel reports NX active" % tag)
    pt = PageTables(g.monitor("info tlb"))
    t.check(not [x for x in pt.maps if x.va < PAGE_OFFSET],
            "[%s] no identity (or user-half) mapping left after boot" % tag)
    for name, perm in (("_text", "RO+X"), ("printk", "RO+X"), ("__start_rodata", "RO+NX"),
                       ("__start_ro_after_init", "RO+NX"), ("_sdata", "RW+NX"),
                       ("__bss_start", "RW+NX")):
        va = s[name] + off
        x = pt.lookup(va)
        t.check(x and phys(x, va) == va - PAGE_OFFSET and x.perm() == perm,
                "[%s] info tlb: %s at 0x%08x -> phys 0x%x, %s" % (tag, name, va, va - PAGE_OFFSET, perm),
                x and "phys 0x%x %s" % (phys(x, va), x.perm()))
    moved = pt.pages_where(s["_text"] + off, s["_etext"] + off, lambda x: not x or x.perm() != "RO+X")
    t.check(not moved, "[%s] all of the moved text is RO+X" % tag, moved[:5])
    left = pt.pages_where(s["_text"], s["_etext"], lambda x: not x or x.exec)
    t.check(not left, "[%s] the link address's text pages are mapped NX (free RAM now)" % tag, left[:5])
    wx = pt.wx_pages()
    t.check(wx == pt.wx_pages(*HOLE) == (HOLE[1] - HOLE[0]) // 4096,
            "[%s] info tlb: W+X pages only in the PCI BIOS hole" % tag, "%d W+X pages" % wx)
    page = s["printk"] & ~0xFFF
    got = xp_bytes(g, page - PAGE_OFFSET + off, 4096)
    t.check(got == relocated_page(elf, offs, s["_text"], page, off),
            "[%s] xp: printk's page at phys 0x%x is kernel.elf's, relocated by 0x%x"
            % (tag, page - PAGE_OFFSET + off, off), "%d bytes read" % len(got))
    return off, pt


def kernel_side_checks(t, g, tag, s, off, pt):
    out = g.command("crash WRITE_RO")
    t.check("lkdtm_WRITE_RO+0x" in out and "Oops: " in out,
            "[%s] the oops names lkdtm_WRITE_RO+0x.. (kallsyms follows the image)" % tag, out[-600:])
    out = g.command("walk mark_rodata_ro")
    t.check(out.startswith("walk 0x%08x" % (s["mark_rodata_ro"] + off)),
            "[%s] walk mark_rodata_ro walks its moved address" % tag, out[:200])
    cr3 = registers(g.monitor("info registers"))["CR3"]
    moved = {k: v + off for k, v in s.items() if k in (
        "mark_rodata_ro", "_text", "__start_rodata", "__start_ro_after_init", "_sdata",
        "__bss_stop", "__init_begin", "_end")}
    for what, va, region in (("text", moved["mark_rodata_ro"], "kernel text"),
                             ("first text page", moved["_text"], "kernel text"),
                             ("rodata", moved["__start_rodata"], "kernel rodata"),
                             ("ro_after_init", moved["__start_ro_after_init"], "kernel ro_after_init"),
                             ("data", moved["_sdata"], "kernel data"),
                             ("bss", moved["__bss_stop"] - 1, "kernel bss"),
                             ("freed init", moved["__init_begin"],
                              "kernel init (freed: RW+NX, back in the page allocator)")):
        check_walk(t, g, cr3, pt, what, va, region, tag)
    out = g.command("ptdump")
    t.check(("0x%08x" % moved["_text"]) in out or ("%08x" % moved["_text"]) in out,
            "[%s] ptdump shows the text at its moved address" % tag, out[:600])
    out = g.command("lsmod")
    t.check("hello" in out, "[%s] modules load and link against the moved kernel" % tag, out)
    out = g.command("crash EXEC_LINKED")
    t.check(all(l in out for l in NX_OOPS) and "oopsed as it should" in out,
            "[%s] crash EXEC_LINKED: the System.map address faults on NX" % tag, out[-700:])


def kaslr_boot(t, tag, s, elf, offs, full):
    with Guest("kaslr " + tag, cmdline="kaslr") as g:
        log = g.wait_ready()
        r = image_checks(t, g, tag, log, s, elf, offs)
        if not r:
            return None, None
        off, pt = r
        if full:
            t.ktap(g.command("selftest", timeout=240), "selftest[%s]" % tag)
            out = g.command("wxcheck")
            t.check(WXCHECK in out, "[%s] wxcheck: only the declared hole" % tag, out)
            kernel_side_checks(t, g, tag, s, off, pt)
        t.check(g.poweroff() == 1, "[%s] poweroff" % tag)
    progress("kaslr %s: Kernel Offset 0x%x" % (tag, off))
    return off, pt


def test_kaslr_two_boots(t):
    s, elf = kernel_symbols(KERNEL), Elf32(KERNEL)
    offs = relocs.relocations(Elf32(RELOCS_ELF))
    a, _ = kaslr_boot(t, "boot A", s, elf, offs, True)
    b, pt_b = kaslr_boot(t, "boot B", s, elf, offs, True)
    if a is not None and a == b:
        progress("kaslr: boots A and B chose the same slot (0x%x): a third boot" % a)
        b, pt_b = kaslr_boot(t, "boot C", s, elf, offs, True)
    if a is None or b is None:
        return
    t.check(a != b, "two kaslr boots put the kernel text at different addresses",
            "0x%x and 0x%x" % (LINK + a, LINK + b))
    # the leak of boot A: printk's address, used in boot B
    leaked = s["printk"] + a
    x = pt_b.lookup(leaked)
    in_b = s["_text"] + b <= leaked < s["_etext"] + b
    t.check(x and phys(x, leaked) != s["printk"] - PAGE_OFFSET + b and (x.nx or in_b),
            "boot A's printk (0x%08x) is not printk in boot B: %s" % (
                leaked, "other text" if in_b else "RW+NX direct map"),
            x and "phys 0x%x %s" % (phys(x, leaked), x.perm()))


def test_kaslr_off(t):
    """nokaslr (last word wins over kaslr) and the default: the fixed layout."""
    s = kernel_symbols(KERNEL)
    for tag, cmdline in (("default", ""), ("kaslr nokaslr", "kaslr nokaslr")):
        if not cmdline and skip_under_boot_extra(t, "[default] the fixed layout without kaslr",
                                                 "the default boot is what this checks"):
            continue
        with Guest("kaslr off " + tag, cmdline=cmdline) as g:
            log = g.wait_ready()
            t.check(re.search(r"^Kernel Offset: disabled$", log, re.M),
                    "[%s] dmesg: Kernel Offset: disabled" % tag, log[:800])
            pt = PageTables(g.monitor("info tlb"))
            x = pt.lookup(s["_text"])
            t.check(x and phys(x, s["_text"]) == LOAD and x.perm() == "RO+X",
                    "[%s] info tlb: 0xc0100000 -> phys 1 MiB, RO+X" % tag, x and hex(x.pa))
            out = g.command("crash EXEC_LINKED")
            t.check("ran: KASLR is off" in out and "Oops" not in out,
                    "[%s] crash EXEC_LINKED: the System.map address is the function" % tag, out)
            out = g.command("walk 0x%08x" % s["printk"])
            t.check("kernel text" in out, "[%s] walk printk's link address: kernel text" % tag, out[:300])
            g.poweroff()


def grub_iso_with(cmdline, where):
    """build/ronx.iso's files, GRUB's first entry booting with cmdline (multiboot2)."""
    iso = os.path.join(where, "isodir")
    shutil.copytree(os.path.join(BUILD, "isodir"), iso)
    with open(os.path.join(ROOT, "iso", "grub.cfg")) as f:
        cfg = f.read().replace("multiboot2 /boot/kernel.elf\n",
                               "multiboot2 /boot/kernel.elf %s\n" % cmdline, 1)
    with open(os.path.join(iso, "boot", "grub", "grub.cfg"), "w") as f:
        f.write(cfg)
    subprocess.run(["grub-mkrescue", "-o", os.path.join(where, "ronx.iso"), iso],
                   capture_output=True, check=True)


def test_kaslr_machines(t):
    """kaslr on a small machine (16M: fewer slots), with four CPUs (the APs
    start through the trampoline into the moved image), from GRUB's
    multiboot2 (its information structure must survive the move), and on
    a CPU with RDRAND (the entropy's source, named in the offset line)."""
    s, elf = kernel_symbols(KERNEL), Elf32(KERNEL)
    offs = relocs.relocations(Elf32(RELOCS_ELF))
    tmp = tempfile.mkdtemp(prefix="ronx-kaslr-iso-")
    try:
        grub_iso_with("kaslr", tmp)
        for tag, memory, cpu, extra, iso in (
                ("16M", "16M", CPU_NX, [], False),
                ("smp4", "128M", CPU_NX, ["-smp", "4"], False),
                ("grub", "128M", CPU_NX, [], True),
                ("rdrand", "128M", CPU_NX + ",+rdrand", [], False)):
            kw = {"iso": True, "build": tmp} if iso else {"cmdline": "kaslr"}
            with Guest("kaslr " + tag, memory=memory, cpu=cpu, extra=extra, **kw) as g:
                log = g.wait_ready()
                if iso:
                    t.check("booted by multiboot2" in log, "[%s] booted by multiboot2" % tag)
                source = "RDRAND" if "rdrand" in cpu else "RDTSC"
                t.check(re.search(r"^Kernel Offset: .*slots, %s;" % source, log, re.M),
                        "[%s] the offset came from %s" % (tag, source), log[:600])
                r = image_checks(t, g, tag, log, s, elf, offs)
                if not r:
                    continue
                off, _ = r
                t.ktap(g.command("selftest", timeout=600), "selftest[kaslr %s]" % tag)
                t.check(WXCHECK in g.command("wxcheck"), "[%s] wxcheck: only the declared hole" % tag)
                if extra:
                    n = int(extra[1])
                    states = cpu_states(g)
                    check_cpus_up(t, tag, states, set(range(n)),
                                  s["swapper_pg_dir"] + off - PAGE_OFFSET)
                    check_wx_per_cpu(t, tag, g, n)
                t.check(g.poweroff() == 1, "[%s] poweroff" % tag)
            progress("kaslr %s: Kernel Offset 0x%x" % (tag, off))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_kaslr_gdb(t):
    """gdb on a kaslr boot (tools/gdb/ronx.py): ronx-kaslr reads the offset
    from the guest (its IDT register) and loads the symbols there; then a
    name walks its moved address, a breakpoint by name stops in the moved
    code, and ronx-ptdump there is the shell's ptdump line for line."""
    from test_gdb import free_port, sections
    import time
    import walk
    if not shutil.which("gdb"):
        t.fail("gdb is installed", "no gdb on PATH: tools/setup.sh installs it")
        return
    subprocess.run(["make", "--no-print-directory", "-s", "build/host/libronx-pt.so"],
                   cwd=ROOT, check=True)
    s = kernel_symbols(KERNEL)
    port = free_port()
    log = os.path.join(BUILD, "results", "logs", "gdb-kaslr.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    cmds = ["set architecture i386", "set pagination off", "set confirm off",
            "file build/kernel.elf", "source tools/gdb/ronx.py",
            "target remote 127.0.0.1:%d" % port, "echo ===offset\\n", "ronx-kaslr",
            "echo ===walk\\n", "ronx-walk mark_rodata_ro", "break cmd_ptdump",
            "echo ===continue\\n", "continue", "echo ===dump\\n", "ronx-ptdump",
            "echo ===end\\n", "delete", "detach"]
    with Guest("kaslr gdb", cmdline="kaslr", extra=["-gdb", "tcp:127.0.0.1:%d" % port]) as g, \
            open(log, "w") as logf:
        m = OFFSET.search(g.wait_ready())
        off = int(m.group(1), 16) if m else None
        pt = PageTables(g.monitor("info tlb"))
        gdb = subprocess.Popen(
            ["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off"] +
            [a for c in cmds for a in ("-ex", c)],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and "===continue" not in open(log).read():
                time.sleep(0.2)
            time.sleep(1)	# gdb sends "continue" right after the echo
            shell_dump = g.command("ptdump")
            gdb.wait(timeout=120)
        finally:
            if gdb.poll() is None:
                gdb.kill()
                gdb.wait()
        g.poweroff()
    with open(log) as f:
        out = f.read()
    part = sections(out)
    if not t.check(off is not None and "end" in part, "gdb ran the whole script on a kaslr boot",
                   out[-1500:]):
        return
    t.check("ronx-kaslr: Kernel Offset: 0x%x from 0xc0100000" % off in part["offset"],
            "ronx-kaslr reads the boot's offset 0x%x from the guest" % off, part["offset"])
    w = walk.parse(part["walk"])
    va = s["mark_rodata_ro"] + off
    x = pt.lookup(va)
    t.check(part["walk"].strip().startswith("walk 0x%08x" % va) and x and w.perm == x.perm() == "RO+X",
            "ronx-walk mark_rodata_ro walks 0x%08x (moved), RO+X as info tlb says" % va,
            part["walk"][:400])
    dump = part["dump"].strip().splitlines()
    t.check(len(dump) > 5 and dump == shell_dump.strip().splitlines(),
            "break cmd_ptdump stops in the moved code; ronx-ptdump there = the shell's ptdump",
            "gdb:\n%s\nshell:\n%s" % (part["dump"], shell_dump))


def test_kaslr_crash_demos(t):
    """Every crash demo under kaslr: each oopses for its own reason, names
    its symbol through kallsyms and the shell comes back (test_crash's list)."""
    from test_crash import crash_all
    with Guest("kaslr crash demos", cmdline="kaslr") as g:
        m = OFFSET.search(g.wait_ready())
        t.check(m and int(m.group(1), 16), "[crash] booted with the image moved", m and m.group(0))
        crash_all(t, g)
        out = g.command("crash EXEC_DATA")
        trace = out[out.find("Call Trace:"):]
        t.check("perform+0x" in trace and "shell_execute+0x" in trace,
                "[crash] the oops's call trace names symbol+offset under kaslr", out[-900:])
        t.check(g.poweroff() == 1, "[crash] poweroff after the demos")
