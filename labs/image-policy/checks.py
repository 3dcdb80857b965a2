# SPDX-License-Identifier: GPL-2.0-only
"""Lab 2, image-policy: mark_rodata_ro(), mark_nxdata_nx(), free_init_pages()
(seed 001's mm/init_32.c and mm/init.c hunks). See docs/labs/image-policy.md.

What the student's code prints about itself (the sizes it protected) is
compared with the sizes nm gives; that the W^X audit really ran is shown
by W+X pages planted at grade time (wxplant=, from the grade's seed) that
the audit's boot-time report must name."""
import re

from grading import (CPU_NO_NX, CheckFailed, check, expect_ktap, expect_pages, ktap_check,
                     pages_check, step)

PAGE, LARGE, PAGE_OFFSET = 4096, 2 << 20, 0xC0000000
# every check's default boot: no module loaded at boot, so nothing reuses a
# freed init page before QEMU reads it (one boot serves them all)
BOOT = "autoload=off"
FREE_NX = step("free_init_pages", "reset the freed range to RW+NX", "free-without-nx")
NX_FIRST = step("free_init_pages", "NX first, then RW", None,
                "not observable in ronx: init memory is RW+X until it is freed, so set_memory_rw() "
                "changes nothing and no order of the two makes a new W+X moment")
POISON = step("free_init_pages", "poison it with int3", "no-poison")
GIVE_BACK = step("free_init_pages", "give each page back to the allocator", "pages-kept")
NXDATA = step("mark_nxdata_nx", "make everything from _etext to _end NX", "rodata-exec")
NXDATA_SAY = step("mark_nxdata_nx", "say how much", "nxdata-silent")
RODATA_OFF = step("mark_rodata_ro", "nothing but the audit with rodata=off", "ignores-rodata-off")
TEXT_RO = step("mark_rodata_ro", "text RO, and say how much", "text-left-rw")
RODATA_RO = step("mark_rodata_ro", "rodata and ro_after_init RO", "ro-after-init-left-rw")
SEALED = step("mark_rodata_ro", "seal them (kernel_set_to_readonly)", "not-sealed")
CALLS_NXDATA = step("mark_rodata_ro", "then mark_nxdata_nx()", "no-nxdata")
AUDIT = step("mark_rodata_ro", "then the W^X audit", "no-audit")


def logged_k(g, regex, what, want):
    """The boot log's "...: Nk" line for what, and N == want kilobytes."""
    m = re.search(regex, g.log, re.M)
    if not m:
        raise CheckFailed("expected the boot log to say %s (/%s/), found no such line"
                          % (what, regex))
    if int(m.group(1)) != want:
        raise CheckFailed("expected %r to say %dk, found %sk" % (m.group(0), want, m.group(1)))


@check(points=5, name="freed init memory is poisoned with int3 (xp, no module loaded yet)",
       steps=[POISON])
def freed_init_poisoned(ctx):
    # first of the lab's checks: no self-test has run yet to take a freed page
    g = ctx.boot(cmdline=BOOT)
    start, end = ctx.sym("__init_begin"), ctx.sym("__init_end")
    r, bad = ctx.rng("image-policy poison"), []
    for page in range(start, end, PAGE):
        for off in sorted({0, PAGE - 16, r.randrange(0, PAGE - 16) & ~15}):
            out = g.monitor("xp /16bx 0x%x" % (page + off - PAGE_OFFSET))
            found = bytes(int(b, 16) for ln in out.splitlines()
                          for b in re.findall(r"0x([0-9a-f]{2})\b", ln.split(":", 1)[-1]))
            if found != b"\xcc" * 16:
                bad.append("%s: found %s" % (ctx.where(page + off), found.hex(" ")))
    if bad:
        raise CheckFailed("expected freed init memory poisoned with int3 (0xcc) in every byte, "
                          "found:\n" + "\n".join(bad[:6]))


@check(points=10, name="text RO+X after boot, and the log says how much", steps=[TEXT_RO])
def text_ro_x(ctx):
    g = ctx.boot(cmdline=BOOT)
    expect_pages(ctx, g, "_text", "_etext", "RO+X", ".text")
    logged_k(g, r"^Write protecting the kernel text: (\d+)k$", "the text's size",
             (ctx.sym("_etext") - ctx.sym("_text")) >> 10)


@check(points=10, name="rodata and ro_after_init RO+NX after boot, and sealed",
       steps=[RODATA_RO, SEALED, NXDATA, CALLS_NXDATA])
def rodata_ro_nx(ctx):
    g = ctx.boot(cmdline=BOOT)
    expect_pages(ctx, g, "__start_rodata", "__end_rodata", "RO+NX", ".rodata")
    expect_pages(ctx, g, "__start_ro_after_init", "__end_ro_after_init", "RO+NX",
                 ".data..ro_after_init")
    expect_ktap(g, "image", ["write_to_rodata_faults", "ro_after_init_read_only_after_boot",
                             "ro_after_init_writable_during_boot"])
    # sealed: from now on the CPA layer refuses to make it writable again
    expect_ktap(g, "pageattr", ["rodata_never_becomes_rw"])


@check(points=10, name="mark_nxdata_nx: NX from _etext to _end, data and bss still RW",
       steps=[NXDATA, NXDATA_SAY, CALLS_NXDATA])
def nxdata(ctx):
    g = ctx.boot(cmdline=BOOT)
    expect_pages(ctx, g, "_etext", "_end", "NX", "_etext.._end")
    expect_pages(ctx, g, "_sdata", "_edata", "RW+NX", ".data")
    expect_pages(ctx, g, "__bss_start", "_end", "RW+NX", ".bss")
    logged_k(g, r"^NX-protecting the kernel data: (\d+)k$", "the NX size",
             (ctx.sym("_end") - ctx.sym("_etext")) >> 10)


@check(points=10, name="free_init_pages: init freed as RW+NX, even with rodata=off",
       steps=[FREE_NX])
def freed_init(ctx):
    for cmdline in (BOOT, "rodata=off"):
        g = ctx.boot(cmdline=cmdline)
        expect_pages(ctx, g, "__init_begin", "__init_end", "RW+NX",
                     "freed init memory (boot: %s)" % cmdline)
        logged_k(g, r"^Freeing unused kernel memory: (\d+)k freed$", "init freed",
                 (ctx.sym("__init_end") - ctx.sym("__init_begin")) >> 10)
    expect_ktap(ctx.boot(cmdline=BOOT), "image", ["exec_freed_init_faults"])


@check(points=5, name="freed init pages go back to the page allocator (meminfo)",
       steps=[GIVE_BACK])
def freed_init_given_back(ctx):
    g = ctx.boot(cmdline=BOOT)
    m = re.search(r"^Memory: (\d+)K/\d+K available", g.log, re.M)
    if not m:
        raise CheckFailed("expected the boot log's 'Memory: NK/MK available' line, found none")
    total = re.search(r"^MemTotal:\s+(\d+) kB", g.sh("meminfo"), re.M)
    init_k = (ctx.sym("__init_end") - ctx.sym("__init_begin")) >> 10
    want = int(m.group(1)) + init_k
    if not total or int(total.group(1)) != want:
        raise CheckFailed("expected meminfo's MemTotal to be the %sK available at boot plus the "
                          "%dK of init memory (nm), %dK; found %s"
                          % (m.group(1), init_k, want, total.group(0) if total else "none"))


pages_check(5, "rodata=off leaves text and rodata writable (the picture before 2.6.38)", [
    ("_text", "_etext", "RW+X", ".text with rodata=off"),
    ("__start_rodata", "__end_rodata", "RW", ".rodata with rodata=off")], cmdline="rodata=off",
    steps=[RODATA_OFF])
pages_check(5, "a CPU without NX: text and rodata still read-only", [
    ("_text", "_etext", "RO", ".text (no NX)"),
    ("__start_rodata", "__end_ro_after_init", "RO", ".rodata (no NX)")], cpu=CPU_NO_NX,
    steps=[TEXT_RO, RODATA_RO])


def plant(ctx):
    """A run of W+X pages nobody can know before the grade (its seed)."""
    r = ctx.rng("image-policy plant")
    return PAGE_OFFSET + r.randrange(0x1000000 // PAGE, 0x6000000 // PAGE) * PAGE, \
        r.randrange(1, 33)


@check(points=5, name="the W^X audit runs once the image is protected (it names a W+X page "
       "planted at boot)", steps=[AUDIT, RODATA_OFF])
def audit_runs(ctx):
    va, n = plant(ctx)
    want = "ronx: W+X mapping at 0x%08x-0x%08x (%d pages)" % (va, va + n * PAGE, n)
    # once the image is protected the planted run is the only W+X outside
    # the hole: an audit run before mark_nxdata_nx() also names data and bss;
    # with rodata=off the audit still runs and names the plant among the image
    for cmdline, alone in ((BOOT, True), ("rodata=off", False)):
        g = ctx.boot(cmdline="%s wxplant=%x:%d" % (cmdline, va, n))
        lines = re.findall(r"^ronx: W\+X (?:check: |mapping at ).*$", g.log, re.M)
        runs = [ln for ln in lines if ln.startswith("ronx: W+X mapping at")]
        if want not in lines or not any(ln.startswith("ronx: W+X check: FAILED") for ln in lines):
            raise CheckFailed("expected the boot-time audit (boot: %s) to report the %d W+X "
                              "pages planted at 0x%08x (wxplant=), '%s' and a FAILED verdict, "
                              "found:\n%s" % (cmdline, n, va, want,
                                              "\n".join(lines) or "no audit lines"))
        if alone and runs != [want]:
            raise CheckFailed("expected the audit at the end of boot (%s) to find only the "
                              "planted run, '%s': the image is protected before it runs; "
                              "found:\n%s" % (cmdline, want, "\n".join(runs)))


ktap_check(10, "selftest image: the kernel's own probes of its image", "image", cmdline=BOOT,
           steps=[TEXT_RO, RODATA_RO, FREE_NX, NXDATA])
