#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ronx as a course: make a student's tree for one lab, or grade a tree.

    tools/lab.py start LAB [DIR]    the student's tree (default ../ronx-lab-LAB):
                                    the whole project with LAB's items stripped
                                    (labs/LAB/strip), labs/*/wrong/ left out,
                                    a fresh git repository with one commit
    tools/lab.py grade [LAB...]     build, run the labs' checks (every lab of
                                    labs/ORDER written so far if none named),
                                    print one line per check and "Score: N/M",
                                    write build/grade/results.json (Gradescope)
    tools/lab.py list               the labs, in order

start --with-build also copies build/ (cp -a), so that make in the new tree
rebuilds only what the strip changed: the test of the grader uses it.

make lab-start LAB=... [DIR=...] and make grade [LAB=...] call this.
The strip list and the checks are described in labs/grading.py and
docs/labs/README.md.
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS = os.path.join(ROOT, "labs")
sys.path.insert(0, LABS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cstrip  # noqa: E402

SCAFFOLD = os.path.join(LABS, "scaffold")   # lab_todo(), added to student trees
STUDENT_MARK = os.path.join("labs", "student-tree")   # names the lab a student's tree is for
ALIGN_LINE = re.compile(r"^(\s*)\.\s*=\s*ALIGN\(PAGE_SIZE\);\s*$", re.M)


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


def apply_strip(tree, lab, items):
    """Strips items in the tree at `tree`; returns the files changed."""
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
            else:
                raise cstrip.StripError("can strip C functions (.c, .h) and linker "
                                        "script sections (.ld) only")
        except cstrip.StripError as e:
            raise LabError("%s: %s: %s" % (it.where, it.path, e))
        changed[it.path] = src
    for rel, src in changed.items():
        if rel.endswith((".c", ".h")):
            src = cstrip.mark_unused_statics(cstrip.add_include(src, "ronx/lab.h"))
        with open(os.path.join(tree, rel), "w") as f:
            f.write(src)
    return sorted(changed)


# -- lab-start ---------------------------------------------------------------
def project_files(root):
    """The project's files: git's list (tracked and new, not ignored) if it
    is a git tree, else every file outside build/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.split("\0") if f]
    except (subprocess.CalledProcessError, FileNotFoundError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return [f for f in files if not re.match(r"labs/[^/]+/wrong/", f)
            and os.path.isfile(os.path.join(root, f))]


def copy_build(root, dest):
    """root's build/ into dest with its times (cp -a), so that make there
    rebuilds only what changes; without root's grades and test logs."""
    if os.path.isdir(os.path.join(root, "build")):
        subprocess.run(["cp", "-a", os.path.join(root, "build"), dest], check=True)
        for d in ("grade", "results"):
            shutil.rmtree(os.path.join(dest, "build", d), ignore_errors=True)


def add_scaffold(dest):
    """lab_todo() and its header, into the tree at dest."""
    for d, _, names in os.walk(SCAFFOLD):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), SCAFFOLD)
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(os.path.join(d, n), os.path.join(dest, rel))


def start(lab, dest, with_build=False, git=True):
    check_lab(lab)
    dest = os.path.abspath(dest)
    if os.path.exists(dest) and os.listdir(dest):
        raise LabError("%s already exists and is not empty; pass DIR=... for another place" % dest)
    for rel in project_files(ROOT):
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))
    if with_build:
        copy_build(ROOT, dest)
    add_scaffold(dest)
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
def load_checks(lab, root=ROOT):
    import grading
    path = os.path.join(root, "labs", lab, "checks.py")
    spec = importlib.util.spec_from_file_location("checks_" + lab.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    grading.take_registered()
    spec.loader.exec_module(mod)
    checks = grading.take_registered()
    if not checks:
        raise LabError("%s registers no @check" % path)
    return checks


def build(root=ROOT):
    """Builds what grading boots; returns None, or the end of the failed
    build's output."""
    r = subprocess.run(["make", "-C", root, "--no-print-directory",
                        "build/kernel.elf", "build/initrd.cpio"],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return None
    return "\n".join((r.stdout + r.stderr).splitlines()[-25:])


def grade(labs, results_path, root=ROOT, out=sys.stdout):
    """Grades labs; prints the lines and writes results.json; returns (N, M)."""
    import grading
    t0 = time.monotonic()
    outcomes = []
    failed_build = build(root)
    if failed_build:
        print("The tree does not build; every check scores 0. The end of make's output:\n"
              + failed_build, file=out, flush=True)
        errors = [ln for ln in failed_build.splitlines() if re.search(r"error:|\*\*\*", ln)]
        failed_build = "the tree does not build: " + (errors[0] if errors else "make failed")
    ctx = grading.Context(root)
    try:
        for lab in labs:
            for name, points, fn in load_checks(lab, root):
                if failed_build:
                    o = grading.Outcome(lab, name, points, 0, failed_build, 0)
                else:
                    o = grading.run_check(ctx, lab, name, points, fn)
                outcomes.append(o)
                print(o.line(), file=out, flush=True)
                if o.output:
                    print("\n".join("        " + ln for ln in o.output.splitlines()),
                          file=out, flush=True)
    finally:
        ctx.close()
    seconds = time.monotonic() - t0
    res = grading.gradescope(outcomes, seconds)
    os.makedirs(os.path.dirname(results_path), exist_ok=True)
    with open(results_path, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    total = sum(o.points for o in outcomes)
    print("Score: %d/%d" % (res["score"], total), file=out, flush=True)
    return res["score"], total, outcomes


def main(argv):
    if not argv or argv[0] not in ("start", "grade", "list"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        if argv[0] == "list":
            print("\n".join(lab_order()))
        elif argv[0] == "start":
            if len(argv) < 2 or not argv[1]:
                raise LabError("which lab? make lab-start LAB=NAME (labs: %s)"
                               % " ".join(lab_order()))
            with_build = "--with-build" in argv
            args = [a for a in argv[1:] if a != "--with-build"]
            dest = args[1] if len(args) > 1 and args[1] else \
                os.path.join(os.path.dirname(ROOT), "ronx-lab-" + args[0])
            dest, changed = start(args[0], dest, with_build)
            print("ronx: lab %s: your tree is %s (stripped: %s)" % (args[0], dest, ", ".join(changed)))
            print("ronx: read docs/labs/%s.md there; 'make grade LAB=%s' grades it" % (args[0], args[0]))
        else:
            labs = [a for a in argv[1:] if a] or written_labs()
            for lab in labs:
                check_lab(lab)
            score, total, _ = grade(labs, os.path.join(ROOT, "build", "grade", "results.json"))
    except LabError as e:
        print("lab: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
