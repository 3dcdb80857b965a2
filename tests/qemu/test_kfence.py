# SPDX-License-Identifier: GPL-2.0-only
"""KFENCE (mm/kfence.c, issue 32 item 3). Booted with
kfence.sample_interval=1 every kmalloc goes to the pool; the crash types
KFENCE_* (ronx's names, after Linux's kfence_test cases) each do one bad
thing to a KFENCE object. Each report is checked for KFENCE's lines (the
BUG line, the access line with its distance from the object, the
object's line, the allocation and free stacks), the kernel must go on
(the crash's own line after the access, and the shell answering), and
QEMU's `info tlb`, read from outside, must show the pool's guard pages
and a freed object's page absent, and a freed object's frame mapped at
no address at all. A boot with kfence.sample_interval=0 has no pool and
routes nothing to it."""
import re

from guest import Guest
from tlb import PageTables

PAGE = 4096
POOL_SIZE = 2 << 20
NUM_OBJECTS = 255
INIT = re.compile(r"^kfence: initialized - using 2097152 bytes for 255 objects at "
                  r"0x([0-9a-f]{8})-0x([0-9a-f]{8}), sample interval 1 allocations$", re.M)
OBJECT = re.compile(r"^lkdtm: kfence-#(\d+) at 0x([0-9a-f]{8}), page 0x([0-9a-f]{8}), "
                    r"guards 0x([0-9a-f]{8}) 0x([0-9a-f]{8}), phys 0x([0-9a-f]{8})$", re.M)
NAMES = ("KFENCE_OOB_READ", "KFENCE_OOB_WRITE", "KFENCE_UAF_READ", "KFENCE_UAF_WRITE",
         "KFENCE_INVALID_FREE", "KFENCE_DOUBLE_FREE", "KFENCE_CORRUPTION")
SIZE = 32


class Obj:
    def __init__(self, m):
        self.k = int(m.group(1))
        self.va, self.page, self.left, self.right, self.phys = (int(m.group(i), 16)
                                                               for i in range(2, 7))


def tlb(g):
    return PageTables(g.monitor("info tlb"))


def mapped_at(pt, phys):
    """Every virtual address whose page maps the frame at phys."""
    return [m.va for m in pt.maps if m.pa <= phys < m.pa + m.size]


def stack_after(out, header, fn):
    """Whether the line `header` is followed by a stack whose first line names fn."""
    return re.search(r"^%s\n %s\+0x[0-9a-f]+/0x[0-9a-f]+\n" % (re.escape(header), fn), out, re.M)


def object_lines(out, o, freed, fn):
    """The object's line, its allocation stack and (freed) its free stack, all in fn."""
    obj = re.search(r"^kfence-#%d: 0x%08x-0x%08x, size=%d, cache=kmalloc-32$"
                    % (o.k, o.va, o.va + SIZE - 1, SIZE), out, re.M)
    alloc = re.search(r"^allocated by task \d+ on cpu \d+ at \d+\.\d+s:\n %s\+" % fn, out, re.M)
    free = re.search(r"^freed by task \d+ on cpu \d+ at \d+\.\d+s:\n %s\+" % fn, out, re.M)
    return obj and alloc and (bool(free) == freed)


def crash(t, g, tag, name):
    out = g.command("crash " + name)
    m = OBJECT.search(out)
    t.check(m, tag + name + ": the crash names its KFENCE object", out[-1500:])
    return out, (Obj(m) if m else None)


def went_on(t, g, tag, name, out, line):
    t.check(line in out and "Oops" not in out, tag + name + ": the access completed and the "
            "crash went on after the report (%r)" % line, out[-1500:])
    ans = g.command("kfence")
    t.check("enabled: 1" in ans, tag + name + ": the shell still answers", ans)


def check_oob(t, g, tag, name, kind, side, pool):
    fn = "lkdtm_" + name
    out, o = crash(t, g, tag, name)
    if not o:
        return None
    addr = o.va + SIZE if side == "right" else o.va - 1
    t.check(re.search(r"^BUG: KFENCE: out-of-bounds %s in %s\+0x[0-9a-f]+/0x[0-9a-f]+$"
                      % (kind, fn), out, re.M)
            and stack_after(out, "Out-of-bounds %s at 0x%08x (1B %s of kfence-#%d):"
                            % (kind, addr, side, o.k), fn)
            and object_lines(out, o, False, fn),
            tag + name + ": KFENCE's report: BUG line, 1B %s of kfence-#%d, the faulting "
            "stack, the object and its allocation stack" % (side, o.k), out[-1500:])
    went_on(t, g, tag, name, out, "lkdtm: read 0x00: the kernel went on" if kind == "read"
            else "lkdtm: wrote: the kernel went on")
    pt = tlb(g)
    t.check(all(pt.lookup(va) is None for va in (o.left, o.page, o.right)),
            tag + name + ": from outside (info tlb) the freed object's page 0x%08x and both "
            "guards are absent (the one it hit put back by kfree)" % o.page,
            str([(hex(va), pt.lookup(va) is not None) for va in (o.left, o.page, o.right)]))
    t.check(not mapped_at(pt, o.phys),
            tag + name + ": from outside, the freed object's frame 0x%08x is mapped at no "
            "address (not in the direct map)" % o.phys,
            "mapped at %s" % [hex(v) for v in mapped_at(pt, o.phys)])
    t.check(pool[0] <= o.va < pool[1], tag + name + ": the object is in the pool")
    return o


def check_uaf(t, g, tag, name, kind):
    fn = "lkdtm_" + name
    out, o = crash(t, g, tag, name)
    if not o:
        return None
    t.check(re.search(r"^BUG: KFENCE: use-after-free %s in %s\+0x[0-9a-f]+/0x[0-9a-f]+$"
                      % (kind, fn), out, re.M)
            and stack_after(out, "Use-after-free %s at 0x%08x (in kfence-#%d):"
                            % (kind, o.va, o.k), fn)
            and object_lines(out, o, True, fn),
            tag + name + ": KFENCE's report: BUG line, in kfence-#%d, the faulting stack, "
            "the allocation and the free stacks" % o.k, out[-1500:])
    went_on(t, g, tag, name, out, "lkdtm: read 0x6b: the kernel went on" if kind == "read"
            else "lkdtm: wrote: the kernel went on")
    pt = tlb(g)
    t.check(pt.lookup(o.page) is not None and pt.lookup(o.left) is None,
            tag + name + ": from outside, the freed page 0x%08x is mapped now, so the access "
            "could complete (Linux's kfence_unprotect); its guard is not" % o.page,
            str([(hex(va), pt.lookup(va) is not None) for va in (o.left, o.page)]))
    return o


def check_free_bug(t, g, tag, name, freed, what, line_fmt):
    fn = "lkdtm_" + name
    out, o = crash(t, g, tag, name)
    if not o:
        return None
    header = line_fmt(o)
    t.check(re.search(r"^BUG: KFENCE: %s in %s\+0x[0-9a-f]+/0x[0-9a-f]+$" % (what, fn), out, re.M)
            and stack_after(out, header, fn) and object_lines(out, o, freed, fn),
            tag + name + ": KFENCE's report: BUG line, %r, the object and its stacks" % header,
            out[-1500:])
    ans = g.command("kfence")
    t.check("enabled: 1" in ans, tag + name + ": the shell still answers", ans)
    return o


def kfence_lane(t, tag, extra=()):
    with Guest("kfence " + tag, cmdline="kfence.sample_interval=1", extra=list(extra)) as g:
        g.wait_ready()
        tag = "[%s] " % tag
        t.ktap(g.command("selftest kfence", timeout=300), "selftest kfence " + tag.strip())
        m = INIT.search(g.out)
        t.check(m, tag + "the boot says KFENCE is on, with its pool", g.out[-2000:])
        if not m:
            return
        pool = (int(m.group(1), 16), int(m.group(2), 16))
        t.check(pool[1] - pool[0] == POOL_SIZE and pool[0] % POOL_SIZE == 0,
                tag + "the pool is 2 MiB, 2 MiB-aligned: one page table")
        pt = tlb(g)
        present = [hex(va) for va, mp in pt.pages(pool[0], pool[1]) if mp]
        t.check(not present, tag + "from outside (info tlb), after the self-tests freed every "
                "object, not one page of the pool is mapped: guards and free objects",
                "present: %s" % present[:8])
        listing = g.command("crash")
        for name in NAMES:
            t.check(re.search(r"^\s+%s\s" % name, listing, re.M), tag + "crash lists " + name)

        objs = [check_oob(t, g, tag, "KFENCE_OOB_READ", "read", "right", pool),
                check_oob(t, g, tag, "KFENCE_OOB_WRITE", "write", "left", pool),
                check_uaf(t, g, tag, "KFENCE_UAF_READ", "read"),
                check_uaf(t, g, tag, "KFENCE_UAF_WRITE", "write"),
                check_free_bug(t, g, tag, "KFENCE_INVALID_FREE", False, "invalid free",
                               lambda o: "Invalid free of 0x%08x (in kfence-#%d):"
                               % (o.va + 1, o.k)),
                check_free_bug(t, g, tag, "KFENCE_DOUBLE_FREE", True, "invalid free",
                               lambda o: "Invalid free of 0x%08x (in kfence-#%d):"
                               % (o.va, o.k)),
                check_free_bug(t, g, tag, "KFENCE_CORRUPTION", False, "memory corruption",
                               lambda o: "Corrupted memory at 0x%08x [ 0x2a . . . . . . . . "
                               ". . . . . . . ] (in kfence-#%d):" % (o.va + SIZE, o.k))]
        ks = [o.k for o in objs if o]
        t.check(len(ks) == len(NAMES) and len(set(ks)) == len(ks),
                tag + "quarantine: no freed object was handed out again (FIFO of 255)",
                "objects %s" % ks)
        out = g.command("kfence")
        t.check(re.search(r"^total bugs: 7$", out, re.M)
                and re.search(r"^currently allocated: 0$", out, re.M),
                tag + "kfence counts 7 bugs and no object left allocated", out)
        out = g.command("run hello")
        t.check("exit status 0" in out, tag + "a process runs after the reports", out[-400:])
        out = g.command("meminfo")
        t.check(re.search(r"^Oopses:\s+0$", out, re.M), tag + "no oops: KFENCE reported "
                "each and the kernel went on", out)
        t.check(g.poweroff() == 1, tag + "the kernel still powers off cleanly")


def test_kfence(t):
    kfence_lane(t, "interval 1")


def test_kfence_smp2(t):
    kfence_lane(t, "interval 1 smp 2", ["-smp", "2"])


def test_kfence_interval3(t):
    """N > 1: every third kmalloc (the self-test counts them), the crash types still find one."""
    with Guest("kfence interval 3", cmdline="kfence.sample_interval=3") as g:
        g.wait_ready()
        t.check("sample interval 3 allocations" in g.out, "[interval 3] the boot says N is 3",
                g.out[-1500:])
        t.ktap(g.command("selftest kfence", timeout=300), "selftest kfence [interval 3]")
        out = g.command("crash KFENCE_UAF_WRITE")
        t.check(re.search(r"^BUG: KFENCE: use-after-free write in lkdtm_KFENCE_UAF_WRITE\+", out,
                          re.M) and "lkdtm: wrote: the kernel went on" in out,
                "[interval 3] KFENCE_UAF_WRITE is reported and the kernel goes on", out[-1500:])
        t.check(g.poweroff() == 1, "[interval 3] the kernel powers off cleanly")


def test_kfence_off(t):
    with Guest("kfence off", cmdline="kfence.sample_interval=0") as g:
        g.wait_ready()
        t.check("kfence: initialized" not in g.out, "[off] no pool at boot", g.out[-1500:])
        out = g.command("kfence")
        t.check("enabled: 0" in out and re.search(r"^total allocations: 0$", out, re.M),
                "[off] kfence says it is off, nothing allocated", out)
        out = g.command("selftest kfence")
        t.check(out.count("# SKIP booted without kfence.sample_interval") == 3,
                "[off] the KFENCE self-tests say they are skipped, and why", out)
        out = g.command("crash KFENCE_OOB_READ")
        t.check("lkdtm: KFENCE is off: boot with kfence.sample_interval=N" in out
                and "BUG: KFENCE" not in out, "[off] the crash type says KFENCE is off", out)
        out = g.command("crash READ_AFTER_FREE")
        t.check("lkdtm: Memory correctly poisoned" in out and "BUG: KFENCE" not in out,
                "[off] kmalloc is served by the slabs", out[-800:])
        out = g.command("kfence")
        t.check(re.search(r"^total allocations: 0$", out, re.M),
                "[off] after kmallocs, the pool is still unused", out)
        t.check(g.poweroff() == 1, "[off] the kernel powers off cleanly")


def test_kfence_bad_option(t):
    with Guest("kfence bad option", cmdline="kfence.sample_interval=often") as g:
        g.wait_ready()
        t.check("bad value 'often' for option 'kfence.sample_interval'" in g.out
                and "kfence: initialized" not in g.out,
                "[bad] kfence.sample_interval=often: one line naming it, KFENCE stays off",
                g.out[-1500:])
        t.check(g.poweroff() == 1, "[bad] the kernel powers off cleanly")


def test_kfence_usercopy(t):
    """Hardened usercopy holds a KFENCE object to its size class as it holds
    a slab object (Linux's __check_heap_object() does both): with every
    kmalloc sampled, USERCOPY_HEAP_SIZE_* is refused with the same line as
    from the slabs, before the copy reaches the guard page."""
    with Guest("kfence usercopy", cmdline="kfence.sample_interval=1") as g:
        g.wait_ready()
        before = int(re.search(r"^total allocations: (\d+)$", g.command("kfence"), re.M).group(1))
        for name, words in (("USERCOPY_HEAP_SIZE_TO", "exposure attempt detected from"),
                            ("USERCOPY_HEAP_SIZE_FROM", "overwrite attempt detected to")):
            out = g.command("crash " + name)
            t.check("usercopy: Kernel memory %s SLUB object 'kmalloc-1024' (offset 16, size 1024)!"
                    % words in out and "BUG: KFENCE" not in out,
                    "[usercopy] %s on KFENCE objects: usercopy's line for kmalloc-1024, "
                    "no KFENCE report" % name, out[-1500:])
        after = int(re.search(r"^total allocations: (\d+)$", g.command("kfence"), re.M).group(1))
        t.check(after >= before + 4, "[usercopy] the crash types' objects came from the pool "
                "(%d KFENCE allocations, want at least 4)" % (after - before))
        t.check(g.poweroff() == 1, "[usercopy] the kernel powers off cleanly")
