# SPDX-License-Identifier: GPL-2.0-only
"""What the module labs (module-layout, module-lifecycle, text-patching)
share: a boot of their own, the page tables read again after a command,
lsmod's regions, and seed 003's layout computed here, in Python, from the
.ko files themselves (a second opinion the kernel cannot influence)."""
import os
import re
import struct
import time
from gdbstub import GdbStub
from grading import CheckFailed, deadline, expect_pages
from guest import PROMPT, echo_pattern
from test_modules import FREED, regions

PAGE = 4096
MODULES_VADDR, MODULES_END = 0xF8000000, 0xFC000000
ALIAS_VADDR, POKE_ALIAS = 0xFC000000, 0xFC000000 + 16 * PAGE
SHT_NULL, SHT_SYMTAB, SHT_NOBITS = 0, 2, 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
GROUPS = ("text", "ro", "roai", "rw")
WANT = {"text": "RO+X", "ro": "RO+NX", "roai": "RO+NX", "rw": "RW+NX"}
# the modules the autoload list loads at boot, and those the labs add
AUTOLOADED = ("hello", "provider", "user")


def own_boot(ctx, tag, cmdline=""):
    """A boot for one lab's checks alone: they load, unload and patch
    modules, which must not change what another lab's checks see."""
    return ctx.boot(cmdline=cmdline, tag=tag)


def insmod(g, name):
    """Loads name unless it is loaded; CheckFailed with insmod's words."""
    if re.search(r"^%s core " % name, g.sh("lsmod"), re.M):
        return
    out = g.sh("insmod " + name)
    if "insmod:" in out:
        raise CheckFailed("expected `insmod %s` to load it, found:\n%s"
                          % (name, "\n".join(short(g.log, out))))


def short(log, out):
    """What to show of a failed load: the lab stubs' lines from the boot
    log, then the first lines of an oops and the insmod error."""
    lines = [ln for ln in log.splitlines() if ln.startswith("ronx: lab ")]
    for ln in out.strip().splitlines():
        if ln.startswith(("ronx: lab ", "patch: ", "insmod:", "BUG:", "#PF:", "EIP:", "ronx: the page", "kernel tried")):
            lines.append(ln)
    return lines


def core_regions(g, names, lsmod=None):
    """{name: {group: (start, size)}} for the core region of each module,
    CheckFailed naming a module that is not loaded (with the boot log's
    insmod line about it, if any)."""
    lsmod = lsmod if lsmod is not None else g.sh("lsmod")
    regs = regions(lsmod)
    out = {}
    for n in names:
        if (n, "core") not in regs:
            why = [ln for ln in (g.log + lsmod).splitlines()
                   if "insmod: %s" % n in ln or "ronx: lab" in ln]
            raise CheckFailed("expected module %s loaded (lsmod shows its core region), found "
                              "it missing%s" % (n, ":\n" + "\n".join(why[-4:]) if why else ""))
        out[n] = regs[(n, "core")]
    return out


def host_regions(ctx, g, names, lsmod=None, ronx=True):
    """{name: {group: (start, size)}} of each module's core region with
    the sizes seed 003's layout gives its .ko (computed here, on the host)
    and only the base address taken from lsmod."""
    regs = core_regions(g, names, lsmod)
    out = {}
    for n in names:
        base = regs[n]["text"][0]
        t, r, a, size = seed_layout(read_ko(ctx, n)[0], ronx)[0]["core"]
        out[n] = {"text": (base, t), "ro": (base + t, r - t), "roai": (base + r, a - r),
                  "rw": (base + a, size - a)}
    return out


def load_in_random_order(ctx, g, key, names, reload=()):
    """insmod names in an order drawn from the grade's seed, then maybe
    unload and load again one of reload (new addresses for it): the
    scenario varies from grade to grade, the answer must not."""
    r = ctx.rng(key)
    order = list(names)
    r.shuffle(order)
    for n in order:
        insmod(g, n)
    if reload and r.random() < 0.5:
        n = reload[r.randrange(len(reload))]
        out = g.sh("rmmod " + n)
        if "rmmod:" not in out:
            insmod(g, n)
    return order


def stopped_at(stub, g, line, start, at):
    """With the guest running the shell line (sent after output offset
    start): True once it stops at one of the addresses at, False once the
    line has ended (its prompt printed) without stopping there: decided by
    the order of events, never by how long nothing came."""
    done = re.compile(echo_pattern(line) + r"(?:.*\n)*?" + re.escape(PROMPT), re.M)
    while True:
        # stopped by us (no breakpoint within 0.3 s) just as it reached one counts too
        if stub.wait_stop(0.3) or stub.regs()["eip"] in at:
            return True
        if done.search(g.guest.out, start):
            return False
        stub.cont()


def stops_seen(ctx, g, line, symbols, at_stop, limit=60):
    """Runs the shell line with QEMU's gdbstub stopping the kernel at each
    of symbols (kernel functions); at every stop, at_stop(stub, eip)
    returns what to keep (None: nothing). Returns (what the line printed,
    [what at_stop kept]). The kernel cannot tell it was watched."""
    start = len(g.guest.out)
    stub = GdbStub(g.guest)
    seen = []
    at = {ctx.sym(sym) for sym in symbols}
    try:
        for addr in at:
            stub.break_at(addr)
        stub.cont()
        g.guest.send((line + "\r").encode())
        give_up = deadline(limit)
        while True:
            if stopped_at(stub, g, line, start, at):
                got = at_stop(stub, stub.regs()["eip"])
                if got is not None:
                    seen.append(got)
            else:
                break
            if time.monotonic() > give_up:
                raise CheckFailed("expected `%s` to finish within %.0f s, found it still running"
                                  % (line, give_up.seconds))
            stub.cont()
    finally:
        stub.detach()
    m = g.guest.wait_for(echo_pattern(line), 30, start)
    end = g.guest.wait_for("^" + re.escape(PROMPT), 30, m.end())
    return g.guest.out[m.end():end.start()], seen


def frees_seen(ctx, g, line):
    """stops_seen() at every module_memfree(addr, size) (the teacher's
    mm/module_alloc.c): info tlb reads the pages it is about to free.
    Returns (what the line printed, [(addr, size, [(va, found)] of its
    pages that are not RW+NX)]): seed 003's reset seen from outside, not
    through module_memfree's own warning."""
    def at_stop(stub, eip):
        esp = stub.regs()["esp"]        # cdecl: the return address, addr, size
        addr, size = stub.read32(esp + 4), stub.read32(esp + 8)
        end = addr + (size + PAGE - 1) // PAGE * PAGE
        bad = [(va, m.perm() if m else "not mapped")
               for va, m in g.tlb().pages(addr, end) if not m or m.perm() != "RW+NX"]
        return (addr, size, bad) if addr else None
    return stops_seen(ctx, g, line, ("module_memfree",), at_stop)


def expect_freed_reset(seen, when):
    """Every region module_memfree() was given (frees_seen) was RW+NX."""
    bad = ["%s: module_memfree(0x%08x, %d) was given %d pages that are not RW+NX, "
           "first %s" % (when, addr, size, len(pages), ", ".join(
               "0x%08x %s" % p for p in pages[:3])) for addr, size, pages in seen if pages]
    if bad:
        raise CheckFailed("expected every page reset to RW+NX before it is freed (QEMU's "
                          "info tlb, the kernel stopped at module_memfree), found:\n"
                          + "\n".join(bad[:4]))


def freed_init(lsmod):
    """{name: (start, size)} of each module's freed init region."""
    return {m.group(1): (int(m.group(2), 16), int(m.group(3)))
            for m in FREED.finditer(lsmod)}


def each(items, fn):
    """fn(item) for every item; one CheckFailed with every failure's words."""
    bad = []
    for x in items:
        try:
            fn(x)
        except CheckFailed as e:
            bad.append(str(e))
    if bad:
        raise CheckFailed("\n".join(bad))


def expect_groups(ctx, pt, regs, names):
    """Each group of each module's core region has its seed 003 protection in pt."""
    each([(n, grp) for n in names for grp in GROUPS], lambda x: expect_pages(
        ctx, pt, regs[x[0]][x[1]][0], regs[x[0]][x[1]][0] + regs[x[0]][x[1]][1], WANT[x[1]],
        "%s's %s group" % x))


# -- seed 003's layout, from the .ko file --------------------------------------
class Section:
    __slots__ = ("index", "name", "type", "flags", "size", "align", "link", "offset")


def ko_path(ctx, name):
    return os.path.join(ctx.root, "build", "modules", name + ".ko")


def read_ko(ctx, name):
    """(sections, data) of build/modules/NAME.ko."""
    with open(ko_path(ctx, name), "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
    secs = []
    for i in range(shnum):
        s = Section()
        (name_off, s.type, s.flags, _, s.offset, s.size, s.link, _, s.align,
         _) = struct.unpack_from("<10I", data, shoff + i * shentsize)
        s.index, s.name = i, name_off
        secs.append(s)
    strtab = secs[shstrndx].offset
    for s in secs:
        s.name = data[strtab + s.name:data.index(b"\0", strtab + s.name)].decode()
    return secs, data


def loaded(s):
    return (s.flags & SHF_ALLOC) and s.type != SHT_NULL and s.name != ".modinfo"


def in_group(s, g):
    roai = s.name == ".data..ro_after_init"
    f = s.flags
    return [f & (SHF_EXECINSTR | SHF_ALLOC) == SHF_EXECINSTR | SHF_ALLOC,
            bool(f & SHF_ALLOC) and not f & SHF_WRITE,
            bool(f & SHF_ALLOC) and roai,
            f & (SHF_WRITE | SHF_ALLOC) == SHF_WRITE | SHF_ALLOC and not roai][g]


def align(x, a):
    return (x + a - 1) // a * a


def seed_layout(secs, ronx):
    """{"core"/"init": (text_size, ro_size, ro_after_init_size, size)} and
    {section index: (region, offset)}: seed 003's layout_sections()."""
    place, ends = {}, {}
    for region in ("core", "init"):
        size, marks = 0, []
        for g in range(len(GROUPS)):
            for s in secs[1:]:
                if s.index in place or not loaded(s) or \
                        s.name.startswith(".init") != (region == "init") or not in_group(s, g):
                    continue
                off = align(size, s.align or 1)
                size = off + s.size
                place[s.index] = (region, off)
            if ronx:
                size = align(size, PAGE)
            marks.append(size)
        ends[region] = tuple(marks)
    return ends, place


def group_sizes(ends):
    """lsmod's four group sizes from (text_size, ro_size, roai_size, size)."""
    t, r, a, s = ends
    return (t, r - t, a - r, s - a)


def symbols(secs, data):
    """{name: (section index, value)} of the .ko's defined symbols."""
    symtab = next((s for s in secs if s.type == SHT_SYMTAB), None)
    if symtab is None:
        return {}
    strtab = secs[symtab.link].offset
    out = {}
    for off in range(symtab.offset + 16, symtab.offset + symtab.size, 16):
        name, value, _, _, _, shndx = struct.unpack_from("<IIIBBH", data, off)
        if name and 0 < shndx < len(secs):
            out[data[strtab + name:data.index(b"\0", strtab + name)].decode()] = (shndx, value)
    return out


def exports(g, name):
    """{symbol: address} that `modinfo NAME` lists."""
    return {m.group(2): int(m.group(1), 16)
            for m in re.finditer(r"^\s+([0-9a-f]{8}) (\w+)$", g.sh("modinfo " + name), re.M)}
