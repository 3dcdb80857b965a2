#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""No process-controlled string reaches the console raw (issue 34).

A process chooses its own name (prctl PR_SET_NAME, or the file it
execs), the hostname (sethostname) and the path it gives execve. Printed
with %s, a name holding a newline and an escape sequence forges a
`ronx> ` prompt or clears the screen; %pE (Linux's escaped string)
prints such bytes as \\n, \\e, \\ooo instead.

This reads every printer call in kernel/, mm/, modload/ and include/
(printk, the pr_* macros, cprintf, snprintf and the rest of the family),
pairs each conversion of its format with its argument, and fails on any
argument that names a process-controlled string (comm, ->comm, a
nodename or hostname, an exec path or filename) printed with %s, or
given to a printer whose format is not a string literal (which cannot
be checked). It reads the source, not the kernel's opinion of itself, so
a new printer is checked the day it is written. The kernel shell's own
words (its argv, typed at the console) are not a process's. Its first
check runs it on a sample of printers it must catch (SAMPLE), so that a
checker broken by a change finds out.

    python3 tests/docs/check_printers.py [--root TREE]

Writes build/results/printers.ktap (of this tree, not of --root)."""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIRS = ["kernel", "mm", "modload", "include"]
# the printers, and how many arguments come before the format
PRINTERS = {"printk": 0, "cprintf": 0, "vprintk": 0, "pr_err": 0, "pr_warn": 0, "pr_info": 0,
            "pr_notice": 0, "pr_debug": 0, "pr_emerg": 0, "pr_alert": 0, "pr_crit": 0,
            "pr_cont": 0, "panic": 0, "snprintf": 2, "vsnprintf": 2, "scnprintf": 2,
            "sprintf": 1}
CALL = re.compile(r"\b(%s)\s*\(" % "|".join(sorted(PRINTERS, key=len, reverse=True)))
# what a process controls, by the names ronx gives it
TAINTED = re.compile(r"(\bcomm\b|\bnodename\b|\bhostname\b|\bfilename\b|\bpath\b)")
CONVERSION = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t)?"
                        r"(pE|p|[diouxXcs%])")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def strip_comments(text):
    """Comments become spaces (newlines kept, so line numbers hold);
    strings and character constants stay as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_args(text, start):
    """The arguments of the call whose "(" is at start, split at its own
    commas; None if the parentheses never close."""
    args, depth, i, begin = [], 0, start, start + 1
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[begin:i].strip())
                return args
        elif c == "," and depth == 1:
            args.append(text[begin:i].strip())
            begin = i + 1
        i += 1
    return None


def format_of(arg):
    """The format's text if arg is string literals (after a KERN_ level
    macro, as printk(KERN_INFO "...") has), else None."""
    rest = re.sub(r"^(KERN_[A-Z]+\s*)+", "", arg)
    if not rest.startswith('"'):
        return None
    if LITERAL.sub("", rest).strip():
        return None
    return "".join(LITERAL.findall(rest))


def conversions(fmt):
    """One entry per argument the format takes: the conversion ("s",
    "pE", "d", ...), with "*" for a width or precision read from one."""
    out = []
    for m in CONVERSION.finditer(fmt.replace("%%", "")):
        if m.group(2) == "*":
            out.append("*")
        if m.group(3) == "*":
            out.append("*")
        out.append(m.group(5))
    return out


# printers the check must flag (the lines marked BAD) and must not
SAMPLE = r"""
/* printk("%s", t->comm) in a comment is no call */
static void sample(struct task *t, const char *fmt, int w)
{
	printk(KERN_INFO "%-8s %s\n", "a, b", t->comm);			/* BAD */
	cprintf("%*s|%d", w, current->comm, 3);				/* BAD */
	pr_err("exec: %s: %s\n",					/* BAD */
	       path, "why");
	snprintf(buf, sizeof(buf), "%d %s", 1, utsname.nodename);	/* BAD */
	printk(fmt, t->comm);						/* BAD */
	printk(KERN_INFO "%pE[%d] %s\n", t->comm, t->pid, "ok");
	snprintf(path, sizeof(path), "bin/%s", name);
	pr_info("100%% %s", "done");
}
"""


def sample_problems():
    """What problems() misses or wrongly flags in SAMPLE: empty when it works."""
    # (a call that spans lines is reported at its first line, marked there)
    want = {i + 1 for i, line in enumerate(SAMPLE.split("\n")) if "BAD" in line}
    got = {int(b.split(":")[1]) for b in problems(SAMPLE, "sample")}
    return ["sample line %d: %s" % (n, "missed" if n in want else "flagged wrongly")
            for n in sorted(want ^ got)]


def problems_in(path, rel):
    with open(path, errors="replace") as f:
        return problems(f.read(), rel)


def problems(text, rel):
    """The lines of text (the file rel) that print a process's string raw."""
    text = strip_comments(text)
    bad = []
    for m in CALL.finditer(text):
        # a definition or declaration (int printk(const char *fmt, ...)) is not a call
        head = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if re.search(r"\b(int|void|char|long|size_t|define)\b", head) and "=" not in head:
            continue
        args = call_args(text, m.end() - 1)
        if args is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        skip = PRINTERS[m.group(1)]
        if len(args) <= skip:
            continue
        fmt = format_of(args[skip])
        rest = args[skip + 1:]
        if fmt is None:
            names = [a for a in rest if TAINTED.search(a)]
            if names:
                bad.append("%s:%d: %s() with a format that is not a literal prints %s: "
                           "cannot be checked" % (rel, line, m.group(1), ", ".join(names)))
            continue
        for conv, arg in zip(conversions(fmt), rest):
            if conv == "s" and TAINTED.search(arg):
                bad.append("%s:%d: %s() prints %s with %%s: a process chooses it, print it "
                           "with %%pE" % (rel, line, m.group(1), arg))
    return bad


def sources(root):
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    yield path, os.path.relpath(path, root)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=ROOT, help="the tree to read (default: this one)")
    opts = ap.parse_args()
    out, n, failed = [], 1, 0
    bad = sample_problems()
    failed += bool(bad)
    out.append("%sok 1 the check itself flags each raw printer of SAMPLE, and only those"
               % ("not " if bad else ""))
    out += ["# " + b for b in bad]
    for path, rel in sorted(sources(opts.root)):
        n += 1
        bad = problems_in(path, rel)
        failed += bool(bad)
        out.append("%sok %d %s: no process-controlled string printed with %%s"
                   % ("not " if bad else "", n, rel))
        out += ["# " + b for b in bad]
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "results", "printers.ktap"), "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (n, "\n".join(out)))
    for line in out:
        if line.startswith("# "):
            print(line[2:])
    print("printers: %d passed, %d failed" % (n - failed, failed))
    return 1 if failed or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
