# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of tools/cstrip.py, the C function-body stripper behind
`make lab-start`. Each test_* returns nothing or raises AssertionError;
the stripped C is also compiled with gcc -Wall -Wextra -Werror."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "labs"))

import cstrip  # noqa: E402
from cstrip import StripError, mark_unused_statics, strip_function  # noqa: E402

PRELUDE = """#include <stdbool.h>
#define ENOSYS 38
#define __init __attribute__((section(".init.text")))
#define __maybe_unused __attribute__((unused))
void lab_todo(const char *lab, const char *fn);
struct report { int a, b; };
typedef unsigned long long pteval_t;
"""

TRICKY = PRELUDE + r"""
/* target() { in a comment } */
int target(int a, const char *s);

static int helper(int x)
{
	return x * 2;
}

// the function under test: braces in every place they can hide
int target(int a, const char *s)
{
	const char *t = "}{ \" }";
	char c = '}', d = '{', e = '\'';
	/* } */
	// {
#define BRACE {
	if (a) {
		while (a--) { if (s[a] == '}') return helper(a); }
	}
	(void)t; (void)c; (void)d; (void)e;
	return 0;
}

int target_not(int a)
{
	return target(a, "target(");
}
"""


def compiles(src):
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(src)
    try:
        r = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-c",
                            "-o", os.devnull, f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    assert r.returncode == 0, "gcc: " + r.stderr[-600:]


def test_original_compiles():
    compiles(TRICKY)


def test_braces_in_strings_comments_chars_macros():
    out = strip_function(TRICKY, "target", "lab", "write it")
    body = out[out.index("int target(int a, const char *s)\n{"):]
    body = body[:body.index("\n}\n") + 3]
    assert "lab_todo(\"lab\", \"target\");" in body, body
    assert "return -ENOSYS;" in body, body
    assert "(void)a;" in body and "(void)s;" in body, body
    assert "while" not in body, body
    assert "int target_not(int a)" in out and 'target(a, "target(")' in out
    assert "/* target() { in a comment } */" in out
    assert "// the function under test" in out


def test_stripped_file_compiles_with_unused_helper_marked():
    out = mark_unused_statics(strip_function(TRICKY, "target", "lab", "hint"))
    assert "static int __maybe_unused helper(int x)" in out, out
    compiles(out)


def test_used_helper_not_marked():
    out = mark_unused_statics(strip_function(TRICKY, "target_not", "lab", "hint"))
    assert "__maybe_unused helper" not in out
    compiles(out)


def test_static_function_with_function_pointer_parameter():
    src = PRELUDE + """static int apply(int (*fn)(int), int x)
{
	return fn(x);
}

static int (*hook)(int);

int target(int x)
{
	return hook ? apply(hook, x) : x;
}
"""
    out = mark_unused_statics(strip_function(src, "target", "lab", "h"))
    assert "static int __maybe_unused apply(int (*fn)(int), int x)" in out, out
    assert "static int __maybe_unused (*hook)(int);" in out, out
    compiles(out)


def test_neutral_returns():
    cases = {
        "void f(void)": None, "bool f(void)": "return false;", "int f(void)": "return -ENOSYS;",
        "static unsigned long f(void)": "return 0;", "pteval_t f(void)": "return 0;",
        "char *f(void)": "return 0;", "struct report f(void)": "return (struct report){ 0 };",
        "static __init int f(void)": "return -ENOSYS;",
    }
    for sig, ret in cases.items():
        src = PRELUDE + "%s\n{\n\tfor (;;) {}\n}\n" % sig
        out = strip_function(src, "f", "lab", "h")
        body = out[len(PRELUDE):]
        if ret:
            assert ret in body, (sig, body)
        else:
            assert "return" not in body, (sig, body)
        compiles(out.replace("static ", "static __maybe_unused ", 1) if "static" in sig else out)


def test_return_override():
    src = PRELUDE + "pteval_t f(pteval_t prot, unsigned long va)\n{\n\treturn prot & va;\n}\n"
    out = strip_function(src, "f", "lab", "h", ret="prot")
    assert "return prot;" in out and "(void)va;" in out and "(void)prot;" not in out, out
    compiles(out)


def test_parameter_kinds():
    sig = "int f(int (*fn)(int), char *argv[], unsigned long n, const struct report *r, ...)"
    names = cstrip.param_names(sig[sig.index("(") + 1:-1])
    assert names == ["fn", "argv", "n", "r"], names
    assert cstrip.param_names("void") == [] and cstrip.param_names(" ") == []
    assert cstrip.param_names("unsigned long") == [], "a prototype's unnamed parameter"


def test_errors_name_the_problem():
    for src, name, words in [
        (TRICKY, "missing", "no definition of missing()"),
        (PRELUDE + "void __attribute__((noreturn)) f(void)\n{\n\tfor (;;) {}\n}\n", "f",
         "noreturn"),
        (PRELUDE + "int f(void)\n{\n\treturn 1;\n}\nint f(void)\n{\n\treturn 2;\n}\n", "f",
         "defined 2 times"),
        (PRELUDE + "int f(void)\n{\n\treturn 1;\n/* open\n", "f", "unterminated comment"),
    ]:
        try:
            strip_function(src, name, "lab", "h")
        except StripError as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError("no error for %r" % words)


def test_declaration_and_call_are_not_definitions():
    src = PRELUDE + "int g(void);\nint h(void)\n{\n\treturn g();\n}\nint g(void)\n{\n\treturn 7;\n}\n"
    out = strip_function(src, "g", "lab", "h")
    assert "return g();" in out and "return 7;" not in out and out.count("int g(void);") == 1


def test_add_include():
    src = "// x\n#include <a.h>\n#include \"b.h\"\n\nint x;\n"
    out = cstrip.add_include(src, "ronx/lab.h")
    assert out == "// x\n#include <a.h>\n#include \"b.h\"\n#include <ronx/lab.h>\n\nint x;\n", out
    assert cstrip.add_include(out, "ronx/lab.h") == out




def test_strip_list_errors_name_file_and_line():
    import lab
    with tempfile.TemporaryDirectory() as tree:
        os.makedirs(os.path.join(tree, "mm"))
        with open(os.path.join(tree, "mm", "a.c"), "w") as f:
            f.write(PRELUDE + "int f(void)\n{\n\treturn 1;\n}\n")
        with open(os.path.join(tree, "x.ld"), "w") as f:
            f.write("SECTIONS\n{\n\t.text : {\n\t\t*(.text)\n\t}\n}\n")
        open(os.path.join(tree, "README"), "w").close()
        for item, words in [(lab.Item("mm/a.c", "g", "h", "labs/x/strip:3"),
                             "labs/x/strip:3: mm/a.c: no definition of g()"),
                            (lab.Item("mm/b.c", "f", "h", "labs/x/strip:4"),
                             "labs/x/strip:4: no file mm/b.c"),
                            (lab.Item("x.ld", ".text", "h", "labs/x/strip:5"),
                             "output section .text has no . = ALIGN(PAGE_SIZE);"),
                            (lab.Item("README", "f", "h", "labs/x/strip:6"),
                             "can strip C functions")]:
            try:
                lab.apply_strip(tree, "x", [item])
            except lab.LabError as e:
                assert words in str(e), (words, str(e))
            else:
                raise AssertionError("no error for " + words)
        changed = lab.apply_strip(tree, "x", [lab.Item("mm/a.c", "f", "h", "s:1")])
        assert changed == ["mm/a.c"]
        with open(os.path.join(tree, "mm", "a.c")) as f:
            out = f.read()
        assert "#include <ronx/lab.h>" in out and 'lab_todo("x", "f");' in out, out


def test_nasm_macro_stripped_to_ud2():
    import nasmlab
    src = ("; x\n%macro SWITCH 2\n\tmov\t%1, cr3\n%%l:\n\tjz\t%%l\n%endmacro\n"
           "%macro OTHER 0\n\tnop\n%endmacro\n")
    out = nasmlab.strip_macro(src, "SWITCH", "pti", "switch CR3")
    assert "mov\t%1, cr3" not in out and "; LAB pti: switch CR3" in out and "\tud2" in out, out
    assert out.endswith("%macro OTHER 0\n\tnop\n%endmacro\n") and "%macro SWITCH 2\n" in out, out
    assert nasmlab.body_lines(src, "SWITCH") == ["mov %1, cr3", "%%l:", "jz %%l"]
    for name, words in (("MISSING", "no %macro MISSING"),):
        try:
            nasmlab.strip_macro(src, name, "pti", "h")
        except nasmlab.NasmError as e:
            assert words in str(e), str(e)
        else:
            raise AssertionError("no error for " + name)
    try:
        nasmlab.strip_macro(src + src, "OTHER", "pti", "h")
    except nasmlab.NasmError as e:
        assert "defined 2 times" in str(e), str(e)
    else:
        raise AssertionError("no error for a macro defined twice")


def test_depths_offset_by_offset():
    """depths(), filled a run between braces at a time, against the depth
    counted one character at a time: no brace, braces at either end,
    nested, unbalanced."""
    def counted(code):
        d, res = 0, []
        for c in code:
            res.append(d)
            d += {"{": 1, "}": -1}.get(c, 0)
        return res
    for code in ("", "x", "{", "}", "{}", "}{", "a{b{c}d}e", "{{\n}}}", "int f(void) { return 0; }\n"):
        assert cstrip.depths(code) == counted(code), code


TESTS = [(n[len("test_"):], f) for n, f in sorted(globals().items()) if n.startswith("test_")]
