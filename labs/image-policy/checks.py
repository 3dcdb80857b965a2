# SPDX-License-Identifier: GPL-2.0-only
"""Lab 2, image-policy: mark_rodata_ro(), mark_nxdata_nx(), free_init_pages()
(seed 001's mm/init_32.c and mm/init.c hunks). See docs/labs/image-policy.md."""
import re
import subprocess
import tempfile

from grading import CPU_NO_NX, CheckFailed, check, expect_ktap, expect_pages, ktap_check, pages_check


def logged_k(g, regex, what, want):
    """The boot log's "...: Nk" line for what, and N == want kilobytes."""
    m = re.search(regex, g.log, re.M)
    if not m:
        raise CheckFailed("expected the boot log to say %s (/%s/), found no such line"
                          % (what, regex))
    if int(m.group(1)) != want:
        raise CheckFailed("expected %r to say %dk, found %sk" % (m.group(0), want, m.group(1)))


@check(points=10, name="text RO+X after boot, and the log says how much")
def text_ro_x(ctx):
    g = ctx.boot()
    expect_pages(ctx, g, "_text", "_etext", "RO+X", ".text")
    logged_k(g, r"^Write protecting the kernel text: (\d+)k$", "the text's size",
             (ctx.sym("_etext") - ctx.sym("_text")) >> 10)


@check(points=10, name="rodata and ro_after_init RO+NX after boot, and sealed")
def rodata_ro_nx(ctx):
    g = ctx.boot()
    expect_pages(ctx, g, "__start_rodata", "__end_rodata", "RO+NX", ".rodata")
    expect_pages(ctx, g, "__start_ro_after_init", "__end_ro_after_init", "RO+NX",
                 ".data..ro_after_init")
    expect_ktap(g, "image", ["write_to_rodata_faults", "ro_after_init_read_only_after_boot",
                             "ro_after_init_writable_during_boot"])
    # sealed: from now on the CPA layer refuses to make it writable again
    expect_ktap(g, "pageattr", ["rodata_never_becomes_rw"])


@check(points=10, name="mark_nxdata_nx: NX from _etext to _end, data and bss still RW")
def nxdata(ctx):
    g = ctx.boot()
    expect_pages(ctx, g, "_etext", "_end", "NX", "_etext.._end")
    expect_pages(ctx, g, "_sdata", "_edata", "RW+NX", ".data")
    expect_pages(ctx, g, "__bss_start", "_end", "RW+NX", ".bss")
    logged_k(g, r"^NX-protecting the kernel data: (\d+)k$", "the NX size",
             (ctx.sym("_end") - ctx.sym("_etext")) >> 10)


@check(points=10, name="free_init_pages: init freed as RW+NX, even with rodata=off")
def freed_init(ctx):
    for cmdline in ("", "rodata=off"):
        g = ctx.boot(cmdline=cmdline)
        expect_pages(ctx, g, "__init_begin", "__init_end", "RW+NX",
                     "freed init memory (boot: %s)" % (cmdline or "default"))
        logged_k(g, r"^Freeing unused kernel memory: (\d+)k freed$", "init freed",
                 (ctx.sym("__init_end") - ctx.sym("__init_begin")) >> 10)
    expect_ktap(ctx.boot(), "image", ["exec_freed_init_faults"])


def section_bytes(ctx, name):
    """The contents of one section of build/kernel.elf."""
    with tempfile.NamedTemporaryFile() as f:
        subprocess.run(["objcopy", "-O", "binary", "--only-section=" + name, ctx.elf, f.name],
                       check=True)
        return f.read()


@check(points=5, name="freed init memory no longer holds init code (poisoned or reused)")
def freed_init_gone(ctx):
    g = ctx.boot()
    code, start = section_bytes(ctx, ".init.text"), ctx.sym("__init_begin")
    same = []
    for off in range(0, len(code), 4096):
        chunk = code[off:off + 16]
        out = g.monitor("xp /%dbx 0x%x" % (len(chunk), start - 0xC0000000 + off))
        found = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})\b", out.split(":", 1)[-1]))
        if found == chunk:
            same.append("%s: found the init code still there (%s)"
                        % (ctx.where(start + off), chunk[:8].hex(" ")))
    if same:
        raise CheckFailed("expected freed init memory poisoned with int3 (0xcc) or in use "
                          "again, found:\n" + "\n".join(same))


pages_check(5, "rodata=off leaves text and rodata writable (the picture before 2.6.38)", [
    ("_text", "_etext", "RW+X", ".text with rodata=off"),
    ("__start_rodata", "__end_rodata", "RW", ".rodata with rodata=off")], cmdline="rodata=off")
pages_check(5, "a CPU without NX: text and rodata still read-only", [
    ("_text", "_etext", "RO", ".text (no NX)"),
    ("__start_rodata", "__end_ro_after_init", "RO", ".rodata (no NX)")], cpu=CPU_NO_NX)


@check(points=5, name="the W^X audit runs once the image is protected")
def audit_runs(ctx):
    g = ctx.boot()
    lines = re.findall(r"^ronx: W\+X check: .*$", g.log, re.M)
    if not lines:
        raise CheckFailed("expected a 'ronx: W+X check: ...' line at boot, found none")
    if "FAILED" in lines[0]:
        raise CheckFailed("expected the audit to pass, found: " + lines[0])


ktap_check(10, "selftest image: the kernel's own probes of its image", "image")
