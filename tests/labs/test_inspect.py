# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of tools/labinspect.py, the inspection of a lab's files
before they are linked: small objects made by gcc with the kernel's
flags, one for each kind of refusal, and a clean one that passes."""
import os
import shutil
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


def problems(src, iface=IFACE, stub=STUB, cflags=CFLAGS):
    with tempfile.TemporaryDirectory(prefix="ronx-inspect-test-") as d:
        descs = []
        for name, text in (("stub", stub), ("sub", src)):
            with open(os.path.join(d, name + ".c"), "w") as f:
                f.write(text)
            subprocess.run(["gcc"] + cflags + [os.path.join(d, name + ".c"), "-o",
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


def test_stack_protector_check_allowed():
    """The kernel's -fstack-protector-strong puts __stack_chk_guard and
    __stack_chk_fail into a student's function with an array: no lab lists
    them, none may refuse them; any other outside name still is."""
    flags = [f for f in CFLAGS if f != "-fno-stack-protector"] + \
        ["-fstack-protector-strong", "-mstack-protector-guard=global"]
    src = """
int helper(int x);
int lab_fn(int x) { volatile char buf[16]; buf[x & 15] = 1; return helper(buf[3]); }
"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.c")
        with open(path, "w") as f:
            f.write(src)
        subprocess.run(["gcc"] + flags + [path, "-o", path + ".o"], check=True)
        used = labinspect.describe(path + ".o")["undefined"]
    assert "__stack_chk_fail" in used and "__stack_chk_guard" in used, used
    assert problems(src, cflags=flags) == [], problems(src, cflags=flags)
    expect_one(src.replace("helper(buf[3])", "helper(buf[3]) + (int)&kt_fail").replace(
        "int helper(int x);", "int helper(int x); extern char kt_fail;"), ["references kt_fail"],
        cflags=flags)


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


# a made-up lab of two macros (not any lab's answer): DEMO, and ENTER, which
# is entry code (the interface's nasm-entry: memory through ss: or esp only)
NASM_STUB = """; the lab's macros
%macro DEMO 2
\t; LAB demo: demo
\tud2
%endmacro
%macro ENTER 0
\t; LAB demo: enter
\tud2
%endmacro
"""
NASM_SOLVED = """; the lab's macros
%macro DEMO 2
\tmov\t%2, cr3\t\t; a comment may say anything: out, lgdt, [0xc0100000]
\tor\t%2, DEMO_BIT
\tmov\t%1, [%2 + 0x800]
\tjnz\t%%out
\tmov\tcr3, %2
%%out:
\tmov\t[fs:DEMO_BIT], %1
\trep movsd
\tCOPY_WORDS 3
%endmacro
%macro ENTER 0
\tpush\teax
\ttest\tdword [ss:esp + 24], 0x800
\tmov\teax, [esp + 10h]
\tsub\teax, 0b1000 + 2048 + 17q
\tmov\teax, [ss:eax + DEMO_BIT]
\tlea\teax, [eax + 4 * 2]
\tpop\teax
%endmacro
"""
NASM_INSNS = {"mov", "or", "sub", "lea", "push", "pop", "test", "jnz", "jmp", "movsd", "ud2",
              "COPY_WORDS"}
NASM_NAMES = {"cr3", "DEMO_BIT"}
NASM_ENTRY = {"ENTER"}


def nasm_problem(text):
    return nasmlab.file_problem(text, NASM_STUB, NASM_INSNS, NASM_NAMES, NASM_ENTRY)


def expect_nasm(cases):
    for old, new, words in cases:
        assert old in NASM_SOLVED, old
        got = nasm_problem(NASM_SOLVED.replace(old, new))
        assert got and all(w in got for w in words), (new, got)
        assert got.count("\n") == 0, got


def test_nasm_macros_only_listed_instructions_and_names():
    assert nasm_problem(NASM_SOLVED) is None, nasm_problem(NASM_SOLVED)
    assert nasm_problem(NASM_STUB) is None
    expect_nasm((
        ("\tmov\tcr3, %2\n", "\tmov\tcr0, %2\n", ["line 7", "`cr0`"]),
        ("\trep movsd\n", "\tout\t0xe9, al\n", ["line 10", "`out`"]),
        ("\trep movsd\n", "\tmov\t[trap_dispatch], eax\n", ["`trap_dispatch`"]),
        ("\trep movsd\n", "\tmov\teax, %3\n", ["`%3`"]),
        ("\trep movsd\n", '%include "mm/tlb.c"\n', ["directive `%include`"]),
        ("\trep movsd\n", "\tjmp\tpti_exit_window\n", ["`pti_exit_window`"]),
        ("%endmacro\n%macro ENTER", "%endmacro\nsection .ktests\n%macro ENTER",
         ["outside the lab's macros"]),
        ("%endmacro\n%macro ENTER", "%endmacro\n%macro EXTRA 0\n%endmacro\n%macro ENTER",
         ["EXTRA"]),
        ("%macro DEMO 2", "%macro DEMO 1", ["1 parameters"]),
        ("%macro DEMO 2", "%macro OTHER 2", ["no %macro DEMO"]),
        # a name is never a number, even one made of hex digits
        ("\tCOPY_WORDS 3\n", "\tCOPY_WORDS face\n", ["`face`"]),
        ("\tCOPY_WORDS 3\n", "\tCOPY_WORDS 0x8g0\n", ["`0x8g0`", "not a number"])))


def test_nasm_numbers_in_every_form_are_immediates():
    for num in ("0x800", "0X800", "800h", "0800h", "2048", "0b100000000000", "100000000000b",
                "4000q", "4000o", "0h800", "2048d", "0x_800"):
        text = NASM_SOLVED.replace("\tor\t%2, DEMO_BIT\n", "\tor\t%2, " + num + "\n")
        assert nasm_problem(text) is None, (num, nasm_problem(text))


def test_nasm_no_absolute_address_or_jump_by_number():
    expect_nasm((
        ("\trep movsd\n", "\tjmp\t0xc0100000\n", ["line 10", "jumps to a number",
                                                    "`jmp 0xc0100000`"]),
        ("\tjnz\t%%out\n", "\tjnz\t0c0100000h\n", ["line 6", "jumps to a number"]),
        ("\tjnz\t%%out\n", "\tjmp\t0x08:0xc0100000\n", ["line 6", "jumps to a number"]),
        ("\tjnz\t%%out\n", "\tjnz\t%%out + 4\n", ["line 6", "jumps to a number"]),
        ("\trep movsd\n", "\tmov\teax, [0xc0123000]\n", ["line 10", "at a number",
                                                          "[0xc0123000]"]),
        ("\trep movsd\n", "\tmov\tdword [ss:0xc0123000], 1\n", ["at a number"]),
        ("\trep movsd\n", "\tpush\tdword [4096 * 3]\n", ["at a number"]),
        ("\trep movsd\n", "\tjmp\t[0xc0123000]\n", ["at a number"])))
    # a number as an immediate, or beside a register, is what numbers are for
    for ok in ("\tmov\teax, 0xc0100000\n", "\tmov\teax, [eax + 0xc0100000]\n",
               "\tjmp\t%%out\n", "\tjmp\teax\n", "\tmov\teax, [fs:DEMO_BIT]\n"):
        text = NASM_SOLVED.replace("\trep movsd\n", ok)
        assert nasm_problem(text) is None, (ok, nasm_problem(text))


def test_nasm_entry_code_memory_through_ss_or_esp():
    expect_nasm((
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tmov\teax, [eax + DEMO_BIT]\n",
         ["line 18", "in ENTER", "through ds or es", "`[eax + DEMO_BIT]`", "ss:"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tmov\t[ebx], eax\n", ["line 18", "ds or es"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tmov\teax, [ds:esp]\n", ["ds or es"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tmov\teax, [fs:DEMO_BIT]\n", ["ds or es"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tmov\teax, [DEMO_BIT]\n", ["ds or es"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\tpush\tdword [ebp + 4]\n", ["ds or es"]),
        ("\tmov\teax, [ss:eax + DEMO_BIT]\n", "\trep movsd\n", ["`movsd`", "entry code"])))
    # the same lines outside entry code are the kernel's segments: fine
    for ok in ("\tmov\teax, [eax + DEMO_BIT]\n", "\tmov\t[ebx], eax\n"):
        text = NASM_SOLVED.replace("\trep movsd\n", ok)
        assert nasm_problem(text) is None, (ok, nasm_problem(text))


def test_nasm_rules_pass_the_solved_pti_file_and_its_wrong_solutions():
    """boot/pti_entry.inc as solved, and each labs/pti/wrong/ patch of it
    (wrong solutions build and lose points at grading: never refused)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lab
    iface = labinspect.read_interface("pti", ROOT)
    assert iface.nasm_entry == {"PTI_ENTER_FROM_USER", "SWITCH_TO_KERNEL_CR3"}, iface.nasm_entry
    stub = lab.stub_sources("pti", ROOT)["boot/pti_entry.inc"]
    rel = "boot/pti_entry.inc"
    wrong = os.path.join(ROOT, "labs", "pti", "wrong")
    patches = [p for p in sorted(os.listdir(wrong)) if os.path.isdir(wrong) and
               "+++ b/" + rel in open(os.path.join(wrong, p)).read()] \
        if os.path.isdir(wrong) else []
    assert patches or not os.path.isdir(wrong), "no wrong/ patch of " + rel
    with tempfile.TemporaryDirectory(prefix="ronx-inspect-test-") as d:
        for p in [None] + patches:
            shutil.copyfile(os.path.join(ROOT, rel), os.path.join(d, "f.inc"))
            if p:
                with open(os.path.join(wrong, p)) as f:
                    subprocess.run(["patch", "-s", "-p2", os.path.join(d, "f.inc")], stdin=f,
                                   check=True, cwd=d, stdout=subprocess.DEVNULL)
            with open(os.path.join(d, "f.inc")) as f:
                text = f.read()
            with open(os.path.join(ROOT, rel)) as f:
                assert (text != f.read()) == bool(p), p
            got = nasmlab.file_problem(text, stub, iface.nasm_insns, iface.nasm_names,
                                       iface.nasm_entry)
            assert got is None, (p or "the solved file", got)


def test_answer_scan_reads_strings_and_comments():
    """tools/lab.py's scan of a student's tree for answers (answers_in)
    reads a test's string literals and every kind of comment, not only code."""
    import lab
    body = ["and %2, DEMO_USER_BIT", "and %1, ~DEMO_USER_BIT", "if (!pte_present(*pte)) return -1;"]
    py = 'X = """\n\tand\t%2, DEMO_USER_BIT\t; why\n"""\nY = ("\\tand\\t%1, ~DEMO_USER_BIT\\n"\n' \
        "     'if (!pte_present(*pte)) return -1; /* c */\\n')\n"
    got = lab.scan_lines(py)
    assert all(ln in got for ln in body), (py, sorted(got))
    c = "/*\n * and %2, DEMO_USER_BIT\n */\nint x; // and %1, ~DEMO_USER_BIT\n"
    asm = "\tnop\t\t; and %2, DEMO_USER_BIT\n# and %1, ~DEMO_USER_BIT\n"
    for text in (c, asm):
        got = set(lab.comment_lines(text))
        assert body[0] in got and body[1] in got, (text, got)
    assert "int x;" not in lab.comment_lines(c)


def test_stub_cache_key_follows_the_headers():
    """A stub's cached description is keyed by the headers it can include:
    an inline function that starts calling out (spinlock.h) changes what
    its object references."""
    root = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(root, "include", "ronx"))
        os.makedirs(os.path.join(root, "mm"))
        h = os.path.join(root, "include", "ronx", "spinlock.h")
        cmd = ["gcc", "-Iinclude"]
        with open(h, "w") as f:
            f.write("static inline void lock(int *l) { *l = 1; }\n")
        labinspect._headers.clear()
        before = labinspect.headers_digest(root, cmd, "mm/pgd.c")
        with open(h, "w") as f:
            f.write("void lock_slow(int *l);\nstatic inline void lock(int *l) { lock_slow(l); }\n")
        labinspect._headers.clear()
        assert labinspect.headers_digest(root, cmd, "mm/pgd.c") != before
    finally:
        labinspect._headers.clear()
        shutil.rmtree(root)


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items())
         if n.startswith("test_") and callable(f)]

if __name__ == "__main__":
    for name, fn in TESTS:
        fn()
        print("ok", name)
