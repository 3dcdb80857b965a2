# SPDX-License-Identifier: GPL-2.0-only
# ronx's user programs on Debian's Linux (linux/user-run.sh in the guest):
# read each run back from the serial log, check it as tests/user/progs.py
# says (the same checks ronx's run gets, with Linux's W^X policy), and
# write the user-mode table of docs/linux-vs-ronx.md.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "user"))
import progs  # noqa: E402

# boot name -> (label for the table, the command line it adds, PTI on?)
BOOTS = [("debian-user", "default: page-table isolation on", "", True),
         ("debian-user-nopti", "pti=off mitigations=off", "pti=off mitigations=off", False)]
RUN = re.compile(r"^=== ronx-user: run (\S+): [^\n]*\n(.*?)^=== ronx-user: status \S+ (\d+)\n"
                 r"((?:=== ronx-user: dmesg [^\n]*\n)*)", re.M | re.S)


def parse(text):
    """{key: progs.Result} from one guest's serial log."""
    text = text.replace("\r", "")
    out = {}
    for m in RUN.finditer(text):
        dmesg = [l[len("=== ronx-user: dmesg "):] for l in m.group(4).splitlines()]
        seg = [l for l in dmesg if progs.SEGFAULT_LINE.search(l) or progs.TRAPS_LINE.search(l)]
        out[m.group(1)] = progs.Result.from_shell_status(m.group(2), int(m.group(3)),
                                                          seg[0] if seg else None)
    return out


def boot_lines(text):
    return re.findall(r"^=== ronx-user: boot (.*)$", text.replace("\r", ""), re.M)


def read_walk(boots_dir, name):
    """spin's pages read from outside: {label: (effective, user bit, raw line)}."""
    path = os.path.join(boots_dir, name + ".walk.txt")
    out = {}
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"(text|rodata|data|stack) (0x[0-9a-f]+) .* pte=0x([0-9a-f]+).*effective=(\S+)",
                         line)
            if m:
                out[m.group(1)] = (m.group(4), bool(int(m.group(3), 16) & 4), line.strip())
    return out


def read_boot(boots_dir, name):
    path = os.path.join(boots_dir, name + ".serial.log")
    text = open(path, errors="replace").read() if os.path.exists(path) else ""
    return text, "=== ronx-user: done" in text


def check(kt, boots_dir):
    """KTAP lines for every run in both boots; returns ({boot: {key: result}},
    {boot: spin's pages})."""
    readings, walks = {}, {}
    for name, label, _, pti in BOOTS:
        text, done = read_boot(boots_dir, name)
        kt.add(done, f"{name} ({label}): the user programs ran to the end")
        said = " ".join(boot_lines(text))
        kt.add(("enabled" in said) == pti,
               f"{name}: page-table isolation {'on' if pti else 'off'} ({said or 'no boot line'})")
        results = parse(text)
        readings[name] = results
        w = walks[name] = read_walk(boots_dir, name)
        # spin's pages from QEMU while it runs: user pages (US=1), text
        # read-only and executable, data and stack writable.
        want = {"text": "RO+X", "rodata": "RO", "data": "RW", "stack": "RW"}
        for label, perm in want.items():
            eff, user, line = w.get(label, ("not walked", False, ""))
            kt.add(user and eff.startswith(perm),
                   f"{name}: spin's {label} page from outside: {eff}, US={int(user)} "
                   f"(wanted {perm}..., US=1) [{line}]")
        stack_nx = w["stack"][0].endswith("+NX") if "stack" in w else None
        for run in progs.TESTS:
            r = results.get(run.key)
            if r is None:
                kt.add(False, f"{name}: {run.key} ran")
                continue
            for ok, desc, detail in progs.checks(run, r, "linux", stack_nx=stack_nx):
                kt.add(ok, f"{name}: {desc}" + ("" if ok else f" -- {detail[:200]}"))
        # a test of the tests: where Linux let code on the stack run, the
        # checks ronx's run must pass reject Linux's
        r = results.get("stackexec")
        if r and r.has(r"returned 42"):
            run = progs.by_key("tests")["stackexec"]
            kt.add(not all(ok for ok, _, _ in progs.checks(run, r, "ronx")),
                   f"{name}: ronx's stackexec checks reject this run (the code on the stack ran)")
    return readings, walks


def to_json(readings):
    return {name: {k: r.to_json() for k, r in res.items()} for name, res in readings.items()}


def document(readings, walks, ronx, meta, boots_dir=None, nx_table=()):
    """The user-mode section of docs/linux-vs-ronx.md; nx_table: the lines
    of linux/user_nx.py's table (the small kernels, without and with the
    NX fix), after the note on NX."""
    deb = ".".join(meta.get("KVER", "?").split(".")[:2])
    ronx_user = (ronx or {}).get("user")
    o = ["\n## User mode: the same binaries on both kernels\n",
         "The programs of ronx's `bin/` (built from `user/`, static i386 ELF speaking Linux's "
         "`int $0x80` ABI), copied unchanged into the Linux guest's initramfs and run there by "
         "`linux/user-run.sh` under busybox sh (`$?` 139 is SIGSEGV); the kernel's segfault line "
         "comes from `dmesg`. Each cell is what that run did, read from the run's output; the "
         "checks behind them are `tests/user/progs.py`'s and land in `build/results/linux.ktap`. "
         f"Linux {deb} booted twice: its default command line (page-table isolation on) and "
         "`pti=off mitigations=off`. The segfault's error code is Linux's hex: bit 0 the page "
         "was present, 1 a write, 2 from user mode, 4 an instruction fetch. ronx's column: the "
         "same files run with ronx's shell `run` (`tests/qemu/test_ronx_checks_user.py`, part of "
         "`make ronx-checks`), checked with ronx's W^X policy.\n"]
    if ronx_user is None:
        o.append("**ronx: not measured** — `build/results/ronx-checks.json` has no user-program "
                 "readings (ronx's kernel side does not run programs yet in this tree).\n")
    o.append(f"| program | what it tries | Linux {deb} | Linux {deb}, pti=off mitigations=off "
             "| ronx | differs |")
    o.append("|---|---|---|---|---|---|")
    for run in progs.TESTS:
        cells = []
        for name, _, _, _ in BOOTS:
            r = readings.get(name, {}).get(run.key)
            cells.append(progs.verdict(run, r, "linux") if r else "not measured")
        if ronx_user is not None and run.key in ronx_user:
            rv = progs.verdict(run, progs.Result.from_json(ronx_user[run.key]), "ronx")
        else:
            rv = "ronx: not measured"
        differs = "" if "not measured" in (rv, cells[1]) or rv == "ronx: not measured" else \
            ("yes" if _kind(rv) != _kind(cells[1]) else "")
        args = "linux|ronx" if run.name == "usertest" else " ".join(run.argv("linux"))
        row = [f"`{run.name}{' ' + args if args else ''}`", run.what or "—", *cells, rv, differs]
        # a | inside a cell, even in backquotes, would end the cell
        o.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    for name, label, _, _ in BOOTS:
        w = walks.get(name, {})
        if w:
            o.append(f"\n### spin's pages read from outside ({name}: {label})\n")
            o.append("While spin loops, `linux/boot.py` stops the guest in spin's code and walks "
                     "the PAE tables of its CR3 with `xp` (PDPTE, PDE, PTE; effective = RW only if "
                     "every level allows it, NX if any level sets it):\n\n```")
            o.extend(w[k][2] for k in ("text", "rodata", "data", "stack") if k in w)
            o.append("```")
    rw = (ronx or {}).get("user_walk")
    if rw:
        o.append("\n### spin's pages read from outside (ronx)\n")
        o.append("The same walk on ronx (`tests/qemu/test_ronx_checks_user.py`: CR3 from `ps`, "
                 "`xp` through QEMU's monitor):\n\n```")
        o.extend(rw[k] for k in ("text", "rodata", "data", "stack") if k in rw)
        o.append("```")
    if any(not w.get("stack", ("+NX",))[0].endswith("+NX") for w in walks.values()):
        o.append(NX_NOTE)
        text, _ = read_boot(boots_dir, BOOTS[0][0]) if boots_dir else ("", False)
        maps = re.findall(r"^=== ronx-user: maps (.*)$", text.replace("\r", ""), re.M)
        if maps:
            o.append("```")
            o.extend(maps)
            o.append("```")
    o.extend(nx_table)
    r = readings.get("debian-user", {})
    lines = [r[k].kernel_line for k in progs.DEMO_BEFORE if k in r and r[k].kernel_line]
    if lines:
        o.append("\n### Linux's segfault lines (default command line)\n\n```")
        o.extend(lines)
        o.append("```")
    ut = r.get("usertest")
    if ut:
        o.append("\n### usertest on Linux (default command line)\n\n```")
        o.extend(l for l in ut.output.splitlines()
                 if re.search(r"# (linux|ronx) only$", l) or l.startswith("# usertest"))
        o.append("```")
    return o


NX_NOTE = """
**No NX on Linux's user pages.** Debian's 686-pae kernel (Linux 6.1) maps user pages without
NX: the PTEs above that should be NX have bit 63 clear, and stackexec's code on the stack
runs, while the VMAs say no execute (`/proc/PID/maps` of spin, below). The bit is lost
between the VMA and the PTE: `vm_get_page_prot()` in `arch/x86/mm/pgprot.c` (the same code in
`linux-source-6.1` and `linux-source-6.12`) computes the protection in an `unsigned long val`,
32 bits on i386, while a PAE protection is 64 bits with `_PAGE_NX` at bit 63. It has been so
since the x86 `vm_get_page_prot()` was added in v5.19 (commit e10cd4b00904, "x86/mm: enable
ARCH_HAS_VM_GET_PAGE_PROT"). Patch 0003 of `linux/patches/6.1/` and `linux/patches/6.12/` fixes
it; the table "What the NX fix changes" below shows the small kernels without and with it.
ronx's policy is RW+NX for data, heap and stack.
"""


def _kind(cell):
    """The gist of a cell for the 'differs' column: the signal, or allowed/refused."""
    for word in ("SIGSEGV", "refused", "allowed", "did not run"):
        if word in cell:
            return word
    if "SIGKILL" in cell or "SIGINT" in cell:
        return "killed"  # by timeout's SIGKILL on Linux, by Ctrl-C on ronx
    m = re.match(r"(SIG[A-Z]+)", cell)
    return m.group(1) if m else "exit"
