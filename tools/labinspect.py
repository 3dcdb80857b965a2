# SPDX-License-Identifier: GPL-2.0-only
"""A lab's files inspected before they are linked (issue 21, item 1).

A student's lab file runs in ring 0 with the rest of the kernel: once
linked, it could register self-tests of its own, print what a check
believes, or write the port the grader reads the self-tests from. So the
grader compiles each lab file to an object first and refuses it, with one
line naming the symbol, section or instruction, if the object:

  - has a section other than code, rodata, data and bss (the self-test,
    shell-command and crash tables, boot options, exports, exception
    table...), unless the lab's starting stub has the same one (same size,
    same relocations: cpastat's shell command stays in mm/pageattr.c) or
    the lab's interface lists it (uaccess: __ex_table);
  - defines a global symbol the stub does not define;
  - references a symbol outside the lab's interface (labs/<lab>/interface)
    or the stub's own references;
  - uses a privileged instruction the interface does not list (out, in,
    wrmsr, lgdt, hlt, cli, mov to a control register, invlpg...), or hides
    one: a branch or a pointer into the middle of an instruction, or bytes
    the disassembler cannot decode.

Before any of that, the file's text may include headers by name only
(no absolute path, no `..`, nothing but .h, no `.incbin`), and the
object's dependencies (make's .d file) must all be headers of the tree
being graded: a scratch tree sits inside or beside the teacher's, whose
solved files are one `#include "../../../../../mm/tlb.c"` away.

A linker script (lab layout) is compared with the stub's as text: only
`. = ALIGN(...);` statements and ALIGN(...) section addresses may differ.
A nasm file of macros (lab pti) is read as text before it is assembled
(tools/nasmlab.py): the stub's macros and nothing else, each line an
instruction and names the interface lists.

labs/<lab>/interface, one item a line (# comments):
    insn invlpg cr3 cli popf      privileged instructions the lab may use
    section __ex_table            a section the lab may add entries to
    nasm-insn mov and jz ...      instructions (and macros) a nasm lab file may use
    nasm-name cr3 PAGE_SIZE ...   names beyond registers it may use
    nasm-entry MACRO ...          its macros that are entry code (memory
                                  through ss: or esp only: tools/nasmlab.py)
    NAME NAME ...                 symbols its files may reference
                                  (and always COMPILER_SYMBOLS: gcc's own)

    refused = inspect_lab(lab, tree, ref_root)   {lab file: one-line reason}
    derive_interface(lab, root)                  what the solved files use today
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elf32  # noqa: E402
import nasmlab  # noqa: E402

# what every lab file may have: code, rodata, data, bss (and init text/data)
PLAIN_SECTION = re.compile(r"^\.(text|rodata|data|bss)(\..+)?$|^\.init\.(text|data)$")
# never loaded, or bookkeeping of the object file itself
UNLOADED = re.compile(r"^(\.debug_\w+|\.comment|\.note\.GNU-stack|\.note\.gnu\.property|"
                      r"\.symtab|\.strtab|\.shstrtab|\.group|)$")
# plain by name, special to linker.ld: the boot's entry, laid out first
SPECIAL_PLAIN = {".text.entry"}
WHAT_SECTION = {
    ".ktests": "the self-test table: KTEST",
    ".shell_cmds": "the shell-command table: SHELL_COMMAND",
    ".crashtypes": "the crash table: LKDTM",
    ".boot_params": "the boot-option table",
    "__ksymtab": "the export table: EXPORT_SYMBOL",
    "__ksymtab_strings": "the export table's names: EXPORT_SYMBOL",
    "__ex_table": "the exception table",
    ".init_array": "constructors", ".ctors": "constructors",
    ".multiboot": "the multiboot header", ".text.entry": "the boot's entry code",
}
# privileged (or IF/IOPL-changing) instructions, by the class a lab lists
PRIV = {}
for cls, names in {
        "in": "in inb inw inl ins insb insw insl",
        "out": "out outb outw outl outs outsb outsw outsl",
        "cli": "cli", "sti": "sti", "hlt": "hlt", "popf": "popf popfl popfw",
        "wrmsr": "wrmsr", "rdmsr": "rdmsr", "lgdt": "lgdt lgdtl lgdtw", "lidt": "lidt lidtl lidtw",
        "lldt": "lldt", "ltr": "ltr", "wbinvd": "wbinvd", "invd": "invd", "clts": "clts",
        "lmsw": "lmsw", "invlpg": "invlpg", "invpcid": "invpcid", "stac": "stac", "clac": "clac",
        "iret": "iret iretl iretw iretd", "sysexit": "sysexit", "sysret": "sysret sysretl",
        "xsetbv": "xsetbv", "far": "ljmp ljmpl ljmpw lcall lcalll lcallw lret lretl lretw",
        }.items():
    for n in names.split():
        PRIV[n] = cls
PREFIXES = {"rep", "repz", "repe", "repnz", "repne", "lock", "data16", "addr16", "data32",
            "addr32", "cs", "ds", "es", "fs", "gs", "ss", "notrack", "bnd"}
R_386_32, R_386_PC32 = 1, 2
LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")


class InspectError(Exception):
    pass


# -- the lab's interface -------------------------------------------------------
# What gcc itself puts into a function with an array or a local whose
# address escapes, under the kernel's -fstack-protector-strong (the
# canary's check): any lab file may reference them, the student's own
# code included, whatever the solved one happens to need.
COMPILER_SYMBOLS = frozenset(("__stack_chk_fail", "__stack_chk_guard"))


class Interface:
    def __init__(self, symbols=(), insns=(), sections=()):
        self.symbols, self.insns, self.sections = set(symbols), set(insns), set(sections)
        self.nasm_insns, self.nasm_names = set(), set()     # a nasm lab file's (tools/nasmlab.py)
        self.nasm_entry = set()     # its macros that are entry code: memory through ss: or esp


def read_interface(lab, root):
    path = os.path.join(root, "labs", lab, "interface")
    iface = Interface()
    if not os.path.exists(path):
        return iface
    with open(path) as f:
        for ln in f:
            words = ln.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "insn":
                iface.insns.update(words[1:])
            elif words[0] == "section":
                iface.sections.update(words[1:])
            elif words[0] == "nasm-insn":
                iface.nasm_insns.update(words[1:])
            elif words[0] == "nasm-name":
                iface.nasm_names.update(words[1:])
            elif words[0] == "nasm-entry":
                iface.nasm_entry.update(words[1:])
            else:
                iface.symbols.update(words)
    return iface


# -- compiling ------------------------------------------------------------------
_cmds = {}


def compile_command(root, rel):
    """gcc's command line for a kernel C file as the tree's Makefile
    builds it (one pattern rule for all: make -n asked once per Makefile,
    kept in build/grade/stubs/), without -c, -o and the .d options."""
    with open(os.path.join(root, "Makefile"), "rb") as f:
        key = hashlib.sha1(f.read()).hexdigest()
    if (root, key) in _cmds:
        return list(_cmds[root, key])
    cache = os.path.join(root, "build", "grade", "stubs", "cc-%s.json" % key)
    try:
        with open(cache) as f:
            _cmds[root, key] = json.load(f)
        return list(_cmds[root, key])
    except (OSError, ValueError):
        pass
    obj = "build/%s.o" % os.path.splitext(rel)[0]
    out = subprocess.run(["make", "-n", "-B", "-C", root, "--no-print-directory", obj],
                         capture_output=True, text=True).stdout
    line = next((ln for ln in out.splitlines() if " -c %s " % rel in ln + " "), None)
    if line is None:
        raise InspectError("cannot find how the Makefile compiles %s" % rel)
    cmd, skip = [], False
    for a in shlex.split(line):
        if skip:
            skip = False
        elif a in ("-c", "-o"):
            skip = True
        elif a not in ("-MMD", "-MP"):
            cmd.append(a)
    _cmds[root, key] = cmd
    write_json(cache, cmd)
    return list(cmd)


def write_json(path, obj):
    """obj to path, whole or not at all (grades run side by side)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def compile_text(root, rel, text, obj):
    """Compiles text as if it were root/rel (its includes resolve there);
    returns None or the compiler's complaint."""
    src = obj[:-2] + os.path.splitext(rel)[1]
    with open(src, "w") as f:
        f.write(text)
    cmd = compile_command(root, rel) + [
        "-iquote", os.path.join(root, os.path.dirname(rel)),
        "-I", os.path.join(root, "labs", "scaffold", "include"), "-c", src, "-o", obj]
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stdout + r.stderr)[-800:]


# -- what an object holds ----------------------------------------------------------
def describe(path):
    """The facts of an object the rules look at, as a JSON-able dict."""
    e = elf32.Elf32(path)
    syms = e.symbols()
    defined = sorted({s.name for s in syms if s.name and s.bind in (elf32.STB_GLOBAL,
                                                                     elf32.STB_WEAK)
                      and s.shndx != elf32.SHN_UNDEF})
    undefined = sorted({s.name for s in syms if s.name and s.shndx == elf32.SHN_UNDEF})
    sections = {}
    for s in e.sections:
        if s.index == 0 or s.type in (elf32.SHT_REL, elf32.SHT_SYMTAB, 3):  # 3: STRTAB
            continue
        if UNLOADED.match(s.name):
            continue
        sections[s.name] = [s.size, sorted([off, ty, sym.name] for off, ty, sym in
                                           e.relocations(s))]
    return {"defined": defined, "undefined": undefined, "sections": sections}


def disassemble(path):
    """{section: [(offset, mnemonic, operands)]} of the object's code."""
    out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", path],
                         capture_output=True, text=True).stdout
    code, cur = {}, None
    for ln in out.splitlines():
        m = re.match(r"^Disassembly of section (\S+):", ln)
        if m:
            cur = code.setdefault(m.group(1), [])
            continue
        m = LINE.match(ln)
        if m and cur is not None:
            words = m.group(2).split()
            while len(words) > 1 and words[0] in PREFIXES:
                words = words[1:]
            cur.append((int(m.group(1), 16), words[0] if words else "",
                        " ".join(words[1:])))
    return code


def insn_class(mnemonic, operands):
    if mnemonic in PRIV:
        return PRIV[mnemonic]
    if mnemonic.startswith("mov"):
        m = re.search(r"%(cr\d|dr\d)", operands)
        if m:
            return m.group(1) if m.group(1).startswith("cr") else "dr"
    return None


def where(e, secname, off):
    """"fn+0x12" for an offset of a code section, from the object's symbols."""
    sec = e.section(secname)
    best = None
    for s in e.symbols():
        if sec is not None and s.shndx == sec.index and s.type == 2 and s.value <= off:
            if best is None or s.value > best.value:
                best = s
    if best is None:
        return "%s+0x%x" % (secname, off)
    return "%s()+0x%x" % (best.name, off - best.value) if off != best.value else best.name + "()"


def code_problems(path, iface):
    """Privileged instructions the interface does not list, and
    instructions hidden inside others (a branch or a pointer into the
    middle of one, bytes objdump cannot decode)."""
    e = elf32.Elf32(path)
    code = disassemble(path)
    starts = {sec: {off for off, _, _ in insns} for sec, insns in code.items()}
    problems = []
    for sec, insns in code.items():
        s = e.section(sec)
        relocs = sorted(off for off, _, _ in e.relocations(s)) if s is not None else []
        for i, (off, mn, ops) in enumerate(insns):
            cls = insn_class(mn, ops)
            if mn == "(bad)":
                problems.append("has bytes in %s that are no instruction, at %s"
                                % (sec, where(e, sec, off)))
            elif cls and cls not in iface.insns:
                problems.append("uses the privileged instruction `%s %s` at %s, which this lab "
                                "has no business with" % (mn, ops, where(e, sec, off)))
            end = insns[i + 1][0] if i + 1 < len(insns) else (s.size if s else off + 16)
            m = re.match(r"^([0-9a-f]+)\b", ops)
            if m and (mn.startswith("j") or mn.startswith("call") or mn.startswith("loop")) \
                    and not any(off <= r < end for r in relocs):
                target = int(m.group(1), 16)
                if target not in starts[sec]:
                    problems.append("branches into the middle of an instruction at %s (%s)"
                                    % (where(e, sec, target), sec))
    # pointers into code (jump tables, exception tables, function pointers)
    for s in e.sections:
        if s.type == elf32.SHT_NOBITS or not s.size or UNLOADED.match(s.name):
            continue    # (the debug information's addresses are never run)
        data = e.data(s)
        rel_ends = starts.get(s.name, set())
        for off, ty, sym in e.relocations(s):
            if sym.shndx in (elf32.SHN_UNDEF, elf32.SHN_COMMON) or \
                    sym.shndx >= len(e.sections):
                continue
            target_sec = e.sections[sym.shndx].name
            if target_sec not in code or ty not in (R_386_32, R_386_PC32):
                continue
            addend = int.from_bytes(data[off:off + 4], "little", signed=True)
            if ty == R_386_32:
                target = sym.value + addend
            elif off + 4 in rel_ends:   # the rel32 of a call or jmp
                target = sym.value + addend + 4
            else:
                continue
            if target not in starts[target_sec] and target != e.sections[sym.shndx].size:
                problems.append("points into the middle of an instruction at %s (from %s)"
                                % (where(e, target_sec, target), s.name))
    return problems


def object_problems(desc, stub, iface, lab):
    """What the rules refuse in an object described by desc (describe()),
    against its stub's description; [] if nothing."""
    problems = []
    for name, fp in sorted(desc["sections"].items()):
        plain = PLAIN_SECTION.match(name) and name not in SPECIAL_PLAIN
        if plain or name in iface.sections:
            continue
        what = WHAT_SECTION.get(name, "a section that is not code, rodata, data or bss")
        if name not in stub["sections"]:
            problems.append("defines section %s (%s), which the lab's stub does not have"
                            % (name, what))
        elif fp != stub["sections"][name]:
            problems.append("changes section %s (%s): %d bytes, %d relocations where the lab's "
                            "stub has %d and %d" % (name, what, fp[0], len(fp[1]),
                                                   stub["sections"][name][0],
                                                   len(stub["sections"][name][1])))
    for name in desc["defined"]:
        if name not in stub["defined"]:
            problems.append("defines the global symbol %s, which the lab's stub does not "
                            "(make it static)" % name)
    allowed = iface.symbols | COMPILER_SYMBOLS | set(stub["undefined"]) | set(stub["defined"])
    for name in desc["undefined"]:
        if name not in allowed:
            problems.append("references %s, which is outside lab %s's interface "
                            "(labs/%s/interface)" % (name, lab, lab))
    return problems


# -- what a lab file includes ---------------------------------------------------------
# A submission's file is compiled in a scratch tree inside the teacher's
# (build/grade/work/NAME) or beside it (Gradescope's /autograder/source):
# `#include "../../../../../mm/tlb.c"` would compile the teacher's solved
# file. So a lab file includes headers by name only, and its object's
# dependencies (make's .d file) are all headers of the tree being graded.
INCLUDE = re.compile(r"^[ \t]*#[ \t]*(include|include_next|import|embed)\b[ \t]*(.*)$", re.M)


def source_problem(text):
    """Why the lab file's text may not be compiled at all (it includes
    something other than a header by name, or pulls a file in with
    .incbin), or None."""
    t = text.replace("\\\n", "")      # backslash-newline splices first, as cpp does
    t = re.sub(r"/\*.*?\*/", " ", t, flags=re.S)
    t = re.sub(r"//[^\n]*", "", t)
    for m in INCLUDE.finditer(t):
        lit = re.match(r'^(?:"([^"]*)"|<([^>]*)>)', m.group(2).strip())
        if not lit:
            return "#%s %s: a header is included by its name, as \"x.h\" or <x.h>" % (
                m.group(1), m.group(2).strip()[:60])
        path = lit.group(1) if lit.group(1) is not None else lit.group(2)
        if path.startswith("/") or ".." in path.split("/") or not path.endswith(".h"):
            return ("includes %s: a lab file includes headers of the tree by name (no absolute "
                    "path, no .., nothing but .h)" % path[:80])
    m = re.search(r"\.(incbin|include)\b", t)
    if m:
        return "uses the assembler's .%s, which pulls a file into the object" % m.group(1)
    return None


def deps_problem(tree, rel):
    """Why the object's dependencies (build/<rel>.d, as gcc -MMD wrote
    them) reach past the tree's headers, or None."""
    dfile = os.path.splitext(object_path(tree, rel))[0] + ".d"
    try:
        with open(dfile) as f:
            first = f.read().replace("\\\n", " ").split("\n", 1)[0]
    except OSError:
        return None
    top = os.path.realpath(tree) + os.sep
    for dep in first.partition(":")[2].split():
        if dep == rel:
            continue
        real = os.path.realpath(os.path.join(tree, dep))
        if not real.startswith(top) or not real.endswith(".h") or \
                real.startswith(os.path.join(top, "build") + os.sep):
            return "includes %s, which is not a header of the tree being graded" % dep[:100]
    return None


# -- linker scripts -----------------------------------------------------------------
ALIGN_STMT = re.compile(r"^\.\s*=\s*ALIGN\s*\([^;]*\)$")
# an output section's address given as ALIGN(...): `.data ALIGN(PAGE_SIZE) : ...`
SECTION_ALIGN = re.compile(r"^(\.\S+)\s+ALIGN\s*\([^)]*\)\s*:")


def ld_statements(text):
    """The script's statements without comments, whitespace,
    `. = ALIGN(...)` assignments and output-section addresses given as
    ALIGN(...) (a student may place alignment either way): [(line, statement)]."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out = []
    for n, ln in enumerate(text.splitlines(), 1):
        for part in re.split(r"(?<=[;{}])", ln):
            st = " ".join(part.split())
            st = SECTION_ALIGN.sub(r"\1 :", st)
            st_core = st.rstrip(";").strip()
            if st and not ALIGN_STMT.match(st_core):
                out.append((n, st))
    return out


def ld_problem(text, stub_text):
    got, want = ld_statements(text), ld_statements(stub_text)
    for i, (n, st) in enumerate(got):
        if i >= len(want) or st != want[i][1]:
            return ("line %d, `%s`, differs from the lab's linker script (only `. = ALIGN(...);` "
                    "lines and ALIGN(...) section addresses may)" % (n, st[:80]))
    if len(want) > len(got):
        return "ends before `%s`: the lab's linker script goes on" % want[len(got)][1][:80]
    return None


# -- one lab ---------------------------------------------------------------------------
_headers = {}


def headers_digest(root, cmd, rel):
    """A digest of the headers a kernel file can include (the -I folders
    of its compile command and its own folder): what a stub's object
    references depends on them too (an inline function that calls out),
    so a cached description holds for these headers only."""
    dirs = sorted({a[2:] for a in cmd if a.startswith("-I")} | {os.path.dirname(rel)})
    key = (root, tuple(dirs))
    if key not in _headers:
        h = hashlib.sha1()
        for top in dirs:
            for d, sub, files in sorted(os.walk(os.path.join(root, top))):
                sub.sort()
                for n in sorted(f for f in files if f.endswith(".h")):
                    with open(os.path.join(d, n), "rb") as f:
                        h.update(os.path.relpath(os.path.join(d, n), root).encode() + b"\0" +
                                 f.read() + b"\0")
        _headers[key] = h.hexdigest()
    return _headers[key]


def stub_description(ref_root, rel, stub_text, tmp):
    """describe() of the stub's object, cached in ref_root/build/grade/stubs/
    (keyed by its compile command, its text and the tree's headers)."""
    cmd = compile_command(ref_root, rel)
    key = hashlib.sha1(("\0".join(cmd) + "\0" + rel + "\0" + stub_text + "\0" +
                        headers_digest(ref_root, cmd, rel)).encode()).hexdigest()
    cache = os.path.join(ref_root, "build", "grade", "stubs", key + ".json")
    try:
        with open(cache) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    obj = os.path.join(tmp, "stub-" + rel.replace("/", "_")[:-2] + ".o")
    err = compile_text(ref_root, rel, stub_text, obj)
    if err:
        raise InspectError("the lab's stub of %s does not compile:\n%s" % (rel, err))
    desc = describe(obj)
    write_json(cache, desc)
    return desc


def inspect_file(lab, tree, rel, stub_text, ref_root, iface, tmp):
    """The first problem of tree/rel as one line (with how many more), or None."""
    path = os.path.join(tree, rel)
    if rel.endswith(".ld"):
        with open(path) as f:
            p = ld_problem(f.read(), stub_text)
        return p and "%s: refused before linking: %s" % (rel, p)
    if rel.endswith(".inc"):
        with open(path, errors="replace") as f:
            p = nasmlab.file_problem(f.read(), stub_text, iface.nasm_insns, iface.nasm_names,
                                     iface.nasm_entry)
        return p and "%s: refused before assembling: %s" % (rel, p)
    if not rel.endswith(".c"):
        return None
    with open(path, errors="replace") as f:
        early = source_problem(f.read())
    if early:
        return "%s: refused before compiling: it %s" % (rel, early)
    obj = object_path(tree, rel)
    if not os.path.exists(obj) or os.path.getmtime(obj) < os.path.getmtime(path):
        return None     # it did not compile: the build says why, with the compiler's message
    stub = stub_description(ref_root, rel, stub_text, tmp)
    problems = [p for p in [deps_problem(tree, rel)] if p] + \
        object_problems(describe(obj), stub, iface, lab) + code_problems(obj, iface)
    if not problems:
        return None
    more = " (and %d more)" % (len(problems) - 1) if len(problems) > 1 else ""
    return "%s: refused before linking: it %s%s" % (rel, problems[0], more)


def object_path(tree, rel):
    return os.path.join(tree, "build", os.path.splitext(rel)[0] + ".o")


def inspect_lab(lab, tree, ref_root, stubs):
    """{lab file: reason} for the lab files of tree that the rules refuse;
    stubs: {lab file: the stub's text} (tools/lab.py makes them). The
    objects are made by the tree's Makefile, all in one make."""
    iface = read_interface(lab, ref_root)
    objs = []
    for rel in sorted(stubs):
        if rel.endswith(".c"):
            with open(os.path.join(tree, rel), errors="replace") as f:
                if source_problem(f.read()) is None:    # never compiled otherwise
                    objs.append(os.path.relpath(object_path(tree, rel), tree))
    if objs:
        subprocess.run(["make", "-k", "-C", tree, "--no-print-directory"] + objs,
                       capture_output=True)
    refused = {}
    with tempfile.TemporaryDirectory(prefix="ronx-inspect-") as tmp:
        for rel in sorted(stubs):
            why = inspect_file(lab, tree, rel, stubs[rel], ref_root, iface, tmp)
            if why:
                refused[rel] = why
    return refused


def derive_interface(lab, root, files):
    """(symbols, insns) the solved files use today: the start of a lab's
    interface file (the hints may name more)."""
    syms, insns = set(), set()
    for rel in files:
        if not rel.endswith(".c"):
            continue
        obj = os.path.join(root, "build", os.path.splitext(rel)[0] + ".o")
        subprocess.run(["make", "-C", root, "--no-print-directory",
                        os.path.relpath(obj, root)], capture_output=True, check=True)
        syms.update(describe(obj)["undefined"])
        for insns_ in disassemble(obj).values():
            for _, mn, ops in insns_:
                c = insn_class(mn, ops)
                if c:
                    insns.add(c)
    return sorted(syms), sorted(insns)
