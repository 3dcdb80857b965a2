#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The test of the lab grader, in both directions, for every lab in
labs/ORDER (results: build/results/labs.ktap):

  - unit tests of the stripper and of the grading library
    (tests/labs/test_cstrip.py, test_grading.py);
  - the solved tree grades full marks on every lab;
  - each lab's stripped tree (make lab-start) builds with -Werror, boots
    to the prompt or prints its lab_todo() line, and grades below full;
  - each labs/<lab>/wrong/*.patch applies to the solved tree and grades
    below full;
  - every graded check fails in at least one stripped tree or wrong
    solution (a check nothing fails cannot fail, and is a failure here);
  - a stub the boot cannot do without (paging_init()) prints its
    lab_todo() line before the kernel dies.

Variants are copies of this tree with its build/ (cp -a), so make only
rebuilds what the strip or the patch changed; they run one after another.

    tests/labs/run.py              every lab
    tests/labs/run.py cpa layout   only these
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)

import lab  # noqa: E402
import test_cstrip  # noqa: E402
import test_grading  # noqa: E402
from results import Results, progress  # noqa: E402

PYTHON = sys.executable


def grade_tree(tree, names):
    """Runs `tools/lab.py grade NAMES` in tree; returns ({check: (score, max)}, output)."""
    r = subprocess.run([PYTHON, os.path.join(tree, "tools", "lab.py"), "grade"] + names,
                       capture_output=True, text=True, cwd=tree)
    path = os.path.join(tree, "build", "grade", "results.json")
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError("grade %s in %s failed:\n%s" % (" ".join(names), tree, (r.stdout + r.stderr)[-1500:]))
    with open(path) as f:
        res = json.load(f)
    checks = {t["name"]: (t["score"], t["max_score"]) for t in res["tests"]}
    return checks, r.stdout


def copy_solved(dest):
    """This tree's project files and its build/, as a patchable copy."""
    for rel in lab.project_files(ROOT):
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))
    lab.copy_build(ROOT, dest)


def make(tree):
    r = subprocess.run(["make", "-C", tree, "--no-print-directory",
                        "build/kernel.elf", "build/initrd.cpio"], capture_output=True, text=True)
    out = r.stdout + r.stderr
    return r.returncode == 0 and "warning:" not in out, out


def boot_logs(tree):
    logs = os.path.join(tree, "build", "results", "logs")
    text = ""
    for n in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        if n.startswith("grade-"):
            with open(os.path.join(logs, n), errors="replace") as f:
                text += f.read()
    return text


def summary(checks):
    got = sum(s for s, _ in checks.values())
    return got, sum(m for _, m in checks.values())


def failing(checks):
    return [n for n, (s, m) in checks.items() if s < m]


def test_stripped(t, name, failed_somewhere, tmp):
    tree = os.path.join(tmp, "strip-" + name)
    t0 = time.monotonic()
    _, changed = lab.start(name, tree, with_build=True, git=False)
    ok, out = make(tree)
    t.check(ok, "%s: the stripped tree builds without warnings" % name, out[-1500:])
    if not ok:
        return
    checks, text = grade_tree(tree, [name])
    got, total = summary(checks)
    t.check(got < total, "%s: the stripped tree grades below full (%d/%d)" % (name, got, total),
            text[-1500:])
    fails = failing(checks)
    t.check(fails, "%s: some of the lab's own checks fail in the stripped tree (%d of %d)"
            % (name, len(fails), len(checks)))
    failed_somewhere.update(fails)
    log = boot_logs(tree)
    funcs = [it.target for it in lab.read_strip(name) if it.path.endswith((".c", ".h"))]
    ready = "ronx: ready" in log
    told = [f for f in funcs if "ronx: lab %s: %s() is not written yet" % (name, f) in log]
    if funcs:
        t.check(told, "%s: the stripped kernel says which lab function is missing (%s)"
                % (name, ", ".join(told) or "none said"), log[-1200:])
    t.check(ready or told, "%s: the stripped kernel reaches the prompt, or says why not"
            % name, log[-1200:])
    progress("  %s: stripped %s: %d/%d, %d checks fail, %.0fs"
             % (name, ", ".join(changed), got, total, len(fails), time.monotonic() - t0))


def test_wrong(t, name, patch, failed_somewhere, tmp):
    wname = os.path.basename(patch)[:-len(".patch")]
    tree = os.path.join(tmp, "wrong-%s-%s" % (name, wname))
    t0 = time.monotonic()
    copy_solved(tree)
    r = subprocess.run(["patch", "-p1", "-s", "-i", patch], cwd=tree, capture_output=True,
                       text=True)
    if not t.check(r.returncode == 0, "%s: wrong/%s applies to the solved tree" % (name, wname),
                   r.stdout + r.stderr):
        return
    ok, out = make(tree)
    if not t.check(ok, "%s: wrong/%s builds" % (name, wname), out[-1500:]):
        return
    checks, text = grade_tree(tree, [name])
    got, total = summary(checks)
    fails = failing(checks)
    t.check(got < total, "%s: wrong/%s loses points (%d/%d)" % (name, wname, got, total),
            text[-1500:])
    failed_somewhere.update(fails)
    progress("  %s: wrong/%s: %d/%d (%s), %.0fs" % (name, wname, got, total,
                                                   "; ".join(fails) or "nothing failed",
                                                   time.monotonic() - t0))
    shutil.rmtree(tree, ignore_errors=True)


BOOT = """
import sys
sys.path.insert(0, "tests/qemu")
from guest import Guest, GuestError
with Guest("todo-before-failure") as g:
    try:
        g.wait_ready()
        print("READY")
    except GuestError:
        pass
    print(g.out)
"""


def test_todo_before_failure(t, tmp):
    """A stub the boot cannot do without (here paging_init(), as a lab
    "demo" would strip it): the kernel must name it before it dies."""
    tree = os.path.join(tmp, "todo")
    copy_solved(tree)
    lab.add_scaffold(tree)
    lab.apply_strip(tree, "demo", [lab.Item("mm/init.c", "paging_init", "map the direct map",
                                            "tests/labs/run.py")])
    ok, out = make(tree)
    if not t.check(ok, "a kernel without paging_init() builds", out[-1500:]):
        return
    r = subprocess.run([PYTHON, "-c", BOOT], cwd=tree, capture_output=True, text=True,
                       timeout=120)
    log = r.stdout
    said = log.find("ronx: lab demo: paging_init() is not written yet - see docs/labs/demo.md")
    died = max(log.find("Kernel panic"), log.find("BUG:"))
    t.check("READY" not in log and died >= 0,
            "a kernel without paging_init() does not boot (it panics)", log[-1200:])
    t.check(0 <= said < died if died >= 0 else said >= 0,
            "... and names the missing function before it dies", log[-1200:])
    shutil.rmtree(tree, ignore_errors=True)


def test_broken_tree(t, tmp, name):
    """A tree that does not build grades 0 on every check and says why."""
    tree = os.path.join(tmp, "broken")
    copy_solved(tree)
    with open(os.path.join(tree, "mm", "init_32.c"), "a") as f:
        f.write("int broken(\n")
    checks, text = grade_tree(tree, [name])
    with open(os.path.join(tree, "build", "grade", "results.json")) as f:
        outputs = [x["output"] for x in json.load(f)["tests"]]
    t.check(summary(checks)[0] == 0 and text.rstrip().endswith("Score: 0/%d" % summary(checks)[1]),
            "a tree that does not build grades 0", text[-800:])
    t.check(outputs and all("does not build: mm/init_32.c" in o and "error:" in o for o in outputs),
            "... and each check says the compiler's error", "\n".join(outputs[:2]))
    shutil.rmtree(tree, ignore_errors=True)


def test_unit(t):
    for prefix, mod in (("cstrip", test_cstrip), ("grading", test_grading)):
        for name, fn in mod.TESTS:
            try:
                fn()
                t.check(True, "%s: %s" % (prefix, name))
            except Exception as e:  # one failing unit test, the others still run
                t.fail("%s: %s" % (prefix, name), "%s: %s" % (type(e).__name__, e))


def main(argv):
    t = Results()
    t0 = time.monotonic()
    test_unit(t)
    mark = os.path.join(ROOT, lab.STUDENT_MARK)
    if os.path.exists(mark):
        # a student's tree: one lab stripped on purpose, no wrong solutions
        with open(mark) as f:
            name = f.readline().strip()
        t.skip("the grader's test", "a student's tree for lab %s: make grade LAB=%s grades it"
               % (name, name))
    else:
        test_labs(t, [n for n in lab.lab_order() if not argv or n in argv])
    os.makedirs(os.path.join(ROOT, "build", "results"), exist_ok=True)
    t.write(os.path.join(ROOT, "build", "results", "labs.ktap"))
    progress("labs: %d checks in %.0fs, %d failed" % (t.count, time.monotonic() - t0, t.failed))
    return 1 if t.failed else 0


def test_labs(t, labs):
    present = [n for n in labs if os.path.exists(os.path.join(ROOT, "labs", n, "checks.py"))]
    for n in labs:
        if n not in present:
            t.skip("%s: graded" % n, "labs/%s/ is not written yet" % n)
    ok, out = make(ROOT)
    t.check(ok, "the solved tree builds", out[-1500:])
    progress("labs: grading the solved tree (%s)" % " ".join(present))
    solved, text = grade_tree(ROOT, present) if present else ({}, "")
    for n in present:
        mine = {k: v for k, v in solved.items() if k.startswith(n + ": ")}
        got, total = summary(mine)
        t.check(mine and got == total, "%s: the solved tree grades full marks (%d/%d)"
                % (n, got, total), "\n".join(failing(mine)) + "\n" + text[-1500:])
    tmp = tempfile.mkdtemp(prefix="ronx-labs-")
    try:
        test_todo_before_failure(t, tmp)
        if present:
            test_broken_tree(t, tmp, present[0])
        for n in present:
            failed_somewhere = set()
            progress("labs: %s" % n)
            test_stripped(t, n, failed_somewhere, tmp)
            wrong = os.path.join(ROOT, "labs", n, "wrong")
            patches = sorted(os.listdir(wrong)) if os.path.isdir(wrong) else []
            t.check(len(patches) >= 2, "%s: at least two wrong solutions (%d)" % (n, len(patches)))
            for p in patches:
                test_wrong(t, n, os.path.join(wrong, p), failed_somewhere, tmp)
            for c in sorted(k for k in solved if k.startswith(n + ": ")):
                t.check(c in failed_somewhere, "%s fails in a stripped tree or a wrong solution" % c,
                        "no stripped tree and no wrong/*.patch makes this check fail: "
                        "it cannot fail")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
