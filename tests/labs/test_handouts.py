# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of the handouts (docs/labs/*.md): every code suggestion
builds as written.

A handout marks the code it suggests writing as a fenced block whose info
string is `nasm suggestion` or `c suggestion` (docs/labs/README.md):

- nasm: lines of a lab macro's body. They are put in a macro of their
  own after boot/traps.asm's constants and macros (all of traps.asm before
  its %include of the lab's file), which is then used once; the file must
  pass both of the Makefile's nasm passes (-M, the dependency pass, is the
  stricter: it cannot read an equ in a %rep), and each line the lab's
  inspection (tools/nasmlab.py, with labs/LAB/interface) when the lab has
  a nasm file.
- c: a whole file (its own #includes), which must compile with the
  kernel's flags.

Inline code (`like this`) names things; it is not tested."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import labinspect  # noqa: E402
import nasmlab  # noqa: E402

DOCS = os.path.join(ROOT, "docs", "labs")
FENCE = re.compile(r"^```[ \t]*(nasm|c)[ \t]+suggestion[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
CFLAGS = ["-m32", "-march=i686", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror",
          "-ffreestanding", "-fno-pic", "-fno-pie",
          "-fstack-protector-strong", "-mstack-protector-guard=global",   # the kernel's, as the Makefile's
          "-fno-strict-aliasing", "-mno-sse", "-mno-mmx", "-mno-80387",
          "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "modload")]


def suggestions(text):
    """[(language, code, line number of its first line)] of text's marked blocks."""
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start(2)) + 1)
            for m in FENCE.finditer(text)]


def handouts():
    return sorted(os.path.join(DOCS, n) for n in os.listdir(DOCS) if n.endswith(".md"))


def traps_prelude():
    """boot/traps.asm up to its %include of the lab's file: the constants
    and macros a lab macro may use."""
    with open(os.path.join(ROOT, "boot", "traps.asm")) as f:
        text = f.read()
    return text[:text.index('%include "boot/pti_entry.inc"')]


def nasm_problem(code, lab):
    """None if the suggestion assembles (both passes) and passes lab's
    inspection; else why not."""
    iface = labinspect.read_interface(lab, ROOT)
    if iface.nasm_insns:
        for k, ln in nasmlab.code_lines(code):
            why = nasmlab.line_problem(ln, iface.nasm_insns, iface.nasm_names, 0)
            if why:
                return "line %d of the block %s" % (k, why)
    src = traps_prelude() + "section .text\n%macro SUGGESTION 0\n" + code + \
        "%endmacro\n\tSUGGESTION\n"
    with tempfile.TemporaryDirectory(prefix="ronx-handout-") as d:
        path = os.path.join(d, "suggestion.asm")
        with open(path, "w") as f:
            f.write(src)
        for cmd in (["nasm", "-f", "elf32", "-M", "-MT", "x", "-MP", path],
                    ["nasm", "-f", "elf32", path, "-o", os.path.join(d, "s.o")]):
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            if r.returncode:
                return "`%s` fails: %s" % (" ".join(cmd[:4]), r.stderr.strip()[:400])
    return None


def c_problem(code):
    with tempfile.TemporaryDirectory(prefix="ronx-handout-") as d:
        path = os.path.join(d, "suggestion.c")
        with open(path, "w") as f:
            f.write(code)
        r = subprocess.run(["gcc"] + CFLAGS + ["-c", path, "-o", os.path.join(d, "s.o")],
                           capture_output=True, text=True, cwd=ROOT)
        return r.returncode and "gcc fails: " + r.stderr.strip()[:400] or None


def test_every_suggestion_builds():
    problems, found = [], 0
    for path in handouts():
        with open(path) as f:
            text = f.read()
        lab = os.path.splitext(os.path.basename(path))[0]
        for lang, code, line in suggestions(text):
            found += 1
            why = nasm_problem(code, lab) if lang == "nasm" else c_problem(code)
            if why:
                problems.append("%s:%d: %s" % (os.path.relpath(path, ROOT), line, why))
    assert not problems, "\n".join(problems)
    assert found, "no handout has a marked suggestion"


def test_a_broken_suggestion_is_found():
    # what pti.md suggested when FRAME_WORDS was an equ, and a C slip
    assert nasm_problem("\tCOPY_WORDS FRAME_WORDS\n", "pti") is None
    assert "fails" in (nasm_problem("\tCOPY_WORDS FRAME_WORDS + NOT_DEFINED\n", "none") or "")
    assert "`out`" in (nasm_problem("\tout\t0xe9, al\n", "pti") or "")
    assert c_problem("#include <ronx/pti.h>\nint f(void) { return 0; }\n") is None
    assert "gcc fails" in (c_problem("int f(void) { return x; }\n") or "")
    text = "a\n```nasm suggestion\n\tnop\n```\nb\n```c\nnot marked\n```\n"
    assert suggestions(text) == [("nasm", "\tnop\n", 3)], suggestions(text)


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items())
         if n.startswith("test_") and callable(f)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)
