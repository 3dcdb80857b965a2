#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# NX on user pages, per patch series (linux/patches/V/): the small kernels
# boot ronx's user initramfs with ronx_user=nx (linux/user-run.sh runs
# the few programs below, then leaves spin looping for linux/boot.py to
# walk). Unpatched, vm_get_page_prot() drops _PAGE_NX (bit 63) on 32-bit
# PAE and code on the stack runs; patched, the stack is NX and the call
# faults. KTAP checks and the document's table of what the fix changes.
#
#     python3 linux/user_nx.py --guest-list DIR   writes DIR/RUN.nx
import re
import sys

import user
from user import progs

# stackexec is the demonstration; the others show that the fix keeps
# code running where PROT_EXEC asks for it (a fix that set NX on every
# user page would break them, and spin's text).
KEYS = ("stackexec", "jit", "mmaprwx", "mprotectrwx")
RUNS = [progs.by_key("tests")[k] for k in KEYS]
KINDS = ("base", "fixed")
NX_ACTIVE = "NX (Execute Disable) protection: active"
# spin's pages read from outside: what each kernel must show.
WANT = {"base": {"text": "RO+X", "rodata": "RO+X", "data": "RW+X", "stack": "RW+X"},
        "fixed": {"text": "RO+X", "rodata": "RO+NX", "data": "RW+NX", "stack": "RW+NX"}}


def boot_name(v, kind):
    return f"small-{v}-{kind}-user"


def read(boots_dir, v, kind):
    """One boot: (serial text, ran to the end?, {key: Result}, spin's walk)."""
    name = boot_name(v, kind)
    text, done = user.read_boot(boots_dir, name)
    return text, done, user.parse(text), user.read_walk(boots_dir, name)


def spin_address(text, label):
    """The address spin printed in its segment label (data, stack, ...)."""
    m = re.search(rf"^=== ronx-user: walk spin: .*\b{label} 0x([0-9a-f]+)", text.replace("\r", ""), re.M)
    return int(m.group(1), 16) if m else None


def vma_of(text, addr):
    """spin's /proc/PID/maps line whose range holds addr (None if none does)."""
    for line in re.findall(r"^=== ronx-user: maps (.*)$", text.replace("\r", ""), re.M):
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
        if m and addr is not None and int(m.group(1), 16) <= addr < int(m.group(2), 16):
            return line
    return None


def pte(walk, label):
    m = re.search(r" pte=0x([0-9a-f]+)", walk.get(label, ("", False, ""))[2])
    return int(m.group(1), 16) if m else None


def expect(kind, results, walk):
    """[(ok, description)] for one boot, against what kind ("base" or
    "fixed") must show. Also used on the other kind's boot, where it must
    fail (a test of the tests)."""
    out = []
    for label, want in WANT[kind].items():
        eff, us, _ = walk.get(label, ("not walked", False, ""))
        p = pte(walk, label)
        bit = "not walked" if p is None else f"bit 63 {'set' if p >> 63 else 'clear'}"
        # the PTE's own bit 63, not only the walk's verdict (NX could come from the PDE)
        nx_bit = p is not None and bool(p >> 63) == want.endswith("+NX")
        out.append((us and eff == want and nx_bit, f"spin's {label} PTE from outside: {eff}, "
                    f"US={int(us)}, {bit} (expect {want}, US=1, bit 63 "
                    f"{'set' if want.endswith('+NX') else 'clear'})"))
    r = results.get("stackexec")
    if kind == "base":
        ok = r is not None and r.status == 1 and r.has(r"^stackexec: it ran and returned 42")
        out.append((ok, "stackexec: the code on the stack ran and returned 42 "
                    f"(got {r.ended() if r else 'no run'})"))
    else:
        m = progs.SEGFAULT_LINE.search(r.kernel_line or "") if r else None
        ok = (r is not None and r.signal == "SIGSEGV" and m is not None and m.group(1) == "stackexec"
              and m.group(6) == "15" and not r.has(r"ran and returned"))
        out.append((ok, "stackexec: SIGSEGV, the kernel's line says error 15 (instruction fetch, "
                    f"user, present) (got {r.ended() if r else 'no run'}: {r.kernel_line if r else ''})"))
    return out


def check(kt, boots_dir, meta):
    """All KTAP lines for every series; returns {(v, kind): (text, results, walk)}."""
    readings = {}
    for v in meta.get("SERIES", "").split():
        for kind in KINDS:
            name = boot_name(v, kind)
            text, done, results, walk = read(boots_dir, v, kind)
            readings[(v, kind)] = (text, results, walk)
            kt.add(done, f"{name}: small {v} kernel ({kind}) ran the user programs to the end")
            kt.add(NX_ACTIVE in text, f"{name}: the kernel says '{NX_ACTIVE}'")
            # The VMAs ask for no execute on both kernels: only the PTE differs.
            for label in ("rodata", "data", "stack"):
                line = vma_of(text, spin_address(text, label))
                perm = "r--p" if label == "rodata" else "rw-p"
                kt.add(line is not None and line.split()[1] == perm,
                       f"{name}: spin's /proc/PID/maps: the VMA of its {label} is {perm}, no x "
                       f"({line or 'missing'})")
            stack_nx = walk["stack"][0].endswith("+NX") if "stack" in walk else None
            for run in RUNS:
                r = results.get(run.key)
                if r is None:
                    kt.add(False, f"{name}: {run.key} ran")
                    continue
                for ok, desc, detail in progs.checks(run, r, "linux", stack_nx=stack_nx):
                    kt.add(ok, f"{name}: {desc}" + ("" if ok else f" -- {detail[:200]}"))
            for ok, desc in expect(kind, results, walk):
                kt.add(ok, f"{name}: {'patched' if kind == 'fixed' else 'unpatched'}: {desc}")
        # A test of the tests: each kind's expectations reject the other's boot.
        for kind, other in (("fixed", "base"), ("base", "fixed")):
            _, results, walk = readings[(v, other)]
            rejected = not all(ok for ok, _ in expect(kind, results, walk))
            kt.add(rejected and bool(results),
                   f"small-{v}: the {'patched' if kind == 'fixed' else 'unpatched'} kernel's NX checks "
                   f"reject the {'unpatched' if other == 'base' else 'patched'} kernel's boot")
    return readings


def cell_run(results, key):
    r = results.get(key)
    return progs.verdict(progs.by_key("tests")[key], r, "linux") if r else "not measured"


def cell_pte(walk, label):
    p = pte(walk, label)
    return "not walked" if p is None else f"{walk[label][0]} (`0x{p:x}`)"


def document(readings, meta, debian, ronx):
    """The table of what the fix changes, for the user-mode section.
    debian: ({key: Result}, spin's walk) of Debian's kernel (debian-user)."""
    deb_results, debian_walk = debian
    vs = meta.get("SERIES", "").split()
    cols = [(v, k) for v in vs for k in KINDS]
    o = ["\n### What the NX fix changes (`linux/patches/V/0003`, small kernels)\n",
         "`vm_get_page_prot()` (`arch/x86/mm/pgprot.c`, the same in 6.1 and 6.12) keeps the "
         "protection in an `unsigned long`, 32 bits on i386, while a PAE protection "
         "(`pgprotval_t`) is 64 bits with `_PAGE_NX` at bit 63: the bit is lost for every "
         "user mapping. Patch 0003 of each series keeps the value in `pgprotval_t`. The small "
         "kernels (the W+X section's, *unpatched* with patch 0001 only, *patched* with the whole "
         "series) boot the same user initramfs with `ronx_user=nx`: `linux/user-run.sh` runs "
         "the programs below, then `linux/boot.py` walks spin's pages from outside while it "
         "loops. The checks (`linux/user_nx.py`) want the code on the stack to run and the PTEs "
         "to lack NX unpatched, and SIGSEGV (error 15) and NX patched; each kind's checks "
         "must also reject the other kind's boot.\n",
         "| | Linux " + deb_version(meta) + " (Debian) | "
         + " | ".join(f"Linux {v} {'patched' if k == 'fixed' else 'unpatched'}" for v, k in cols)
         + " | ronx |",
         "|---|---|" + "---|" * len(cols) + "---|"]
    ronx_user = (ronx or {}).get("user") or {}
    ronx_walk = (ronx or {}).get("user_walk") or {}

    def ronx_run(key):
        if key not in ronx_user:
            return "ronx: not measured"
        return progs.verdict(progs.by_key("tests")[key], progs.Result.from_json(ronx_user[key]), "ronx")

    def ronx_pte(label):
        m = re.search(r" pte=0x([0-9a-f]+).*effective=(\S+)", ronx_walk.get(label, ""))
        return f"{m.group(2)} (`0x{int(m.group(1), 16):x}`)" if m else "ronx: not measured"

    for key in KEYS:
        run = progs.by_key("tests")[key]
        row = [f"`{key}`: {run.what}", cell_run(deb_results, key)]
        row += [cell_run(readings.get(c, ("", {}, {}))[1], key) for c in cols]
        o.append("| " + " | ".join(c.replace("|", "\\|") for c in row + [ronx_run(key)]) + " |")
    for label in ("text", "rodata", "data", "stack"):
        row = [f"spin's {label} PTE", cell_pte(debian_walk, label)]
        row += [cell_pte(readings.get(c, ("", {}, {}))[2], label) for c in cols]
        o.append("| " + " | ".join(row + [ronx_pte(label)]) + " |")
    return o


def deb_version(meta):
    return ".".join(meta.get("KVER", "?").split(".")[:2])


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--guest-list":
        progs.guest_list("nx", sys.argv[2], RUNS)
        return 0
    sys.exit("usage: user_nx.py --guest-list DIR")


if __name__ == "__main__":
    sys.exit(main())
