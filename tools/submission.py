# SPDX-License-Identifier: GPL-2.0-only
"""A student's submission, graded as the lab's files alone.

A submission is a `make lab-start` repository, a plain directory, or a
zip or tarball of either (with or without one top directory). Of it, only
the files the lab's strip list names are taken; they are laid over a
pristine copy of the teacher's tree (the scratch tree), and that is what
gets built and graded. Everything else the submission changed - its
self-tests, Makefile, labs/, tools/ - is listed as ignored, never used.

    sub = open_submission(path, lab_files, scratch)   # Submission
    sub.reason        None, or one line: why this is not a submission
    sub.files         {lab file: path of the submission's copy}
    sub.missing       lab files the submission does not have
    sub.ignored       ["Makefile (changed)", "notes.txt (added)", ...]
    sub.summary()     the lines the grade prints about it
"""
import os
import shutil
import tarfile
import zipfile

SKIP_DIRS = {".git", "build", "__MACOSX", "__pycache__"}
# what make lab-start adds to every student's tree besides the lab's files
SCAFFOLD_FILES = {"include/ronx/lab.h", "kernel/lab_todo.c", "labs/student-tree"}


class Submission:
    def __init__(self, path):
        self.path = path
        self.kind = "directory"
        self.tree = None
        self.reason = None
        self.files = {}
        self.missing = []
        self.ignored = []
        self.found_by_name = []

    def summary(self):
        lines = ["Submission: %s (%s%s)" % (
            self.path, self.kind,
            "" if self.tree in (None, self.path) else
            ", its tree at %s" % (os.path.relpath(self.tree, self.unpacked_root)
                                  if getattr(self, "unpacked_root", None) else self.tree))]
        if self.reason:
            return lines + ["  not graded as a submission: " + self.reason]
        lines.append("  taken (the lab's files): " + (", ".join(
            rel + (" (found as %s)" % os.path.relpath(self.files[rel], self.tree)
                   if rel in self.found_by_name else "")
            for rel in sorted(self.files)) or "none"))
        for rel in self.missing:
            lines.append("  missing: %s: not in the submission; graded as the lab's "
                         "starting stub" % rel)
        if self.ignored:
            shown = self.ignored[:12]
            more = len(self.ignored) - len(shown)
            lines.append("  ignored (not the lab's files, never built): " + ", ".join(shown)
                         + (", and %d more" % more if more > 0 else ""))
        else:
            lines.append("  ignored: nothing (no other file differs from the lab's tree)")
        return lines


def _safe_extract_zip(path, dest):
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            name = info.filename
            target = os.path.realpath(os.path.join(dest, name))
            if not target.startswith(os.path.realpath(dest) + os.sep) or name.startswith("/"):
                continue    # a path out of the archive's directory: left out
            if info.is_dir():
                os.makedirs(target, exist_ok=True)
                continue
            # a symlink in a zip (unix mode 0o120000) is not followed: left out
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def _safe_extract_tar(path, dest):
    with tarfile.open(path) as t:
        members = []
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(dest, m.name))
            if (m.isfile() or m.isdir()) and \
                    target.startswith(os.path.realpath(dest) + os.sep):
                members.append(m)   # regular files and directories only
        # Python's "data" filter where it has one (3.12, and 3.11.4 on)
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        t.extractall(dest, members=members, **safe)


def unpack(path, dest):
    """Extracts an archive at path into dest; returns its kind, or raises
    ValueError with a one-line reason."""
    try:
        if zipfile.is_zipfile(path):
            _safe_extract_zip(path, dest)
            return "zip archive"
        if tarfile.is_tarfile(path):
            _safe_extract_tar(path, dest)
            return "tar archive"
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as e:
        raise ValueError("the archive cannot be read: %s" % e)
    raise ValueError("a file that is neither a directory, a zip nor a tarball")


def walk_files(top):
    """Every regular file under top (relative paths), without .git/ and build/."""
    out = []
    for d, dirs, names in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for n in sorted(names):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p) and n != ".DS_Store":
                out.append(os.path.relpath(p, top))
    return out


def find_tree(top, lab_files):
    """The directory under top that holds the lab's files: top itself, or
    down through single directories (an archive's one top directory)."""
    d = top
    while True:
        if any(os.path.isfile(os.path.join(d, rel)) for rel in lab_files):
            return d
        entries = [e for e in os.listdir(d) if e not in SKIP_DIRS and e != ".DS_Store"]
        if len(entries) == 1 and os.path.isdir(os.path.join(d, entries[0])):
            d = os.path.join(d, entries[0])
            continue
        return d


def open_submission(path, lab_files, scratch, as_started):
    """Resolves path (unpacking an archive into scratch) and compares it
    with the lab's starting tree: as_started(rel, path) says whether a
    file is what lab-start gave ("same", "changed", "added"). Never raises: a path that is not a
    submission gets sub.reason."""
    sub = Submission(path)
    lab_files = sorted(set(lab_files))
    if not os.path.exists(path):
        sub.reason = "%s does not exist" % path
        return sub
    top = path
    if not os.path.isdir(path):
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        try:
            sub.kind = unpack(path, scratch)
        except ValueError as e:
            sub.reason = str(e)
            sub.kind = "a file"
            return sub
        top = sub.unpacked_root = scratch
    elif os.path.isdir(os.path.join(path, ".git")):
        sub.kind = "git repository (its working tree)"
    sub.tree = find_tree(top, lab_files)
    files = walk_files(sub.tree)
    by_name = {}
    for rel in files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    for rel in lab_files:
        if rel in files:
            sub.files[rel] = os.path.join(sub.tree, rel)
        elif len(by_name.get(os.path.basename(rel), [])) == 1:
            # a flat upload (Gradescope's file upload): found by its name
            sub.files[rel] = os.path.join(sub.tree, by_name[os.path.basename(rel)][0])
            sub.found_by_name.append(rel)
        else:
            sub.missing.append(rel)
    if not sub.files:
        sub.reason = "none of the lab's files (%s) is in it" % ", ".join(lab_files)
        return sub
    taken = {os.path.relpath(p, sub.tree) for p in sub.files.values()}
    for rel in files:
        if rel in taken or rel in SCAFFOLD_FILES:
            continue
        try:
            how = as_started(rel, os.path.join(sub.tree, rel))
        except OSError:
            how = "unreadable"
        if how != "same":
            sub.ignored.append("%s (%s)" % (rel, how))
    return sub
