# SPDX-License-Identifier: GPL-2.0-only
"""Hardened usercopy (issue 32 item 5, mm/usercopy.c) and LKDTM's
USERCOPY_* crash types (item 7): each bad copy is stopped with Linux's
usercopy_abort() line and a BUG(), the shell answers and a process still
runs after them. The heap ones (USERCOPY_HEAP_SIZE_TO/FROM) copy 1024
bytes from 16 bytes into a kmalloc-1024 object, after two good copies (half
of it from there, all of it from its start), and their objects are freed
after the oops: meminfo's PagesFree plus SlabEmpty is the same after them. Booted with hardened_usercopy=off the same copies go
through (or fault on their own), which proves the check is what stops them."""
import re

from guest import Guest
from userprog import free_pages_and_empty_slabs

REPORT = re.compile(r"^usercopy: Kernel memory (exposure|overwrite) attempt detected (from|to) "
                    r"(process stack|kernel text|SLUB object 'kmalloc-1024') \(offset (\d+), size (\d+)\)!$",
                    re.M)
HEAP = "SLUB object 'kmalloc-1024'"
CASES = [  # crash type, Linux's words, where, size
    ("USERCOPY_STACK_FRAME_TO", "exposure", "from", "process stack", 32),
    ("USERCOPY_STACK_FRAME_FROM", "overwrite", "to", "process stack", 32),
    ("USERCOPY_STACK_BEYOND", "exposure", "from", "process stack", 32),
    ("USERCOPY_KERNEL", "exposure", "from", "kernel text", 4096),
    ("USERCOPY_HEAP_SIZE_TO", "exposure", "from", HEAP, 1024),
    ("USERCOPY_HEAP_SIZE_FROM", "overwrite", "to", HEAP, 1024),
]
TEXT_AT = re.compile(r"lkdtm: attempting bad copy_to_user from kernel text: ([0-9a-f]{8})$", re.M)
EXPECTED_OFF = "since this kernel was booted with hardened_usercopy=off"


def runs_hello(t, g, when):
    out = g.command("run hello")
    t.check("hello from user space" in out and "exit status 0" in out,
            "a process still runs %s" % when, out)


def test_usercopy_caught(t):
    with Guest("usercopy") as g:
        g.wait_ready()
        listing = g.command("crash")
        before = free_pages_and_empty_slabs(g)
        for n, (name, kind, way, where, size) in enumerate(CASES, 1):
            t.check(re.search(r"^\s+%s\s" % name, listing, re.M), "crash lists %s" % name, listing)
            out = g.command("crash " + name)
            m = REPORT.search(out)
            t.check(m and m.group(1, 2, 3) == (kind, way, where) and int(m.group(5)) == size,
                    "%s: usercopy: Kernel memory %s attempt detected %s %s (size %d)"
                    % (name, kind, way, where, size), out[-1500:])
            t.check("kernel BUG at mm/usercopy.c:" in out and "invalid opcode: 0000 [#%d]" % n in out
                    and "oopsed as it should" in out and "FAIL" not in out,
                    "%s: BUG() oopses the command, the shell goes on" % name, out[-1500:])
            if name == "USERCOPY_KERNEL" and m:
                at = TEXT_AT.search(out)
                text = g.symbols()["_text"]
                t.check(at and int(m.group(4)) == int(at.group(1), 16) - text,
                        "USERCOPY_KERNEL: the offset is the address's distance from _text", out[-1500:])
            if where == HEAP:
                way = "to_user" if name.endswith("_TO") else "from_user"
                t.check(m and int(m.group(4)) == 16
                        and "attempting good copy_%s of correct size" % way in out
                        and "attempting bad copy_%s of too large size" % way in out
                        and "unexpectedly" not in out,
                        "%s: the good copies (half the object at offset 16, all of it from its "
                        "start) go through; the bad one is refused at offset 16 in its object"
                        % name, out[-1500:])
        runs_hello(t, g, "after %d usercopy oopses" % len(CASES))
        t.check(free_pages_and_empty_slabs(g) == before, "no page leaked by the usercopy crash types")
        t.check(g.poweroff() == 1, "the kernel powers off cleanly after them")


def test_usercopy_off(t):
    """Without the check the bad copies are not stopped: the demos say FAIL (or,
    past the stack's top, the copy runs into the next slot's guard page)."""
    with Guest("usercopy off", cmdline="hardened_usercopy=off") as g:
        g.wait_ready()
        for name, _, _, _, _ in CASES:
            out = g.command("crash " + name)
            through = ("lkdtm: copy_to_user failed, but lacked Oops" in out if name == "USERCOPY_STACK_BEYOND"
                       else "lkdtm: FAIL: bad" in out and EXPECTED_OFF in out)
            t.check(through and "usercopy:" not in out and "kernel BUG" not in out,
                    "[hardened_usercopy=off] %s is not stopped by usercopy" % name, out[-1500:])
            if name == "USERCOPY_HEAP_SIZE_FROM":
                t.check("lkdtm: the next object now starts with 0x00, not 'B' (0x42)" in out,
                        "[hardened_usercopy=off] USERCOPY_HEAP_SIZE_FROM overwrites the next "
                        "object (its first byte is the user page's, 0)", out[-1500:])
        runs_hello(t, g, "under hardened_usercopy=off")
