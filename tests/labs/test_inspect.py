# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of tools/labinspect.py, the inspection of a lab's files
before they are linked: small objects made by gcc with the kernel's
flags, one for each kind of refusal, and a clean one that passes."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import labinspect  # noqa: E402
import nasmlab  # noqa: E402

CFLAGS = ["-m32", "-march=i686", "-std=gnu11", "-O2", "-g", "-ffreestanding", "-fno-pic",
          "-fno-pie", "-fno-stack-protector", "-fno-asynchronous-unwind-tables", "-c"]
STUB = """
int helper(int x);
int lab_fn(int x) { (void)x; return 0; }
"""
SOLVED = """
int helper(int x);
static int twice(int x) { return 2 * x; }
int lab_fn(int x) { return twice(helper(x)) + 1; }
"""
IFACE = labinspect.Interface(symbols=["helper"])


def problems(src, iface=IFACE, stub=STUB):
    with tempfile.TemporaryDirectory(prefix="ronx-inspect-test-") as d:
        descs = []
        for name, text in (("stub", stub), ("sub", src)):
            with open(os.path.join(d, name + ".c"), "w") as f:
                f.write(text)
            subprocess.run(["gcc"] + CFLAGS + [os.path.join(d, name + ".c"), "-o",
                                               os.path.join(d, name + ".o")], check=True)
            descs.append(labinspect.describe(os.path.join(d, name + ".o")))
        return labinspect.object_problems(descs[1], descs[0], iface, "demo") + \
            labinspect.code_problems(os.path.join(d, "sub.o"), iface)


def expect_one(src, words, **kw):
    got = problems(src, **kw)
    assert got and all(w in got[0] for w in words), got


def test_clean_file_passes():
    assert problems(SOLVED) == [], problems(SOLVED)


def test_self_test_section_refused():
    expect_one(SOLVED + """
static void fake(void) { }
static const struct { const char *s, *n; void (*fn)(void); } t
    __attribute__((used, section(".ktests"), aligned(4))) = { "smp", "x", fake };
""", ["defines section .ktests (the self-test table: KTEST)"])


def test_shell_command_table_changed_refused():
    table = """
static int cmd(void) { return 0; }
static const void *c[2] __attribute__((used, section(".shell_cmds"))) = { "cmd", cmd };
"""
    assert problems(SOLVED + table, stub=STUB + table) == []
    expect_one(SOLVED + table + """
static int cmd2(void) { return 1; }
static const void *c2[2] __attribute__((used, section(".shell_cmds"))) = { "x", cmd2 };
""", ["changes section .shell_cmds", "shell-command table"], stub=STUB + table)


def test_export_refused():
    expect_one(SOLVED + """
static const char nm[] __attribute__((used, section("__ksymtab_strings"))) = "lab_fn";
""", ["defines section __ksymtab_strings"])


def test_new_global_refused():
    expect_one(SOLVED + "int extra_global(void) { return 3; }\n",
               ["defines the global symbol extra_global", "make it static"])


def test_reference_outside_interface_refused():
    expect_one("""
void kt_fail(void *t, const char *f, int l, const char *fmt, ...);
int lab_fn(int x) { kt_fail(0, "f", 1, "x"); return x; }
""", ["references kt_fail", "outside lab demo's interface"])


def test_inline_asm_call_outside_interface_refused():
    expect_one("""
int lab_fn(int x) { __asm__ volatile("call ktest_run" ::: "memory"); return x; }
""", ["references ktest_run"])


def test_privileged_instruction_refused_unless_listed():
    src = """
int lab_fn(int x) { __asm__ volatile("outb %0, $0xe9" : : "a"((char)x)); return 0; }
"""
    expect_one(src, ["privileged instruction `out %al,$0xe9`", "lab_fn()+0x"])
    assert problems(src, iface=labinspect.Interface(insns=["out"])) == []
    expect_one("int lab_fn(int x) { __asm__ volatile(\"mov %%eax, %%cr3\" : : \"a\"(x)); "
               "return 0; }\n", ["privileged instruction `mov %eax,%cr3`"])
    expect_one("int lab_fn(int x) { __asm__ volatile(\"cli\"); return x; }\n",
               ["privileged instruction `cli"])


def test_hidden_instruction_refused():
    # mov $0x..e9e6, %eax holds "out %al, $0xe9" in its immediate: jumping
    # one byte into it runs the out; a disassembler reading in order never sees it
    expect_one("""
int lab_fn(int x) { __asm__ volatile("jmp 1f + 1\\n1: movl $0x90e9e6, %%eax" ::: "eax");
                    return x; }
""", ["branches into the middle of an instruction"])
    expect_one("""
extern char hidden[];
__asm__(".text\\nhidden: movl $0x90e9e6, %eax\\nret\\n");
void *const entry = hidden + 1;
int lab_fn(int x) { return x; }
""", ["points into the middle of an instruction"], stub=STUB + "void *const entry;\n")


def test_linker_script_only_align_lines_may_differ():
    stub = "SECTIONS {\n .text : {\n  *(.text)\n  /* LAB layout: align */\n }\n}\n"
    good = "SECTIONS {\n .text : {\n  *(.text)\n  . = ALIGN(PAGE_SIZE);\n }\n}\n"
    bad = "SECTIONS {\n .text : {\n  *(.text)\n  . = ALIGN(PAGE_SIZE);\n }\n" \
          " /DISCARD/ : { *(.ktests) }\n}\n"
    # alignment given as the output section's address is alignment too
    good_addr = "SECTIONS {\n .text ALIGN(PAGE_SIZE) : {\n  *(.text)\n }\n}\n"
    # but not any other address
    bad_addr = "SECTIONS {\n .text 0x100000 : {\n  *(.text)\n }\n}\n"
    assert labinspect.ld_problem(good, stub) is None
    assert labinspect.ld_problem(good_addr, stub) is None
    p = labinspect.ld_problem(bad, stub)
    assert p and "line 6" in p and "/DISCARD/" in p, p
    p = labinspect.ld_problem(bad_addr, stub)
    assert p and "line 2" in p and "0x100000" in p, p


def test_includes_by_name_only():
    ok = '#include <stdarg.h>\n#include <ronx/printk.h>\n#include "layout.h"\nint x;\n'
    assert labinspect.source_problem(ok) is None
    for src, words in (
            ('#include "../../../../../mm/tlb.c"\n', ["includes ../../../../../mm/tlb.c"]),
            ("#include </autograder/source/ronx/mm/tlb.c>\n", ["includes /autograder"]),
            ('#define F "../../../mm/tlb.c"\n#include F\n', ["#include F", "by its name"]),
            ('#in\\\nclude "../x.h"\n', ["includes ../x.h"]),
            ('# /* hidden */ include_next "mm.c"\n', ["includes mm.c"]),
            ('__asm__(".incbin \\"x\\"");\n', [".incbin"]),
            ('__asm__(".include \\"../../x.s\\"");\n', [".include"])):
        got = labinspect.source_problem(src)
        assert got and all(w in got for w in words), (src, got)


def test_dependencies_inside_the_tree_only():
    with tempfile.TemporaryDirectory(prefix="ronx-inspect-test-") as d:
        os.makedirs(os.path.join(d, "build", "mm"))
        for deps, bad in (("mm/tlb.c include/ronx/x86.h", None),
                          ("mm/tlb.c include/ronx/x86.h ../../../mm/tlb.c", "../../../mm/tlb.c"),
                          ("mm/tlb.c /etc/hostname.h", "/etc/hostname.h"),
                          ("mm/tlb.c mm/pgd.c", "mm/pgd.c")):
            with open(os.path.join(d, "build", "mm", "tlb.d"), "w") as f:
                f.write("build/mm/tlb.o: %s \\\n include/ronx/smp.h\ninclude/ronx/x86.h:\n"
                        % deps)
            got = labinspect.deps_problem(d, "mm/tlb.c")
            assert (got is None) if bad is None else (got and "includes " + bad in got), \
                (deps, got)


NASM_STUB = """; the lab's macros
%macro SWITCH 2
\t; LAB demo: switch
\tud2
%endmacro
"""
NASM_SOLVED = """; the lab's macros
%macro SWITCH 2
\tmov\t%1, cr3\t\t; a comment may say anything: out, lgdt
\tmov\t%2, %1
\tand\t%2, PTI_USER_BIT
\tjz\t%%done
\tand\t%1, ~PTI_USER_BIT
\tmov\tcr3, %1
%%done:
\trep movsd
\tCOPY_WORDS 3
%endmacro
"""
NASM_INSNS = {"mov", "and", "jz", "movsd", "ud2", "COPY_WORDS"}
NASM_NAMES = {"cr3", "PTI_USER_BIT"}


def nasm_problem(text):
    return nasmlab.file_problem(text, NASM_STUB, NASM_INSNS, NASM_NAMES)


def test_nasm_macros_only_listed_instructions_and_names():
    assert nasm_problem(NASM_SOLVED) is None, nasm_problem(NASM_SOLVED)
    assert nasm_problem(NASM_STUB) is None
    for old, new, words in (
            ("\tmov\tcr3, %1\n", "\tmov\tcr0, %1\n", ["line 8", "`cr0`"]),
            ("\trep movsd\n", "\tout\t0xe9, al\n", ["line 10", "`out`"]),
            ("\trep movsd\n", "\tmov\t[trap_dispatch], eax\n", ["`trap_dispatch`"]),
            ("\trep movsd\n", "\tmov\teax, %3\n", ["`%3`"]),
            ("\trep movsd\n", '%include "mm/tlb.c"\n', ["directive `%include`"]),
            ("\trep movsd\n", "\tjmp\tpti_exit_window\n", ["`jmp`"]),
            ("%endmacro\n", "%endmacro\nsection .ktests\n", ["outside the lab's macros"]),
            ("%endmacro\n", "%endmacro\n%macro EXTRA 0\n%endmacro\n", ["EXTRA"]),
            ("%macro SWITCH 2", "%macro SWITCH 1", ["1 parameters"]),
            ("%macro SWITCH 2", "%macro OTHER 2", ["no %macro SWITCH"])):
        got = nasm_problem(NASM_SOLVED.replace(old, new))
        assert got and all(w in got for w in words), (new, got)


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items())
         if n.startswith("test_") and callable(f)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)
