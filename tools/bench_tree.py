# SPDX-License-Identifier: GPL-2.0-only
"""An older ronx built from git for a before/after bench (tools/bench_*.py)."""
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")


def build_tree_at(commit, name, targets):
    """build/bench/NAME: the tree at commit, with make's targets (paths under
    it) built; [their paths], or None if git or make fails. Built once."""
    dest = os.path.join(BUILD, "bench", name)
    paths = [os.path.join(dest, t) for t in targets]
    if all(os.path.exists(p) for p in paths):
        return paths
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    arch = subprocess.run(["git", "-C", ROOT, "archive", commit], capture_output=True)
    if arch.returncode:
        return None
    subprocess.run(["tar", "-x", "-C", dest], input=arch.stdout, check=True)
    # the tree's ../shared (the seeds) is this checkout's
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    link = os.path.join(os.path.dirname(dest), "shared")
    if os.path.isdir(shared) and not os.path.exists(link):
        os.symlink(shared, link)
    r = subprocess.run(["make", "-s", "-j2"] + list(targets), cwd=dest, capture_output=True,
                       text=True)
    return paths if r.returncode == 0 else None
