# SPDX-License-Identifier: GPL-2.0-only
"""make grade-class LAB=NAME SUBMISSIONS=DIR: every submission in DIR (a
directory, a zip or a tarball each; hidden entries skipped), graded as
`make grade LAB=NAME SUBMISSION=...` grades one - same code, same seed,
so the same score - one grade per core at a time, each in its own scratch
tree and build/, each a process of its own under a time limit: a
submission whose kernel hangs or crashes costs its own time, no one
else's.

Writes build/grade/NAME.csv (name, score, max, seconds, status, then each
check's points) and build/grade/NAME/<submission>/results.json and
grade.log; prints progress as grades finish (done/total, the slowest so
far).
"""
import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import lab

TIMEOUT = 600.0     # seconds per submission: a generous multiple of the slowest lab


def submissions(directory):
    """[(name, path)] of the entries of directory, in name order."""
    if not os.path.isdir(directory):
        raise lab.LabError("SUBMISSIONS=%s is not a directory" % directory)
    out, seen = [], set()
    for e in sorted(os.listdir(directory)):
        if e.startswith("."):
            continue
        name = lab.safe_name(e)
        while name in seen:
            name += "_"
        seen.add(name)
        out.append((name, os.path.join(directory, e)))
    return out


def work_path(lab_name, name):
    """The scratch tree submission name of lab_name is graded in."""
    return os.path.join(lab.ROOT, "build", "grade", "work", "class-%s-%s" % (lab_name, name))


def grade_one(lab_name, name, path, outdir, seed, timeout, only=None, keep=False, record=None):
    """Grades one submission in a process of its own; returns its row.
    only: the numbers of the checks to run (None: every check); keep: the
    scratch tree stays, built (work_path()), for the caller to grade again
    and remove (the grader's test grades wrong solutions under more seeds);
    record: a file where the grader writes which scenarios each check
    drew (tools/lab.py new_context())."""
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    results = os.path.join(d, "results.json")
    if os.path.exists(results):
        os.remove(results)
    work = work_path(lab_name, name)
    cmd = [sys.executable, os.path.join(lab.ROOT, "tools", "lab.py"), "grade", lab_name,
           "--submission", path, "--results", results, "--work", work, "--seed", str(seed)]
    if only:
        cmd += ["--only", ",".join(str(i) for i in sorted(only))]
    t0 = time.monotonic()
    status = "graded"
    # the teacher's tree is built (grade_many()): each grader need not ask make again
    env = dict(os.environ, RONX_TEACHER_BUILT="1")
    if record:
        env["RONX_RECORD_DRAWS"] = record
    with open(os.path.join(d, "grade.log"), "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=lab.ROOT,
                             start_new_session=True, env=env)
        waiter = Waiter(p)
        if not waiter.wait(timeout):
            # the whole group: the grader and every QEMU it started
            os.killpg(p.pid, signal.SIGKILL)
            waiter.wait(None)
            status = "time limit (%ds)" % timeout
        elif p.returncode != 0:
            status = "error (exit %d)" % p.returncode
    seconds = time.monotonic() - t0
    if not keep:
        shutil_rmtree(work)
    shutil_rmtree(work + ".unpacked")
    res = None
    if os.path.exists(results):
        with open(results) as f:
            res = json.load(f)
    row = finish(lab_name, name, res, status, seconds, results, only)
    row["cpu"] = waiter.cpu
    return row


class Waiter:
    """Waits for a Popen as wait4() does, keeping the CPU seconds (user
    and system) of the process and of every child it waited for (a
    grader's makes and QEMUs): where a class's time goes."""

    def __init__(self, p):
        self.p, self.cpu, self.got = p, 0.0, []
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()

    def _wait(self):
        _, status, ru = os.wait4(self.p.pid, 0)
        self.p.returncode = os.waitstatus_to_exitcode(status)
        self.cpu = ru.ru_utime + ru.ru_stime
        self.got.append(status)

    def wait(self, timeout):
        """True once the process has ended (timeout None: for ever)."""
        self.thread.join(timeout)
        return bool(self.got)


def shutil_rmtree(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)


def finish(lab_name, name, res, status, seconds, results, only=None):
    """The row of one submission; a grade cut short gets 0 for every check
    it did not reach, and its results.json says why."""
    checks = [c for i, c in enumerate(lab.load_checks(lab_name), 1) if not only or i in only]
    done = {t["name"]: t for t in (res or {}).get("tests", [])}
    if res is None or status != "graded" or res.get("extra_data", {}).get("partial"):
        why = ("the grade ran out of its time limit" if status.startswith("time")
               else "the grader stopped before this check (%s)" % status)
        tests = []
        for c in checks:
            key = "%s: %s" % (lab_name, c.name)
            tests.append(done.get(key) or {"name": key, "score": 0, "max_score": c.points,
                                           "status": "failed", "output": why,
                                           "visibility": "visible"})
        res = dict(res or {}, tests=tests, score=sum(t["score"] for t in tests),
                   execution_time=int(round(seconds)))
        res["output"] = (res.get("output", "") + "\n" + why).strip()
        lab.write_json(results, res)
    return {"name": name, "score": res["score"],
            "max": sum(t["max_score"] for t in res["tests"]),
            "seconds": seconds, "status": status,
            "checks": {t["name"]: t["score"] for t in res["tests"]}}


def grade_many(items, jobs=None, timeout=TIMEOUT, seed=None, out=sys.stdout, keep=None,
               record=None):
    """Grades [(lab, name, path)] or [(lab, name, path, only)] jobs at a
    time (default: every core); returns {(lab, name): row}. keep(lab, name):
    whether that submission's scratch tree stays (grade_one()); record(lab,
    name): the file for its scenario draws, or None (grade_one()). The teacher's
    tree is built first, once. items may be a generator: each item is
    graded as soon as it is made (the progress lines then count up
    without a total)."""
    jobs = jobs or os.cpu_count() or 1
    total = "/%d" % len(items) if hasattr(items, "__len__") else ""
    failed = lab.build(lab.ROOT)    # once, before the scratch trees copy its build/
    if failed:
        raise lab.LabError("the teacher's tree does not build:\n%s" % failed)
    rows, lock, slowest = {}, threading.Lock(), [None]

    def run(item):
        lab_name, name, path = item[:3]
        row = grade_one(lab_name, name, path, os.path.join(lab.ROOT, "build", "grade", lab_name),
                        seed, timeout, item[3] if len(item) > 3 else None,
                        bool(keep and keep(lab_name, name)),
                        record(lab_name, name) if record else None)
        with lock:
            rows[(lab_name, name)] = row
            if slowest[0] is None or row["seconds"] > slowest[0]["seconds"]:
                slowest[0] = row
            print("grade-class: [%d%s] %s: %d/%d in %.1fs (CPU %.1fs)%s (slowest so far: "
                  "%s, %.1fs)" % (len(rows), total, name, row["score"], row["max"],
                                  row["seconds"], row["cpu"],
                                  "" if row["status"] == "graded" else ", " + row["status"],
                                  slowest[0]["name"], slowest[0]["seconds"]),
                  file=out, flush=True)
        return row
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        # map() submits each item as the iterable yields it
        list(pool.map(run, items))
    return rows


def grade_class(lab_name, directory, jobs=None, timeout=TIMEOUT, seed=None, out=sys.stdout):
    """Grades every submission in directory; returns the rows (name order)."""
    subs = submissions(directory)
    if not subs:
        raise lab.LabError("no submissions in %s" % directory)
    jobs = jobs or os.cpu_count() or 1
    seed = lab.new_seed() if seed is None else seed
    print("grade-class: %s: %d submissions, %d at a time, seed %d, time limit %ds each"
          % (lab_name, len(subs), jobs, seed, timeout), file=out, flush=True)
    t0 = time.monotonic()
    rows = grade_many([(lab_name, n, p) for n, p in subs], jobs, timeout, seed, out)
    ordered = [rows[(lab_name, n)] for n, _ in subs]
    path = write_csv(lab_name, ordered, seed)
    wall = time.monotonic() - t0
    print("grade-class: %d submissions in %.1fs (%.1f per minute); %s" % (
        len(subs), wall, 60 * len(subs) / wall if wall else 0, os.path.relpath(path, lab.ROOT)),
        file=out, flush=True)
    return ordered


def write_csv(lab_name, rows, seed):
    names = ["%s: %s" % (lab_name, c.name) for c in lab.load_checks(lab_name)]
    path = os.path.join(lab.ROOT, "build", "grade", "%s.csv" % lab_name)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "score", "max_score", "seconds", "status", "seed"] + names)
        for r in rows:
            w.writerow([r["name"], r["score"], r["max"], "%.1f" % r["seconds"], r["status"], seed]
                       + [r["checks"].get(n, 0) for n in names])
    return path
