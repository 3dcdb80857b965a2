# SPDX-License-Identifier: GPL-2.0-only
"""Lab 10, cow: copy-on-write at fork - the frame counts (get and put),
fork's page-table copy, the write fault that copies or takes a page back,
the put of every frame at exit (mm/cow.c; docs/labs/cow.md).

The test program (cowprobe.c) is built at grade time; its scenario (how
many pages, which ones the child writes, the one the kernel writes for
the child with copy_to_user(), the bytes) comes from the grade's seed,
and every seed has each case: pages the child writes, pages no one
writes, the kernel's write. The program holds still at each step while
QEMU walks the parent's and the child's page tables from the CR3s ps
prints (the PAE walk by xp) and reads their frames' bytes (xp); frames
are counted by meminfo's PagesFree (the page allocator's counter, not a
lab file) before and after each step."""
import os
import re
import struct
import time

import atomics
import pagemodel
from grading import CheckFailed, check, deadline, step
from userlab import (PAGE, STACK_TOP, build_program, built_once, died_line, initrd_with,
                     model_of_ps, work_dir)
from userprog import PS_LINE, free_pages, ps, ps_table, run_park_in_background, settled_free_pages

LAB = "cow"
HERE = os.path.dirname(os.path.abspath(__file__))
FRAME = 0x000FFFFFFFFFF000
_RW = 2
# every bit of a PTE but the frame and the CPU's own A and D
_BITS = ~FRAME & ~0x60 & (1 << 64) - 1

# -- the steps: each verb of labs/cow/strip's hints -------------------------
GET = step("get_user_frame", "count one more PTE on the frame", wrong="get-forgotten")
PUT = step("put_user_frame", "one PTE less; free the frame at zero and not before",
           wrong="put-frees-shared")
SHARE = step("copy_one_pte", "the child's PTE maps the parent's frame, counted once more, "
             "read-only pages too", wrong="count-only-cow")
WRPROTECT = step("copy_one_pte", "a private writable page loses RW in the parent too",
                 wrong="parent-writable")
CHARGED = step("copy_one_pte", "one page more in the child's mm (dst->total_pages)",
               wrong="child-pages-uncounted")
RANGE = step("copy_page_range", "every page of every area that has a frame",
             wrong="range-off-by-one")
FLUSH = step("copy_page_range", "flush the parent's TLB after its entries lost RW",
             wrong="no-tlb-flush")
REUSE = step("do_wp_page", "a frame no one else maps: the same frame, writable again",
             wrong="copy-when-last")
COPY = step("do_wp_page", "a shared frame: copy it, move the PTE, flush, put the old frame",
            wrong="old-frame-kept")
CHARGE_KEPT = step("do_wp_page", "the copy takes the old frame's place: the mm's page count stays "
                   "(ps PAGES against the frames its PTEs hold)", wrong="cow-copy-charged")
KERNEL = step("do_wp_page", "the kernel's writes (copy_to_user, CR0.WP) alike",
              wrong="kernel-write-in-place")
NXKEPT = step("do_wp_page", "the copy's PTE from the area's protection (NX kept), not by hand",
              wrong="cow-break-drops-nx")
ZAP = step("zap_pte_range", "put the frame of every PTE that has one", wrong="exit-leaks")
ATOMIC_GET = step("get_user_frame", "the count goes up atomically (one locked instruction)",
                  wrong="counts-not-atomic")
ATOMIC_PUT = step("put_user_frame", "the count goes down atomically, the free decided by that "
                  "instruction's own result", wrong="put-rereads-count")


# -- the program and its scenario --------------------------------------------
class Scenario:
    """From the seed: n pages (page i holds byte+i), the child writes the
    pages of mask, the kernel writes page k for the child; at least one
    page in mask, at least one no one writes, k in neither; in a sparse
    area, the page at a 2 MiB boundary after 2 MiB without a page table,
    and the one sparse_off pages past it."""

    def __init__(self, r):
        self.n = r.randrange(6, 25)
        idx = list(range(self.n))
        r.shuffle(idx)
        self.k = idx[0]
        written = idx[1:1 + r.randrange(1, self.n - 2)]
        self.mask = sum(1 << i for i in written)
        self.byte = r.randrange(0x80, 0xd0)
        self.tlb_pages = r.randrange(5, 11)     # rounds of fork, each a chance to catch it
        self.tlb_byte = r.randrange(0x10, 0x40)
        self.sparse_off = r.randrange(1, 512)

    def written(self):
        return [i for i in range(self.n) if self.mask >> i & 1]

    def untouched(self):
        return [i for i in range(self.n) if not self.mask >> i & 1 and i != self.k]


def program_headers(path):
    """[(vaddr, memsz, flags)] of each PT_LOAD of the ELF at path."""
    with open(path, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<I", data, 28)
    phnum, = struct.unpack_from("<H", data, 44)
    out = []
    for i in range(phnum):
        p_type, _, va, _, _, memsz, flags, _ = struct.unpack_from("<8I", data, phoff + 32 * i)
        if p_type == 1 and memsz:
            out.append((va, memsz, flags))
    return out


class Program:
    def __init__(self, ctx):
        d = work_dir(ctx, LAB)
        elf = build_program(ctx, os.path.join(d, "cowprobe"), [os.path.join(HERE, "cowprobe.c")],
                            os.path.join(ctx.root, "user", "user.ld"))
        self.initrd, stripped = initrd_with(ctx, LAB, {"cowprobe": elf})
        self.segs = program_headers(stripped["cowprobe"])
        self.scn = Scenario(ctx.rng("cow/scenario"))

    def image_pages(self):
        """{va: writable} for every page of the program's PT_LOADs."""
        return {p: bool(f & 2) for va, memsz, f in self.segs
                for p in range(va & ~(PAGE - 1), va + memsz, PAGE)}


def program(ctx):
    return built_once(ctx, "cow_program", Program)


def boot(ctx, tag=LAB, cmdline=""):
    return ctx.boot(initrd=program(ctx).initrd, tag=tag, cmdline=cmdline)


# -- reading the held processes from outside ---------------------------------
def tree_of(m, cr3):
    """The model m's page tables that CR3 value cr3 names, or None."""
    return next((t for t in m.trees if t.cr3 == cr3 & 0xFFFFFFE0), None)


def leaf(m, cr3, va):
    """The raw PTE the walk from cr3 finds for va in the model m, or None if not present."""
    t = tree_of(m, cr3)
    e = t.leaf(va) if t else None
    return e.raw if e is not None and e.level == pagemodel.PTE else None


def any_pte(m, cr3, va):
    """The raw PTE for va, present or not (a PROT_NONE page's), or None."""
    t = tree_of(m, cr3)
    e = t.pte(va) if t else None
    return e.raw if e is not None else None


def page_bytes(m, pte):
    """The first and last 8 bytes of pte's frame."""
    page = m.page(pte & FRAME)
    return page[:8], page[-8:]


def show(pte):
    return "not mapped" if pte is None else "frame %#x %s" % (pte & FRAME, "RW" if pte & _RW else "RO")


def show_any(pte):
    return "no frame" if not pte or not pte & FRAME else "frame %#x %s" % (
        pte & FRAME, "present" if pte & 1 else "not present")


PROBE_DIED = died_line("cowprobe")


def wait_line(g, mark, pattern, what, timeout=20, past=None, past_from=None):
    """Waits for the program's line pattern. past: a regex of a line the
    program prints only after (or instead of) it, looked for from
    past_from (default: mark): once that is there the line will never
    come, and waiting out the timeout would only cost a wrong solution's
    grade its 20 s, under each seed. Only whole lines are looked at: once
    the line's newline is out, the program's next step is a wait and it
    prints nothing while the grader types."""
    give_up = deadline(timeout)
    while time.monotonic() < give_up:
        out = g.guest.out[mark:]
        out = out[:out.rfind("\n") + 1]
        seen = g.guest.out[mark if past_from is None else past_from:]
        m = re.search(pattern, out, re.M)
        if m:
            return m
        bad = PROBE_DIED.search(out)
        if bad:
            raise CheckFailed("expected %s, found the program died: %s" % (what, bad.group(1)))
        if past and re.search(past, seen, re.M):
            raise CheckFailed("expected %s, found the program went on without it:\n%s"
                              % (what, seen[-500:]))
        time.sleep(0.05)
    raise CheckFailed("expected %s within %.0fs, found:\n%s" % (what, give_up.seconds, g.guest.out[mark:][-500:]))


def reap(g, park):
    """Kills a park and prompts until the shell has reaped it: a zombie
    still answers kill(pid, 0), so wait_gone() waits for the reaping."""
    mark = len(g.guest.out)
    g.sh("kill %d" % park)
    for _ in range(40):
        if re.search(r"\[%d\] park: killed by SIGKILL" % park, g.guest.out[mark:]):
            return
        g.sh("ps")
        time.sleep(0.05)


# a line of cowprobe hold's parent after its child has ended (or no child)
ENDED_CHILD = r"^cowprobe: (fork failed|child exit status)"


def step_on(g, park, pattern, what, past=None, past_from=None):
    mark = len(g.guest.out)
    reap(g, park)
    return wait_line(g, mark, pattern, what, past=past, past_from=past_from)


def ended(pid):
    """The lines that say process pid ended (the shell's, a segfault's)."""
    return r"(?:^|(?<=ronx> ))(cowprobe\[%d\]: segfault at |\[%d\] cowprobe: (exit status|killed by))" \
        % (pid, pid)


class Walked:
    """The parent's and the child's PTEs for the probe's pages, the first
    and last 8 bytes of each frame, and the model of every process's
    tables (userlab.model_of_ps()), read with the CPU stopped after a ps
    listing."""

    def __init__(self, ctx, g, run, vas):
        self.model = model_of_ps(ctx, g, g.sh("ps"), LAB)
        self.cr3s = (run.cr3p, run.cr3c)
        self.p = {va: leaf(self.model, run.cr3p, va) for va in vas}
        self.c = {va: leaf(self.model, run.cr3c, va) for va in vas} if run.cr3c else {}
        self.bytes = {pte & FRAME: page_bytes(self.model, pte)
                      for pte in list(self.p.values()) + list(self.c.values()) if pte is not None}

    def filled(self, pte, byte):
        return pte is not None and self.bytes[pte & FRAME] == (bytes([byte]) * 8,) * 2

    def first(self, pte):
        return self.bytes[pte & FRAME][0]

    def problems(self, when):
        """The model's problems (every entry's bits, every frame's count
        against frame_refs[], the zero page, nothing free that is mapped,
        each mm's PAGES), each said with when."""
        return ["%s: %s" % (when, line)
                for line in self.model.problems(pages=self.model.ps_pages, private=True,
                                                      leaks=True)]


class HoldRun:
    """cowprobe hold, step by step; what each step saw, or the first error
    (a check that needs a later step fails with it)."""

    def __init__(self, ctx, g):
        self.err, self.seen = None, {}
        p = program(ctx)
        s = self.scn = p.scn
        self.cr3c = None
        try:
            self.run(ctx, g, p, s)
        except CheckFailed as e:
            self.err = str(e)

    def need(self, *keys):
        for k in keys:
            if k not in self.seen:
                raise CheckFailed(self.err or "the program never reached that step")
        return [self.seen[k] for k in keys]

    def run(self, ctx, g, p, s):
        gst = g.guest
        self.seen["free0"] = free_pages(gst)
        # each step goes on when a park dies (a process that only sleeps:
        # nothing keeps a CPU busy meanwhile); its frames come back in the
        # same interval. The first process also makes the frame counts'
        # table and the zero page; the next three take one park's frames each
        parks = [run_park_in_background(gst)[0]]
        fa = free_pages(gst)
        parks += [run_park_in_background(gst)[0] for _ in range(3)]
        spent, rest = divmod(fa - free_pages(gst), 3)
        if rest:
            raise CheckFailed("expected three parks to take the same number of frames, found "
                              "%d frames for three" % (fa - free_pages(gst)))
        self.seen["park"] = spent
        mark = len(gst.out)
        g.sh("run cowprobe hold %d %d %d %d %d %d %d %d %d &"
             % ((s.n, s.mask, s.k, s.byte) + tuple(parks) + (s.sparse_off,)))
        # the parent says the child's exit status only once the child has ended
        m = wait_line(g, mark, r"cowprobe: child (\d+) of (\d+): forked", "the child to say it was forked",
                      past=ENDED_CHILD)
        child, parent = int(m.group(1)), int(m.group(2))
        va0 = int(re.search(r"cowprobe: pages at (?:0x)?([0-9a-f]+)", gst.out[mark:]).group(1), 16)
        m = re.search(r"cowprobe: zero page read at (?:0x)?([0-9a-f]+); PROT_NONE frame at "
                      r"(?:0x)?([0-9a-f]+)", gst.out[mark:])
        self.zero, self.pnone = int(m.group(1), 16), int(m.group(2), 16)
        m = re.search(r"cowprobe: sparse pages at (?:0x)?([0-9a-f]+) and (?:0x)?([0-9a-f]+)",
                      gst.out[mark:])
        self.sparse = [int(m.group(1), 16), int(m.group(2), 16)]
        # one listing, both processes held: CR3 and PAGES (each mm's frames, mm->total_pages)
        listing = g.sh("ps")
        procs = {int(m.group(1)): (int(m.group(3), 16), int(m.group(5)))
                 for m in PS_LINE.finditer(listing)}
        if parent not in procs or child not in procs:
            raise CheckFailed("expected parent %d and child %d in ps, found:\n%s"
                              % (parent, child, listing))
        self.seen["pages"] = (procs[parent][1], procs[child][1])
        self.cr3p, self.cr3c = procs[parent][0], procs[child][0]
        self.pages = [va0 + i * PAGE for i in range(s.n)]
        self.image = p.image_pages()
        stack = [STACK_TOP - i * PAGE for i in range(1, 9)]
        self.seen["forked"] = Walked(ctx, g, self, self.pages + sorted(self.image) + stack
                                     + [self.zero] + self.sparse)
        self.seen["free1"] = free_pages(gst)
        step_on(g, parks[0], r"cowprobe: child wrote; the kernel's write returned (-?\d+)",
                "the child to write its pages", past=ENDED_CHILD)
        self.seen["kret"] = int(re.search(r"the kernel's write returned (-?\d+)", gst.out[mark:]).group(1))
        self.seen["wrote"] = Walked(ctx, g, self, self.pages)
        self.seen["free2"] = free_pages(gst)
        step_on(g, parks[1], r"cowprobe: child exit status (-?\d+); the parent's pages: (\d+) differ",
                "the parent to reap the child", past=ended(parent), past_from=mark)
        m = re.search(r"cowprobe: child exit status (-?\d+); the parent's pages: (\d+) differ",
                      gst.out[mark:])
        self.seen["child_end"] = (int(m.group(1)), int(m.group(2)))
        self.cr3c = None
        self.seen["free3"] = free_pages(gst)
        out = g.sh("run cowprobe fill 2048", timeout=60)
        self.seen["fill"] = "cowprobe: filled 2048 pages" in out
        self.seen["after_fill"] = Walked(ctx, g, self,
                                         self.pages + sorted(self.image) + [self.zero])
        self.seen["free4"] = free_pages(gst)
        # a parent that died (fill took its frames) writes nothing
        step_on(g, parks[2], r"cowprobe: parent wrote", "the parent to write its pages",
                past=ended(parent), past_from=mark)
        self.seen["parent_wrote"] = Walked(ctx, g, self, self.pages)
        self.seen["free5"] = free_pages(gst)
        mark2 = len(gst.out)
        reap(g, parks[3])
        end = None
        for _ in range(100):
            end = re.search(r"^\[%d\] cowprobe: (exit status \d+|killed by \w+)" % parent,
                            gst.out[mark2:], re.M)
            if end:
                break
            g.sh("ps")
            time.sleep(0.05)
        done = re.search(r"cowprobe: parent done: (\d+) pages differ", gst.out[mark2:])
        self.seen["parent_end"] = (end.group(1) if end else "still running",
                                   int(done.group(1)) if done else None)
        for _ in range(40):
            if list(ps(gst)) == [0]:
                break
            time.sleep(0.1)
        self.seen["free6"] = free_pages(gst)


def hold_run(ctx):
    g = boot(ctx)
    run = getattr(g, "cow_hold", None)
    if run is None:
        run = g.cow_hold = HoldRun(ctx, g)
    return g, run


def shared_at_fork(run, what):
    """The probe's pages the walk after fork found on one frame, read-only
    in both. None is no point: the step the check grades never happened."""
    w, = run.need("forked")
    out = [i for i, va in enumerate(run.pages)
           if w.p[va] is not None and w.c[va] is not None and w.p[va] & FRAME == w.c[va] & FRAME
           and not (w.p[va] | w.c[va]) & _RW]
    if not out:
        raise CheckFailed("expected the probe's pages shared read-only after fork, found none of "
                          "the %d shared: %s never happened" % (len(run.pages), what))
    return out


def same_bits(va, who, want, found):
    """"" or the line that names the bits found differs in from want."""
    diff = (want ^ found) & _BITS
    if not diff:
        return ""
    return ("%#x (%s): expected PTE bits %#x (the area's: the entry at fork, writable), found "
            "%#x (bits %#x differ%s)" % (va, who, want & _BITS, found & _BITS, diff,
                                         ", NX lost" if diff >> 63 else ""))


def lines(bad, more=8):
    out = bad[:more]
    if len(bad) > more:
        out.append("... and %d more" % (len(bad) - more))
    return "\n".join(out)


# -- the checks ---------------------------------------------------------------
@check(points=15, name="after fork: every page of the parent's in the child on the same frame; "
       "private writable ones read-only in both (the walk from each CR3); the child's mm counts "
       "as many pages as the parent's (ps PAGES)",
       steps=[WRPROTECT, RANGE, SHARE, CHARGED])
def after_fork(ctx):
    g, run = hold_run(ctx)
    w, (parent_pages, child_pages) = run.need("forked", "pages")
    bad = []
    if parent_pages is None or parent_pages != child_pages:
        bad.append("the child's mm counts %s pages (ps PAGES), the parent's %s: the child maps "
                   "every frame the parent maps" % (child_pages, parent_pages))
    for i, va in enumerate(run.pages):
        pp, cp = w.p[va], w.c[va]
        if pp is None or cp is None or pp & FRAME != cp & FRAME or pp & _RW or cp & _RW:
            bad.append("page %d at %#x (written before fork): expected one frame, RO in both; "
                       "found parent %s, child %s" % (i, va, show(pp), show(cp)))
        elif not w.filled(pp, run.scn.byte + i):
            bad.append("page %d at %#x: expected the frame to hold the parent's bytes %#x, found %s"
                       % (i, va, run.scn.byte + i, w.first(pp).hex()))
    for va, writable in sorted(run.image.items()):
        pp, cp = w.p[va], w.c[va]
        if pp is not None and cp is None:
            bad.append("%#x (the program's %s page): mapped in the parent, not in the child"
                       % (va, "data" if writable else "text/rodata"))
        elif pp is not None and not writable and (pp & FRAME != cp & FRAME or cp & _RW):
            bad.append("%#x (read-only): expected the parent's frame, shared read-only; found "
                       "parent %s, child %s" % (va, show(pp), show(cp)))
    for va, byte in zip(run.sparse, (run.scn.byte ^ 0x5a, run.scn.byte ^ 0xa5)):
        pp, cp = w.p[va], w.c[va]
        if pp is None or cp is None or pp & FRAME != cp & FRAME or (pp | cp) & _RW \
                or not w.filled(pp, byte):
            bad.append("%#x (%s): expected the parent's frame holding %#x, RO in both; found "
                       "parent %s, child %s" % (va, "at a 2 MiB boundary, after 2 MiB with no page "
                                                "table" if va == run.sparse[0] else
                                                "%d pages past it" % run.scn.sparse_off,
                                                byte, show(pp), show(cp)))
    pp, cp = (any_pte(w.model, cr3, run.pnone) for cr3 in w.cr3s)
    if pp is None or cp is None or pp & FRAME != cp & FRAME or (pp | cp) & 1:
        bad.append("%#x (PROT_NONE, written before): expected the parent's frame in both, not "
                   "present; found parent %s, child %s" % (run.pnone, show_any(pp), show_any(cp)))
    zp, zc = w.p[run.zero], w.c[run.zero]
    if zp is None or zc is None or zp & FRAME != zc & FRAME or (zp | zc) & _RW \
            or w.first(zp) != bytes(8):
        bad.append("%#x (read, never written: the zero page): expected one zeroed frame, RO in "
                   "both; found parent %s, child %s" % (run.zero, show(zp), show(zc)))
    for va in range(STACK_TOP - 8 * PAGE, STACK_TOP, PAGE):
        if w.p.get(va) is not None and w.c.get(va) is None:
            bad.append("%#x (stack): mapped in the parent, not in the child" % va)
    bad += w.problems("after fork")
    if bad:
        raise CheckFailed(lines(bad))


@check(points=15, name="the child's write copies: its own frame with its bytes, the parent's "
       "frame and bytes unchanged, one frame spent per page written, none per page read; every "
       "frame counted once per PTE, every mm's PAGES its frames (labs/pagemodel.py)",
       steps=[GET, COPY, NXKEPT, CHARGE_KEPT])
def child_write(ctx):
    g, run = hold_run(ctx)
    w0, w, f1, f2, park = run.need("forked", "wrote", "free1", "free2", "park")
    f2 -= park      # the park that let the child go on
    s, bad = run.scn, []
    shared = shared_at_fork(run, "a write into a shared page")
    if not set(s.written()) & set(shared):
        raise CheckFailed("expected pages the child writes shared at fork, found only pages %s "
                          "shared: no write into a shared page happened" % shared)
    for i in s.written():
        va = run.pages[i]
        pp, cp = w.p[va], w.c[va]
        if pp is None or cp is None or pp & FRAME == cp & FRAME or not cp & _RW:
            bad.append("page %d at %#x (the child wrote it): expected two frames, the child's RW; "
                       "found parent %s, child %s" % (i, va, show(pp), show(cp)))
            continue
        if pp & FRAME != w0.p[va] & FRAME or not w.filled(pp, s.byte + i):
            bad.append("page %d: expected the parent's frame %#x unchanged with bytes %#x, found "
                       "%s holding %s" % (i, w0.p[va] & FRAME, s.byte + i, show(pp),
                                          w.first(pp).hex()))
        if not w.filled(cp, 0x43 ^ i):
            bad.append("page %d: expected the child's frame to hold its bytes %#x, found %s"
                       % (i, 0x43 ^ i, w.first(cp).hex()))
        diff = same_bits(va, "the child's copy of page %d" % i, w0.p[va] | _RW, cp)
        if diff:
            bad.append(diff)
    for i in s.untouched():
        va = run.pages[i]
        pp, cp = w.p[va], w.c[va]
        if pp is None or cp is None or pp & FRAME != cp & FRAME or pp & _RW or cp & _RW:
            bad.append("page %d at %#x (the child only read it): expected still one frame, RO "
                       "in both; "
                       "found parent %s, child %s" % (i, va, show(pp), show(cp)))
    # a copy per page written, the kernel's write included; the child's own
    # libc data and stack may take a page or two more
    want = len(s.written()) + 1
    if not want <= f1 - f2 <= want + 2:
        bad.append("PagesFree: expected %d to %d frames spent (a copy per page written, the "
                   "kernel's write included), found %d (%d -> %d)"
                   % (want, want + 2, f1 - f2, f1, f2))
    bad += w.problems("after the child's writes")
    if bad:
        raise CheckFailed(lines(bad))


@check(points=10, name="the kernel's copy_to_user into a shared page copies it (CR0.WP): "
       "the parent's frame keeps its bytes", steps=[KERNEL])
def kernel_write(ctx):
    g, run = hold_run(ctx)
    w, kret = run.need("wrote", "kret")
    s = run.scn
    va = run.pages[s.k]
    if s.k not in shared_at_fork(run, "the kernel's write into a shared page"):
        raise CheckFailed("expected page %d at %#x shared read-only after fork, found it was not: "
                          "the kernel's write into a shared page never happened" % (s.k, va))
    pp, cp = w.p[va], w.c[va]
    bad = []
    if kret != 0:
        bad.append("prctl(PR_GET_NAME) into the shared page %#x: expected 0, found %d" % (va, kret))
    if pp is None or cp is None or pp & FRAME == cp & FRAME:
        bad.append("page %d at %#x (the kernel wrote it for the child): expected two frames, "
                   "found parent %s, child %s" % (s.k, va, show(pp), show(cp)))
    else:
        if not w.filled(pp, s.byte + s.k):
            bad.append("the parent's frame %#x: expected its bytes %#x, found %s"
                       % (pp & FRAME, s.byte + s.k, w.first(pp).hex()))
        if w.first(cp) != b"cow-chil":
            bad.append("the child's frame %#x: expected the name the kernel wrote, found %s"
                       % (cp & FRAME, w.first(cp)))
        diff = same_bits(va, "the child's copy the kernel wrote", run.need("forked")[0].p[va] | _RW,
                         cp)
        if diff:
            bad.append(diff)
    if bad:
        raise CheckFailed(lines(bad))


@check(points=15, name="the last user's write takes the page back: the same frame, RW, no frame "
       "spent", steps=[REUSE])
def last_user(ctx):
    g, run = hold_run(ctx)
    w, w2, f4, f5, park = run.need("after_fill", "parent_wrote", "free4", "free5", "park")
    f5 -= park      # the park that let the parent go on
    s, bad = run.scn, []
    shared_at_fork(run, "the last user's write into a page shared once")
    for i in s.written():
        va = run.pages[i]
        before, after = w.p[va], w2.p[va]
        if before is not None and before & _RW:
            bad.append("page %d at %#x: expected it read-only until the parent's write (the "
                       "child wrote its copy), found %s: the parent's write never faulted"
                       % (i, va, show(before)))
            continue
        if before is None or after is None or before & FRAME != after & FRAME or not after & _RW:
            bad.append("page %d at %#x (only the parent maps its frame now): expected the same "
                       "frame, RW, after its write; found %s before, %s after"
                       % (i, va, show(before), show(after)))
        elif not w2.filled(after, 0x50 ^ i):
            bad.append("page %d: expected the parent's new bytes %#x, found %s"
                       % (i, 0x50 ^ i, w2.first(after).hex()))
        else:
            diff = same_bits(va, "the parent's page %d taken back" % i, before | _RW, after)
            if diff:
                bad.append(diff)
    if f4 != f5:
        bad.append("PagesFree: expected no frame spent on writes to pages no one else maps, "
                   "found %d (%d -> %d)" % (f4 - f5, f4, f5))
    bad += w2.problems("after the parent's writes")
    if bad:
        raise CheckFailed(lines(bad))


@check(points=15, name="no frame is freed while another process maps it: after the child's "
       "exit and a program that fills memory, the parent's frames hold its bytes (pmemsave)",
       steps=[PUT, SHARE])
def nothing_freed_early(ctx):
    g, run = hold_run(ctx)
    w, w0, fill, (status, differ) = run.need("after_fill", "forked", "fill", "child_end")
    s, bad = run.scn, []
    shared_at_fork(run, "a frame mapped by two processes")
    if status != 0 or differ != 0:
        bad.append("the child: expected exit status 0 and the parent's pages all its own, found "
                   "status %d and %d pages differ" % (status, differ))
    if not fill:
        bad.append("cowprobe fill 2048: expected it to fill 2048 pages, it did not")
    for i, va in enumerate(run.pages):
        pp = w.p[va]
        if not w.filled(pp, s.byte + i):
            bad.append("page %d at %#x: expected the parent's bytes %#x, found %s"
                       % (i, va, s.byte + i, "not mapped" if pp is None
                          else w.first(pp).hex()))
    for va, writable in sorted(run.image.items()):
        before, now = w0.p.get(va), w.p.get(va)
        if writable or before is None:
            continue
        # text and rodata never change: the same frame, its bytes those at fork
        if now is None or now & FRAME != before & FRAME or w.first(now) != w0.first(before):
            bad.append("%#x (read-only, shared at fork): expected frame %#x holding %s, found %s%s"
                       % (va, before & FRAME, w0.first(before).hex(), show(now),
                          "" if now is None else " holding " + w.first(now).hex()))
    zp, z0 = w.p.get(run.zero), w0.p.get(run.zero)
    if zp is None or z0 is None or zp & FRAME != z0 & FRAME or zp & _RW \
            or w.bytes[zp & FRAME] != (bytes(8),) * 2:
        bad.append("%#x (the zero page, read before fork): expected frame %s still zero and "
                   "read-only after the child's exit and the fill, found %s%s: the zero page was "
                   "freed or written" % (run.zero, "none" if z0 is None else "%#x" % (z0 & FRAME),
                                         show(zp), "" if zp is None
                                         else " holding " + w.first(zp).hex()))
    end, left = run.need("parent_end")[0]
    if end != "exit status 0" or left != 0:
        bad.append("the parent: expected exit status 0 with all its pages its own, found %s (%s "
                   "pages differ)" % (end, left))
    bad += w.problems("after the child's exit and the fill")
    if bad:
        raise CheckFailed(lines(bad))


@check(points=10, name="every frame back when both have exited (PagesFree before and after)",
       steps=[ZAP, COPY, PUT])
def frames_back(ctx):
    g, run = hold_run(ctx)
    f0, f6 = run.need("free0", "free6")
    shared_at_fork(run, "the put of a frame two processes shared")
    if f0 != f6:
        raise CheckFailed("expected PagesFree %d again once cowprobe, its child and the parks had "
                          "exited, found %d (%+d)" % (f0, f6, f6 - f0))


@check(points=10, name="the parent's TLB forgets its writable entries at fork: its write right "
       "after fork copies (both frames, pmemsave)", steps=[FLUSH])
def stale_tlb(ctx):
    p = program(ctx)
    # pti=off: with PTI every return to ring 3 writes CR3, which (no PCID
    # on 32-bit) flushes the whole TLB and would hide a missing flush
    g = boot(ctx, tag=LAB + "-tlb", cmdline="pti=off")
    s, gst = p.scn, g.guest
    park = run_park_in_background(gst)[0]
    mark = len(gst.out)
    g.sh("run cowprobe tlb %d %d %d &" % (s.tlb_pages, s.tlb_byte, park))
    # the whole line printed but not as a working fork prints it (a child
    # of -1): it will not be printed again
    m = wait_line(g, mark, r"cowprobe: pages at (?:0x)?([0-9a-f]+); children ([\d ]+); parent wrote",
                  "the parent to write right after each fork",
                  past=r"cowprobe: pages at .*; children .*; parent wrote")
    va0, children = int(m.group(1), 16), [int(x) for x in m.group(2).split()]
    listing = g.sh("ps")
    procs = ps_table(listing)
    parent = [pid for pid, (_, _, name) in procs.items() if name == "cowprobe" and pid not in children]
    if not parent:
        raise CheckFailed("expected the parent cowprobe in ps, found %s" % procs)
    cr3p = procs[parent[0]][1]
    bad = []
    w = model_of_ps(ctx, g, listing, LAB)
    for i, child in enumerate(children):
        va = va0 + i * PAGE
        pp = leaf(w, cr3p, va)
        pb = w.page(pp & FRAME)[0] if pp is not None else None
        if pb != s.tlb_byte + 1:
            bad.append("page %d at %#x: expected the parent's write (%#x) in its frame, found %s"
                       "%s" % (i, va, s.tlb_byte + 1, show(pp), "" if pb is None
                               else " holding %#x" % pb))
        if child not in procs or procs[child][0] == "zombie":
            bad.append("round %d: expected child %d alive and holding, found it died (the "
                       "parent's writes after fork reached its stack?): %s"
                       % (i, child, (re.findall(r"^.*\[%d\].*$" % child, gst.out[mark:], re.M)
                                     or ["no line"])[-1]))
            continue
        cp = leaf(w, procs[child][1], va)
        cb = w.page(cp & FRAME)[0] if cp is not None else None
        if cp is not None and cp & _RW:
            # a page not shared copy-on-write needed no flush: no point
            bad.append("round %d, page %d at %#x: expected child %d's entry read-only (shared "
                       "at fork), found %s: no entry lost RW, no flush was needed"
                       % (i, i, va, child, show(cp)))
            continue
        if cp is None or pp is None or cp & FRAME == pp & FRAME or cb != s.tlb_byte:
            bad.append("round %d, page %d at %#x: expected child %d's frame still %#x and not "
                       "the parent's, found %s%s (parent %s)%s"
                       % (i, i, va, child, s.tlb_byte, show(cp), "" if cb is None
                          else " holding %#x" % cb, show(pp),
                          ": the parent's write went through a stale writable TLB entry"
                          if cp is not None and pp is not None and cp & FRAME == pp & FRAME
                          else ""))
    reap(g, park)
    if bad:
        raise CheckFailed(lines(bad))


# -- the counts on two CPUs ---------------------------------------------------
CPUS = 2


def race_round(ctx):
    """`cowprobe race` on a two-CPU boot: the parent and each child write
    every shared page at once; then, with only the parent and a last
    child that holds (its pages shared, read-only in both), each frame
    counts its two PTEs (xp of frame_refs[] against the walk from each
    CR3), and every frame comes back when both exit. [problem lines]."""
    r = ctx.rng("cow/race")
    rounds, n, byte = r.randrange(3, 7), r.randrange(4, 13), r.randrange(0x20, 0x60)
    g = ctx.boot(initrd=program(ctx).initrd, tag=LAB + "-race", smp=CPUS)
    gst = g.guest
    keep = run_park_in_background(gst)[0]     # holds the count table for the whole round
    before = free_pages(gst)
    park = run_park_in_background(gst)[0]
    mark = len(gst.out)
    g.sh("run cowprobe race %d %d %d %d &" % (rounds, n, byte, park))
    m = wait_line(g, mark, r"cowprobe: raced \d+ rounds of \d+ pages at (?:0x)?([0-9a-f]+); "
                  r"(\d+) children failed; holder (-?\d+)",
                  "the parent to fork and write %d times" % rounds, past=r"cowprobe: fork failed")
    va0, failed, holder = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
    listing = g.sh("ps")
    procs = ps_table(listing)
    parent = [pid for pid, (_, _, name) in procs.items() if name == "cowprobe" and pid != holder]
    if len(parent) != 1 or holder not in procs:
        raise CheckFailed("expected the parent cowprobe and its holding child %d in ps (the "
                          "others reaped), found %s" % (holder, procs))
    cr3p, cr3c = procs[parent[0]][1], procs[holder][1]
    bad = ["%d of %d children: expected each to read back its own bytes, found they did not"
           % (failed, rounds)] if failed else []
    w = model_of_ps(ctx, g, listing, LAB)
    if not w.refs_table:
        raise CheckFailed("expected frame_refs to point at the count table while a process "
                          "runs, found NULL")
    for i in range(n):
        va, want = va0 + i * PAGE, (byte + rounds + i) & 0xFF
        pp, cp = leaf(w, cr3p, va), leaf(w, cr3c, va)
        if pp is None or cp is None or pp & FRAME != cp & FRAME or (pp | cp) & _RW:
            bad.append("page %d at %#x (written, then forked): expected one frame, RO in "
                       "both; found parent %s, child %s" % (i, va, show(pp), show(cp)))
            continue
        got = page_bytes(w, pp)
        count = w.refs((pp & FRAME) >> 12)
        if got != (bytes([want]) * 8,) * 2:
            bad.append("page %d at %#x: expected the parent's bytes %#x in frame %#x, found "
                       "%s" % (i, va, want, pp & FRAME, got[0].hex()))
        if count != 2:
            bad.append("page %d at %#x, frame %#x: expected frame_refs[%#x] = 2 (two PTEs "
                       "map it: the parent's and its holding child's, the %d children "
                       "before gone), found %d"
                       % (i, va, pp & FRAME, (pp & FRAME) >> 12, rounds, count))
    # and every other frame of every process, counted as the model counts it
    bad += [line for line in w.problems(pages=w.ps_pages, private=True, leaks=True)
            if line not in bad]
    m = step_on(g, park, r"cowprobe: race done: (\d+) pages differ",
                "the parent to check its pages", past=ended(parent[0]))
    if int(m.group(1)):
        bad.append("the parent: expected its pages to hold its last bytes, found %s differ"
                   % m.group(1))
    for _ in range(100):        # the shell says a background job ended when it next prompts
        if re.search(ended(parent[0]), gst.out[mark:], re.M):
            break
        g.sh("ps")
        time.sleep(0.05)
    after = settled_free_pages(gst, before)
    if after != before:
        bad.append("PagesFree: expected %d again once cowprobe race and its children had "
                   "exited, found %d (%+d)" % (before, after, after - before))
    reap(g, keep)
    return bad


@check(points=10, name="the counts change atomically: every change of frame_refs[] one locked "
       "instruction, the free decided by its result (mm/cow.o's code); on two CPUs, each frame "
       "counted once per PTE (pmemsave)", steps=[ATOMIC_GET, ATOMIC_PUT])
def atomic_counts(ctx):
    obj = os.path.join(ctx.build, "mm", "cow.o")
    if not os.path.exists(obj):
        raise CheckFailed("expected the lab's object %s, found none" % obj)
    bad = ["mm/cow.o: " + p for p in atomics.problems(
        obj, "frame_refs", change=["get_user_frame", "put_user_frame"], drop=["put_user_frame"],
        readers=["page_ref_count"])]
    bad += ["two CPUs: " + p for p in race_round(ctx)]
    if bad:
        raise CheckFailed(lines(bad))
