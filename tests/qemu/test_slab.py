# SPDX-License-Identifier: GPL-2.0-only
"""kmalloc (mm/slab.c, issue 32 item 2), init_on_free (item 6) and LKDTM's
READ_AFTER_FREE / WRITE_AFTER_FREE (item 7), seen from outside: the crash
types print the freed object's physical address, and QEMU's `xp` reads
its bytes: POISON_FREE (0x6b) by default, zero under init_on_free=1. A
write after free is reported by the next kmalloc as SLUB reports it, and
a page freed under init_on_free is zero in RAM (xp of the page
READ_BUDDY_AFTER_FREE freed), while without the option it still holds
the value written before the free."""
import re

from guest import Guest

PAGE_OFFSET = 0xC0000000
OBJECT = re.compile(r"lkdtm: Allocated memory ([0-9a-f]{8})-[0-9a-f]{8} \(phys ([0-9a-f]{8})\)")
BUDDY_AT = re.compile(r"lkdtm: Attempting to read from freed memory at ([0-9a-f]{8})$", re.M)
LEN = 1024
WORD = 4  # a free object's first word links it to the next: not poison


def xp_bytes(g, phys, n):
    out = g.monitor("xp /%dwx 0x%x" % (n // 4, phys))
    words = [int(w, 16) for line in out.splitlines() if ":" in line
             for w in re.findall(r"0x([0-9a-f]+)", line.split(":", 1)[1])]
    return b"".join(w.to_bytes(4, "little") for w in words)


def check_freed_object(t, g, tag, out, name, byte):
    m = OBJECT.search(out)
    t.check(m, tag + name + ": the crash line gives the object's physical address", out[-800:])
    if not m:
        return
    phys = int(m.group(2), 16)
    got = xp_bytes(g, phys + WORD, LEN - WORD)
    bad = sum(b != byte for b in got)
    t.check(len(got) == LEN - WORD and not bad,
            tag + "%s: from outside (xp) the freed object's %d bytes after its link word are 0x%02x"
            % (name, LEN - WORD, byte), "%d bytes differ, first %r" % (bad, got[:16]))


def slab_lane(t, tag, cmdline, extra=(), suites="slab"):
    """suites: the self-tests to run after the crash types ("": every one)."""
    zero = "init_on_free=1" in cmdline
    byte = 0 if zero else 0x6b
    with Guest("slab " + tag, cmdline=cmdline, extra=list(extra)) as g:
        g.wait_ready()
        tag = "[%s] " % tag
        listing = g.command("crash")
        for name in ("READ_AFTER_FREE", "WRITE_AFTER_FREE"):
            t.check(re.search(r"^\s+%s\s" % name, listing, re.M), tag + "crash lists " + name)

        out = g.command("crash READ_AFTER_FREE")
        t.check("lkdtm: Memory correctly poisoned (%x)" % (0 if zero else 0x6b6b6b6b) in out
                and "FAIL" not in out and "Oops" not in out,
                tag + "READ_AFTER_FREE: the read sees %s, not the value written before kfree"
                % ("zero" if zero else "the poison"), out[-800:])
        check_freed_object(t, g, tag, out, "READ_AFTER_FREE", byte)

        out = g.command("crash WRITE_AFTER_FREE")
        if zero:
            t.check("booted with init_on_free=1" in out and "Poison overwritten" not in out
                    and "Oops" not in out,
                    tag + "WRITE_AFTER_FREE: zeroed objects are not checked, and the demo says so",
                    out[-800:])
        else:
            t.check("BUG kmalloc-1024 (Not tainted): Poison overwritten" in out
                    and re.search(r"^0x[0-9a-f]{8}-0x[0-9a-f]{8} @offset=512\. "
                                  r"First byte 0xf0 instead of 0x6b$", out, re.M)
                    and "FIX kmalloc-1024: Restoring Poison" in out
                    and "lkdtm: Write after free detected" in out and "Oops" not in out,
                    tag + "WRITE_AFTER_FREE: the next kmalloc reports the write at offset 512 "
                    "in SLUB's words and restores the poison", out[-800:])
        check_freed_object(t, g, tag, out, "WRITE_AFTER_FREE", byte)

        out = g.command("crash READ_BUDDY_AFTER_FREE")
        m = BUDDY_AT.search(out)
        t.check(m, tag + "READ_BUDDY_AFTER_FREE names the freed page", out[-800:])
        if m:
            word = int.from_bytes(xp_bytes(g, int(m.group(1), 16) - PAGE_OFFSET, 4), "little")
            if zero:
                t.check(word == 0 and "Memory correctly poisoned (0)" in out,
                        tag + "init_on_free: the freed page is zero in RAM (xp) and the read saw 0",
                        "word %#x\n%s" % (word, out[-800:]))
            else:
                t.check(word == 0x12345678,
                        tag + "without init_on_free the freed page still holds 0x12345678 (xp): "
                        "the outside check can tell", "word %#x" % word)
        t.ktap(g.command(("selftest " + suites).strip(), timeout=300),
               ("selftest " + suites).strip() + tag.strip())
        out = g.command("run hello")
        t.check("exit status 0" in out, tag + "a process runs after the crash types", out[-400:])
        out = g.command("meminfo")
        t.check(re.search(r"^Oopses:\s+0$", out, re.M), tag + "no oops in this boot", out)
        t.check(g.poweroff() == 1, tag + "the kernel still powers off cleanly")


def test_slab_poison(t):
    slab_lane(t, "poison", "")


def test_slab_init_on_free(t):
    """Every self-test too: init_on_free zeroes each page freed, modules' included."""
    slab_lane(t, "init_on_free", "init_on_free=1", suites="")


def test_slab_init_on_free_smp2(t):
    slab_lane(t, "init_on_free smp 2", "init_on_free=1", ["-smp", "2"])
