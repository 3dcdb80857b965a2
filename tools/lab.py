#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ronx as a course: make a student's tree for one lab, grade a tree or a
submission, a whole class, or build a Gradescope autograder.

    tools/lab.py start LAB [DIR]    the student's tree (default ../ronx-lab-LAB):
                                    the whole project with LAB's items stripped
                                    (labs/LAB/strip), labs/*/wrong/ left out,
                                    the seeds copied in, a fresh git repository
    tools/lab.py grade [LAB...]     inspect the lab files (tools/labinspect.py),
                                    build this tree, run the labs' checks (every
                                    lab of labs/ORDER written so far if none
                                    named), print one line per check and
                                    "Score: N/M", write build/grade/results.json;
                                    in a student's tree its lab, graded as its
                                    submission would be (only the lab's files,
                                    over the tree lab-start made: its first
                                    commit), naming the other changes ignored
    tools/lab.py grade LAB --submission PATH
                                    grade a submission (a lab-start repository, a
                                    directory, a zip or a tarball): only the lab's
                                    files are taken from it, laid over a pristine
                                    copy of this tree in build/grade/work/NAME;
                                    one the inspection refuses is graded as its stub
    tools/lab.py grade-class LAB DIR    every submission in DIR, one per core:
                                    build/grade/LAB.csv, build/grade/LAB/NAME/
    tools/lab.py autograder LAB     build/autograder/LAB.zip for Gradescope
    tools/lab.py steps LAB          the lab's steps, each with its checks and the
                                    wrong solution that leaves it out
    tools/lab.py interface [LAB...] what the solved lab files use that
                                    labs/LAB/interface does not list (after a
                                    change to a solved file: add it there)
    tools/lab.py list               the labs, in order

Options of grade: --seed N (the scenarios' seed; random and printed if not
given), --results PATH, --work DIR (the scratch tree), --only 1,4 (only
those checks, by number: the test of the grader grades a wrong solution
with the checks of its step). grade-class: --jobs N (default: every
core), --timeout S (per submission), --seed N.

start --with-build also copies build/ (cp -a), so that make in the new tree
rebuilds only what the strip changed: the test of the grader uses it.

make lab-start, grade, grade-class and autograder call this. The strip
list, the steps and the checks are described in labs/grading.py and
docs/labs/README.md.
"""
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS = os.path.join(ROOT, "labs")
sys.path.insert(0, LABS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cstrip  # noqa: E402
import nasmlab  # noqa: E402
import submission  # noqa: E402

SCAFFOLD = os.path.join(LABS, "scaffold")   # lab_todo(), added to student trees
STUDENT_MARK = os.path.join("labs", "student-tree")   # names the lab a student's tree is for
ALIGN_LINE = re.compile(r"^(\s*)\.\s*=\s*ALIGN\(PAGE_SIZE\);\s*$", re.M)
# where the seeds are (the docs name them ../shared/seeds/); RONX_SEEDS overrides
SEED_DIRS = [os.environ.get("RONX_SEEDS", ""), os.path.join(ROOT, "seeds"),
             os.path.join(os.path.dirname(ROOT), "shared", "seeds")]


class LabError(Exception):
    pass


def lab_order(root=ROOT):
    with open(os.path.join(root, "labs", "ORDER")) as f:
        return [ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()]


def check_lab(name, root=ROOT):
    order = lab_order(root)
    if name not in order:
        raise LabError("no lab named %r; the labs are: %s" % (name, " ".join(order)))
    if not os.path.exists(os.path.join(root, "labs", name, "checks.py")):
        raise LabError("lab %s is in labs/ORDER but not written yet (no labs/%s/checks.py)"
                       % (name, name))


def written_labs(root=ROOT):
    """The labs of labs/ORDER that exist in this tree, in order."""
    return [n for n in lab_order(root) if os.path.exists(os.path.join(root, "labs", n, "checks.py"))]


# -- the strip list ----------------------------------------------------------
class Item:
    """One line of labs/<lab>/strip: path, function[=return expr], hint."""

    def __init__(self, path, target, hint, where):
        self.path, self.hint, self.where = path, hint, where
        self.target, _, ret = target.partition("=")
        self.ret = ret or None


def read_strip(lab, root=ROOT):
    path = os.path.join(root, "labs", lab, "strip")
    items = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise LabError("%s:%d: expected '<path> <function> <hint>', found %r"
                               % (path, n, line))
            items.append(Item(parts[0], parts[1], parts[2], "%s:%d" % (path, n)))
    return items


def lab_files(lab, root=ROOT):
    """The files a student of lab writes in: those its strip list names."""
    return sorted({it.path for it in read_strip(lab, root)})


def strip_section_alignment(src, section, lab, hint):
    """Linker script: drop the page alignments inside output section
    `section`, leaving the hint where each was."""
    m = re.search(r"^\s*%s\s*:[^{]*\{" % re.escape(section), src, re.M)
    if not m:
        raise cstrip.StripError("no output section %s" % section)
    end = cstrip.match(src, m.end() - 1, "{", "}")
    body, n = ALIGN_LINE.subn(lambda a: "%s/* LAB %s: %s */" % (a.group(1), lab, hint),
                              src[m.end():end])
    if not n:
        raise cstrip.StripError("output section %s has no . = ALIGN(PAGE_SIZE);" % section)
    return src[:m.end()] + body + src[end:]


def stripped_sources(tree, lab, items):
    """{file: its text with items stripped} for the files of items in the
    tree at `tree` (nothing is written)."""
    changed = {}
    for it in items:
        path = os.path.join(tree, it.path)
        src = changed.get(it.path)
        if src is None:
            if not os.path.exists(path):
                raise LabError("%s: no file %s" % (it.where, it.path))
            with open(path) as f:
                src = f.read()
        try:
            if it.path.endswith((".c", ".h")):
                src = cstrip.strip_function(src, it.target, lab, it.hint, it.ret)
            elif it.path.endswith(".ld"):
                src = strip_section_alignment(src, it.target, lab, it.hint)
            elif it.path.endswith(".inc"):
                src = nasmlab.strip_macro(src, it.target, lab, it.hint)
            else:
                raise cstrip.StripError("can strip C functions (.c, .h), linker script "
                                        "sections (.ld) and nasm macros (.inc) only")
        except (cstrip.StripError, nasmlab.NasmError) as e:
            raise LabError("%s: %s: %s" % (it.where, it.path, e))
        changed[it.path] = src
    for rel, src in changed.items():
        if rel.endswith((".c", ".h")):
            changed[rel] = cstrip.mark_unused_statics(cstrip.add_include(src, "ronx/lab.h"))
    return changed


def apply_strip(tree, lab, items):
    """Strips items in the tree at `tree`; returns the files changed."""
    changed = stripped_sources(tree, lab, items)
    for rel, src in changed.items():
        with open(os.path.join(tree, rel), "w") as f:
            f.write(src)
    return sorted(changed)


def stub_sources(lab, ref_root=ROOT):
    """{lab file: the lab's starting stub of it}: what lab-start makes of
    ref_root's file; in a student's tree, what lab-start gave (its git
    repository's first commit), failing that the file as it is."""
    if not os.path.exists(os.path.join(ref_root, STUDENT_MARK)):
        return stripped_sources(ref_root, lab, read_strip(lab, ref_root))
    out = {}
    first = subprocess.run(["git", "-C", ref_root, "rev-list", "--max-parents=0", "HEAD"],
                           capture_output=True, text=True).stdout.split()
    for rel in lab_files(lab, ref_root):
        r = subprocess.run(["git", "-C", ref_root, "show", "%s:%s" % (first[-1], rel)],
                           capture_output=True, text=True) if first else None
        if r is not None and r.returncode == 0:
            out[rel] = r.stdout
        else:
            with open(os.path.join(ref_root, rel)) as f:
                out[rel] = f.read()
    return out


# -- answers -----------------------------------------------------------------
def normal_lines(text, patch=False):
    """text's lines without comments, diff markers (a patch's) and runs of
    blanks, as a list of the non-empty ones."""
    if patch:
        text = "\n".join(ln[1:] if ln[:1] in "+- " and not ln.startswith(("+++", "---"))
                         else ln for ln in text.splitlines())
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return [x for x in (" ".join(ln.split()) for ln in text.splitlines()) if x]


ESCAPES = re.compile(r"\\[tn]")
COMMENT_MARK = re.compile(r"^(?:/\*+|\*+/?|//+|;+|#+)\s*")


def comment_lines(text):
    """The text of text's comments (C's /* */ and //, nasm's ;, the shell's
    and Python's #), a line each, markers gone, spaces squeezed."""
    out = []
    for m in re.finditer(r"/\*.*?\*/", text, re.S):
        out += m.group(0)[2:-2].splitlines()
    for ln in text.splitlines():
        m = re.search(r"(//|;|#)(.*)$", ln)
        if m:
            out.append(m.group(2))
    return [x for x in (" ".join(COMMENT_MARK.sub("", ln.strip()).split()) for ln in out) if x]


def scan_lines(text, patch=False):
    """Every line in which text may carry an answer: its code (normal_lines),
    its comments, and the lines of its string literals (a test's "\tmov\t%1,
    cr3\n"), each also without a trailing nasm comment or quoting."""
    def unescape(x):
        return re.sub(r"\\(.)", lambda m: {"t": " ", "n": "\n"}.get(m.group(1), m.group(1)), x)
    pieces = []
    for ln in text.splitlines():
        # a line that is one string literal ("...", '...'), with its escapes
        m = re.match(r"""^[^"']*?(["'])(.*)\1[^"']*$""", ln)
        if m:
            pieces += unescape(m.group(2)).splitlines()
    decoded = ESCAPES.sub(lambda m: "\n" if m.group(0) == "\\n" else " ", text)
    for ln in decoded.splitlines():
        pieces += re.split(r"[\"']", ln)
    lines = set(normal_lines(text, patch)) | set(comment_lines(text)) | \
        set(normal_lines("\n".join(pieces)))
    for piece in pieces:
        for x in (piece, piece.split(";", 1)[0], COMMENT_MARK.sub("", piece.strip())):
            x = " ".join(x.split())
            if x:
                lines.add(x)
    return lines


def solved_bodies(lab, root=ROOT):
    """[(file, function, [its body's distinctive lines])] of the lab's
    solved functions in root: the body's lines of 16 characters or more
    (a line such as `return 0;` says nothing of the answer)."""
    out = []
    for it in read_strip(lab, root):
        if not it.path.endswith((".c", ".h", ".inc")):
            continue
        with open(os.path.join(root, it.path)) as f:
            src = f.read()
        if it.path.endswith(".inc"):
            body = nasmlab.body_lines(src, it.target) or []
            out.append((it.path, it.target, [ln for ln in body if len(ln) >= 16]))
            continue
        fns = cstrip.find_functions(cstrip.code_only(src), it.target)
        if len(fns) != 1:
            continue
        body = src[fns[0].body + 1:fns[0].end - 1]
        out.append((it.path, it.target, [ln for ln in normal_lines(body) if len(ln) >= 16]))
    return out


def answers_in(tree, lab, root=ROOT, files=None, comments_only=()):
    """["file: holds fn()'s solved body (N of its M lines)"] for the files
    of tree (a student's: every file but the lab's own) that carry most
    of the body of one of lab's solved functions in root: in their code,
    their comments or their string literals (scan_lines); in the files
    under comments_only (path prefixes: the kernel's own sources), in
    their comments only."""
    bodies = [b for b in solved_bodies(lab, root) if b[2]]
    mine = set(lab_files(lab, root))
    hits = []
    for rel in files if files is not None else submission.walk_files(tree):
        if rel in mine:
            continue
        try:
            with open(os.path.join(tree, rel), encoding="utf-8") as f:
                text = f.read()
            lines = set(comment_lines(text)) if rel.startswith(tuple(comments_only)) else \
                scan_lines(text, rel.endswith((".patch", ".diff")))
        except (UnicodeDecodeError, OSError):
            continue
        for path, fn, body in bodies:
            found = sum(ln in lines for ln in body)
            # a body of one line counts if that line is long; else most of it
            if (len(body) == 1 and found and len(body[0]) >= 30) or \
                    (len(body) > 1 and found >= max(2, (len(body) * 6 + 9) // 10)):
                hits.append("%s: holds %s's %s() (%d of its %d lines)"
                            % (rel, path, fn, found, len(body)))
    return hits


# -- lab-start ---------------------------------------------------------------
# the teacher's alone: wrong solutions, and the cheats the grader's test
# grades (one of them is a correct solution of process-pagetables)
NOT_SHIPPED = re.compile(r"^(labs/[^/]+/wrong/|tests/labs/cheats/)")


def project_files(root):
    """The project's files: git's list (tracked and new, not ignored) if it
    is a git tree, else every file outside build/; never the wrong
    solutions nor the cheats (NOT_SHIPPED)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.split("\0") if f]
    except (subprocess.CalledProcessError, FileNotFoundError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "build", "__pycache__")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names
                      if not n.endswith(".pyc")]
    return [f for f in files if not NOT_SHIPPED.match(f) and os.path.isfile(os.path.join(root, f))]


def copy_files(root, dest, files):
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), os.path.join(dest, rel))


# not copied with build/: grades, logs, and what grading never boots or runs
# (the fuzzer's corpus changes under a copy made while make test fuzzes;
# Python's bytecode cache, 16 MB, is the top make's: PYTHONPYCACHEPREFIX)
SKIP_BUILD = ("grade", "results", "autograder", "host", "isodir", "ronx.iso", "linux", "map",
              "fuzz", "pycache")


def copy_build(root, dest):
    """root's build/ into dest with its times (cp -a), so that make there
    rebuilds only what changes; without root's grades, test logs, and the
    ISO and host tools (make builds them again there if asked)."""
    src = os.path.join(root, "build")
    if not os.path.isdir(src):
        return
    os.makedirs(os.path.join(dest, "build"), exist_ok=True)
    entries = [os.path.join(src, e) for e in os.listdir(src) if e not in SKIP_BUILD]
    if entries:
        subprocess.run(["cp", "-a"] + entries + [os.path.join(dest, "build")], check=True)


def add_scaffold(dest):
    """lab_todo() and its header, into the tree at dest."""
    for d, _, names in os.walk(SCAFFOLD):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), SCAFFOLD)
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(os.path.join(d, n), os.path.join(dest, rel))


def git_seed_dirs(root=ROOT):
    """Where else the seeds may be for a tree made by git: beside the main
    tree of a worktree (its common .git directory's tree), or beside the
    local repository it was cloned from."""
    out = []
    r = subprocess.run(["git", "-C", root, "rev-parse", "--path-format=absolute",
                        "--git-common-dir"], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.strip():
        out.append(os.path.join(os.path.dirname(os.path.dirname(r.stdout.strip())),
                                "shared", "seeds"))
    r = subprocess.run(["git", "-C", root, "config", "remote.origin.url"],
                       capture_output=True, text=True)
    url = r.stdout.strip()
    if r.returncode == 0 and url.startswith("/"):
        out.append(os.path.join(os.path.dirname(url.rstrip("/")), "shared", "seeds"))
    return out


def find_seeds():
    """The seeds' directory (SEED_DIRS, then git_seed_dirs()), or None."""
    for d in SEED_DIRS:
        if d and os.path.isdir(d):
            return d
    return next((d for d in git_seed_dirs() if os.path.isdir(d)), None)


def seed_links(text, up):
    """text with each `../shared/seeds/NAME` made a link to up/NAME."""
    def link(m):
        name = m.group(1)
        return "[seeds/%s](%s/%s)" % (name, up, name) if name else "[seeds/](%s/)" % up
    return re.sub(r"`\.\./shared/seeds/([^`]*)`", link, text)


def add_seeds(dest):
    """The seeds into dest/seeds/, and the documents that name them as
    ../shared/seeds/ (beside the teacher's tree) pointed there by links
    that work in the student's tree. Returns the seeds' directory, or None
    if they are not here (RONX_SEEDS=DIR names them)."""
    seeds = find_seeds()
    if seeds is None:
        return None
    # a student's tree made from a student's tree carries them already
    shutil.copytree(seeds, os.path.join(dest, "seeds"), dirs_exist_ok=True)
    for doc in ["README.md", "docs/seed-map.md"] + [
            os.path.join("docs", "labs", n) for n in os.listdir(os.path.join(dest, "docs", "labs"))
            if n.endswith(".md")]:
        path = os.path.join(dest, doc)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read()
        new = seed_links(text, os.path.relpath(os.path.join(dest, "seeds"),
                                               os.path.dirname(path)))
        if new != text:
            with open(path, "w") as f:
                f.write(new)
    return seeds


def start(lab, dest, with_build=False, git=True):
    check_lab(lab)
    dest = os.path.abspath(dest)
    if os.path.exists(dest) and os.listdir(dest):
        raise LabError("%s already exists and is not empty; pass DIR=... for another place" % dest)
    copy_files(ROOT, dest, project_files(ROOT))
    if with_build:
        copy_build(ROOT, dest)
    add_scaffold(dest)
    add_seeds(dest)
    changed = apply_strip(dest, lab, read_strip(lab))
    with open(os.path.join(dest, STUDENT_MARK), "w") as f:
        f.write("%s\n# made by make lab-start LAB=%s; make grade LAB=%s grades it\n"
                % (lab, lab, lab))
    if git:
        g = ["git", "-C", dest, "-c", "user.name=ronx lab", "-c", "user.email=lab@ronx.invalid"]
        subprocess.run(g[:3] + ["init", "-q"], check=True)
        subprocess.run(g + ["add", "-A", "."], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "ronx lab %s: the starting point" % lab],
                       check=True)
    return dest, changed


# -- grading -----------------------------------------------------------------
def load_lab(lab, root=ROOT):
    """(checks, steps) of labs/<lab>/checks.py (see labs/grading.py)."""
    import grading
    path = os.path.join(root, "labs", lab, "checks.py")
    spec = importlib.util.spec_from_file_location("checks_" + lab.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    grading.take_registered()
    spec.loader.exec_module(mod)
    checks, steps = grading.take_registered()
    if not checks:
        raise LabError("%s registers no @check" % path)
    return checks, steps


def load_checks(lab, root=ROOT):
    return load_lab(lab, root)[0]


def build(root=ROOT):
    """Builds what grading boots; returns None, or the end of the failed
    build's output."""
    r = subprocess.run(["make", "-C", root, "--no-print-directory",
                        "build/kernel.elf", "build/initrd.cpio"],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return None
    return "\n".join((r.stdout + r.stderr).splitlines()[-25:])


def new_seed():
    return random.SystemRandom().randrange(1, 1 << 31)


def write_json(path, obj):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def inspect(labs, tree, ref_root=ROOT):
    """{lab: {lab file: one-line reason}}: the lab files of tree the rules
    of tools/labinspect.py refuse, against ref_root's stubs and interfaces."""
    import labinspect
    try:
        return {lab: labinspect.inspect_lab(lab, tree, ref_root, stub_sources(lab, ref_root))
                for lab in labs}
    except labinspect.InspectError as e:
        raise LabError("cannot inspect the lab files: %s" % e)


def inspected_lines(refused, stubbed=False):
    """What a grade prints about the inspection."""
    lines = []
    for lab, files in refused.items():
        if not files:
            lines.append("Inspected before linking (labs/%s/interface): nothing refused" % lab)
        for why in files.values():
            lines.append(why + ("; graded as the lab's stub" if stubbed else ""))
    return lines


def refused_files(lab, c, refused):
    """The refused files (with their reasons) in which check c's steps live."""
    mine = {s.function for s in c.steps}
    paths = {it.path for it in read_strip(lab) if it.target in mine}
    return [why for rel, why in sorted(refused.get(lab, {}).items()) if rel in paths]


def grade(labs, results_path, root=ROOT, out=sys.stdout, seed=None, checks_root=None,
          preface=(), zero_reason=None, repeat="", only=None, refused=None):
    """Grades labs in the tree at root with the checks of checks_root
    (default: root's own); prints the lines and writes results.json after
    every check (a grade cut short still has what it did); returns
    (N, M, outcomes). zero_reason: grade nothing, every check 0 with it.
    refused: {lab: {file: reason}} of an inspection already made (a
    submission's); None inspects root's lab files here. A check whose
    steps live in a refused file scores 0 with the reason."""
    import grading
    t0 = time.monotonic()
    seed = new_seed() if seed is None else seed
    checks_root = checks_root or root
    extra = {"seed": seed, "labs": labs}
    head = list(preface) + ["Seed: %d (the same scenarios again: %s)" % (
        seed, repeat or "SEED=%d" % seed)]
    if zero_reason is None:
        if refused is None:
            refused = inspect(labs, root, checks_root)
            head += inspected_lines(refused)
        else:
            head += inspected_lines(refused, stubbed=True)
    refused = refused or {}
    for ln in head:
        print(ln, file=out, flush=True)
    outcomes = []
    failed_build = zero_reason
    if failed_build is None:
        failed_build = build(root)
        if failed_build:
            print("The tree does not build; every check scores 0. The end of make's output:\n"
                  + failed_build, file=out, flush=True)
            errors = [ln for ln in failed_build.splitlines() if re.search(r"error:|\*\*\*", ln)]
            failed_build = "the tree does not build: " + (errors[0] if errors else "make failed")
    record = os.environ.get("RONX_RECORD_DRAWS")     # the grader's test: tests/labs/run.py
    ctx = new_context(root, seed, checks_root, record)
    draws = {}
    lab_checks = [(lab, c) for lab in labs for c in load_checks(lab, checks_root)]
    if only:
        lab_checks = [lc for i, lc in enumerate(lab_checks, 1) if i in only]

    def save(partial):
        res = grading.gradescope(outcomes, time.monotonic() - t0, dict(extra, partial=partial),
                                 output="\n".join(head))
        write_json(results_path, res)
        return res
    try:
        for lab, c in lab_checks:
            why = refused_files(lab, c, refused)
            if failed_build:
                o = grading.Outcome(lab, c.name, c.points, 0, failed_build, 0)
            elif why:
                o = grading.Outcome(lab, c.name, c.points, 0, "\n".join(why), 0)
            else:
                o = grading.run_check(ctx, lab, c)
            if record and not failed_build and not why:   # only checks that ran say
                draws[c.name] = sorted(ctx.drawn)
                if ctx.drawn:   # the next check draws its own scenarios, builds its own
                    ctx.close()
                    ctx = new_context(root, seed, checks_root, record)
            outcomes.append(o)
            print(o.line(), file=out, flush=True)
            if o.output:
                print("\n".join("        " + ln for ln in o.output.splitlines()),
                      file=out, flush=True)
            save(len(outcomes) < len(lab_checks))
    finally:
        ctx.close()
    res = save(False)
    if record and len(draws) == len(lab_checks):
        write_json(record, draws)
    total = sum(o.points for o in outcomes)
    print("Score: %d/%d" % (res["score"], total), file=out, flush=True)
    return res["score"], total, outcomes


def new_context(root, seed, checks_root, recording):
    """The checks' Context; recording, one that notes the scenarios
    (ctx.rng() names) each check draws in ctx.drawn: a check that draws
    none grades the same under every seed (tests/labs/run.py's seed
    step). grade() gives a check after one that drew a fresh Context, so
    that it cannot use what the one before built from its draws."""
    import grading
    ctx = grading.Context(root, seed, teacher=checks_root)
    if recording:
        ctx.drawn = set()
        rng = ctx.rng
        ctx.rng = lambda key: ctx.drawn.add(key) or rng(key)
    return ctx


def safe_name(path):
    base = os.path.basename(os.path.normpath(path)) or "submission"
    base = re.sub(r"\.(zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz)$", "", base)
    return re.sub(r"[^\w.-]", "_", base)[:80] or "submission"


def as_started(rel, path):
    """The file at path against what `make lab-start` put at rel (a
    project file, a seed, a handout with its seed links): "same",
    "changed" or "added" (lab-start put nothing there)."""
    with open(path, "rb") as f:
        got = f.read()
    seeds = find_seeds()
    mine = os.path.join(seeds or "", rel[len("seeds/"):]) if rel.startswith("seeds/") \
        else os.path.join(ROOT, rel)
    if not os.path.isfile(mine) or (rel.startswith("seeds/") and not seeds):
        return "added"
    with open(mine, "rb") as f:
        want = f.read()
    if got == want:
        return "same"
    if rel.endswith(".md"):
        up = os.path.relpath("seeds", os.path.dirname(rel) or ".")
        if seed_links(want.decode("utf-8", "replace"), up).encode() == got:
            return "same"
    return "changed"


def make_scratch(work, lab, sub):
    """The teacher's tree (this one: its files and its build/, times kept)
    at work, with the scaffold and the submission's lab files over it;
    a lab file the submission lacks is the lab's stub."""
    shutil.rmtree(work, ignore_errors=True)
    copy_files(ROOT, work, project_files(ROOT))
    copy_build(ROOT, work)
    add_scaffold(work)
    for rel, src in sub.files.items():
        shutil.copyfile(src, os.path.join(work, rel))   # a fresh mtime: make rebuilds it
    if sub.missing:
        apply_strip(work, lab, [it for it in read_strip(lab) if it.path in sub.missing])


def grade_submission(lab, path, results_path, work=None, seed=None, out=sys.stdout, only=None):
    """Grades the submission at path for lab; returns (N, M, outcomes)."""
    check_lab(lab)
    seed = new_seed() if seed is None else seed
    name = safe_name(path)
    work = work or os.path.join(ROOT, "build", "grade", "work", name)
    unpacked = work + ".unpacked"
    sub = submission.open_submission(os.path.abspath(path), lab_files(lab), unpacked,
                                     as_started)
    repeat = "make grade LAB=%s SUBMISSION=%s SEED=%d" % (lab, path, seed)
    try:
        if sub.reason:
            return grade([lab], results_path, ROOT, out, seed, ROOT, sub.summary(),
                         "not a submission: " + sub.reason, repeat, only)
        # make grade-class builds the teacher's tree once, before its graders
        failed = None if os.environ.get("RONX_TEACHER_BUILT") else build(ROOT)
        if failed:
            raise LabError("the teacher's tree %s does not build:\n%s" % (ROOT, failed))
        make_scratch(work, lab, sub)
        refused = inspect([lab], work, ROOT)
        stubs = stub_sources(lab, ROOT)
        for rel in refused[lab]:    # what is linked instead: the lab's stub
            with open(os.path.join(work, rel), "w") as f:
                f.write(stubs[rel])
            obj = os.path.join(work, "build", os.path.splitext(rel)[0] + ".o")
            if os.path.exists(obj):
                os.remove(obj)      # made from the refused file: make compiles the stub
        return grade([lab], results_path, work, out, seed, ROOT, sub.summary(), None, repeat,
                     only, refused)
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)


# -- a student's own tree, graded as its submission would be ------------------
def student_lab(root=ROOT):
    """The lab root is a student's tree for (labs/student-tree), or None."""
    try:
        with open(os.path.join(root, STUDENT_MARK)) as f:
            return f.readline().strip() or None
    except OSError:
        return None


def started_from(root=ROOT):
    """The commit make lab-start made in root (its git repository's first),
    or None (no repository)."""
    r = subprocess.run(["git", "-C", root, "rev-list", "--max-parents=0", "HEAD"],
                       capture_output=True, text=True)
    first = r.stdout.split() if r.returncode == 0 else []
    return first[-1] if first else None


def outside_changes(tree, lab, first):
    """[(file, "changed" | "added" | "deleted")], sorted, of the files of
    tree that differ from commit first (what lab-start made) and are not
    the lab's own files: what a grade of tree ignores."""
    g = ["git", "-C", tree]
    diff = subprocess.run(g + ["diff", "--no-renames", "--name-status", "-z", first, "--"],
                          capture_output=True, text=True, check=True).stdout.split("\0")
    kinds = {"M": "changed", "T": "changed", "A": "added", "D": "deleted"}
    out = {}
    for status, rel in zip(diff[0::2], diff[1::2]):
        if status:
            out[rel] = kinds.get(status[0], "changed")
    new = subprocess.run(g + ["ls-files", "-o", "--exclude-standard", "-z"],
                         capture_output=True, text=True, check=True).stdout.split("\0")
    for rel in new:
        if rel:
            out[rel] = "added"
    mine = set(lab_files(lab, tree))
    return sorted((rel, k) for rel, k in out.items() if rel not in mine)


def ignored_line(changes):
    """The one line a grade prints about the files it ignored."""
    if not changes:
        return "Ignored: nothing (no file outside the lab's files differs from what " \
            "lab-start made)"
    return "Ignored (not the lab's files, graded as lab-start made them): " + \
        ", ".join("%s (%s)" % c for c in changes)


# a change to these leaves build/ out of the scratch tree (make's rules and
# tools are no dependency of the objects): everything is built again
BUILD_RULES = re.compile(r"^(Makefile|.*\.mk|tools/|linker\.ld)")


def make_student_scratch(work, lab, tree, first, changes):
    """tree (a student's) at work, with its build/ (times kept) unless a
    change touches the build's rules, and every change outside the lab's
    files undone: a changed or deleted file back as commit first has it
    (a fresh mtime: make rebuilds what depends on it), an added one gone."""
    shutil.rmtree(work, ignore_errors=True)
    copy_files(tree, work, project_files(tree))
    if not any(BUILD_RULES.match(rel) for rel, _ in changes):
        copy_build(tree, work)
    for rel, kind in changes:
        dest = os.path.join(work, rel)
        if kind == "added":
            if os.path.lexists(dest):
                os.remove(dest)
            continue
        r = subprocess.run(["git", "-C", tree, "show", "%s:%s" % (first, rel)],
                           capture_output=True, check=True)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(r.stdout)


def grade_student_tree(lab, results_path, root=ROOT, work=None, seed=None, out=sys.stdout,
                       only=None):
    """Grades a student's tree (make lab-start's) as grade_submission
    grades it handed in: only the lab's files, over the tree as lab-start
    made it (the repository's first commit), the same inspection (a
    refused file graded as its stub) and the checks of that tree; prints
    which files outside the lab's it ignored. Returns (N, M, outcomes)."""
    check_lab(lab, root)
    first = started_from(root)
    if first is None:
        raise LabError("%s has no git repository: it cannot tell what lab-start made, so it "
                       "cannot grade as the teacher will (make grade LAB=%s SUBMISSION=DIR "
                       "in the teacher's tree does)" % (root, lab))
    seed = new_seed() if seed is None else seed
    work = work or os.path.join(root, "build", "grade", "work", "this-tree")
    changes = outside_changes(root, lab, first)
    make_student_scratch(work, lab, root, first, changes)
    # the stubs lab-start gave (root's first commit); the interface and the
    # checks as it made them too (work's, restored), never the tree's own
    import labinspect
    stubs = stub_sources(lab, root)
    try:
        refused = {lab: labinspect.inspect_lab(lab, work, work, stubs)}
    except labinspect.InspectError as e:
        raise LabError("cannot inspect the lab files: %s" % e)
    for rel in refused[lab]:
        with open(os.path.join(work, rel), "w") as f:
            f.write(stubs[rel])
        obj = os.path.join(work, "build", os.path.splitext(rel)[0] + ".o")
        if os.path.exists(obj):
            os.remove(obj)
    preface = ["This tree, graded as its submission: lab %s's files (%s) over the tree "
               "lab-start made (commit %s)" % (lab, ", ".join(lab_files(lab, root)), first[:12]),
               ignored_line(changes)]
    return grade([lab], results_path, work, out, seed, work, preface, None,
                 "make grade LAB=%s SEED=%d" % (lab, seed), only, refused)


def print_steps(lab, out=sys.stdout):
    checks, steps = load_lab(lab)
    items = read_strip(lab)
    print("Lab %s: %d steps (the verbs of labs/%s/strip's hints)" % (lab, len(steps), lab),
          file=out)
    for it in items:
        print("\n%s %s: %s" % (it.path, it.target, it.hint), file=out)
        for s in [s for s in steps if s.function == it.target]:
            graded = [c.name for c in checks if s in c.steps]
            if s.wrong is None:
                print("  - %s\n      not graded: %s" % (s.name, s.why), file=out)
            else:
                print("  - %s\n      graded by: %s\n      wrong/%s.patch leaves it out"
                      % (s.name, "; ".join(graded) or "NOTHING", s.wrong), file=out)


def main(argv):
    cmds = ("start", "grade", "grade-class", "autograder", "steps", "list", "interface")
    if not argv or argv[0] not in cmds:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    opts, args, i = {}, [], 1
    while i < len(argv):
        a = argv[i]
        if a in ("--submission", "--seed", "--results", "--work", "--jobs", "--timeout", "--only"):
            if i + 1 >= len(argv):
                print("lab: %s needs a value" % a, file=sys.stderr)
                return 2
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a in ("--with-build",):
            opts[a[2:]] = True
        elif a:
            args.append(a)
        i += 1
    try:
        seed = opts.get("seed") or None
        if seed is not None:
            if not seed.isdigit():
                raise LabError("--seed wants a number, found %r" % seed)
            seed = int(seed)
        only = None
        if opts.get("only"):
            if not re.match(r"^\d+(,\d+)*$", opts["only"]):
                raise LabError("--only wants check numbers, as 1,4, found %r" % opts["only"])
            only = {int(x) for x in opts["only"].split(",")}
        if argv[0] == "list":
            print("\n".join(lab_order()))
        elif argv[0] == "start":
            if not args:
                raise LabError("which lab? make lab-start LAB=NAME (labs: %s)"
                               % " ".join(lab_order()))
            dest = args[1] if len(args) > 1 else \
                os.path.join(os.path.dirname(ROOT), "ronx-lab-" + args[0])
            dest, changed = start(args[0], dest, opts.get("with-build", False))
            # without the seeds (RONX_SEEDS=DIR names them) the tree has no
            # seeds/ and the handouts name ../shared/seeds/ as before: nothing to say
            print("ronx: lab %s: your tree is %s (stripped: %s)" % (args[0], dest, ", ".join(changed)))
            print("ronx: read docs/labs/%s.md there; 'make grade LAB=%s' grades it" % (args[0], args[0]))
        elif argv[0] == "interface":
            import labinspect
            for lab in args or written_labs():
                check_lab(lab)
                syms, insns = labinspect.derive_interface(lab, ROOT, lab_files(lab))
                have = labinspect.read_interface(lab, ROOT)
                stub = set()
                for rel, text in stub_sources(lab).items():
                    if rel.endswith(".c"):
                        with tempfile.TemporaryDirectory() as tmp:
                            stub |= set(labinspect.stub_description(ROOT, rel, text, tmp)
                                        ["undefined"])
                lacks = [x for x in syms if x not in have.symbols | stub |
                         labinspect.COMPILER_SYMBOLS] + \
                    ["insn " + x for x in insns if x not in have.insns]
                print("labs/%s/interface %s" % (lab, "lacks: " + " ".join(lacks) if lacks else
                                                "covers what the solved files use"))
        elif argv[0] == "steps":
            for lab in args or written_labs():
                check_lab(lab)
                print_steps(lab)
        elif argv[0] == "autograder":
            import autograder
            if len(args) != 1:
                raise LabError("which lab? make autograder LAB=NAME (labs: %s)"
                               % " ".join(written_labs()))
            check_lab(args[0])
            print("ronx: %s" % autograder.make_zip(args[0]))
        elif argv[0] == "grade-class":
            import gradeclass
            if len(args) != 2:
                raise LabError("make grade-class LAB=NAME SUBMISSIONS=DIR")
            check_lab(args[0])
            gradeclass.grade_class(args[0], args[1], jobs=int(opts.get("jobs") or 0) or None,
                                   timeout=float(opts.get("timeout") or gradeclass.TIMEOUT),
                                   seed=seed)
        elif "submission" in opts:
            if len(args) != 1:
                raise LabError("grade a submission for one lab: make grade LAB=NAME "
                               "SUBMISSION=PATH")
            results = opts.get("results") or os.path.join(ROOT, "build", "grade", "results.json")
            grade_submission(args[0], opts["submission"], results, opts.get("work"), seed,
                             only=only)
        else:
            mine = student_lab()
            labs = args or ([mine] if mine else written_labs())
            for lab in labs:
                check_lab(lab)
            results = opts.get("results") or os.path.join(ROOT, "build", "grade", "results.json")
            if mine in labs and len(labs) > 1:
                raise LabError("this is a student's tree for lab %s: make grade LAB=%s grades "
                               "it, alone" % (mine, mine))
            if mine in labs:
                grade_student_tree(mine, results, work=opts.get("work"), seed=seed, only=only)
            else:
                grade(labs, results, seed=seed, only=only)
    except LabError as e:
        print("lab: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
