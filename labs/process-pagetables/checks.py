# SPDX-License-Identifier: GPL-2.0-only
"""Lab 9, process-pagetables: a process's page tables from its ELF's
segments - the PTE bits of each area (US, RW, NX, never G, PROT_NONE),
the PDE above a user page table, each PT_LOAD's p_flags turned into an
area, the stack with its guard page (mm/pgd.c, kernel/exec.c,
mm/mmap.c). See docs/labs/process-pagetables.md.

The test program (segments.c) is linked at grade time with a layout
drawn from the grade's seed: which segments it has, where each lies and
how big it is. Its page tables are read by QEMU while it runs (info tlb on
its CR3, the PAE walk with xp, its frames with pmemsave), and the faults
it takes on purpose are compared with what its program headers allow."""
import os
import re

import pagemodel
from grading import CPU_NO_NX, CheckFailed, check, expect_ktap, step
from watch import syscalls
from userlab import (PAGE, PF_R, PF_W, PF_X, STACK_BOTTOM, STACK_GUARD, STACK_TOP, TASK_SIZE,
                     build_program, died, fault_said, initrd_with, kill, model_of_ps,
                     start_background, stopped_in, symbols, watched_run, work_dir)

LAB = "process-pagetables"
HERE = os.path.dirname(os.path.abspath(__file__))
_PRESENT, _RW, _PROTNONE, _NX = 1, 2, 0x200, 1 << 63
PFN = 0x000FFFFFFFFFF000
READY = r"^segments: ready jit=(\S+) protnone=(\S+)$"
NR_MMAP2, ENOMEM = 192, 12

# -- the steps: each verb of labs/process-pagetables/strip's hints --------
US = step("vm_get_page_prot", "US on every user page", wrong="no-user-bit")
NOT_GLOBAL = step("vm_get_page_prot", "never G", wrong="user-global")
PROTNONE = step("vm_get_page_prot", "no access at all: _PAGE_PROTNONE, not present",
                wrong="protnone-present")
RW_IF_WRITE = step("vm_get_page_prot", "RW only with VM_WRITE", wrong="always-writable")
NX_UNLESS_EXEC = step("vm_get_page_prot", "NX unless VM_EXEC", wrong="no-nx")
SUPPORTED = step("vm_get_page_prot", "keep only the bits this CPU has (__supported_pte_mask)",
                 wrong="nx-unmasked")
PDE_US = step("user_pde", "US on the PDE", wrong="pde-kernel-table")
PDE_RW = step("user_pde", "RW on the PDE", wrong="pde-read-only")
PDE_NO_NX = step("user_pde", "no NX on the PDE", wrong="pde-nx")
FLAGS = step("load_segment", "p_flags to VM_READ/VM_WRITE/VM_EXEC", wrong="pflags-as-vmflags")
BSS = step("load_segment", "bss: the pages past the file's bytes, up to p_memsz",
           wrong="bss-unmapped")
COPY = step("load_segment", "copy the file's p_filesz bytes in", wrong="copies-memsz")
STACK_RW_NX = step("setup_stack", "the stack RW+NX below STACK_TOP", wrong="stack-executable")
GUARD = step("setup_stack", "the guard page under it stays unmapped", wrong="no-guard")
FIXED_GUARD = step("touches_guard", "true for any range covering a byte of the guard page",
                   wrong="guard-ends-only")


# -- the test program, linked at grade time ---------------------------------
# The segments besides the text (always first, with the ELF headers): name,
# p_flags, the pages it may need at most, its output sections (END marks
# where a segment chosen to end one byte into a page gets its padding).
PARTS = {
    "text2": (PF_X, 4, "\t.lab.text2 : { *(.lab.text2) END } :text2"),
    "rodata": (PF_R, 6, "\t.rodata : { *(.rodata .rodata.*) lab_rodata = .; *(.lab.rodata) "
               "lab_rodata_end = .; END } :rodata"),
    "rodata2": (PF_R, 4, "\t.lab.rodata2 : { lab_rodata2 = .; *(.lab.rodata2) lab_rodata2_end = .; "
                "END } :rodata2"),
    "data": (PF_R | PF_W, 9, "\t.data : { *(.data .data.*) lab_data = .; *(.lab.data) "
             "lab_data_end = .; } :data\n\t.bss : { *(.bss .bss.* COMMON) lab_bss = .; "
             "*(.lab.bss) lab_bss_end = .; END } :data"),
    "bssonly": (PF_R | PF_W, 5, "\t.lab.bssonly (NOLOAD) : { lab_bssonly = .; *(.lab.bssonly) "
                "lab_bssonly_end = .; END } :bssonly"),
}
END_IN_PAGE = ". = ALIGN(4096) + 1;"
# What every seed's program has, whatever else the seed varies (each a
# case some check grades; Program checks the linked ELF has each one).
CASES = ("a second text segment, PF_X alone (no PF_R)",
         "a read-only segment besides rodata (rodata2)",
         "a bss-only PT_LOAD starting on a page boundary",
         "a segment that is neither text nor RW ending one byte into a page",
         "a writable segment whose bss ends one byte into a page",
         "a segment in another page table than the one before it")


class Layout:
    """Where the program's segments lie, in which order and how big, all
    from the seed; which segments there are and their edge cases never
    change (CASES): a kernel that remembered one layout (three segments,
    text, rodata, data, as user/user.ld makes them) fails every seed, and
    no seed lets a wrong kernel pass by leaving its case out."""

    def __init__(self, r):
        self.order = list(PARTS)
        r.shuffle(self.order)
        self.answer = r.randrange(1000, 100000)
        # which segments end one byte into a page: one not writable, one writable
        self.ends_in_page = {r.choice(("text2", "rodata", "rodata2")), r.choice(("data", "bssonly"))}
        self.sizes = {"text2_pad": r.randrange(0, 2 * PAGE),
                      "rodata": r.randrange(200, 3 * PAGE), "rodata2": r.randrange(16, 2 * PAGE),
                      "data": r.randrange(64, 2 * PAGE), "bss": r.randrange(PAGE, 4 * PAGE),
                      "bssonly": r.randrange(16, 3 * PAGE)}
        # bytes: 16-byte blocks, each starting with a ret (0xc3), the rest random
        self.blobs = {n: bytes(b for i in range(self.sizes[n])
                               for b in [0xC3 if i % 16 == 0 else r.randrange(1, 256)])
                      for n in ("rodata", "rodata2", "data")}
        # each segment a few pages past the room the one before may need, or
        # a page table or two further (another PDE): at least one of each
        far = r.randrange(len(self.order))
        self.bases, at = {}, r.randrange(0x100, 0x8000) * PAGE
        self.bases["text"] = at
        room = 32
        for i, n in enumerate(self.order):
            near = i != far and (i == (far + 1) % len(self.order) or r.random() < 0.5)
            at += (room + (r.randrange(0, 20) if near else r.randrange(512, 1600))) * PAGE
            self.bases[n], room = at, PARTS[n][1]

    def has(self, n):
        return n in self.order

    def cases(self):
        """Which of CASES this layout plans (cases() checks the linked ELF)."""
        got = set()
        if PARTS["text2"][0] == PF_X and self.has("text2"):
            got.add(CASES[0])
        if self.has("rodata2"):
            got.add(CASES[1])
        if self.has("bssonly") and self.bases["bssonly"] % PAGE == 0:
            got.add(CASES[2])
        if self.ends_in_page & {"text2", "rodata", "rodata2"}:
            got.add(CASES[3])
        if self.ends_in_page & {"data", "bssonly"}:
            got.add(CASES[4])
        seq = [self.bases["text"]] + [self.bases[n] for n in self.order]
        if any(b - a >= 512 * PAGE for a, b in zip(seq, seq[1:])):
            got.add(CASES[5])
        return got

    def section(self, n):
        return PARTS[n][2].replace("END", END_IN_PAGE if n in self.ends_in_page else "")


def cases(segs):
    """Which of CASES the program headers segs [(vaddr, memsz, filesz,
    offset, flags)] show (the linked ELF's own, read on the host)."""
    got = set()
    texts = [s for s in segs if s[4] & PF_X]
    if len(texts) >= 2 and any(s[4] == PF_X for s in texts):
        got.add(CASES[0])
    if len([s for s in segs if s[4] == PF_R]) >= 2:
        got.add(CASES[1])
    if any(s[2] == 0 and s[0] % PAGE == 0 and s[4] & PF_W for s in segs):
        got.add(CASES[2])
    ends = [s for s in segs if (s[0] + s[1] - 1) % PAGE == 0]
    if any(not s[4] & PF_W and s is not segs[0] for s in ends):
        got.add(CASES[3])
    if any(s[4] & PF_W for s in ends):
        got.add(CASES[4])
    pdes = [s[0] >> 21 for s in sorted(segs)]
    if len(set(pdes)) >= 2:
        got.add(CASES[5])
    return got


def layout_files(lay, d):
    """layout.S and segments.ld for lay, in d."""
    for n, b in lay.blobs.items():
        with open(os.path.join(d, n + ".bin"), "wb") as f:
            f.write(b)
    asm = [".section .lab.text2, \"ax\"", ".globl text2_answer", "text2_answer:",
           "\tmovl $%d, %%eax" % lay.answer, "\tret",
           "\t.fill %d, 1, 0xc3" % lay.sizes["text2_pad"] if lay.sizes["text2_pad"] else "",
           ".section .lab.rodata, \"a\"", "\t.incbin \"%s\"" % os.path.join(d, "rodata.bin"),
           ".section .lab.data, \"aw\"", "\t.incbin \"%s\"" % os.path.join(d, "data.bin"),
           ".section .lab.bss, \"aw\", @nobits", "\t.skip %d" % lay.sizes["bss"]]
    asm += [".section .lab.rodata2, \"a\"", "\t.incbin \"%s\"" % os.path.join(d, "rodata2.bin"),
            ".section .lab.bssonly, \"aw\", @nobits", "\t.skip %d" % lay.sizes["bssonly"]]
    asm += [".section .note.GNU-stack, \"\", @progbits", ""]
    with open(os.path.join(d, "layout.S"), "w") as f:
        f.write("\n".join(asm))
    flags = lambda n: PARTS[n][0]  # noqa: E731
    phdrs = ["\ttext PT_LOAD FILEHDR PHDRS FLAGS(5);"]
    phdrs += ["\t%s PT_LOAD FLAGS(%d);" % (n, flags(n)) for n in lay.order]
    phdrs += ["\tstack PT_GNU_STACK FLAGS(6);"]
    sec = ["\t. = 0x%x + SIZEOF_HEADERS;" % lay.bases["text"],
           "\t.text : { *(.text.start) *(.text .text.*) } :text"]
    for n in lay.order:
        # the file offset and the address agree modulo the page size; the
        # bss-only segment has no file bytes: it starts on its page boundary
        sec += ["\t. = 0x%x%s;" % (lay.bases[n], "" if n == "bssonly" else " + (. & 4095)"),
                lay.section(n)]
    sec += ["\t/DISCARD/ : { *(.comment) *(.note .note.*) *(.eh_frame .eh_frame_hdr)"
            " *(__ksymtab) *(__ksymtab_strings) }"]
    ld = ["/* the process-pagetables lab's program: a layout drawn at grade time */",
          "OUTPUT_FORMAT(\"elf32-i386\")", "OUTPUT_ARCH(i386)", "ENTRY(_start)",
          "PHDRS {"] + phdrs + ["}", "SECTIONS {"] + sec + ["}", ""]
    with open(os.path.join(d, "segments.ld"), "w") as f:
        f.write("\n".join(ld))


def program_headers(elf):
    """[(vaddr, memsz, filesz, offset, flags)] of each PT_LOAD, read here."""
    import struct
    with open(elf, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<I", data, 28)
    phnum, = struct.unpack_from("<H", data, 44)
    out = []
    for i in range(phnum):
        p_type, off, va, _, filesz, memsz, flags, _ = struct.unpack_from("<8I", data, phoff + 32 * i)
        if p_type == 1 and memsz:
            out.append((va, memsz, filesz, off, flags))
    return out, data


class Program:
    """The program linked for this grade: its ELF, symbols and segments."""

    def __init__(self, ctx):
        d = os.path.join(work_dir(ctx, LAB), "seed-%d" % ctx.seed)
        os.makedirs(d, exist_ok=True)
        self.layout = Layout(ctx.rng("process-pagetables/layout"))
        layout_files(self.layout, d)
        self.elf = build_program(ctx, os.path.join(d, "segments"),
                                 [os.path.join(HERE, "segments.c"), os.path.join(d, "layout.S")],
                                 os.path.join(d, "segments.ld"))
        self.syms = symbols(self.elf)
        self.initrd, stripped = initrd_with(ctx, LAB, {"segments": self.elf}, d)
        # the bytes the kernel loads: the stripped file the initrd holds
        self.segs, self.data = program_headers(stripped["segments"])
        missing = [c for c in CASES if c not in cases(self.segs)]
        if missing:     # the grader's own bug: say it loudly, never pass quietly
            raise CheckFailed("the grader's program for this seed lacks a case it must have: "
                              "%s (segments: %s)" % ("; ".join(missing), describe(self)))

    def pages(self):
        """{page va: (rw, exec, what)} as the program headers ask."""
        want = {}
        for va, memsz, _, _, flags in self.segs:
            for p in range(va & ~(PAGE - 1), va + memsz, PAGE):
                want[p] = (bool(flags & PF_W), bool(flags & PF_X),
                           "PT_LOAD %s at 0x%08x" % (flag_name(flags), va))
        return want

    def image(self, page):
        """The bytes page must hold: the file's bytes of its segment, zeros after."""
        out = bytearray(PAGE)
        for va, memsz, filesz, off, _ in self.segs:
            lo, hi = max(va, page), min(va + filesz, page + PAGE)
            if lo < hi:
                out[lo - page:hi - page] = self.data[off + lo - va:off + hi - va]
        return bytes(out)

    def block(self, name, r):
        """A 16-byte block start (a ret byte) inside the blob name, chosen by r."""
        start, end = self.syms["lab_" + name], self.syms["lab_%s_end" % name]
        return start + 16 * r.randrange(0, (end - start) // 16)


def flag_name(f):
    return "".join(c if f & b else "_" for c, b in (("R", PF_R), ("W", PF_W), ("E", PF_X)))


_built = {}     # (tree, seed) -> Program: the same for every grade of the tree with the seed


def program(ctx):
    """The program of this grade, built once (or its failure, said once per
    check). It depends on the seed and the tree's user library only (no
    lab file), so a tree graded again under the same seed reuses it."""
    if getattr(ctx, "ptlab_program", None) is None:
        got = _built.get((ctx.root, ctx.seed))
        if got is not None and os.path.exists(got.initrd):
            ctx.rng("process-pagetables/layout")    # what it was drawn from, as if drawn again
            ctx.ptlab_program = got
        else:
            try:
                ctx.ptlab_program = _built[(ctx.root, ctx.seed)] = Program(ctx)
            except CheckFailed as e:
                ctx.ptlab_program = str(e)
    if isinstance(ctx.ptlab_program, str):
        raise CheckFailed(ctx.ptlab_program)
    return ctx.ptlab_program


def boot(ctx, cpu=None):
    p = program(ctx)
    return ctx.boot(initrd=p.initrd, tag=LAB, **({"cpu": cpu} if cpu else {}))


# -- the running program, read from outside ---------------------------------
class Snapshot:
    """The program spinning after using every segment: its pid and CR3,
    info tlb with the CPU stopped in it, the PAE walk and the bytes of
    each of its pages, its jit and PROT_NONE pages, and what it printed."""

    def __init__(self, ctx, g):
        p = program(ctx)
        start = len(g.guest.out)
        self.pid, self.cr3, m = start_background(g, "segments", READY, ctx=ctx)
        self.printed = g.guest.out[start:]
        self.jit, self.none = int(m.group(1), 16), int(m.group(2), 16)
        try:
            self.pt, _ = stopped_in(g, self.cr3)
            # the model (labs/pagemodel.py): every process's tree from ps, by pmemsave
            listing = g.sh("ps")
            self.model = model_of_ps(ctx, g, listing, LAB)
            self.tree = self.model.by_name.get("pid %d" % self.pid)
            if self.tree is None:
                raise CheckFailed("expected pid %d in ps with its own CR3, found:\n%s"
                                  % (self.pid, listing))
            self.bytes = {va: self.model.page(e.frame) for va, e in
                          ((va, self.tree.leaf(va)) for va in p.pages()) if e is not None}
        finally:
            kill(g, self.pid)


def snapshot(ctx):
    g = boot(ctx)
    snap = getattr(g, "ptlab_snapshot", None)
    if snap is None:
        try:
            snap = Snapshot(ctx, g)
        except CheckFailed as e:
            snap = str(e)
        g.ptlab_snapshot = snap
    if isinstance(snap, str):
        raise CheckFailed(snap)
    return snap


def bad_lines(bad, more=6):
    lines = bad[:more]
    if len(bad) > more:
        lines.append("... and %d more" % (len(bad) - more))
    return "\n".join(lines)


def leaf(snap, va):
    """va's raw PTE, present or not, or None (no table, or 0)."""
    e = snap.tree.pte(va)
    return e.raw if e is not None else None


# -- the checks ---------------------------------------------------------------
@check(points=20, name="each PT_LOAD's pages as its p_flags ask, the running process's info tlb "
       "and each PTE's RW and NX",
       steps=[US, RW_IF_WRITE, NX_UNLESS_EXEC, FLAGS, BSS])
def segments_as_asked(ctx):
    p, snap = program(ctx), snapshot(ctx)
    bad = []
    for va, (rw, x, what) in sorted(p.pages().items()):
        m = snap.pt.lookup(va)
        want = "%s+%s" % ("RW" if rw else "RO", "X" if x else "NX")
        if m is None or not m.user or m.perm() != want:
            bad.append("0x%08x (%s): expected USR %s, found %s"
                       % (va, what, want, "not mapped" if m is None else
                          "%s %s" % ("USR" if m.user else "supervisor", m.perm())))
    jit = snap.pt.lookup(snap.jit)
    if jit is None or not jit.user or jit.perm() != "RO+X":
        bad.append("0x%08x (mmap RW, then mprotect RX): expected USR RO+X, found %s"
                   % (snap.jit, jit.perm() if jit else "not mapped"))
    expected = set(p.pages()) | set(range(STACK_BOTTOM, STACK_TOP, PAGE)) | {snap.jit}
    extra = ["0x%08x: mapped %s, expected nothing there" % (m.va, m.perm())
             for m in snap.pt.maps if m.va < TASK_SIZE and m.va not in expected]
    # and each PTE's own RW and NX, bit by bit (the model), as the area
    # asks (the stack's are stack_and_guard()'s)
    asked = {va: (rw, x) for va, (rw, x, _) in p.pages().items()}
    asked[snap.jit] = (False, True)
    bad += pagemodel.area_problems(snap.tree, lambda e: None if e.va not in asked else
                                   (_RW if asked[e.va][0] else 0) | (0 if asked[e.va][1] else _NX),
                                   True)
    if bad or extra:
        raise CheckFailed("the program's segments (seed layout: %s):\n%s"
                          % (describe(p), bad_lines(bad + extra)))


def describe(p):
    return ", ".join("%s 0x%08x+0x%x" % (flag_name(f), va, memsz) for va, memsz, _, _, f in p.segs)


@check(points=10, name="the entries above the pages: PDPTEs P alone, PDEs over user page tables "
       "P, RW and US without NX, PS, PWT or PCD, no reserved bit (the walk of every entry, "
       "pmemsave)",
       steps=[PDE_US, PDE_RW, PDE_NO_NX])
def pdes(ctx):
    snap = snapshot(ctx)
    bad = pagemodel.tree_problems(snap.tree, True, levels=(pagemodel.PDPTE, pagemodel.PDE))
    if bad:
        raise CheckFailed(bad_lines(bad))


@check(points=10, name="no user page is global; every PTE US, no PWT, PCD, PAT or reserved bit; "
       "every kernel page in the process's tables is US=0", steps=[NOT_GLOBAL])
def global_and_kernel(ctx):
    snap = snapshot(ctx)
    glb = ["0x%08x %s: global (G): it would outlive a CR3 switch in the TLB" % (m.va, m.perm())
           for m in snap.pt.maps if m.va < TASK_SIZE and m.glb]
    kern = ["0x%08x: a kernel page with US=1" % m.va
            for m in snap.pt.maps if m.va >= TASK_SIZE and m.user]
    model = pagemodel.tree_problems(snap.tree, True, snap.model.kernel.pdpt[3],
                                    levels=(pagemodel.PTE,))
    model += pagemodel.kernel_problems(snap.model.kernel, True)
    if glb or kern or model:
        raise CheckFailed(bad_lines(glb + kern + model))


@check(points=10, name="the stack RW+NX, the guard page under it unmapped; overflow and "
       "MAP_FIXED stop there", steps=[STACK_RW_NX, GUARD, FIXED_GUARD])
def stack_and_guard(ctx):
    snap, g = snapshot(ctx), boot(ctx)
    bad = ["0x%08x (stack): expected USR RW+NX, found %s" % (va, m.perm() if m else "not mapped")
           for va, m in snap.pt.pages(STACK_BOTTOM, STACK_TOP)
           if m is None or not m.user or m.perm() != "RW+NX"]
    e = leaf(snap, STACK_GUARD)
    if snap.pt.lookup(STACK_GUARD) or (e is not None and e & (_PRESENT | _PROTNONE)):
        bad.append("0x%08x (the guard page): expected nothing mapped, found a page there"
                   % STACK_GUARD)
    out, f = watched_run(ctx, g, "segments overflow")
    if not f or not STACK_GUARD <= f.cr2 < STACK_BOTTOM or f.err != 6 or \
            (f.pte is not None and f.pte & (_PRESENT | _PROTNONE)):
        bad.append("segments overflow: expected the CPU to fault writing the unmapped guard page "
                   "0x%08x (error 6), found %s" % (STACK_GUARD, fault_said(f, out)))
    for start, end, want, what in map_fixed_ranges(ctx):
        # the result as the program received it (QEMU's gdbstub at
        # ret_from_trap), and as it printed it
        out, calls = syscalls(ctx, g, "run segments mapfixed 0x%x 0x%x" % (start, end - start))
        got = [c[4] & 0xFFFFFFFF for c in calls if c[0] == NR_MMAP2 and c[1] == start]
        said = re.findall(r"^segments: mmap fixed .*$", out, re.M)
        ok = got == [start] if want == "mapped" else got == [(-ENOMEM) & 0xFFFFFFFF]
        if not ok or said != ["segments: mmap fixed 0x%x+0x%x: %s" % (start, end - start, want)]:
            bad.append("mmap(MAP_FIXED) of 0x%08x-0x%08x (%s): expected %s, found %s (the "
                       "program printed: %s)" % (start, end, what, want,
                                                 "mmap2 returned %s" % ", ".join(
                                                     "-%d" % (-x & 0xFFFFFFFF) if x >> 12 == 0xFFFFF
                                                     else "0x%x" % x for x in got)
                                                 if got else "no mmap2 call",
                                                 " / ".join(said) or died(out)))
    if bad:
        raise CheckFailed(bad_lines(bad))


def map_fixed_ranges(ctx):
    """[(start, end, the result, what)]: MAP_FIXED ranges over the guard
    page (ENOMEM) and ranges that end exactly where it starts or start
    exactly where it ends (mapped: an interval is half-open), in every
    seed; their sizes from the seed."""
    r = ctx.rng("process-pagetables/mapfixed")
    below, above = r.randrange(1, 64), r.randrange(1, 8)
    out = [(STACK_GUARD - below * PAGE, STACK_GUARD + PAGE, "ENOMEM", "ends in the guard page"),
           (STACK_GUARD, STACK_BOTTOM + above * PAGE, "ENOMEM", "starts in it"),
           (STACK_GUARD - below * PAGE, STACK_BOTTOM + above * PAGE, "ENOMEM", "spans it"),
           (STACK_GUARD, STACK_BOTTOM, "ENOMEM", "the guard page alone"),
           (STACK_GUARD - r.randrange(1, 64) * PAGE, STACK_GUARD, "mapped",
            "ends exactly where the guard page starts"),
           (STACK_BOTTOM, STACK_BOTTOM + r.randrange(1, 8) * PAGE, "mapped",
            "starts exactly where the guard page ends")]
    r.shuffle(out)
    return out


@check(points=10, name="each page holds its file bytes and bss reads zero (pmemsave of its frames)",
       steps=[COPY, BSS])
def contents(ctx):
    p, snap = program(ctx), snapshot(ctx)
    bad = []
    written = {p.syms.get("lab_bss"), p.syms.get("lab_bssonly")}
    for va in sorted(p.pages()):
        got = snap.bytes.get(va)
        if got is None:
            bad.append("0x%08x: no page to read" % va)
            continue
        want = bytearray(p.image(va))
        for w in written:       # the program set the first byte of its bss areas to 1
            if w is not None and va <= w < va + PAGE and got[w - va] == 1:
                want[w - va] = 1
        if got != bytes(want):
            off = next(i for i in range(PAGE) if got[i] != want[i])
            bad.append("0x%08x: byte 0x%x is 0x%02x, expected 0x%02x (%s)"
                       % (va, off, got[off], want[off], "past p_filesz: must be zero"
                          if not any(va + off in range(s[0], s[0] + s[2]) for s in p.segs)
                          else "the file's byte"))
    if "segments: bss zero 1, bss-only zero 1" not in snap.printed:
        bad.append("the program found its bss not zero: %s"
                   % re.findall(r"^segments: bss .*$", snap.printed, re.M))
    if bad:
        raise CheckFailed(bad_lines(bad))


def fault_tries(ctx, p):
    """[(mode, address, the error code, what)]: a write to every segment
    that is not writable, a run of every one that is not executable, at
    addresses from the seed (every segment in every seed)."""
    r = ctx.rng("process-pagetables/faults")
    tries = [("write", r.choice(range(s[0], s[0] + s[1])), 7, "text %s" % flag_name(s[4]))
             for s in p.segs if s[4] & PF_X]
    for name in ("rodata", "rodata2"):
        tries.append(("write", r.choice(range(p.syms["lab_" + name], p.syms["lab_%s_end" % name])),
                      7, name))
    tries += [("exec", p.block(n, r), 0x15, n) for n in ("rodata", "rodata2", "data")]
    return tries


@check(points=15, name="the CPU enforces them: writes to text and rodata, runs of rodata, data "
       "and stack fault (QEMU's gdbstub sees each fault)",
       steps=[RW_IF_WRITE, NX_UNLESS_EXEC, FLAGS, STACK_RW_NX])
def enforced(ctx):
    p, g = program(ctx), boot(ctx)
    bad = []
    for mode, addr, err, what in fault_tries(ctx, p):
        out, f = watched_run(ctx, g, "segments %s 0x%x" % (mode, addr))
        bit = _RW if mode == "write" else _NX
        if not f or f.cr2 != addr or f.err != err or (mode == "exec" and f.fault_ip != addr) or \
                f.pte is None or not f.pte & _PRESENT or bool(f.pte & bit) != (mode == "exec"):
            bad.append("%s 0x%08x (%s): expected the CPU to fault there, error %x, on a present "
                       "pte %s, found %s" % (mode, addr, what, err,
                                             "without RW" if mode == "write" else "with NX",
                                             fault_said(f, out)))
    out, f = watched_run(ctx, g, "segments stack")
    if not f or f.err != 0x15 or f.cr2 != f.fault_ip or not STACK_BOTTOM <= f.cr2 < STACK_TOP:
        bad.append("running the stack: expected the CPU to fault fetching from the stack, "
                   "error 15, found %s" % fault_said(f, out))
    if bad:
        raise CheckFailed(bad_lines(bad))


@check(points=10, name="PROT_NONE: not present, its frame kept; a read faults; RW then RX runs",
       steps=[PROTNONE])
def prot_none(ctx):
    snap, g = snapshot(ctx), boot(ctx)
    bad = []
    e = leaf(snap, snap.none)
    if e is None or e & _PRESENT or not e & _PROTNONE or not e & PFN:
        bad.append("0x%08x (mprotect PROT_NONE): expected a not-present PTE keeping its frame "
                   "(_PAGE_PROTNONE), found %s" % (snap.none, "no PTE" if e is None
                                                   else "0x%016x" % e))
    if "segments: jit returned 42" not in snap.printed:
        bad.append("mmap RW, write code, mprotect RX, call it: expected 42, found: %s"
                   % (re.findall(r"^segments: jit.*$", snap.printed, re.M) or ["nothing"])[0])
    # the program writes the page before mprotect(PROT_NONE): that write
    # is the page's first touch, a fault of its own that gives it its
    # frame; the read after mprotect is the fault graded
    out, f = watched_run(ctx, g, "segments protnone", reads_only=True)
    if not f or f.err != 4 or f.pte is None or f.pte & _PRESENT or not f.pte & _PROTNONE \
            or not f.pte & PFN:
        bad.append("reading a PROT_NONE page: expected the CPU to fault reading it, error 4, on "
                   "a not-present _PAGE_PROTNONE pte keeping its frame, found %s"
                   % fault_said(f, out))
    if bad:
        raise CheckFailed(bad_lines(bad))


@check(points=5, name="a CPU without NX: the program runs, no PTE carries the NX bit",
       steps=[SUPPORTED])
def without_nx(ctx):
    g = boot(ctx, cpu=CPU_NO_NX)
    pid, cr3, _ = start_background(g, "segments", READY, ctx=ctx)
    try:
        pt, _ = stopped_in(g, cr3)
        # EFER.NXE clear: bit 63 is reserved at every level (the model says where)
        model = pagemodel.snapshot(g, ctx.syms, {"pid %d" % pid: cr3}, work_dir(ctx, LAB),
                                   nxe=False)
    finally:
        kill(g, pid)
    nx = ["0x%08x" % m.va for m in pt.maps if m.va < TASK_SIZE and m.nx]
    reserved = [line for line in pagemodel.tree_problems(model.trees[0], False)
                if "reserved" in line]
    if nx or reserved:
        raise CheckFailed("expected no NX bit without NX (it is a reserved bit then), found it "
                          "at %s\n%s" % (", ".join(nx[:6]) or "no page info tlb shows",
                                          bad_lines(reserved)))


@check(points=10, name="the kernel's own tests: process_mm and mmap (selftest)",
       steps=[US, RW_IF_WRITE, NX_UNLESS_EXEC, PDE_US, PDE_NO_NX, FIXED_GUARD])
def selftests(ctx):
    g = ctx.boot(tag=LAB)       # the tree's own initrd: nothing here depends on the seed
    expect_ktap(g, "process_mm")
    expect_ktap(g, "mmap")
