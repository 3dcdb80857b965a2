# SPDX-License-Identifier: GPL-2.0-only
"""make autograder LAB=NAME: build/autograder/NAME.zip, a Gradescope
autograder as its specification lays one out: setup.sh and
run_autograder at the root of the zip (Gradescope unpacks it into
/autograder/source and copies run_autograder to /autograder), and the
teacher's tree under ronx/ (its project files; no wrong solutions, no
build/). Templates: labs/gradescope/.

setup.sh (once, as root, on Gradescope's Ubuntu image) installs the
packages building and booting need and builds the tree; run_autograder
(per submission) grades /autograder/submission with tools/lab.py grade
--submission and writes /autograder/results/results.json.
"""
import os
import zipfile

import lab

TEMPLATES = os.path.join(lab.ROOT, "labs", "gradescope")


def _add(z, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16     # a regular file with its mode
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def make_zip(lab_name, dest=None):
    """Writes the zip; returns its path."""
    dest = dest or os.path.join(lab.ROOT, "build", "autograder", lab_name + ".zip")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = dest + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for name in ("setup.sh", "run_autograder"):
            with open(os.path.join(TEMPLATES, name)) as f:
                _add(z, name, f.read().replace("@LAB@", lab_name), 0o755)
        for rel in sorted(lab.project_files(lab.ROOT)):
            path = os.path.join(lab.ROOT, rel)
            with open(path, "rb") as f:
                _add(z, "ronx/" + rel, f.read(), os.stat(path).st_mode & 0o777)
    os.replace(tmp, dest)
    return dest
