# SPDX-License-Identifier: GPL-2.0-only
# CONFIG_DEBUG_WX on 32-bit PAE, per patch series (linux/patches/V/): the
# KTAP checks on the small kernels' boots and on checkpatch.pl's output,
# and the section of docs/linux-vs-ronx.md that compares the versions.
import glob
import os
import re

from evidence import HOLE, PAGE_OFFSET, Boot, pdpte_check, predicted_audit

PASS = "passed, no W+X pages found"
HOLE_PAGES = (HOLE[1] - HOLE[0]) // 0x1000
# (kind, scenario, command line); must match the boots in check.sh.
# The test page is planted only where the command line asks for it.
BOOTS = [("base", "bios", "pci=bios debug_wx_selftest"),
         ("fixed", "bios", "pci=bios debug_wx_selftest"),
         ("base", "nobios", "pci=nobios"),
         ("fixed", "nobios", "pci=nobios"),
         ("base", "default", "")]
# /sys/kernel/debug/check_wx_pages (re-runs the check on demand).
CHECK_WX_PAGES_SINCE = (6, 12)


def series(meta):
    return meta.get("SERIES", "").split()


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


def boot_name(v, kind, scen):
    return f"small-{v}-{kind}-{scen}"


def checkpatch(boots_dir, patches_dir, v):
    """Per patch: (name, errors, warnings, warning types, justified types)."""
    out = []
    for p in sorted(glob.glob(os.path.join(patches_dir, v, "*.patch"))):
        stem = os.path.basename(p)[:-len(".patch")]
        log = os.path.join(boots_dir, f"checkpatch-{v}", stem + ".txt")
        text = open(log, errors="replace").read() if os.path.exists(log) else ""
        m = re.search(r"^total: (\d+) errors, (\d+) warnings", text, re.M)
        types = sorted(set(re.findall(r"^WARNING:([A-Z_]+):", text, re.M)))
        # The notes below "---" (git format-patch --notes), before the diff.
        patch = open(p).read()
        notes = patch.split("\n---\n", 1)[-1].split("\ndiff --git", 1)[0]
        justified = [t for t in types if t in notes]
        out.append((os.path.basename(p), int(m.group(1)) if m else None,
                    int(m.group(2)) if m else None, types, justified))
    return out


def check_patches(kt, boots_dir, patches_dir, v):
    res = checkpatch(boots_dir, patches_dir, v)
    kt.add(bool(res), f"linux/patches/{v}/ holds a series")
    for name, err, warn, types, justified in res:
        ok = err == 0 and warn is not None and (warn == 0 or bool(types)) and types == justified
        why = f"; each justified below ---: {', '.join(types)}" if types else ""
        kt.add(ok, f"checkpatch.pl of linux-source-{v} on {v}/{name}: {err} errors, "
                   f"{warn} warnings{why}" + ("" if types == justified else
                                             f" (not justified: {sorted(set(types) - set(justified))})"))
    return res


def check_boot(kt, b, v, kind, scen, want_cmd):
    name, fixed = b.name, kind == "fixed"
    cmd = b.cmdline()
    kt.add(b.ready and cmd is not None and want_cmd in cmd,
           f"{name}: small {v} kernel ({kind}) booted with '{want_cmd}'; /init ran and reached ready-for-tlb")
    pdpte_check(kt, name, b)
    hole, other = b.wx_pages()
    got, pred = b.audit(), predicted_audit(b, fixed)
    kt.add(b.ready and got == pred,
           f"{name}: wx_check = '{got}'; info tlb: {hole} W+X pages in 640K-1M, {other} elsewhere; "
           f"expected from a {'fixed' if fixed else 'blind (unpatched)'} audit: '{pred}'")
    tlb, walk, walked = b.hole()
    want = HOLE_PAGES if b.pcibios() else 0
    kt.add(b.ready and tlb == want and walk == want and walked == HOLE_PAGES,
           f"{name}: 640K-1M: info tlb {tlb}/{HOLE_PAGES} pages RW+X, PAE walk {walk}/{walked} RW+X "
           f"(expect {want}: the kernel {'said' if b.pcibios() else 'did not say'} 'PCI BIOS area is rw and x')")
    pv = b.planted()
    if "debug_wx_selftest" in want_cmd:
        t, w = (b.tlb_flags(pv), b.walk.get(pv, "not walked")) if pv else ("missing", "missing")
        kt.add(pv is not None and t == w == "RW+X",
               f"{name}: planted page " + (f"0x{pv:08x}: info tlb {t}, PAE walk {w} (expect RW+X)"
                                           if pv else "missing"))
        if fixed:
            kt.add(any("Found insecure W+X mapping" in l for l in b.dmesg),
                   f"{name}: fixed audit warns 'Found insecure W+X mapping' for the planted page")
    else:
        kt.add(b.ready and pv is None and other == 0,
               f"{name}: nothing planted: {'no' if pv is None else 'a'} DEBUG_WX_SELFTEST line, "
               f"info tlb shows {other} W+X pages outside 640K-1M (expect 0)")
    if fixed and scen == "nobios":
        res = b.wx_results()
        kt.add(res == [("kernel", PASS), ("user", PASS)],
               f"{name}: no over-report: " + (", ".join(f"{t} tables '{r}'" for t, r in res) or "no W+X check")
               + f" (expect kernel and user (PTI) tables '{PASS}')")
    cw = b.check_wx_pages()
    if vtuple(v) >= CHECK_WX_PAGES_SINCE:
        want = "SUCCESS" if not fixed or other == 0 else "FAILED"
        kt.add(cw == want, f"{name}: /sys/kernel/debug/check_wx_pages read by /init = {cw} (expect {want})")


def check(kt, boots_dir, patches_dir, meta):
    """All KTAP lines for every series; returns (boots, checkpatch results)."""
    boots, cps = {}, {}
    for v in series(meta):
        cps[v] = check_patches(kt, boots_dir, patches_dir, v)
        for kind, scen, cmd in BOOTS:
            b = boots[boot_name(v, kind, scen)] = Boot(boots_dir, boot_name(v, kind, scen))
            check_boot(kt, b, v, kind, scen, cmd)
    return boots, cps


def extra_columns(meta):
    """Series without a Debian i386 image (6.12): their small kernel gets a
    column in the main tables, read from outside with info tlb."""
    kver = meta.get("KVER", "")
    return [v for v in series(meta) if not kver.startswith(v + ".")]


def main_cell(boots, v, scen, check):
    """The unpatched small kernel of series v, for one row of the main tables."""
    b = boots.get(boot_name(v, "base", {"pci=bios": "bios", "pci=nobios": "nobios"}[scen]))
    if b is None or not b.ready:
        return "not measured"
    if check == "wx_check":
        hole, other = b.wx_pages()
        what = " (the planted page)" if other and b.planted() else ""
        return f"{b.audit()}; info tlb: {hole} W+X pages in 640K-1M, {other} elsewhere{what}"
    if check.startswith("low:"):
        va = PAGE_OFFSET + int(check[4:], 16)
        t, w = b.tlb_flags(va), b.walk.get(va, "not walked")
        return t if t == w else f"{t} (PAE walk: {w})"
    return "— (no module)"


def blind_versions(boots, meta):
    return [v for v in series(meta) if blindness(boots[boot_name(v, "base", "bios")]).startswith("**yes")]


def verdict_lines(b):
    res = b.wx_results()
    if not res:
        return "no W+X check ran"
    pre = [l.split("x86/mm: ", 1)[-1] for l in b.dmesg
           if "PCI BIOS W+X mapping" in l or "Found insecure W+X mapping" in l]
    return "; ".join(pre + [f"{t} tables: {r}" for t, r in res])


def blindness(b):
    """Is the unpatched check blind? Judged from this boot alone."""
    hole, other = b.wx_pages()
    if not b.ready or not b.wx_results():
        return "not measured"
    kernel = b.wx_results()[0][1]
    if hole + other == 0:
        return "undecided (info tlb shows no W+X page)"
    if kernel == PASS:
        return (f"**yes, blind**: info tlb shows {hole + other} W+X pages, the check says "
                f"\"{PASS}\"")
    return f"**no**: it reports \"{kernel}\" for {hole + other} W+X pages in info tlb"


def pdpte_text(b):
    return ", ".join(f"`0x{v:x}`" for v in sorted(b.pdptes)) or "none"


def walk_sample(b, va):
    line = b.walk_raw.get(va)
    if not line:
        return "not walked"
    return " ".join(f"{k}=`{x}`" for k, x in re.findall(r"(pdpte|pde|pte)=0x0*([0-9a-f]+)", line))


def table(meta, boots, cps):
    vs = series(meta)
    o = ["| | " + " | ".join(f"Linux {v}" for v in vs) + " |", "|---|" + "---|" * len(vs)]

    def row(label, f):
        o.append(f"| {label} | " + " | ".join(f(v) for v in vs) + " |")

    def B(v, kind, scen):
        return boots[boot_name(v, kind, scen)]

    row("source", lambda v: f"`linux-source-{v}` {meta.get('SRCVER_' + v, '?')}")
    row("PDPTEs read by the PAE walk (RW is bit 1)", lambda v: pdpte_text(B(v, "base", "bios")))
    row("unpatched, `pci=bios debug_wx_selftest`: info tlb",
        lambda v: "{} W+X pages in 640K-1M, {} elsewhere".format(*B(v, "base", "bios").wx_pages()))
    row("same boot: PAE walk of 640K-1M",
        lambda v: "{1}/{2} pages RW+X; 0xc00a0000: ".format(*B(v, "base", "bios").hole())
        + walk_sample(B(v, "base", "bios"), HOLE[0]))
    row("same boot: planted page", lambda v: (lambda b, p: f"0x{p:08x} {b.tlb_flags(p)} in info tlb"
                                              if p else "missing")(B(v, "base", "bios"),
                                                                   B(v, "base", "bios").planted()))
    row("same boot: what the W+X check says", lambda v: verdict_lines(B(v, "base", "bios")))
    row("**unpatched W+X check blind on PAE?**", lambda v: blindness(B(v, "base", "bios")))
    row("patched, `pci=bios debug_wx_selftest`: W+X check", lambda v: verdict_lines(B(v, "fixed", "bios")))
    row("unpatched, `pci=nobios`: W+X check", lambda v: verdict_lines(B(v, "base", "nobios")))
    row("patched, `pci=nobios`: W+X check (no over-report)", lambda v: verdict_lines(B(v, "fixed", "nobios")))
    row("`check_wx_pages` read by /init (patched: bios / nobios)",
        lambda v: " / ".join(str(B(v, "fixed", s).check_wx_pages() or "—") for s in ("bios", "nobios"))
        if vtuple(v) >= CHECK_WX_PAGES_SINCE else "no such file in this version")
    row("default command line: uses the PCI BIOS?",
        lambda v: (lambda b: ("yes" if b.pcibios() else "no") + ", 640K-1M {}/{} RW+X in info tlb; ".format(
            b.hole()[0], HOLE_PAGES) + "unpatched check: " + verdict_lines(b))(B(v, "base", "default")))
    row("checkpatch.pl from the same tree", lambda v: "; ".join(
        f"{n[:4]}: {e} errors, {w} warnings" + (f" ({', '.join(t)}, justified below ---)" if t else "")
        for n, e, w, t, _ in cps.get(v, [])))
    return o


def document(meta, boots, cps):
    o = []
    w = o.append
    vs = series(meta)
    w("\n## CONFIG_DEBUG_WX on 32-bit PAE: Linux " + " and ".join(vs) + ", without and with the fix\n")
    w("Since v5.6 the x86 W+X check folds effective permissions from the top level down "
      "(`effective_prot()` in `arch/x86/mm/dump_pagetables.c`). On PAE the top level is the PDPT, "
      "whose entries carry no RW or USER bit (Linux writes `__pa(pmd) | _PAGE_PRESENT`; the 0x20 "
      "seen below is the accessed bit), so no page ever counts as writable and the check always "
      "says \"passed\". 6.12 reports leaves through one callback per level and walks with "
      "`walk_page_range_debug()`, but `effective_prot()` and its calls from `mm/ptdump.c` are "
      "unchanged; the table shows what each version does. Debian has no i386 image of 6.12, so "
      "6.12 is measured only with the small kernel.\n")
    w("Small kernels built from Debian's `linux-source-V` with `linux/small-pae.config` and "
      "`linux/small-pae-V.config` (tinyconfig + PAE, page-table isolation, PCI BIOS, "
      "STRICT_KERNEL_RWX, DEBUG_WX, PTDUMP_DEBUGFS, DEBUG_WX_SELFTEST). *unpatched* has only patch "
      "0001 of `linux/patches/V/` (the test option: it plants one W+X vmalloc page when booted "
      "with `debug_wx_selftest`); *patched* has the whole series (0002 is the W+X fix; 0003, NX "
      "on user pages, leaves the kernel's page tables alone: see the user-mode section).\n")
    o.extend(table(meta, boots, cps))
    for v in vs:
        for kind, scen, cmd in BOOTS:
            b = boots[boot_name(v, kind, scen)]
            hole, other = b.wx_pages()
            w(f"\n### {b.name} ({'patched' if kind == 'fixed' else 'unpatched'}, `{cmd or 'default'}`)\n")
            w(f"info tlb: {hole} W+X pages in 640K-1M, {other} elsewhere in the kernel half."
              + (f" `check_wx_pages`: {b.check_wx_pages()}." if b.check_wx_pages() else "") + "\n\n```")
            w("\n".join(b.lines) or "(no boot)")
            w("```")
            if b.ptdump and kind == "base" and scen == "bios":
                w("\n`/sys/kernel/debug/page_tables/kernel` (the patched kernel's is the same: "
                  "it prints each entry's own bits; only the W+X verdict changes):\n\n```")
                w("\n".join(b.ptdump))
                w("```")
    return o
