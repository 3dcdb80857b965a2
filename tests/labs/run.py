#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The test of the lab grader, in both directions, for every lab in
labs/ORDER (results: build/results/labs.ktap):

  - unit tests of the stripper, of the grading library, of the
    inspection before linking (tests/labs/test_cstrip.py, test_grading.py,
    test_inspect.py), of the reading of a lab object's count changes
    (test_atomics.py), of the outside model of the page tables
    (test_pagemodel.py), and of the scenarios labs 1-8 draw from a seed:
    every seed has every graded case (test_scenarios.py);
  - per lab: the solved files pass the inspection; the student's tree
    (make lab-start) holds none of the solved functions' bodies, no wrong
    solution and no cheat, and each stub declares what its hint names;
  - the solved tree grades full marks on every lab (graded as a tree);
  - per lab, a class of submissions graded the way a course grades them
    (tools/lab.py grade-class: only the lab's files are taken from each):
    the solved files (as a zip or a tarball), the stripped tree (make
    lab-start), every labs/<lab>/wrong/*.patch, and the cheats of
    tests/labs/cheats/ (edits outside the lab's files, or answers that
    remember the scenario):
      * the solved files grade full marks, the stripped tree below full
        and says which stub it still is;
      * every wrong solution loses points, and touches only the lab's files
        (the wrong solution of a step is graded with the checks of that
        step: it must fail one of them);
      * every step the lab declares has its wrong solution, and one of the
        checks that grade the step fails in it;
      * every graded check fails in the stripped tree or a wrong solution;
      * a cheat that edits only other files scores what the stripped tree
        scores (its real lab code), one that remembers answers loses points;
  - every wrong solution loses points under each of ten seeds (SEEDS:
    graded again in the tree its class grade built; a check that draws
    nothing from the seed, seen failing once, fails under all of them),
    on a loaded machine (Load: make test's other stages, busy loops),
    and the scenarios of 400 seeds each have every case
    (tests/labs/test_scenarios.py);
  - the grades' words where the trials found them misleading (MESSAGES);
  - a submission graded alone scores what it scored in the class, and one
    whose kernel hangs is stopped at its time limit with nothing left running;
  - submissions that are broken (missing a lab file, not compiling, not a
    submission at all, an archive, a lab file that registers a KTEST or
    writes port 0xe9) are graded with a one-line reason;
  - make lab-start prints its two lines and nothing of the seeds, from
    the teacher's tree, a student's tree and a copy far from the seeds;
  - the Gradescope autograder zip, unpacked into a directory laid out as
    Gradescope's container, grades a solved, a stripped and a cheating
    submission into a results.json with Gradescope's fields;
  - a stub the boot cannot do without (paging_init()) prints its
    lab_todo() line before the kernel dies.

    tests/labs/run.py              every lab
    tests/labs/run.py cpa layout   only these
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)

import gradeclass  # noqa: E402
import lab  # noqa: E402
import test_atomics  # noqa: E402
import test_cstrip  # noqa: E402
import test_grading  # noqa: E402
import test_handouts  # noqa: E402
import test_inspect  # noqa: E402
import test_pagemodel  # noqa: E402
import test_scenarios  # noqa: E402
from results import Results, cpu_seconds, progress  # noqa: E402

PYTHON = sys.executable
# submissions graded at a time (and seed workers: twice as many); the
# default is every core, as tests/qemu/run.py's QEMU_JOBS
JOBS = int(os.environ.get("LAB_JOBS") or os.cpu_count() or 1)
CHEATS = os.path.join(HERE, "cheats")
SEED = 20261203     # one seed for the whole test: every grade sees the same scenarios


def grade_tree(tree, names):
    """Runs `tools/lab.py grade NAMES` in tree; returns ({check: (score, max)}, output)."""
    r = subprocess.run([PYTHON, os.path.join(tree, "tools", "lab.py"), "grade"] + names
                       + ["--seed", str(SEED)], capture_output=True, text=True, cwd=tree)
    path = os.path.join(tree, "build", "grade", "results.json")
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError("grade %s in %s failed:\n%s" % (" ".join(names), tree, (r.stdout + r.stderr)[-1500:]))
    with open(path) as f:
        res = json.load(f)
    checks = {t["name"]: (t["score"], t["max_score"]) for t in res["tests"]}
    return checks, r.stdout


def grade_alone(name, path, results, only=None, env=None):
    """`tools/lab.py grade NAME --submission PATH`: (results dict, output).
    env: more environment for the grader."""
    r = subprocess.run([PYTHON, os.path.join(ROOT, "tools", "lab.py"), "grade", name,
                        "--submission", path, "--results", results, "--seed", str(SEED),
                        "--work", results + ".work"] + (["--only", only] if only else []),
                       capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, **(env or {})))
    shutil.rmtree(results + ".work", ignore_errors=True)
    res = None
    if os.path.exists(results):
        with open(results) as f:
            res = json.load(f)
    return res, r.stdout + r.stderr


def copy_solved(dest):
    """This tree's project files and its build/, as a patchable copy."""
    lab.copy_files(ROOT, dest, lab.project_files(ROOT))
    lab.copy_build(ROOT, dest)


def make(tree):
    r = subprocess.run(["make", "-C", tree, "--no-print-directory",
                        "build/kernel.elf", "build/initrd.cpio"], capture_output=True, text=True)
    out = r.stdout + r.stderr
    return r.returncode == 0 and "warning:" not in out, out


def summary(checks):
    got = sum(s for s, _ in checks.values())
    return got, sum(m for _, m in checks.values())


def failing(checks):
    return [n for n, (s, m) in checks.items() if s < m]


def patch_files(patch):
    """The files a unified diff changes."""
    with open(patch) as f:
        return sorted({ln[len("+++ b/"):].split("\t")[0].strip() for ln in f
                       if ln.startswith("+++ b/")})


def apply(patch, tree):
    r = subprocess.run(["patch", "-p1", "-s", "-i", patch], cwd=tree, capture_output=True,
                       text=True)
    return r.returncode == 0, r.stdout + r.stderr


def lab_files_dir(name, dest):
    """dest/ with the solved tree's files of lab name, at their paths."""
    for rel in lab.lab_files(name):
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))
    return dest


def archive(src, dest, top):
    """src/ as a zip (dest ends .zip) or a tarball, inside one top directory."""
    if dest.endswith(".zip"):
        with zipfile.ZipFile(dest, "w") as z:
            for rel in lab.submission.walk_files(src):
                z.write(os.path.join(src, rel), os.path.join(top, rel))
    else:
        with tarfile.open(dest, "w:gz") as t:
            t.add(src, arcname=top)
    shutil.rmtree(src)
    return dest


class Variants:
    """One lab's class of submissions, made in a directory."""

    def __init__(self, t, name, tmp, index):
        self.t, self.name, self.tmp = t, name, tmp
        self.dir = os.path.join(tmp, "class-" + name)
        os.makedirs(self.dir)
        self.kinds = {}     # submission name -> ("solved"|"stripped"|"wrong"|"cheat", detail)
        self.files = lab.lab_files(name)
        form = ".zip" if index % 2 == 0 else ".tar.gz"
        archive(lab_files_dir(name, os.path.join(tmp, "solved-" + name)),
                os.path.join(self.dir, "solved" + form), "ronx-lab-" + name)
        self.kinds["solved"] = ("solved", form)
        self.stripped = os.path.join(self.dir, "stripped")
        _, self.changed = lab.start(name, self.stripped, with_build=False, git=True)
        self.kinds["stripped"] = ("stripped", "")

    def add_wrong(self, patch):
        w = os.path.basename(patch)[:-len(".patch")]
        outside = [f for f in patch_files(patch) if f not in self.files]
        self.t.check(not outside, "%s: wrong/%s changes only the lab's files" % (self.name, w),
                     "it changes %s, which a submission's grade ignores: make it a cheat "
                     "(tests/labs/cheats/) instead" % ", ".join(outside))
        d = lab_files_dir(self.name, os.path.join(self.dir, "wrong-" + w))
        ok, out = apply(patch, d)
        if self.t.check(ok, "%s: wrong/%s applies to the solved files" % (self.name, w), out):
            self.kinds["wrong-" + w] = ("wrong", w)
        else:
            shutil.rmtree(d)

    def add_cheat(self, patch):
        c = os.path.basename(patch)[:-len(".patch")]
        d = os.path.join(self.dir, "cheat-" + c)
        shutil.copytree(self.stripped, d, symlinks=True)
        ok, out = apply(patch, d)
        if self.t.check(ok, "%s: cheat %s applies to the stripped tree" % (self.name, c), out):
            self.kinds["cheat-" + c] = ("cheat", c)
        else:
            shutil.rmtree(d)


def cheats_for(name, generic_lab):
    """tests/labs/cheats/<lab>-*.patch, and for generic_lab the any-*.patch
    cheats too (they edit no lab's file: one lab shows what they get)."""
    if not os.path.isdir(CHEATS):
        return []
    return [os.path.join(CHEATS, p) for p in sorted(os.listdir(CHEATS)) if p.endswith(".patch")
            and (p.startswith(name + "-") or (name == generic_lab and p.startswith("any-")))]


def results_of(name, sub):
    with open(os.path.join(ROOT, "build", "grade", name, sub, "results.json")) as f:
        return json.load(f)


def make_class(t, name, index, tmp, generic_lab):
    """The lab's class of submissions: (Variants, checks, steps)."""
    checks, steps = lab.load_lab(name)
    test_declarations(t, name, checks, steps)
    v = Variants(t, name, tmp, index)
    test_no_answers(t, name, v.stripped)
    test_stub_declares_its_hints(t, name, header_names())
    wrong_dir = os.path.join(ROOT, "labs", name, "wrong")
    patches = sorted(p for p in os.listdir(wrong_dir) if p.endswith(".patch")) \
        if os.path.isdir(wrong_dir) else []
    t.check(len(patches) >= 2, "%s: at least two wrong solutions (%d)" % (name, len(patches)))
    for p in patches:
        v.add_wrong(os.path.join(wrong_dir, p))
    for p in cheats_for(name, generic_lab):
        v.add_cheat(p)
    return v, checks, steps


# the kernel's own sources: other labs' solved code and the kernel's idioms
# (a loop over the online CPUs) are there on purpose
KERNEL_DIRS = ("kernel/", "mm/", "modload/", "include/", "boot/")


def test_no_answers(t, name, tree):
    """The student's tree carries nothing of the lab's answer: no file
    outside the kernel's sources (tests/, tools/, labs/, the other
    handouts...) holds most of a solved function's body, in its code, its
    comments or its strings (a unit test's nasm lines); no comment in the
    kernel's sources does. The lab's own handout may show a fragment on
    purpose (uaccess's exception-table entry) and is left to the teacher."""
    files = [f for f in lab.submission.walk_files(tree) if f != "docs/labs/%s.md" % name]
    hits = lab.answers_in(tree, name, files=files, comments_only=KERNEL_DIRS)
    t.check(not hits, "%s: the student's tree holds none of the solved functions' bodies "
            "(%d files scanned, the kernel's sources for their comments)" % (name, len(files)),
            "\n".join(hits[:10]))
    # the scan finds an answer where one is: the solved files copied under
    # tests/, as a Python test's strings, and as a comment in the kernel
    planted = []
    for rel in {it.path for it in lab.read_strip(name) if it.path.endswith((".c", ".inc"))}:
        with open(os.path.join(ROOT, rel)) as f:
            text = f.read()
        for dest, body in (
                ("tests/answer-" + os.path.basename(rel), text),
                ("tests/answer_%s.py" % os.path.basename(rel).replace(".", "_"),
                 "ANSWER = (\n%s)\n" % "\n".join("    %r" % (ln + "\n")
                                                  for ln in text.splitlines())),
                ("kernel/answer-%s.c" % os.path.basename(rel),
                 "/*\n%s\n */\n" % "\n".join(" * " + ln.replace("*/", "")
                                               for ln in text.splitlines()))):
            with open(os.path.join(tree, dest), "w") as f:
                f.write(body)
            planted.append(dest)
    if planted:
        def funcs_in(dest):
            return {h.split("'s ", 1)[1].split("()")[0] for h in
                    lab.answers_in(tree, name, files=[dest], comments_only=KERNEL_DIRS)}
        missed = []
        for i in range(0, len(planted), 3):
            plain = funcs_in(planted[i])
            want = {it.target for it in lab.read_strip(name) if it.path.endswith(".c")
                    and os.path.basename(it.path) in planted[i]}
            missed += ["%s in %s" % (f, planted[i]) for f in sorted(want - plain)]
            for dest in planted[i + 1:i + 3]:
                missed += ["%s in %s" % (f, dest) for f in sorted(plain - funcs_in(dest))]
        t.check(not missed, "%s: ... and the scan finds each solved function copied under "
                "tests/, as a test's strings and in a kernel comment" % name,
                "missed: " + "; ".join(missed))
        for p in planted:
            os.remove(os.path.join(tree, p))
    shipped = [f for f in lab.submission.walk_files(tree) if lab.NOT_SHIPPED.match(f)]
    t.check(not shipped, "%s: the student's tree has no wrong solutions and no cheats" % name,
            " ".join(shipped[:10]))


def header_names():
    """(every identifier, every name followed by "(") of the kernel's
    headers outside their comments."""
    names, called = set(), set()
    for d, _, ns in os.walk(os.path.join(ROOT, "include")):
        for n in ns:
            with open(os.path.join(d, n)) as f:
                text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", f.read(), flags=re.S)
            names.update(re.findall(r"\b[A-Za-z_]\w*\b", text))
            called.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))
    return names, called


def test_stub_declares_its_hints(t, name, hdr):
    """Each stub compiles as its hint says: every kernel function or macro
    the strip line's hint or the comment above the function names (and
    local_irq_save() for "interrupts off") is declared where the stub is."""
    import labinspect
    stubs = lab.stub_sources(name)
    for it in lab.read_strip(name):
        if not it.path.endswith(".c"):
            continue
        src = stubs[it.path]
        fn = lab.cstrip.find_functions(lab.cstrip.code_only(src), it.target)[0]
        m = re.search(r"/\*(?:(?!\*/).)*\*/$", src[:fn.start].rstrip(), re.S)
        text = it.hint + " " + (m.group(0) if m else "")
        ids = (set(re.findall(r"\b([A-Za-z_]\w*)\(", text)) & hdr[1]) | \
            {i for i in re.findall(r"\b[A-Za-z_]\w*\b", text) if "_" in i and i in hdr[0]}
        if re.search(r"interrupts (off|disabled)", text):
            ids.add("local_irq_save")
        # outside the tree (the classes are graded meanwhile, from copies of
        # its files), its own directory's headers found by -iquote as by "..."
        with tempfile.TemporaryDirectory(prefix="ronx-stub-") as d:
            path = os.path.join(d, os.path.basename(it.path))
            with open(path, "w") as f:
                f.write(src)
            r = subprocess.run(labinspect.compile_command(ROOT, it.path) + [
                "-iquote", os.path.join(ROOT, os.path.dirname(it.path)),
                "-I", os.path.join(ROOT, "labs", "scaffold", "include"), "-E", "-dD", path],
                capture_output=True, text=True, cwd=ROOT)
        missing = sorted(i for i in ids if not re.search(r"\b%s\b" % re.escape(i), r.stdout))
        t.check(r.returncode == 0 and not missing,
                "%s: the stub of %s %s() declares what its hint names (%d names)"
                % (name, it.path, it.target, len(ids)),
                "not declared there: %s (add the header's #include to %s)"
                % (", ".join(missing), it.path) if missing else r.stderr[-800:])


def checks_for_wrong(v, checks, steps, sub):
    """The numbers of the checks to grade submission sub with: for the
    wrong solution of a step, the checks that grade that step (it must
    fail one of them, and lose points by it); every check otherwise."""
    kind, what = v.kinds.get(sub, (None, None))
    if kind != "wrong":
        return None
    mine = [i for i, c in enumerate(checks, 1)
            if any(st.wrong == what for st in c.steps)]
    return mine or None


class Lines:
    """A file-like object that shows each line as progress."""
    def write(self, text):
        for ln in text.splitlines():
            if ln.strip():
                progress("  " + ln)

    def flush(self):
        pass


def test_lab(t, name, v, checks, steps, solved_tree):
    """The assertions on one lab's graded class."""
    res = {sub: results_of(name, sub) for sub in v.kinds}
    scores = {sub: {x["name"]: (x["score"], x["max_score"]) for x in r["tests"]}
              for sub, r in res.items()}
    failed_somewhere = set()
    solved_key = next(k for k, (kind, _) in v.kinds.items() if kind == "solved")
    got, total = summary(scores[solved_key])
    t.check(got == total, "%s: the solved files, as a %s submission, grade full marks (%d/%d)"
            % (name, v.kinds[solved_key][1], got, total),
            "\n".join("%s: %s" % (x["name"], x["output"]) for x in res[solved_key]["tests"]
                      if x["score"] < x["max_score"]))
    if solved_tree:
        t.check(scores[solved_key] == solved_tree,
                "%s: ... the same check by check as the solved tree graded as a tree" % name)
    test_stripped(t, name, v, scores["stripped"], res["stripped"], failed_somewhere)
    for sub, (kind, what) in sorted(v.kinds.items()):
        if kind == "wrong":
            got, total = summary(scores[sub])
            fails = failing(scores[sub])
            t.check(got < total, "%s: wrong/%s loses points (%d/%d)" % (name, what, got, total),
                    res[sub].get("output", ""))
            refused = [ln for ln in res[sub].get("output", "").splitlines()
                       if "refused before linking" in ln]
            t.check(not refused, "%s: wrong/%s passes the inspection before linking (a "
                    "plausible mistake, not a cheat)" % (name, what),
                    "\n".join(refused) + "\nextend labs/%s/interface if the call is one a "
                    "student may make" % name)
            failed_somewhere.update(fails)
            progress("  %s: wrong/%s: %d/%d (%s)" % (name, what, got, total,
                                                     "; ".join(fails) or "nothing failed"))
    test_steps(t, name, checks, steps, v, scores)
    test_cheats(t, name, v, scores, res)
    test_end_line_messages(t, name, v, res)
    test_pinned_messages(t, name, res)
    for c in checks:
        key = "%s: %s" % (name, c.name)
        t.check(key in failed_somewhere, "%s fails in a stripped tree or a wrong solution" % key,
                "no stripped tree and no wrong/*.patch makes this check fail: it cannot fail")


def test_end_line_messages(t, name, v, res):
    """No failure message of the stripped tree or a wrong solution says a
    program left no end line while the lines it quotes hold one (issue 21:
    the segfault line after the prompt on the same line)."""
    bad = []
    for sub, (kind, _) in sorted(v.kinds.items()):
        for x in res[sub]["tests"]:
            out = x["output"]
            i = out.find("no end line; it printed:")
            if i >= 0 and re.search(r"\S+\[\d+\]: segfault at |\[\d+\] \S+: (exit status|"
                                    r"killed by)", out[i:]):
                bad.append("%s: %s: %s" % (sub, x["name"], out[i:i + 300]))
    t.check(not bad, "%s: no message says 'no end line' above the end line it quotes" % name,
            "\n".join(bad[:3]))


# What a grade says, pinned where the trials found it misleading (issue
# 21): (lab, submission, words its output must have, words it must not).
MESSAGES = [
    ("tlb-shootdown", "stripped", "CPU 1 never ran cpuwrite's write (QEMU's gdbstub saw "
     "cpuwrite_here() on no CPU)", "CPU 1's write at"),
    ("tlb-shootdown", "stripped", "cpuwrite: CPU 1 did not run the write: no answer to the call",
     "faulted (#PF"),
    # LKDTM's other CPU is whichever the shell is not on: CPU 0 or CPU 1
    ("tlb-shootdown", "stripped", "did not run the first write: no answer to the call",
     "its TLB holds the page"),
    ("tlb-shootdown", "stripped", "did not write the canary before", "cannot be told apart"),
    ("tlb-shootdown", "wrong-local-only", "found no fault on that CPU", "never ran cpuwrite's write"),
    ("tlb-shootdown", "wrong-local-only", "its TLB holds the page", "did not run the first write"),
    ("tlb-shootdown", "wrong-local-only", "stale TLB entries", "cannot be told apart"),
    ("process-pagetables", "wrong-guard-closed-interval",
     "(ends exactly where the guard page starts): expected mapped, found mmap2 returned -12",
     None),
    ("process-pagetables", "wrong-no-guard", "expected the CPU to fault writing the unmapped "
     "guard page", None),
    # a program stuck on one fault is told by the fault's count, not by its 20 s limit
    ("process-pagetables", "wrong-pde-read-only", "found it stuck: the CPU took the same page "
     "fault 100 times in a row", "within 20s"),
    ("uaccess", "wrong-sn-task-size-after-load", "expected no read at TASK_SIZE (0xc0000000), "
     "found 1 by the kernel", None),
]


def test_pinned_messages(t, name, res):
    for lab_, sub, want, never in MESSAGES:
        if lab_ != name or sub not in res:
            continue
        out = "\n".join(x["output"] for x in res[sub]["tests"])
        t.check(want in out and (never is None or never not in out),
                "%s: %s's grade says %r%s" % (name, sub, want, "" if never is None
                                              else ", never %r" % never), out[-1500:])


def test_declarations(t, name, checks, steps):
    items = lab.read_strip(name)
    for c in checks:
        t.check(c.steps, "%s: check %r says which steps it grades" % (name, c.name))
    for it in items:
        mine = [s for s in steps if s.function == it.target]
        t.check(mine, "%s: %s %s has its steps declared" % (name, it.path, it.target),
                "declare step(%r, ...) in labs/%s/checks.py for each verb of: %s"
                % (it.target, name, it.hint))
    for s in steps:
        t.check(s.function in {it.target for it in items},
                "%s: step %r belongs to a function of the strip list" % (name, str(s)))
        if s.wrong is None:
            t.check(s.why and not any(s in c.steps for c in checks),
                    "%s: step %r, not graded, says why (and no check claims it)" % (name, str(s)))
            continue
        t.check(any(s in c.steps for c in checks), "%s: step %r is graded by a check"
                % (name, str(s)))


def test_stripped(t, name, v, scores, res, failed_somewhere):
    got, total = summary(scores)
    outputs = "\n".join(x["output"] for x in res["tests"])
    t.check("does not build" not in outputs, "%s: the stripped tree builds" % name, outputs[-1500:])
    t.check(got < total, "%s: the stripped tree grades below full (%d/%d)" % (name, got, total))
    fails = failing(scores)
    failed_somewhere.update(fails)
    funcs = [it.target for it in lab.read_strip(name) if it.path.endswith((".c", ".h"))]
    told = [f for f in funcs if "%s() is not written yet" % f in outputs]
    if funcs:
        t.check(told, "%s: a graded boot of the stripped kernel says which lab function is "
                "missing (%s), and that costs its points" % (name, ", ".join(told) or "none said"),
                outputs[-1200:])
    progress("  %s: stripped %s: %d/%d, %d checks fail"
             % (name, ", ".join(v.changed), got, total, len(fails)))


def test_steps(t, name, checks, steps, v, scores):
    for s in steps:
        if s.wrong is None:
            t.skip("%s: step %r" % (name, str(s)), "not graded: " + s.why)
            continue
        sub = "wrong-" + s.wrong
        graders = ["%s: %s" % (name, c.name) for c in checks if s in c.steps]
        if not t.check(sub in scores, "%s: step %r: labs/%s/wrong/%s.patch leaves it out"
                       % (name, str(s), name, s.wrong)):
            continue
        failed = [c for c in graders if scores[sub][c][0] < scores[sub][c][1]]
        t.check(failed, "%s: step %r: without it (wrong/%s) %s fails"
                % (name, str(s), s.wrong, "; ".join(failed) or "a check grading it"),
                "none of the checks that grade it failed: %s" % "; ".join(graders))


def test_cheats(t, name, v, scores, res):
    strip_score = summary(scores["stripped"])[0]
    for sub, (kind, what) in sorted(v.kinds.items()):
        if kind != "cheat":
            continue
        got, total = summary(scores[sub])
        out = res[sub].get("output", "")
        with open(os.path.join(CHEATS, what + ".patch")) as f:
            touches_lab = any(p in v.files for p in patch_files(f.name))
        if touches_lab:
            t.check(got < total, "%s: cheat %s (answers remembered in the lab's files) loses "
                    "points (%d/%d)" % (name, what, got, total), out)
        else:
            t.check(scores[sub] == scores["stripped"],
                    "%s: cheat %s (edits outside the lab's files) scores what its lab code "
                    "deserves, the stripped tree's %d (%d/%d)" % (name, what, strip_score, got,
                                                                  total), out)
            t.check("ignored (not the lab's files" in out and "(changed)" in out,
                    "%s: ... and the grade lists the files it ignored" % name, out)


def test_alone_equals_class(t, name, v, tmp):
    """Two submissions graded alone score what they scored in the class."""
    picks = ["solved", "stripped"]     # graded in the class with every check
    for sub in picks:
        path = next(os.path.join(v.dir, e) for e in os.listdir(v.dir)
                    if gradeclass.lab.safe_name(e) == sub)
        alone, out = grade_alone(name, path, os.path.join(tmp, "alone-%s.json" % sub))
        cls = results_of(name, sub)
        same = alone is not None and [(x["name"], x["score"]) for x in alone["tests"]] == \
            [(x["name"], x["score"]) for x in cls["tests"]]
        t.check(same, "%s: %s graded alone scores what it scored in the class (%s and %s)"
                % (name, sub, alone and alone["score"], cls["score"]), out[-1500:])


def test_time_limit(t, name, tmp):
    """A submission whose kernel hangs (wx-audit's effective_prot() loops
    for ever, so the boot-time audit never ends) is stopped at its time
    limit, QEMUs and all, and scores 0 on what it did not finish, saying
    why; the class goes on."""
    if name != "wx-audit":
        t.skip("a hanging submission is stopped at its time limit",
               "the hanging submission is wx-audit's (not graded in this run)")
        return
    d = lab_files_dir(name, os.path.join(tmp, "hangs"))
    path = os.path.join(d, "mm", "effective_prot.c")
    with open(path) as f:
        src = f.read()
    with open(path, "w") as f:
        f.write(src.replace("pteval_t leaf = pte ? *pte : pde;",
                            "pteval_t leaf = pte ? *pte : pde;\n\n\tfor (;;)\n\t\t;", 1))
    t0 = time.monotonic()
    rows = gradeclass.grade_many([(name, "hangs", d)], jobs=1, timeout=20, seed=SEED,
                                 out=open(os.devnull, "w"))
    row, res = rows[(name, "hangs")], results_of(name, "hangs")
    cut = [x for x in res["tests"] if "ran out of its time limit" in x["output"]]
    t.check(row["status"].startswith("time limit") and cut and res["score"] == 0 and
            len(res["tests"]) == len(lab.load_checks(name)) and time.monotonic() - t0 < 60,
            "%s: a submission whose kernel hangs is stopped at its time limit (20 s): %s, %d "
            "of %d checks say so, %s/%s" % (name, row["status"], len(cut), len(res["tests"]),
                                             res["score"], row["max"]), res.get("output", ""))
    r = subprocess.run(["pgrep", "-f", "class-%s-hangs" % name], capture_output=True, text=True)
    t.check(not r.stdout.strip(), "... and no QEMU or make of it is left running", r.stdout)


def test_stall(t, tmp):
    """A kernel that loops for ever inside one self-test (tlb-shootdown's
    CPU 2 spinning in do_kernel_range_flush() after its 3000th call, as a
    CPU does that flushes a range read from a dead stack frame) is told by
    the silence after its last KTAP line (3 s here, RONX_GRADE_STALL), not
    at the end of the suite's 300 s, and the grade names where each CPU was."""
    d = lab_files_dir("tlb-shootdown", os.path.join(tmp, "loops"))
    path = os.path.join(d, "mm", "tlb.c")
    with open(path) as f:
        src = f.read()
    loop = ("\tstruct tlb_stats *s = &this_cpu()->tlb;\n\tstatic int calls;\n\n"
            "\tif (smp_processor_id() == 2 && ++calls > 3000)\n\t\tfor (;;)\n\t\t\t;\n")
    with open(path, "w") as f:
        f.write(src.replace("\tstruct tlb_stats *s = &this_cpu()->tlb;\n", loop, 1))
    no_stale = "2"   # the check that runs `selftest smp` first
    # a short silence: a looping CPU costs the host a core for as long as it is waited for
    res, out = grade_alone("tlb-shootdown", d, os.path.join(tmp, "loops.json"), no_stale,
                           {"RONX_GRADE_STALL": "3"})
    out = "".join(x["output"] for x in res["tests"]) if res else out
    t.check(re.search(r"no KTAP line for \d+ s after 'ok \d+ \w+'; the CPUs were at .*"
                      r"CPU 2 do_kernel_range_flush\+0x", out) is not None,
            "tlb-shootdown: a kernel looping inside `selftest smp` is told by the silence after "
            "its last KTAP line, naming where each CPU was", out[-1500:])


def first_check_of_file(name, rel):
    """The number (from 1) of the lab's first check that grades a step of
    a function in rel, or None."""
    functions = {it.target for it in lab.read_strip(name) if it.path == rel}
    for n, c in enumerate(lab.load_checks(name), 1):
        if any(s.function in functions for s in c.steps):
            return n
    return None


def test_broken_submissions(t, name, tmp):
    """Submissions that cannot be graded as such: a one-line reason each,
    0 on what cannot run, a results.json, and never a traceback."""
    files = lab.lab_files(name)
    d = os.path.join(tmp, "broken")
    os.makedirs(d)
    missing = lab_files_dir(name, os.path.join(d, "missing"))
    os.remove(os.path.join(missing, files[0]))
    nocompile = lab_files_dir(name, os.path.join(d, "nocompile"))
    with open(os.path.join(nocompile, files[-1]), "a") as f:
        f.write("\nint broken(\n")
    flat = os.path.join(d, "flat")
    os.makedirs(flat)
    for rel in files:       # Gradescope's file upload: the files, without their directories
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(flat, os.path.basename(rel)))
    # lab files that reach past the lab: refused before linking, one line
    # each, 0 for the checks of their steps (item 1 of issue 21)
    forged = []
    adds = (("fake-ktest", "\n#include <ronx/ktest.h>\nKTEST(wxcheck, forged) { (void)t; }\n"),
            ("port-write", "\n#include <ronx/x86.h>\n"
             "static __used void forged_ktap(void) { outb(0xe9, 'o'); }\n"))
    for sub, add in adds if files[-1].endswith(".c") else ():
        tree = lab_files_dir(name, os.path.join(d, sub))
        with open(os.path.join(tree, files[-1]), "a") as f:
            f.write(add)
        forged.append(sub)
    if files[-1].endswith(".c"):
        # the teacher's solved file, reached from the scratch tree (grade_alone's
        # --work is d/<sub>.json.work) by a relative #include
        tree = lab_files_dir(name, os.path.join(d, "includes-solved"))
        work_dir = os.path.join(d, "includes-solved.json.work", os.path.dirname(files[-1]))
        up = os.path.relpath(os.path.join(ROOT, files[-1]), work_dir)
        with open(os.path.join(tree, files[-1]), "w") as f:
            f.write('#include "%s"\n' % up)
        forged.append("includes-solved")
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("I did the lab, honest.\n")
    with open(os.path.join(d, "corrupt.zip"), "wb") as f:
        f.write(b"PK\x03\x04 this is not a whole zip")
    os.makedirs(os.path.join(d, "empty"))
    cases = [("missing", "missing: %s: not in the submission" % files[0], "below")
             if len(files) > 1 else ("missing", "none of the lab's files", "zero"),
             # a linker script that is not the lab's is refused before it is used
             ("nocompile", "does not build" if files[-1].endswith(".c") else
              "%s: refused before linking: line" % files[-1], "zero"),
             ("flat", "found as %s" % os.path.basename(files[0]) if "/" in files[0]
              else "taken (the lab's files): " + files[0], "full"),
             ("notes.txt", "not graded as a submission: a file that is neither", "zero"),
             ("corrupt.zip", "not graded as a submission", "zero"),
             ("empty", "not graded as a submission: none of the lab's files", "zero"),
             ("does-not-exist", "does not exist", "zero")]
    if forged:
        cases += [("fake-ktest", "%s: refused before linking: it defines section .ktests "
                   "(the self-test table: KTEST), which the lab's stub does not have"
                   % files[-1], "below"),
                  ("port-write", "%s: refused before linking: it uses the privileged "
                   "instruction `out %%al,$0xe9` at forged_ktap()+0x" % files[-1], "below"),
                  ("includes-solved", "%s: refused before compiling: it includes ../"
                   % files[-1], "below")]
    own = first_check_of_file(name, files[-1])

    def grade(case):
        # a submission that builds is graded with its first two checks (and,
        # for a forged file, the first of that file's own): what is tested
        # here is what is taken, and the one-line reason
        sub = case[0]
        only = "1,2" + (",%d" % own if sub in forged and own and own > 2 else "")
        return grade_alone(name, os.path.join(d, sub), os.path.join(d, sub + ".json"),
                           only=only)
    # each in its own work directory: LAB_JOBS at a time
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        graded = list(pool.map(grade, cases))
    for (sub, said, want), (res, out) in zip(cases, graded):
        ok = res is not None and "Traceback" not in out
        score = res["score"] if res else None
        total = res["extra_data"]["max_score"] if res else None
        right = ok and ({"zero": score == 0, "full": score == total,
                         "below": score is not None and score < total}[want])
        t.check(right and said in out,
                "%s: submission %s: graded (%s/%s), saying %r, no traceback"
                % (name, sub, score, total, said), out[-1200:])


GRADESCOPE_TEST_FIELDS = {"name": str, "score": (int, float), "max_score": (int, float),
                          "status": str, "output": str, "visibility": str}
VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


def gradescope_problems(res):
    """What in results.json Gradescope's specification does not accept."""
    bad = []
    if not isinstance(res, dict):
        return ["not a JSON object"]
    if not isinstance(res.get("score"), (int, float)):
        bad.append("score: expected a number, found %r" % res.get("score"))
    if not isinstance(res.get("execution_time"), int):
        bad.append("execution_time: expected whole seconds, found %r" % res.get("execution_time"))
    if res.get("visibility") not in VISIBILITY:
        bad.append("visibility: %r" % res.get("visibility"))
    if res.get("stdout_visibility", "hidden") not in VISIBILITY:
        bad.append("stdout_visibility: %r" % res.get("stdout_visibility"))
    if not isinstance(res.get("output", ""), str):
        bad.append("output: not a string")
    tests = res.get("tests")
    if not isinstance(tests, list) or not tests:
        return bad + ["tests: expected a list of tests, found %r" % tests]
    for x in tests:
        for k, ty in GRADESCOPE_TEST_FIELDS.items():
            if not isinstance(x.get(k), ty):
                bad.append("tests[%r].%s: expected %s, found %r" % (x.get("name"), k, ty, x.get(k)))
        if x.get("status") not in ("passed", "failed"):
            bad.append("tests[%r].status: %r" % (x.get("name"), x.get("status")))
        if x.get("visibility") not in VISIBILITY:
            bad.append("tests[%r].visibility: %r" % (x.get("name"), x.get("visibility")))
        if isinstance(x.get("score"), (int, float)) and isinstance(x.get("max_score"), (int, float)) \
                and not 0 <= x["score"] <= x["max_score"]:
            bad.append("tests[%r]: score %s outside 0..%s" % (x["name"], x["score"], x["max_score"]))
    if not bad and abs(sum(x["score"] for x in tests) - res["score"]) > 1e-9:
        bad.append("score %s is not the sum of the tests' scores" % res["score"])
    return bad


def test_autograder(t, name, v, tmp):
    """make autograder's zip, run as Gradescope runs it: unpacked into
    <root>/source, run_autograder copied to <root>/, setup.sh run once, then
    per submission <root>/submission in and <root>/results/results.json out."""
    r = subprocess.run(["make", "-C", ROOT, "--no-print-directory", "autograder", "LAB=" + name],
                       capture_output=True, text=True)
    zpath = os.path.join(ROOT, "build", "autograder", name + ".zip")
    if not t.check(r.returncode == 0 and os.path.exists(zpath),
                   "autograder: make autograder LAB=%s writes build/autograder/%s.zip"
                   % (name, name), r.stdout + r.stderr):
        return
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
    t.check("setup.sh" in names and "run_autograder" in names and
            modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111,
            "autograder: setup.sh and run_autograder at the zip's root, executable",
            " ".join(names[:10]))
    t.check(not any("/wrong/" in n for n in names) and not any(n.startswith("ronx/build/")
                                                              for n in names),
            "autograder: the zip has no wrong solutions and no build/")
    root = os.path.join(tmp, "autograder")
    os.makedirs(os.path.join(root, "source"))
    with zipfile.ZipFile(zpath) as z:
        z.extractall(os.path.join(root, "source"))
    for n, mode in modes.items():   # zipfile does not restore modes
        p = os.path.join(root, "source", n)
        if os.path.isfile(p):
            os.chmod(p, mode or 0o644)
    shutil.copy2(os.path.join(root, "source", "run_autograder"), os.path.join(root, "run_autograder"))
    env = dict(os.environ, RONX_AUTOGRADER_ROOT=root)
    t0 = time.monotonic()
    r = subprocess.run(["bash", os.path.join(root, "source", "setup.sh")], cwd=root, env=env,
                       capture_output=True, text=True)
    if not t.check(r.returncode == 0, "autograder: setup.sh installs and builds (%.0fs)"
                   % (time.monotonic() - t0), (r.stdout + r.stderr)[-1500:]):
        return
    cheat = next((k for k in sorted(v.kinds) if v.kinds[k][0] == "cheat"), None)
    for sub, want in (("solved", "full"), ("stripped", "below"), (cheat, "below")):
        if sub is None:
            continue
        path = next(os.path.join(v.dir, e) for e in os.listdir(v.dir)
                    if gradeclass.lab.safe_name(e) == sub)
        shutil.rmtree(os.path.join(root, "submission"), ignore_errors=True)
        shutil.rmtree(os.path.join(root, "results"), ignore_errors=True)
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(root, "submission"), symlinks=True)
        else:
            # Gradescope hands over an uploaded archive's files: unpack it there
            os.makedirs(os.path.join(root, "submission"))
            lab.submission.unpack(path, os.path.join(root, "submission"))
        r = subprocess.run([os.path.join(root, "run_autograder")], cwd=root, env=env,
                           capture_output=True, text=True)
        rpath = os.path.join(root, "results", "results.json")
        try:
            with open(rpath) as f:
                res = json.load(f)
        except (OSError, ValueError) as e:
            t.fail("autograder: %s: results.json" % sub, "%s\n%s" % (e, (r.stdout + r.stderr)[-1500:]))
            continue
        bad = gradescope_problems(res)
        t.check(not bad, "autograder: %s: results.json has Gradescope's fields" % sub,
                "\n".join(bad))
        t.check("before linking" in res.get("output", ""),
                "autograder: %s: the lab's files were inspected before linking" % sub,
                res.get("output", "")[-800:])
        total = sum(x["max_score"] for x in res.get("tests", []))
        ok = res.get("score") == total if want == "full" else res.get("score", total) < total
        t.check(ok and r.returncode == 0, "autograder: %s: scores %s/%s (%s)"
                % (sub, res.get("score"), total, "full" if want == "full" else "below full"),
                (r.stdout + r.stderr)[-1500:])


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


def test_student_tree_stands_alone(t, tmp, name):
    """A lab-start tree carries the seeds its handouts point to, and every
    relative link of its documents resolves there."""
    import re
    tree = os.path.join(tmp, "alone-" + name)
    lab.start(name, tree, git=False)
    if lab.find_seeds() is None:
        t.skip("the student's tree carries the seeds",
               "the seeds are not here (RONX_SEEDS=DIR or ../shared/seeds/)")
        return
    t.check(os.path.isdir(os.path.join(tree, "seeds")) and
            sorted(os.listdir(os.path.join(tree, "seeds"))) == sorted(os.listdir(lab.find_seeds())),
            "the student's tree carries the seeds (seeds/)")
    bad = []
    for doc in ["README.md", "docs/seed-map.md"] + ["docs/labs/%s" % n for n in
                                                    os.listdir(os.path.join(tree, "docs", "labs"))]:
        with open(os.path.join(tree, doc)) as f:
            text = f.read()
        if "../shared/seeds" in text:
            bad.append("%s still names ../shared/seeds" % doc)
        for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            if not os.path.exists(os.path.join(tree, os.path.dirname(doc), link)):
                bad.append("%s: %s leads nowhere" % (doc, link))
    t.check(not bad, "every link of the student's README and handouts resolves in its tree",
            "\n".join(bad[:10]))
    shutil.rmtree(tree, ignore_errors=True)


def test_lab_start_output(t, tmp, name):
    """make lab-start says where the tree is and what to read, nothing
    more: with the seeds found they are in the tree; without them (a copy
    of the project far from ../shared/seeds, no git) it says nothing of
    them. A tree made from a student's tree (which carries seeds/) works."""
    runs = []
    tree = os.path.join(tmp, "start-" + name)
    r = subprocess.run([PYTHON, os.path.join(ROOT, "tools", "lab.py"), "start", name, tree],
                       capture_output=True, text=True)
    runs.append(("the teacher's tree", r, tree, lab.find_seeds() is not None, name))
    # another lab's tree from this student's tree (a lab stripped twice has
    # nothing left to strip: layout's ALIGN lines)
    other = next((n for n in lab.written_labs() if n != name), name)
    again = os.path.join(tmp, "start-again-" + name)
    r = subprocess.run([PYTHON, os.path.join(tree, "tools", "lab.py"), "start", other, again],
                       capture_output=True, text=True, cwd=tree)
    runs.append(("a student's tree", r, again, lab.find_seeds() is not None, other))
    far = os.path.join(tmp, "far", "ronx")
    lab.copy_files(ROOT, far, lab.project_files(ROOT))
    env = dict(os.environ, RONX_SEEDS="")
    r = subprocess.run([PYTHON, os.path.join(far, "tools", "lab.py"), "start", name,
                        os.path.join(tmp, "far", "lab")], capture_output=True, text=True,
                       env=env, cwd=far)
    runs.append(("a copy without the seeds", r, os.path.join(tmp, "far", "lab"), False, name))
    for what, r, dest, seeds, started in runs:
        lines = (r.stdout + r.stderr).splitlines()
        want = ["ronx: lab %s: your tree is " % started,
                "ronx: read docs/labs/%s.md there" % started]
        t.check(r.returncode == 0 and len(lines) == 2 and
                all(ln.startswith(w) for ln, w in zip(lines, want)) and
                os.path.isdir(os.path.join(dest, "seeds")) == seeds,
                "lab-start from %s prints its two lines, nothing about seeds, and the tree %s "
                "seeds/" % (what, "has" if seeds else "has no"), r.stdout + r.stderr)
    for d in (tree, again, os.path.join(tmp, "far")):
        shutil.rmtree(d, ignore_errors=True)


# -- every wrong solution under many seeds (issue 21: no lottery) -----------
SEEDS = [SEED + 7919 * i for i in range(10)]     # SEED first: the class grade above is its run


def RecordingContext(root, seed):
    """A grading.Context that notes which scenarios (ctx.rng names) each
    check drew, in ctx.drawn (tools/lab.py new_context(), as the class
    grade of the solved files records them): a check that drew none does
    not depend on the seed, so one failing run of it fails it under every
    seed."""
    return lab.new_context(root, seed, None, recording=True)


def run_recorded(ctx, name, c):
    import grading
    ctx.drawn = set()
    o = grading.run_check(ctx, name, c)
    return o.score < o.points, sorted(ctx.drawn), o


def seeded_path(tmp, name):
    return os.path.join(tmp, "seeded-%s.json" % name)


def record_seeded(name, checks, tree):
    """{check: [the scenarios it drew]} of the solved tree at tree, graded
    once under SEEDS[1]. A check run after one that drew from the seed may
    use what that one built (a program, a boot): it is run in a fresh
    context, so that what it drew is all it depends on."""
    seeded = {}
    ctx = RecordingContext(tree, SEEDS[1])
    drew = False
    try:
        for c in checks:
            if drew:
                ctx.close()
                ctx = RecordingContext(tree, SEEDS[1])
            _, drawn, _ = run_recorded(ctx, name, c)
            seeded[c.name] = drawn
            drew = bool(drawn)
    finally:
        ctx.close()
    return seeded


def wrong_seeds_worker(name, tmp, out_path, chunk):
    """For lab name: which checks depend on the seed (what the class grade
    of the solved files recorded; if it could not, the solved files graded
    once, recording, in the tree their class grade built: the lab's first
    worker does it, the others read its file), then each wrong
    solution under SEEDS. A wrong solution that failed, under SEED (the
    class grade), a check that draws nothing from the seed fails it under
    every seed: proven without another run. The others are graded, in the
    tree their class grade built (never built a second time), under each
    further seed with the seeded checks only, the one that failed last
    first, until one fails (that seed is not full marks)."""
    checks, _ = lab.load_lab(name)
    names = chunk.partition(":")[2]     # "1:wrong-a" ("0:" for a lab with none)
    out = {"seeded": {}, "wrong": {}}
    # the lab's first worker records; the others start once it has (the
    # scheduler waits for its file) and read what it found
    done = seeded_path(tmp, name)
    if os.path.exists(done):
        with open(done) as f:
            out["seeded"] = json.load(f)
    else:
        tree = class_tree(name, "solved")
        try:
            failed = lab.build(tree) if os.path.isdir(tree) else "its class tree is gone"
            if failed:
                out["error"] = "the solved files' tree does not build: " + failed
                return lab.write_json(out_path, out)
            out["seeded"] = record_seeded(name, checks, tree)
        finally:
            shutil.rmtree(tree, ignore_errors=True)
        lab.write_json(done, out["seeded"])
    for w in filter(None, names.split(",")):
        # the tree its class grade built (the solved files with the patch
        # applied, as the class took them): graded again, then removed
        tree = class_tree(name, "wrong-" + w)
        try:
            wrong_under_seeds(name, checks, w, tree, out)
        finally:
            shutil.rmtree(tree, ignore_errors=True)
    lab.write_json(out_path, out)


def class_tree(name, sub):
    """The scratch tree in which the class graded sub, kept built
    (test_labs() keeps the solved files' and the wrong solutions')."""
    return gradeclass.work_path(name, sub)


def wrong_under_seeds(name, checks, w, tree, out):
    """wrong/w under SEEDS[1:] in tree (its class grade's tree): its record
    in out["wrong"]."""
    t0, c0 = time.monotonic(), cpu_seconds()
    try:
        res = results_of(name, "wrong-" + w)
    except OSError:
        return
    fails = [x["name"][len(name) + 2:] for x in res["tests"] if x["score"] < x["max_score"]]
    rec = {"fails": fails, "seeds": {str(SEEDS[0]): fails[0] if fails else None}}
    out["wrong"][w] = rec
    still = [f for f in fails if not out["seeded"].get(f, ["?"])]
    if still:
        rec["proof"] = "%s fails and draws nothing from the seed" % still[0]
        return
    if not fails:
        return              # full marks under SEED: the class test says so already
    if not os.path.isdir(tree):
        rec["error"] = "the tree its class grade built is gone (%s)" % tree
        return
    broken = lab.build(tree)    # make finds it built, or says again why it is not
    if broken:
        rec["proof"] = "does not build (0 under every seed)"
        return
    order = [c for c in checks if c.name in fails] + \
            [c for c in checks if c.name not in fails and out["seeded"][c.name]]
    for seed in SEEDS[1:]:
        ctx = RecordingContext(tree, seed)
        hit, first = None, True
        try:
            for c in order:
                bad, drawn, _ = run_recorded(ctx, name, c)
                if bad:
                    hit = c
                    break
                first = False
        finally:
            ctx.close()
        rec["seeds"][str(seed)] = hit.name if hit else None
        if hit:
            order.remove(hit)
            order.insert(0, hit)
            if not drawn and first:     # all it used, it built itself
                rec["proof"] = "%s fails and draws nothing from the seed" % hit.name
                break
    rec["seconds"] = round(time.monotonic() - t0, 1)
    rec["cpu"] = round(cpu_seconds() - c0, 1)


def seed_jobs(names, rows):
    """[(lab, "PART:wrong", cost)], the costliest first: one worker per
    wrong solution, taken by the next free slot, so that no worker holds
    a queue of them and becomes the long tail of the step (a grade's cost
    under load is not known before it runs: a hang costs its time limit).
    A wrong solution costs about what its class grade cost (rows: the
    class's; 10 s for one not graded there). Part 0 of a lab, its
    costliest, records which checks draw from the seed if the class grade
    of the solved files could not: it starts first and the lab's others
    wait for its file."""
    jobs = []
    for n in names:
        wrong_dir = os.path.join(ROOT, "labs", n, "wrong")
        ws = sorted(x[:-len(".patch")] for x in os.listdir(wrong_dir)
                    if x.endswith(".patch")) if os.path.isdir(wrong_dir) else []
        cost = {w: rows.get((n, "wrong-" + w), {}).get("seconds", 10.0) for w in ws}
        ws.sort(key=lambda w: -cost[w])
        jobs += [(n, "%d:%s" % (i, w), cost[w]) for i, w in enumerate(ws)] or [(n, "0:", 0.0)]
    return sorted(jobs, key=lambda j: -j[2])


# the load beside the seed step: a wrong solution must lose points under
# every seed on a loaded machine too (issue 33). make test's other stages
# are that load while they run (LAB_BESIDE=PATH: they start with the labs
# stage and make PATH.done when they have ended); then BUSY
# more slots (LAB_BUSY=N; 0: none), each held by a seed worker when one
# is ready and by a busy loop when none is. Without LAB_BESIDE the BUSY
# slots are there from the start.
BUSY = int(os.environ.get("LAB_BUSY", "2"))
BESIDE = os.environ.get("LAB_BESIDE", "")


# a busy loop that ends once its parent is gone: a run killed (SIGTERM,
# not the terminal's Ctrl-C, which reaches the loops too) leaves none spinning
SPIN = ("import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n"
        "    for _ in range(200000):\n        pass\n")


class BusyLoops:
    """Processes that only spin, as many as resize() last asked for, until
    the with block ends."""
    def __init__(self):
        self.procs = []
        self.most = 0

    def resize(self, n):
        while len(self.procs) < n:
            self.procs.append(subprocess.Popen([PYTHON, "-c", SPIN]))
        while len(self.procs) > n:
            p = self.procs.pop()
            p.kill()
            p.wait()
        self.most = max(self.most, n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.resize(0)


class Load:
    """The seed step's load: make test's other stages until they make
    BESIDE.done; from then on BUSY slots more than the workers' own, and a
    busy loop in each slot no worker holds (fill()), so that the machine
    is never less loaded than by the workers and BUSY loops, and the CPU
    a loop would burn grades a wrong solution instead. others: the seconds
    the other stages ran beside the step."""

    def __init__(self, busy=BUSY, beside=BESIDE):
        self.busy, self.beside = busy, beside
        self.loops = BusyLoops()
        self.others = 0.0

    def __enter__(self):
        self.t0 = time.monotonic()
        return self

    def others_done(self):
        if not self.beside:
            return True
        if not self.others and os.path.exists(self.beside + ".done"):
            self.others = time.monotonic() - self.t0
        return bool(self.others)

    def slots(self, workers):
        """How many seed workers may run now."""
        return workers + (self.busy if self.others_done() else 0)

    def fill(self, free):
        """free slots have no worker: a busy loop in each (at most BUSY)."""
        self.loops.resize(max(0, min(free, self.busy)) if self.others_done() else 0)

    def __exit__(self, *exc):
        self.loops.__exit__()
        if self.beside and not self.others:
            self.others = time.monotonic() - self.t0

    def said(self):
        more = "%d slots more, a busy loop in any no worker held (%d at most)" % (
            self.busy, self.loops.most)
        if not self.beside:
            return more
        return "make test's other stages (%.0fs), then %s" % (self.others, more)


def test_wrong_under_seeds(t, names, tmp, rows=None):
    """Every wrong solution of every lab loses points under each of SEEDS
    (at least 10), on a loaded machine (Load). The work is split into
    workers (seed_jobs()), each in a tree of its own, two per core
    (LAB_JOBS) at a time beside the other stages, BUSY more once they
    have ended: a worker mostly waits for QEMU's answers."""
    load0 = os.getloadavg()[0]
    with Load() as load:
        merged = run_seed_workers(names, tmp, rows, load)
    progress("labs: the seed step ran beside %s (load average %.1f at its start, %.1f at its "
             "end)" % (load.said(), load0, os.getloadavg()[0]))
    report_seeds(t, names, merged)


def run_seed_workers(names, tmp, rows, load):
    """The seed workers of every lab, run to their end, as many at a time
    as load.slots() allows: {lab: {"wrong": {w: record}, "errors": [...]}}."""
    t0 = time.monotonic()
    jobs = seed_jobs(names, rows or {})
    first_done = set()

    def ready(job):
        n, chunk, _ = job
        return chunk.startswith("0:") or n in first_done or \
            os.path.exists(seeded_path(tmp, n))
    procs, outs, merged = [], {}, {}
    while jobs or procs:
        while len(procs) < load.slots(2 * JOBS) and any(ready(j) for j in jobs):
            job = next(j for j in jobs if ready(j))
            jobs.remove(job)
            n, chunk, _ = job
            path = os.path.join(tmp, "seeds-%s-%s.json" % (n, chunk.partition(":")[0]))
            outs[(n, chunk)] = path
            procs.append(((n, chunk), subprocess.Popen(
                [PYTHON, os.path.abspath(__file__), "--wrong-seeds", n, tmp, path, chunk],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        load.fill(load.slots(2 * JOBS) - len(procs))
        done = next((x for x in procs if x[1].poll() is not None), None)
        if done is None:
            time.sleep(0.2)
            continue
        procs.remove(done)
        (n, chunk), p = done
        if chunk.startswith("0:"):
            first_done.add(n)
        said = p.communicate()[0]
        try:
            with open(outs[(n, chunk)]) as f:
                out = json.load(f)
        except (OSError, ValueError):
            out = {"error": "the worker (%s) failed:\n%s" % (chunk, said[-1500:])}
        m = merged.setdefault(n, {"wrong": {}, "errors": []})
        if "error" in out:
            m["errors"].append(out["error"])
        m["wrong"].update(out.get("wrong", {}))
    progress("labs: every wrong solution under %d seeds in %.0fs" % (len(SEEDS),
                                                                    time.monotonic() - t0))
    return merged


def report_seeds(t, names, merged):
    for n in names:
        m = merged.get(n, {"wrong": {}, "errors": ["no worker ran"]})
        if not t.check(not m["errors"], "%s: the wrong solutions graded under %d seeds"
                       % (n, len(SEEDS)), "\n".join(m["errors"])):
            continue
        for w, rec in sorted(m["wrong"].items()):
            full = [s for s, hit in sorted(rec["seeds"].items()) if hit is None]
            how = rec.get("proof") or "seeds %s" % ", ".join(
                "%s: %s" % (s, hit) for s, hit in sorted(rec["seeds"].items())[:3])
            t.check(not full and "error" not in rec and (rec.get("proof") or
                                                         len(rec["seeds"]) >= len(SEEDS)),
                    "%s: wrong/%s loses points under every one of %d seeds" % (n, w, len(SEEDS)),
                    rec.get("error") or "full marks under seed %s (repeat: make grade LAB=%s "
                    "SUBMISSION=... SEED=%s)" % (", ".join(full), n, full[0] if full else ""))
            progress("  %s: wrong/%s under %d seeds: %s%s" % (
                n, w, len(SEEDS), how[:100],
                " (%.0fs, CPU %.0fs)" % (rec["seconds"], rec["cpu"]) if "seconds" in rec
                else ""))
    for n in names:
        recs = [r for r in merged.get(n, {"wrong": {}})["wrong"].values() if "seconds" in r]
        progress("labs: %s: %d wrong solutions graded under further seeds, %.0fs (CPU %.0fs)"
                 % (n, len(recs), sum(r["seconds"] for r in recs), sum(r["cpu"] for r in recs)))


def test_unit(t):
    for prefix, mod in (("atomics", test_atomics), ("cstrip", test_cstrip),
                        ("grading", test_grading), ("handouts", test_handouts),
                        ("inspect", test_inspect), ("pagemodel", test_pagemodel),
                        ("scenarios", test_scenarios)):
        for name, fn in mod.TESTS:
            try:
                fn()
                t.check(True, "%s: %s" % (prefix, name))
            except Exception as e:  # one failing unit test, the others still run
                t.fail("%s: %s" % (prefix, name), "%s: %s" % (type(e).__name__, e))


def main(argv):
    if argv[:1] == ["--wrong-seeds"]:
        wrong_seeds_worker(*argv[1:5])
        return 0
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


class Deferred:
    """Results for a test run in a thread beside others: its checks are
    kept, in order, and added to the real Results when it has ended."""

    def __init__(self):
        self.calls = []

    def check(self, cond, desc, detail=""):
        self.calls.append(("check", bool(cond), desc, "" if cond else detail))
        return bool(cond)

    def skip(self, desc, reason):
        self.calls.append(("skip", desc, reason))

    def fail(self, desc, detail):
        self.calls.append(("fail", desc, detail))

    def run(self, what, fn, *args):
        try:
            fn(self, *args)
        except Exception as e:  # a crash is a failed check, as in the main thread's tests
            import traceback
            self.fail(what, "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc()[-1500:]))

    def replay(self, t):
        for c in self.calls:
            getattr(t, c[0])(*c[1:])


class Phases:
    """The wall time of each part of the test, and the CPU time of this
    process and of the children it waited for meanwhile (graders, QEMUs,
    makes; the seed workers' when they end), printed as it ends and
    summed up at the end (where the stage's minutes go)."""

    def __init__(self):
        self.t0, self.c0, self.times = time.monotonic(), cpu_seconds(), []

    def done(self, what):
        now, cpu = time.monotonic(), cpu_seconds()
        self.times.append((what, now - self.t0, cpu - self.c0))
        progress("labs: %s in %.0fs (CPU %.0fs)" % (what, now - self.t0, cpu - self.c0))
        self.t0, self.c0 = now, cpu

    def summary(self):
        progress("labs: time by part: " + ", ".join("%s %.0fs (CPU %.0fs)" % t
                                                    for t in self.times))


def test_labs(t, labs):
    ph = Phases()
    present = [n for n in labs if os.path.exists(os.path.join(ROOT, "labs", n, "checks.py"))]
    for n in labs:
        if n not in present:
            t.skip("%s: graded" % n, "labs/%s/ is not written yet" % n)
    ok, out = make(ROOT)
    t.check(ok, "the solved tree builds", out[-1500:])
    for n in present:
        refused = lab.inspect([n], ROOT)[n]
        t.check(not refused, "%s: the solved files pass the inspection before linking "
                "(labs/%s/interface)" % (n, n), "\n".join(refused.values()) +
                "\n(tools/lab.py interface %s says what the interface lacks)" % n)
    ph.done("build and inspection")
    # `make grade` in a tree, as a student runs it: one lab is enough here
    # (every lab's solved files are graded below, as submissions)
    solved = {}
    if present:
        progress("labs: grading the solved tree (%s)" % present[0])
        solved, text = grade_tree(ROOT, present[:1])
        got, total = summary(solved)
        t.check(solved and got == total, "%s: the solved tree grades full marks (%d/%d)"
                % (present[0], got, total), "\n".join(failing(solved)) + "\n" + text[-1500:])
        ph.done("the solved tree graded")
    tmp = tempfile.mkdtemp(prefix="ronx-labs-")
    classes = {}
    try:
        test_todo_before_failure(t, tmp)
        if present:
            test_student_tree_stands_alone(t, tmp, present[0])
            test_lab_start_output(t, tmp, present[0])
        one = "wx-audit" if "wx-audit" in present else (present[0] if present else None)
        ph.done("paging_init()'s stub and the student's trees")

        def items():
            """Each lab's class, graded while the next lab's is made."""
            for i, n in enumerate(present):
                v, checks, steps = classes[n] = make_class(t, n, i, os.path.join(tmp, n), one)
                for sub, path in gradeclass.submissions(v.dir):
                    yield (n, sub, path, checks_for_wrong(v, checks, steps, sub))
        progress("labs: making the classes of %d labs and grading them, %d submissions at a "
                 "time (make grade-class; LAB_JOBS=N)" % (len(present), JOBS))
        # the trees of the solved files and of the wrong solutions stay
        # built: the seed workers grade them again (class_tree())
        def keep(n, sub):
            return classes[n][0].kinds.get(sub, ("",))[0] in ("solved", "wrong")

        def record(n, sub):
            """The solved files' grade notes which checks draw from the seed,
            for the seed step (wrong_seeds_worker()): not a grade of its own."""
            return seeded_path(tmp, n) if classes[n][0].kinds.get(sub, ("",))[0] == "solved" \
                else None
        rows = gradeclass.grade_many(items(), jobs=JOBS, seed=SEED, out=Lines(), keep=keep,
                                     record=record)
        for n in classes:
            mine = [r for (ln, _), r in rows.items() if ln == n]
            progress("labs: %s: %d submissions, %.0fs of grading (CPU %.0fs)" % (
                n, len(mine), sum(r["seconds"] for r in mine), sum(r["cpu"] for r in mine)))
        ph.done("the classes made and %d submissions graded" % len(rows))
        for n in classes:
            t.check(os.path.exists(seeded_path(tmp, n)), "%s: the class grade of the solved "
                    "files noted which checks draw from the seed (the seed step grades them "
                    "no second time)" % n)
        for n, (v, checks, steps) in classes.items():
            mine = {k: x for k, x in solved.items() if k.startswith(n + ": ")}
            test_lab(t, n, v, checks, steps, mine)
        # the seed workers mostly wait for QEMU: the tests below run beside
        # them (none writes what they read: the class's results, build/)
        aside = Deferred()
        seeds = threading.Thread(target=aside.run, args=(
            "the wrong solutions under seeds", test_wrong_under_seeds, list(classes), tmp, rows))
        seeds.start()
        try:
            if one:
                v = classes[one][0]
                test_alone_equals_class(t, one, v, os.path.join(tmp, one))
                test_time_limit(t, one, os.path.join(tmp, one))
                ph.done("graded alone, and the time limit")
                test_broken_submissions(t, one, os.path.join(tmp, one))
                ph.done("broken submissions")
                test_autograder(t, one, v, os.path.join(tmp, one))
                ph.done("the autograder")
            if "tlb-shootdown" in classes:
                test_stall(t, os.path.join(tmp, "tlb-shootdown"))
                ph.done("a kernel looping in a self-test")
        finally:
            seeds.join()
        aside.replay(t)
        ph.done("the rest of the wrong solutions under %d seeds (they began with graded alone)"
                % len(SEEDS))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for n, (v, _, _) in classes.items():    # what a worker that failed left
            for sub in v.kinds:
                shutil.rmtree(class_tree(n, sub), ignore_errors=True)
        ph.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
