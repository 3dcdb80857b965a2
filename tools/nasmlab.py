# SPDX-License-Identifier: GPL-2.0-only
"""A lab file in nasm (labs/pti's boot/pti_entry.inc): its macros are what
the student writes. tools/lab.py strips a macro's body to a stub;
tools/labinspect.py refuses, before anything is assembled, a file that
does more than the lab's macros may: an instruction or a name the lab's
interface does not list (`nasm-insn`, `nasm-name`), a nasm directive, a
line outside the macros, a macro the stub does not have. Numbers are
nasm's (0x800, 800h, 2048, 0b1000, 4000q): immediates, or displacements
beside a register, never an address or a jump target by themselves.
The macros the interface names as entry code (`nasm-entry`: they run
before the kernel's data segments are loaded, when ds and es may hold
ring 3's null or bogus selector) address memory only through `ss:` or
esp, as boot/traps.asm does; a strict CPU (Bochs) faults on `[ebx]` with
a null ds where QEMU's TCG does not.

A lab's macro runs on the entry path, where nothing can print: its stub
is `ud2`, an invalid-opcode oops naming the macro's place if it ever runs
(the lab's C stub keeps it from running: labs/pti/strip)."""
import re

MACRO = re.compile(r"^[ \t]*%macro[ \t]+(\w+)[ \t]+(\d+)[^\n]*\n(.*?)^[ \t]*%endmacro[^\n]*$",
                   re.M | re.S)
# a word that starts with a digit is a number or nothing nasm takes
WORD = re.compile(r"%%\w+|%\d+|[A-Za-z_.$?@][\w.$?@#~]*|\d[\w.]*")
NUMBER = re.compile(r"0[xh][0-9a-f_]+|\d[0-9a-f_]*h|0[by][01_]+|[01][01_]*[by]|0[oq][0-7_]+"
                    r"|[0-7][0-7_]*[oq]|0[dt]\d[\d_]*|\d[\d_]*[dt]?", re.I)
MEMORY = re.compile(r"\[([^\]]*)\]")
JUMPS = {"jmp", "call", "loop", "loope", "loopne", "loopz", "loopnz", "jecxz", "jcxz"}
# string instructions: ds:esi and es:edi, whatever the operands say
STRING_INSNS = re.compile(r"(movs|stos|lods|cmps|scas|ins|outs)[bwd]?$")
REGISTERS = set("eax ebx ecx edx esi edi esp ebp ax bx cx dx si di sp bp "
                "al ah bl bh cl ch dl dh cs ds es fs gs ss".split())
SIZES = {"byte", "word", "dword", "qword", "short", "near"}
PREFIXES = {"rep", "repe", "repz", "repne", "repnz"}


class NasmError(Exception):
    pass


def macros(src):
    """{name: (params, body text, start, end)} of src's %macro blocks."""
    return {m.group(1): (int(m.group(2)), m.group(3), m.start(3), m.end(3))
            for m in MACRO.finditer(src)}


def strip_macro(src, name, lab, hint):
    """src with macro name's body replaced by the lab's stub."""
    found = [m for m in MACRO.finditer(src) if m.group(1) == name]
    if not found:
        raise NasmError("no %%macro %s" % name)
    if len(found) > 1:
        raise NasmError("%%macro %s is defined %d times" % (name, len(found)))
    m = found[0]
    stub = "\t; LAB %s: %s\n\tud2\t\t\t; %s is not written yet\n" % (lab, hint, name)
    return src[:m.start(3)] + stub + src[m.end(3):]


def code_lines(text):
    """[(line number, line without its comment, stripped)] of the non-empty lines."""
    out = []
    for n, ln in enumerate(text.splitlines(), 1):
        ln = ln.split(";", 1)[0].strip()
        if ln:
            out.append((n, ln))
    return out


def body_lines(src, name):
    """The code lines of macro name's body (comments and blanks gone, spaces
    squeezed), or None if src has no such macro."""
    m = macros(src).get(name)
    return None if m is None else [" ".join(ln.split()) for _, ln in code_lines(m[1])]


def is_jump(mnemonic):
    return mnemonic in JUMPS or (mnemonic.startswith("j") and mnemonic != "jmp" and
                                 len(mnemonic) <= 5)


def operand_problem(mnemonic, rest, entry):
    """The memory and jump rules on one instruction's operands, or None."""
    for m in MEMORY.finditer(rest):
        inside = m.group(1)
        seg = re.match(r"\s*([a-z]{2})\s*:", inside, re.I)
        seg = seg.group(1).lower() if seg and seg.group(1).lower() in REGISTERS else None
        words = [w.lower() for w in WORD.findall(inside) if w.lower() not in SIZES]
        if seg:
            words.remove(seg)
        regs = [w for w in words if w in REGISTERS or re.fullmatch(r"%\d+", w)]
        if not any(not w[0].isdigit() for w in words):
            return ("addresses memory at a number, `[%s]` (no absolute address: numbers "
                    "only as immediates or beside a register)" % inside.strip())
        if entry and mnemonic != "lea" and seg != "ss" and (seg or "esp" not in regs):
            return ("addresses memory through ds or es, `[%s]`, in entry code (where ds and "
                    "es may be ring 3's: only `ss:` or esp-based operands)" % inside.strip())
    if is_jump(mnemonic):
        outside = MEMORY.sub(" ", rest)
        nums = [w for w in WORD.findall(outside) if w[0].isdigit()]
        if nums:
            return ("jumps to a number, `%s %s` (no jump by number: only to the macro's "
                    "own %%%%labels)" % (mnemonic, rest.strip()))
    if entry and STRING_INSNS.match(mnemonic):
        return ("uses `%s` in entry code, which reads ds:esi or writes es:edi (where ds and "
                "es may be ring 3's: only `ss:` or esp-based operands)" % mnemonic)
    return None


def line_problem(ln, insns, names, params, entry=False):
    """What is wrong with one line of a macro body, or None; entry: the
    macro is entry code (the ss: rule)."""
    if re.fullmatch(r"%%\w+:", ln):
        return None
    if ln.startswith("%"):
        return "has the nasm directive `%s`" % ln.split()[0]
    words = ln.split(None, 1)
    mnemonic, rest = words[0].lower(), words[1] if len(words) > 1 else ""
    if mnemonic in PREFIXES and rest:
        words = rest.split(None, 1)
        mnemonic, rest = words[0].lower(), words[1] if len(words) > 1 else ""
    if mnemonic not in insns and words[0] not in insns:
        return "uses `%s`, which is not an instruction the lab's interface lists" % mnemonic
    for ident in WORD.findall(rest):
        low = ident.lower()
        if ident[0].isdigit():
            if not NUMBER.fullmatch(ident):
                return "has `%s`, which is not a number nasm reads" % ident
            continue
        if ident.startswith("%%") or low in REGISTERS or low in SIZES or ident in names:
            continue
        if re.fullmatch(r"%\d+", ident):
            if int(ident[1:]) > params or ident == "%0":
                return "names `%s`, which its macro does not have" % ident
            continue
        return "names `%s`, which the lab's file may not use" % ident
    return operand_problem(mnemonic, rest, entry)


def file_problem(text, stub_text, insns, names, entry=()):
    """The first thing that the rules refuse in text (a lab .inc), as
    "line N, ..." or None: the stub's macros, with the same parameters,
    and nothing else; their lines only the interface's instructions and
    names (registers, the macros' own labels and parameters, numbers);
    no memory at a number, no jump to one; in the macros named by entry,
    memory through ss: or esp only."""
    want = {n: p for n, (p, *_rest) in macros(stub_text).items()}
    got = macros(text)
    for n, p in want.items():
        if n not in got:
            return "has no %%macro %s (the lab's stub has)" % n
        if got[n][0] != p:
            return "has %%macro %s with %d parameters (the lab's: %d)" % (n, got[n][0], p)
    for n, (p, body, start, _end) in got.items():
        if n not in want:
            return "defines %%macro %s, which the lab's stub does not have" % n
        first = text.count("\n", 0, start)
        for k, ln in code_lines(body):
            why = line_problem(ln, insns, names, p, n in entry)
            if why:
                return "line %d, in %s, %s" % (first + k, n, why)
    # the macros blanked out, their newlines kept: what is left is outside them
    outside = code_lines(MACRO.sub(lambda m: "\n" * m.group(0).count("\n"), text))
    if outside:
        k, ln = outside[0]
        return "line %d, `%s`, is outside the lab's macros" % (k, ln[:60])
    return None
