# SPDX-License-Identifier: GPL-2.0-only
"""Replace the body of a C function by a stub (what `make lab-start` does).

    strip_function(src, "mark_rodata_ro", lab="image-policy", hint="...")
        -> src with mark_rodata_ro's body replaced by
           { /* LAB image-policy: <hint> */ (void)args; lab_todo(...); return ...; }

The signature and the comment above the function stay. The C is read by a
small scanner that knows comments, string and character literals and
preprocessor lines, so braces inside them do not count. Static functions
and variables that nothing uses any more once the body is gone are marked
__maybe_unused, so the stripped file still builds with -Werror.

Errors (a function not found, defined twice, or __noreturn) raise
StripError with one line that names what is wrong.
"""
import re

IDENT = re.compile(r"[A-Za-z_]\w*")
BRACE = re.compile(r"[{}]")
C_TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed",
                "unsigned", "_Bool", "bool", "const", "volatile"}


class StripError(Exception):
    pass


def code_only(src):
    """src with comments, string/char literals and preprocessor lines blanked
    to spaces (newlines kept), so that offsets stay the same."""
    out = list(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == "#":
            j = i
            while j < n and src[j] != "\n":
                if src[j] == "\\" and j + 1 < n and src[j + 1] == "\n":
                    j += 1
                elif src.startswith("/*", j):
                    k = src.find("*/", j + 2)
                    j = n - 1 if k < 0 else k + 1
                j += 1
            _blank(out, i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        line_start = False
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            if j < 0:
                raise StripError("unterminated comment at offset %d" % i)
            j += 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == "\\":
                    j += 1
                elif src[j] == "\n":
                    raise StripError("unterminated literal on line %d" % (src.count("\n", 0, i) + 1))
                j += 1
            j += 1
        else:
            i += 1
            continue
        _blank(out, i, j)
        i = j
    return "".join(out)


def _blank(out, i, j):
    for k in range(i, min(j, len(out))):
        if out[k] != "\n":
            out[k] = " "


def depths(code):
    """Brace depth before each offset of code. The list is filled a run
    between two braces at a time, not a character at a time: every grade
    inspects the lab's files, some of them 50 KB."""
    d, res, last = 0, [], 0
    for m in BRACE.finditer(code):
        i = m.start()
        res.extend([d] * (i + 1 - last))    # last..i, the brace itself included
        d += 1 if code[i] == "{" else -1
        last = i + 1
    res.extend([d] * (len(code) - last))
    return res


def match(code, i, open_, close):
    """Offset just past the bracket that closes the one at code[i]."""
    d = 0
    for j in range(i, len(code)):
        if code[j] == open_:
            d += 1
        elif code[j] == close:
            d -= 1
            if d == 0:
                return j + 1
    raise StripError("unbalanced %s at offset %d" % (open_, i))


def decl_start(code, i):
    """Where the file-scope declaration that contains offset i begins."""
    j = max(code.rfind(";", 0, i), code.rfind("}", 0, i), code.rfind("{", 0, i))
    j += 1
    while j < i and code[j].isspace():
        j += 1
    return j


class Function:
    """One function definition: offsets of its name, parameters and body."""

    def __init__(self, code, name_at, name):
        self.name = name
        self.start = decl_start(code, name_at)
        self.specs = code[self.start:name_at]
        paren = code.index("(", name_at)
        self.params_end = match(code, paren, "(", ")")
        self.params = code[paren + 1:self.params_end - 1]
        self.body = code.index("{", self.params_end)
        self.end = match(code, self.body, "{", "}")


def find_functions(code, name):
    """Definitions of name at file scope (declarations are skipped)."""
    dep = depths(code)
    found = []
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), code):
        if dep[m.start()] != 0:
            continue
        close = match(code, code.index("(", m.start()), "(", ")")
        rest = code[close:]
        # attributes may sit between ")" and "{"
        nxt = re.match(r"\s*(?:__attribute__\s*\(\(.*?\)\)\s*|[A-Za-z_]\w*\s*)*([{;,=)])", rest, re.S)
        if nxt and nxt.group(1) == "{":
            found.append(Function(code, m.start(), name))
    return found


def param_names(params):
    """Names of the parameters in a parameter list (comments blanked)."""
    names, depth, cur = [], 0, ""
    for c in params + ",":
        if c == "," and depth == 0:
            p = cur.strip()
            cur = ""
            if p in ("", "void", "..."):
                continue
            m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", p)  # function pointer
            if m:
                names.append(m.group(1))
                continue
            p = re.sub(r"\[[^\]]*\]", "", p)
            ids = IDENT.findall(p)
            if (len(ids) >= 2 or "*" in p) and ids[-1] not in C_TYPE_WORDS:
                names.append(ids[-1])
            continue
        depth += c in "(["
        depth -= c in ")]"
        cur += c
    return names


def neutral_return(specs):
    """The statement a stub ends with, chosen from the return type."""
    words = IDENT.findall(specs)
    if "__noreturn" in words or "noreturn" in specs:
        raise StripError("a __noreturn function cannot be stubbed")
    type_words = [w for w in words if w not in
                  ("static", "inline", "extern", "noinline", "__init", "__used",
                   "__always_inline", "__maybe_unused", "const", "volatile")]
    if "*" in specs:
        return "return 0;"
    if type_words == ["void"]:
        return ""
    if type_words == ["bool"]:
        return "return false;"
    if type_words and type_words[0] in ("struct", "union"):
        return "return (%s %s){ 0 };" % tuple(type_words[:2])
    if type_words in (["int"], ["long"], ["signed", "int"], ["long", "int"]):
        return "return -ENOSYS;"
    return "return 0;"


def stub_body(fn, lab, hint, ret):
    lines = ["{", "\t/* LAB %s: %s */" % (lab, hint)]
    lines += ["\t(void)%s;" % p for p in param_names(fn.params)
              if not (ret and re.search(r"\b%s\b" % p, ret))]
    lines.append('\tlab_todo("%s", "%s");' % (lab, fn.name))
    if ret is None:
        ret = neutral_return(fn.specs)
    elif ret:
        ret = "return %s;" % ret
    if ret:
        lines.append("\t" + ret)
    lines.append("}")
    return "\n".join(lines)


def strip_function(src, name, lab, hint, ret=None):
    """src with the body of function name replaced by a lab stub; ret, if
    given, is the expression the stub returns instead of the neutral one."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise StripError("%r is not a C function name" % name)
    code = code_only(src)
    fns = find_functions(code, name)
    if not fns:
        raise StripError("no definition of %s()" % name)
    if len(fns) > 1:
        raise StripError("%s() is defined %d times" % (name, len(fns)))
    fn = fns[0]
    return src[:fn.body] + stub_body(fn, lab, hint, ret) + src[fn.end:]


def static_definitions(code):
    """(name, name_at, decl_start, body_start, body_end) of every file-scope
    static function or variable; body is empty for variables."""
    dep = depths(code)
    out = []
    for m in re.finditer(r"\bstatic\b", code):
        if dep[m.start()] != 0 or decl_start(code, m.start()) != m.start():
            continue
        end = re.compile(r"[;{=]").search(code, m.end())
        if not end:
            continue
        head = code[m.end():end.start()]
        if "(" in head and not re.match(r"[^(]*\(\s*\*", head):
            names = list(IDENT.finditer(head[:head.index("(")]))
            if end.group() == "{" and names:
                out.append((names[-1].group(), m.end() + names[-1].start(), m.start(),
                            end.start(), match(code, end.start(), "{", "}")))
            continue
        fp = re.match(r"[^(]*(\()\s*\*\s*([A-Za-z_]\w*)", head)  # a function pointer
        if fp:
            out.append((fp.group(2), m.end() + fp.start(1), m.start(), end.start(), end.start()))
            continue
        names = [n for n in IDENT.finditer(head) if "[" not in head[:n.start()]]
        if names:
            out.append((names[-1].group(), m.end() + names[-1].start(), m.start(),
                        end.start(), end.start()))
    return out


def mark_unused_statics(src):
    """Prefix __maybe_unused to static definitions nothing refers to."""
    code = code_only(src)
    inserts = []
    for name, name_at, start, body, end in static_definitions(code):
        uses = [m.start() for m in re.finditer(r"\b%s\b" % re.escape(name), code)]
        outside = [u for u in uses if not (start <= u < end)]
        if not outside and "__maybe_unused" not in code[start:body]:
            # Linux's place for it: static int __maybe_unused *name(...)
            while name_at > start and code[name_at - 1] == "*":
                name_at -= 1
            inserts.append(name_at)
    for at in sorted(inserts, reverse=True):
        src = src[:at] + "__maybe_unused " + src[at:]
    return src


def add_include(src, header):
    """src with #include <header> after its last top-of-file #include."""
    line = "#include <%s>\n" % header
    if line in src:
        return src
    last = None
    for m in re.finditer(r"^#include [<\"].*\n", src, re.M):
        last = m
    if last is None:
        return line + src
    return src[:last.end()] + line + src[last.end():]
