# SPDX-License-Identifier: GPL-2.0-only
"""What the QEMU user-mode tests need besides a guest: the programs' own
program headers, read from the initrd the guest booted (not from anything
the kernel says), and the regexes for the kernel's lines."""
import re
import struct
import time

from guest import BUILD, PROMPT

PAGE = 4096
TASK_SIZE = 0xC0000000
STACK_TOP = TASK_SIZE
STACK_BOTTOM = STACK_TOP - (128 << 10)     # the stack mapped at exec
STACK_LIMIT = STACK_TOP - (8 << 20)         # as low as it grows on faults (RLIMIT_STACK)
GUARD = STACK_LIMIT - PAGE                  # never mapped: an overflow faults here
SEGV = re.compile(r"^(\S+)\[(\d+)\]: segfault at ([0-9a-f]+) ip ([0-9a-f]{8}) sp ([0-9a-f]{8}) "
                  r"error ([0-9a-f]+)", re.M)
PS_LINE = re.compile(r"^\s*(\d+) (\w+)\s+0x([0-9a-f]{8})\s+(\d+)\s+(\d+) (\S+)", re.M)
PF_R, PF_W, PF_X = 4, 2, 1
# not anchored: the prompt may come first on the same line
SPIN_LOOPING = re.compile(r"spin: pid (\d+) looping\n")
PARK_PARKED = re.compile(r"park: pid (\d+) parked\n")


def run_in_background(g, name, last):
    """`run NAME &`, then waits for the program's last line (the regex
    last, its pid in group 1) and the prompt: the program prints on its
    CPU while the shell takes the next line, and would cut into that
    line's echo. (pid, what was printed)."""
    mark = len(g.out)
    g.send(b"run %s &\r" % name.encode())
    m = g.wait_for(last.pattern, start=mark)
    g.wait_for("^" + re.escape(PROMPT), start=mark)
    return int(m.group(1)), g.out[mark:]


def run_spin_in_background(g):
    """spin: a process that keeps a CPU busy in ring 3 until killed."""
    return run_in_background(g, "spin", SPIN_LOOPING)


def run_park_in_background(g):
    """park: a process that sleeps until killed (a token that costs no
    CPU; every park holds as many frames as every other)."""
    return run_in_background(g, "park", PARK_PARKED)


def cpio_files(path):
    """name -> bytes, from a cpio newc archive."""
    data, files, pos = open(path, "rb").read(), {}, 0
    while pos + 110 <= len(data):
        hdr = data[pos:pos + 110]
        if hdr[:6] != b"070701":
            break
        size, namesize = int(hdr[54:62], 16), int(hdr[94:102], 16)
        name = data[pos + 110:pos + 110 + namesize - 1].decode()
        start = (pos + 110 + namesize + 3) & ~3
        if name == "TRAILER!!!":
            break
        files[name] = data[start:start + size]
        pos = (start + size + 3) & ~3
    return files


def load_segments(elf):
    """[(page start, page end, p_flags, filesz end page)] of each PT_LOAD."""
    phoff, = struct.unpack_from("<I", elf, 28)
    phnum, = struct.unpack_from("<H", elf, 44)
    segs = []
    for i in range(phnum):
        p_type, off, va, _, filesz, memsz, flags, _ = struct.unpack_from("<8I", elf, phoff + 32 * i)
        if p_type == 1 and memsz:
            segs.append((va & ~(PAGE - 1), (va + memsz + PAGE - 1) & ~(PAGE - 1), flags))
    return segs


def expected_perms(elf):
    """va page -> (rw, exec) as the program headers ask, plus the stack."""
    want = {}
    for start, end, flags in load_segments(elf):
        for va in range(start, end, PAGE):
            want[va] = (bool(flags & PF_W), bool(flags & PF_X))
    for va in range(STACK_BOTTOM, STACK_TOP, PAGE):
        want[va] = (True, False)
    return want


def program(initrd, name):
    return cpio_files(initrd)["bin/" + name]


def ps_table(listing):
    """pid -> (state, cr3, name) from a ps listing."""
    return {int(m.group(1)): (m.group(2), int(m.group(3), 16), m.group(6))
            for m in PS_LINE.finditer(listing)}


def ps(g):
    """ps_table() of the shell's ps now."""
    return ps_table(g.command("ps"))


TAP_CASE = re.compile(r"^(not )?ok (\d+) - (.*)$", re.M)


def check_tap_program(t, out, prog, cases, prefix):
    """A user program that reports in TAP (sigtest, jobctl): cases cases,
    each ok, then its own summary and exit status 0. prefix starts each
    check's name (the lane)."""
    lines = TAP_CASE.findall(out)
    t.check(len(lines) == cases, "%s%s reported %d cases" % (prefix, prog, cases), out)
    for neg, n, what in lines:
        t.check(not neg, "%s%s. %s" % (prefix, n, what), out)
    t.check("%s: %d passed, 0 failed" % (prog, cases) in out and "exit status 0" in out,
            "%s%s exit status 0" % (prefix, prog), out)


def cr3_of(g, pid):
    """The CR3 (its page tables) ps shows for pid."""
    return ps(g)[pid][1]


def free_pages(g):
    return int(re.search(r"PagesFree:\s+(\d+)", g.command("meminfo")).group(1))


def free_pages_and_empty_slabs(g):
    """PagesFree plus the empty slabs kmalloc keeps (SlabEmpty): a freed
    kmalloc object may leave its slab kept empty for the next kmalloc; a
    leaked one keeps its slab in use, and the sum one page short."""
    out = g.command("meminfo")
    return sum(int(re.search(r"%s:\s+(\d+)" % k, out).group(1)) for k in ("PagesFree", "SlabEmpty"))


def settled_free_pages(g, want):
    """PagesFree once it equals want, or its last reading after 10 s: a
    killed process gives its pages back on its own CPU as it exits, and a
    dead task's stack goes back once its CPU has switched away from it."""
    for _ in range(100):
        now = free_pages(g)
        if now == want:
            break
        time.sleep(0.1)
    return now


def initrd_path(g):
    return g.initrd or "%s/initrd.cpio" % BUILD
